"""Equilibria known exactly (rational Σ*), labelled with their exact stability decision."""
from __future__ import annotations

import flint

from symgauss.kernel.read import mat_text, vec_text
from symgauss.model.linearise import exact_params
from symgauss.questions.equilibria.lyapunov import mean_fixed_point
from symgauss.questions.equilibria.result import Equilibrium


def exact_equilibrium(problem, S, decide=True) -> Equilibrium:
    from symgauss.questions.stability.local import stability_of_exact
    m = mean_fixed_point(problem.params, S)
    rank = S.rank()
    stab = stability_of_exact(problem, S) if decide and rank == problem.d else None
    return Equilibrium(tuple(tuple(r) for r in mat_text(S)),
                       tuple(vec_text(m)) if m is not None else None, rank, "exact",
                       None if stab is None else {"verified": True, "refuted": False}.get(
                           stab.status), S, None, stab)


def linear_flow_stability(problem):
    """Stability of an equilibrium when the flow near it is Δ' = AΔ + ΔAᵀ + (quadratic terms):
    decided exactly from the spectrum of A (:func:`symgauss.questions.stability.spectrum.abscissa`).

    max Re λ(A) < 0: locally exponentially stable; > 0: unstable (the linearisation has the
    eigenvalue 2 Re λ, with a positive semidefinite eigen-direction Re(vv*)); = 0: when every
    V_hΣB_h ≡ 0 the flow is linear, Σ(t) = e^{At}Σ0e^{Aᵀt}, stable (not asymptotically) iff the
    imaginary-axis eigenvalues are semisimple, else unstable; with quadratic terms undecided.
    """
    from symgauss.questions.stability.local import StabilityResult
    from symgauss.questions.stability.spectrum import abscissa
    p = exact_params(problem.params)
    ab = abscissa(p.A)
    if ab.sign < 0:
        return StabilityResult("verified", f"A: {ab.reason}; the linearisation Δ ↦ AΔ + ΔAᵀ is "
                               "Hurwitz: locally exponentially stable", "exact")
    if ab.sign > 0:
        return StabilityResult("refuted", f"A: {ab.reason}; the linearisation Δ ↦ AΔ + ΔAᵀ has "
                               "the eigenvalue 2·Re λ > 0: unstable", "exact")
    if all(V == V * 0 or B == B * 0 for V, B in p.heads):
        if ab.semisimple:
            return StabilityResult("verified", f"V_hΣB_h ≡ 0, so Σ(t) = e^(At)Σ0e^(Aᵀt); A: "
                                   f"{ab.reason}: e^(At) stays bounded — stable, not "
                                   "asymptotically", "exact")
        return StabilityResult("refuted", f"V_hΣB_h ≡ 0, so Σ(t) = e^(At)Σ0e^(Aᵀt); A: "
                               f"{ab.reason}: e^(At) grows polynomially — unstable", "exact")
    return StabilityResult("undecided", f"A: {ab.reason}; the linearisation does not decide "
                           "and the quadratic terms are not analysed")


def zero_equilibrium(problem) -> Equilibrium:
    """Σ = 0 (rank 0): its linearisation is Δ ↦ AΔ + ΔAᵀ; stability by :func:`linear_flow_stability`."""
    d = problem.d
    stab = linear_flow_stability(problem)
    m = mean_fixed_point(problem.params, flint.fmpq_mat(d, d))
    return Equilibrium(tuple(tuple(r) for r in mat_text(flint.fmpq_mat(d, d))),
                       tuple(vec_text(m)) if m is not None else None, 0, "exact",
                       {"verified": True, "refuted": False}.get(stab.status),
                       flint.fmpq_mat(d, d), None, stab)
