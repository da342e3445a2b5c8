"""Checker for kind ``"bounded-linear"`` (exact): Σ(t) exists for all t ≥ 0 and stays bounded,
proved by a linear functional w = tr(PΣ) whose quadratic part is dissipative.

Along eq. 1.1, w' = tr(P(AΣ + ΣAᵀ)) + q(Σ), q(Σ) = 2Σ_h tr(P·V_hΣB_hΣ). In the coordinates x of
Sym(d) (the entries Σ_ij, i ≤ j), w = pᵀx (p_ii = P_ii, p_ij = 2P_ij) and q(Σ) = xᵀMx (M by
polarization, exact: 2·:func:`~symgauss.kernel.kinds.blowup_trajectory.quadratic_form` with the
weight P). The checker verifies, in exact rationals: P − ℓI ⪰ 0 with ℓ > 0 (``P``,
``ell``); a·P − (PA + AᵀP) ⪰ 0 (``a``, any sign), so tr(P(AΣ + ΣAᵀ)) ≤ a·w for Σ ⪰ 0;
−M − κ·ppᵀ ⪰ 0 with κ > 0 (``kappa``), so q(Σ) ≤ −κw² on all of Sym(d). Then w' ≤ aw − κw²,
so w(t) ≤ W := max(w(0), a/κ) while Σ(t) exists, and tr Σ ≤ w/ℓ: Σ(t) ⪰ 0 stays in a compact
set, so it exists for all t ≥ 0 with tr Σ(t) ≤ W/ℓ ≤ claim.bound.

Claim: ``bound``. Witness: ``P`` (d×d), ``ell``, ``a``, ``kappa``.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import eye, is_psd, require_small
from symgauss.kernel.kinds.blowup_trajectory import quadratic_form, trace_vector
from symgauss.kernel.read import rational, short_text
from symgauss.kernel.schema import Field, Schema, positive, sym
from symgauss.kernel.verdict import Invalid, NotProved

MAX_D = 8


def _rational(value, where, ctx=None) -> flint.fmpq:
    return rational(value, where)


SCHEMAS = {"bounded-linear": Schema(
    {"bound": Field(positive)},
    {"P": Field(sym("d")), "ell": Field(positive), "a": Field(_rational),
     "kappa": Field(positive)}, "exact", {"d": MAX_D})}


def statement(kind, claim, problem) -> str:
    return (f"Σ(t) exists for all t ≥ 0 and stays bounded: tr Σ(t) ≤ "
            f"{short_text(claim['bound'])} for every t ≥ 0")


def _psd(M, what: str) -> None:
    require_small(M, what)
    if not is_psd(M):
        raise NotProved(f"{what} ⪰ 0 fails")


def check(kind, claim, witness, problem, ctx) -> None:
    p = problem.params
    if p is None:
        raise Invalid("bounded-linear certificates are for time-invariant parameters (no "
                      "'controls')")
    d, P, ell, a, kappa = problem.d, witness["P"], witness["ell"], witness["a"], witness["kappa"]
    _psd(P - eye(d) * ell, "P − ell·I")
    _psd(P * a - P * p.A - p.A.transpose() * P, "a·P − (PA + AᵀP)")
    p_vec = trace_vector(d, P)
    dominated = quadratic_form(p, P) * -2 - p_vec * p_vec.transpose() * kappa
    _psd(dominated, "−M − kappa·ppᵀ (the quadratic part dominated by −kappa·tr(PΣ)²)")
    w0 = sum((P[i, j] * problem.cov0[i, j] for i in range(d) for j in range(d)), flint.fmpq(0))
    top = max(w0, a / kappa)
    if not top / ell <= claim["bound"]:
        raise NotProved(f"claim.bound is below max(tr(PΣ0), a/kappa)/ell = "
                        f"{short_text(top / ell)}")
