"""Exponential growth along B's null cone at d = 3 (one head): the search for a ``growth-schur``
certificate (the mathematics is in :mod:`symgauss.kernel.kinds.growth_schur`).

Untrusted search: a float integration until tr Σ = 1e4 gives the growing direction (its largest
entry is the axis j) and the Schur coordinates there; at u = 0 the fast equations are affine in
f = (η, ξ), so the slow manifold f̄(s) is one linear solve; Newton on the reduced slow field gives
s*, finite differences give its slope G, the reduced Jacobian J, the fast matrix L and the first
order in u of the centres (K, H: s'(s* + Ku) = −g·K·u, u·f' = O(u²)); Ps, Pf come from Lyapunov
equations. Sizes (ρ, r, u_max) and rates are tried until the kernel's
:func:`~symgauss.kernel.kinds.growth_schur.check_region` accepts the region; then validated steps
of eq. 1.1 (metric I) run until Σ is inside it.
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint

from symgauss.kernel.verdict import Invalid, NotProved
from symgauss.questions.regime.blowup_bound import BlowupBound, verified


def _q(x: float, den: int = 10 ** 12) -> flint.fmpq:
    f = Fraction(round(float(x) * den), den)
    return flint.fmpq(f.numerator, f.denominator)


def _state(problem, tr: float = 1e4):
    """Σ (floats) when tr Σ first reaches ``tr`` (LSODA), or None."""
    import numpy as np
    from scipy.integrate import solve_ivp

    from symgauss.questions.regime.reference import float_field
    f, full, y0 = float_field(problem)

    def big(_t, y):
        return np.trace(full(y)) - tr
    big.terminal = True
    sol = solve_ivp(f, (0, 400), y0, method="LSODA", rtol=1e-12, atol=1e-14, events=big)
    S = full(sol.y[:, -1])
    return S if np.trace(S) > tr / 2 else None


def _manifold(A, V, B, z, k, br):
    """(s*, f*, G, J, L, K, H) of the reduced flow (floats), from the state z."""
    import numpy as np

    from symgauss.kernel.kinds.growth_schur import field
    A, V, B = (M.tolist() for M in (A, V, B))

    def F(u, s, f):
        return np.array(field(A, V, B, [u, s[0], f[0], s[1], f[1], f[2]], k, br, math.sqrt))

    def fbar(s, u=0.0):
        f0 = F(u, s, np.zeros(3))[[2, 4, 5]]
        L = np.array([F(u, s, e)[[2, 4, 5]] - f0 for e in np.eye(3)]).T
        return -np.linalg.solve(L, f0), L

    def red(s):
        return F(0.0, s, fbar(s)[0])[[1, 3]]
    s = np.array([z[1], z[3]])
    for _ in range(40):
        r0 = red(s)
        J = np.array([(red(s + 1e-7 * e) - r0) / 1e-7 for e in np.eye(2)]).T
        s = s - np.linalg.solve(J, r0)
    h = 1e-6
    J = np.array([(red(s + h * e) - red(s - h * e)) / (2 * h) for e in np.eye(2)]).T
    fs, L = fbar(s)
    G = np.array([(fbar(s + h * e)[0] - fbar(s - h * e)[0]) / (2 * h) for e in np.eye(2)]).T
    # first order in u: s = s* + K·u, f = f* + H·u with s' = −g·K·u and u·f' = O(u²)
    x0 = np.r_[s, fs]

    def res(x, u):
        out = F(u, x[:2], x[2:])
        return np.r_[out[[1, 3]], out[[2, 4, 5]]], out[6]
    r0, g = res(x0, 0.0)
    D = np.array([(res(x0 + h * e, 0.0)[0] - res(x0 - h * e, 0.0)[0]) / (2 * h)
                  for e in np.eye(5)]).T
    Du = (res(x0, h)[0] - res(x0, -h)[0]) / (2 * h)
    M = D.copy()
    M[:2, :2] += g * np.eye(2)
    KH = -np.linalg.solve(M, Du)
    K, H = _second_order(F, s, fs, KH[:2], KH[2:])
    return s, fs, G, J, L, K, H, g


def _second_order(F, s, fs, K1, H1):
    """(K, H), rows the orders u¹, u²: the centres s* + K₁u + K₂u², f* + H₁u + H₂u² fitted
    (K₁, H₁ exact to first order; K₂, H₂ by least squares for u up to 0.004)."""
    import numpy as np
    from scipy.optimize import least_squares

    def res(c2):
        K, H = np.array([K1, c2[:2]]), np.array([H1, c2[2:]])
        out = []
        for u in (0.001, 0.002, 0.004):
            o = F(u, s + (K[0] + K[1] * u) * u, fs + (H[0] + H[1] * u) * u)
            out += list((o[[1, 3]] + (K[0] + 2 * K[1] * u) * o[6] * u) / u ** 2)
            out += list((o[[2, 4, 5]] + (H[0] + 2 * H[1] * u) * o[6] * u * u) / u ** 2)
        return np.array(out)
    c2 = least_squares(res, np.zeros(5)).x
    return np.array([K1, c2[:2]]), np.array([H1, c2[2:]])


def _lyap(M):
    import numpy as np
    from scipy.linalg import solve_continuous_lyapunov
    P = solve_continuous_lyapunov(M.T, -np.eye(len(M)))
    P = (P + P.T) / 2
    return P / np.max(np.abs(P))


def _rate(M, P) -> float:
    """The largest k with MᵀP + PM ≼ −2k·P."""
    from scipy.linalg import eigh
    return float(min(eigh(-(M.T @ P + P @ M), P, eigvals_only=True))) / 2


def _sizes():
    """(ρ, r/ρ, u_max·…) to try: the largest u_max first (Σ enters the region sooner, while
    its steps are accurate)."""
    for u_max in (1e-3, 3e-4, 1e-4):
        for rho in (3e-3, 1e-3, 5e-4):
            for frac in (0.5, 0.3):
                yield rho, rho * frac, u_max


def find_growth_schur(problem) -> BlowupBound:
    """A kernel-verified ``growth-schur`` certificate, or why none was found."""
    import numpy as np

    from symgauss.integrate.validated import integrate
    from symgauss.kernel.equations import svec
    from symgauss.kernel.exact import eye
    from symgauss.kernel.flow import MAX_STEP_WORK
    from symgauss.kernel.kinds.growth_schur import check_region, entry, permuted
    from symgauss.kernel.kinds.limit import MAX_STEPS, MAX_SWITCHES
    from symgauss.kernel.read import read_problem
    from symgauss.questions.regime.basin import ADAPT
    if problem.d != 3 or len(problem.params.heads) != 1:
        return BlowupBound(None, "the growth-schur certificate is for d = 3 with one head")
    S = _state(problem)
    if S is None:
        return BlowupBound(None, "the float integration did not reach tr Σ = 1e4")
    data = problem.to_dict()
    data.pop("name", None)
    ep = read_problem(data)
    j = int(np.argmax(np.abs(np.linalg.eigh(S)[1][:, -1])))
    Aq, Vq, Bq = (permuted(M.tolist(), j) for M in (ep.params.A, *ep.params.heads[0]))
    A, V, B = (np.array([[float(x) for x in row] for row in M]) for M in (Aq, Vq, Bq))
    S = np.array(permuted(S.tolist(), j))
    sig = S[0, 0]
    y = S[1:, 0] / sig
    C = S[1:, 1:] - sig * np.outer(y, y)
    v = np.r_[1, y]
    grad = [(B[i + 1] + B[:, i + 1]) @ v for i in range(2)]
    k = int(np.argmax(np.abs(grad)))
    K1, J1 = k + 1, 2 - k
    br = 0
    if Bq[K1][K1] != 0:
        be = B[0, K1] + B[K1, 0] + (B[J1, K1] + B[K1, J1]) * y[1 - k]
        br = 1 if 2 * B[K1, K1] * y[k] + be > 0 else -1
    wt = (B.T @ v)[1:]
    Jw = np.array([-wt[1], wt[0]])
    z = [1 / sig, y[1 - k], sig * (v @ B @ v), Jw @ C @ Jw / (wt @ wt), *(sig * C @ wt)]
    try:
        ss, fs, G, J, L, K, H, g = _manifold(A, V, B, z, k, br)
    except (np.linalg.LinAlgError, ValueError, ZeroDivisionError):
        return BlowupBound(None, "the reduced flow on B's null cone has no regular equilibrium "
                           "near the growth direction")
    if not (max(np.linalg.eigvals(J).real) < 0 and max(np.linalg.eigvals(L).real) < 0
            and g > 0):
        return BlowupBound(None, "the growth direction is not attracting in the Schur "
                           "coordinates (slow or fast eigenvalues not negative)")
    Ps, Pf = _lyap(J), _lyap(L)
    w = {"axis": j, "k": k, "branch": br, "s_star": [_q(x) for x in ss],
         "f_star": [_q(x) for x in fs], "G": flint.fmpq_mat([[_q(x) for x in r] for r in G]),
         "K": flint.fmpq_mat([[_q(x) for x in r] for r in K]),
         "H": flint.fmpq_mat([[_q(x) for x in r] for r in H]),
         "Ps": flint.fmpq_mat([[_q(x) for x in r] for r in Ps]),
         "Pf": flint.fmpq_mat([[_q(x) for x in r] for r in Pf])}
    ks, kf = _rate(J, Ps) * 0.8, _rate(L, Pf) * 0.8     # most of the rates the metrics give
    prec, found = 128, None
    with flint.ctx.workprec(prec):
        for rho, r, u_max in _sizes():
            for cells, pieces in ((8, 4), (16, 8), (32, 8)):
                w.update(rho=_q(rho), r=_q(r), u_max=_q(u_max), slow_cells=cells,
                         u_pieces=pieces, slow_rate=_q(ks, 10 ** 6), fast_rate=_q(kf, 10 ** 6))
                try:
                    g_lo, g_hi = check_region(ep, w)
                except (NotProved, Invalid):
                    continue
                if g_lo > 0:
                    found = (g_lo, g_hi)
                    break
            if found:
                break
    if found is None:
        return BlowupBound(None, "no invariant region of the Schur coordinates was proved")
    a = _q(float(found[0]) * (1 - 1e-6), 10 ** 6)
    b = _q(float(found[1]) * (1 + 1e-6) + 1e-6, 10 ** 6)
    if not a > 0:
        return BlowupBound(None, "the growth rate is not proved positive on the region")

    def inside(c, rr):
        try:
            with flint.ctx.workprec(prec):
                entry(ep, w, c, rr)
            return True
        except NotProved:
            return False
    budget = min(MAX_STEP_WORK // (24 * 24 * 2), MAX_STEPS)
    run = integrate(ep.params, svec(ep.cov0), eye(6), flint.fmpq(1), inside, t_max=400,
                    tol=1e-18, max_steps=budget)
    if not run.stopped:
        run = integrate(ep.params, svec(ep.cov0), eye(6), flint.fmpq(1), inside, t_max=400,
                        tol=1e-18, max_steps=budget - MAX_SWITCHES, adapt=ADAPT)
    if not run.stopped:
        return BlowupBound(None, f"validated steps did not enter the region ({run.why})")
    claim = {"axis": j, "t_enter": str(run.t), "rate_lower": str(a), "rate_upper": str(b)}
    witness = {"steps": run.witness_steps(), "order": 24, "prec": prec,
               **{key: _text(val) for key, val in w.items() if key != "axis"},
               **({"metrics": run.witness_metrics()} if run.switches else {})}
    return verified("growth-schur", problem, claim, witness,
                    "validated Taylor steps, then an invariant region of Tikhonov type in the "
                    "Schur coordinates (symgauss.questions.regime.growth_schur)")


def _text(x):
    if isinstance(x, flint.fmpq_mat):
        return [[str(x[i, c]) for c in range(x.ncols())] for i in range(x.nrows())]
    if isinstance(x, list):
        return [str(e) for e in x]
    return x if isinstance(x, int) else str(x)
