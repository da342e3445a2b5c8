"""Hints for the Coq re-check of a certificate (untrusted: Coq re-checks every one).

- :func:`pd_hint`: for a rational matrix M that is positive definite, an upper-triangular integer
  R and integers T, σ > 0 such that E = T·M − σ·I − RᵀR has Σ_j (|E_ij| + |E_ji|) < 2σ for
  every i (the test ``pd_check`` of ``coq/SymGauss/PosDef.v``, proved sound there). R/√T is a
  rounded Cholesky factor of M − (σ/T)·I, computed in double precision and, when M is too
  ill-conditioned for that, with mpmath at 128, 256 and 512 bits; each candidate is checked here
  exactly first, so a written hint passes in Coq.
- :func:`not_nd_hint`: an integer x ≠ 0 with xᵀPx ≥ 0 (P not negative definite).
- :func:`rank_hint`: exact factorisations pinning rank M = r (M = XYᵀ, ΛMΡ = I_r).

>>> import flint
>>> R, T, s = pd_hint(flint.fmpq_mat([[2, 1], [1, 2]]))
>>> s > 0 and T > 0
True
"""
from __future__ import annotations

from fractions import Fraction

import flint

from symgauss.kernel.errors import SymgaussError

PRECISIONS = (53, 128, 256, 512)


class HintError(SymgaussError):
    """No hint found (the matrix is too ill-conditioned for the rounded test)."""


def _rows(M) -> list:
    return [[Fraction(int(M[i, j].p), int(M[i, j].q)) for j in range(M.ncols())]
            for i in range(M.nrows())]


def _passes(M, R, T: int, sigma: int) -> bool:
    """The Coq test, exactly: E = T·M − σ·I − RᵀR (R integer) has Σ_j (|E_ij| + |E_ji|) < 2σ."""
    n = M.nrows()
    Rz = flint.fmpz_mat(n, n, [x for r in R for x in r])
    E = M * T - flint.fmpq_mat(n, n, [sigma if i == j else 0 for i in range(n) for j in range(n)]) \
        - flint.fmpq_mat(Rz.transpose() * Rz)
    return T > 0 and sigma > 0 and all(
        sum((abs(E[i, j]) + abs(E[j, i]) for j in range(n)), flint.fmpq(0)) < 2 * sigma
        for i in range(n))


def _integers(L, s, bits: int):
    """(R, T, σ): L (lower Cholesky factor, rows of numbers) rounded on the grid 2^−e with
    ``bits`` bits for its largest entry, R = round(2^e Lᵀ), T = 4^e, σ = ⌊s·T⌋."""
    big = max(abs(Fraction(x)) for r in L for x in r)
    e = max(0, bits - big.numerator.bit_length() + big.denominator.bit_length())
    n = len(L)
    R = [[round(Fraction(L[j][i]) * 2 ** e) if j >= i else 0 for j in range(n)]
         for i in range(n)]
    T = 4 ** e
    return R, T, int(Fraction(s) * T)


def _candidate(M, bits: int):
    """(R, T, σ) from a Cholesky factor of M − s·I at ``bits`` bits, s ≈ λ_min/2 (or None)."""
    import mpmath
    n = M.nrows()
    rows = _rows(M)
    with mpmath.workprec(bits + 20):
        A = mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator for x in r] for r in rows])
        A = (A + A.T) / 2
        lam = min(mpmath.eigsy(A, eigvals_only=True)) if n > 1 else A[0, 0]
        if lam <= 0:
            return None
        s = _dyadic(lam / 2, bits)
        try:
            L = mpmath.cholesky(A - mpmath.eye(n) * mpmath.mpf(s.numerator) / s.denominator)
        except (ZeroDivisionError, ValueError):
            return None
        Lf = [[_dyadic(L[i, j], bits + 8) for j in range(n)] for i in range(n)]
    return _integers(Lf, s, bits)


def _dyadic(x, bits: int) -> Fraction:
    """x rounded to ``bits`` significant bits, exactly as a dyadic Fraction."""
    import mpmath
    with mpmath.workprec(bits):
        m, e = mpmath.mpf(x).man_exp
    return Fraction(int(m)) * Fraction(2) ** int(e) if m else Fraction(0)


def _float_candidate(M):
    import numpy as np
    n = M.nrows()
    A = np.array([[float(x) for x in r] for r in _rows(M)])
    A = (A + A.T) / 2
    lam = float(np.linalg.eigvalsh(A)[0])
    if not lam > 0:
        return None
    s = Fraction(lam / 2)
    try:
        L = np.linalg.cholesky(A - float(s) * np.eye(n))
    except np.linalg.LinAlgError:
        return None
    return _integers([[float(x) for x in r] for r in L], s, 50)


def pd_hint(M):
    """(R, T, σ) for the Coq test ``pd_check n M R T σ``; :class:`HintError` if none is found."""
    for bits in PRECISIONS:
        found = _float_candidate(M) if bits == 53 else _candidate(M, bits)
        if found is not None and _passes(M, *found):
            return found
    raise HintError("no positive-definiteness hint found for the Coq check (the matrix is too "
                    f"ill-conditioned at {PRECISIONS[-1]} bits)")


def not_nd_hint(P) -> list:
    """An integer x ≠ 0 with xᵀPx ≥ 0 (a diagonal entry ≥ 0, else an eigenvector rounded)."""
    n = P.nrows()
    for i in range(n):
        if P[i, i] >= 0:
            return [int(i == k) for k in range(n)]
    import numpy as np
    A = np.array([[float(x) for x in r] for r in _rows(P)])
    w, V = np.linalg.eigh((A + A.T) / 2)
    x = [round(float(v) * 2 ** 40) for v in V[:, -1]]
    xq = flint.fmpq_mat(n, 1, x)
    if any(x) and (xq.transpose() * P * xq)[0, 0] >= 0:
        return x
    raise HintError("no vector shows that witness.P is not negative definite")


def rank_hint(M):
    """(r, X, Y, Λ, Ρ) exact with M = XYᵀ (X, Y d×r) and ΛMΡ = I_r (Λ r×d, Ρ d×r)."""
    d = M.nrows()
    R, r = M.rref()                       # pivot columns of M span its range
    pivots = [next(j for j in range(d) if R[i, j] != 0) for i in range(r)]
    if r == 0:
        return 0, None, None, None, None
    C = flint.fmpq_mat(d, r, [M[i, j] for i in range(d) for j in pivots])       # M = C W
    W = flint.fmpq_mat(r, d, [R[i, j] for i in range(r) for j in range(d)])
    Rho = flint.fmpq_mat(d, r, [int(i == j) for i in range(d) for j in pivots])  # MΡ = C
    Ct = C.transpose()
    Lam = (Ct * C).inv() * Ct                                                    # ΛC = I_r
    return r, C, W.transpose(), Lam, Rho
