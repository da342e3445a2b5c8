"""One exception root for symgauss; every subclass is also the matching builtin.

Each error names the offending item and says how to fix it; the CLI prints
``str(error)`` as its one line and exits with code 2.
"""
from __future__ import annotations


class SymgaussError(Exception):
    """Root of every error symgauss raises on purpose."""


class ProblemError(SymgaussError, ValueError):
    """A problem (file or Python object) is malformed."""


class InputFormatError(ProblemError):
    """The file is not readable JSON of the expected form."""


class NumberFormatError(ProblemError):
    """A number is not an exact decimal or rational (NaN, inf, '1/0', 'abc', ...)."""

    def __init__(self, where: str, text: object, why: str):
        self.where, self.text, self.why = where, text, why
        super().__init__(
            f"{where}: {text!r} is not an exact number ({why}); "
            "write a decimal like 0.3 or \"0.3\", or a rational like \"3/10\"")


class DimensionError(ProblemError):
    """A matrix or vector has the wrong or a ragged shape."""

    def __init__(self, where: str, expected: str, found: str):
        self.where, self.expected, self.found = where, expected, found
        super().__init__(f"{where}: expected shape {expected}, found {found}; "
                         "make every entry list the same length as the dimension d read from cov0")


class UnknownKeyError(ProblemError):
    """A key that symgauss does not know (often a misspelling)."""

    def __init__(self, where: str, key: str, allowed):
        self.where, self.key, self.allowed = where, key, tuple(sorted(allowed))
        super().__init__(f"{where}: unknown key {key!r}; allowed keys are "
                         + ", ".join(self.allowed))


class SymmetryError(ProblemError):
    """A covariance matrix is not symmetric."""


class NotPSDError(ProblemError):
    """A covariance matrix is not positive semidefinite (decided exactly)."""


class DurationError(ProblemError):
    """A control piece has a zero, negative or missing duration."""


class BlowUpError(SymgaussError, ArithmeticError):
    """The solution blows up before the requested time."""

    def __init__(self, t_request, t_estimate, message: str):
        self.t_request, self.t_estimate = t_request, t_estimate
        super().__init__(message)


class SolverError(SymgaussError, RuntimeError):
    """A numerical method could not reach the requested accuracy; no number is reported."""


class UnsupportedError(SymgaussError, NotImplementedError):
    """A valid request that this method cannot handle (the message names one that can)."""


