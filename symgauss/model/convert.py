"""Conversions of exact problem data to the number types of each stage.

Precision is always an argument; nothing here touches the global mpmath state
beyond a scoped ``workprec``.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from .errors import UnsupportedError


def require_numeric(problem, what: str) -> None:
    if not problem.is_numeric:
        raise UnsupportedError(f"{what} needs numeric (rational) parameters; this problem has "
                               "symbols — substitute values first (problem.replace(...))")


def to_fractions(M) -> list:
    """Nested lists of Fraction from a rational SymPy matrix."""
    return [[Fraction(int(M[i, j].p), int(M[i, j].q)) for j in range(M.shape[1])]
            for i in range(M.shape[0])]


def to_float(M) -> np.ndarray:
    return np.array([[float(M[i, j]) for j in range(M.shape[1])] for i in range(M.shape[0])],
                    dtype=float)


def to_mpf(x, prec: int):
    """One exact SymPy rational as an mpf rounded to ``prec`` bits."""
    with mpmath.workprec(prec):
        return mpmath.mpf(int(x.p)) / int(x.q) if x.q != 1 else mpmath.mpf(int(x.p))


def to_mp_array(M, prec: int) -> np.ndarray:
    """numpy object array of mpf (rounded to ``prec`` bits) from a rational SymPy matrix."""
    out = np.empty(M.shape, dtype=object)
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            out[i, j] = to_mpf(M[i, j], prec)
    return out


def rational_matrix(rows) -> sp.ImmutableMatrix:
    """SymPy rational matrix from nested lists of Fraction / int."""
    return sp.ImmutableMatrix([[sp.Rational(Fraction(x).numerator, Fraction(x).denominator)
                                for x in row] for row in rows])
