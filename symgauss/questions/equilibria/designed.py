"""Problems with a prescribed rational equilibrium, any d (for tests and benchmarks).

Σ* ≻ 0 is an equilibrium iff M Σ* is skew, M = A + Σ_h V_hΣ*B_h (then MΣ* + Σ*Mᵀ = 0). Choosing
M = Σ*Ω with Ω skew gives MΣ* = Σ*ΩΣ*, skew, so

    A = −VΣ*B + Σ*Ω

makes Σ* an equilibrium with entries as short as those of Σ*, V, B and Ω (no Σ*⁻¹). Every
positive-definite equilibrium of a one-head problem arises this way: Ω = Σ*⁻¹M = Σ*⁻¹(MΣ*)Σ*⁻¹
is skew exactly when MΣ* is.

>>> from symgauss.model.linearise import residual_exact
>>> p, S = designed_problem(4, seed=3)
>>> all(x == 0 for x in residual_exact(p.params, S).entries())
True
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from symgauss.model.linearise import exact_matrix


def _rational(rng, scale: float, shape, den: int) -> list:
    return [[Fraction(int(round(scale * den * x)), den) for x in row]
            for row in rng.standard_normal(shape)]


def designed_problem(d: int, seed: int = 0, *, kind: str = "stable", den: int = 20):
    """(problem, Σ*): a one-head problem with the exact equilibrium Σ* = GGᵀ + I.

    ``kind="stable"``: V = −I + E, B = I + E' with small E, E' (near the opposite-sign regime,
    usually a stable Σ*); ``kind="random"``: V, B with integer entries in [−2, 2]. Entries are
    multiples of 1/``den``; Ω, b random; cov0 = I.
    """
    from symgauss import Problem
    rng = np.random.default_rng(seed)
    eye = exact_matrix(np.eye(d, dtype=int).tolist())
    G = exact_matrix(_rational(rng, 0.5 / np.sqrt(d), (d, d), den))
    S = G * G.transpose() + eye
    if kind == "stable":
        V = exact_matrix(_rational(rng, 0.1, (d, d), den)) - eye
        B = exact_matrix(_rational(rng, 0.1, (d, d), den)) + eye
    elif kind == "random":
        V, B = (exact_matrix(rng.integers(-2, 3, (d, d)).tolist()) for _ in range(2))
    else:
        raise ValueError(f"kind = {kind!r}: expected 'stable' or 'random'")
    W = exact_matrix(_rational(rng, 0.5, (d, d), den))
    A = -(V * S * B) + S * (W - W.transpose())

    def txt(M):
        return [[str(x) for x in r] for r in M.tolist()]
    b = [str(Fraction(int(x), den)) for x in np.round(den * rng.standard_normal(d))]
    return Problem(cov0=txt(eye), A=txt(A), V=txt(V), B=txt(B), b=b), S
