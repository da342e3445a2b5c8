"""The checker's verdicts, and the two ways a check stops early.

Trusted kernel: standard library only.
"""
from __future__ import annotations

from dataclasses import dataclass

#: how a claim is known, strongest first (README: "Levels")
LEVELS = ("exact", "rigorous", "high-precision", "float")


class Invalid(Exception):
    """The certificate is malformed (a reason, never an acceptance)."""


class Refuted(Exception):
    """A checked inequality or identity of the claim fails (the reason says which)."""


@dataclass(frozen=True)
class Verdict:
    status: str          # "verified" | "refuted" | "invalid"
    reason: str
    kind: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "verified"
