"""The checker's four verdicts, the three ways a check stops, and safe output of file text.

- ``verified``: every statement the certificate claims was proved (exit code 0);
- ``refuted``: the claim itself is proved false — the reason carries the counter-evidence the
  checker computed (exit code 1);
- ``not-proved``: the witness does not establish the claim; nothing is said about its truth
  (exit code 3);
- ``invalid``: malformed, over a limit, or not this format (exit code 2).

Trusted kernel: standard library only.

>>> safe_text("stable\\r\\x1b[32mVERIFIED\\u202e")
'stable\\\\r\\\\x1b[32mVERIFIED\\\\u202e'
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

#: how a claim is known, strongest first (README: "Levels")
LEVELS = ("exact", "rigorous", "high-precision", "float")
#: exit code of ``symgauss check`` for each verdict
EXIT_CODES = {"verified": 0, "refuted": 1, "invalid": 2, "not-proved": 3}
MAX_SHOWN = 600  # characters of one reason shown on the terminal


class Invalid(Exception):
    """The certificate is malformed, over a limit, or not this format."""


class Refuted(Exception):
    """The claim is false; the message is the counter-evidence the checker computed."""


class NotProved(Exception):
    """The witness does not establish the claim (which may still be true)."""


@dataclass(frozen=True)
class Verdict:
    status: str              # "verified" | "refuted" | "not-proved" | "invalid"
    reason: str              # what was proved (verified), the counter-evidence, or what failed
    kind: str | None = None
    level: str | None = None  # the level proved (verified only)

    @property
    def ok(self) -> bool:
        return self.status == "verified"

    def line(self, source: str) -> str:
        """One terminal line; every piece that came from the file is escaped."""
        kind = f" [{safe_text(self.kind, 80)}]" if self.kind else ""
        level = f" ({self.level})" if self.level else ""
        return (f"{safe_text(source, 200)}: {self.status.upper()}{kind}{level}: "
                f"{safe_text(self.reason)}")


def safe_text(value, limit: int = MAX_SHOWN) -> str:
    """Text that cannot move the cursor, recolour the terminal or reorder a line.

    Control, format (bidi overrides, zero-width), surrogate, private-use and unassigned
    characters become ``\\xNN`` / ``\\uNNNN`` escapes; the result is cut to ``limit`` characters.
    """
    out = []
    for ch in str(value):
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append(ch.encode("unicode_escape", "backslashreplace").decode("ascii"))
        else:
            out.append(ch)
    text = "".join(out)
    return text if len(text) <= limit else text[:limit - 1] + "…"
