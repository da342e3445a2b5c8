"""Equilibria of the covariance equation AΣ + ΣAᵀ + Σ_h(V_hΣB_hΣ + ΣB_hᵀΣV_hᵀ) = 0.

- V_h = v_h I (quadratic term ΣRΣ, incl. d = 1): Σ* ≻ 0 ⇔ P* = Σ*⁻¹ ≻ 0 solves the Lyapunov
  equation AᵀP + PA = −R, solved exactly over the rationals (level ``exact``); a singular
  Lyapunov operator gives an exact family (:mod:`symgauss.questions.equilibria.families`). The
  list is proved complete.
- d = 2, general V: every equilibrium exactly by a lex Gröbner basis (rational, or algebraic with
  minimal polynomial and isolating interval), continua by a factorising Gröbner decomposition
  (:mod:`symgauss.questions.equilibria.groebner_d2`); proved complete when that finishes, else
  the Newton route below.
- General V: a float search (:mod:`symgauss.questions.equilibria.newton`, homotopies), then per
  root an exact-residual refinement and the kernel's Newton–Kantorovich proof (level
  ``rigorous``), or two agreeing high-precision runs (``high-precision``), or ``float``
  (:mod:`symgauss.questions.equilibria.refine`). Not proved complete.
- Σ = 0 is always an equilibrium (rank 0); its stability is decided exactly from spec(A).
- Rank-deficient cov0 whose range W is invariant under A and every V_h: the flow stays in
  {U S Uᵀ} (U a basis of W); the reduced r×r problem is solved and its equilibria are returned
  in the original coordinates, with the mean of the real problem.
- The mean's fixed point m* = −(A + Σ_h(V_h + V_hΣ*B_h))⁻¹ b, and the b giving a prescribed m*.

>>> from symgauss import Problem
>>> p = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 3]], V=[[-1, 0], [0, -1]],
...             B=[[1, 0], [0, 1]], b=[1, 0])
>>> res = find_equilibria(p)
>>> e = res[0]
>>> e.cov, e.mean, e.level, e.stable, res.complete
((('1', '0'), ('0', '3')), ('1', '0'), 'exact', True, True)
"""
from __future__ import annotations

from symgauss.kernel.errors import ProblemError, UnsupportedError
from symgauss.model.convert import require_numeric
from symgauss.model.linearise import exact_matrix, quadratic_R_exact
from symgauss.questions.equilibria.exact import exact_equilibrium, zero_equilibrium
from symgauss.questions.equilibria.result import EquilibriumSet


def find_equilibria(problem, digits: int = 30, *, include_zero: bool = True) -> EquilibriumSet:
    """Equilibria of a time-invariant numeric problem, positive definite first, Σ = 0 last.

    Returns an :class:`symgauss.questions.equilibria.result.EquilibriumSet` (iterate or index it
    for the equilibria; ``.families`` for continua, ``.complete`` whether every positive-definite
    equilibrium is proved to be listed). The positive-definite ones carry a stability decision
    (``stable`` True / False / None) with its evidence in ``.stability``.

    >>> import symgauss as sg
    >>> [(e.cov, e.level, e.stable) for e in sg.equilibria(sg.example("stable_diag"))]
    [((('1', '0'), ('0', '3')), 'exact', True), ((('0', '0'), ('0', '0')), 'exact', False)]
    """
    require_numeric(problem, "equilibria")
    if not problem.is_time_invariant:
        raise UnsupportedError("equilibria: this problem has time-varying 'controls'; equilibria "
                               "are defined for constant parameters")
    if isinstance(digits, bool) or not isinstance(digits, int) or not 5 <= digits <= 2000:
        raise ProblemError(f"digits = {digits!r}: ask for an integer between 5 and 2000")
    if exact_matrix(problem.cov0).rank() < problem.d:
        return find_equilibria_in_range(problem, digits)
    eqs, families, complete, method = positive_definite(problem, digits)
    if include_zero:
        eqs = list(eqs) + [zero_equilibrium(problem)]
    return EquilibriumSet(tuple(eqs), tuple(families), complete, method)


def positive_definite(problem, digits: int) -> tuple:
    """(equilibria, families, complete, method) for the positive-definite equilibria."""
    if quadratic_R_exact(problem.params) is not None:
        from symgauss.questions.equilibria.lyapunov import structured_equilibria
        how, found = structured_equilibria(problem)
        method = ("exact: every V_h = v_h I, so Σ* ≻ 0 ⇔ P = Σ*⁻¹ ≻ 0 solves AᵀP + PA = −R "
                  "(solved over ℚ)")
        if how == "affine":
            from symgauss.questions.equilibria.families import affine_family
            fam = affine_family(*found)
            return [], [fam] if fam is not None else [], True, method + "; a continuum"
        return [exact_equilibrium(problem, S) for S in found], [], True, method
    if problem.d == 2:
        from symgauss.questions.equilibria.families import equilibria_d2
        out = equilibria_d2(problem, digits)
        if out is not None:
            return (*out, "exact: Gröbner bases over ℚ (d = 2), every real solution")
    return newton_route(problem, digits)


def newton_route(problem, digits: int) -> tuple:
    """Float search, then refinement and proof per root; never proved complete."""
    import numpy as np

    from symgauss.questions.equilibria.families import numerical_family
    from symgauss.questions.equilibria.roots import float_roots
    from symgauss.questions.equilibria.refine import equilibrium_from_root
    roots, method = float_roots(problem)
    eqs, families = [], []
    for r in roots:
        if not np.all(np.linalg.eigvalsh(r.S) > 1e-10 * max(1.0, float(np.max(np.abs(r.S))))):
            continue          # not positive definite
        if r.continuum:
            families.append(r.S)
        else:
            eqs.append(equilibrium_from_root(problem, r.S, digits))
    order = {"exact": 0, "rigorous": 1, "high-precision": 2, "float": 3}
    eqs.sort(key=lambda e: order[e.level])
    return eqs, [numerical_family(families)] if families else [], False, method


def find_equilibria_in_range(problem, digits: int = 30):
    """Equilibria of rank r = rank(cov0) inside W = range(cov0), when W is invariant under A and
    every V_h (checked exactly): Σ = U S Uᵀ with S' = ÃS + SÃᵀ + Σ_h(ṼSB̃S + SB̃ᵀSṼᵀ),
    AU = UÃ, V_hU = UṼ_h, B̃_h = UᵀB_hU, returned in the original d×d coordinates; the mean is
    the real problem's m* = −M(Σ*)⁻¹b. Raises UnsupportedError when W is not invariant."""
    from symgauss.kernel.read import mat_text
    from symgauss.questions.equilibria.in_range import lift, range_reduction
    from symgauss.questions.equilibria.result import Family
    reduction = range_reduction(problem)
    if reduction is None:
        return EquilibriumSet((zero_equilibrium(problem),), (), True,
                              "cov0 = 0: Σ(t) = 0 for all t (rank invariance)")
    U, sub = reduction
    res = find_equilibria(sub, digits, include_zero=False)
    out = [lift(problem, U, e, digits) for e in res]
    fams = tuple(Family(f"in the invariant range of cov0, Σ = U S Uᵀ with U = {mat_text(U)} "
                        f"and S on: {f.description}", f.level, f.dimension, f.parametrisation,
                        None, None) for f in res.families)
    out.append(zero_equilibrium(problem))
    return EquilibriumSet(tuple(out), fams, res.complete,
                          f"reduced to the invariant range of cov0 (rank {U.ncols()}, exact), "
                          f"then: {res.method}")
