"""Exponential growth without blow-up (d = 2): the search for a ``growth``
certificate (the mathematics is in :mod:`symgauss.kernel.kinds.growth`).

Untrusted search: a float integration until tr Σ is large gives the direction v of Σ/tr Σ
(rank one); the root m° of vᵀBv near it is bracketed by two 40-digit decimals (the kernel checks
the sign change exactly; with several heads, when every B_h + B_hᵀ is a multiple of one matrix),
or else, with several heads, m° is the nearest rational of denominator ≤ EXACT_DEN, which the
kernel accepts only if Σ_h (vᵀB_h v)·V_h v = 0 exactly; the transversal linearisation N of the
flow at infinity (traceless coordinates) gives P from (N + γI)ᵀP + P(N + γI) = −I, γ = −max Re λ(N)/2, when N is Hurwitz;
κ, u_max and the number of angle pieces are tried from the forcing/contraction ratio upward
until the kernel's :func:`~symgauss.kernel.kinds.growth.check_region` accepts the region; then
validated steps of eq. 1.1 (metric I, then changing metric) run until Σ, compactified, is inside
it, or until their pace shows they cannot get there within their budget; then, as a last try
(a fast passage such as a near blow-up makes steps in t fail), steps of eq. 1.1 while Σ is
moderate and then of the compactified flow, which pass it in τ (:func:`_compact_leg`). The
region's centre follows the slow manifold to second order in u (:func:`centre_terms`) where that
proves a larger region, and the constant centre otherwise.
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint

from symgauss.kernel.verdict import NotProved
from symgauss.questions.regime.blowup_bound import BlowupBound, verified
from symgauss.questions.regime.pace import guard, lost_why

#: at most this many steps of the compactified flow after eq. 1.1's (seed-1151
#: symmetric-B-33-d2 enters after 213)
COMPACT_STEPS = 600
#: with several heads, the exact common null direction m is sought among rationals of this
#: denominator or less (an exact root Σ_h (vᵀB_h v)·V_h v = 0 is rational in the ensembles'
#: cases: an axis on every head's null cone)
EXACT_DEN = 1000


def _float_run(problem):
    """(LSODA's dense solution, svec → matrix) from cov0 until tr Σ = 1e6 (or t = 400)."""
    import numpy as np

    from symgauss.integrate.float_events import solve_with_events
    from symgauss.questions.regime.reference import float_field
    f, full, y0 = float_field(problem)

    def big(_t, y):
        return np.trace(full(y)) - 1e6
    big.terminal = True
    return solve_with_events(f, (0, 400), y0, big, method="LSODA", rtol=1e-11, atol=1e-13,
                             dense_output=True), full


def _direction(sol, full):
    """The top eigenvector of Σ at the end of the float run (tr Σ = 1e6), or None."""
    import numpy as np
    S = full(sol.y[:, -1])
    if not np.trace(S) > 1e5:
        return None
    return np.linalg.eigh(S)[1][:, -1]


def _float_entry(sol, inside):
    """The first time of the float run (on a grid of 400) at which Σ(t), as rationals, is
    ``inside`` the region, or None."""
    import numpy as np
    for t in np.linspace(0, sol.t[-1], 400):
        if inside([_fmpq(float(x)) for x in sol.sol(t)]):
            return float(t)
    return None


def _bracket(B, axis: int, m: float):
    """(lo, hi): 40-digit decimals around the root of vᵀBv nearest m (mpmath, 60 digits)."""
    import mpmath
    b = [[mpmath.mpf(int(B[i, j].p)) / int(B[i, j].q) for j in range(2)] for i in range(2)]
    if axis == 0:     # v = (1, m)
        c0, c1, c2 = b[0][0], b[0][1] + b[1][0], b[1][1]
    else:             # v = (m, 1)
        c0, c1, c2 = b[1][1], b[0][1] + b[1][0], b[0][0]
    with mpmath.workdps(60):
        root = mpmath.findroot(lambda x: c0 + c1 * x + c2 * x * x, m)
        eps = mpmath.mpf(10) ** -40 * (1 + abs(root))
        lo, hi = (Fraction(mpmath.nstr(x, 45)) for x in (root - eps, root + eps))
    return flint.fmpq(lo.numerator, lo.denominator), flint.fmpq(hi.numerator, hi.denominator)


def _decimal(x: flint.fmpq, up: bool) -> flint.fmpq:
    """x rounded to 3 significant digits, up or down."""
    import math
    f = float(x)
    e = math.floor(math.log10(abs(f))) - 2
    m = (math.ceil if up else math.floor)(f / 10 ** e)
    return flint.fmpq(m * 10 ** e) if e >= 0 else flint.fmpq(m, 10 ** (-e))


def _holds_at_samples(flow, Ys, cs, P, kappa, u_max, angles: int = 128, us: int = 8) -> bool:
    """Whether the region's side bracket (the kernel's :func:`~symgauss.kernel.kinds.growth.
    side_value`) is negative and ĝ positive at ``angles`` × ``us`` points of the circle ×
    (0, u_max]: a sample where one is not means the region is not invariant or u may grow in it,
    and the cells need not be tried (where the mean-value form proves a side, covers cost
    seconds each)."""
    from symgauss.kernel.kinds.blowup_infinity import Compact
    from symgauss.kernel.kinds.growth import cholesky_inv_t, region_terms, side_value
    Pa = flint.arb_mat(P)
    Lit, cp, k = cholesky_inv_t(Pa), Compact(flow), flint.arb(kappa)
    ca = [[flint.arb(x) for x in c] for c in cs]
    for j in range(1, us + 1):
        u = flint.arb(u_max * flint.fmpq(j, us))
        for i in range(angles):
            th = flint.arb.pi() * flint.fmpq(2 * i, angles)
            x = Lit * flint.arb_mat(2, 1, [th.cos(), th.sin()])
            xs = [x[0, 0], x[1, 0]]
            if not (side_value(cp, Ys, ca, k, u, Pa, xs) < 0 and
                    region_terms(cp, Ys, ca, k, u, xs)[1] > 0):
                return False
    return True


def centre_terms(cp, Ys, c, N, count: int) -> list:
    """The slow manifold's next ``count`` coefficients c_1, c_2, … after c (exact rationals of 12
    decimals, found in floats): with
    C(u) = c + Σ_k c_k·u^k, the residual R(u) = x(Ĝ) + uĝ·d(u·C(u))/du on Δ = 0 (the region's
    drift at its centre) is a polynomial in u, and c_k is chosen so that its coefficient of u^k
    vanishes: N·c_k + (that coefficient with c_k = 0) = 0, one k at a time (N the transversal
    linearisation). The coefficients come from R at 3k + 3 points, interpolated in 256-bit balls
    (exact up to rounding: with k + 1 coefficients R is of degree 3k + 2 or less)."""
    import numpy as np

    from symgauss.kernel.kinds.growth import centre_at, region_terms
    zero, terms = [flint.arb(0), flint.arb(0)], []
    cs = [[flint.arb(x) for x in c]]
    with flint.ctx.workprec(256):
        for k in range(1, count + 1):
            trial = cs + [zero]
            top = 3 * len(trial) - 1
            pts = [flint.arb(flint.fmpq(2 * j - top, 4 * top)) for j in range(top + 1)]
            rows = []
            for u in pts:
                Gx, gh = region_terms(cp, Ys, trial, flint.arb(0), u, zero)
                rows.append([g + u * gh * a for g, a in zip(Gx, centre_at(trial, u)[1])])
            vander = flint.arb_mat([[u ** i for i in range(len(pts))] for u in pts])
            coef = vander.solve(flint.arb_mat(rows))
            r_k = np.array([float(coef[k, i].mid()) for i in range(2)])
            terms.append([flint.fmpq(round(float(x) * 10 ** 12), 10 ** 12)
                          for x in -np.linalg.solve(N, r_k)])
            cs.append([flint.arb(x) for x in terms[-1]])
    return terms


def _cusps():
    """(κ, u_max) to try: the largest u_max first — Σ enters the region sooner, while its steps
    are accurate (a weak transversal rate needs small u, and fine u and angle pieces: the terms
    of order u·‖c‖² must stay below the contraction κ·rate at the small end of each u piece);
    then, when no region of those has ĝ proved positive, narrower cusps (ĝ's spread over the
    region grows like κ: seed-12 general-31-d2 has ĝ ∈ [−0.24, 0.39] at κ = 1/20)."""
    for kappas in ((20, 5, 2), (200, 2000)):
        for u_max in (4, 10, 30, 50, 100, 1000, 10 ** 4, 10 ** 5):
            for k in kappas:
                yield flint.fmpq(1, k), flint.fmpq(1, u_max)


def find_growth(problem) -> BlowupBound:
    """A kernel-verified ``growth`` certificate, or why none was found (``BlowupBound`` carries
    the certificate and the reason; its enclosure is unused)."""
    import numpy as np

    from symgauss.integrate.validated import integrate, lyapunov, step_budget
    from symgauss.kernel.equations import svec
    from symgauss.kernel.exact import eye
    from symgauss.kernel.flow import Flow
    from symgauss.kernel.kinds.blowup_infinity import Compact, trace
    from symgauss.kernel.kinds.growth import check_region, coords, entry, entry_at, null_root, star
    from symgauss.kernel.kinds.limit import MAX_STEPS, MAX_SWITCHES
    from symgauss.kernel.read import read_problem
    from symgauss.questions.regime.basin import ADAPT
    from symgauss.questions.regime.growth_riccati import find_growth_riccati
    riccati = find_growth_riccati(problem)      # V_h = v_h I, A = αI: the closed form, exact
    if riccati.certificate is not None:
        return riccati
    quasi = []
    if problem.d == 2:      # a double null direction of the quadratic term, any number of heads
        from symgauss.questions.regime.growth_quasi import axes, find_growth_quasi
        for j in axes(problem):
            res = find_growth_quasi(problem, j)
            if res.certificate is not None:
                return res
            quasi.append(f"along the double null direction e_{j + 1} (kind growth-quasi): "
                         f"{res.why}")
    if quasi and len(problem.params.heads) != 1:
        return BlowupBound(None, "; ".join(quasi))
    if problem.d == 3 and len(problem.params.heads) == 1:     # a family of directions
        from symgauss.questions.regime.growth_schur import find_growth_schur
        return find_growth_schur(problem)
    if problem.d != 2:
        return BlowupBound(None, "the growth certificates are for d = 2 and, with one head, d = 3 "
                           "(for d ≥ 4 the directions at infinity along B's null cone and Σ's "
                           "lower-rank part need more slow coordinates; no kernel kind covers "
                           "that, or several heads at d = 3, yet)")
    sol, full = _float_run(problem)
    v = _direction(sol, full)
    if v is None:
        return BlowupBound(None, "the float integration did not reach tr Σ = 1e6")
    data = problem.to_dict()
    data.pop("name", None)
    ep = read_problem(data)
    p = ep.params
    axis = 0 if abs(v[0]) >= abs(v[1]) else 1
    m0 = v[1] / v[0] if axis == 0 else v[0] / v[1]
    try:        # the root of vᵀB_h v for the first head whose B_h is not skew
        B = next((B for _, B in p.heads if B + B.transpose() != 0 * B), p.heads[0][1])
        lo, hi = _bracket(B, axis, float(m0))
        null_root(p.heads, axis, lo, hi)    # the kernel's test: a common root of every head
    except (ValueError, ZeroDivisionError):
        degenerate = ("no simple null direction of B (a sign change of vᵀBv) near the growth "
                      "direction: the equilibrium at infinity is degenerate")
        return BlowupBound(None, "; ".join([*quasi, degenerate]))
    except NotProved as e:  # several heads, not one quadratic form: an exact common root
        if len(p.heads) == 1:
            return BlowupBound(None, "; ".join([*quasi, str(e)]))
        lo = hi = _fmpq(float(Fraction(float(m0)).limit_denominator(EXACT_DEN)))
        try:
            null_root(p.heads, axis, lo, hi)
        except NotProved:
            return BlowupBound(None, "; ".join([*quasi, (
                f"with {len(p.heads)} heads whose B_h + B_hᵀ are not multiples of one matrix, "
                f"the growth direction at infinity needs Σ_h (vᵀB_h v)·V_h v = 0 exactly; near "
                f"the float direction m ≈ {float(m0):.6g} no rational m with denominator ≤ "
                f"{EXACT_DEN} has it")]))
    if abs(float(lo) - m0) > 1e-3 * (1 + abs(m0)):
        return BlowupBound(None, "the growth direction is not a null direction of B")
    prec = 128
    with flint.ctx.workprec(prec):
        flow = Flow(p)
        Ys = star(axis, flint.arb((lo + hi) / 2))
        # the transversal linearisation at infinity and the forcing (traceless coordinates)
        cp = Compact(flow)
        cols = []
        for D in (flint.arb_mat([[1, 0], [0, -1]]), flint.arb_mat([[0, 1], [1, 0]])):
            dq = cp.quad(Ys, D)
            cols.append([float(x.mid()) for x in coords(dq - Ys * trace(dq))])
        LY = cp.lin(Ys)
        forcing = np.array([float(x.mid()) for x in coords(LY - Ys * trace(LY))])
    N = np.array(cols).T
    lam = np.linalg.eigvals(N)
    if not max(lam.real) < -1e-6:
        return BlowupBound(None, f"the direction at infinity is not transversally attracting "
                           f"(max Re λ ≈ {max(lam.real):.3g})")
    centre = -np.linalg.solve(N, forcing)       # the slow manifold Y ≈ Y* + u·C
    c = [_fmpq(round(float(x) * 10 ** 12) / 10 ** 12) for x in centre]
    if -max(np.linalg.eigvalsh((N + N.T) / 2)) >= -max(lam.real) / 2:
        Pf = np.eye(2)      # N contracts in ‖·‖₂ at half its spectral rate or better
    else:
        gamma = -max(lam.real) / 2
        Pf = lyapunov(N, gamma)
        Pf = Pf / np.max(np.abs(Pf))
    P = flint.fmpq_mat(2, 2, [flint.fmpq(round(Pf[max(i, j), min(i, j)] * 10 ** 12), 10 ** 12)
                              for i in range(2) for j in range(2)])
    found = None
    # the centre to second order in u first (a larger u_max: seed-1141 symmetric-B-3-d2), then c
    centres = ([c, *centre_terms(cp, Ys, c, N, 2)], [c])
    with flint.ctx.workprec(prec):
        for (kappa, u_max), cs in ((cusp, cs) for cusp in _cusps() for cs in centres):
            if not _holds_at_samples(flow, Ys, cs, P, kappa, u_max):
                continue    # not invariant, or u grows: no cover of cells can prove it
            # with terms in u the cells are tried in u's Taylor form, one u piece (taylor_side)
            for arcs, pieces in (((64, 4), (256, 4), (1024, 4), (1024, 16), (2048, 16))
                                 if len(cs) == 1 else ((256, 1), (1024, 1), (2048, 1))):
                try:
                    g = check_region(flow, Ys, cs, P, kappa, u_max, arcs, pieces)
                except NotProved:
                    continue
                if g[0] > 0:    # else u may grow in the region: a smaller one
                    found = (kappa, u_max, arcs, pieces, g, cs)
                break
            if found:
                break
    if found is None:
        return BlowupBound(None, "no invariant region at infinity was proved")
    kappa, u_max, arcs, pieces, (g_lo, g_hi), cs = found
    a = _decimal(_fmpq(float(g_lo.mid() - g_lo.rad()) * (1 - 1e-6)), False)
    b = _decimal(_fmpq(float(g_hi.mid() + g_hi.rad()) * (1 + 1e-6)), True)
    if not (g_lo > 0 and a > 0):
        return BlowupBound(None, "the growth rate is not proved positive on the region")

    def inside(c, r):
        try:
            with flint.ctx.workprec(prec):
                entry(Ys, cs, P, kappa, u_max, c, r)
            return True
        except NotProved:
            return False
    budget = min(step_budget(problem.d, len(p.heads)), MAX_STEPS) - MAX_SWITCHES
    t_in = _float_entry(sol, lambda c: inside(c, flint.arb(0)))
    for adapt in (0, ADAPT):     # then follow the solution with changes of metric
        # the pace must reach the float entry within 9/10 of the budget (seed-71
        # symmetric-B-33-d2 enters after 1540 steps)
        stop, lost = guard(inside, budget * 9 // 10, math.inf if t_in is None else t_in)
        run = integrate(p, svec(ep.cov0), eye(3), flint.fmpq(1), None, t_max=400, tol=1e-18,
                        max_steps=budget, adapt=adapt, stop_time=stop)
        if lost:
            run.stopped, run.why = False, lost_why(lost, t_in)
        if run.stopped:
            break
    legs = {}
    if not run.stopped:
        # through a fast passage (a near blow-up before the growth settles) steps in t fail:
        # eq. 1.1's steps while Σ is moderate, then the compactified flow's, as blowup-infinity
        legs = _compact_leg(ep, prec, lambda u, Y: entry_at(Ys, cs, P, kappa, u_max, u, Y))
        if isinstance(legs, str):
            return BlowupBound(None, f"validated steps did not enter the region ({run.why}); "
                               f"through the compactified flow: {legs}")
        run = legs.pop("run")
    claim = {"t_enter": str(legs.pop("t_enter", run.t)), "rate_lower": str(a),
             "rate_upper": str(b)}
    witness = {"steps": run.witness_steps(), "order": 24, "prec": prec, "axis": axis,
               "m_lo": str(lo), "m_hi": str(hi), "center": [str(x) for x in cs[0]],
               **({"center_terms": [[str(x) for x in ck] for ck in cs[1:]]} if cs[1:] else {}),
               "P": [[str(P[i, j]) for j in range(2)] for i in range(2)],
               "kappa": str(kappa), "u_max": str(u_max), "arcs": arcs, "u_pieces": pieces,
               **({"metrics": run.witness_metrics()} if run.switches else {}), **legs}
    return verified("growth", problem, claim, witness,
                    "validated Taylor steps, " + ("then of the compactified flow, " if legs else "")
                    + "then an invariant region of the compactified flow at infinity "
                    "(symgauss.questions.regime.growth)")


def _compact_leg(ep, prec: int, inside):
    """The witness keys of two legs that end in the region — eq. 1.1's steps (``run``) while
    tr Σ stays below infinity.GROW times its start and their error small, then the compactified
    flow's (metric diag(W_WEIGHT, I), changing metric), stopped once ``inside(u, Y)`` (balls) — and
    ``t_enter``, an exact bound above the proved end t0 + w; or why there are none."""
    import math

    from symgauss.integrate.validated import ORDER, integrate
    from symgauss.kernel.exact import eye
    from symgauss.kernel.flow import MAX_STEP_WORK, Flow, spreads, step_work, sym_of, upper
    from symgauss.kernel.kinds.blowup_infinity import SWITCH_WORK, CompactFlow, compact_start
    from symgauss.kernel.kinds.limit import MAX_STEPS
    from symgauss.questions.regime.basin import ADAPT
    from symgauss.questions.regime.infinity import (
        COMPACT_SAFETY,
        COMPACT_SWITCHES,
        COMPACT_TOL,
        DIGITS,
        W_WEIGHT,
        finite_leg,
    )
    p, n = ep.params, 3
    heads = len(p.heads)
    unit = step_work(2, heads, ORDER, prec)
    run, last = finite_leg(ep, 400, prec)     # blowup-infinity's first leg
    if not run.radius.is_finite() or not run.steps:
        return f"eq. 1.1's steps stopped at once ({run.why})"
    P2 = eye(n + 2)
    P2[0, 0] = W_WEIGHT
    ell2 = W_WEIGHT / 2
    # the kernel's work budget: both legs' steps, a compactified change of metric SWITCH_WORK
    left = MAX_STEP_WORK - unit * (len(run.steps) + len(run.switches) + 1)
    most = min(MAX_STEPS, COMPACT_STEPS, left // step_work(2, heads, ORDER, prec, "compact")
               - SWITCH_WORK * (COMPACT_SWITCHES + 1))
    with flint.ctx.workprec(prec):
        flow = Flow(p)
        cflow = CompactFlow(flow)
        c0, r0 = compact_start(flow, run.points[-1], run.radius, flint.arb_mat(P2),
                               spreads(flint.arb_mat(last[0]), last[1]))
        spread = [spreads(flint.arb_mat(P2), ell2)]
    t0 = run.t

    def state(c, r):
        z = [flint.arb(x) + flint.arb(0, upper(r * s)) for x, s in zip(c, spread[0])]
        return z[0], z[1], sym_of(z[2:], 2)

    def stop(c, r, _tau):
        with flint.ctx.workprec(prec):
            _, u, Y = state(c, r)
            try:
                inside(u, Y)
                return True
            except NotProved:
                return False

    def follow(P_new, ell_new):
        with flint.ctx.workprec(prec):
            spread[0] = spreads(flint.arb_mat(P_new), ell_new)
    crun = integrate(p, c0, P2, ell2, None, t_max=400, tol=COMPACT_TOL, radius=r0, flow=cflow,
                     prec=prec, digits=DIGITS, safety=COMPACT_SAFETY, max_steps=most,
                     stop_time=stop, adapt=ADAPT, on_metric=follow,
                     max_switches=COMPACT_SWITCHES + 1)
    if not crun.stopped:
        return f"{len(crun.steps)} steps reached τ = {float(crun.t):.4g} ({crun.why or 'not in it'})"
    with flint.ctx.workprec(prec):
        w = state(crun.points[-1], crun.radius)[0]
        top = float((flint.arb(t0) + w).upper())
    t_enter = Fraction(math.ceil(top * 10 ** 9 + 1), 10 ** 9)
    return {"run": run, "t_enter": f"{t_enter.numerator}/{t_enter.denominator}",
            "compact_steps": crun.witness_steps(),
            "compact_P": [[str(P2[i, j]) for j in range(n + 2)] for i in range(n + 2)],
            "compact_ell": str(ell2),
            **({"compact_metrics": crun.witness_metrics()} if crun.switches else {})}


def _fmpq(x: float) -> flint.fmpq:
    f = Fraction(x)
    return flint.fmpq(f.numerator, f.denominator)
