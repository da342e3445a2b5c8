"""``symgauss equilibria P.json [--digits D] [--json]``: equilibria, each with its level and
stability; continua (``families``); whether the list is proved complete.

Printed numbers say no more than is proved: exact equilibria are printed as fractions; rigorous
ones (and exact algebraic ones) as decimals together with a radius that covers both the proof's
enclosure and the rounding of the printed digits; high-precision ones only to the digits on which
two runs agree.
"""
from __future__ import annotations

from symgauss.cli.common import (
    add_json_flag,
    add_problem_argument,
    load,
    positive_digits,
    print_json,
)

HELP = "equilibria of the covariance equation, with level (exact/rigorous/...) and stability"


def add_arguments(p):
    add_problem_argument(p)
    p.add_argument("--digits", default="30", metavar="D",
                   help="digits for equilibria that are not rational (default 30)")
    add_json_flag(p)


def _level_text(e) -> str:
    from symgauss.questions.equilibria.result import scientific
    if e.level == "exact" and e.algebraic is not None:
        return (f"level exact (algebraic numbers, see --json); the printed decimals are within "
                f"{scientific(e.radius)} (max entry)")
    if e.level == "rigorous":
        return (f"level rigorous: a unique equilibrium within {scientific(e.radius)} (max entry) "
                "of the printed matrix")
    if e.level in ("high-precision", "float"):
        return f"level {e.level} ({e.digits} digits shown, no error bound)"
    return f"level {e.level}"


def run(args) -> int:
    from symgauss.questions.equilibria.result import COMPLETE_SCOPE, scientific
    from symgauss.questions.equilibria.search import find_equilibria
    problem = load(args.problem)
    res = find_equilibria(problem, digits=max(5, positive_digits(args.digits)))
    if args.json:
        print_json(res.to_json_dict())
        return 0
    print(("complete (proved): " + COMPLETE_SCOPE) if res.complete else
          "not proved complete: other positive-definite equilibria may exist")
    print(f"method: {res.method}")
    for k, e in enumerate(res):
        stable = {True: "stable", False: "unstable", None: "stability undecided"}[e.stable]
        print(f"equilibrium {k}: rank {e.rank}, {_level_text(e)}, {stable}")
        print("  cov  = [" + "; ".join(", ".join(r) for r in e.cov) + "]")
        within = f" (within {scientific(e.mean_radius)})" if e.mean_radius else ""
        print("  mean = " + ("[" + ", ".join(e.mean) + "]" + within if e.mean else
                             "not given (the mean matrix is singular, or not enclosed)"))
        if e.stability is not None:
            print(f"  evidence: {e.stability.reason}")
    for k, f in enumerate(res.families):
        print(f"family {k}: level {f.level}, dimension {f.dimension or 'unknown'}: "
              f"{f.description}")
        if f.parametrisation is not None:
            print(f"  parametrisation: {f.parametrisation}")
        if f.point is not None:
            print(f"  a positive-definite point on it ({f.point_level}): [" +
                  "; ".join(", ".join(r) for r in f.point) + "]")
        print(f"  stability: {f.stability}")
    return 0
