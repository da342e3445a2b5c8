"""Checker for kind ``"limit"``: Σ(t) converges, proved by validated integration into a region
where the flow contracts (:mod:`symgauss.kernel.flow` holds the mathematics).

Claim: ``regime`` — ``stable-equilibrium`` (Σ* ≻ 0), ``decay`` (Σ* = 0) or ``singular-limit``
(det Σ* = 0) —, ``center`` C, ``radius`` r (every entry of Σ* within r of C; 0 for decay, where
C must be 0), ``rate`` λ, ``t_enter`` T. Witness: the metric ``P`` (n×n) with ``ell`` ≤ λmin(P),
the region's level ``rho``, the Taylor ``order`` and ``prec`` (bits), optional ``metric``
(``region``: the steps measure distances in ‖·‖_P, the default; ``identity``: in ‖·‖_2, converted
at the end by ‖e‖_P ≤ √‖P‖_∞·‖e‖_2), and ``steps``: a list of
{``h``, ``beta``, ``mu``, ``point``} (step, a-priori box radius — one number, or a list of one
per svec coordinate —, log-norm bound, svec of the next point), summing to T. Checks:

1. P − ℓI ≻ 0 (exact); the region E = {‖x − C‖_P² ≤ ρ} contracts at rate λ and ‖F(C)‖_P² < λ²ρ
   (ball arithmetic on the box of radius √(ρ/ℓ) around C; F(C) exact);
2. the steps, from Σ(0) = cov0 exactly, end at c_N with ‖Σ(T) − c_N‖_P ≤ r_N and
   ‖c_N − C‖_P + r_N < √ρ: Σ(T) ∈ E, so Σ(t) → Σ*, the unique equilibrium in E, and
   ‖Σ(t) − Σ*‖_P ≤ e^{−λ(t−T)}‖Σ(T) − Σ*‖_P for t ≥ T;
3. ‖F(C)‖_P² ≤ r²λ²ℓ exactly, so ‖svec(Σ* − C)‖_2 ≤ r;
4. stable-equilibrium: C − (3/2)r·I ≻ 0 (exact; ‖Σ* − C‖_2 ≤ ‖·‖_F ≤ √2 r); decay: C = 0 and
   F(0) = 0; singular-limit: tr M(S) < 0 on the box (M = A + Σ_h V_hSB_h), so
   det Σ(t) = det Σ(T)·exp(2∫tr M) → 0 and det Σ* = 0.

Limits: d ≤ MAX_D, steps ≤ MAX_STEPS, order ≤ MAX_ORDER, prec ≤ MAX_PREC, and the work of the
steps ≤ :data:`symgauss.kernel.flow.MAX_STEP_WORK`.
"""
from __future__ import annotations

import flint

from symgauss.kernel.equations import residual, svec
from symgauss.kernel.exact import eye, norm_inf, positive_definite, require_pd
from symgauss.kernel.flow import Flow, check_steps, contracts, p_norm, require_work, sym_of
from symgauss.kernel.read import rational, short_text
from symgauss.kernel.schema import (
    Field,
    Schema,
    choice,
    integer,
    nonnegative,
    positive,
    raw,
    sym,
)
from symgauss.kernel.verdict import Invalid, NotProved

MAX_D, MAX_STEPS, MAX_ORDER, MIN_PREC, MAX_PREC = 5, 1000, 30, 64, 512
REGIMES = ("stable-equilibrium", "decay", "singular-limit")
SCHEMAS = {"limit": Schema(
    {"regime": Field(choice(*REGIMES)), "center": Field(sym("d")), "radius": Field(nonnegative),
     "rate": Field(positive), "t_enter": Field(nonnegative)},
    {"P": Field(sym("n")), "ell": Field(positive), "rho": Field(positive),
     "order": Field(integer(2, MAX_ORDER)), "prec": Field(integer(MIN_PREC, MAX_PREC)),
     "steps": Field(raw), "metric": Field(choice("region", "identity"), False)},
    "rigorous", {"d": MAX_D})}


def read_steps(value, n: int, where: str = "witness.steps") -> list:
    """[(h > 0, β > 0, μ, point (n rationals))] from the witness."""
    if not isinstance(value, list) or len(value) > MAX_STEPS:
        raise Invalid(f"{where}: expected a list of at most {MAX_STEPS} steps")
    out = []
    for k, st in enumerate(value):
        w = f"{where}[{k}]"
        if not isinstance(st, dict) or set(st) != {"h", "beta", "mu", "point"}:
            raise Invalid(f"{w}: expected exactly the keys h, beta, mu, point")
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
        out.append((h, beta, rational(st["mu"], f"{w}.mu"),
                     [rational(x, f"{w}.point[{i}]") for i, x in enumerate(pt)]))
    return out


def statement(kind, claim, problem) -> str:
    reg, r = claim["regime"], short_text(claim["radius"])
    what = {"stable-equilibrium": "Σ* is positive definite",
            "decay": "Σ* = 0",
            "singular-limit": "Σ* is singular (det Σ* = 0)"}[reg]
    near = "" if reg == "decay" else f", every entry of Σ* within {r} of claim.center"
    return (f"Σ(t) exists for all t ≥ 0 and converges to an equilibrium Σ* as t → ∞{near}; "
            f"{what}; from t = {short_text(claim['t_enter'])} on, ‖Σ(t) − Σ*‖ decays at least "
            f"like e^(−{short_text(claim['rate'])}·t) in a fixed norm")


def check_region(flow, P, ell, rho, C, rate, F_C) -> None:
    """The contraction region E = {‖x − C‖_P² ≤ ρ} (module docstring of :mod:`flow`)."""
    require_pd(P - eye(P.nrows()) * ell, "witness.P − ell·I")
    q = (F_C.transpose() * P * F_C)[0, 0]
    if not q < rate * rate * rho:
        raise NotProved("‖F(center)‖_P² < rate²·rho fails: the region is not proved invariant")
    width = (flint.arb(rho) / flint.arb(ell)).sqrt()
    box = sym_of(svec(C), flow.d, width)
    if not contracts(flint.arb_mat(P), flow.jacobian(box), flint.arb(rate)):
        raise NotProved("the flow is not proved to contract at the claimed rate on the region "
                        "(−(JᵀP + PJ) − 2·rate·P ≻ 0 on its box)")
    return box


def check(kind, claim, witness, problem, ctx) -> None:
    if problem.params is None:
        raise Invalid("limit certificates are for time-invariant parameters (no 'controls')")
    p, d, n = problem.params, problem.d, ctx.n
    steps = read_steps(witness["steps"], n)
    require_work(len(steps), witness["order"], witness["prec"], len(p.heads))
    if sum((h for h, _, _, _ in steps), flint.fmpq(0)) != claim["t_enter"]:
        raise Invalid("the step lengths do not add up to claim.t_enter")
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
    with flint.ctx.workprec(witness["prec"]):
        flow = Flow(p)
        box = check_region(flow, P, ell, rho, C, rate, F_C)
        if reg == "singular-limit":
            M = flow.A
            for V, B in flow.heads:
                M = M + V * box * B
            tr = sum((M[i, i] for i in range(d)), flint.arb(0))
            if not tr < 0:
                raise NotProved("tr(A + Σ_h V_hSB_h) < 0 is not proved on the region, so the "
                                "limit is not proved singular")
        Pa = flint.arb_mat(P)
        if witness.get("metric", "region") == "region":
            end, r_end = check_steps(flow, Pa, ell, svec(problem.cov0), steps, witness["order"])
        else:   # steps in ‖·‖_2, then ‖e‖_P ≤ √λmax(P)·‖e‖_2 ≤ √‖P‖_∞·‖e‖_2
            end, r_end = check_steps(flow, flint.arb_mat(eye(n)), flint.fmpq(1),
                                     svec(problem.cov0), steps, witness["order"])
            r_end = r_end * flint.arb(norm_inf(P)).sqrt()
        gap = [flint.arb(a) - flint.arb(b) for a, b in zip(end, svec(C))]
        if not p_norm(Pa, gap) + r_end < flint.arb(rho).sqrt():
            raise NotProved(f"the enclosure at t = {short_text(claim['t_enter'])} (radius "
                            f"{float(r_end.mid()):.3g} in ‖·‖_P) is not proved inside the region")
