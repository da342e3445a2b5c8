"""Exact equilibria when every V_h = v_h I: Σ* ≻ 0 ⇔ P* = Σ*⁻¹ ≻ 0 solves AᵀP + PA = −R.

Also the mean's fixed point m* = −(A + Σ_h(V_h + V_hΣ*B_h))⁻¹ b at an exact Σ*, and the bias b
that makes a prescribed m* the fixed point.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import ldl_positive_definite
from symgauss.kernel.read import vec_text
from symgauss.model.linearise import exact_matrix, exact_params, quadratic_R_exact, svec_pairs


def _lyapunov_operator(A: flint.fmpq_mat):
    """The svec matrix of P ↦ AᵀP + PA (n×n, exact)."""
    d = A.nrows()
    pairs = svec_pairs(d)
    n = len(pairs)
    cols = []
    for i, j in pairs:
        E = flint.fmpq_mat(d, d)
        E[i, j] = E[j, i] = 1
        X = A.transpose() * E + E * A
        cols.append([X[k, l] for k, l in pairs])
    return flint.fmpq_mat(n, n, [cols[c][r] for r in range(n) for c in range(n)])


def _sym_of(d, v) -> flint.fmpq_mat:
    P = flint.fmpq_mat(d, d)
    for (i, j), x in zip(svec_pairs(d), v):
        P[i, j] = P[j, i] = x
    return P


def lyapunov_exact(A: flint.fmpq_mat, C: flint.fmpq_mat):
    """The symmetric P with AᵀP + PA = C, exactly; None if the operator is singular."""
    d = A.nrows()
    try:
        x = _lyapunov_operator(A).solve(
            flint.fmpq_mat(len(svec_pairs(d)), 1, [C[k, l] for k, l in svec_pairs(d)]))
    except ZeroDivisionError:
        return None
    return _sym_of(d, x.entries())


def lyapunov_solution_set(A: flint.fmpq_mat, C: flint.fmpq_mat):
    """Every symmetric P with AᵀP + PA = C: (P0, [K_1, …]) meaning P0 + span{K_k}, exactly
    (reduced row echelon form over ℚ), or None when there is no solution.

    >>> rot = flint.fmpq_mat(2, 2, [0, 1, -1, 0])       # AᵀP + PA = 0 ⇔ P = tI
    >>> P0, Ks = lyapunov_solution_set(rot, flint.fmpq_mat(2, 2))
    >>> P0.tolist(), [K.tolist() for K in Ks]
    ([[0, 0], [0, 0]], [[[1, 0], [0, 1]]])
    """
    d = A.nrows()
    pairs = svec_pairs(d)
    n = len(pairs)
    K = _lyapunov_operator(A)
    aug = flint.fmpq_mat(n, n + 1, [K[r, c] if c < n else C[pairs[r][0], pairs[r][1]]
                                    for r in range(n) for c in range(n + 1)])
    R, rank = aug.rref()
    pivots = []
    for r in range(rank):
        c = next(c for c in range(n + 1) if R[r, c] != 0)
        if c == n:
            return None           # inconsistent: 0 = 1
        pivots.append(c)
    free = [c for c in range(n) if c not in pivots]
    x0 = [flint.fmpq(0)] * n
    for r, c in enumerate(pivots):
        x0[c] = R[r, n]
    basis = []
    for f in free:
        v = [flint.fmpq(0)] * n
        v[f] = flint.fmpq(1)
        for r, c in enumerate(pivots):
            v[c] = -R[r, f]
        basis.append(_sym_of(d, v))
    return _sym_of(d, x0), basis


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
    """Every V_h = v_h I: Σ ≻ 0 is an equilibrium ⇔ P = Σ⁻¹ ≻ 0 solves AᵀP + PA = −R.

    Returns ``("isolated", [Σ*])`` / ``("isolated", [])`` when the Lyapunov operator is
    invertible (the unique P is, or is not, ≻ 0), ``("none", [])`` when the equation has no
    solution, and ``("affine", (P0, [K…]))`` when the solutions form P0 + span{K_k} (a continuum:
    :mod:`symgauss.questions.equilibria.families`)."""
    p = exact_params(problem.params)
    R = quadratic_R_exact(p)
    sols = lyapunov_solution_set(p.A, -R)
    if sols is None:
        return "none", []
    P0, Ks = sols
    if Ks:
        return "affine", (P0, Ks)
    if not ldl_positive_definite(P0)[0]:
        return "isolated", []     # the unique solution is not ≻ 0: no positive-definite one
    return "isolated", [P0.inv()]
