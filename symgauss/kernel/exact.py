"""Small exact linear algebra over the rationals (python-flint ``fmpq_mat``).

Trusted kernel: used by problem validation and by the certificate checker, so it stays short
and imports nothing but the standard library and python-flint.

>>> is_psd([[2, 1], [1, 1]]), is_psd([[1, 2], [2, 1]]), is_psd([[0, 0], [0, 1]])
(True, False, True)
"""
from __future__ import annotations

from fractions import Fraction

import flint

from symgauss.kernel.verdict import Invalid, NotProved


def as_fmpq_mat(S) -> flint.fmpq_mat:
    """An fmpq_mat from an fmpq_mat or nested lists of rationals (Fraction, int, fmpq)."""
    if isinstance(S, flint.fmpq_mat):
        return S
    rows = [[v if isinstance(v, flint.fmpq) else flint.fmpq(Fraction(v).numerator,
                                                             Fraction(v).denominator)
             for v in row] for row in S]
    return flint.fmpq_mat(len(rows), len(rows[0]) if rows else 0, [v for r in rows for v in r])


#: exact (fraction-free) decisions on an n×n matrix of b-bit integers cost about n⁴b² bit
#: operations; past this the checker answers "over a limit" instead of working for minutes
EXACT_WORK_LIMIT = 5 * 10 ** 12


def exact_work(M: flint.fmpq_mat) -> int:
    """The n⁴b² estimate for M (b: bits of the largest entry over a common denominator)."""
    N, den = M.numer_denom()
    b = max([abs(x).bit_length() for x in N.entries()] + [1]) + den.bit_length()
    return M.nrows() ** 4 * b * b


def is_psd(S) -> bool:
    """Exactly: is the symmetric rational matrix S positive semidefinite?

    Every eigenvalue of a symmetric matrix is real, so S ⪰ 0 ⇔ its characteristic polynomial
    Σ c_k λ^k has no positive root reached by sign changes of λ ↦ p(−λ): (−1)^{n−k} c_k ≥ 0 for
    every k (Descartes' rule, exact for real-rooted polynomials). One charpoly in FLINT: fast
    for large d.
    """
    M = as_fmpq_mat(S)
    if M.transpose() != M:
        return False
    coeffs = M.charpoly().coeffs()  # c_0 .. c_n, monic
    n = len(coeffs) - 1
    return all((c if (n - k) % 2 == 0 else -c) >= 0 for k, c in enumerate(coeffs))


def psd_witness(S):
    """A rational vector x with xᵀ S x < 0, or None when S ⪰ 0 (symmetric S; exact LDLᵀ).

    >>> psd_witness([[1, 2], [2, 1]])
    [-2, 1]
    >>> psd_witness([[2, 1], [1, 1]]) is None
    True
    """
    if is_psd(S):
        return None
    M0 = as_fmpq_mat(S)
    n = M0.nrows()
    M = [[M0[i, j] for j in range(n)] for i in range(n)]
    # T holds the elimination so that a witness can be mapped back: x = T e.
    T = [[flint.fmpq(int(i == j)) for j in range(n)] for i in range(n)]
    for k in range(n):
        p = M[k][k]
        if p < 0:
            return [T[i][k] for i in range(n)]
        if p == 0:
            for j in range(k + 1, n):
                if M[k][j] != 0:
                    # x = e_k * t + e_j with t chosen so xᵀMx = 2 t M_kj + M_jj < 0
                    t = -(abs(M[j][j]) + 1) / (2 * M[k][j])
                    return [T[i][k] * t + T[i][j] for i in range(n)]
            continue
        col = [M[i][k] for i in range(n)]
        for i in range(k + 1, n):
            if col[i] == 0:
                continue
            f = col[i] / p
            for j in range(k + 1, n):
                M[i][j] -= f * col[j]
            for r in range(n):  # congruence e_i <- e_i - f e_k: M = Tᵀ S T stays true
                T[r][i] -= f * T[r][k]
        for i in range(k + 1, n):
            M[i][k] = M[k][i] = flint.fmpq(0)
    raise AssertionError("is_psd and the LDLᵀ disagree")  # unreachable: both are exact


def rank(M) -> int:
    """Exact rank (FLINT) of an fmpq_mat or nested lists of rationals."""
    return as_fmpq_mat(M).rank()


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


def _ldl_balls(M: flint.fmpq_mat, prec: int):
    """LDLᵀ of the exact symmetric M in ball arithmetic: (True, k) when every pivot is certainly
    positive (M ≻ 0 proved), (False, (k, pivot)) when pivots 1..k−1 are certainly positive and
    pivot k certainly is not (M not ≻ 0 proved: pivot k is an exact Schur complement), else None.
    The balls contain the exact pivots, so either answer is a proof."""
    n = M.nrows()
    with flint.ctx.workprec(prec):
        W = [[flint.arb(M[i, j]) for j in range(n)] for i in range(n)]
        for k in range(n):
            p = W[k][k]
            if not p > 0:
                return (False, (k + 1, p)) if p <= 0 else None
            for i in range(k + 1, n):
                f = W[i][k] / p
                if f == 0:
                    continue
                row, pivot_row = W[i], W[k]
                for j in range(k + 1, i + 1):
                    row[j] = row[j] - f * pivot_row[j]
            for i in range(k + 1, n):          # keep the lower triangle's values mirrored
                for j in range(i + 1, n):
                    W[i][j] = W[j][i]
    return True, n


def positive_definite(M: flint.fmpq_mat) -> tuple:
    """Decide exactly whether the symmetric rational M ≻ 0: (ok, why-not).

    Ball-arithmetic LDLᵀ at 128 and 512 bits settles almost every case fast (its answer is a
    proof either way, see :func:`_ldl_balls`); only when it cannot separate a pivot from 0 does
    the exact fraction-free LDLᵀ decide — within :data:`EXACT_WORK_LIMIT`, else ``ok`` is None
    (undecided). ``why-not`` names the first non-positive pivot.
    """
    for prec in (128, 512):
        found = _ldl_balls(M, prec)
        if found is not None:
            ok, info = found
            return (True, "") if ok else (False, f"LDLᵀ pivot {info[0]} ≤ 0 (≈ "
                                                 f"{info[1].mid().str(5, radius=False)})")
    if exact_work(M) > EXACT_WORK_LIMIT:
        return None, ("undecided: ball arithmetic at 512 bits does not separate an LDLᵀ pivot "
                      "from 0, and the exact test is over the checker's size limit")
    ok, piv = ldl_positive_definite(M)
    return ok, "" if ok else f"LDLᵀ pivot {len(piv)} = {brief_number(piv[-1])} ≤ 0 (exact)"


def brief_number(x) -> str:
    t = str(x)
    return t if len(t) <= 60 else f"{t[:30]}… ({len(t)} characters)"


def require_small(M: flint.fmpq_mat, what: str) -> None:
    """:class:`Invalid` when an exact computation on M would be over :data:`EXACT_WORK_LIMIT`."""
    if exact_work(M) > EXACT_WORK_LIMIT:
        raise Invalid(f"over a limit: {what} is too large for exact arithmetic in this checker "
                      "(entries too long for its size)")


def require_pd(M: flint.fmpq_mat, what: str, failure=NotProved) -> None:
    """Raise ``failure`` (default :class:`NotProved`) unless the symmetric M ≻ 0 (decided
    exactly, :func:`positive_definite`); :class:`Invalid` if M is not symmetric."""
    if M.transpose() != M:
        raise Invalid(f"{what} is not symmetric")
    ok, why = positive_definite(M)
    if ok is None:
        raise NotProved(f"whether {what} is positive definite is {why}")
    if not ok:
        raise failure(f"{what} is not positive definite ({why})")


def eye(n: int) -> flint.fmpq_mat:
    return flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])


def require_decay(L: flint.fmpq_mat, P: flint.fmpq_mat, rate, what: str, slack=0) -> None:
    """P ≻ 0 and −(LᵀP + PL) − rate·P − slack·I ≻ 0, decided exactly (else :class:`NotProved`:
    a witness that fails proves nothing about L)."""
    require_pd(P, f"{what}: P")
    require_pd(-(L.transpose() * P + P * L) - P * rate - eye(L.nrows()) * slack,
               f"{what}: −(LᵀP + PL) − {rate}·P" + (" − margin·I" if slack else ""))


def norm_inf(M: flint.fmpq_mat) -> flint.fmpq:
    """The max-row-sum norm, exactly."""
    return max(sum((abs(M[i, j]) for j in range(M.ncols())), flint.fmpq(0))
               for i in range(M.nrows()))
