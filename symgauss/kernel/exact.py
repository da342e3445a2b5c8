"""Small exact linear algebra over the rationals (``fractions.Fraction``).

Trusted code: used by problem validation and by the certificate checker, so it
stays short and imports nothing but the standard library.

>>> psd_decision([[Fraction(2), Fraction(1)], [Fraction(1), Fraction(1)]])
(True, [Fraction(2, 1), Fraction(1, 2)], None)
>>> psd_decision([[Fraction(1), Fraction(2)], [Fraction(2), Fraction(1)]])[0]
False
"""
from __future__ import annotations

from fractions import Fraction

Matrix = list  # list of lists of Fraction


def psd_decision(S):
    """Decide exactly whether the symmetric rational matrix ``S`` is PSD.

    Returns ``(is_psd, pivots, witness)``: on success the LDLᵀ pivots (with
    symmetric elimination; zero pivots allowed only with zero rows), otherwise
    a rational vector ``x`` with ``xᵀ S x < 0``.
    """
    n = len(S)
    M = [[Fraction(v) for v in row] for row in S]
    # T holds the elimination so that a witness can be mapped back: x = T e.
    T = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    pivots = []
    for k in range(n):
        p = M[k][k]
        if p < 0:
            return False, pivots, [T[i][k] for i in range(n)]
        if p == 0:
            for j in range(k + 1, n):
                if M[k][j] != 0:
                    # x = e_k * t + e_j with t chosen so xᵀMx = 2 t M_kj + M_jj < 0
                    t = -(abs(M[j][j]) + 1) / (2 * M[k][j])
                    col = [T[i][k] * t + T[i][j] for i in range(n)]
                    return False, pivots, col
            pivots.append(p)
            continue
        pivots.append(p)
        col = [M[i][k] for i in range(n)]
        for i in range(k + 1, n):
            if col[i] == 0:
                continue
            f = col[i] / p
            for j in range(k + 1, n):
                M[i][j] -= f * col[j]
            # congruence e_i <- e_i - f e_k: M = Tᵀ S T stays true
            for r in range(n):
                T[r][i] -= f * T[r][k]
        for i in range(k + 1, n):
            M[i][k] = M[k][i] = Fraction(0)
    return True, pivots, None


def is_symmetric(S) -> bool:
    n = len(S)
    return all(S[i][j] == S[j][i] for i in range(n) for j in range(i + 1, n))


def rank(M) -> int:
    """Exact rank by fraction-free row reduction."""
    rows = [[Fraction(v) for v in row] for row in M]
    r = 0
    ncols = len(rows[0]) if rows else 0
    for c in range(ncols):
        piv = next((i for i in range(r, len(rows)) if rows[i][c] != 0), None)
        if piv is None:
            continue
        rows[r], rows[piv] = rows[piv], rows[r]
        for i in range(len(rows)):
            if i != r and rows[i][c] != 0:
                f = rows[i][c] / rows[r][c]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[r])]
        r += 1
    return r


def quad_form(S, x) -> Fraction:
    n = len(S)
    return sum(x[i] * S[i][j] * x[j] for i in range(n) for j in range(n))
