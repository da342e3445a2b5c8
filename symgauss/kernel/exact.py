"""Small exact linear algebra over the rationals (``fractions.Fraction`` and flint ``fmpq_mat``).

Trusted kernel: used by problem validation and by the certificate checker, so it stays short
and imports nothing but the standard library and python-flint.

>>> psd_decision([[Fraction(2), Fraction(1)], [Fraction(1), Fraction(1)]])
(True, [Fraction(2, 1), Fraction(1, 2)], None)
>>> psd_decision([[Fraction(1), Fraction(2)], [Fraction(2), Fraction(1)]])[0]
False
"""
from __future__ import annotations

from fractions import Fraction

import flint

from symgauss.kernel.verdict import Invalid, Refuted

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


def ldl_positive_definite(S: flint.fmpq_mat) -> tuple:
    """Exact test that symmetric S ≻ 0: all LDLᵀ pivots positive. Returns (ok, pivots).

    S = N/den (N integer); FLINT's fraction-free LU (Bareiss) puts the leading principal minors
    m_k of N on the diagonal of U when it needs no row exchange (it exchanges only at a zero
    minor); pivots m_k/(m_{k−1}·den) > 0 for all k ⇔ S ≻ 0 (Sylvester's criterion).
    """
    n = S.nrows()
    N, den = S.numer_denom()
    perm, _, _, U = N.fflu()
    pivots, prev = [], flint.fmpz(1)
    for k in range(n):
        if any(perm[k, j] != (k == j) for j in range(n)):
            return False, pivots + [flint.fmpq(0)]  # an exchange: the leading minor k is 0
        pivots.append(flint.fmpq(U[k, k], prev * den))
        if U[k, k] <= 0:
            return False, pivots
        prev = U[k, k]
    return True, pivots


def require_pd(M: flint.fmpq_mat, what: str) -> None:
    """Raise :class:`Refuted` unless the symmetric M ≻ 0 (exact LDLᵀ); Invalid if not symmetric."""
    if M.transpose() != M:
        raise Invalid(f"{what} is not symmetric")
    ok, piv = ldl_positive_definite(M)
    if not ok:
        raise Refuted(f"{what} is not positive definite (LDLᵀ pivot {len(piv)} = {piv[-1]})")


def eye(n: int) -> flint.fmpq_mat:
    return flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])


def require_decay(L: flint.fmpq_mat, P: flint.fmpq_mat, rate, what: str, slack=0) -> None:
    """P ≻ 0 and −(LᵀP + PL) − rate·P − slack·I ≻ 0, decided exactly (else :class:`Refuted`)."""
    require_pd(P, f"{what}: P")
    require_pd(-(L.transpose() * P + P * L) - P * rate - eye(L.nrows()) * slack,
               f"{what}: −(LᵀP + PL) − {rate}·P" + (" − margin·I" if slack else ""))


def norm_inf(M: flint.fmpq_mat) -> flint.fmpq:
    """The max-row-sum norm, exactly."""
    return max(sum((abs(M[i, j]) for j in range(M.ncols())), flint.fmpq(0))
               for i in range(M.nrows()))
