"""The covariance flow near an equilibrium: residual and linearisation on Sym(d).

Coordinates: svec(Δ) = (Δ_ij)_{i ≤ j}, row-major, unscaled — so that a rational Σ gives a
rational matrix. For F(Σ) = MΣ + ΣMᵀ, M = A + Σ_h V_hΣB_h,

    DF(Σ)[Δ] = MΔ + ΔMᵀ + WΣ + ΣWᵀ,   W = Σ_h V_hΔB_h,

and when every V_h = v_h I (quadratic term ΣRΣ, notes §4) this is NΔ + ΔNᵀ with N = A + ΣR,
whose spectrum is {λ_i + λ_j} — a d×d question instead of a d(d+1)/2 one.

Three number types: exact (python-flint ``fmpq_mat``; the formulas are the ones in the trusted
checker, :mod:`symgauss.kernel.equations`, so search and check cannot disagree), float (numpy)
and high precision (numpy object arrays of mpmath ``mpf``).

>>> from symgauss import Problem
>>> p = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 3]], V=[[-1, 0], [0, -1]], B=[[1, 0], [0, 1]])
>>> S = exact_matrix([[1, 0], [0, 3]])     # Σ* = diag(a_i): 2a σ − 2σ² = 0
>>> residual_exact(p.params, S) == exact_matrix([[0, 0], [0, 0]])
True
>>> linearisation_exact(p.params, S).tolist()
[[-2, 0, 0], [0, -4, 0], [0, 0, -6]]
>>> structured_N(p.params, S).tolist()      # N = A + ΣR, R = -2I
[[-1, 0], [0, -3]]
"""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from symgauss.kernel.equations import linearisation as _lin_exact
from symgauss.kernel.equations import residual as _res_exact
from symgauss.kernel.equations import riccati_R
from symgauss.kernel.read import ExactParams


def svec_pairs(d: int) -> list:
    """Index pairs (i, j), i ≤ j, in svec order."""
    return [(i, j) for i in range(d) for j in range(i, d)]


def svec(M) -> list:
    d = len(M)
    return [M[i][j] for i, j in svec_pairs(d)]


def smat(v, d: int, zero=0) -> list:
    """The symmetric d×d matrix (nested lists) with svec ``v``."""
    out = [[zero] * d for _ in range(d)]
    for (i, j), x in zip(svec_pairs(d), v):
        out[i][j] = out[j][i] = x
    return out


def _q(x) -> flint.fmpq:
    if isinstance(x, flint.fmpq):
        return x
    if hasattr(x, "q") and hasattr(x, "p"):  # SymPy Rational
        return flint.fmpq(int(x.p), int(x.q))
    f = Fraction(x)
    return flint.fmpq(f.numerator, f.denominator)


def exact_matrix(rows) -> flint.fmpq_mat:
    """fmpq_mat from nested lists (or a SymPy matrix) of rationals / rational strings."""
    if hasattr(rows, "tolist"):
        rows = rows.tolist()
    rows = [[_q(x) for x in row] for row in rows]
    m, n = len(rows), len(rows[0]) if rows else 0
    return flint.fmpq_mat(m, n, [x for r in rows for x in r])


def exact_params(params) -> ExactParams:
    """The flint form of :class:`symgauss.model.problem.Params` (rational entries only)."""
    return ExactParams(exact_matrix(params.A),
                       tuple((exact_matrix(h.V), exact_matrix(h.B)) for h in params.heads),
                       exact_matrix(params.b))


def _ep(params):
    return params if isinstance(params, ExactParams) else exact_params(params)


def residual_exact(params, S: flint.fmpq_mat) -> flint.fmpq_mat:
    """AΣ + ΣAᵀ + Σ_h(V_hΣB_hΣ + ΣB_hᵀΣV_hᵀ), exactly."""
    return _res_exact(_ep(params), S)


def linearisation_exact(params, S: flint.fmpq_mat) -> flint.fmpq_mat:
    """The svec matrix of DF(Σ), exactly (n×n, n = d(d+1)/2)."""
    return _lin_exact(_ep(params), S)


def quadratic_R_exact(params):
    """R with quadratic term ΣRΣ (every V_h = v_h I), as fmpq_mat, or None."""
    return riccati_R(_ep(params))


def structured_N(params, S: flint.fmpq_mat):
    """N = A + ΣR for V_h = v_h I (else None): the linearisation is Δ ↦ NΔ + ΔNᵀ."""
    p = _ep(params)
    R = riccati_R(p)
    return None if R is None else p.A + S * R


# --- float / high precision (numpy arrays of float or of mpf) --------------------------------
def numeric_params(params, convert):
    """(A, [(V, B)...], b) as numpy arrays, each entry passed through ``convert``."""
    def arr(M):
        return np.array([[convert(M[i, j]) for j in range(M.shape[1])]
                         for i in range(M.shape[0])], dtype=object if convert is not float
                        else float)
    return arr(params.A), [(arr(h.V), arr(h.B)) for h in params.heads], arr(params.b)


def residual_num(A, heads, S):
    M = A + sum((V @ S @ B for V, B in heads), 0 * A)
    return M @ S + S @ M.T


def linearisation_num(A, heads, S):
    """svec matrix of DF(Σ) for numpy (float or object) arrays."""
    d = S.shape[0]
    M = A + sum((V @ S @ B for V, B in heads), 0 * A)
    cols = []
    for i, j in svec_pairs(d):
        E = 0 * A
        E[i, j] = E[j, i] = 1
        W = sum((V @ E @ B for V, B in heads), 0 * A)
        X = M @ E + W @ S
        X = X + X.T
        cols.append([X[k, l] for k, l in svec_pairs(d)])
    return np.array(cols, dtype=S.dtype).T


def to_float_matrix(M: flint.fmpq_mat) -> np.ndarray:
    return np.array([[float(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())])
