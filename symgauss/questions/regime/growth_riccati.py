"""Growth from the closed form of the Riccati equation (every V_h = v_h I, A = αI, α > 0): the
search for a ``growth-riccati`` certificate (the mathematics is in
:mod:`symgauss.kernel.kinds.growth_riccati`). A vector w of ker R, R = Σ_h v_h(B_h + B_hᵀ), is
all the witness; the claim's lower constant is wᵀw/(wᵀΣ0⁻¹w) exactly. The kernel decides the
rest (R ⪯ 0, Σ0 ≻ 0) exactly.
"""
from __future__ import annotations

import flint

from symgauss.questions.regime.blowup_bound import BlowupBound, verified


def find_growth_riccati(problem) -> BlowupBound:
    """A kernel-verified ``growth-riccati`` certificate, or why none was found."""
    from symgauss.kernel.equations import riccati_R, scalar_of
    from symgauss.kernel.read import read_problem
    from symgauss.questions.regime.basin import _problem_data
    ep = read_problem(_problem_data(problem))
    R, alpha = riccati_R(ep.params), scalar_of(ep.params.A)
    if R is None or alpha is None or not alpha > 0:
        return BlowupBound(None, "not every V_h = v_h I with A = αI, α > 0")
    from symgauss.kernel.exact import positive_definite
    if positive_definite(ep.cov0)[0] is not True:
        return BlowupBound(None, "cov0 is not positive definite (the closed form needs Σ0⁻¹)")
    X, nullity = R.numer_denom()[0].nullspace()
    if nullity == 0:
        return BlowupBound(None, "R = Σ_h v_h(B_h + B_hᵀ) is invertible: no direction escapes "
                           "its quadratic term")
    d = R.nrows()
    top = max(abs(X[i, 0]) for i in range(d))
    w = flint.fmpq_mat(d, 1, [flint.fmpq(X[i, 0], top) for i in range(d)])
    lower = (w.transpose() * w)[0, 0] / (w.transpose() * ep.cov0.inv() * w)[0, 0]
    claim = {"rate": str(2 * alpha), "lower": str(lower)}
    return verified("growth-riccati", problem, claim, {"w": [str(w[i, 0]) for i in range(d)]},
                    "the closed form of the Riccati equation Σ' = 2αΣ + ΣRΣ "
                    "(symgauss.questions.regime.growth_riccati)", level="exact")
