"""Exact numbers from text: ``0.3``, ``"0.3"`` and ``"3/10"`` are all the rational 3/10.

Nothing here evaluates text as code: a number is accepted only if it matches a
decimal or ``p/q`` pattern, and is then converted with integer arithmetic.

>>> parse_rational("3/10", "A[0][0]")
Fraction(3, 10)
>>> parse_rational(JSONNumber("0.3"), "b[1]")
Fraction(3, 10)
>>> parse_rational("1.5e-2", "x")
Fraction(3, 200)
>>> parse_rational("٩/٥", "x")     # Arabic-Indic digits are not read as 9/5
Traceback (most recent call last):
...
symgauss.kernel.errors.NumberFormatError: x: '٩/٥' is not an exact number (not a decimal or p/q rational); write a decimal like 0.3 or "0.3", or a rational like "3/10"
"""
from __future__ import annotations

import json
import re
from fractions import Fraction

from symgauss.kernel.errors import InputFormatError, NumberFormatError

# ASCII digits only: "٩/٥" or full-width digits are not numbers here (re.ASCII, [0-9])
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?", re.ASCII)
_RATIONAL = re.compile(r"([+-]?[0-9]+)/([+-]?[0-9]+)", re.ASCII)
MAX_EXPONENT = 4000  # 10**4000 is exact but larger exponents are a denial of service
MAX_DIGITS = 4000


class JSONNumber(str):
    """The exact source text of a JSON number, kept so that 0.3 stays 3/10."""


def loads_exact(text: str, where: str = "input"):
    """Parse JSON text, keeping every number as :class:`JSONNumber` text.

    Raises :class:`InputFormatError` for empty or invalid JSON, for a key that appears twice in
    one object, and for the non-standard constants NaN / Infinity.

    >>> loads_exact('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    symgauss.kernel.errors.InputFormatError: input: the key 'a' appears twice in one object; two readers could see different values — keep one
    """
    if not text.strip():
        raise InputFormatError(f"{where}: the file is empty; write a JSON object such as "
                               '{"cov0": [[1]]}')

    def bad_constant(name):
        raise NumberFormatError(where, name, "NaN and infinities are not numbers here")

    def unique_keys(pairs):
        seen = {}
        for key, value in pairs:
            if key in seen:
                raise InputFormatError(f"{where}: the key {key!r} appears twice in one object; "
                                       "two readers could see different values — keep one")
            seen[key] = value
        return seen

    try:
        return json.loads(text, parse_float=JSONNumber, parse_int=JSONNumber,
                          parse_constant=bad_constant, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise InputFormatError(f"{where}: invalid JSON at line {exc.lineno} column {exc.colno}: "
                               f"{exc.msg}") from None
    except RecursionError:
        raise InputFormatError(f"{where}: JSON nested too deeply") from None


def parse_rational(value, where: str) -> Fraction:
    """Read one number exactly; ``where`` names it in the error message."""
    if isinstance(value, bool) or value is None:
        raise NumberFormatError(where, value, "expected a number, found "
                                + ("a boolean" if isinstance(value, bool) else "null"))
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise NumberFormatError(where, value, "NaN and infinities are not numbers here")
        # a Python float is read from its shortest decimal text, as a user would write it
        return parse_rational(repr(value), where)
    if not isinstance(value, str):
        raise NumberFormatError(where, value, f"expected a number, found {type(value).__name__}")
    text = value.strip()
    if len(text) > MAX_DIGITS:
        raise NumberFormatError(where, text[:20] + "...", f"longer than {MAX_DIGITS} characters")
    m = _RATIONAL.fullmatch(text)
    if m:
        p, q = int(m.group(1)), int(m.group(2))
        if q == 0:
            raise NumberFormatError(where, value, "zero denominator")
        return Fraction(p, q)
    m = _DECIMAL.fullmatch(text)
    if m:
        if m.group(1) is not None and abs(int(m.group(1))) > MAX_EXPONENT:
            raise NumberFormatError(where, value, f"exponent beyond +-{MAX_EXPONENT}")
        return Fraction(text)
    low = text.lower().lstrip("+-")
    if low in ("nan", "inf", "infinity"):
        raise NumberFormatError(where, value, "NaN and infinities are not numbers here")
    raise NumberFormatError(where, value, "not a decimal or p/q rational")


def rational_text(x) -> str:
    """Canonical exact text of a rational: ``'3/10'``, ``'-2'``."""
    x = Fraction(int(x.p), int(x.q)) if hasattr(x, "q") else Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def decimal_text(x, digits: int) -> tuple:
    """``x`` rounded to ``digits`` significant digits, as plain decimal text, and half a unit of
    its last digit (so the text is within that of ``x``).

    >>> decimal_text(Fraction(1, 3), 4)
    ('0.3333', Fraction(1, 20000))
    >>> decimal_text(Fraction(99996, 10), 4)
    ('10000', Fraction(1, 2))
    """
    x = Fraction(x)
    if x == 0:
        return "0", Fraction(1, 2)
    a = abs(x)
    e = len(str(a.numerator)) - len(str(a.denominator))
    while Fraction(10) ** e > a:
        e -= 1
    while Fraction(10) ** (e + 1) <= a:
        e += 1
    unit = Fraction(10) ** (e - digits + 1)
    q = round(a / unit)
    k = -(e - digits + 1)  # digits after the point
    if k > 0:
        s = str(q).rjust(k + 1, "0")
        text = s[:-k] + "." + s[-k:]
    else:
        text = str(q) + "0" * (-k)
    return ("-" if x < 0 else "") + text, unit / 2


def decimal_half_unit(text: str) -> Fraction:
    """Half a unit of the last digit of decimal ``text`` (``"0.250"`` → 1/2000)."""
    m = _DECIMAL.fullmatch(text.strip())
    if m is None:
        raise NumberFormatError("decimal", text, "not a decimal number")
    mant = text.strip().split("e")[0].split("E")[0]
    frac = len(mant.split(".")[1]) if "." in mant else 0
    exp = int(m.group(1) or 0)
    return Fraction(10) ** (exp - frac) / 2
