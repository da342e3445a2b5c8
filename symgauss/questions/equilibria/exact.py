"""Equilibria known exactly (rational Σ*), labelled with their exact stability decision."""
from __future__ import annotations

import flint
import numpy as np

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


def zero_equilibrium(problem) -> Equilibrium:
    """Σ = 0: linearisation Δ ↦ AΔ + ΔAᵀ, stable iff A is Hurwitz (decided exactly)."""
    from symgauss.kernel.equations import hurwitz_det
    d = problem.d
    A = exact_params(problem.params).A
    hur = all(hurwitz_det(A, k) > 0 for k in range(1, d + 1))
    eig = float(np.max(np.linalg.eigvals(np.array(A.tolist(), dtype=float)).real))
    stable = True if hur else (False if eig > 1e-9 else None)
    m = mean_fixed_point(problem.params, flint.fmpq_mat(d, d))
    return Equilibrium(tuple(tuple(r) for r in mat_text(flint.fmpq_mat(d, d))),
                       tuple(vec_text(m)) if m is not None else None, 0, "exact", stable,
                       flint.fmpq_mat(d, d))
