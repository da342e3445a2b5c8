"""Closed certificate schemas: every key a kind may hold, how it is read, and the kind's limits.

A kind declares the exact keys of its ``claim`` and ``witness`` (:class:`Field`: a reader and
whether it is required; optional keys may form groups that appear together), the level it
proves, and its limits. :func:`read_section` reads one section: any other key, a missing key
or a value of the wrong type or shape is :class:`Invalid`, naming the key. Readers return
exact objects (``fmpq``, ``fmpq_mat``, ``int``) and take a :class:`Context` that knows the
dimensions of the stored problem.

Trusted kernel: standard library, python-flint and the kernel only.

>>> ctx = Context(d=2)
>>> read_section({"rate": "1/2"}, {"rate": Field(positive)}, "claim", ctx)
{'rate': 1/2}
>>> read_section({"rate": "1/2", "speed": 3}, {"rate": Field(positive)}, "claim", ctx)
Traceback (most recent call last):
...
symgauss.kernel.verdict.Invalid: claim: unknown key 'speed'; this kind reads exactly: rate
"""
from __future__ import annotations

from dataclasses import dataclass, field

import flint

from symgauss.kernel.numbers import decimal_half_unit
from symgauss.kernel.read import matrix, rational, vector
from symgauss.kernel.verdict import Invalid


@dataclass(frozen=True)
class Context:
    """What readers need to know about the stored problem: d, and n = d(d+1)/2 (svec)."""
    d: int
    problem: object = None

    @property
    def n(self) -> int:
        return self.d * (self.d + 1) // 2

    def size(self, s) -> int:
        return s if isinstance(s, int) else getattr(self, s)


@dataclass(frozen=True)
class Field:
    read: object            # (value, where, ctx) -> exact value
    required: bool = True
    group: str | None = None  # optional keys of one group appear together or not at all


@dataclass(frozen=True)
class Schema:
    claim: dict                   # key -> Field ("statement" is read by the checker itself)
    witness: dict                 # key -> Field
    level: str | None             # the level this kind proves; None: the check computes it
    limits: dict = field(default_factory=dict)  # name -> largest value accepted


def read_section(obj, fields: dict, where: str, ctx: Context) -> dict:
    """The exact values of one JSON object whose keys are exactly those declared in ``fields``."""
    if not isinstance(obj, dict):
        raise Invalid(f"{where}: expected a JSON object")
    for key in obj:
        if key not in fields:
            raise Invalid(f"{where}: unknown key {key!r}; this kind reads exactly: "
                          + (", ".join(fields) or "nothing (an empty object)"))
    for key, f in fields.items():
        if f.required and key not in obj:
            raise Invalid(f"{where}: the key {key!r} is missing")
    groups = {}
    for key, f in fields.items():
        if f.group is not None:
            groups.setdefault(f.group, []).append(key)
    for keys in groups.values():
        present = [k for k in keys if k in obj]
        if present and len(present) != len(keys):
            missing = [k for k in keys if k not in obj]
            raise Invalid(f"{where}: {', '.join(present)} needs {', '.join(missing)} as well")
    return {key: fields[key].read(value, f"{where}.{key}", ctx) for key, value in obj.items()}


# --- readers ------------------------------------------------------------------------------------
def positive(value, where, ctx=None) -> flint.fmpq:
    x = rational(value, where)
    if x <= 0:
        raise Invalid(f"{where} must be positive")
    return x


def nonnegative(value, where, ctx=None) -> flint.fmpq:
    x = rational(value, where)
    if x < 0:
        raise Invalid(f"{where} must be non-negative")
    return x


def integer(lo, hi):
    """An integer in [lo, hi]; ``hi`` may be a Context size name ("d", "n") or a number."""
    def read(value, where, ctx):
        top = ctx.size(hi)
        x = rational(value, where)
        if x.q != 1 or not lo <= x <= top:
            raise Invalid(f"{where}: expected an integer from {lo} to {top}")
        return int(x.p)
    return read


def mat(rows, cols):
    """A rows×cols exact matrix; sizes are numbers or Context size names ("d", "n")."""
    def read(value, where, ctx):
        return matrix(value, where, ctx.size(rows), ctx.size(cols))
    return read


def sym(size):
    """A symmetric size×size exact matrix."""
    def read(value, where, ctx):
        M = matrix(value, where, ctx.size(size), ctx.size(size))
        if M.transpose() != M:
            raise Invalid(f"{where} is not symmetric")
        return M
    return read


def vec(size):
    def read(value, where, ctx):
        return vector(value, where, ctx.size(size))
    return read


def choice(*values):
    def read(value, where, ctx):
        if value not in values:
            raise Invalid(f"{where}: expected one of {', '.join(map(repr, values))}")
        return value
    return read


def rationals(min_len: int, max_len: int):
    """A list of min_len..max_len exact rationals."""
    def read(value, where, ctx):
        if not isinstance(value, list) or not min_len <= len(value) <= max_len:
            raise Invalid(f"{where}: expected a list of {min_len} to {max_len} numbers")
        return [rational(x, f"{where}[{i}]") for i, x in enumerate(value)]
    return read


def decimal(value, where, ctx=None) -> tuple:
    """A decimal number as (exact value, half a unit of its last digit, its text)."""
    if not isinstance(value, str) or "/" in value:
        raise Invalid(f"{where}: expected a decimal number such as 0.25 or \"2.5e-1\"")
    x, half = rational(value, where), decimal_half_unit(value)
    return x, flint.fmpq(half.numerator, half.denominator), value.strip()


def raw(value, where, ctx):
    """Kept as read from the file: the kind reads it with its own schema (nested objects)."""
    return value
