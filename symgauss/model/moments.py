"""The moment system (paper eq. 1.1), evaluated for any matrix type with ``@`` and ``.T``.

    m' = (A + Σ_h V_h) m + Σ_h V_h Σ B_h m + b
    Σ' = AΣ + ΣAᵀ + Σ_h (V_h Σ B_h Σ + Σ B_hᵀ Σ V_hᵀ)

These formulas are what :func:`symgauss.derive_closure` derives from the PDE;
the test suite checks that the derived right-hand sides equal them exactly.

>>> import sympy as sp
>>> from symgauss import Problem
>>> p = Problem(cov0=[[1]], V=[[1]], B=[[1]])
>>> cov_rhs(p.params, sp.Matrix([[1]]))
Matrix([[2]])
"""
from __future__ import annotations


def velocity_matrix(params, S):
    """M = A + Σ_h V_h Σ B_h: the averaged velocity is v(x) = M x + (Σ_h V_h) m + b."""
    M = params.A
    for h in params.heads:
        M = M + h.V @ S @ h.B
    return M


def cov_rhs(params, S):
    """Σ' = MΣ + ΣMᵀ with M = A + Σ_h V_hΣB_h (equal to eq. 1.1's right-hand side)."""
    MS = velocity_matrix(params, S) @ S
    return MS + MS.T


def mean_rhs(params, m, S):
    """m' = M m + (Σ_h V_h) m + b."""
    out = velocity_matrix(params, S) @ m + params.b
    for h in params.heads:
        out = out + h.V @ m
    return out
