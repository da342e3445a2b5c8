"""Checker for kinds ``"linear-constant"``, ``"linear-decay"`` and ``"linear-growth"`` (exact):
the fate of Σ(t) when eq. 1.1 has no quadratic term.

With Q(Σ) = Σ_h(V_hΣB_hΣ + ΣB_hᵀΣV_hᵀ), eq. 1.1 is Σ' = AΣ + ΣAᵀ + Q(Σ). Q is a quadratic map
on Sym(d): Q(Σ) = P(Σ) + P(Σ)ᵀ with P(Σ)_rs = Σ_klm (M_rk)_lm·Σ_kl·Σ_ms and M_rk =
Σ_h (V_h)_rk·B_h, so each Q_pq is a quadratic polynomial in the entries x_ab = Σ_ab (a ≤ b), and
Q ≡ 0 iff every one of its coefficients is 0 — checked exactly, d⁵ terms
(:func:`require_linear`; this holds when every head has V_h = 0 or B_h = 0, or every V_h = v_hI
with Σ_h v_h(B_h + B_hᵀ) = 0, or when heads cancel). Then eq. 1.1 is linear and its solution is
Σ(t) = e^{At}Σ0e^{Aᵀt} for all t ≥ 0:

* ``linear-constant``: A = 0, so Σ(t) = Σ0 for every t ≥ 0.
* ``linear-decay`` (claim ``rate`` r ≥ 0): every Hurwitz determinant of charpoly(A + (r/2)I) is
  > 0 (Routh–Hurwitz: A + (r/2)I is Hurwitz), so e^{rt}Σ(t) = e^{(A + r/2·I)t}Σ0e^{(A +
  r/2·I)ᵀt} → 0 as t → ∞.
* ``linear-growth`` (claim ``rate`` r > 0, ``lower`` c > 0): some Hurwitz determinant of
  charpoly(A − (r/2)I) is ≤ 0, so A − (r/2)I is not Hurwitz: A has an eigenvalue λ with Re λ ≥
  r/2; and Σ0 − cI ⪰ 0. Then Σ(t) ⪰ c·e^{At}e^{Aᵀt} and tr(e^{At}e^{Aᵀt}) = ‖e^{At}‖_F² ≥
  ρ(e^{At})² ≥ |e^{λt}|² ≥ e^{rt}: tr Σ(t) ≥ c·e^{rt} for every t ≥ 0.

No witness: the checker computes everything from the problem.
"""
from __future__ import annotations

import flint

from symgauss.kernel.equations import hurwitz_stable
from symgauss.kernel.exact import eye, is_psd, require_small
from symgauss.kernel.flow import pairs
from symgauss.kernel.read import short_text
from symgauss.kernel.schema import Field, Schema, nonnegative, positive
from symgauss.kernel.verdict import Invalid, NotProved

#: Q's coefficients: d⁵ terms (0.2 s at d = 12, eight heads, 20-digit entries; 2.8 s for a 2 MB
#: file, twice the file limit, of 1 750-digit entries; AMD EPYC, 2026-12-07)
MAX_D = 12
SCHEMAS = {
    "linear-constant": Schema({}, {}, "exact", {"d": MAX_D}),
    "linear-decay": Schema({"rate": Field(nonnegative)}, {}, "exact", {"d": MAX_D}),
    "linear-growth": Schema({"rate": Field(positive), "lower": Field(positive)}, {}, "exact",
                            {"d": MAX_D}),
}
_HEAD = "the quadratic term of eq. 1.1 vanishes, so Σ(t) = e^(At)Σ0e^(Aᵀt): "


def statement(kind, claim, problem) -> str:
    if kind == "linear-constant":
        return _HEAD + "A = 0 and Σ(t) = Σ0 for every t ≥ 0"
    r = short_text(claim["rate"])
    if kind == "linear-decay":
        return _HEAD + f"Σ(t) exists for all t ≥ 0 and e^({r}·t)·Σ(t) → 0 as t → ∞"
    return (_HEAD + f"Σ(t) exists for all t ≥ 0 and grows without bound: tr Σ(t) ≥ "
            f"{short_text(claim['lower'])}·e^({r}·t) for every t ≥ 0")


def require_linear(params) -> None:
    """:class:`NotProved` unless Q ≡ 0 on Sym(d): every coefficient of Q_pq as a polynomial in
    the entries x_ab = Σ_ab (a ≤ b) is 0 (module docstring), exactly."""
    d, heads = params.A.nrows(), params.heads
    # M_rk = Σ_h (V_h)_rk·B_h: P(Σ)_rs = Σ_klm (M_rk)_lm·Σ_kl·Σ_ms, Q_pq = P_pq + P_qp
    M = [[sum((B * V[r, k] for V, B in heads), flint.fmpq_mat(d, d)) for k in range(d)]
         for r in range(d)]
    coeff = {}
    for p, q in pairs(d):
        for r, s in ((p, q), (q, p)):
            for k in range(d):
                Mk = M[r][k]
                for l in range(d):
                    for m in range(d):
                        c = Mk[l, m]
                        if c != 0:
                            a, b = (min(k, l), max(k, l)), (min(m, s), max(m, s))
                            key = (p, q, min(a, b), max(a, b))
                            coeff[key] = coeff.get(key, 0) + c
    bad = next((key for key, c in coeff.items() if c != 0), None)
    if bad is not None:
        p, q, a, b = bad
        raise NotProved(f"the quadratic term of eq. 1.1 is not zero: in Q(Σ)_{p}{q} the "
                        f"coefficient of Σ_{a[0]}{a[1]}·Σ_{b[0]}{b[1]} is "
                        f"{short_text(coeff[bad])} (indices from 0)")


def check(kind, claim, witness, problem, ctx) -> None:
    p = problem.params
    if p is None:
        raise Invalid(f"{kind} certificates are for time-invariant parameters (no 'controls')")
    require_linear(p)
    d = problem.d
    if kind == "linear-constant":
        if p.A != p.A * 0:
            raise NotProved("A ≠ 0: Σ(t) is not constant")
        return
    half = eye(d) * (claim["rate"] / 2)
    require_small(p.A + half, "A + (rate/2)·I")
    require_small(p.A - half, "A − (rate/2)·I")
    if kind == "linear-decay":
        if not hurwitz_stable(p.A + half):
            raise NotProved(f"A + (rate/2)·I is not proved Hurwitz: a Hurwitz determinant of "
                            f"its characteristic polynomial is ≤ 0 (rate = "
                            f"{short_text(claim['rate'])})")
        return
    if hurwitz_stable(p.A - half):
        raise NotProved("every Hurwitz determinant of charpoly(A − (rate/2)·I) is > 0: every "
                        "eigenvalue of A has real part < rate/2, so the rate is not proved")
    low = problem.cov0 - eye(d) * claim["lower"]
    require_small(low, "cov0 − lower·I")
    if not is_psd(low):
        raise NotProved("cov0 − lower·I ⪰ 0 fails: claim.lower is above λmin(Σ0)")
