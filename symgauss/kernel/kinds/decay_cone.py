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

Kind ``"decay-cone-steps"`` (rigorous): validated ``steps`` (eq. 1.1 from Σ0, metric I, as kind
``limit``; optional ``metrics``) adding up to ``t_enter`` t0 first, then the same from Σ(t0) on,
with W the upper end of tr(PΣ(t0)) over the steps' enclosure (w(t0)/(1 + cw(t0)s) increases
with w(t0)): tr Σ(t) ≤ b/(1 + k·(t − t0)), t ≥ t0.

Claim: ``bound`` b ≥ W/ℓ and ``rate`` k ≤ κW/Λ² (decay-cone-steps: and ``t_enter``). Witness:
``P`` (d×d), ``ell``, ``Lambda``, ``T``, ``kappa``, ``K`` (d²×d²); decay-cone-steps: and
``steps``, ``order``, ``prec``, optional ``metrics``.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import eye
from symgauss.kernel.flow import Flow, pairs, svec_of, sym_of, upper
from symgauss.kernel.kinds.blowup_trajectory import quadratic_form, trace_vector
from symgauss.kernel.kinds.bounded import _psd
from symgauss.kernel.kinds.limit import (
    MAX_ORDER,
    MAX_PREC,
    MIN_PREC,
    read_timed_steps,
    steps_in_region_metric,
)
from symgauss.kernel.read import short_text
from symgauss.kernel.schema import Field, Schema, integer, positive, raw, sym
from symgauss.kernel.steps import mid_fmpq
from symgauss.kernel.verdict import Invalid, NotProved

MAX_D = 4


def _square(value, where, ctx):
    return sym(ctx.d * ctx.d)(value, where, ctx)


_CONE = {"P": Field(sym("d")), "ell": Field(positive), "Lambda": Field(positive),
         "T": Field(positive), "kappa": Field(positive), "K": Field(_square)}
SCHEMAS = {
    "decay-cone": Schema({"bound": Field(positive), "rate": Field(positive)}, _CONE, "exact",
                         {"d": MAX_D}),
    "decay-cone-steps": Schema(
        {"bound": Field(positive), "rate": Field(positive), "t_enter": Field(positive)},
        {**_CONE, "steps": Field(raw), "order": Field(integer(2, MAX_ORDER)),
         "prec": Field(integer(MIN_PREC, MAX_PREC)), "metrics": Field(raw, False)}, "rigorous",
        {"d": MAX_D})}
def statement(kind, claim, problem) -> str:
    b, k = (f"({x})" if "/" in x else x for x in (short_text(claim[key])
                                                  for key in ("bound", "rate")))
    if "t_enter" not in claim:
        return (f"Σ(t) exists for all t ≥ 0 and decays to 0: tr Σ(t) ≤ {b}/(1 + {k}·t) for "
                "every t ≥ 0")
    t0 = short_text(claim["t_enter"])
    return (f"Σ(t) exists for all t ≥ 0 and decays to 0: tr Σ(t) ≤ {b}/(1 + {k}·(t − t0)) for "
            f"every t ≥ t0 = {t0}")


def _start(claim, witness, problem, ctx, P):
    """An upper bound of tr(PΣ) at the start: Σ0 (exact), or Σ(t_enter) over the steps'
    enclosure (arb)."""
    d = problem.d
    if "t_enter" not in claim:
        return sum((P[i, j] * problem.cov0[i, j] for i in range(d) for j in range(d)),
                   flint.fmpq(0))
    steps = read_timed_steps(witness, ctx.n, len(problem.params.heads), claim["t_enter"], d)
    with flint.ctx.workprec(witness["prec"]):
        end, r_end = steps_in_region_metric(Flow(problem.params), eye(ctx.n), 1,
                                            svec_of(problem.cov0), steps, witness, ctx.n)
        S = sym_of(end, d, upper(r_end))
        w = sum((flint.arb(P[i, j]) * S[i, j] for i in range(d) for j in range(d)),
                flint.arb(0))
        if not w.is_finite():
            raise NotProved("tr(PΣ(t_enter)) is not finite on the steps' enclosure")
        W = mid_fmpq(upper(w))
        if not flint.arb(W) >= w:
            raise NotProved("tr(PΣ(t_enter)) has no exact upper bound here")
        return W


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
        raise Invalid(f"{kind} certificates are for time-invariant parameters (no 'controls')")
    d, P, K = problem.d, witness["P"], witness["K"]
    ell, lam, T, kappa = (witness[key] for key in ("ell", "Lambda", "T", "kappa"))
    _psd(P - eye(d) * ell, "P − ell·I")
    _psd(eye(d) * lam - P, "Lambda·I − P")
    MA = P * p.A + p.A.transpose() * P
    _psd(-MA, "−(PA + AᵀP)")
    W = _start(claim, witness, problem, ctx, P)
    if not W / ell <= T:
        raise NotProved(f"witness.T is below tr(PΣ)/ell at the start = {short_text(W / ell)}")
    _psd(K, "K")
    m, e = trace_vector(d, MA), trace_vector(d)
    H = (m * e.transpose() + e * m.transpose()) / (2 * T) + quadratic_form(p, P) * 2 \
        + e * e.transpose() * kappa
    _psd(-H - kron_form(K, d), "Z = −H − T(K) (the derivative of tr(PΣ) dissipative on Σ ⪰ 0)")
    if not claim["bound"] >= W / ell:
        raise NotProved(f"claim.bound is below tr(PΣ)/ell at the start = {short_text(W / ell)}")
    if not claim["rate"] <= kappa * W / (lam * lam):
        raise NotProved(f"claim.rate is above kappa·tr(PΣ)/Lambda² at the start = "
                        f"{short_text(kappa * W / (lam * lam))}")
