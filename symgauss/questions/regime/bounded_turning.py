"""A bounded oscillation at d = 2 — Σ(t) approaching a cycle of rank-one matrices while Σ/tr Σ
turns round the circle of directions: the search for a ``bounded-turning`` certificate (the
mathematics is in :mod:`symgauss.kernel.kinds.bounded_turning`).

Untrusted search, in floats. On the rank-one circle (ρ = 1) with ℓ = ln u, the cycle is a
periodic solution ℓ = L(φ) of dℓ/dφ = −g/Φ (φ run the way the flow turns), found from the float
solution's first turn after t = 200, as the fixed point of the map over one turn (secant steps)
from its point where the direction turns fastest. The region's two faces are the periodic
solutions L_lo, L_hi of dℓ/dφ = (−g ∓ ε)/Φ, which exist near L for small ε when the cycle
attracts and on which the flow crosses at the rate ±ε (ε a share of the cycle's attraction per
unit of τ); M = c2 + χ with χ' = (w2 − w̄2)/Φ along the cycle (w2 = 2tr K − 2g, w̄2 its mean over
a turn in τ: < 0 when Σ/tr Σ is drawn to rank one). The kernel's cubic Hermite interpolants take
their values and slopes (from the equations themselves) at nodes equally spaced in τ along the
cycle — dense where the direction turns slowly, where L is steep — and at least PHI_NODES in φ.
ε from EPS_SHARES, D's level from D_SHARES, first in floats, then the kernel's check; then
validated steps of eq. 1.1 (log-norm, else C¹) until Σ(t) is inside. The claimed bound covers
the region and the steps' points with a margin (the kernel checks it on their a-priori boxes).
"""
from __future__ import annotations

import math

import flint

from symgauss.kernel.verdict import Invalid, NotProved
from symgauss.questions.regime.blowup_bound import BlowupBound, verified

#: the faces' crossing rates tried, as fractions of the cycle's attraction per unit of τ,
#: (1 − P')/T (P' the derivative of the map over a turn, T the turn's τ): largest first, a wider
#: band being entered sooner, but the faces only exist for ε well below it, the turn amplifying
#: a change of ℓ on its way (seed-511 symmetric-B-33-d2: (1 − P')/T = 0.045, faces up to
#: ε ≈ 0.004; seed-161 symmetric-B-33-d2: 5.3e-4, where ε = 2.5e-4 moved ℓ by 0.5 over a turn)
EPS_SHARES = (0.2, 0.08, 0.02, 0.005)
#: the largest D = det(Σ/tr Σ) on the region tried, as fractions of ε (D moves the sides by
#: about D times the field's size)
D_SHARES = (0.1, 1e-2, 1e-4)
#: nodes: TAU_NODES equally spaced in τ along the cycle, and PHI_NODES in φ
TAU_NODES, PHI_NODES = 256, 64
#: the kernel's check: halvings of a piece that fails, pieces at most
DEPTH, TESTS = 6, 6000


def _scalar_rates(A, heads, u, rho, phi) -> tuple:
    """turning._rates at one point, in plain floats (the ODE solvers call it ~10⁵ times)."""
    a, b = rho * math.cos(phi) / 2, rho * math.sin(phi) / 2
    y00, y11 = 0.5 + a, 0.5 - a
    k = [[u * A[i][j] for j in range(2)] for i in range(2)]
    for V, B in heads:          # K += V·Y·B
        vy = [[V[i][0] * y00 + V[i][1] * b, V[i][0] * b + V[i][1] * y11] for i in range(2)]
        for i in range(2):
            for j in range(2):
                k[i][j] += vy[i][0] * B[0][j] + vy[i][1] * B[1][j]
    ky00, ky01 = k[0][0] * y00 + k[0][1] * b, k[0][0] * b + k[0][1] * y11
    ky10, ky11 = k[1][0] * y00 + k[1][1] * b, k[1][0] * b + k[1][1] * y11
    g = 2 * (ky00 + ky11)
    ap, bp = ky00 - ky11 - g * a, ky01 + ky10 - g * b
    return -g, 2 * (k[0][0] + k[1][1]) - 2 * g, (a * bp - b * ap) / (rho * rho / 4)


class _Stall(Exception):
    """The direction stops turning (Φ ≈ 0) or the turn costs too many field evaluations."""


#: a turn gives up past this many field evaluations (a turn of the ensemble's cycles takes
#: 2 000–20 000; where Φ nearly vanishes dℓ/dφ is huge and RK45 would crawl for minutes)
MAX_EVALS = 200_000


def _turn(A, heads, ell, phi0, sign, eps, dense=False, to=None, rtol=1e-11):
    """solve_ivp over one turn from (φ0, ℓ) (or to φ = ``to``) of dℓ/dφ = (−g + eps)/Φ, with
    τ and ∫w2 dτ alongside; a failed solution (status −1) when the turn stalls."""
    import numpy as np
    from scipy.integrate import solve_ivp
    A, heads = A.tolist(), [(V.tolist(), B.tolist()) for V, B in heads]
    count = [0]

    def rhs(phi, y):
        count[0] += 1
        w1, w2, speed = _scalar_rates(A, heads, math.exp(min(y[0], 50.0)), 1.0, phi)
        if count[0] > MAX_EVALS or not abs(speed) > 1e-9:
            raise _Stall
        return [(w1 + eps) / speed, 1 / speed, w2 / speed]
    try:
        return solve_ivp(rhs, (phi0, phi0 + sign * 2 * np.pi if to is None else to),
                         [ell, 0.0, 0.0], rtol=rtol, atol=rtol / 10, dense_output=dense)
    except _Stall:
        from types import SimpleNamespace
        return SimpleNamespace(status=-1, y=np.full((3, 1), np.nan))


def _fixed(A, heads, l0, phi0, sign, eps):
    """ℓ(φ0) of a periodic solution of dℓ/dφ = (−g + eps)/Φ near l0 (secant steps on the map
    over one turn, from l0 and l0 + 0.01), or None."""
    def gap(x):
        sol = _turn(A, heads, x, phi0, sign, eps)
        return sol.y[0, -1] - x if sol.status == 0 else math.nan
    x0, x1 = l0, l0 + 0.01
    g0, g1 = gap(x0), gap(x1)
    for _ in range(40):
        if not (math.isfinite(g0) and math.isfinite(g1)) or g1 == g0:
            return None
        x0, x1, g0 = x1, x1 - g1 * (x1 - x0) / (g1 - g0), g1
        if abs(x1 - x0) > 2:
            return None
        g1 = gap(x1)
        if abs(g1) < 1e-12 or abs(x1 - x0) < 1e-13:
            return x1 if abs(g1) < 1e-9 else None
    return None


def _at(sol, sign, phi, phi0):
    """The dense solution over the turn from φ0 at the angles ``phi`` in [0, 2π)."""
    import numpy as np
    return sol.sol(phi0 + sign * ((sign * (np.asarray(phi) - phi0)) % (2 * np.pi)))


def region_search(problem):
    """((nodes, lower, upper, det, (top, floor, pieces)), "") for the kernel's region (floats
    and rationals as the witness wants them), or (None, why)."""
    import numpy as np
    from scipy.integrate import solve_ivp

    from symgauss.kernel.flow import Flow
    from symgauss.kernel.kinds.bounded_turning import check_region, read_hermite, read_nodes
    from symgauss.kernel.read import read_problem
    from symgauss.questions.regime.basin import _q
    from symgauss.questions.regime.reference import (
        MAX_EVALS,
        TooSlow,
        _float_params,
        budgeted,
        float_field,
    )
    from symgauss.questions.regime.turning import _rates
    A, heads = _float_params(problem)
    f, full, y0 = float_field(problem)
    try:
        sol = solve_ivp(budgeted(f), (0, 400), y0, method="LSODA", rtol=1e-10, atol=1e-12,
                        dense_output=True)
    except TooSlow:
        return None, (f"the float solution took LSODA over {MAX_EVALS} field evaluations before "
                      "t = 400 (stiff, or bursts towards infinity)")
    if sol.status != 0:
        return None, "the float solution does not stay finite up to t = 400"
    # a turn of the float solution from t = 200 on, and on it the point where the direction
    # turns fastest: the map over a turn from there is the least sensitive (seed-551
    # symmetric-B-3-d2: where tr Σ peaks, near 52, Φ nearly vanishes)
    ts = np.linspace(200, 400, 8001)
    Ss = np.array([full(y) for y in sol.sol(ts).T])
    trs = np.trace(Ss, axis1=1, axis2=2)
    if not (np.all(np.isfinite(trs)) and np.all(trs > 0)):
        return None, "the float solution does not stay finite and non-zero up to t = 400"
    phis_t = np.unwrap(np.arctan2(Ss[:, 0, 1], (Ss[:, 0, 0] - Ss[:, 1, 1]) / 2))
    done = np.nonzero(np.abs(phis_t - phis_t[0]) >= 2 * np.pi)[0]
    if not done.size:
        return None, "Σ/tr Σ does not turn once round the circle of directions for t in [200, 400]"
    ells = -np.log(trs[:done[0] + 1])
    _, _, speeds = _rates(A, heads, np.exp(ells), 1.0, phis_t[:done[0] + 1])
    best = int(np.argmax(np.abs(speeds)))
    sign = 1.0 if phis_t[done[0]] > phis_t[0] else -1.0
    phi0, l0 = float(phis_t[best] % (2 * np.pi)), float(ells[best])
    start = _fixed(A, heads, l0, phi0, sign, 0.0)
    if start is None:
        return None, f"no cycle of the rank-one flow near ln tr Σ = {-l0:.3g}"
    star = _turn(A, heads, start, phi0, sign, 0.0, True)
    if star.status != 0:
        return None, "the rank-one cycle could not be followed round a turn"
    period, total = star.y[1, -1], star.y[2, -1]
    if not period > 0:
        return None, "Σ/tr Σ does not turn one way round the circle along the rank-one cycle"
    ends = [_turn(A, heads, start + dx, phi0, sign, 0.0).y[0, -1] for dx in (1e-6, -1e-6)]
    attraction = (1 - (ends[0] - ends[1]) / 2e-6) / period
    if not attraction > 0:
        return None, "the rank-one cycle does not attract along the circle (the map over a turn)"
    w2bar = total / period
    if not w2bar < 0:
        return None, (f"the rank-one cycle does not attract: ln det(Σ/tr Σ) changes at "
                      f"{w2bar:.3g} per unit of τ on average over a turn")
    # nodes: equally spaced in τ along the cycle (dense where Φ is small) and in φ
    turn = phi0 + np.linspace(0, sign * 2 * np.pi, 4097)
    by_tau = np.interp(np.linspace(0, period, TAU_NODES + 1), star.sol(turn)[1], turn)
    xs = sorted({_q((x % (2 * np.pi)) / np.pi, 9) for x in by_tau} |
                {flint.fmpq(k, PHI_NODES // 2) for k in range(PHI_NODES)} | {flint.fmpq(2)})
    phis = np.array([float(x) * np.pi for x in xs[:-1]])
    ell_s, tau_s, int_s = _at(star, sign, phis, phi0)
    _, w2_s, sp_s = _rates(A, heads, np.exp(ell_s), 1.0, phis)
    chi = int_s - w2bar * tau_s
    chi_slope = (w2_s - w2bar) / sp_s
    data = problem.to_dict()
    data.pop("name", None)
    flow = Flow(read_problem(data).params)
    why = "no ε gave both faces"
    for eps in (share * attraction for share in EPS_SHARES):
        faces = []
        for s in (-1, 1):
            l_face = _fixed(A, heads, start, phi0, sign, s * eps)
            sol = None if l_face is None else _turn(A, heads, l_face, phi0, sign, s * eps, True)
            if sol is None or sol.status != 0:
                break
            ell = _at(sol, sign, phis, phi0)[0]
            w1, _, sp = _rates(A, heads, np.exp(ell), 1.0, phis)
            faces.append((ell, (w1 + s * eps) / sp))
        if len(faces) < 2 or not (np.all(faces[0][0] < ell_s) and np.all(ell_s < faces[1][0])):
            why = f"ε = {eps:g}: the faces are not cycles either side of the rank-one cycle"
            continue
        for d_max in (share * eps for share in D_SHARES):
            c2 = math.log(d_max) - float(chi.max())
            parts = [_pairs(*faces[0]), _pairs(*faces[1]), _pairs(c2 + chi, chi_slope)]
            if not _float_sides(A, heads, xs, parts):
                why = f"ε = {eps:g}, D ≤ {d_max:g}: the sides' signs fail in floats"
                continue
            try:
                nodes = read_nodes([str(x) for x in xs])
                lo, hi, det = (read_hermite([str(x) for x in part], len(xs) - 1, "search")
                               for part in parts)
                with flint.ctx.workprec(128):
                    bounds = check_region(flow, nodes, lo, hi, det, DEPTH, TESTS)
                return (xs, *parts, bounds), ""
            except (NotProved, Invalid) as exc:
                why = f"ε = {eps:g}, D ≤ {d_max:g}: {exc}"
    return None, why


def _pairs(values, slopes) -> list:
    """[value_0, slope_0, …] as rationals."""
    from symgauss.questions.regime.basin import _q
    out = []
    for v, s in zip(values, slopes):
        out += [_q(float(v), 14), _q(float(s), 14)]
    return out


def float_hermite(part, xs, k, t):
    """The interpolant (value, slope) at t ∈ [0, 1] of interval k, in floats and in the kernel's
    form (:func:`symgauss.kernel.kinds.bounded_turning.hermite`): ``part`` [value_0, slope_0, …]
    and the nodes ``xs`` as the witness has them (rationals or their strings)."""
    from fractions import Fraction

    def num(x):
        return float(Fraction(str(x)))
    n = len(xs) - 1
    y0, m0, y1, m1 = (num(part[2 * (k % n)]), num(part[2 * (k % n) + 1]),
                      num(part[2 * ((k + 1) % n)]), num(part[2 * ((k + 1) % n) + 1]))
    h = (num(xs[k + 1]) - num(xs[k])) * math.pi
    delta = (y1 - y0) / h
    c2, c3 = 3 * delta - 2 * m0 - m1, m0 + m1 - 2 * delta
    return y0 + h * t * (m0 + t * (c2 + t * c3)), m0 + t * (2 * c2 + 3 * c3 * t)


def _float_sides(A, heads, xs, parts) -> bool:
    """The region's three sides (kernel kind bounded-turning) have their signs at five points of
    each interval, with D at 0 and at its top and u at the faces (both faces for side 3)."""
    import numpy as np

    from symgauss.questions.regime.turning import _rates
    t = np.linspace(0, 1, 5)
    for k in range(len(xs) - 1):
        phi = float(xs[k]) * np.pi + t * (float(xs[k + 1]) - float(xs[k])) * np.pi
        (l_lo, s_lo), (l_hi, s_hi), (m, s_m) = (float_hermite(p, xs, k, t) for p in parts)
        if not np.all(np.exp(m) < 0.24):
            return False
        for rho in (1.0, np.sqrt(1 - 4 * np.exp(m))):
            w_lo, _, sp = _rates(A, heads, np.exp(l_lo), rho, phi)
            w_hi, _, sp2 = _rates(A, heads, np.exp(l_hi), rho, phi)
            if not (np.all(w_lo - s_lo * sp > 0) and np.all(w_hi - s_hi * sp2 < 0)):
                return False
            for ell in (l_lo, l_hi):
                _, w2, sp3 = _rates(A, heads, np.exp(ell), rho, phi)
                if not np.all(w2 - s_m * sp3 < 0):
                    return False
    return True


def find_bounded_turning(problem) -> BlowupBound:
    """A kernel-verified ``bounded-turning`` certificate, or why none was found."""
    from symgauss.integrate.validated import integrate, step_budget
    from symgauss.kernel.equations import svec
    from symgauss.kernel.exact import eye
    from symgauss.kernel.flow import MAX_STEP_WORK, step_work, sym_of, upper
    from symgauss.kernel.kinds.bounded_turning import PIECE_STEPS, entry, read_hermite
    from symgauss.kernel.kinds.limit import MAX_STEPS
    from symgauss.kernel.read import read_problem
    if problem.d != 2 or problem.controls is not None:
        return BlowupBound(None, "a cycle of rank-one matrices is validated at d = 2, with "
                           "time-invariant parameters, only")
    found, why = region_search(problem)
    if found is None:
        return BlowupBound(None, why)
    xs, lo, hi, det, (top, floor, pieces) = found
    read = [read_hermite([str(x) for x in part], len(xs) - 1, "search") for part in (lo, hi, det)]
    data = problem.to_dict()
    data.pop("name", None)
    ep = read_problem(data)
    prec = 128

    def inside(c, rr):
        try:
            with flint.ctx.workprec(prec):
                entry(xs, *read, sym_of(c, 2, upper(rr)))
            return True
        except NotProved:
            return False
    budget = min(step_budget(2, len(ep.params.heads)) - pieces * PIECE_STEPS, MAX_STEPS)
    run = integrate(ep.params, svec(ep.cov0), eye(3), flint.fmpq(1), inside, t_max=400,
                    tol=1e-18, max_steps=budget)
    if not run.stopped:
        # C¹ steps, which carry the enclosure's shape: Σ turns and spikes (seed-541
        # symmetric-B-33-d2: tr Σ up to 25), and the log-norm steps' radius grows past 1e100
        from symgauss.integrate.mean_value import integrate_c1
        work = MAX_STEP_WORK - pieces * PIECE_STEPS * step_work(2, len(ep.params.heads), 24, prec)
        c1_budget = min(work // step_work(2, len(ep.params.heads), 24, prec, "c1"), MAX_STEPS)
        run = integrate_c1(ep.params, svec(ep.cov0), eye(3), inside, t_max=400, tol=1e-18,
                           max_steps=c1_budget)
    if not run.stopped:
        return BlowupBound(None, f"validated steps did not enter the region ({run.why})")
    peak = max(float(top.mid() + top.rad()),
               max(float(p[0]) + float(p[2]) for p in run.points) + 1.0)
    claim = {"t_enter": str(run.t), "bound": str(_round(peak * 1.01, up=True)),
             "floor": str(_round(float(floor.mid() - floor.rad()) * 0.99, up=False))}
    witness = {"steps": run.witness_steps(), "order": 24, "prec": prec,
               **({"metrics": run.witness_metrics()} if run.switches else {}),
               "nodes": [str(x) for x in xs],
               **{key: [str(x) for x in part] for key, part in
                  (("lower", lo), ("upper", hi), ("det", det))},
               "depth": DEPTH, "tests": pieces}
    return verified("bounded-turning", problem, claim, witness,
                    "validated Taylor steps, then a region round a cycle of rank-one matrices "
                    "(symgauss.questions.regime.bounded_turning)")


def _round(x: float, up: bool) -> flint.fmpq:
    """x > 0 rounded to 4 significant digits, up or down, as a rational."""
    e = math.floor(math.log10(x)) - 3
    n = math.ceil(x / 10.0 ** e) if up else math.floor(x / 10.0 ** e)
    return flint.fmpq(n) * flint.fmpq(10) ** e if e >= 0 else flint.fmpq(n, 10 ** -e)
