"""Helpers shared by the sub-commands."""
from __future__ import annotations

import json
import sys

from symgauss.kernel.errors import ProblemError


def add_problem_argument(parser):
    parser.add_argument("problem", metavar="P.json", help="problem file (JSON, read exactly)")


def add_json_flag(parser):
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def load(path):
    from symgauss.model.problem_file import load_problem
    return load_problem(path)


def print_json(obj) -> None:
    json.dump(obj, sys.stdout, indent=1)
    sys.stdout.write("\n")


def bounded_int(text: str, flag: str, lo: int, hi: int) -> int:
    """An integer option in [lo, hi], or one clear error naming the flag."""
    try:
        n = int(text)
    except ValueError:
        raise ProblemError(f"{flag} {text!r} is not an integer") from None
    if not lo <= n <= hi:
        raise ProblemError(f"{flag} {n} is out of range; use {lo}..{hi}")
    return n


def positive_digits(text: str) -> int:
    return bounded_int(text, "--digits", 1, 2000)
