"""Equilibria of the covariance equation AΣ + ΣAᵀ + Σ_h(V_hΣB_hΣ + ΣB_hᵀΣV_hᵀ) = 0.

- V_h = v_h I (quadratic term ΣRΣ, incl. d = 1): Σ* ≻ 0 ⇔ P* = Σ*⁻¹ ≻ 0 solves the Lyapunov
  equation AᵀP + PA = −R, solved exactly over the rationals (level ``exact``).
- d = 2, general V: every equilibrium exactly by a lex Gröbner basis (rational, or algebraic with
  minimal polynomial and isolating interval), :mod:`symgauss.questions.equilibria.groebner_d2`; when that does
  not decide (a continuum, too large an input, no shape position) the Newton route below.
- General V: Newton in svec coordinates from several starts (floats), refined at high precision
  (mpmath), then an existence-and-uniqueness proof in a max-norm ball by exact Newton–Kantorovich
  bounds (level ``rigorous``), otherwise ``high-precision``.
- Σ = 0 is always an equilibrium (rank 0); it attracts small Σ0 when A is Hurwitz.
- Rank-deficient cov0 whose range W is invariant under A and every V_h: the flow stays in
  {U S Uᵀ} (U a basis of W), and equilibria of the reduced r×r problem are lifted.
- The mean's fixed point m* = −(A + Σ_h(V_h + V_hΣ*B_h))⁻¹ b, and the b giving a prescribed m*.

>>> from symgauss import Problem
>>> p = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 3]], V=[[-1, 0], [0, -1]],
...             B=[[1, 0], [0, 1]], b=[1, 0])
>>> e = find_equilibria(p)[0]
>>> e.cov, e.mean, e.level, e.stable
((('1', '0'), ('0', '3')), ('1', '0'), 'exact', True)
"""
from __future__ import annotations

import dataclasses

from symgauss.kernel.errors import ProblemError, UnsupportedError
from symgauss.kernel.read import mat_text, vec_text
from symgauss.model.convert import require_numeric
from symgauss.model.linearise import exact_matrix, quadratic_R_exact
from symgauss.questions.equilibria.exact import exact_equilibrium, zero_equilibrium
from symgauss.questions.equilibria.in_range import range_reduction
from symgauss.questions.equilibria.lyapunov import mean_fixed_point, structured_equilibria
from symgauss.questions.equilibria.newton import (
    enclose,
    mean_mp,
    newton_candidates,
    num_text,
    try_rational,
)
from symgauss.questions.equilibria.result import Equilibrium


def find_equilibria(problem, digits: int = 30, *, include_zero: bool = True) -> tuple:
    """All equilibria found for a time-invariant numeric problem, positive definite first.

    The positive-definite ones carry a stability decision (``stable`` True / False / None) with
    its evidence in ``.stability`` (a :class:`symgauss.questions.stability.certify.StabilityResult`).
    Rank-deficient cov0: see :func:`find_equilibria_in_range`.

    >>> import symgauss as sg
    >>> [(e.cov, e.level, e.stable) for e in sg.equilibria(sg.example("stable_diag"))]
    [((('1', '0'), ('0', '3')), 'exact', True), ((('0', '0'), ('0', '0')), 'exact', False)]
    """
    require_numeric(problem, "equilibria")
    if not problem.is_time_invariant:
        raise UnsupportedError("equilibria: this problem has time-varying 'controls'; equilibria "
                               "are defined for constant parameters")
    if not isinstance(digits, int) or not 5 <= digits <= 2000:
        raise ProblemError(f"digits = {digits!r}: ask for an integer between 5 and 2000")
    r = exact_matrix(problem.cov0).rank()
    if r < problem.d:
        return find_equilibria_in_range(problem, digits)
    out = None
    exact = structured_equilibria(problem) if quadratic_R_exact(problem.params) is not None else None
    if exact is not None:
        out = [exact_equilibrium(problem, S) for S in exact]
    elif problem.d == 2:  # exact polynomial-system solving; None: undecided, Newton below
        from symgauss.questions.equilibria.groebner_d2 import equilibria_d2
        out = equilibria_d2(problem, digits)
    if out is None:
        out = []
        for Smp in newton_candidates(problem, digits):
            S_try = try_rational(problem, Smp)
            if S_try is not None:
                out.append(exact_equilibrium(problem, S_try))
                continue
            enc = enclose(problem, Smp, digits)
            mean = mean_mp(problem, Smp, digits)
            cov = tuple(tuple(num_text(x, digits) for x in row) for row in Smp)
            if enc is None:
                out.append(Equilibrium(cov, mean, problem.d, "high-precision", None))
                continue
            C, radius, res = enc
            out.append(Equilibrium(cov, mean, problem.d, "rigorous",
                                   True if res.status == "verified" else None, None, radius, res))
    if include_zero:
        out.append(zero_equilibrium(problem))
    return tuple(out)


def find_equilibria_in_range(problem, digits: int = 30) -> tuple:
    """Equilibria of rank r = rank(cov0) inside W = range(cov0), when W is invariant under A and
    every V_h (checked exactly): Σ = U S Uᵀ with S' = ÃS + SÃᵀ + Σ_h(ṼSB̃S + SB̃ᵀSṼᵀ),
    AU = UÃ, V_hU = UṼ_h, B̃_h = UᵀB_hU. Raises UnsupportedError when W is not invariant."""
    reduction = range_reduction(problem)
    if reduction is None:
        return (zero_equilibrium(problem),)
    U, sub = reduction
    out = []
    for e in find_equilibria(sub, digits, include_zero=False):
        if e.cov_exact is None:
            out.append(Equilibrium(e.cov, None, e.rank, e.level, e.stable))  # reduced coords
            continue
        S = U * e.cov_exact * U.transpose()
        m = mean_fixed_point(problem.params, S)
        stab = e.stability and dataclasses.replace(
            e.stability, reason=f"in the invariant range of cov0 (rank {U.ncols()}), for the "
                                f"reduced {U.ncols()}×{U.ncols()} problem: {e.stability.reason}")
        out.append(Equilibrium(tuple(tuple(r) for r in mat_text(S)),
                               tuple(vec_text(m)) if m is not None else None, e.rank, "exact",
                               e.stable, S, None, stab))
    out.append(zero_equilibrium(problem))
    return tuple(out)
