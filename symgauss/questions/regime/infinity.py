"""Blow-up with a hyperbolic equilibrium at infinity: the search for a ``blowup-infinity``
certificate (the mathematics is in :mod:`symgauss.kernel.kinds.blowup_infinity`).

Untrusted search: a float integration close to T*, then the float flow at infinity
(u = 0: Y' = Q(Y) − Y·tr Q(Y)), propose the blow-up direction; Newton's method (ball midpoints,
200 bits) polishes it to a rational Y*; the Jacobian J of the compactified field at z* = (0, Y*)
gives the region {‖z − z*‖_P² ≤ ρ}, the largest one the kernel's
:func:`symgauss.kernel.kinds.blowup_infinity.check_region` accepts over a few metrics and rates
(:func:`_ball_region`). Then validated steps of eq. 1.1 (from metric I, changing to metrics that
follow the solution, local error ≤ TOL) run while they are accurate (radius ≤ SWITCH·tr Σ) and
tr Σ has grown less than GROW times; from there validated steps of
the compactified flow with the elapsed time (metric diag(W_WEIGHT, P)), whose errors do not grow
with ‖Σ‖, run until z is inside the region and the T* enclosure (width about
u·(1/κ − 1/K) plus the error of w) has DONE digits or stops narrowing — or, before they
first enter it, until SPEEDUP times their pace cannot reach the float compactified flow's entry
τ within their budget (they stop early, saying so). Steps that never enter run again in the
region's own metric throughout (the metrics that follow the solution keep a margin above its
log-norm that a weakly contracting z* cannot pay), then as C¹ steps. A blow-up whose direction
turns for ever (no equilibrium at infinity: seen on the ensemble, Σ/tr Σ still turning at
tr Σ = 1e8) takes, at d = 2, the same steps into a region round the circle of rank-one
directions (:mod:`symgauss.questions.regime.turning`, kind ``blowup-turning``); at d > 2, or
with an equilibrium at infinity that is not hyperbolic (V_h = v_h I gives a continuum of them),
it is left to the other methods.
"""
from __future__ import annotations

import math

import flint

from symgauss.kernel.verdict import NotProved
from symgauss.questions.regime.blowup_bound import BlowupBound, certified

#: switch from steps of eq. 1.1 to the compactified flow when their radius passes this
#: fraction of tr Σ (their accuracy falls roughly like a power of ‖Σ‖ near T*)
SWITCH = 1e-10
#: ... or when tr Σ has grown this many times (the compactified flow is then near z*)
GROW = 100
#: the weight of the elapsed time w in the compactified steps' metric diag(W_WEIGHT, P): small,
#: so that w's coupling (dw/dτ = u) adds little to the log-norm
W_WEIGHT = flint.fmpq(1, 10 ** 2)
#: working precision (bits), the points' significant digits and the local error of a step of
#: eq. 1.1: its errors are amplified on the way to a large Σ, so keep them far below SWITCH
PREC, DIGITS, TOL = 128, 30, 1e-18
#: the compactified steps: longer (the flow is smooth near z*), a looser local error (their
#: radius stays far below it), and the digits of T* at which to stop
COMPACT_TOL, COMPACT_SAFETY, DONE = 1e-16, 0.3, 9
#: ... or once SLOW steps inside a region gained less than a digit of T* (a slab around a slow
#: manifold narrows like u: examples/blowup_slab.json went on for 1 300 steps, 50 s in all)
SLOW = 250
#: the float flow at infinity (u = 0) has settled when ‖Y'‖ is below this at its end (τ = 400);
#: below NEARLY an equilibrium at infinity is tried before a turning direction (seed-351
#: symmetric-B-3-d2: ‖Y'‖ ≈ 3.6e-6 there, a weakly attracting equilibrium)
SETTLED, NEARLY = 1e-6, 1e-3
#: at most this many changes of metric along the compactified steps (each costs SWITCH_WORK
#: steps' work when it happens; with 8, seed-151 symmetric-B-23-d4's radius grew to 0.02 by τ = 76 and the steps
#: failed; with 24 it stays near 10⁻¹¹ and they enter the region at τ = 63)
COMPACT_SWITCHES = 24
#: the method, by the kind of certificate found
METHODS = {"blowup-infinity": "validated integration, then a contraction region of the "
           "compactified flow at infinity (symgauss.questions.regime.infinity)",
           "blowup-slab": "validated integration, then a slab around the slow manifold of the "
           "compactified flow at infinity (symgauss.questions.regime.infinity)",
           "blowup-turning": "validated integration, then a region round the circle of "
           "rank-one directions at infinity, where Σ/tr Σ turns for ever "
           "(symgauss.questions.regime.turning)"}
#: the compactified steps look at their pace (over the last PACE steps) every PACE steps from
#: FIRST_LOOK on, until they first enter a region, and stop when even SPEEDUP times that pace
#: cannot reach the float entry τ within their budget (failed searches took 20–38 s on the
#: ensemble, most of it here; the steps lengthen near the attractor: seed-6 symmetric-B-13-d3's
#: went from 0.06 to 0.14 and entered at τ ≈ 27)
FIRST_LOOK, PACE, SPEEDUP = 60, 20, 3
#: at most this many C¹ steps of the compactified flow (each costs the search ~15 ms at d = 2
#: and the kernel ~8 ms: seed-311 symmetric-B-3-d2 took 781, to its work limit, 12 s, for T* to
#: 5 digits)
C1_STEPS = 400


def direction(problem, t_star: float):
    """(Y, ‖Y'‖): Σ/tr Σ near T* (LSODA), carried on by the flow at infinity for τ ≤ 400
    (floats), and how fast that flow still moves it there; (None, ∞) when LSODA left no finite
    state with tr Σ > 0 (seed-221 general-21-d4 overflowed before tr Σ = 1e5)."""
    import numpy as np

    from symgauss.questions.regime.reference import float_field
    f, full, y0 = float_field(problem)
    with np.errstate(all="ignore"):
        return _direction(problem, t_star, f, full, y0)


def _direction(problem, t_star, f, full, y0):
    import numpy as np
    from scipy.integrate import solve_ivp

    from symgauss.integrate.float_events import solve_with_events
    d = problem.d

    def big(_t, y):
        return np.trace(full(y)) - 1e5
    big.terminal = True
    sol = solve_with_events(f, (0, t_star * 2), y0, big, method="LSODA", rtol=1e-10, atol=1e-14)
    finite = [k for k in range(sol.y.shape[1]) if np.all(np.isfinite(sol.y[:, k])) and
              np.trace(full(sol.y[:, k])) > 0]
    if not finite:
        return None, math.inf
    S = full(sol.y[:, finite[-1]])
    from symgauss.questions.regime.reference import compact_field
    G = compact_field(problem)

    def g(_tau, y):     # u = 0: Y' = Q(Y) − Y·tr Q(Y)
        return G(_tau, np.r_[0.0, 0.0, y])[2:]
    sol = solve_ivp(g, (0, 400.0), (S / np.trace(S))[np.triu_indices(d)], method="LSODA",
                    rtol=1e-11, atol=1e-14)
    return full(sol.y[:, -1]), float(np.linalg.norm(g(0, sol.y[:, -1])))


def find_blowup_at_infinity(problem, t_ref: float) -> BlowupBound:
    """A kernel-verified ``blowup-infinity`` certificate, or why none was found."""
    import numpy as np

    from symgauss.kernel.read import read_problem
    data = problem.to_dict()
    data.pop("name", None)
    ep = read_problem(data)
    Y, moving = direction(problem, t_ref)
    if Y is None or not (np.all(np.isfinite(Y)) and math.isfinite(moving)):
        return BlowupBound(None, "the float integrations towards T* and on at infinity gave no "
                           "finite direction Σ/tr Σ (they overflowed)")
    if not moving < SETTLED:
        if not moving < NEARLY:
            return _turning(problem, t_ref, ep, moving)
        # still moving, slowly: a weakly attracting equilibrium at infinity is tried first
        near = _at_equilibrium(problem, t_ref, ep, Y)
        if near.certificate is not None:
            return near
        turning = _turning(problem, t_ref, ep, moving)
        if turning.certificate is not None:
            return turning
        return BlowupBound(None, f"{turning.why}; as an equilibrium at infinity (‖Y'‖ ≈ "
                           f"{moving:.2g} is small): {near.why}")
    return _at_equilibrium(problem, t_ref, ep, Y)


def _at_equilibrium(problem, t_ref, ep, Y) -> BlowupBound:
    """Newton's method from the float direction Y at infinity, then a contraction region
    around the equilibrium (or a slab), then the steps into it; or why none."""
    import numpy as np

    from symgauss.kernel.flow import Flow, pairs, sym_of
    from symgauss.kernel.kinds.blowup_infinity import Compact, enclosure_at
    from symgauss.kernel.kinds.blowup_slab import slab_enclosure
    from symgauss.questions.regime.basin import _q
    d = problem.d
    n = d * (d + 1) // 2
    p = ep.params
    with flint.ctx.workprec(200):
        flow = Flow(p)
        cp, zero = Compact(flow), flint.arb(0)
        y = [flint.arb(_q(float(Y[i][j]), 15)) for i in range(d) for j in range(i, d)]
        for _ in range(10):
            S = sym_of([v.mid() for v in y], d)
            J = cp.jacobian(zero, S)
            Jm = flint.arb_mat(n, n, [J[i + 1, j + 1].mid() for i in range(n) for j in range(n)])
            try:
                dx = Jm.solve(flint.arb_mat(n, 1, [g.mid() for g in cp.field(zero, S)[1:]]))
            except ZeroDivisionError:   # a singular Jacobian (seed-411 general-11-d3): keep
                break                   # the point; the region check says whether it serves
            y = [(v - dx[i, 0]).mid() for i, v in enumerate(y)]
        ys = [_q(float(v), 15) for v in y]
        diag = [k for k, (i, j) in enumerate(pairs(d)) if i == j]
        ys[diag[-1]] = 1 - sum((ys[k] for k in diag[:-1]), flint.fmpq(0))   # tr Y* = 1 exactly
        Ystar = flint.fmpq_mat(d, d)
        for k, (i, j) in enumerate((i, j) for i in range(d) for j in range(i, d)):
            Ystar[i, j] = Ystar[j, i] = ys[k]
        J = cp.jacobian(zero, sym_of(ys, d))
        Jf = np.array([[float(J[i, j].mid()) for j in range(n + 1)] for i in range(n + 1)])
    if not np.all(np.isfinite(Jf)):
        return BlowupBound(None, "Newton's method found no equilibrium at infinity")
    alpha = -max(np.linalg.eigvals(Jf).real)
    if not alpha > 1e-6:
        return BlowupBound(None, f"the equilibrium at infinity is not proved attracting "
                           f"(max Re λ ≈ {-alpha:.3g})")
    from symgauss.questions.regime.infinity_slab import slab_region_near
    slabs = slab_region_near(flow, Jf, ys, PREC)
    found = _ball_region(flow, Jf, alpha, Ystar)
    if not found and not slabs:
        return BlowupBound(None, "no contraction region at infinity was proved (neither an "
                           "ellipsoid nor a slab around the slow manifold)")
    P, ell, rate, rho, g = found or (*_metric(Jf, alpha), None, None, None)

    def enclosures(u, Y, t):
        """(width, region, T* enclosure) for each region that holds the ball state (u, Y):
        region "ellipsoid" or the index of a slab."""
        found_e = []
        for region in ["ellipsoid"] * bool(found) + list(range(len(slabs))):
            try:
                if region == "ellipsoid":
                    e = enclosure_at(P, rho, Ystar, g, u, Y, t)
                else:
                    s = slabs[region]
                    e = slab_enclosure(s["P"], s["rho"], s["u_max"], ys, s["c"], s["g"], u, Y, t)
                found_e.append((float(e[1].mid() - e[0].mid()), region, e))
            except NotProved:
                pass
        return found_e

    def keys(region):
        centre = {"center": [[str(Ystar[i, j]) for j in range(d)] for i in range(d)]}
        if region != "ellipsoid":
            return "blowup-slab", {**centre, **slabs[region]["keys"]}
        return "blowup-infinity", {
            **centre, "P": [[str(P[i, j]) for j in range(n + 1)] for i in range(n + 1)],
            "ell": str(ell), "rho": str(rho), "rate": str(rate)}
    return _to_region(problem, t_ref, ep, flow, P, ell, enclosures, keys)


def finite_leg(ep, t_max: float, prec: int = PREC) -> tuple:
    """(run, (P, ell)): validated steps of eq. 1.1 from Σ0 (changing metric; at most half the
    kernel's step budget) until t_max, or until tr Σ passes GROW times its start or their error
    is no longer small (SWITCH) — the leg before the compactified flow's; (P, ell) the metric they
    end in."""
    from symgauss.integrate.validated import ORDER, integrate
    from symgauss.kernel.equations import svec
    from symgauss.kernel.exact import eye
    from symgauss.kernel.flow import MAX_STEP_WORK, step_work
    from symgauss.kernel.kinds.limit import MAX_STEPS
    from symgauss.questions.regime.basin import ADAPT
    d, p = ep.d, ep.params
    n = d * (d + 1) // 2
    diag = [k for k, (i, j) in enumerate((i, j) for i in range(d) for j in range(i, d))
            if i == j]
    tr0 = sum(float(ep.cov0[i, i]) for i in range(d))
    last = [eye(n), flint.fmpq(1)]     # the metric the steps end in

    def loose(c, r, _t):
        """r in the metric of the moment (λmin ≥ last[1]): r/√ell bounds the Euclidean error,
        which the compactified start inherits (seed-301 general-21-d4: 3.4e-8 in a metric with
        ell ≈ 1e-14 became 3.2e-3 at the start of the compactified steps)."""
        tr = sum(float(c[k]) for k in diag)
        return float(r.mid()) / math.sqrt(float(last[1])) > SWITCH * tr or tr > GROW * tr0

    def track(P_new, ell_new):
        last[:] = [P_new, ell_new]
    budget = min(MAX_STEP_WORK // step_work(d, len(p.heads), ORDER, prec), MAX_STEPS)
    run = integrate(p, svec(ep.cov0), eye(n), flint.fmpq(1), None, t_max=t_max, tol=TOL,
                    stop_time=loose, prec=prec, digits=DIGITS, max_steps=budget // 2, adapt=ADAPT,
                    on_metric=track)
    return run, tuple(last)


def _to_region(problem, t_ref, ep, flow, P, ell, enclosures, keys, inside=None,
               reserve: int = 0, own_metric: bool = True) -> BlowupBound:
    """Validated steps of eq. 1.1, then of the compactified flow (metric diag(W_WEIGHT, P) at
    first), until ``enclosures(u, Y, t)`` (balls) gives the narrowest T* it will (module
    docstring); ``keys(region)`` is (kind, witness keys) of the region that gave it. ``inside``
    tells from a float state (w, u, svec Y) whether it is in a region (default: ``enclosures``
    on it). ``reserve``: steps of eq. 1.1 whose work the kernel charges for the region's own
    check (kind blowup-turning's cells), left out of the steps' budget. ``own_metric``: steps
    that never enter run again in P's metric throughout (P the region's own metric)."""
    from symgauss.integrate.validated import ORDER, integrate
    from symgauss.kernel.flow import MAX_STEP_WORK, spreads, step_work, sym_of, upper
    from symgauss.kernel.kinds.blowup_infinity import SWITCH_WORK, CompactFlow, compact_start
    from symgauss.kernel.kinds.limit import MAX_STEPS
    from symgauss.questions.regime.basin import ADAPT
    d, p = problem.d, ep.params
    n = d * (d + 1) // 2
    # validated steps of eq. 1.1 while they stay accurate, then of the compactified flow (which
    # contracts near z*, so its steps keep their accuracy) until z is deep inside the region;
    # the kernel's work budget (steps of eq. 1.1 and their changes of metric, compactified steps
    # and SWITCH_WORK × theirs, flow.MAX_STEP_WORK) shared
    unit = step_work(d, len(p.heads), ORDER, PREC)
    compact_unit = step_work(d, len(p.heads), ORDER, PREC, "compact")
    budget = min(MAX_STEP_WORK // unit, MAX_STEPS)     # each list: at most the kernel's steps
    run, last = finite_leg(ep, t_ref * 1.5)
    # steps that spent their share of the budget before Σ grew large go on in the compactified
    # flow from where they are: near a rank-one collapse the transversal rate grows like tr Σ,
    # so eq. 1.1's steps shorten like 1/tr Σ, while the compactified flow's rates stay O(1)
    # (seed-801 two-heads-32-d2: 1 000 steps reached t = 3.72, tr Σ ≈ 170, T* ≈ 4.318)
    if not run.stopped and not (len(run.steps) >= budget // 2 and run.radius.is_finite()):
        return BlowupBound(None, f"validated steps of eq. 1.1 did not reach a large Σ "
                           f"({run.why or 'no enclosure'})")
    P2 = flint.fmpq_mat(n + 2, n + 2)
    P2[0, 0] = W_WEIGHT
    for i in range(n + 1):
        for j in range(n + 1):
            P2[i + 1, j + 1] = P[i, j]
    ell2 = min(ell, W_WEIGHT / 2)
    history = []
    with flint.ctx.workprec(PREC):
        cflow = CompactFlow(flow)
        c0, r0 = compact_start(cflow.c.f, run.points[-1], run.radius, flint.arb_mat(P2),
                               spreads(flint.arb_mat(last[0]), last[1]))
        spread = spreads(flint.arb_mat(P2), ell2)
    t0 = run.t

    def at(z):
        with flint.ctx.workprec(PREC):
            return enclosures(z[1], sym_of(z[2:], d), flint.arb(t0) + z[0])

    def deep(c, r, k=None):
        """Whether to stop at c (radius r), the state after k steps (default: one more than
        the last time; a second look at the same k replaces the first)."""
        with flint.ctx.workprec(PREC):
            found_e = at([flint.arb(x) + flint.arb(0, upper(r * s)) for x, s in zip(c, spread)])
        w_best = min(found_e, key=lambda x: x[0]) if found_e else (math.inf, None, None)
        if k is not None and history and history[-1][1] == k:
            history.pop()
        history.append((w_best[0], len(history) if k is None else k, w_best[2], w_best[1]))
        best = min(history, key=lambda h: h[0])
        # done when T* is known to about DONE digits, or when 10 more steps gained < 1 %, or
        # SLOW more steps less than a digit
        return best[2] is not None and (best[0] < 10.0 ** -DONE * float(best[2][1].mid()) or (
            len(history) > 10 and history[-11][0] < 1.01 * best[0]) or (
            len(history) > SLOW and history[-SLOW - 1][0] < 10 * best[0]))

    left = MAX_STEP_WORK - unit * (len(run.steps) + len(run.switches) + reserve)
    # the compactified steps' budget in steps' worth, a change of metric counting SWITCH_WORK:
    # spent as the run goes (it was 24 changes' worth reserved up front, 96 steps at d = 4)
    budget = left // compact_unit
    max_compact = min(MAX_STEPS, budget)
    tau_in = _float_entry(problem, c0, inside or (lambda z: bool(at([flint.arb(x) for x in z]))))
    taus, lost, switched = [], [], [0]

    def stop(c, r, tau):
        """deep; or out of work (room for one more change of metric and step is kept); or,
        before any enclosure, too slow to reach the region (``lost``): at SPEEDUP times the pace
        of the last PACE steps, not at the float entry τ_in within the budget."""
        if deep(c, r):
            return True
        taus.append(float(tau))
        k = len(taus)
        spent = k + SWITCH_WORK * switched[0]
        if spent + SWITCH_WORK + 1 > budget:
            return True
        if all(h[2] is None for h in history) and _too_slow(taus, budget - spent, tau_in):
            lost.append((k, taus[-1]))
            return True
        return False

    def follow(P_new, ell_new):     # a change of metric: the enclosure's box widths change
        nonlocal spread
        switched[0] += 1
        with flint.ctx.workprec(PREC):
            spread = spreads(flint.arb_mat(P_new), ell_new)

    def log_norm_run(adaptive: bool):
        """The log-norm compactified steps from c0, changing metric (``adaptive``) or in P2's
        throughout; the looks start afresh."""
        nonlocal spread
        history.clear()
        taus.clear()
        lost.clear()
        switched[0] = 0
        with flint.ctx.workprec(PREC):
            spread = spreads(flint.arb_mat(P2), ell2)
        changes = {"adapt": ADAPT, "on_metric": follow,
                   "max_switches": COMPACT_SWITCHES + 1} if adaptive else {}
        return integrate(p, c0, P2, ell2, None, t_max=400, tol=COMPACT_TOL, radius=r0,
                         flow=cflow, prec=PREC, digits=DIGITS, safety=COMPACT_SAFETY,
                         max_steps=max_compact, stop_time=stop, **changes)
    crun = log_norm_run(adaptive=True)
    _, k, e, region = min(history, key=lambda h: h[0])
    why = None
    why_fixed = None
    if e is None and max_compact > 0 and own_metric:
        # the same steps again in the region's own metric diag(W_WEIGHT, P), made for the
        # neighbourhood of z* where they start: the metrics that follow the solution keep a
        # margin (≥ 0.05 above the spectral abscissa, which w's zero eigenvalue holds at 0)
        # that a weakly contracting z* cannot pay (seed-711 symmetric-B-13-d3: log-norm ≈ 0.08
        # a unit of τ with them, so the radius grew from 1e-15 to 1e-6 by τ = 260, where the
        # centre enters the region; ≈ 0.026 in P's metric, and these steps enter)
        adaptive, adaptive_lost = crun, lost[:]
        crun = log_norm_run(adaptive=False)
        _, k, e, region = min(history, key=lambda h: h[0])
        if e is None:
            why_fixed = _lost_why(lost, tau_in) or crun.why or "no enclosure"
            crun, lost[:] = adaptive, adaptive_lost
    if e is None and not lost and max_compact > 0:
        why_log = crun.why or "no enclosure"
        # the log-norm steps lost their accuracy (a turning direction at infinity: the radius
        # grows like e^{∫μ} over each turn, seed-311 symmetric-B-3-d2): C¹ steps, which carry
        # the enclosure's shape, from the same start in the metric diag(W_WEIGHT, P)
        from symgauss.integrate.mean_value import integrate_c1
        history.clear()
        with flint.ctx.workprec(PREC):
            spread = spreads(flint.arb_mat(P2), ell2)      # the C¹ run's radius is in P2's
        c1_max = min(C1_STEPS, left // step_work(d, len(p.heads), ORDER, PREC, "compact-c1"))
        seen, c1_taus, c1_lost = {}, [], []

        def c1_stop(c, r, tau):
            """integrate_c1 looks at each step twice: with a float estimate of the radius, then,
            if that look says stop, with the kernel's own conversion. Only the second may enter
            ``history``: the estimate is below the kernel's radius (which rounds λmax up by at
            least 0.1 %), so an enclosure from it would be claimed narrower than the kernel
            proves. The first look therefore always asks for the second."""
            if tau not in seen:
                seen[tau] = len(seen) + 1
                return True
            if deep(c, r, seen[tau]):
                return True
            # the log-norm run's pace test (seed-631 two-heads-12-d3: 400 C¹ steps, 13 s,
            # reached τ = 12.7 of τ_in ≈ 30)
            c1_taus.append(float(tau))
            if all(h[2] is None for h in history) and _too_slow(
                    c1_taus, c1_max - len(c1_taus), tau_in):
                c1_lost.append((len(c1_taus), c1_taus[-1]))
                return True
            return False
        crun = integrate_c1(p, c0, P2, None, t_max=400, tol=COMPACT_TOL, radius=r0, flow=cflow,
                            prec=PREC, digits=DIGITS, safety=COMPACT_SAFETY, max_steps=c1_max,
                            stop_time=c1_stop)
        _, k, e, region = min(history, key=lambda h: h[0], default=(0, 0, None, None))
        why_c1 = crun.why or "no enclosure"
        if c1_lost:
            where = ("the float run never enters" if tau_in == math.inf else
                     f"the float run enters near τ ≈ {tau_in:.4g}")
            why_c1 = (f"{c1_lost[0][0]} steps reached τ = {c1_lost[0][1]:.4g}; at their pace they "
                      f"cannot reach the region within {c1_max} steps; {where}")
        why = f"log-norm steps: {why_log}; C¹ steps: {why_c1}"
    if e is None:
        why = _lost_why(lost, tau_in) or why or crun.why or "no enclosure"
        if why_fixed:
            why = f"{why}; in the region's metric throughout: {why_fixed}"
        return BlowupBound(None, f"validated steps of the compactified flow did not enter the "
                           f"region at infinity ({why})")
    kind, region_keys = keys(region)
    kept = crun.truncate(k)
    return certified(kind, problem, e, run,
                     {**region_keys,
                      **({"metrics": run.witness_metrics()} if run.switches else {}),
                      "compact_steps": kept.witness_steps(),
                      "compact_P": [[str(P2[i, j]) for j in range(n + 2)] for i in range(n + 2)],
                      "compact_ell": str(ell2),
                      **({"compact_metrics": kept.witness_metrics()} if kept.switches else {})},
                     "validated Taylor steps of eq. 1.1, then of the compactified flow with the "
                     "elapsed time, into a contracting region at infinity "
                     "(symgauss.questions.regime.infinity)", PREC)


def _lost_why(lost, tau_in) -> str | None:
    """Why a log-norm run that ``lost`` its pace stopped (None if it did not)."""
    if not lost:
        return None
    where = ("never enters" if tau_in == math.inf else f"enters near τ ≈ {tau_in:.4g}")
    return (f"{lost[0][0]} steps reached τ = {lost[0][1]:.4g}; at their pace they cannot reach "
            f"the region within their budget; the float run {where}")


def _too_slow(taus, left: int, tau_in) -> bool:
    """Whether steps at τ = ``taus`` (one a step) cannot reach the float entry τ_in within
    ``left`` more steps even at SPEEDUP times the pace of the last PACE steps; looked at every
    PACE steps from FIRST_LOOK on (never when τ_in is unknown)."""
    k = len(taus)
    return tau_in is not None and k >= FIRST_LOOK and k % PACE == 0 and taus[-1] + left * \
        SPEEDUP * (taus[-1] - taus[-1 - PACE]) / PACE < tau_in


def _turning(problem, t_ref, ep, moving) -> BlowupBound:
    """d = 2: the steps into a region round the circle of rank-one directions at infinity
    (kind ``blowup-turning``, :mod:`symgauss.questions.regime.turning`), or why none."""
    from symgauss.kernel.exact import eye
    from symgauss.kernel.flow import Flow
    from symgauss.kernel.kinds.blowup_turning import CELLS_PER_STEP
    from symgauss.questions.regime.turning import turning_region
    unsettled = (f"Σ/tr Σ does not settle at infinity: the flow at infinity still moves it "
                 f"after τ = 400 (‖Y'‖ ≈ {moving:.2g}), so there is no equilibrium at infinity "
                 f"to validate")
    if problem.d != 2:
        return BlowupBound(None, f"{unsettled}; a direction that turns is validated at d = 2 "
                           f"only (kind blowup-turning), this problem has d = {problem.d}")
    with flint.ctx.workprec(PREC):
        flow = Flow(ep.params)
        region, why = turning_region(problem, ep, flow)
    if region is None:
        return BlowupBound(None, f"{unsettled}; {why}")

    def enclosures(u, Y, t):
        try:
            e = region.enclosure(u, Y, t)
        except NotProved:
            return []
        return [(float(e[1].mid() - e[0].mid()), "turning", e)]
    return _to_region(problem, t_ref, ep, flow, eye(4), flint.fmpq(1), enclosures,
                      lambda _region: ("blowup-turning", region.keys()), region.inside,
                      reserve=region.cells // CELLS_PER_STEP, own_metric=False)


def _float_entry(problem, c0, inside):
    """The first τ (LSODA on the compactified flow with the elapsed time, floats, from the
    compactified steps' start c0, on a grid of 400 up to τ = 400) at which ``inside`` holds; ∞
    when it never does; None when LSODA stopped short (nothing known)."""
    import numpy as np
    from scipy.integrate import solve_ivp

    from symgauss.questions.regime.reference import compact_field
    sol = solve_ivp(compact_field(problem), (0, 400), [float(x) for x in c0], method="LSODA",
                    rtol=1e-10, atol=1e-14, dense_output=True)
    for tau in np.linspace(0, sol.t[-1], 400):
        if inside([float(x) for x in sol.sol(tau)]):
            return float(tau)
    return math.inf if sol.status == 0 else None


def _metric(Jf, alpha):
    """(P, ell) of the solution of (J + γI)ᵀP + P(J + γI) = −I, γ = α/2 (rounded,
    :func:`~symgauss.questions.regime.infinity_slab.rounded_metric`)."""
    from symgauss.integrate.validated import lyapunov
    from symgauss.questions.regime.infinity_slab import rounded_metric
    return rounded_metric(lyapunov(Jf, alpha / 2))[:2]


def _ball_region(flow, Jf, alpha, Ystar):
    """(P, ell, rate, ρ, g) of the largest ellipsoid {‖z − z*‖_P² ≤ ρ} that the kernel's
    :func:`~symgauss.kernel.kinds.blowup_infinity.check_region` accepts, or None. Metrics: the
    least-conditioned solution of (J + 1.05γ)ᵀP + P(J + 1.05γ) ⪯ 0 and the solution of
    (J + γI)ᵀP + P(J + γI) = −I, γ = α/2; rates 0.8, 0.5, 0.25 of γ. The first region: ρ scanned
    down from λmax(P) by factors of 4; the others only when twice its size is accepted (size
    ρ/λmax(P), the squared radius of the ball it holds); then each grown by factors of 4 while
    accepted. A rate close to γ leaves little room for the nonlinearity: on a slow equilibrium
    at infinity (γ ≈ 0.1) the first rate that succeeds can give a region 50 times smaller than
    the best."""
    from symgauss.integrate.validated import conditioned_lyapunov, lyapunov
    from symgauss.kernel.kinds.blowup_infinity import check_region
    from symgauss.questions.regime.basin import _down, _up
    from symgauss.questions.regime.infinity_slab import rounded_metric
    best, size = None, 0.0
    for Pf in (conditioned_lyapunov(Jf, alpha / 2 * 1.05), lyapunov(Jf, alpha / 2)):
        if Pf is None:
            continue
        P, ell, top = rounded_metric(Pf)
        for frac in (0.8, 0.5, 0.25):
            rate = _down(alpha / 2 * frac)

            def region(rho, P=P, ell=ell, rate=rate):
                try:
                    with flint.ctx.workprec(128):
                        return P, ell, rate, rho, check_region(flow, P, ell, rho, rate, Ystar)
                except NotProved:
                    return None
            if best is None:        # down from λmax(P) by factors of 4 to the first success
                rho = _up(top)
                for _ in range(24):
                    best = region(rho)
                    if best:
                        break
                    rho = _down(float(rho) / 4)
                if best is None:
                    continue
            else:                   # only a region twice the best one's size can replace it
                found = region(_up(2 * size * top))
                if not found:
                    continue
                best = found
            for _ in range(24):     # then up by factors of 4 while the kernel accepts
                bigger = region(_up(float(best[3]) * 4))
                if not bigger:
                    break
                best = bigger
            size = float(best[3]) / top
    return best
