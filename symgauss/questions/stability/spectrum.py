"""Exact decisions about the spectrum of a rational matrix (no floating point).

:func:`abscissa` decides the sign of max Re λ(A) and, when it is 0, whether every eigenvalue on
the imaginary axis is semisimple. Method: charpoly(A) is factored over ℚ (FLINT). An irreducible
factor f with a root iω on the imaginary axis also has the root −iω = conj(iω), which is a root
of f(−s); so f and f(−s) share a factor and, f being irreducible, f(−s) = ±f(s). Hence

- f(−s) ≠ ±f(s): no root on the axis, and the Routh–Hurwitz determinants of f decide exactly
  whether every root has Re < 0 (all positive) or some has Re > 0;
- f odd: f = s (the root 0);
- f even, f(s) = g(s²): the roots ±√μ (g(μ) = 0) are all on the axis iff every root of g is
  real and negative (Sturm count, SymPy), otherwise some root has Re > 0 (roots come in ± pairs).

An imaginary eigenvalue (root of f with multiplicity m in charpoly) is semisimple iff
dim ker f(A) = m·deg f (exact rank).

>>> import flint
>>> rot = flint.fmpq_mat(2, 2, [0, 1, -1, 0])
>>> abscissa(rot).sign, abscissa(rot).semisimple
(0, True)
>>> abscissa(flint.fmpq_mat(2, 2, [0, 1, 0, 0])).semisimple     # a Jordan block at 0
False
>>> abscissa(flint.fmpq_mat(2, 2, [-1, 5, 0, -2])).sign, abscissa(flint.fmpq_mat(1, 1, [3])).sign
(-1, 1)
"""
from __future__ import annotations

from dataclasses import dataclass

import flint


@dataclass(frozen=True)
class Abscissa:
    """``sign`` of max Re λ: −1 (every Re λ < 0), 0 (max Re λ = 0), +1 (some Re λ > 0);
    ``semisimple`` (sign 0 only): every eigenvalue on the imaginary axis is semisimple."""
    sign: int
    semisimple: bool | None
    reason: str


def _hurwitz_positive(c: list) -> bool:
    """All Hurwitz determinants of the polynomial with coefficients c (highest first, c[0] > 0)
    are positive ⇔ every root has Re < 0."""
    n = len(c) - 1
    a = [flint.fmpq(x) / c[0] for x in c]
    for k in range(1, n + 1):
        H = flint.fmpq_mat(k, k, [a[2 * j - i] if 0 <= 2 * j - i <= n else 0
                                  for i in range(1, k + 1) for j in range(1, k + 1)])
        if H.det() <= 0:
            return False
    return True


def _factor_kind(f: flint.fmpz_poly) -> str:
    """'left', 'right' (some root Re > 0) or 'axis' (every root on the imaginary axis)."""
    c = [int(x) for x in f.coeffs()]           # lowest degree first
    mirrored = [x if k % 2 == 0 else -x for k, x in enumerate(c)]
    if mirrored == [-x for x in c]:            # odd and irreducible: f = c·s
        return "axis"
    if mirrored != c:
        hi = c[::-1] if c[-1] > 0 else [-x for x in c[::-1]]
        return "left" if _hurwitz_positive(hi) else "right"
    import sympy as sp
    mu = sp.Symbol("mu")
    g = sp.Poly(list(reversed(c[0::2])), mu)   # f(s) = g(s²)
    return "axis" if g.count_roots(None, 0) == g.degree() else "right"


def _poly_at(f: flint.fmpz_poly, A: flint.fmpq_mat) -> flint.fmpq_mat:
    n = A.nrows()
    eye = flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
    out = flint.fmpq_mat(n, n)
    for x in reversed([int(v) for v in f.coeffs()]):
        out = out * A + eye * x
    return out


def abscissa(A: flint.fmpq_mat) -> Abscissa:
    """The sign of the spectral abscissa of A, decided exactly (see the module docstring)."""
    fz = A.charpoly().numer()                   # fmpz_poly, a positive multiple of charpoly
    kinds = [(f, m, _factor_kind(f)) for f, m in fz.factor()[1] if f.degree() > 0]
    n = A.nrows()
    if any(k == "right" for _, _, k in kinds):
        return Abscissa(1, None, "an eigenvalue has positive real part (exact: charpoly "
                        "factored over ℚ, Routh–Hurwitz / Sturm on the factors)")
    axis = [(f, m) for f, m, k in kinds if k == "axis"]
    if not axis:
        return Abscissa(-1, None, "every eigenvalue has negative real part (exact: "
                        "Routh–Hurwitz on the factors of charpoly over ℚ)")
    semi = all(m == 1 or n - _poly_at(f, A).rank() == m * f.degree() for f, m in axis)
    return Abscissa(0, semi, "no eigenvalue has positive real part and some lie on the "
                    "imaginary axis (roots of " + ", ".join(str(f) for f, _ in axis) +
                    "), " + ("all semisimple" if semi else "not all semisimple (a Jordan "
                    "block)") + " (exact: charpoly factored over ℚ)")
