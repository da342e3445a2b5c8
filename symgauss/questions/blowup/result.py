"""The blow-up decision's result, and the number texts it carries."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import sympy as sp


@dataclass(frozen=True)
class BlowupResult:
    """The blow-up decision with its evidence.

    ``regime``: "blow-up" | "bounded" (converges to a non-zero limit / stays constant) |
    "decay" (Σ → 0) | "unbounded" (exists for all t, grows without bound) | "global" (exists for
    all t, boundedness not decided) | "undecided". ``blows_up`` is True / False / None.
    ``t_star``: T* to ``digits`` significant digits (text); ``enclosure``: certified
    [T⁻, T⁺] as exact rational text; ``bracket``: a rigorous but wide [T_low, T_up] from
    comparison bounds (general V; either end may be None). ``closed_form``: SymPy expression.
    """
    regime: str
    blows_up: bool | None
    t_star: str | None
    enclosure: tuple | None
    certified: bool
    method: str
    level: str | None
    evidence: str
    closed_form: sp.Expr | None = None
    digits: int = 30
    bracket: tuple | None = None
    agreement: tuple = field(default=())     # of (method, digits agreed)
    limit_rank: int | None = None

    def to_json_dict(self) -> dict:
        out = {"blows_up": self.blows_up, "t_star": self.t_star,
               "enclosure": list(self.enclosure) if self.enclosure else None,
               "certified": self.certified, "method": self.method, "level": self.level,
               "regime": self.regime, "evidence": self.evidence, "digits": self.digits}
        if self.closed_form is not None:
            out["closed_form"] = sp.sstr(self.closed_form)
            out["closed_form_latex"] = sp.latex(self.closed_form)
        if self.bracket is not None:
            out["bracket"] = [None if x is None else x for x in self.bracket]
            out["bracket_level"] = "rigorous"
        if self.agreement:
            out["agreement"] = [{"method": m, "digits": round(float(n), 1)}
                                for m, n in self.agreement]
        if self.limit_rank is not None:
            out["limit_rank"] = self.limit_rank
        return out


def digits_text(x, digits: int) -> str:
    """x (an mpf) to ``digits`` significant digits."""
    with mpmath.workdps(digits + 10):
        return mpmath.nstr(x, digits, strip_zeros=False, min_fixed=-30, max_fixed=30)


def agree(a, b) -> float:
    """Significant digits on which two reals agree (capped at 100)."""
    with mpmath.workdps(120):
        a, b = mpmath.mpf(a), mpmath.mpf(b)
        if a == b:
            return 100.0
        return float(min(100, max(0, -mpmath.log10(abs(a - b) / max(abs(a), abs(b))))))


def frac_text(f: Fraction) -> str:
    """Exact text of a rational: a finite decimal when the denominator is 2^a 5^b."""
    if f.denominator == 1:
        return str(f.numerator)
    q, k = f.denominator, 0
    while q % 10 == 0 or q % 2 == 0 or q % 5 == 0:
        if q % 10 == 0:
            q //= 10
        elif q % 2 == 0:
            q //= 2
        else:
            q //= 5
        k += 1
    if q != 1 or k > 400:
        return f"{f.numerator}/{f.denominator}"
    n = abs(f.numerator) * 10 ** k // f.denominator
    digits = str(n).rjust(k + 1, "0")
    text = (digits[:-k] + "." + digits[-k:]).rstrip("0").rstrip(".")
    return ("-" if f < 0 else "") + text
