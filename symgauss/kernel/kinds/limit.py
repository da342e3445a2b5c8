"""Checker for kind ``"limit"``: Σ(t) converges, proved by validated integration into a region
where the flow contracts (:mod:`symgauss.kernel.flow` holds the mathematics).

Claim: ``regime`` — ``stable-equilibrium`` (Σ* ≻ 0), ``decay`` (Σ* = 0) or ``singular-limit``
(det Σ* = 0) —, ``center`` C, ``radius`` r (every entry of Σ* within r of C; 0 for decay, where
C must be 0), ``rate`` λ, ``t_enter`` T. Witness: the metric ``P`` (n×n) with ``ell`` ≤ λmin(P),
the region's level ``rho``, the Taylor ``order`` and ``prec`` (bits), optional ``metric``
(``region``: the steps measure distances in ‖·‖_P, the default; ``identity``: in ‖·‖_2, converted
at the end by ‖e‖_P ≤ √‖P‖_∞·‖e‖_2), optional ``metrics`` (changes of metric along the steps,
each proved exactly, ending in ‖·‖_P or ‖·‖_2: :func:`read_switches`), and ``steps``: a list of
{``h``, ``beta``, ``mu``, ``point``} (step, a-priori box radius — one number, or a list of one
per svec coordinate —, log-norm bound, svec of the next point; or a C¹ step, ``nu`` in place of
``mu``: :mod:`symgauss.kernel.steps`), summing to T. Checks:

1. P − ℓI ≻ 0 (exact); the region E = {‖x − C‖_P² ≤ ρ} contracts at rate λ and ‖F(C)‖_P² < λ²ρ
   (ball arithmetic on the box of radii √ρ·√((P⁻¹)_ii) around C, by DF's affine dependence
   as in the steps, :func:`~symgauss.kernel.flow.contracts_box`; F(C) exact or a ball);
2. the steps, from Σ(0) = cov0 exactly, end at c_N with ‖Σ(T) − c_N‖_P ≤ r_N and
   ‖c_N − C‖_P + r_N < √ρ: Σ(T) ∈ E, so Σ(t) → Σ*, the unique equilibrium in E, and
   ‖Σ(t) − Σ*‖_P ≤ e^{−λ(t−T)}‖Σ(T) − Σ*‖_P for t ≥ T;
3. ‖F(C)‖_P² ≤ r²λ²ℓ exactly, so ‖svec(Σ* − C)‖_2 ≤ r;
4. stable-equilibrium: C − (3/2)r·I ≻ 0 (exact; ‖Σ* − C‖_2 ≤ ‖·‖_F ≤ √2 r); decay: C = 0 and
   F(0) = 0; singular-limit: tr M(S) < 0 on the box (M = A + Σ_h V_hSB_h), so
   det Σ(t) = det Σ(T)·exp(2∫tr M) → 0 and det Σ* = 0.

Limits: d ≤ MAX_D, steps ≤ MAX_STEPS, changes of metric ≤ MAX_SWITCHES, order ≤ MAX_ORDER,
prec ≤ MAX_PREC, and the work of the steps (a change of metric counting as one step)
≤ :data:`symgauss.kernel.flow.MAX_STEP_WORK`.
"""
from __future__ import annotations

import flint

from symgauss.kernel.equations import residual, svec
from symgauss.kernel.exact import eye, norm_inf, positive_definite, require_pd
from symgauss.kernel.flow import Flow, contracts_box, p_norm, require_work, slopes, spreads, upper
from symgauss.kernel.read import matrix, rational, short_text
from symgauss.kernel.schema import Field, Schema, choice, integer, nonnegative, positive, raw, sym
from symgauss.kernel.steps import Nu, check_steps
from symgauss.kernel.verdict import Invalid, NotProved

MAX_D, MAX_STEPS, MAX_ORDER, MIN_PREC, MAX_PREC, MAX_SWITCHES = 5, 2000, 30, 64, 512, 64
REGIMES = ("stable-equilibrium", "decay", "singular-limit")
SCHEMAS = {"limit": Schema(
    {"regime": Field(choice(*REGIMES)), "center": Field(sym("d")), "radius": Field(nonnegative),
     "rate": Field(positive), "t_enter": Field(nonnegative)},
    {"P": Field(sym("n")), "ell": Field(positive), "rho": Field(positive),
     "order": Field(integer(2, MAX_ORDER)), "prec": Field(integer(MIN_PREC, MAX_PREC)),
     "steps": Field(raw), "metric": Field(choice("region", "identity"), False),
     "metrics": Field(raw, False)},
    "rigorous", {"d": MAX_D})}


def read_steps(value, n: int, where: str = "witness.steps") -> list:
    """[(h > 0, β > 0, μ, point (n rationals))] from the witness; a C¹ step has ``nu`` > 0 in
    place of ``mu`` and gives :class:`~symgauss.kernel.flow.Nu` (ν) there."""
    if not isinstance(value, list) or len(value) > MAX_STEPS:
        raise Invalid(f"{where}: expected a list of at most {MAX_STEPS} steps")
    out = []
    for k, st in enumerate(value):
        w = f"{where}[{k}]"
        if not isinstance(st, dict) or set(st) not in ({"h", "beta", "mu", "point"},
                                                       {"h", "beta", "nu", "point"}):
            raise Invalid(f"{w}: expected exactly the keys h, beta, mu, point (a log-norm step) "
                          "or h, beta, nu, point (a C¹ step)")
        h, b = rational(st["h"], f"{w}.h"), st["beta"]
        if isinstance(b, list) and len(b) != n:
            raise Invalid(f"{w}.beta: expected one number or a list of {n} (svec)")
        beta = ([rational(x, f"{w}.beta[{i}]") for i, x in enumerate(b)] if isinstance(b, list)
                else rational(b, f"{w}.beta"))
        if h <= 0 or min(beta if isinstance(beta, list) else [beta]) <= 0:
            raise Invalid(f"{w}: h and beta must be positive")
        pt = st["point"]
        if not isinstance(pt, list) or len(pt) != n:
            raise Invalid(f"{w}.point: expected {n} numbers (svec)")
        if "nu" in st:
            nu = rational(st["nu"], f"{w}.nu")
            if nu <= 0:
                raise Invalid(f"{w}.nu must be positive")
            rate = Nu(nu)
        else:
            rate = rational(st["mu"], f"{w}.mu")
        out.append((h, beta, rate, [rational(x, f"{w}.point[{i}]") for i, x in enumerate(pt)]))
    return out


def step_counts(steps) -> tuple:
    """(log-norm steps, C¹ steps) in a list from :func:`read_steps`."""
    c1 = sum(1 for _, _, m, _ in steps if isinstance(m, Nu))
    return len(steps) - c1, c1


def read_timed_steps(witness, n: int, heads: int, t_enter, d: int) -> list:
    """``witness.steps`` (:func:`read_steps`, n coordinates, d×d matrices) within the work
    budget — a change of metric in ``metrics`` costing about one step — and adding up to
    ``t_enter`` (else Invalid)."""
    steps = read_steps(witness["steps"], n)
    metrics = witness.get("metrics", [])
    if not isinstance(metrics, list):   # refused before any region is checked (read_switches)
        raise Invalid(f"witness.metrics: expected a list of at most {MAX_SWITCHES} metric changes")
    plain, c1 = step_counts(steps)
    require_work(d, heads, witness["order"], witness["prec"], plain + len(metrics), c1=c1)
    if sum((h for h, _, _, _ in steps), flint.fmpq(0)) != t_enter:
        raise Invalid("the step lengths do not add up to claim.t_enter")
    return steps


def read_switches(value, n: int, P0, n_steps: int, where: str = "witness.metrics") -> tuple:
    """({k: (P fmpq_mat, ell, κ)}, the last metric) from a list of at most MAX_SWITCHES
    {``at`` k, ``P``, ``ell``, ``kappa``}, k increasing in 0..n_steps: before step k the steps
    measure in ‖·‖_P. Proved exactly: P − ell·I ≻ 0 and κ²·P_prev − P ≻ 0 (P_prev the metric
    before, P0 at first), so ‖x‖_P ≤ κ‖x‖_P_prev (:func:`symgauss.kernel.steps.check_steps`)."""
    if not isinstance(value, list) or len(value) > MAX_SWITCHES:
        raise Invalid(f"{where}: expected a list of at most {MAX_SWITCHES} metric changes")
    out, prev, last = {}, P0, -1
    for i, sw in enumerate(value):
        w = f"{where}[{i}]"
        if not isinstance(sw, dict) or set(sw) != {"at", "P", "ell", "kappa"}:
            raise Invalid(f"{w}: expected exactly the keys at, P, ell, kappa")
        k = rational(sw["at"], f"{w}.at")
        if k.q != 1 or not last < k <= n_steps:
            raise Invalid(f"{w}.at: expected an integer step index above the previous one, at "
                          f"most {n_steps}")
        P = matrix(sw["P"], f"{w}.P", n, n)
        if P.transpose() != P:
            raise Invalid(f"{w}.P is not symmetric")
        ell, kappa = rational(sw["ell"], f"{w}.ell"), rational(sw["kappa"], f"{w}.kappa")
        if ell <= 0 or kappa <= 0:
            raise Invalid(f"{w}: ell and kappa must be positive")
        require_pd(P - eye(n) * ell, f"{w}.P − ell·I")
        require_pd(prev * (kappa * kappa) - P, f"{w}: kappa²·(the metric before) − P")
        last = int(k.p)
        out[last] = (P, ell, kappa)     # exact: its balls are made at the steps' precision
        prev = P
    return out, prev


def steps_in_region_metric(flow, P, ell, start, steps, witness, n: int, visit=None) -> tuple:
    """(c_N, r_N) with ‖x(T) − c_N‖_P ≤ r_N for the region's metric P: the steps start in ‖·‖_P
    (``metric`` ``region``, the default) or ‖·‖_2 (``identity``), change metric as
    ``metrics`` says (:func:`read_switches`), and end in ‖·‖_P, or in ‖·‖_2 converted by
    ‖e‖_P ≤ √λmax(P)·‖e‖_2 ≤ √‖P‖_∞·‖e‖_2."""
    P0, ell0 = (P, ell) if witness.get("metric", "region") == "region" else (eye(n), 1)
    switches, P_end = read_switches(witness.get("metrics", []), n, P0, len(steps))
    end, r_end = check_steps(flow, flint.arb_mat(P0), flint.fmpq(ell0), start, steps,
                             witness["order"], visit=visit, switches=switches)
    if P_end == P:
        return end, r_end
    if P_end == eye(n):
        return end, r_end * flint.arb(norm_inf(P)).sqrt()
    raise Invalid("witness.metrics: the steps must end in the region's metric P or in ‖·‖_2")


def statement(kind, claim, problem) -> str:
    reg, r = claim["regime"], short_text(claim["radius"])
    what = {"stable-equilibrium": "Σ* is positive definite",
            "decay": "Σ* = 0",
            "singular-limit": "Σ* is singular (det Σ* = 0)"}[reg]
    near = "" if reg == "decay" else f", every entry of Σ* within {r} of claim.center"
    return (f"Σ(t) exists for all t ≥ 0 and converges to an equilibrium Σ* as t → ∞{near}; "
            f"{what}; from t = {short_text(claim['t_enter'])} on, ‖Σ(t) − Σ*‖ decays at least "
            f"like e^(−{short_text(claim['rate'])}·t) in a fixed norm")


def check_region(flow, P, ell, rho, c, rate, F_C) -> None:
    """The contraction region E = {‖x − c‖_P² ≤ ρ} (module docstring of :mod:`flow`; c the
    centre's svec, or the coordinates of another field with :class:`Flow`'s methods; F_C = F(c)
    as an exact or a ball column). Returns the box that holds E."""
    require_pd(P - eye(P.nrows()) * ell, "witness.P − ell·I")
    q = (F_C.transpose() * (P if isinstance(F_C, flint.fmpq_mat) else flint.arb_mat(P))
         * F_C)[0, 0]
    if not q < rate * rate * rho:
        raise NotProved("‖F(center)‖_P² < rate²·rho fails: the region is not proved invariant")
    Pa = flint.arb_mat(P)
    radii = [upper(flint.arb(rho).sqrt() * s) for s in spreads(Pa, ell)]
    if not contracts_box(flow, Pa, c, radii, flint.arb(rate), slopes(flow, Pa)):
        raise NotProved("the flow is not proved to contract at the claimed rate on the region "
                        "(−(JᵀP + PJ) − 2·rate·P ≻ 0 on its box)")
    return flow.box(c, [flint.arb(r) for r in radii])


def check_target(claim, witness, p, d: int, n: int) -> Flow:
    """Checks 1, 3 and 4 of the module docstring (the region, and what it says of Σ*), at the
    current precision; returns the flow, for check 2 (how Σ(t_enter) is enclosed differs by
    kind: steps here, the closed form in :mod:`symgauss.kernel.kinds.limit_closed`)."""
    C, r, rate, reg = claim["center"], claim["radius"], claim["rate"], claim["regime"]
    if reg == "decay" and (C != C * 0 or r != 0):
        raise Invalid("decay: claim.center must be 0 and claim.radius 0")
    P, ell, rho = witness["P"], witness["ell"], witness["rho"]
    F_C = flint.fmpq_mat(n, 1, svec(residual(p, C)))
    if not (F_C.transpose() * P * F_C)[0, 0] <= r * r * rate * rate * ell:
        raise NotProved("‖F(center)‖_P² ≤ radius²·rate²·ell fails: the radius is not proved")
    if reg == "stable-equilibrium":
        ok, why = positive_definite(C - eye(d) * (r * 3 / 2))
        if not ok:
            raise NotProved(f"center − (3/2)·radius·I is not proved positive definite ({why})")
    flow = Flow(p)
    box = check_region(flow, P, ell, rho, svec(C), rate, F_C)
    if reg == "singular-limit" and not (flow.A + flow.attention(box)).trace() < 0:
        raise NotProved("tr(A + Σ_h V_hSB_h) < 0 is not proved on the region, so the "
                        "limit is not proved singular")
    return flow


def require_entry(claim, witness, end, r_end, how: str) -> None:
    """Check 2's end: ‖end − C‖_P + r_end < √ρ (``end`` balls or rationals, ``how`` says what
    enclosed Σ(t_enter))."""
    gap = [flint.arb(a) - flint.arb(b) for a, b in zip(end, svec(claim["center"]))]
    if not p_norm(flint.arb_mat(witness["P"]), gap) + r_end < flint.arb(witness["rho"]).sqrt():
        raise NotProved(f"the enclosure at t = {short_text(claim['t_enter'])} ({how}) is not "
                        "proved inside the region")


def check(kind, claim, witness, problem, ctx) -> None:
    if problem.params is None:
        raise Invalid("limit certificates are for time-invariant parameters (no 'controls')")
    p, n = problem.params, ctx.n
    steps = read_timed_steps(witness, n, len(p.heads), claim["t_enter"], problem.d)
    with flint.ctx.workprec(witness["prec"]):
        flow = check_target(claim, witness, p, problem.d, n)
        end, r_end = steps_in_region_metric(flow, witness["P"], witness["ell"],
                                            svec(problem.cov0), steps, witness, n)
        require_entry(claim, witness, end, r_end,
                      f"radius {float(r_end.mid()):.3g} in ‖·‖_P")
