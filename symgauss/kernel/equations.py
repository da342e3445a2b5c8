"""The moment equations, exactly (python-flint ``fmpq_mat``): the checker's own formulas.

For constant parameters (A, heads (V_h, B_h)), eq. 1.1's covariance field is F(Σ) = MΣ + ΣMᵀ with
M = A + Σ_h V_hΣB_h. svec coordinates are the entries i ≤ j, row-major, unscaled, so that a
rational Σ gives a rational matrix. Trusted kernel: standard library, python-flint and the kernel.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import eye


def svec(M) -> list:
    """The entries M_ij, i ≤ j, row-major."""
    d = M.nrows()
    return [M[i, j] for i in range(d) for j in range(i, d)]


def velocity_matrix(p, S, extra=False):
    """M = A + Σ_h V_hΣB_h (``extra``: + Σ_h V_h, the mean's matrix at Σ)."""
    M = p.A
    for V, B in p.heads:
        M = M + V * S * B + (V if extra else V * 0)
    return M


def residual(p, S):
    """F(Σ) = MΣ + ΣMᵀ with M = A + Σ_h V_hΣB_h (eq. 1.1)."""
    M = velocity_matrix(p, S)
    return M * S + S * M.transpose()


def linearisation(p, S):
    """svec matrix of DF(Σ)[Δ] = MΔ + ΔMᵀ + WΣ + ΣWᵀ, W = Σ_h V_hΔB_h."""
    d, M, cols = S.nrows(), velocity_matrix(p, S), []
    no_A = type(p)(p.A * 0, p.heads, p.b)
    for i in range(d):
        for j in range(i, d):
            E = flint.fmpq_mat(d, d)
            E[i, j] = E[j, i] = 1
            X = M * E + velocity_matrix(no_A, E) * S
            cols.append(svec(X + X.transpose()))
    n = len(cols)
    return flint.fmpq_mat(n, n, [cols[k][r] for r in range(n) for k in range(n)])


def hurwitz_det(L, k):
    """k-th Hurwitz determinant of charpoly(L) (monic: all positive ⇔ L Hurwitz)."""
    a, n = L.charpoly().coeffs()[::-1], L.nrows()  # a[0] = 1
    return flint.fmpq_mat(k, k, [a[2 * j - i] if 0 <= 2 * j - i <= n else 0
                                 for i in range(1, k + 1) for j in range(1, k + 1)]).det()


def hurwitz_stable(L) -> bool:
    """Every Hurwitz determinant of charpoly(L) > 0: every eigenvalue of L has Re < 0 (exact)."""
    return all(hurwitz_det(L, k) > 0 for k in range(1, L.nrows() + 1))


def scalar_of(V):
    """v if V = vI exactly, else None."""
    v = V[0, 0]
    return v if V == eye(V.nrows()) * v else None


def riccati_R(p):
    """R with Σ_h(V_hΣB_hΣ + ΣB_hᵀΣV_hᵀ) = ΣRΣ, when every V_h = v_h I; else None."""
    R = p.A * 0
    for V, B in p.heads:
        v = scalar_of(V)
        if v is None:
            return None
        R = R + (B + B.transpose()) * v
    return R
