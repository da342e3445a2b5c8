"""Exact equilibria when every V_h = v_h I: Σ* ≻ 0 ⇔ P* = Σ*⁻¹ ≻ 0 solves AᵀP + PA = −R.

Also the mean's fixed point m* = −(A + Σ_h(V_h + V_hΣ*B_h))⁻¹ b at an exact Σ*, and the bias b
that makes a prescribed m* the fixed point.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import ldl_positive_definite
from symgauss.kernel.read import vec_text
from symgauss.model.linearise import exact_matrix, exact_params, quadratic_R_exact, svec_pairs


def lyapunov_exact(A: flint.fmpq_mat, C: flint.fmpq_mat):
    """The symmetric P with AᵀP + PA = C, exactly; None if the operator is singular."""
    d = A.nrows()
    pairs = svec_pairs(d)
    n = len(pairs)
    cols = []
    for i, j in pairs:
        E = flint.fmpq_mat(d, d)
        E[i, j] = E[j, i] = 1
        X = A.transpose() * E + E * A
        cols.append([X[k, l] for k, l in pairs])
    K = flint.fmpq_mat(n, n, [cols[c][r] for r in range(n) for c in range(n)])
    try:
        x = K.solve(flint.fmpq_mat(n, 1, [C[k, l] for k, l in pairs]))
    except ZeroDivisionError:
        return None
    P = flint.fmpq_mat(d, d)
    for (i, j), v in zip(pairs, x.entries()):
        P[i, j] = P[j, i] = v
    return P


def mean_matrix(params, S: flint.fmpq_mat) -> flint.fmpq_mat:
    """M = A + Σ_h (V_h + V_hΣB_h): at Σ*, m' = M m + b."""
    p = exact_params(params)
    M = p.A
    for V, B in p.heads:
        M = M + V + V * S * B
    return M


def mean_fixed_point(params, S: flint.fmpq_mat):
    """m* = −M⁻¹ b (exact), or None when M is singular."""
    try:
        return -(mean_matrix(params, S).solve(exact_params(params).b))
    except ZeroDivisionError:
        return None


def bias_for_mean(params, S, m_star) -> list:
    """The bias b with M m* + b = 0, i.e. m* is the mean's fixed point at Σ* = S (exact strings).

    >>> from symgauss import Problem
    >>> p = Problem(cov0=[[1]], A=[[1]], V=[[-1]], B=[[1]])
    >>> bias_for_mean(p.params, exact_matrix([[1]]), ["2"])   # M = 1 - 1 - 1 = -1
    ['2']
    """
    m = exact_matrix([[x] for x in m_star])
    return vec_text(-(mean_matrix(params, S) * m))


# --- exact: quadratic term ΣRΣ -------------------------------------------------------------------
def structured_equilibria(problem):
    p = exact_params(problem.params)
    R = quadratic_R_exact(p)
    P = lyapunov_exact(p.A, -R)
    if P is None:
        return None  # the Lyapunov operator is singular: fall back to the general search
    if not ldl_positive_definite(P)[0]:
        return []    # the unique solution is not ≻ 0: no positive-definite equilibrium
    return [P.inv()]
