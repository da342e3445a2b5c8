"""Rank-deficient cov0: the flow stays in {U S Uᵀ}, U a basis of W = range(cov0), when W is
invariant under A and every V_h (decided exactly); the reduced r×r problem."""
from __future__ import annotations

import flint

from symgauss.kernel.errors import UnsupportedError
from symgauss.kernel.read import mat_text
from symgauss.model.linearise import exact_matrix, exact_params


def range_reduction(problem):
    """(U, reduced problem) for W = range(cov0) with basis U (d×r, columns of cov0), or None
    when cov0 = 0. The reduced r×r problem has Ã, Ṽ_h with AU = UÃ, V_hU = UṼ_h (checked
    exactly; UnsupportedError when W is not invariant), B̃_h = UᵀB_hU and cov0 = U C Uᵀ, C ≻ 0:
    Σ(t) = U S(t) Uᵀ where S solves the reduced covariance equation."""
    from symgauss.model.problem import Problem
    S0 = exact_matrix(problem.cov0)
    d = problem.d
    cols, rank = [], 0
    for j in range(d):  # a basis of the column space from the columns of cov0
        trial = cols + [[S0[i, j] for i in range(d)]]
        T = flint.fmpq_mat(d, len(trial), [trial[c][i] for i in range(d) for c in range(len(trial))])
        if T.rank() > rank:
            cols, rank = trial, rank + 1
    if rank == 0:
        return None
    U = flint.fmpq_mat(d, rank, [cols[c][i] for i in range(d) for c in range(rank)])
    G = U.transpose() * U
    pinv = G.inv() * U.transpose()
    p = exact_params(problem.params)

    def reduce(M, what):
        X = pinv * M * U
        if U * X != M * U:
            raise UnsupportedError(f"range(cov0) is not invariant under {what}: the flow leaves "
                                   "it, so rank-deficient equilibria are not computed here "
                                   "(rank is invariant but the range moves)")
        return X
    At = reduce(p.A, "A")
    heads = [{"V": mat_text(reduce(V, f"V[{k}]")), "B": mat_text(U.transpose() * B * U)}
             for k, (V, B) in enumerate(p.heads)]
    return U, Problem(cov0=mat_text(pinv * S0 * pinv.transpose()), A=mat_text(At), heads=heads)
