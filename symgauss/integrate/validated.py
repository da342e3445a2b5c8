"""Validated integration of eq. 1.1 on Sym(d): steps that the kernel re-checks one by one.

Untrusted search: this module *proposes* each step (step length h, a-priori box radius β,
log-norm bound μ, the next point) and keeps it only when the kernel's own step check
:func:`symgauss.kernel.flow.step` accepts it, so a trajectory built here is one the checker
accepts. The method (a Taylor series from an exact rational point, the Lagrange remainder from
an a-priori box, and the distance to the true solution carried by a logarithmic norm in a
weighted norm ‖x‖_P — wrapping-free, since every step restarts from a point) is described in
:mod:`symgauss.kernel.flow`.

>>> from symgauss.kernel.read import read_problem
>>> p = read_problem({"cov0": [[1]], "A": [[1]], "V": [[-1]], "B": [[1]]})
>>> import flint, math
>>> run = integrate(p.params, [flint.fmpq(1, 4)], flint.fmpq_mat([[1]]), flint.fmpq(1),
...                 lambda c, r: False, t_max=2)
>>> t, x = float(run.t), float(run.points[-1][0])     # σ' = 2σ − 2σ²: σ = 1/(1 + 3e^(−2t))
>>> t >= 2, abs(x - 1 / (1 + 3 * math.exp(-2 * t))) < 1e-12, float(run.radius.mid()) < 1e-12
(True, True, True)
"""
from __future__ import annotations

import math
import threading
import warnings
from dataclasses import dataclass, field

import flint

from symgauss.kernel.flow import (
    MAX_STEP_WORK,
    Flow,
    box_center,
    contracts,
    slopes,
    spreads,
    step,
    step_work,
    tube_slack,
    upper,
    widening,
)
from symgauss.kernel.kinds.limit import MAX_SWITCHES
from symgauss.kernel.steps import Nu
from symgauss.kernel.verdict import NotProved

#: significant digits of the points written to a certificate
POINT_DIGITS = 30
#: :func:`integrate`'s default Taylor order and working precision (bits)
ORDER, PREC = 24, 128


def step_budget(d: int, heads: int, prec: int = PREC, kind: str = "taylor") -> int:
    """How many steps of :func:`integrate`'s default order at ``prec`` bits the kernel's work
    limit lets one certificate hold (:func:`symgauss.kernel.flow.step_work`; the kernel also
    reads at most MAX_STEPS steps in one list)."""
    return MAX_STEP_WORK // step_work(d, heads, ORDER, prec, kind)


@dataclass
class Run:
    """A validated trajectory: ``steps`` [(h, β, μ, point)], its end point and radius."""
    steps: list
    points: list
    radius: object      # arb: ‖Σ(t) − points[-1]‖_P ≤ radius
    t: object           # fmpq: the end time
    stopped: bool       # the stop condition held at the end
    texts: list = None  # the points as written (decimal text, exactly the rationals)
    why: str = ""
    switches: list = field(default_factory=list)  # [(k, P, ell, κ)]: before step k, ‖·‖_P

    def truncate(self, k: int) -> "Run":
        """The first k steps (the radius is not kept: recompute it with the kernel)."""
        t = sum((h for h, _, _, _ in self.steps[:k]), flint.fmpq(0))
        return Run(self.steps[:k], self.points[:k + 1], None, t, True, self.texts[:k],
                   switches=[sw for sw in self.switches if sw[0] < k])

    def witness_steps(self) -> list:
        return [{"h": str(h), "beta": [_dec(x) for x in b] if isinstance(b, list) else _dec(b),
                 **({"nu": _long_dec(m.value, 12)} if isinstance(m, Nu) else {"mu": _dec(m)}),
                 "point": list(texts)}
                for (h, b, m, _), texts in zip(self.steps, self.texts)]

    def witness_metrics(self) -> list:
        """The metric changes, as the kernel's ``metrics`` keys read them."""
        return [{"at": k, "P": [[str(P[i, j]) for j in range(P.ncols())]
                                for i in range(P.nrows())],
                 "ell": str(ell), "kappa": str(kappa)} for k, P, ell, kappa in self.switches]


def _dec(x: flint.fmpq) -> str:
    """Exact text of a rational with a power-of-ten denominator (from :func:`_simple`)."""
    return "0" if x == 0 else _long_dec(x, 3)


def _long_dec(x: flint.fmpq, digits: int) -> str:
    """x rounded to ``digits`` significant decimal digits, as text (exact-rational decimal)."""
    neg = x < 0
    x = abs(x)
    e = int(math.floor(math.log10(float(x)))) if float(x) > 0 else 0
    k = digits - 1 - e
    scaled = x * flint.fmpq(10) ** k if k >= 0 else x / flint.fmpq(10) ** (-k)
    m = int(((scaled * 2 + 1) / 2).floor())
    return ("-" if neg else "") + f"{m}e{-k}"


def _round(v: flint.arb, digits: int = POINT_DIGITS) -> tuple:
    """(rational, its text): the midpoint of v to ``digits`` significant digits."""
    x = _mid_fmpq(v)
    text = "0" if x == 0 else _long_dec(x, digits)
    return flint.fmpq(*_frac(text)) if x != 0 else flint.fmpq(0), text


def _frac(text: str):
    m, e = text.split("e")
    e = int(e)
    return (int(m) * 10 ** e, 1) if e >= 0 else (int(m), 10 ** (-e))


def _mid_fmpq(v: flint.arb) -> flint.fmpq:
    man, exp = v.mid().man_exp()
    return flint.fmpq(int(man) * 2 ** int(exp)) if exp >= 0 else flint.fmpq(int(man), 2 ** int(-exp))


def _simple(x: float) -> flint.fmpq:
    """A rational with a short text near x > 0 (3 significant digits)."""
    e = math.floor(math.log10(x))
    m = round(x / 10 ** (e - 2))
    return flint.fmpq(m * 10 ** (e - 2)) if e >= 2 else flint.fmpq(m, 10 ** (2 - e))


class Pace:
    """Where a run's next step is first tried, as a fraction of h0·safety: the fraction that
    made the last step, or twice it after a step made at the first try (at most 1). Where the
    a-priori box needs steps far below the series' own scale (seed-801 two-heads-42-d3: every
    compactified step needed h/64, so each cost seven validations), the run stops paying for
    the same failed tries at every step. Not for ``shrink_box`` runs: their shortenings are
    relative to the step tried, so that a pace would compound them."""

    #: the least fraction: as deep as twelve halvings from h0·safety reach
    FLOOR = 2.0 ** -11

    def __init__(self):
        self.scale = 1.0

    def made(self, tries: int) -> None:
        self.scale = min(1.0, self.scale * 2) if tries == 1 else \
            max(self.FLOOR, self.scale / 2 ** (tries - 1))


def shortened_step(flow, co, order: int, digits: int, h: float, a0: float, tol: float, r,
                   validate, pace: Pace | None = None):
    """The first of h, h/2, h/4, … (12 tries; h at most 10⁶) that makes a step: the next point
    is the Taylor polynomial ``co`` at H = _simple(h), rounded to ``digits`` significant
    digits; ``validate(H, point)`` returns (β, rate, r', growth) once the kernel accepts the
    step (NotProved otherwise), and a step whose local error r' − growth·r passes
    tol·max(1, a0) is shortened too, down to 10⁻³·h. With a ``pace`` the tries start at
    h·pace.scale (the floor stays 10⁻³·h), and the pace learns from this step. (H, the rounded
    point as (rational, text) pairs, β, rate, r'), or None."""
    floor, h = 1e-3 * h, min(h, 1e6)
    if pace is not None:
        h *= pace.scale
    for tries in range(1, 13):
        H = _simple(h)
        rounded = [_round(v, digits) for v in flow.coords(_horner(co, flint.arb(H), order))]
        try:
            B, rate, r_new, growth = validate(H, [x for x, _ in rounded])
            if float(r_new.mid()) - growth * float(r.mid()) > tol * max(1.0, a0) and h > floor:
                raise NotProved("local error over the tolerance")
            if pace is not None:
                pace.made(tries)
            return H, rounded, B, rate, r_new
        except NotProved:
            h /= 2
    return None


def taylor_scale(flow, c, order: int) -> tuple:
    """(the Taylor coefficients at c, the size a0 of c, h0): h0 the step at which the last two
    coefficients reach a0, the radius of convergence as the series sees it; steps are h0 times
    a safety factor."""
    co = flow.taylor(flow.box(c), order)
    a0 = max(_mag(flow, co[0]), 1e-12)
    return co, a0, min((a0 / max(_mag(flow, co[j]), 1e-300)) ** (1.0 / j)
                       for j in (order - 1, order))


def _mag(flow, S) -> float:
    return max(abs(float(v.mid())) + float(v.rad()) for v in flow.coords(S)) or 1e-300


def _mu_guess(P_np, J) -> tuple:
    """(μ at the midpoint matrix, a crude bound over the ball matrix J) in the metric P."""
    import numpy as np
    from scipy.linalg import eigh
    n = J.nrows()
    Jm = _floats_mid(J)
    Jr = np.array([[float(J[i, j].rad()) for j in range(n)] for i in range(n)])
    S = (Jm.T @ P_np + P_np @ Jm) / 2
    mu = float(eigh(S, P_np, eigvals_only=True)[-1])
    lmin = float(np.linalg.eigvalsh(P_np)[0])
    return mu, mu + np.linalg.norm(Jr) * np.linalg.norm(P_np, 2) / lmin * 1.01 + 1e-12


def significant(x: float, digits: int = 10) -> flint.fmpq:
    """x to ``digits`` significant digits, as an exact rational."""
    if x == 0 or not math.isfinite(x):
        return flint.fmpq(0)
    e = math.floor(math.log10(abs(x))) - digits + 1
    m = round(x / 10 ** e)
    return flint.fmpq(m * 10 ** e) if e >= 0 else flint.fmpq(m, 10 ** (-e))


def _kappa(P_from, P_to) -> flint.fmpq:
    """A short rational κ with κ²·P_from − P_to ≻ 0, proved exactly as the kernel does
    (:func:`symgauss.kernel.kinds.limit.read_switches`), or None."""
    from scipy.linalg import eigh

    from symgauss.kernel.exact import positive_definite
    top = float(eigh(_floats(P_to), _floats(P_from), eigvals_only=True)[-1])
    for slack in (1e-6, 1e-4, 1e-2):
        kappa = _simple_signed(math.sqrt(top * (1 + slack)), 6)
        if positive_definite(P_from * (kappa * kappa) - P_to)[0] is True:
            return kappa
    return None


def _floats(M):
    """The rational matrix M as a numpy array."""
    import numpy as np
    return np.array([[float(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())])


def lyapunov(L, gamma):
    """The solution P of (L + γI)ᵀP + P(L + γI) = −I (floats, symmetrised)."""
    import numpy as np
    from scipy.linalg import solve_continuous_lyapunov
    n = L.shape[0]
    P = solve_continuous_lyapunov((L + gamma * np.eye(n)).T, -np.eye(n))
    return (P + P.T) / 2


#: the compiled SDPs of :func:`_conditioning_sdp`, one set per thread (a dask worker may run
#: several problems side by side in threads, and a cvxpy problem holds its parameter's value)
_SDPS = threading.local()


def _conditioning_sdp(n: int):
    """(problem, P, M): :func:`conditioned_lyapunov`'s SDP for n×n, with M = L + γI a cvxpy
    Parameter, so that cvxpy compiles it once per n and thread (DPP) instead of at every change
    of metric (170 compilations, 3.7 s of seed-801 two-heads-42-d3's 43 s)."""
    import cvxpy as cp
    import numpy as np
    cache = _SDPS.__dict__.setdefault("by_n", {})
    if n not in cache:
        P, t, M = cp.Variable((n, n), symmetric=True), cp.Variable(), cp.Parameter((n, n))
        cache[n] = (cp.Problem(cp.Minimize(t), [P >> np.eye(n), P << t * np.eye(n),
                                                M.T @ P + P @ M << 0]), P, M)
    return cache[n]


def conditioned_lyapunov(L, gamma):
    """P ≻ 0 with (L + γI)ᵀP + P(L + γI) ⪯ 0 and the least condition number (an SDP: I ⪯ P ⪯ tI,
    minimise t; cvxpy + Clarabel), scaled to λmax = 1; or None if the solver fails. An
    ill-conditioned metric widens every box the kernel bounds DF on: the Lyapunov solution with
    right-hand side −I can be 10–1000× worse conditioned."""
    import cvxpy as cp
    import numpy as np
    n = L.shape[0]
    problem, P, M = _conditioning_sdp(n)
    M.value = L + gamma * np.eye(n)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # an inaccurate solution is refused below
            # a fresh Clarabel solver each time: an updated one keeps the last solve's internal
            # state, and the metric would depend on which problems ran before in the process
            problem.solve(solver="CLARABEL", warm_start=False)
    except cp.error.SolverError:
        return None
    if problem.status != "optimal" or P.value is None:
        return None
    Pf = (P.value + P.value.T) / 2
    return Pf / float(np.linalg.eigvalsh(Pf)[-1])


def local_metric(J, P_from, conditioned: bool = True):
    """(P, ell, κ, μ): a metric in which the midpoint of the ball matrix J = DF(c) has log-norm
    μ = α + ε (α its spectral abscissa; P the least-conditioned solution of (J − μI)ᵀP +
    P(J − μI) ⪯ 0 with ε = max(0.3, |α|/4), :func:`conditioned_lyapunov`, or else the solution of
    (J − μI)ᵀP + P(J − μI) = −I with ε = max(0.05, |α|/4)), scaled so that
    ‖x‖_P ≤ ‖x‖_{P_from} up to the proved κ ≈ 1; or None (no exact κ, or P not ≻ ell·I).
    ``conditioned=False``: the −I solution only."""
    import numpy as np
    from scipy.linalg import eigh

    from symgauss.kernel.exact import eye, positive_definite
    n = J.nrows()
    Jm = _floats_mid(J)
    if not np.all(np.isfinite(Jm)):
        return None
    alpha = float(max(np.linalg.eigvals(Jm).real))
    # the least-conditioned metric with some margin: an ill-conditioned one makes μ on the next
    # steps' boxes sensitive to how DF changes along them; else the −I Lyapunov solution
    mu = alpha + max(0.3, 0.25 * abs(alpha))
    Pf = conditioned_lyapunov(Jm, -mu) if conditioned else None
    if Pf is None:
        mu = alpha + max(0.05, 0.25 * abs(alpha))
        Pf = lyapunov(Jm, -mu)
    try:
        Pf = Pf / float(eigh(Pf, _floats(P_from), eigvals_only=True)[-1])
    except np.linalg.LinAlgError:
        return None
    P = flint.fmpq_mat(n, n, [significant(Pf[max(i, j), min(i, j)]) for i in range(n)
                              for j in range(n)])
    lmin = float(np.linalg.eigvalsh(Pf)[0])
    if not lmin > 0:
        return None
    ell = significant(lmin * 0.99, 3)
    kappa = _kappa(P_from, P)
    if kappa is None or positive_definite(P - eye(n) * ell)[0] is not True:
        return None
    return P, ell, kappa, mu


def _least_mu(Pa, P_np, J, accepts) -> flint.fmpq:
    """A short rational μ that ``accepts(μ)`` (the kernel's log-norm test on the box), near the
    least one: geometric steps up from the midpoint's μ (then the crude bound of the ball
    matrix J), then bisection."""
    lo, hi = _mu_guess(P_np, J)
    best, unit = None, abs(lo) + 0.1
    for k in range(-6, 12):
        cand = _simple_signed(lo + unit * 2.0 ** k)
        if accepts(cand):
            best = cand
            break
        lo = max(lo, float(cand))
    if best is None:
        for k in range(6):
            mu = _simple_signed(hi + (abs(hi) + 0.1) * (0.02 * 3 ** k - 0.02))
            if accepts(mu):
                return mu
        return mu
    for _ in range(6):
        if float(best) - lo < 1e-3 * (abs(lo) + 1e-3):
            break
        mid = (lo + float(best)) / 2
        cand = _simple_signed(mid)
        if cand < best and accepts(cand):
            best = cand
        else:
            lo = mid
    return best


def integrate(params, start, P, ell, stop, *, t_max, order: int = ORDER, prec: int = PREC,
              max_steps: int = 600, safety: float = 0.12, tol: float = 1e-15, stop_time=None,
              shrink_box: bool = False, flow=None, radius=None,
              digits: int = POINT_DIGITS, adapt: int = 0, on_metric=None,
              max_switches: int = MAX_SWITCHES) -> Run:
    """Validated steps from the exact svec ``start`` until ``stop(point, radius)`` (or
    ``stop_time(point, radius, t)``) holds, or ``t_max``.

    ``params`` are exact (kernel) parameters; P ≻ 0 (fmpq_mat) with λmin(P) ≥ ell the metric.
    Every step is accepted by :func:`symgauss.kernel.flow.step`; a step that cannot be
    validated is retried shorter, and after 12 retries the run stops (``why`` says where). Each
    step is first tried where the last one was made (:class:`Pace`), except with ``shrink_box``.
    ``shrink_box``: also shorten a step (up to 3 times) while the log-norm the kernel accepts on
    its a-priori box is far above the one at the point (an ill-conditioned P amplifies the
    box's spread); more, shorter steps, for the convergence search. ``flow``: another field with
    the five methods of :class:`~symgauss.kernel.flow.Flow` (default eq. 1.1 for ``params``);
    ``radius``: the start is only known within this ‖·‖_P-distance of ``start``; ``digits``:
    significant digits of the points (with ``prec`` bits, their rounding is the local error).
    ``adapt`` k > 0: every k steps, change to a metric that follows the solution (local
    metrics at the current point, or back to P; :func:`_switch`) when the log-norm gained over
    the time DF takes to change outweighs the cost of the change (½ ln of the condition number
    between the two metrics);
    ``stop`` then sees the radius converted back to ‖·‖_P (a float factor: the run ends with an
    exact change back to P), unless ``on_metric`` is given: it is called with (P', ell') at each
    change, ``stop`` sees the radius in the current metric, and the run ends in it; at most
    ``max_switches`` changes (the last one kept for the change back).
    """
    P_np = _floats(P)
    steps, points, texts = [], [list(start)], []
    t = flint.fmpq(0)
    with flint.ctx.workprec(prec):
        flow, Pa = flow or Flow(params), flint.arb_mat(P)
        c, r, spread, slope = list(start), flint.arb(0) if radius is None else upper(radius), \
            spreads(Pa, ell), slopes(flow, Pa)
        cur, switches, back, ell0, J_before = P, [], flint.arb(1), ell, None
        pace = None if shrink_box else Pace()
        while True:
            rs = r * back if on_metric is None else r
            if (stop is not None and stop(c, rs)) or (stop_time is not None and
                                                      stop_time(c, rs, t)):
                if cur is not P and on_metric is None:
                    kappa = _kappa(cur, P)
                    if kappa is None:
                        return Run(steps, points, r, t, False, texts, "no exact change back to "
                                   "the metric P", switches)
                    # ell only bounds λmin(P) from below: 99/100 of it keeps P − ell·I ≻ 0
                    switches.append((len(steps), P, ell0 * flint.fmpq(99, 100), kappa))
                    r = upper(r * flint.arb(kappa))
                return Run(steps, points, r, t, True, texts, switches=switches)
            if adapt and len(steps) % adapt == 0 and len(switches) < max_switches - 1:
                new, J_before = _switch(flow, c, cur, P_np, steps[-adapt:],
                                        (P, ell0 * flint.fmpq(99, 100)), J_before)
                if new is not None:
                    cur, ell, kappa, P_np = new
                    Pa = flint.arb_mat(cur)
                    switches.append((len(steps), cur, ell, kappa))
                    r = upper(r * flint.arb(kappa))
                    spread, slope = spreads(Pa, ell), slopes(flow, Pa)
                    back = flint.arb(1) if cur is P else flint.arb(
                        float(_kappa(cur, P) or math.inf))
                    if on_metric is not None:
                        on_metric(cur, ell)
            if float(t) >= t_max or len(steps) >= max_steps:
                return Run(steps, points, r, t, False, texts,
                           f"stopped at t = {float(t):.4g} after {len(steps)} steps", switches)
            co, a0, h0 = taylor_scale(flow, c, order)
            mu_point = _mu_guess(P_np, flow.jacobian(flow.box(c)))[0]
            shrink = 0

            def validate(H, nxt, co=co):
                nonlocal shrink
                B = _box(flow, c, r, spread, H)
                centre = box_center(flow, c, H)
                J = flow.jacobian(flow.box(centre, [flint.arb(b) for b in B]))
                # the kernel's affine test (flow.contracts_box) with DF at the centre once
                Jc = flow.jacobian(flow.box(centre))
                widen = widening(flow, Pa, centre, B, slope) / 2
                if widen.is_finite():
                    mu = _least_mu(Pa, P_np, J, lambda m, Jc=Jc, widen=widen, Pa=Pa:
                                   contracts(Pa, Jc, widen - flint.arb(m)))
                else:   # no slopes: the kernel's fallback, the interval matrix DF(box)
                    mu = _least_mu(Pa, P_np, J, lambda m, J=J, Pa=Pa: contracts(
                        Pa, J, -flint.arb(m)))
                if float(mu) - mu_point > 0.5 + 0.25 * abs(mu_point) and shrink < 3 and \
                        shrink_box and float(r.mid()) > 0:
                    shrink += 1     # the box's spread dominates the log-norm: shorter
                    raise NotProved("log-norm on the box far above the point's")
                r_new = step(flow, Pa, ell, c, r, H, B, mu, nxt, order, spread, slope,
                             point=co[:order])
                return B, mu, r_new, math.exp(min(float(mu) * float(H), 700))
            found = shortened_step(flow, co, order, digits, h0 * safety, a0, tol, r, validate,
                                   pace)
            if found is None:
                return Run(steps, points, r, t, False, texts,
                           f"no step could be validated at t = {float(t):.4g}", switches)
            H, rounded, B, mu, r_new = found
            nxt = [x for x, _ in rounded]
            steps.append((H, B, mu, nxt))
            points.append(nxt)
            texts.append([tx for _, tx in rounded])
            c, r, t = nxt, r_new, t + H


#: how many times the last k steps' length a change of metric is expected to serve, at least
HORIZON = 4
#: ... and at most this many times, when DF changes slowly along the solution
LONG_HORIZON = 50


def _switch(flow, c, P_cur, P_np, recent, home, J_before):
    """((P', ell', κ, P' as floats) or None, DF's midpoint at c as floats): a change of metric
    when one pays. The candidates are :func:`local_metric` at c, the −I Lyapunov metric of DF(c)
    with a small margin (near an equilibrium the SDP's margin of 0.3 can hide a contraction) and
    ``home`` = (P, ell), the run's own metric. A candidate with point log-norm μ' pays when
    (μ − μ')·horizon beats its cost ½ ln cond(P_cur⁻¹P') + ln(κ/√λmax(P_cur⁻¹P')) + ½, where μ
    is the log-norm accepted over the last k steps (at the start: the point log-norm) and the
    horizon is the time over which DF changes by about itself (from ``J_before``, DF at the
    previous consideration), between HORIZON and LONG_HORIZON × the last k steps' length."""
    import numpy as np
    from scipy.linalg import eigh
    J = flow.jacobian(flow.box(c))
    Jm = _floats_mid(J)
    if not np.all(np.isfinite(Jm)):
        return None, None
    span = sum(float(h) for h, _, _, _ in recent) if recent else 1.0
    horizon = HORIZON * span
    if J_before is not None and recent:
        change = np.linalg.norm(Jm - J_before) / max(np.linalg.norm(Jm), 1e-300)
        horizon = max(horizon, span * min(LONG_HORIZON, 1 / max(change, 1e-300)))
    mu_now = max(float(m) for _, _, m, _ in recent) if recent else _mu_guess(P_np, J)[0]
    candidates = [local_metric(J, P_cur), local_metric(J, P_cur, conditioned=False)]
    if home is not None and home[0] is not P_cur:
        kappa = _kappa(P_cur, home[0])
        if kappa is not None:
            candidates.append((home[0], home[1], kappa, _mu_guess(_floats(home[0]), J)[0]))
    best, gain = None, 0.5
    for found in candidates:
        if found is None:
            continue
        P, ell, kappa, mu_new = found
        Pf = _floats(P)
        w = eigh(Pf, P_np, eigvals_only=True)
        cost = 0.5 * math.log(w[-1] / w[0]) + math.log(float(kappa) / math.sqrt(w[-1]))
        if (mu_now - mu_new) * horizon - cost > gain:
            best, gain = (P, ell, kappa, Pf), (mu_now - mu_new) * horizon - cost
    return best, Jm


def _floats_mid(J):
    """The midpoints of the ball matrix J as a numpy array."""
    import numpy as np
    return np.array([[float(J[i, j].mid()) for j in range(J.ncols())] for i in range(J.nrows())])


def _box(flow, c, r, spread, H) -> list:
    """Radii β_i (one per svec coordinate) of an a-priori box for a step of length H from c
    (radius r in the metric whose :func:`~symgauss.kernel.flow.spreads` are ``spread``) that the
    tube test accepts, grown where it fails; NotProved when none is found."""
    rr = [flint.arb(float(upper(r * s).mid()) * 1.01) for s in spread]
    centre = box_center(flow, c, H)
    drift = [abs(float(f.mid())) for f in flow.coords(flow.field(flow.box(c)))]
    scale = max(drift) * float(H) * 1e-3 + 1e-40
    beta = [0.6 * float(H) * f + float(q.mid()) + scale for f, q in zip(drift, rr)]
    for _b in range(8):
        if not all(math.isfinite(b) and b < 1e50 for b in beta):
            break
        B = [_simple(b) for b in beta]
        slack = tube_slack(flow, c, rr, flint.arb(H), flow.box(centre, [flint.arb(b) for b in B]),
                           B)
        if all(v > 0 for v in slack):
            return B
        beta = [b if v > 0 else max((b - float(v.mid()) + float(v.rad())) * 1.2, b * 1.1)
                for b, v in zip(beta, slack)]
    raise NotProved("no a-priori box")


def _simple_signed(x: float, digits: int = 3) -> flint.fmpq:
    """A rational ≥ x with ``digits`` significant digits (rounded up)."""
    if x == 0:
        return flint.fmpq(0)
    e = math.floor(math.log10(abs(x))) - digits + 1
    m = math.ceil(x / 10 ** e)
    return flint.fmpq(m * 10 ** e) if e >= 0 else flint.fmpq(m, 10 ** (-e))


def _horner(co, H, order):
    T = co[order - 1]
    for j in range(order - 2, -1, -1):
        T = T * H + co[j]
    return T
