"""Checker for kind ``"limit-riccati"`` (exact): Σ(t) exists for all t ≥ 0 and converges to a
positive-definite equilibrium Σ*, when every V_h = v_h I, from the linear equation for Σ⁻¹.

With R = Σ_h v_h(B_h + B_hᵀ), eq. 1.1 is Σ' = AΣ + ΣAᵀ + ΣRΣ, and while Σ ≻ 0, P = Σ⁻¹ obeys
the linear equation P' = −AᵀP − PA − R. Let P* = Σ*⁻¹ solve AᵀP* + P*A + R = 0 (Σ* is then an
equilibrium); Δ = P0 − P* (P0 = Σ0⁻¹). Then P(t) = P* + e^{−Aᵀt}Δe^{−At} for all t ≥ 0 (a
linear equation: no blow-up). With Q ≻ 0 and AᵀQ + QA ⪰ r·Q (r = claim.rate > 0), y = e^{−At}x
has (yᵀQy)' = −yᵀ(AᵀQ + QA)y ≤ −r·yᵀQy, so yᵀQy ≤ e^{−rt}xᵀQx. With μ ≥ 0, Δ + μQ ⪰ 0 and
P* − μQ ≻ 0:

    xᵀP(t)x = xᵀP*x + yᵀΔy ≥ xᵀP*x − μ·yᵀQy ≥ xᵀ(P* − μQ)x > 0  (x ≠ 0),

so P(t) ≻ 0 for every t ≥ 0: Σ(t) = P(t)⁻¹ exists for all t ≥ 0 (it solves eq. 1.1, and the
solution is unique). And |yᵀΔy| ≤ ‖Δ‖_Q·yᵀQy ≤ ‖Δ‖_Q·e^{−rt}xᵀQx, so P(t) → P* and
Σ(t) → Σ* like e^{−rt}; the same bound for any start near Σ0 makes Σ* locally exponentially
stable.

The checker verifies, in exact rationals: every V_h = v_h I; Σ0 ≻ 0; Σ* = claim.cov ≻ 0 and
AᵀP* + P*A + R = 0 for P* = Σ*⁻¹; Q ≻ 0 and AᵀQ + QA − r·Q ⪰ 0 (``Q``); μ ≥ 0 (``mu``),
P* − μQ ≻ 0 and P0 − P* + μQ ⪰ 0.

Claim: ``cov`` Σ* (d×d), ``rate`` r. Witness: ``Q`` (d×d), ``mu``.
"""
from __future__ import annotations

from symgauss.kernel.exact import is_psd, require_pd, require_small
from symgauss.kernel.kinds.growth_riccati import riccati_params
from symgauss.kernel.read import short_text
from symgauss.kernel.schema import Field, Schema, nonnegative, positive, sym
from symgauss.kernel.verdict import NotProved

MAX_D = 12
SCHEMAS = {"limit-riccati": Schema(
    {"cov": Field(sym("d")), "rate": Field(positive)},
    {"Q": Field(sym("d")), "mu": Field(nonnegative)}, "exact", {"d": MAX_D})}


def statement(kind, claim, problem) -> str:
    return ("Σ(t) exists for all t ≥ 0 and converges to the positive-definite equilibrium "
            f"Σ* = claim.cov, exponentially: Σ(t)⁻¹ − Σ*⁻¹ decays like "
            f"e^(−{short_text(claim['rate'])}·t), and Σ* is locally exponentially stable")


def check(kind, claim, witness, problem, ctx) -> None:
    p, R = riccati_params(problem, kind)
    require_pd(problem.cov0, "cov0")
    S, Q, mu, r, A = claim["cov"], witness["Q"], witness["mu"], claim["rate"], p.A
    require_pd(S, "claim.cov")
    P = S.inv()
    if A.transpose() * P + P * A + R != R * 0:
        raise NotProved("claim.cov is not an equilibrium: AᵀP* + P*A + R ≠ 0 for P* = Σ*⁻¹")
    require_pd(Q, "witness.Q")
    rate_matrix = A.transpose() * Q + Q * A - Q * r
    require_small(rate_matrix, "AᵀQ + QA − rate·Q")
    if not is_psd(rate_matrix):
        raise NotProved("AᵀQ + QA − rate·Q ⪰ 0 fails: the rate is not proved")
    require_pd(P - Q * mu, "P* − mu·Q")
    start = problem.cov0.inv() - P + Q * mu
    require_small(start, "Σ0⁻¹ − P* + mu·Q")
    if not is_psd(start):
        raise NotProved("Σ0⁻¹ − P* + mu·Q ⪰ 0 fails: Σ0 is not proved to be where Σ⁻¹ stays "
                        "positive definite")
