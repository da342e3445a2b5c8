"""Checker for kind ``"growth-riccati"`` (exact): growth for all time when every V_h = v_h I and
A = αI, α > 0, from the closed form of the Riccati equation.

Then eq. 1.1 is Σ' = 2αΣ + ΣRΣ with R = Σ_h v_h(B_h + B_hᵀ), and with Σ0 ≻ 0, P0 = Σ0⁻¹ and
s(t) = (e^{2αt} − 1)/(2α) ≥ 0 its solution is Σ(t) = e^{2αt}·W(s), W(s) = (P0 − sR)⁻¹ (P = Σ⁻¹
obeys P' = −2αP − R). If R ⪯ 0, then P0 − sR ⪰ P0 ≻ 0 for every s ≥ 0, so Σ(t) exists for all
t ≥ 0, and W(s) ⪯ P0⁻¹ = Σ0 gives tr Σ(t) ≤ tr Σ0·e^{2αt}. If moreover Rw = 0 (w ≠ 0), then
wᵀ(P0 − sR)w = wᵀP0w and Cauchy–Schwarz, (wᵀw)² ≤ (wᵀWw)(wᵀW⁻¹w), give wᵀW(s)w ≥
(wᵀw)²/(wᵀP0w), so tr Σ(t) ≥ wᵀΣ(t)w/(wᵀw) ≥ c·e^{2αt} with c = wᵀw/(wᵀP0w).

The checker verifies, in exact rationals: every V_h = v_h I and A = αI; claim.rate = 2α > 0;
Σ0 ≻ 0; −R ⪰ 0 (every principal minor of −R ≥ 0); the witness ``w`` is not 0 and Rw = 0;
claim.lower ≤ wᵀw/(wᵀΣ0⁻¹w).

Claim: ``rate`` (= 2α), ``lower`` c > 0. Witness: ``w`` (d rationals).
"""
from __future__ import annotations

from itertools import combinations

import flint

from symgauss.kernel.equations import riccati_R, scalar_of
from symgauss.kernel.exact import require_pd
from symgauss.kernel.read import short_text
from symgauss.kernel.schema import Field, Schema, positive, vec
from symgauss.kernel.verdict import Invalid, NotProved

#: principal minors of −R: 2^d − 1 determinants
MAX_D = 10
SCHEMAS = {"growth-riccati": Schema(
    {"rate": Field(positive), "lower": Field(positive)}, {"w": Field(vec("d"))}, "exact",
    {"d": MAX_D})}


def statement(kind, claim, problem) -> str:
    rate, c = short_text(claim["rate"]), short_text(claim["lower"])
    return (f"Σ(t) exists for all t ≥ 0 and grows without bound: {c}·e^({rate}·t) ≤ tr Σ(t) ≤ "
            f"tr Σ0·e^({rate}·t) for every t ≥ 0")


def riccati_params(problem, kind: str) -> tuple:
    """(params, R) of a time-invariant problem whose every V_h = v_h I (exactly), or Invalid /
    NotProved naming ``kind``."""
    p = problem.params
    if p is None:
        raise Invalid(f"{kind} certificates are for time-invariant parameters (no 'controls')")
    R = riccati_R(p)
    if R is None:
        raise NotProved(f"kind {kind} needs every V_h = v_h I exactly")
    return p, R


def check(kind, claim, witness, problem, ctx) -> None:
    p, R = riccati_params(problem, kind)
    alpha = scalar_of(p.A)
    if alpha is None:
        raise NotProved("kind growth-riccati needs every V_h = v_h I and A = αI exactly")
    if not (alpha > 0 and claim["rate"] == 2 * alpha):
        raise NotProved(f"claim.rate must be 2α = {short_text(2 * alpha)} > 0 (A = αI)")
    S0, d = problem.cov0, problem.d
    require_pd(S0, "cov0")
    for k in range(1, d + 1):
        for idx in combinations(range(d), k):
            minor = flint.fmpq_mat(k, k, [-R[i, j] for i in idx for j in idx]).det()
            if minor < 0:
                raise NotProved(f"R = Σ_h v_h(B_h + B_hᵀ) is not ⪯ 0: the principal minor of −R "
                                f"on rows {list(idx)} is {short_text(minor)} < 0")
    w = witness["w"]
    if all(w[i, 0] == 0 for i in range(d)):
        raise NotProved("witness.w is 0")
    if R * w != w * 0:
        raise NotProved("R·witness.w ≠ 0")
    ww = (w.transpose() * w)[0, 0]
    if not claim["lower"] <= ww / (w.transpose() * S0.inv() * w)[0, 0]:
        raise NotProved("claim.lower is above wᵀw/(wᵀΣ0⁻¹w)")
