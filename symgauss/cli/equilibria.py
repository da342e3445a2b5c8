"""``symgauss equilibria P.json [--digits D] [--json]``: equilibria, each with its level and stability."""
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


def run(args) -> int:
    from symgauss.questions.equilibria.search import find_equilibria
    problem = load(args.problem)
    eqs = find_equilibria(problem, digits=max(5, positive_digits(args.digits)))
    if args.json:
        print_json({"equilibria": [e.to_json_dict() for e in eqs]})
        return 0
    for k, e in enumerate(eqs):
        stable = {True: "stable", False: "unstable", None: "stability undecided"}[e.stable]
        extra = f", within {float(e.radius):.3g} (max entry)" if e.radius is not None else ""
        print(f"equilibrium {k}: rank {e.rank}, level {e.level}{extra}, {stable}")
        print("  cov  = [" + "; ".join(", ".join(r) for r in e.cov) + "]")
        print("  mean = " + ("[" + ", ".join(e.mean) + "]" if e.mean else
                             "none (the mean matrix is singular)"))
        if e.stability is not None:
            print(f"  evidence: {e.stability.reason}")
    return 0
