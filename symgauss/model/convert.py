"""Conversions of exact problem data to the number types of each stage.

Exact data stays exact until a stage asks for floats; nothing here rounds silently.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

from symgauss.kernel.errors import ProblemError, UnsupportedError
from symgauss.kernel.numbers import parse_rational


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


def as_time(t, name: str = "t") -> Fraction:
    """A non-negative exact time from text, a number or a SymPy rational (``"1/2"``, 0.5, 3).

    >>> as_time("1/2"), as_time(0.25)
    (Fraction(1, 2), Fraction(1, 4))
    """
    if isinstance(t, sp.Basic):
        if not t.is_Rational:
            raise ProblemError(f"{name} = {t} must be a rational number")
        t = Fraction(int(t.p), int(t.q))
    f = t if isinstance(t, Fraction) else parse_rational(t, name)
    if f < 0:
        raise ProblemError(f"{name} = {f} is negative; the flow runs forward from t = 0")
    return f
