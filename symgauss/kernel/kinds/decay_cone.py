"""Checker for kind ``"decay-cone"`` (exact): Σ(t) → 0 with tr Σ(t) ≤ b/(1 + k·t), also when A
is not Hurwitz (a zero eigenvalue, A = 0: algebraic decay), proved by w = tr(PΣ) whose derivative
is dissipative on the cone Σ ⪰ 0.

Along eq. 1.1, w' = tr(M_AΣ) + q(Σ), M_A = PA + AᵀP, q(Σ) = 2Σ_h tr(P·V_hΣB_hΣ). In the
coordinates x of Sym(d) (the entries Σ_ij, i ≤ j): tr(M_AΣ) = mᵀx, tr Σ = eᵀx, q(Σ) = xᵀMx (as
kind ``bounded-linear``). The checker verifies, in exact rationals: P − ℓI ⪰ 0 with ℓ > 0 and
ΛI − P ⪰ 0 (``ell``, ``Lambda``); −M_A ⪰ 0; W/ℓ ≤ T with W = tr(PΣ0) (``T``); K ⪰ 0 (``K``,
d²×d²) and Z := −H − T(K) ⪰ 0, where H = (meᵀ + emᵀ)/(2T) + M + κ·eeᵀ (``kappa`` > 0) and T(K)
is the form x ↦ ⟨K, Σ⊗Σ⟩ (entry (ad + b, cd + f) of Σ⊗Σ is Σ_ac·Σ_bf). For Σ ⪰ 0, Σ⊗Σ ⪰ 0,
so xᵀHx = −⟨K, Σ⊗Σ⟩ − xᵀZx ≤ 0. On {Σ ⪰ 0, w ≤ W}: tr Σ ≤ W/ℓ ≤ T and mᵀx ≤ 0, so
mᵀx ≤ (mᵀx)(eᵀx)/T and w' ≤ xᵀHx − κ(tr Σ)² ≤ −κ(tr Σ)² ≤ −(κ/Λ²)w². Σ(t) stays ⪰ 0 (eq. 1.1
keeps the cone) and w(0) = W, so w never increases, Σ(t) stays bounded and exists for all t ≥ 0,
w(t) ≤ W/(1 + (κ/Λ²)W·t) and tr Σ(t) ≤ w(t)/ℓ.

Claim: ``bound`` b ≥ W/ℓ and ``rate`` k ≤ κW/Λ². Witness: ``P`` (d×d), ``ell``, ``Lambda``,
``T``, ``kappa``, ``K`` (d²×d²).
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import eye
from symgauss.kernel.flow import pairs
from symgauss.kernel.kinds.blowup_trajectory import quadratic_form, trace_vector
from symgauss.kernel.kinds.bounded import _psd
from symgauss.kernel.read import short_text
from symgauss.kernel.schema import Field, Schema, positive, sym
from symgauss.kernel.verdict import Invalid, NotProved

MAX_D = 4


def _square(value, where, ctx):
    return sym(ctx.d * ctx.d)(value, where, ctx)


SCHEMAS = {"decay-cone": Schema(
    {"bound": Field(positive), "rate": Field(positive)},
    {"P": Field(sym("d")), "ell": Field(positive), "Lambda": Field(positive),
     "T": Field(positive), "kappa": Field(positive), "K": Field(_square)}, "exact",
    {"d": MAX_D})}


def statement(kind, claim, problem) -> str:
    b, k = short_text(claim["bound"]), short_text(claim["rate"])
    return (f"Σ(t) exists for all t ≥ 0 and decays to 0: tr Σ(t) ≤ {b}/(1 + {k}·t) for every "
            "t ≥ 0")


def kron_form(K, d: int) -> flint.fmpq_mat:
    """The symmetric matrix of x ↦ ⟨K, Σ⊗Σ⟩ in the coordinates x (entries Σ_ij, i ≤ j)."""
    at = {}
    for n, (i, j) in enumerate(pairs(d)):
        at[i, j] = at[j, i] = n
    n = d * (d + 1) // 2
    out = flint.fmpq_mat(n, n)
    for a in range(d):
        for b in range(d):
            for c in range(d):
                for f in range(d):
                    v = K[a * d + b, c * d + f] / 2
                    if v != 0:
                        r, s = at[a, c], at[b, f]
                        out[r, s] += v
                        out[s, r] += v
    return out


def check(kind, claim, witness, problem, ctx) -> None:
    p = problem.params
    if p is None:
        raise Invalid("decay-cone certificates are for time-invariant parameters (no 'controls')")
    d, P, K = problem.d, witness["P"], witness["K"]
    ell, lam, T, kappa = (witness[key] for key in ("ell", "Lambda", "T", "kappa"))
    _psd(P - eye(d) * ell, "P − ell·I")
    _psd(eye(d) * lam - P, "Lambda·I − P")
    MA = P * p.A + p.A.transpose() * P
    _psd(-MA, "−(PA + AᵀP)")
    W = sum((P[i, j] * problem.cov0[i, j] for i in range(d) for j in range(d)), flint.fmpq(0))
    if not W / ell <= T:
        raise NotProved(f"witness.T is below tr(PΣ0)/ell = {short_text(W / ell)}")
    _psd(K, "K")
    m, e = trace_vector(d, MA), trace_vector(d)
    H = (m * e.transpose() + e * m.transpose()) / (2 * T) + quadratic_form(p, P) * 2 \
        + e * e.transpose() * kappa
    _psd(-H - kron_form(K, d), "Z = −H − T(K) (the derivative of tr(PΣ) dissipative on Σ ⪰ 0)")
    if not claim["bound"] >= W / ell:
        raise NotProved(f"claim.bound is below tr(PΣ0)/ell = {short_text(W / ell)}")
    if not claim["rate"] <= kappa * W / (lam * lam):
        raise NotProved(f"claim.rate is above kappa·tr(PΣ0)/Lambda² = "
                        f"{short_text(kappa * W / (lam * lam))}")
