"""One equilibrium of the covariance equation, with how it is known."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import flint


@dataclass(frozen=True)
class Equilibrium:
    """One equilibrium: entries as text (exact rationals when ``level == "exact"``)."""
    cov: tuple                  # rows of strings
    mean: tuple | None          # strings, or None when the mean matrix is singular
    rank: int
    level: str                  # "exact" | "rigorous" | "high-precision" | "float"
    stable: bool | None = None
    cov_exact: flint.fmpq_mat | None = field(default=None, compare=False, repr=False)
    radius: Fraction | None = None  # rigorous: max-entry distance of Σ* from ``cov``
    stability: object = field(default=None, compare=False, repr=False)  # StabilityResult
    algebraic: dict | None = field(default=None, compare=False, repr=False)  # exact, irrational

    def to_json_dict(self) -> dict:
        out = {"cov": [list(r) for r in self.cov], "mean": list(self.mean) if self.mean else None,
               "rank": self.rank, "level": self.level, "stable": self.stable}
        if self.radius is not None:
            out["radius"] = str(self.radius)
        if self.stability is not None:
            out["stability"] = self.stability.reason
        if self.algebraic is not None:
            out["algebraic"] = self.algebraic
        return out
