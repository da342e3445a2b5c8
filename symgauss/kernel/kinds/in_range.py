"""Trusted check of kind ``stable-equilibrium-in-range`` (rank-deficient cov0; exact).

Rank is invariant, so a trajectory from a singular cov0 never reaches a positive-definite
equilibrium; its equilibria live on the boundary of the PSD cone, where no certificate survives
rounding. The claim is therefore made in the invariant range: claim ``basis`` U (d×r, exact,
rank r < d) with AU = UÃ and V_hU = UṼ_h (so W = range U is invariant) and cov0 = U C Uᵀ with
C ≻ 0 (so W = range cov0); with B̃_h = UᵀB_hU, every Σ(t) = U S(t) Uᵀ where S solves the r×r
covariance equation of (Ã, Ṽ_h, B̃_h). ``reduced`` is a ``stable-equilibrium`` claim (``cov`` S*,
``rate``, optional ``global_rate``) about that reduced problem, with its witnesses (``P`` or
``Q``, optional ``Z``), checked by :mod:`symgauss.kernel.kinds.stability`.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import require_pd, require_small
from symgauss.kernel.kinds.stability import (
    STABLE_CLAIM,
    STABLE_WITNESS,
    check_stable,
    stable_statement,
)
from symgauss.kernel.read import ExactParams, matrix
from symgauss.kernel.schema import Context, Field, Schema, raw, read_section
from symgauss.kernel.verdict import Invalid, Refuted

MAX_D = 12
REDUCED_CLAIM = {k: f for k, f in STABLE_CLAIM.items() if k not in ("mean", "mean_rate")}
REDUCED_WITNESS = {k: f for k, f in STABLE_WITNESS.items() if k != "P_mean"}
SCHEMAS = {"stable-equilibrium-in-range": Schema(
    {"basis": Field(raw), "reduced": Field(raw)}, {k: Field(raw, f.required)
                                                   for k, f in REDUCED_WITNESS.items()},
    "exact", {"d": MAX_D})}


def _basis(claim, problem):
    basis = claim["basis"]
    if not (isinstance(basis, list) and basis and isinstance(basis[0], list)):
        raise Invalid("claim.basis must be a d×r matrix")
    r = len(basis[0])
    U = matrix(basis, "claim.basis", problem.d, r)
    require_small(U, "claim.basis")
    if not 1 <= r < problem.d or U.rank() != r:
        raise Invalid(f"claim.basis must have full column rank r with 1 <= r < d = {problem.d}")
    return U, Context(r)


def _reduced_claim(claim, problem):
    U, sub = _basis(claim, problem)
    return U, sub, read_section(claim["reduced"], REDUCED_CLAIM, "claim.reduced", sub)


def statement(kind, claim, problem) -> str:
    U, sub, reduced = _reduced_claim(claim, problem)
    r = sub.d
    return (f"range(cov0) = range(U), U = claim.basis (rank {r}), is invariant under A and "
            f"every V_h, so Σ(t) = U S(t) Uᵀ for all t with S(t) ≻ 0 r×r; " + stable_statement(
                reduced, who="Σ* = U S* Uᵀ (S* = claim.reduced.cov)",
                what=f"an equilibrium of rank {r}", space="{U S Uᵀ}",
                every="every Σ0 = U S0 Uᵀ with S0 ≻ 0 (cov0 among them)").replace(
                "Σ(t)⁻¹ − Σ*⁻¹", "S(t)⁻¹ − S*⁻¹"))


def check(kind, claim, witness, problem, ctx) -> None:
    p = problem.params
    if p is None:
        raise Invalid("stable-equilibrium-in-range needs time-invariant parameters")
    U, sub, reduced = _reduced_claim(claim, problem)
    w = read_section(witness, REDUCED_WITNESS, "witness", sub)
    r, Ut = sub.d, U.transpose()
    Pi = (Ut * U).inv() * Ut

    def reduce(M, what):
        X = Pi * M * U
        if U * X != M * U:
            raise Refuted(f"range(U) is not invariant under {what}")
        return X
    heads = tuple((reduce(V, f"V[{k}]"), Ut * B * U) for k, (V, B) in enumerate(p.heads))
    params = ExactParams(reduce(p.A, "A"), heads, flint.fmpq_mat(r, 1))
    C = Pi * problem.cov0 * Pi.transpose()
    if U * C * Ut != problem.cov0:
        raise Refuted("range(U) is not range(cov0): cov0 ≠ U C Uᵀ")
    require_pd(C, "C with cov0 = U C Uᵀ (range(U) = range(cov0))", Refuted)
    check_stable(params, reduced, w)

