"""Rank-deficient cov0: the flow stays in {U S Uᵀ}, U a basis of W = range(cov0), when W is
invariant under A and every V_h (decided exactly); the reduced r×r problem, and its equilibria
lifted back to the original coordinates (with the mean of the real problem)."""
from __future__ import annotations

import dataclasses
from fractions import Fraction

import flint

from symgauss.kernel.errors import UnsupportedError
from symgauss.kernel.read import mat_text, vec_text
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


def _lift_ball(U, e, digits):
    """(cov texts, radius, mean texts, mean radius) of Σ* = U S* Uᵀ from the reduced ball."""
    from symgauss.questions.equilibria.result import decimal_ball, fraction_of
    C, r = e.enclosure[0], e.enclosure[1]
    d = U.nrows()
    Cd = U * C * U.transpose()
    # |(U E Uᵀ)_ij| ≤ r Σ_kl |U_ik||U_jl| for |E_kl| ≤ r
    rows = [sum((abs(fraction_of(U[i, k])) for k in range(U.ncols())), Fraction(0))
            for i in range(d)]
    rad = r * max(rows) ** 2
    texts, radius = decimal_ball([fraction_of(x) for x in Cd.entries()], rad, digits)
    return Cd, rad, tuple(tuple(texts[i * d:(i + 1) * d]) for i in range(d)), radius


def lift(problem, U, e, digits):
    from symgauss.questions.equilibria.lyapunov import mean_fixed_point
    from symgauss.questions.equilibria.refine import mean_ball
    from symgauss.questions.equilibria.result import Equilibrium
    r = U.ncols()
    stab = e.stability and dataclasses.replace(
        e.stability, reason=f"within the invariant set {{U S Uᵀ : S ≻ 0}} (U a basis of "
                            f"range(cov0), rank {r}), which holds every Σ(t) from cov0; for "
                            f"S*: {e.stability.reason}")
    if e.cov_exact is not None:
        S = U * e.cov_exact * U.transpose()
        m = mean_fixed_point(problem.params, S)
        return Equilibrium(tuple(tuple(x) for x in mat_text(S)),
                           tuple(vec_text(m)) if m is not None else None, e.rank, "exact",
                           e.stable, S, None, stab)
    if e.enclosure is not None:
        Cd, rad, cov, radius = _lift_ball(U, e, digits)
        mean, mrad = mean_ball(problem.params, Cd, rad, digits)
        return Equilibrium(cov, None if mean is None else tuple(mean), e.rank, e.level, e.stable,
                           radius=radius, stability=stab, mean_radius=mrad,
                           enclosure=(Cd, rad, None))
    # high-precision / float / algebraic: lift the printed decimals (no bound to carry)
    from symgauss.questions.equilibria.result import decimal_ball
    S = exact_matrix([[Fraction(x) for x in row] for row in e.cov])
    L = U * S * U.transpose()
    d = L.nrows()
    texts = decimal_ball([Fraction(int(x.p), int(x.q)) for x in L.entries()], 0,
                         e.digits or digits)[0]
    level = e.level if e.algebraic is None else "high-precision"
    return Equilibrium(tuple(tuple(texts[i * d:(i + 1) * d]) for i in range(d)), None, e.rank,
                       level, e.stable, stability=stab, digits=e.digits or digits)
