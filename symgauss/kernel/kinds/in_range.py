"""Trusted check of kind ``stable-equilibrium-in-range`` (rank-deficient cov0).

Rank is invariant, so a trajectory from a singular cov0 never reaches a positive-definite
equilibrium; its equilibria live on the boundary of the PSD cone, where no certificate survives
rounding. The claim is therefore made in the invariant range: claim ``basis`` U (d×r, exact,
rank r) with AU = UÃ and V_hU = UṼ_h (so W = range U is invariant) and cov0 = U C Uᵀ with C ≻ 0
(so W = range cov0); with B̃_h = UᵀB_hU, every Σ(t) = U S(t) Uᵀ where S solves the r×r
covariance equation of (Ã, Ṽ_h, B̃_h). ``reduced`` is a ``stable-equilibrium`` claim (exact
``cov`` S*, ``rate``, optional ``global_rate``) about that reduced problem, with the witnesses
of that kind; it is checked by :mod:`symgauss.kernel.kinds.stability`. Verified means: Σ* = U S* Uᵀ
is an equilibrium of rank r, locally exponentially stable (rate ρ) within the invariant set
{U S Uᵀ : S ≻ 0}, which holds every Σ(t) from cov0.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import ldl_positive_definite
from symgauss.kernel.kinds import stability
from symgauss.kernel.read import ExactParams, ExactProblem, matrix
from symgauss.kernel.verdict import Invalid, Refuted, Verdict


def check(cert, problem) -> Verdict:
    kind, claim, p, d = cert["kind"], cert["claim"], problem.params, problem.d
    if p is None or not isinstance(claim, dict) or set(claim) - {"statement", "basis", "reduced"}:
        raise Invalid("claim: expected 'basis' and 'reduced' (time-invariant parameters)")
    basis, reduced = claim.get("basis"), claim.get("reduced")
    if not (isinstance(basis, list) and basis and isinstance(basis[0], list)) or \
            not isinstance(reduced, dict) or {"mean", "mean_rate"} & set(reduced):
        raise Invalid("claim.basis must be a d×r matrix and claim.reduced a stable-equilibrium "
                      "claim without a mean part")
    r = len(basis[0])
    U = matrix(basis, "claim.basis", d, r)
    if U.rank() != r or not 1 <= r < d:
        raise Invalid(f"claim.basis must have full column rank r with 1 <= r < d = {d}")
    Ut = U.transpose()
    Pi = (Ut * U).inv() * Ut

    def reduce(M, what):
        X = Pi * M * U
        if U * X != M * U:
            raise Refuted(f"range(U) is not invariant under {what}")
        return X
    try:
        heads = tuple((reduce(V, f"V[{k}]"), Ut * B * U) for k, (V, B) in enumerate(p.heads))
        params = ExactParams(reduce(p.A, "A"), heads, flint.fmpq_mat(r, 1))
        C = Pi * problem.cov0 * Pi.transpose()
        if U * C * Ut != problem.cov0 or not ldl_positive_definite(C)[0]:
            raise Refuted("range(U) is not range(cov0) (cov0 ≠ U C Uᵀ with C ≻ 0)")
    except Refuted as exc:
        return Verdict("refuted", str(exc), kind)
    sub = ExactProblem(r, C, flint.fmpq_mat(r, 1), params, (), None, "")
    v = stability.check({"kind": "stable-equilibrium", "claim": reduced,
                         "witness": cert["witness"]}, sub)
    return Verdict(v.status, f"in range(cov0) = range(U) (rank {r}, invariant under A and every "
                   f"V_h; exact): {v.reason}", kind)
