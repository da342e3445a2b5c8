"""Equilibria with how they are known: one :class:`Equilibrium`, a :class:`Family` (a continuum),
and the :class:`EquilibriumSet` a search returns (with whether it is proved complete).

Printed decimals never claim more than is proved: a rigorous equilibrium (or an exact algebraic
one) is printed as decimals rounded to nearest, and its ``radius`` is widened to cover that
rounding, so the true Σ* is within ``radius`` (max entry) of the printed matrix.

>>> from fractions import Fraction
>>> texts, rad = decimal_ball([Fraction(1, 3), Fraction(-2, 7)], Fraction(1, 10**12), 6)
>>> texts, rad
(['0.333333', '-0.285714'], Fraction(17, 50000000))
>>> abs(Fraction(texts[1]) - Fraction(-2, 7)) <= rad - Fraction(1, 10**12)
True
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import flint

#: what ``EquilibriumSet.complete`` ranges over
COMPLETE_SCOPE = ("every positive-definite equilibrium Σ* ≻ 0 (for a rank-deficient cov0 with "
                  "invariant range W: every Σ* = U S Uᵀ with S ≻ 0, U a basis of W) is listed "
                  "or lies on a listed family; Σ = 0 is always listed; equilibria of "
                  "intermediate rank are not covered")


def _floor_log10(x: Fraction) -> int:
    """⌊log10 x⌋ for a rational x > 0, exactly."""
    e = len(str(x.numerator)) - len(str(x.denominator))
    while Fraction(10) ** e > x:
        e -= 1
    while Fraction(10) ** (e + 1) <= x:
        e += 1
    return e


def decimal_text(k: int, q: int) -> str:
    """The exact decimal k·10^(−q) as text (q ≥ 0 places after the point)."""
    sign, k = ("-" if k < 0 else ""), abs(k)
    if q <= 0:
        return sign + str(k * 10 ** -q)
    s = str(k).rjust(q + 1, "0")
    return f"{sign}{s[:-q]}.{s[-q:]}"


def round_up(x: Fraction, sig: int = 2) -> Fraction:
    """The smallest decimal with ``sig`` significant digits that is ≥ x (x ≥ 0)."""
    if x <= 0:
        return Fraction(0)
    f = _floor_log10(x) - sig + 1
    unit = Fraction(10) ** f
    m = -((-x) // unit)   # ceil
    return m * unit


def scientific(x: Fraction) -> str:
    """Exact short text of a decimal such as 51/10³¹ → '5.1e-30' (readable as a rational)."""
    if x == 0:
        return "0"
    e = _floor_log10(abs(x))
    m = x / Fraction(10) ** e
    for places in range(0, 40):
        k = m * 10 ** places
        if k.denominator == 1:
            return f"{decimal_text(int(k), places)}e{e}"
    return str(x)


def decimal_ball(values, radius: Fraction, digits: int):
    """(texts, R): ``values`` (exact rationals, each within ``radius`` of a true value) printed
    with ``digits`` significant digits of the largest, and R ≥ radius + rounding, with two
    significant digits, so each true value is within R of its printed text."""
    values = [Fraction(v) for v in values]
    scale = max((abs(v) for v in values), default=Fraction(0))
    if scale == 0:
        scale = max(Fraction(radius), Fraction(1, 10 ** digits))
    q = digits - 1 - _floor_log10(scale)
    unit = Fraction(10) ** -q
    ks = [round(v / unit) for v in values]
    err = max((abs(v - k * unit) for v, k in zip(values, ks)), default=Fraction(0))
    return (["0" if v == 0 else decimal_text(k, q) for v, k in zip(values, ks)],
            round_up(Fraction(radius) + err))


def fraction_of(x) -> Fraction:
    """An fmpq, arf (exact point of an arb) or number as a Fraction."""
    if isinstance(x, flint.fmpq):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, flint.arb):
        m, e = x.man_exp()
        m, e = int(m), int(e)
        return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** -e)
    return Fraction(x)


def arb_ball(values, digits: int):
    """(texts, R) for arb balls: decimals with R covering every ball and the rounding."""
    mids = [fraction_of(v.mid()) for v in values]
    rad = max((fraction_of(v.rad()) for v in values), default=Fraction(0))
    return decimal_ball(mids, rad, digits)


@dataclass(frozen=True)
class Equilibrium:
    """One equilibrium. ``cov`` / ``mean``: rows of text. Level ``exact``: rational text, or
    (``algebraic`` set) decimals of exact algebraic numbers within ``radius``; ``rigorous``:
    decimals within ``radius`` of the unique equilibrium proved there (``enclosure`` holds the
    proved centre and radius, as in the certificate); ``high-precision``: ``digits`` digits on
    which two runs at different precisions agree, no bound; ``float``: a float Newton root."""
    cov: tuple                  # rows of strings
    mean: tuple | None          # strings, or None when the mean matrix is singular / unknown
    rank: int
    level: str                  # "exact" | "rigorous" | "high-precision" | "float"
    stable: bool | None = None
    cov_exact: flint.fmpq_mat | None = field(default=None, compare=False, repr=False)
    radius: Fraction | None = None  # max-entry distance of the true Σ* from the printed ``cov``
    stability: object = field(default=None, compare=False, repr=False)  # StabilityResult
    algebraic: dict | None = field(default=None, compare=False, repr=False)  # exact, irrational
    mean_radius: Fraction | None = None
    digits: int | None = None   # high-precision / float: digits agreed
    enclosure: tuple | None = field(default=None, compare=False, repr=False)  # (C, r, Y)

    def to_json_dict(self) -> dict:
        out = {"cov": [list(r) for r in self.cov], "mean": list(self.mean) if self.mean else None,
               "rank": self.rank, "level": self.level, "stable": self.stable}
        if self.radius is not None:
            out["radius"] = scientific(self.radius)
        if self.mean_radius is not None:
            out["mean_radius"] = scientific(self.mean_radius)
        if self.digits is not None:
            out["digits"] = self.digits
        if self.enclosure is not None:
            from symgauss.kernel.read import mat_text
            from symgauss.kernel.numbers import rational_text
            out["cov_center"] = mat_text(self.enclosure[0])
            out["cov_radius"] = rational_text(self.enclosure[1])
        if self.stability is not None:
            out["stability"] = self.stability.reason
        if self.algebraic is not None:
            out["algebraic"] = self.algebraic
        return out


@dataclass(frozen=True)
class Family:
    """A continuum of equilibria. ``level`` ``exact``: ``description`` (and ``parametrisation``)
    is an exact description of a set that contains every equilibrium of this continuum;
    ``float``: numerical evidence only (a root where the linearisation is singular and Newton
    from displaced starts lands on other roots). ``point``: one positive-definite equilibrium
    on it (text rows) and how it is known (``point_level``), or None."""
    description: str
    level: str
    dimension: int | None = None
    parametrisation: dict | None = None
    point: tuple | None = None
    point_level: str | None = None
    stability: str = ("not asymptotically stable: other equilibria lie arbitrarily close to "
                      "each of its points")

    def to_json_dict(self) -> dict:
        out = {"description": self.description, "level": self.level,
               "dimension": self.dimension, "stability": self.stability}
        if self.parametrisation is not None:
            out["parametrisation"] = self.parametrisation
        if self.point is not None:
            out["point"] = [list(r) for r in self.point]
            out["point_level"] = self.point_level
        return out


@dataclass(frozen=True)
class EquilibriumSet:
    """What a search found: ``equilibria`` (positive definite first, Σ = 0 last), ``families``
    (continua), ``complete`` (proved: see :data:`COMPLETE_SCOPE`) and ``method`` (what was done).
    Iterating, indexing and ``len`` go through ``equilibria``."""
    equilibria: tuple
    families: tuple = ()
    complete: bool = False
    method: str = ""

    def __iter__(self):
        return iter(self.equilibria)

    def __getitem__(self, k):
        return self.equilibria[k]

    def __len__(self):
        return len(self.equilibria)

    def to_json_dict(self) -> dict:
        return {"equilibria": [e.to_json_dict() for e in self.equilibria],
                "families": [f.to_json_dict() for f in self.families],
                "complete": self.complete, "complete_scope": COMPLETE_SCOPE,
                "method": self.method}
