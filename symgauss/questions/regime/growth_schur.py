"""Exponential growth along B's null cone at d = 3 (one head): the search for a ``growth-schur``
certificate (the mathematics is in :mod:`symgauss.kernel.kinds.growth_schur`).

Untrusted search: a float integration until tr Σ = 1e4 gives the growing direction (its largest
entry is the axis j) and the Schur coordinates there; at u = 0 the fast equations are affine in
f = (η, ξ), so the slow manifold f̄(s) is one linear solve; Newton on the reduced slow field gives
s*, the reduced Jacobian J and the slow centre's first order K₁ in u. For an entry at σ = 300,
1000, 100, 3000 along the float solution:

- the slow shapes Ps (:func:`_shapes`: the Lyapunov metric of J scaled by the entry's deviation,
  and J's eigenbasis with the second direction weighted down), each sized to hold the entry;
- per shape, the fast centre by linear least squares on the ellipse (:func:`_centre`: f̄ itself,
  and its first order in u), and the slow side's float margin (:func:`_slow_margin`, γ ≥ 0 only,
  as the kernel); the best two shapes go on;
- a fast metric Pf that contracts on all of the region (:func:`_fast_metric`), and the band r
  between the fast side's floor and the slow side's ceiling in floats (:func:`_band`);
- the kernel's :func:`~symgauss.kernel.kinds.growth_schur.check_region` on it, with a smaller work
  limit (SEARCH_WORK) than the kernel's; the search gives up after SEARCH_SECONDS.

Then validated steps of eq. 1.1 (metric I) run until Σ is inside the region; when they stop
before it (the fast variables relax at a rate ∝ σ, so the steps shorten like 1/σ), the regions at
RETRY_SIGMAS below the σ where they stopped are sought once more, and the steps run again.
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
#: when the validated steps stop before the region (they shorten like 1/σ: the fast variables
#: relax at a rate ∝ σ), the entry sizes below where they stopped tried once more, within
#: RETRY_SECONDS (seed-671 general-41-d3: steps stop at σ ≈ 170 before the region at σ = 300 and
#: enter the one at σ = 100)
RETRY_SIGMAS, RETRY_SECONDS = (100.0, 50.0, 30.0), 10
#: the work limit of a region tried in the search (the kernel allows more: a region proved within
#: this is proved there too); a try that runs out costs about 4 s instead of 12
SEARCH_WORK = 1_500
#: the slow shapes tried per entry size, best float margin first
SHAPES_TRIED = 2
#: how long (in t) the reduced slow flow is followed from the float state before Newton's method
#: polishes its equilibrium (the slow rates seen are 0.02–2)
FOLLOW_TIME = 200.0
#: the reduced slow flow is given up when it leaves this ball (seed-721 symmetric-B-43-d3: γ
#: grows without bound there)
FOLLOW_BOUND = 1e3
#: ... or takes more evaluations than this (≈ 0.2 ms each; seed-701 general-11-d3 creeps)
FOLLOW_CALLS = 5_000


def _q(x: float, den: int = 10 ** 12) -> flint.fmpq:
    f = Fraction(round(float(x) * den), den)
    return flint.fmpq(f.numerator, f.denominator)


def _field(A, V, B, k, br):
    """F(u, s, f): the kernel's field (u', p', u·η', γ', u·ξ', g) in floats."""
    import numpy as np

    from symgauss.kernel.kinds.growth_schur import field
    A, V, B = (M.tolist() for M in (A, V, B))

    def F(u, s, f):
        return np.array(field(A, V, B, [u, s[0], f[0], s[1], f[1], f[2]], k, br, math.sqrt))
    return F


def _fbar(F, s, u=0.0):
    """(f̄, L): the fast equations are affine in f at u = 0, u·f' = L·f + b; f̄ = −L⁻¹b."""
    import numpy as np
    f0 = F(u, s, np.zeros(3))[[2, 4, 5]]
    L = np.array([F(u, s, e)[[2, 4, 5]] - f0 for e in np.eye(3)]).T
    return -np.linalg.solve(L, f0), L


def _manifold(F, z):
    """(s*, J, L, K₁, g) of the reduced flow (floats), from the state z: the slow equilibrium,
    the reduced Jacobian, the fast matrix, the slow centre's first order in u, the growth rate."""
    import numpy as np

    def red(s):
        return F(0.0, s, _fbar(F, s)[0])[[1, 3]]
    s = _follow(red, np.array([z[1], z[3]]))
    for _ in range(40):
        r0 = red(s)
        J = np.array([(red(s + 1e-7 * e) - r0) / 1e-7 for e in np.eye(2)]).T
        s = s - np.linalg.solve(J, r0)
    h = 1e-6
    J = np.array([(red(s + h * e) - red(s - h * e)) / (2 * h) for e in np.eye(2)]).T
    fs, L = _fbar(F, s)
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
    return s, J, L, -np.linalg.solve(M, Du)[:2], g


def _follow(red, s0):
    """Where the reduced slow flow s' = red(s) (floats, u = 0) settles from s0 (LSODA up to
    FOLLOW_TIME), or s0 when it leaves a ball of radius FOLLOW_BOUND, fails or does not settle.
    Newton from the state itself can land on the equilibrium of the invariant face γ = 0 (C of
    lower rank), a saddle of the slow flow when the attracting one has γ* > 0 (seed-731
    general-11-d3: γ* ≈ 5.06, from γ ≈ 0.86 at tr Σ = 1e4)."""
    import warnings

    import numpy as np
    from scipy.integrate import solve_ivp

    from symgauss.questions.regime.reference import TooSlow, budgeted
    rhs = budgeted(lambda _t, s: red(s), FOLLOW_CALLS)

    def far(_t, s):
        return FOLLOW_BOUND - float(np.max(np.abs(s)))
    far.terminal = True
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("ignore")
        try:
            sol = solve_ivp(rhs, (0.0, FOLLOW_TIME), s0, method="LSODA", rtol=1e-9, atol=1e-12,
                            events=far)
            end = sol.y[:, -1]
            settled = sol.status == 0 and np.linalg.norm(red(end)) < 1e-6
        except (TooSlow, ValueError, ZeroDivisionError, FloatingPointError,
                np.linalg.LinAlgError):
            return s0
    return end if settled else s0


def centre_floats(c, ds, u):
    """(f_c, ∂f_c/∂(ds, u)) for the coefficients c = (f*, G, H, Q) (floats; as the kernel's)."""
    import numpy as np
    fs, G, H, Q = c
    x = np.r_[ds, u]
    fc = fs + G @ ds + H * u + Q @ np.array([x[a] * x[b] for a, b in MONOMIALS])
    D = np.c_[G, H]
    for m, (a, b) in enumerate(MONOMIALS):
        D[:, a] += Q[:, m] * x[b]
        D[:, b] += Q[:, m] * x[a]
    return fc, D


#: the kernel's monomials of degree 2 in x = (ds₀, ds₁, u)
MONOMIALS = ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))


def _centre(F, ss, K1, pts, hs=1e-6):
    """(f*, G, H, Q): the fast centre, fitted by linear least squares on the points of the
    region's ellipse, of degree 2 in ds and 1 in u with terms u·ds. In ds alone: the slow
    manifold f̄(s* + ds) of u = 0 (one linear solve per point). In u: with s = s* + K₁u + ds and
    f = f̄(s) + u·h₁(s) + O(u²), the order-u part of u·f' = Φ(u, s, f) gives
    h₁ = L⁻¹(∂f̄/∂s·s'₀ − ∂Φ/∂u), so the term is u·(∂f̄/∂s·K₁ + h₁(s* + ds)), fitted affine in ds."""
    import numpy as np
    rows, vals, u_rows, u_vals = [], [], [], []
    for ds in pts:
        s = ss + ds
        try:
            fb, L = _fbar(F, s)
        except (np.linalg.LinAlgError, ValueError, ZeroDivisionError, OverflowError):
            continue
        rows.append([1.0, ds[0], ds[1], ds[0] ** 2, ds[0] * ds[1], ds[1] ** 2])
        vals.append(fb)
        try:
            Ds = np.array([(_fbar(F, s + hs * e)[0] - _fbar(F, s - hs * e)[0]) / (2 * hs)
                           for e in np.eye(2)]).T
            o = F(0.0, s, fb)
            Phi_u = (F(hs, s, fb)[[2, 4, 5]] - o[[2, 4, 5]]) / hs
            u_vals.append(Ds @ K1 + np.linalg.solve(L, Ds @ o[[1, 3]] - Phi_u))
        except (np.linalg.LinAlgError, ValueError, ZeroDivisionError, OverflowError):
            continue
        u_rows.append([1.0, ds[0], ds[1]])
    c = np.linalg.lstsq(np.array(rows), np.array(vals), rcond=None)[0].T
    h = np.linalg.lstsq(np.array(u_rows), np.array(u_vals), rcond=None)[0].T
    Q = np.zeros((3, 6))
    Q[:, [0, 1, 3]] = c[:, 3:]      # ds₀², ds₀ds₁, ds₁²
    Q[:, [2, 4]] = h[:, 1:]         # ds₀u, ds₁u
    return c[:, 0], c[:, 1:3], h[:, 0], Q


def _ellipse(Ps, rho, radii=(0.0, 0.35, 0.7, 1.0), arcs=16):
    """Points of the ellipse {‖ds‖_Ps ≤ ρ} (the centre first)."""
    import numpy as np
    Lit = np.linalg.inv(np.linalg.cholesky(Ps)).T
    pts = [np.zeros(2)]
    for t in radii[1:]:
        pts += [t * rho * Lit @ np.array([np.cos(a), np.sin(a)])
                for a in np.linspace(0, 2 * np.pi, arcs, endpoint=False)]
    return pts


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


#: the weights of the second slow eigen-direction in the shapes tried for Ps (the deviation at entry
#: often lies along the slow direction γ, far larger than along the other)
WEIGHTS = (1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001)


def _shapes(J, ds_e):
    """Candidate metrics Ps of the slow side (max |P_ij| = 1): the Lyapunov metric of J in the
    coordinates scaled by the entry's deviation, and the metrics of J's (real) eigenbasis with
    the second direction weighted down."""
    import numpy as np
    Dm = np.diag(np.abs(ds_e) + 1e-3 * np.abs(ds_e).max() + 1e-9)   # the region's shape
    P = _lyap(np.linalg.solve(Dm, J @ Dm))
    out = [np.linalg.solve(Dm, np.linalg.solve(Dm, P).T)]
    ev, T = np.linalg.eig(J)
    T = np.c_[T[:, 0].real, T[:, 0].imag] if abs(ev[0].imag) > 0 else T.real
    if np.linalg.cond(T) < 1e8:
        Ti = np.linalg.inv(T)
        out += [Ti.T @ np.diag([1.0, c]) @ Ti for c in WEIGHTS]
    return [(P + P.T) / 2 / np.abs(P).max() for P in out]


def _s_c(ss, K, u, ds):
    """s = s_c(u) + ds, and whether γ = s₁ ≥ 0 there (the kernel checks only those points)."""
    s = ss + (K[0] + K[1] * u) * u + ds
    return s, s[1] >= 0


def _slow_margin(F, ss, cf, K, Ps, rho, u_hi) -> float:
    """max over the slow side (a float grid, f on its centre, γ ≥ 0) of dsᵀPs·ds' / ρ²: the
    shapes are tried best first, and only where this is negative."""
    import numpy as np
    Lit = np.linalg.inv(np.linalg.cholesky(Ps)).T
    worst = -math.inf
    for u in np.linspace(0.0, u_hi, 4):
        for th in np.linspace(0.0, 2 * np.pi, 96, endpoint=False):
            ds = rho * Lit @ np.array([np.cos(th), np.sin(th)])
            s, seen = _s_c(ss, K, u, ds)
            if not seen:
                continue
            try:
                o = F(u, s, centre_floats(cf, ds, u)[0])
            except (ValueError, ZeroDivisionError, OverflowError):
                return math.inf
            worst = max(worst, ds @ Ps @ (o[[1, 3]] + (K[0] + 2 * K[1] * u) * o[6] * u) / rho ** 2)
    return worst


def _band(F, ss, cf, K, Ps, rho, Pf, kf, u_hi) -> tuple:
    """(r_lo, r_hi) in floats: the fast side needs ‖F(0)‖_Pf < kf·r (r > r_lo, the largest
    forcing on the ellipse × u ≤ u_hi), the slow side dsᵀPs·ds' + r·Σ|∂/∂δ_i|·√(Pf⁻¹)_ii < 0
    (r < r_hi, on its boundary); only γ ≥ 0, as the kernel's."""
    import numpy as np
    unit = np.sqrt(np.diag(np.linalg.inv(Pf)))
    r_lo, r_hi = 0.0, math.inf
    for u in (0.0, 0.5 * u_hi, u_hi):
        for t, ds in zip([0] + [1] * 48, _ellipse(Ps, rho, (0, 1), 48)):
            s, seen = _s_c(ss, K, u, ds)
            if not seen:
                continue
            fc, D = centre_floats(cf, ds, u)
            try:
                o = F(u, s, fc)
                dd = o[[1, 3]] + (K[0] + 2 * K[1] * u) * o[6] * u
                F0 = o[[2, 4, 5]] - u * D[:, :2] @ dd + D[:, 2] * o[6] * u * u
                r_lo = max(r_lo, math.sqrt(F0 @ Pf @ F0) / kf)
                if t:
                    val = ds @ Ps @ dd
                    grad = [ds @ Ps @ ((F(u, s, fc + 1e-7 * e)[[1, 3]] - o[[1, 3]]) / 1e-7)
                            for e in np.eye(3)]
                    sens = sum(abs(g) * c for g, c in zip(grad, unit))
                    r_hi = min(r_hi, -val / sens if val < 0 else 0.0)
            except (ValueError, ZeroDivisionError, OverflowError):
                return math.inf, 0.0
    return r_lo, r_hi


def _fast_metric(F, ss, K, pts, u_hi):
    """(Pf, kf): a metric in which u·f' contracts on all of the region, and its rate (0.8 of the
    least found on the points with γ ≥ 0 × u ≤ u_hi): the Lyapunov metric of L at the first such
    point (the centre, unless γ* < 0 by rounding), or of the sum of all the points' Lyapunov
    metrics, whichever contracts more; kf ≤ 0 when neither does."""
    import numpy as np
    Ls = []
    for u in (0.0, u_hi):
        for ds in pts:
            s, seen = _s_c(ss, K, u, ds)
            if seen:
                try:
                    Ls.append(_fbar(F, s, u)[1])
                except (np.linalg.LinAlgError, ValueError, ZeroDivisionError, OverflowError):
                    return None, 0.0
    out = [(0.0, None)]
    for group in (Ls[:1], Ls) if Ls else ():
        try:
            P = sum(_lyap(L) for L in group)
            if np.linalg.eigvalsh(P).min() > 0:
                out.append((0.8 * min(_rate(L, P) for L in Ls), P / np.abs(P).max()))
        except (np.linalg.LinAlgError, ValueError):
            continue
    kf, P = max(out, key=lambda x: x[0])
    return P, kf


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

    from symgauss.kernel.kinds.growth_schur import check_region, entry, permuted
    from symgauss.kernel.read import read_problem
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
        F = _field(A, V, B, k, br)
        ss, J, L, Kl, g = _manifold(F, [u, sv[0], fv[0], sv[1], *fv[1:]])
    except (np.linalg.LinAlgError, ValueError, ZeroDivisionError):
        return BlowupBound(None, "the reduced flow on B's null cone has no regular equilibrium "
                           "near the growth direction")
    if not (max(np.linalg.eigvals(J).real) < 0 and max(np.linalg.eigvals(L).real) < 0
            and g > 0):
        return BlowupBound(None, "the growth direction is not attracting in the Schur "
                           "coordinates (slow or fast eigenvalues not negative)")
    base = {"axis": j, "k": k, "branch": br, "s_star": [_q(x) for x in ss]}
    prec, whys = 128, []

    def sig_at(t):
        return full(sol.sol(t))[j, j]

    def rates(found):
        """The claimed (a, b), a little wider than ĝ's proved bounds (the enclosures' rounding
        may differ between symgauss versions), or None when a ≤ 0."""
        spread = float(found[1]) - float(found[0])
        a = _q(float(found[0]) - 0.02 * spread, 10 ** 6)
        return (a, _q(float(found[1]) + 0.02 * spread, 10 ** 6)) if a > 0 else None

    def region(sigmas, seconds):
        """(witness w, ĝ bounds, σ) of the first region proved at an entry size σ in ``sigmas``
        (within ``seconds``), or Nones; the reasons go to ``whys``."""
        deadline, w, found = time.monotonic() + seconds, None, None
        for sig_e in sigmas:
            if not sig_at(0.0) < sig_e < sig_at(sol.t[-1]):
                continue
            if time.monotonic() > deadline:
                whys.append(f"the search for a region stopped after {seconds} s")
                break
            t_e = brentq(lambda t: sig_at(t) - sig_e, 0.0, sol.t[-1])
            u_e, s_e, f_e, _ = _schur(full(sol.sol(t_e)), B, j, k)
            ds_e = s_e - ss - Kl * u_e
            K = np.array([Kl, 0 * Kl])
            tries = []
            for i, Ps in enumerate(_shapes(J, ds_e)):
                rho = 1.3 * math.sqrt(ds_e @ Ps @ ds_e) + 1e-6
                pts = _ellipse(Ps, rho)
                try:
                    cf = _centre(F, ss, Kl, pts)
                except (ValueError, np.linalg.LinAlgError):
                    continue
                m = _slow_margin(F, ss, cf, K, Ps, rho, 1.5 * u_e)
                if i == 0 or m < 0:     # the first: the shape tried before the eigen-shapes
                    tries.append((m, i, Ps, rho, cf, pts))
            for _m, _i, Ps, rho, cf, pts in sorted(tries, key=lambda x: x[:2])[:SHAPES_TRIED]:
                d_e = f_e - centre_floats(cf, ds_e, u_e)[0]
                Pf, kf = _fast_metric(F, ss, K, pts, 1.5 * u_e)
                if not kf > 0:
                    whys.append(f"σ = {sig_e:g}: no fast metric contracts on all of the region")
                    continue
                w = {**base, "Pf": _qm(Pf), "fast_rate": _q(kf, 10 ** 6), "Ps": _qm(Ps),
                     "f_star": [_q(x) for x in cf[0]], "G": _qm(cf[1]), "H": [_q(x) for x in cf[2]],
                     "Q": _qm(cf[3]), "K": _qm(K)}
                r_lo, r_hi = _band(F, ss, cf, K, Ps, rho, Pf, kf, 1.5 * u_e)
                r_lo = max(r_lo, 1.3 * math.sqrt(d_e @ Pf @ d_e))
                if not 2 * r_lo < r_hi:
                    whys.append(f"σ = {sig_e:g}: no fast band fits (floats: the fast side needs "
                                f"r > {r_lo:.3g}, the slow side r < {r_hi:.3g})")
                    continue
                mid = math.sqrt(r_lo * r_hi)    # the band's width: the middle first
                for r in sorted({x for x in (mid, 0.5 * r_hi, 3 * r_lo) if r_lo < x < r_hi},
                                key=lambda x: abs(math.log(x / mid))):
                    if time.monotonic() > deadline:
                        break
                    w.update(rho=_q(rho), r=_q(r), u_max=_q(1.5 * u_e), slow_cells=4, u_pieces=2,
                             arcs=32, depth=12)      # coarse cells: the kernel halves where needed
                    try:
                        g_lo, g_hi = check_region(ep, w, SEARCH_WORK)
                    except (NotProved, Invalid) as e:
                        whys.append(f"σ = {sig_e:g}: {e}")
                        continue
                    if g_lo > 0:
                        found = (g_lo, g_hi)
                        break
                if found:
                    break
            if found:
                break
        return (w, found, sig_e) if found else (None, None, None)

    w, found, _ = region(SIGMAS, SEARCH_SECONDS)
    if found is None:
        last = f" (last: {whys[-1]})" if whys else ""
        return BlowupBound(None, f"no invariant region of the Schur coordinates was proved{last}")
    if rates(found) is None:
        return BlowupBound(None, "the growth rate is not proved positive on the region")
    run = steps_into(ep, lambda c, rr: entry(ep, w, c, rr), prec)
    if not run.stopped:     # stiff before σ_e (steps ~ 1/σ): once, a region entered sooner
        why = f"validated steps did not enter the region ({run.why})"
        sooner = tuple(x for x in RETRY_SIGMAS if x < sig_at(min(float(run.t), sol.t[-1])))
        w2, found2, sig2 = region(sooner, RETRY_SECONDS) if sooner else (None,) * 3
        if found2 is None or rates(found2) is None:
            tried = ", ".join(f"{x:g}" for x in sooner)
            return BlowupBound(None, f"{why}; no region at σ = {tried} below where they stopped"
                               if sooner else why)
        run2 = steps_into(ep, lambda c, rr: entry(ep, w2, c, rr), prec)
        if not run2.stopped:
            return BlowupBound(None, f"{why}; nor the region at σ = {sig2:g} "
                               f"({run2.why})")
        w, found, run = w2, found2, run2
    a, b = rates(found)
    claim = {"axis": j, "t_enter": str(run.t), "rate_lower": str(a), "rate_upper": str(b)}
    witness = {"steps": run.witness_steps(), "order": 24, "prec": prec,
               **{key: _text(val) for key, val in w.items() if key != "axis"},
               **({"metrics": run.witness_metrics()} if run.switches else {})}
    return verified("growth-schur", problem, claim, witness,
                    "validated Taylor steps, then an invariant region of Tikhonov type in the "
                    "Schur coordinates (symgauss.questions.regime.growth_schur)")


def steps_into(ep, enter, prec: int):
    """Validated steps of eq. 1.1 from cov0 in metric I until ``enter(point, radius)`` (the
    kernel's entry test at ``prec`` bits) stops raising NotProved, as many as the kernel reads;
    again with changes of metric that follow the solution when the first run does not get there
    (a growth search's way into its region)."""
    from symgauss.integrate.validated import integrate, step_budget
    from symgauss.kernel.equations import svec
    from symgauss.kernel.exact import eye
    from symgauss.kernel.kinds.limit import MAX_STEPS, MAX_SWITCHES
    from symgauss.questions.regime.basin import ADAPT
    n = ep.d * (ep.d + 1) // 2

    def inside(c, r):
        try:
            with flint.ctx.workprec(prec):
                enter(c, r)
            return True
        except NotProved:
            return False
    budget = min(step_budget(ep.d, len(ep.params.heads)), MAX_STEPS)
    run = integrate(ep.params, svec(ep.cov0), eye(n), flint.fmpq(1), inside, t_max=400,
                    tol=1e-18, max_steps=budget)
    if not run.stopped:
        run = integrate(ep.params, svec(ep.cov0), eye(n), flint.fmpq(1), inside, t_max=400,
                        tol=1e-18, max_steps=budget - MAX_SWITCHES, adapt=ADAPT)
    return run


def _qm(M):
    return flint.fmpq_mat([[_q(x) for x in row] for row in M])


def _text(x):
    if isinstance(x, flint.fmpq_mat):
        return [[str(x[i, c]) for c in range(x.ncols())] for i in range(x.nrows())]
    if isinstance(x, list):
        return [str(e) for e in x]
    return x if isinstance(x, int) else str(x)
