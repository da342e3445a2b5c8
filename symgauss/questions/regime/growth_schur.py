"""Exponential growth along B's null cone at d = 3 (one head): the search for a ``growth-schur``
certificate (the mathematics is in :mod:`symgauss.kernel.kinds.growth_schur`).

Untrusted search: a float integration until tr Σ = 1e4 gives the growing direction (its largest
entry is the axis j) and the Schur coordinates there; at u = 0 the fast equations are affine in
f = (η, ξ), so the slow manifold f̄(s) is one linear solve; Newton on the reduced slow field gives
s*, finite differences its slope G, the reduced Jacobian J, the fast matrix L and the centres'
first order in u; the quadratic centres are then fitted (least squares) to the slow manifold's
invariance on the region's box. For an entry at σ = 300, 1000, 100, 3000 along the float
solution the region is sized to hold that point (Ps shaped by its deviation, Pf from L) and tried
until the kernel's :func:`~symgauss.kernel.kinds.growth_schur.check_region` accepts it (the
search gives up after SEARCH_SECONDS); then validated steps of eq. 1.1 (metric I) run until Σ is
inside it.
"""
from __future__ import annotations

import math
import time
from fractions import Fraction

import flint

from symgauss.kernel.verdict import Invalid, NotProved
from symgauss.questions.regime.blowup_bound import BlowupBound, verified

#: how long the region search may take before it gives up (each failed size costs up to ~10 s)
SEARCH_SECONDS = 20
#: the entry sizes tried, in order
SIGMAS = (300.0, 1000.0, 100.0, 3000.0)


def _q(x: float, den: int = 10 ** 12) -> flint.fmpq:
    f = Fraction(round(float(x) * den), den)
    return flint.fmpq(f.numerator, f.denominator)


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
    return s, fs, G, J, L, KH[:2], KH[2:], g


def centre_floats(c, ds, u):
    """(f_c, ∂f_c/∂(ds, u)) for the coefficients c = (f*, G, H, Q) (floats; as the kernel's)."""
    import numpy as np
    fs, G, H, Q = c
    x = np.r_[ds, u]
    mono = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
    fc = fs + G @ ds + H * u + np.array([sum(Q[i, m] * x[a] * x[b] for m, (a, b)
                                             in enumerate(mono)) for i in range(3)])
    D = np.c_[G, H]
    for i in range(3):
        for m, (a, b) in enumerate(mono):
            D[i, a] += Q[i, m] * x[b]
            D[i, b] += Q[i, m] * x[a]
    return fc, D


#: evaluations of the fit's residual at most (about 0.1 s each; the fits that led to a region took
#: 7–12, and one on seed-51 symmetric-B-13-d3 ran past 100 s without converging)
FIT_EVALS = 40


def _fit(F, ss, fs, G, H, K1, half, u_hi):
    """(G, H, Q, K): the centres fitted (least squares) to the slow manifold's invariance on a
    grid of the region's box ``half`` × [0, u_hi]."""
    import itertools

    import numpy as np
    from scipy.optimize import least_squares
    grid = list(itertools.product((-1, 0, 1), (-1, 0, 1), (0, 0.5, 1)))

    def unpack(c):
        return c[:6].reshape(3, 2), c[6:9], c[9:27].reshape(3, 6), c[27:31].reshape(2, 2)

    def res(c):
        G, H, Q, K = unpack(c)
        out = []
        for a, b, t in grid:
            ds, u = np.array([a * half[0], b * half[1]]), t * u_hi
            fc, D = centre_floats((fs, G, H, Q), ds, u)
            o = F(u, ss + (K[0] + K[1] * u) * u + ds, fc)
            dd = o[[1, 3]] + (K[0] + 2 * K[1] * u) * o[6] * u
            if a == b == 0:
                out += list(dd)
            out += list(o[[2, 4, 5]] - u * D[:, :2] @ dd + D[:, 2] * o[6] * u * u)
        return np.array(out)
    c = least_squares(res, np.r_[G.ravel(), H, np.zeros(18), K1, 0, 0], max_nfev=FIT_EVALS).x
    return unpack(c)


def _lyap(M):
    """P from MᵀP + PM = −I, scaled to max |P_ij| = 1."""
    import numpy as np

    from symgauss.integrate.validated import lyapunov
    P = lyapunov(M, 0.0)
    return P / np.max(np.abs(P))


def _rate(M, P) -> float:
    """The largest k with MᵀP + PM ≼ −2k·P."""
    from scipy.linalg import eigh
    return float(min(eigh(-(M.T @ P + P @ M), P, eigvals_only=True))) / 2


def _trajectory(problem, tr: float = 1e4):
    """The dense float solution until tr Σ = ``tr`` (LSODA), or None."""
    import numpy as np

    from symgauss.integrate.float_events import solve_with_events
    from symgauss.questions.regime.reference import float_field
    f, full, y0 = float_field(problem)

    def big(_t, y):
        return np.trace(full(y)) - tr
    big.terminal = True
    sol = solve_with_events(f, (0, 400), y0, big, method="LSODA", rtol=1e-12, atol=1e-14,
                            dense_output=True)
    return (sol, full) if np.trace(full(sol.y[:, -1])) > tr / 2 else None


def _schur(S, B, j, k):
    """(u, s, f) of Σ (floats) in the coordinates of the kernel's kind (axis j, solved y_k)."""
    import numpy as np

    from symgauss.kernel.kinds.growth_schur import permuted
    S = np.array(permuted(S.tolist(), j))
    sig = S[0, 0]
    y = S[1:, 0] / sig
    C = S[1:, 1:] - sig * np.outer(y, y)
    v = np.r_[1, y]
    wt = (B.T @ v)[1:]
    Jw = np.array([-wt[1], wt[0]])
    return 1 / sig, np.array([y[1 - k], Jw @ C @ Jw / (wt @ wt)]), \
        np.r_[sig * (v @ B @ v), sig * C @ wt], y


def find_growth_schur(problem) -> BlowupBound:
    """A kernel-verified ``growth-schur`` certificate, or why none was found."""
    import numpy as np
    from scipy.optimize import brentq

    from symgauss.integrate.validated import integrate, step_budget
    from symgauss.kernel.equations import svec
    from symgauss.kernel.exact import eye
    from symgauss.kernel.kinds.growth_schur import check_region, entry, field, permuted
    from symgauss.kernel.kinds.limit import MAX_STEPS, MAX_SWITCHES
    from symgauss.kernel.read import read_problem
    from symgauss.questions.regime.basin import ADAPT
    if problem.d != 3 or len(problem.params.heads) != 1:
        return BlowupBound(None, "the growth-schur certificate is for d = 3 with one head")
    tr = _trajectory(problem)
    if tr is None:
        return BlowupBound(None, "the float integration did not reach tr Σ = 1e4")
    sol, full = tr
    data = problem.to_dict()
    data.pop("name", None)
    ep = read_problem(data)
    S = full(sol.y[:, -1])
    j = int(np.argmax(np.abs(np.linalg.eigh(S)[1][:, -1])))
    Aq, Vq, Bq = (permuted(M.tolist(), j) for M in (ep.params.A, *ep.params.heads[0]))
    A, V, B = (np.array([[float(x) for x in row] for row in M]) for M in (Aq, Vq, Bq))
    y = np.array(permuted(S.tolist(), j))[1:, 0] / S[j, j]
    v = np.r_[1, y]
    k = int(np.argmax(np.abs([(B[i + 1] + B[:, i + 1]) @ v for i in range(2)])))
    K1, J1 = k + 1, 2 - k
    br = 0
    if Bq[K1][K1] != 0:
        be = B[0, K1] + B[K1, 0] + (B[J1, K1] + B[K1, J1]) * y[1 - k]
        br = 1 if 2 * B[K1, K1] * y[k] + be > 0 else -1
    u, sv, fv, _ = _schur(S, B, j, k)
    try:
        ss, fs, G, J, L, Kl, Hl, g = _manifold(A, V, B, [u, sv[0], fv[0], sv[1], *fv[1:]], k,
                                                br)
    except (np.linalg.LinAlgError, ValueError, ZeroDivisionError):
        return BlowupBound(None, "the reduced flow on B's null cone has no regular equilibrium "
                           "near the growth direction")
    if not (max(np.linalg.eigvals(J).real) < 0 and max(np.linalg.eigvals(L).real) < 0
            and g > 0):
        return BlowupBound(None, "the growth direction is not attracting in the Schur "
                           "coordinates (slow or fast eigenvalues not negative)")
    Pf = _lyap(L)          # Ps is shaped per entry size below
    kf = _rate(L, Pf) * 0.7
    Al, Vl, Bl = A.tolist(), V.tolist(), B.tolist()

    def F(u, s, f):
        return np.array(field(Al, Vl, Bl, [u, s[0], f[0], s[1], f[1], f[2]], k, br, math.sqrt))
    base = {"axis": j, "k": k, "branch": br, "s_star": [_q(x) for x in ss],
            "f_star": [_q(x) for x in fs], "Pf": _qm(Pf),
            "fast_rate": _q(kf, 10 ** 6)}
    prec, found, whys = 128, None, []

    def sig_at(t):
        return full(sol.sol(t))[j, j]
    deadline = time.monotonic() + SEARCH_SECONDS
    for sig_e in SIGMAS:
        if not sig_at(0.0) < sig_e < sig_at(sol.t[-1]):
            continue
        if time.monotonic() > deadline:
            whys.append(f"the search for a region stopped after {SEARCH_SECONDS} s")
            break
        t_e = brentq(lambda t: sig_at(t) - sig_e, 0.0, sol.t[-1])
        u_e, s_e, f_e, _ = _schur(full(sol.sol(t_e)), B, j, k)
        ds_lin = s_e - ss - Kl * u_e
        half = np.abs(ds_lin) * 1.5 + 1e-4
        try:
            Gf, Hf, Qf, Kf = _fit(F, ss, fs, G, Hl, Kl, half, 1.5 * u_e)
        except (ValueError, ZeroDivisionError, OverflowError, np.linalg.LinAlgError):
            whys.append(f"σ = {sig_e:g}: the centres' fit left the chart")
            continue
        ds_e = s_e - ss - (Kf[0] + Kf[1] * u_e) * u_e
        d_e = f_e - centre_floats((fs, Gf, Hf, Qf), ds_e, u_e)[0]
        Dm = np.diag(np.abs(ds_e) + 1e-3 * np.abs(ds_e).max() + 1e-9)   # the region's shape
        Ps = _lyap(np.linalg.solve(Dm, J @ Dm))
        Ps = np.linalg.solve(Dm, np.linalg.solve(Dm, Ps).T)
        Ps = (Ps + Ps.T) / 2 / np.abs(Ps).max()
        rho = 1.3 * math.sqrt(ds_e @ Ps @ ds_e) + 1e-6
        w = {**base, "Ps": _qm(Ps), "G": _qm(Gf), "H": [_q(x) for x in Hf], "Q": _qm(Qf), "K": _qm(Kf)}
        for r in sorted({max(1.3 * math.sqrt(d_e @ Pf @ d_e), f * rho) for f in (0.3, 1.0)}):
            w.update(rho=_q(rho), r=_q(r), u_max=_q(1.5 * u_e), slow_cells=4, u_pieces=2,
                     arcs=32, depth=12)      # coarse cells: the kernel halves where needed
            try:
                g_lo, g_hi = check_region(ep, w)
            except (NotProved, Invalid) as e:
                whys.append(f"σ = {sig_e:g}: {e}")
                continue
            if g_lo > 0:
                found = (g_lo, g_hi)
                break
        if found:
            break
    if found is None:
        last = f" (last: {whys[-1]})" if whys else ""
        return BlowupBound(None, f"no invariant region of the Schur coordinates was proved{last}")
    spread = float(found[1]) - float(found[0])     # claim a little less than proved: the
    a = _q(float(found[0]) - 0.02 * spread, 10 ** 6)   # enclosures' rounding may differ
    b = _q(float(found[1]) + 0.02 * spread, 10 ** 6)   # between symgauss versions
    if not a > 0:
        return BlowupBound(None, "the growth rate is not proved positive on the region")

    def inside(c, rr):
        try:
            with flint.ctx.workprec(prec):
                entry(ep, w, c, rr)
            return True
        except NotProved:
            return False
    budget = min(step_budget(3, 1), MAX_STEPS)
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


def _qm(M):
    return flint.fmpq_mat([[_q(x) for x in row] for row in M])


def _text(x):
    if isinstance(x, flint.fmpq_mat):
        return [[str(x[i, c]) for c in range(x.ncols())] for i in range(x.nrows())]
    if isinstance(x, list):
        return [str(e) for e in x]
    return x if isinstance(x, int) else str(x)
