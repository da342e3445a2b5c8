"""Convergence with a proof: a contraction region around the limit, reached by validated steps.

Untrusted search for a kernel ``limit`` certificate (:mod:`symgauss.kernel.kinds.limit`):

1. a float integration (:func:`symgauss.questions.regime.reference.reference_regime`) proposes
   the fate — decay, a positive-definite or a singular limit — and the limit;
2. Newton's method in ball arithmetic (midpoints, 200 bits) polishes the limit to a rational
   centre C (C = 0 for decay);
3. L = DF(C) on Sym(d) (svec): with α = −max Re λ(L) > 0 and γ = α/2, P solves
   (L + γI)ᵀP + P(L + γI) = −I, so −(LᵀP + PL) − 2λP = I + 2(γ − λ)P ≻ 0 at C for λ < γ; the
   region {‖x − C‖_P² ≤ ρ} is grown (ρ scanned down by factors of 4) as long as the kernel's
   own :func:`symgauss.kernel.kinds.limit.check_region` accepts it;
4. validated integration (:mod:`symgauss.integrate.validated`) from Σ0 in the metric P until
   the enclosure lies in the region.

Every step is checked by the kernel's functions while it is built, and the finished certificate
is checked again by :func:`symgauss.kernel.checker.check` before anyone is told "proved".
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import flint

from symgauss.kernel.verdict import NotProved
from symgauss.questions.regime.pace import guard, lost_why


@dataclass(frozen=True)
class LimitResult:
    """A verified ``limit`` certificate (``certificate``) or why none was found (``why``)."""
    regime: str | None
    certificate: dict | None
    why: str
    center: list | None = None
    rate: str | None = None
    radius: str | None = None
    method: str | None = None


#: how Σ(t_enter) was reached, by kind: validated steps, or (every V_h = v_h I) the closed form
STEPS_METHOD = "validated Taylor steps into a contraction region (symgauss.questions.regime.basin)"
CLOSED_METHOD = ("the closed form of the Riccati equation (every V_h = v_h I) at t_enter, inside "
                 "a contraction region (symgauss.questions.regime.limit_closed)")


def _pieces_note(fields: dict) -> str:
    """What the closed form's existence proof was, when R is indefinite (its pieces)."""
    if "pieces" not in fields:
        return ""
    n = sum(k for k, _ in fields["pieces"])
    return (f"; R indefinite: Σ proved to exist up to t_enter on {n} pieces "
            f"(as {len(fields['pieces'])} runs of equally long pieces)")


def _q(x: float, digits: int = 12) -> flint.fmpq:
    """x rounded to ``digits`` significant digits, as an exact rational."""
    from symgauss.integrate.validated import significant
    return significant(x, digits)


def _down(x: float) -> flint.fmpq:
    """A rational in (0.99x, x] with 3 significant digits (x > 0)."""
    e = math.floor(math.log10(x)) - 2
    m = math.floor(x * 0.995 / 10 ** e)
    return flint.fmpq(m * 10 ** e) if e >= 0 else flint.fmpq(m, 10 ** (-e))


def _up(x: float) -> flint.fmpq:
    e = math.floor(math.log10(x)) - 2
    m = math.ceil(x * 1.005 / 10 ** e)
    return flint.fmpq(m * 10 ** e) if e >= 0 else flint.fmpq(m, 10 ** (-e))


def _text(x: flint.fmpq) -> str:
    from symgauss.kernel.read import short_text
    return short_text(x)


def newton(flow, x0: list, prec: int = 200) -> list:
    """A rational zero of ``flow``'s field near the svec ``x0`` (Newton in arb midpoints; any
    field with :class:`~symgauss.kernel.flow.Flow`'s methods)."""
    with flint.ctx.workprec(prec):
        x = [flint.arb(v) for v in x0]
        n = len(x)
        for _ in range(8):
            X = flow.box([v.mid() for v in x])
            F = flow.coords(flow.field(X))
            J = flow.jacobian(X)
            Jm = flint.arb_mat(n, n, [J[i, j].mid() for i in range(n) for j in range(n)])
            try:
                dx = Jm.solve(flint.arb_mat(n, 1, [f.mid() for f in F]))
            except ZeroDivisionError:   # a singular Jacobian: keep the point (the region
                break                   # check then says whether it serves)
            x = [(v - dx[i, 0]).mid() for i, v in enumerate(x)]
        return [_q(float(v), 15) for v in x]


def newton_center(params, S, d: int, prec: int = 200):
    """A rational svec near a zero of F, from the float matrix S."""
    from symgauss.kernel.flow import Flow
    with flint.ctx.workprec(prec):
        flow = Flow(params)
    return newton(flow, [_q(float(S[i][j]), 15) for i in range(d) for j in range(i, d)], prec)


def contraction_region(flow, c: list, prec: int = 128):
    """(P, ell, rho, rate) of a region {‖x − c‖_P² ≤ ρ} that the kernel's
    :func:`symgauss.kernel.kinds.limit.check_region` accepts, or a string saying why none.

    L = DF(c): with α = −max Re λ(L) > 0 and γ = α/2, P is the least-conditioned solution of
    (L + 1.05γI)ᵀP + P(L + 1.05γI) ⪯ 0 (:func:`symgauss.integrate.validated.conditioned_lyapunov`),
    else the solution of (L + γI)ᵀP + P(L + γI) = −I, so −(LᵀP + PL) − 2λP ≻ 0 at c for
    λ < γ; ρ is scanned down by factors of 4."""
    import numpy as np
    n = len(c)
    with flint.ctx.workprec(prec):
        J = flow.jacobian(flow.box(c))
        L = np.array([[float(J[i, j].mid()) for j in range(n)] for i in range(n)])
        F_C = flint.arb_mat(n, 1, flow.coords(flow.field(flow.box(c))))
    alpha = -max(np.linalg.eigvals(L).real)
    if not alpha > 1e-6:
        return (f"the linearisation at the limit is not proved stable (max Re λ ≈ {-alpha:.3g}): "
                "no contraction region")
    gamma = alpha / 2
    from symgauss.integrate.validated import conditioned_lyapunov, lyapunov
    for Pf in (conditioned_lyapunov(L, gamma * 1.05), lyapunov(L, gamma)):
        if Pf is None:
            continue
        found = _region(flow, c, Pf / np.max(np.abs(Pf)), gamma, F_C, prec)
        if found is not None:
            return found
    return "no contraction region around the limit was proved"


def _region(flow, c, Pf, gamma, F_C, prec):
    """(P, ell, rho, rate) for the metric Pf (floats), ρ scanned down by factors of 4; or None."""
    import numpy as np

    from symgauss.kernel.kinds.limit import check_region
    n = len(c)
    P = flint.fmpq_mat(n, n, [_q(Pf[i, j], 10) for i in range(n) for j in range(n)])
    for i in range(n):
        for j in range(i):
            P[i, j] = P[j, i]
    ell = _down(float(np.linalg.eigvalsh(Pf)[0]))
    scale = max(float(np.max(np.abs(np.array([float(x) for x in c])))), 1e-3)
    for frac in (0.8, 0.5, 0.25):
        rate = _down(gamma * frac)
        rho = _up(scale ** 2 * float(np.linalg.eigvalsh(Pf)[-1]))
        with flint.ctx.workprec(prec):
            for _ in range(40):
                try:
                    check_region(flow, P, ell, rho, c, rate, F_C)
                    return P, ell, rho, rate
                except NotProved:
                    rho = _down(float(rho) / 4)
    return None


#: consider a change of metric every ADAPT steps (integrate's ``adapt``)
ADAPT = 6


#: the step length, as a fraction of the Taylor series' estimated radius, of a second try when
#: the steps stayed accurate but used up their number before the region (the default is 0.12;
#: seed-10 symmetric-B-13-d3 reaches its region at t = 81 only with this)
LONG_SAFETY = 0.3
#: the runs towards the region stop when even SPEEDUP times their pace cannot reach the float
#: entry (:mod:`symgauss.questions.regime.pace`; the steps lengthen as the solution settles);
#: seed-931 symmetric-B-13-d3 took 68 s in five runs of 2 000 steps that each ended at t = 83–94,
#: short of the float entry at t ≈ 103
SPEEDUP = 1.5
#: the float entry time is sought with at most this many field evaluations (about 2 s)
ENTRY_EVALS = 100_000


#: the C¹ steps' local error per step, relative to ‖Σ‖ (each step carries its shape, so the
#: enclosure stays thin: the region's radius, not the local error, bounds what may accumulate)
C1_TOL = 1e-12


def steps_into_region(params, start, P, ell, c, rho, *, t_max: float, flow=None,
                      only_c1: bool = False, t_in=None):
    """(run, metric): validated steps from ``start`` until the enclosure is inside
    {‖x − c‖_P² ≤ ρ} (with a margin), in ‖·‖_P (when they stay accurate but run out before the
    region, once more with longer steps, LONG_SAFETY); or else starting in ‖·‖_P and changing to
    metrics that follow the solution (``run.switches``, the kernel's ``metrics``); or else in
    ‖·‖_2 (an ill-conditioned P can make the steps stall), converted by
    ‖e‖_P ≤ √‖P‖_∞·‖e‖_2 as the kernel does; or else by C¹ steps, which carry the enclosure's
    shape (:func:`symgauss.integrate.mean_value.integrate_c1`; ``only_c1``: these alone), as
    many as the kernel's work limit allows (``flow``, e.g. kind growth-axis's field of the other
    coordinates, must give the tangent maps too). If none gets there, the run's ``why`` names
    every try and where it stopped. ``t_in``: when the float run enters the region (math.inf:
    never); each run then also stops when its pace cannot get there within its budget, even at
    SPEEDUP times (:func:`symgauss.questions.regime.pace.guard`)."""
    from symgauss.integrate.validated import integrate, step_budget
    from symgauss.kernel.exact import eye, norm_inf
    from symgauss.kernel.flow import p_norm
    from symgauss.kernel.kinds.limit import MAX_STEPS, MAX_SWITCHES
    target, Pa = math.sqrt(float(rho)) * 0.9, flint.arb_mat(P)

    def inside(pt, r):
        gap = [flint.arb(a) - flint.arb(b) for a, b in zip(pt, c)]
        return float(p_norm(Pa, gap).mid()) + float(r.mid()) < target
    # a change of metric counts one step
    work = step_budget(params.A.nrows(), len(params.heads))
    steps = min(MAX_STEPS, work)
    whys = []       # each try's reason, for the answer's ``tried``

    def tried(run, how):
        whys.append(f"{how}: {run.why}")
        return run

    slow = []       # runs whose steps all validated but went too slowly

    def towards(go, budget, test=inside):
        """``go(stop_time)``'s run, stopped in the region or when its pace is too slow."""
        stop, lost = guard(test, budget, t_in, SPEEDUP)
        run = go(stop)
        if lost:
            run.stopped, run.why = False, lost_why(lost, t_in)
            slow.append(run)
        return run

    def c1():
        from symgauss.integrate.mean_value import integrate_c1
        budget = min(MAX_STEPS, step_budget(params.A.nrows(), len(params.heads), kind="c1"))
        run = tried(towards(lambda stop: integrate_c1(
            params, start, P, None, t_max=t_max, max_steps=budget, safety=LONG_SAFETY,
            tol=C1_TOL, flow=flow, stop_time=stop), budget),
            "C¹ steps (the enclosure's shape carried along)")
        if not run.stopped:
            run.why = "; ".join(whys)
        return run, "region"
    if only_c1:
        return c1()
    run = tried(towards(lambda stop: integrate(
        params, start, P, ell, None, t_max=t_max, shrink_box=True, max_steps=steps, flow=flow,
        stop_time=stop), steps), "in the region's metric")
    if run.stopped:
        return run, "region"
    if len(run.steps) >= steps or slow:     # every step validated, but too short: longer steps
        run = tried(towards(lambda stop: integrate(
            params, start, P, ell, None, t_max=t_max, shrink_box=True, max_steps=steps,
            flow=flow, safety=LONG_SAFETY, stop_time=stop), steps), "longer steps")
        if run.stopped:
            return run, "region"
    # the region's metric can be far from the flow's along the way: follow the solution
    adapted = min(MAX_STEPS, work - MAX_SWITCHES)
    run = tried(towards(lambda stop: integrate(
        params, start, P, ell, None, t_max=t_max, flow=flow, adapt=ADAPT, max_steps=adapted,
        stop_time=stop), adapted), "changing metric along the solution")
    if run.stopped:
        return run, "region"
    scale = math.sqrt(float(norm_inf(P)))
    run = tried(towards(lambda stop: integrate(
        params, start, eye(len(start)), flint.fmpq(1), None, t_max=t_max, max_steps=steps,
        flow=flow, stop_time=stop), steps, lambda pt, r: inside(pt, r * scale)), "in ‖·‖_2")
    if run.stopped:
        return run, "identity"
    return c1()


def float_entry(problem, P, c, rho, t_max: float):
    """When the float solution (LSODA on svec Σ) first enters {‖x − c‖_P² ≤ 0.81ρ} (the search's
    target), math.inf when it does not by ``t_max``, None when the float run fails or needs more
    than ENTRY_EVALS field evaluations."""
    import numpy as np

    from symgauss.questions.regime.reference import first_event_time, float_field
    Pf = np.array([[float(P[i, j]) for j in range(P.ncols())] for i in range(P.nrows())])
    cf = np.array([float(x) for x in c])

    def enter(_t, y):
        e = y - cf
        return e @ Pf @ e - 0.81 * float(rho)
    enter.direction = -1
    if enter(0, float_field(problem)[2]) <= 0:
        return 0.0
    try:
        return first_event_time(problem, enter, t_max, atol=1e-13, evals=ENTRY_EVALS)
    except (ValueError, ArithmeticError):
        return None


def find_limit(problem, proposal: dict, *, t_max: float = 2000.0,
               only_c1: bool = False) -> LimitResult:
    """A kernel-verified ``limit`` certificate for ``problem`` following the float
    ``proposal`` (:func:`reference_regime`'s dict), or a LimitResult saying why not
    (``only_c1``: its steps all C¹ steps, :func:`steps_into_region`)."""

    from symgauss.kernel.checker import check
    from symgauss.kernel.equations import residual, svec
    from symgauss.kernel.flow import Flow
    from symgauss.kernel.read import read_problem
    from symgauss.model.certificate import envelope
    from symgauss.questions.regime.limit_closed import closed_entry
    kind = proposal["kind"]
    if kind not in ("decay", "stable-equilibrium", "singular-limit"):
        return LimitResult(None, None, f"the float integration does not converge ({kind})")
    ep = read_problem(_problem_data(problem))
    p, d = ep.params, problem.d
    n = d * (d + 1) // 2
    if kind == "decay":
        c = [flint.fmpq(0)] * n
    else:
        c = newton_center(p, proposal["limit"], d)
    C = flint.fmpq_mat(d, d)
    for k, (i, j) in enumerate((i, j) for i in range(d) for j in range(i, d)):
        C[i, j] = C[j, i] = c[k]
    with flint.ctx.workprec(128):
        flow = Flow(p)
    found = contraction_region(flow, c)
    if isinstance(found, str):
        return LimitResult(None, None, found)
    P, ell, rho, rate = found
    F_C = flint.fmpq_mat(n, 1, svec(residual(p, C)))
    q = float((F_C.transpose() * P * F_C)[0, 0])
    radius = flint.fmpq(0) if q == 0 else _up(math.sqrt(q / (float(rate) ** 2 * float(ell))))
    if kind == "stable-equilibrium" and not _pd(C - flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)]) * (radius * 3 / 2)):
        return LimitResult(None, None, "the limit is too close to singular for its enclosure")
    t_in = float_entry(problem, P, c, rho, t_max)
    claim = {"regime": kind, "center": [[str(C[i, j]) for j in range(d)] for i in range(d)],
             "radius": str(radius), "rate": str(rate)}
    witness = {"P": [[str(P[i, j]) for j in range(n)] for i in range(n)], "ell": str(ell),
               "rho": str(rho)}

    def result(cert_kind, cl, wit, method):
        cert = envelope(cert_kind, problem, cl, wit, "rigorous", method)
        verdict = check(cert)
        if verdict.status != "verified":
            return LimitResult(None, None, f"the kernel did not verify the certificate: "
                               f"{verdict.status} ({verdict.reason[:200]})")
        return LimitResult(kind, cert, verdict.reason,
                           [[_text(C[i, j]) for j in range(d)] for i in range(d)],
                           _text(rate), _text(radius), method)
    closed = None if only_c1 else closed_entry(ep, P, C, rho, t_in)
    if closed is not None:      # the kernel re-checks it; if it did not agree, the steps
        res = result("limit-closed-form", {**claim, "t_enter": str(closed[0])},
                     {**witness, **closed[1]}, CLOSED_METHOD + _pieces_note(closed[1]))
        if res.certificate is not None:
            return res
    run, metric = steps_into_region(p, svec(ep.cov0), P, ell, c, rho, t_max=t_max,
                                    only_c1=only_c1, t_in=t_in)
    if not run.stopped:
        return LimitResult(None, None, f"validated integration did not reach the contraction "
                           f"region ({run.why})")
    return result("limit", {**claim, "t_enter": str(run.t)},
                  {**witness, "order": 24, "prec": 128, "steps": run.witness_steps(),
                   **({"metrics": run.witness_metrics()} if run.switches else {}),
                   **({"metric": metric} if metric != "region" else {})}, STEPS_METHOD)


def _pd(M) -> bool:
    from symgauss.kernel.exact import positive_definite
    return positive_definite(M)[0] is True


def _problem_data(problem) -> dict:
    data = problem.to_dict()
    data.pop("name", None)
    return data
