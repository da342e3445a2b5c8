"""Exact real algebraic numbers for the closed forms: g(μ) with μ a real root of an irreducible
f ∈ Q[z], located by an isolating interval with rational end points.

Every decision is exact rational arithmetic: zero is decided by divisibility (g(μ) = 0 ⇔ f | g),
the real roots of f are isolated by Sturm sequences and bisection, and a non-zero sign is
read off once the interval is so small that the Taylor bound around its midpoint
|g(μ) − g(c)| ≤ Σ_j |g^(j)(c)|/j! · r^j is below |g(c)|. Ball (arb) values are used only
for printing digits and for comparing transcendental numbers (mode times), never for a sign.

>>> two = roots(flint.fmpq_poly([-2, 0, 1]))        # −√2, √2
>>> [sign(r) for r in two], sign(two[1] * two[1] - 2)
([-1, 1], 0)
>>> two[1].expr
sqrt(2)
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
import sympy as sp

Z = sp.Symbol("z")


def _q(x) -> flint.fmpq:
    if isinstance(x, flint.fmpq):
        return x
    x = Fraction(x) if not isinstance(x, sp.Rational) else Fraction(int(x.p), int(x.q))
    return flint.fmpq(x.numerator, x.denominator)


def _frac(x: flint.fmpq) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def _sgn(x) -> int:
    return (x > 0) - (x < 0)


# --- Sturm sequences ------------------------------------------------------------------------
def _sturm(f):
    chain = [f, f.derivative()]
    while chain[-1].degree() > 0:
        r = -(chain[-2] % chain[-1])
        if r == 0:
            break
        chain.append(r)
    return chain


def _changes(chain, x) -> int:
    signs = [_sgn(p(x)) for p in chain]
    signs = [s for s in signs if s != 0]
    return sum(1 for a, b in zip(signs, signs[1:]) if a != b)


def _isolate(f) -> list:
    """Disjoint rational intervals (lo, hi], ascending, each holding one real root of the
    square-free f (no root at an end point when f has no rational root)."""
    chain = _sturm(f)
    c = f.coeffs()
    bound = 1 + max(abs(_frac(x) / _frac(c[-1])) for x in c[:-1])
    todo, out = [(-_q(bound), _q(bound))], []
    while todo:
        lo, hi = todo.pop()
        n = _changes(chain, lo) - _changes(chain, hi)
        if n == 0:
            continue
        if n == 1:
            out.append((lo, hi))
            continue
        mid = (lo + hi) / 2
        todo += [(mid, hi), (lo, mid)]
    return sorted(out, key=lambda iv: iv[0])


@dataclass(frozen=True)
class RealAlgebraic:
    """g(μ): μ the ``index``-th real root (ascending) of the irreducible f (degree ≥ 2), the
    only root of f in (lo, hi]; g a polynomial reduced modulo f (flint ``fmpq_poly``)."""
    f: flint.fmpq_poly
    index: int
    lo: flint.fmpq
    hi: flint.fmpq
    g: flint.fmpq_poly

    def _same(self, other):
        return RealAlgebraic(self.f, self.index, self.lo, self.hi, other)

    def apply(self, p):
        """p(x) for a polynomial p ∈ Q[z] (flint ``fmpq_poly``), in the same field."""
        return self._same(p(self.g) % self.f)

    def _lift(self, other):
        if isinstance(other, RealAlgebraic):
            if other.f != self.f or other.index != self.index:
                raise ValueError("arithmetic between different algebraic numbers' fields")
            return other.g
        return flint.fmpq_poly([_q(other)])

    def __add__(self, other):
        return self._same((self.g + self._lift(other)) % self.f)

    __radd__ = __add__

    def __sub__(self, other):
        return self._same((self.g - self._lift(other)) % self.f)

    def __rsub__(self, other):
        return self._same((self._lift(other) - self.g) % self.f)

    def __mul__(self, other):
        return self._same((self.g * self._lift(other)) % self.f)

    __rmul__ = __mul__

    def __neg__(self):
        return self._same(-self.g)

    def inverse(self):
        g = self.g % self.f
        if g == 0:
            raise ZeroDivisionError("inverse of an algebraic zero")
        _, s, _ = g.xgcd(self.f)          # g s + f t = gcd = 1 (f irreducible)
        return self._same(s % self.f)

    def __truediv__(self, other):
        inv = (other.inverse() if isinstance(other, RealAlgebraic)
               else 1 / _q(other))
        return self * inv

    def __rtruediv__(self, other):
        return self.inverse() * other

    @property
    def expr(self) -> sp.Expr:
        """The exact SymPy number (CRootOf, radicals for a quadratic f)."""
        fs = sp.Poly([sp.Rational(int(c.p), int(c.q)) for c in reversed(self.f.coeffs())], Z)
        root = sp.rootof(fs, self.index, radicals=self.f.degree() <= 2)
        return sp.expand(sum(sp.Rational(int(c.p), int(c.q)) * root ** j
                             for j, c in enumerate(self.g.coeffs())))

    def enclosure(self, bits: int):
        """Rational (lo, hi) with lo ≤ g(μ) ≤ hi and hi − lo ≤ 2^-bits·max(1, |g(μ)|)."""
        lo, hi = self.lo, self.hi
        g = self.g % self.f
        derivs = [g]
        while derivs[-1].degree() > 0:
            derivs.append(derivs[-1].derivative())
        tol = flint.fmpq(1, 2 ** bits)
        while True:
            c, r = (lo + hi) / 2, (hi - lo) / 2
            gc = g(c)
            fact, bound, rj = 1, flint.fmpq(0), flint.fmpq(1)
            for j, dj in enumerate(derivs[1:], 1):
                fact *= j
                rj *= r
                bound += abs(dj(c)) / fact * rj
            scale = max(abs(gc) - bound, flint.fmpq(1))
            if 2 * bound <= tol * scale:
                return gc - bound, gc + bound
            if _sgn(self.f(lo)) != _sgn(self.f(c)):
                hi = c
            else:
                lo = c

    def arb(self, prec: int) -> flint.arb:
        lo, hi = self.enclosure(prec + 8)
        return flint.arb(lo).union(flint.arb(hi))


def roots(f) -> list:
    """The real roots of f ∈ Q[z] with multiplicity, factor by factor: Fractions for the
    rational ones, :class:`RealAlgebraic` (g = z) for the others."""
    out = []
    _, factors = f.factor()
    for p, e in factors:
        if p.degree() == 1:
            c = p.coeffs()
            out += [_frac(-c[0] / c[1])] * e
            continue
        z = flint.fmpq_poly([0, 1])
        for i, (lo, hi) in enumerate(_isolate(p)):
            out += [RealAlgebraic(p, i, lo, hi, z)] * e
    return out


def sign(x) -> int:
    """The exact sign of a rational or a :class:`RealAlgebraic`."""
    if not isinstance(x, RealAlgebraic):
        return _sgn(Fraction(x) if not isinstance(x, sp.Rational) else x)
    g = x.g % x.f
    if g.degree() <= 0:
        return _sgn(g(0)) if g != 0 else 0
    bits = 16
    lo, hi = x.enclosure(bits)
    while lo <= 0 <= hi:              # g(μ) ≠ 0 (f ∤ g), so the enclosure leaves 0 eventually
        bits *= 2
        lo, hi = x.enclosure(bits)
    return _sgn(lo)


def compare(x, y, max_bits: int = 4096):
    """sign(x − y) for rationals / :class:`RealAlgebraic` numbers, exactly; None when x and y
    lie in different fields and their enclosures still overlap at ``max_bits``."""
    if not (isinstance(x, RealAlgebraic) and isinstance(y, RealAlgebraic)) or (
            x.f == y.f and x.index == y.index):
        return sign(x - y) if isinstance(x, RealAlgebraic) else -sign(y - x) \
            if isinstance(y, RealAlgebraic) else _sgn(Fraction(x) - Fraction(y))
    bits = 32
    while bits <= max_bits:
        (a, b), (c, d) = x.enclosure(bits), y.enclosure(bits)
        if b < c:
            return -1
        if d < a:
            return 1
        bits *= 2
    return None


def expr(x) -> sp.Expr:
    """The exact SymPy number of a rational or a :class:`RealAlgebraic`."""
    if isinstance(x, RealAlgebraic):
        return x.expr
    x = Fraction(x) if not isinstance(x, sp.Rational) else x
    return sp.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else x


def arb(x, prec: int) -> flint.arb:
    """A ball containing x (rational or :class:`RealAlgebraic`) at ``prec`` bits."""
    if isinstance(x, RealAlgebraic):
        return x.arb(prec)
    return flint.arb(_q(x))
