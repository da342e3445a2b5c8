"""``symgauss reach P.json [--T T] [--method M] [--digits D] [--json] [--certificate FILE]
[--write-controls FILE]``."""
from __future__ import annotations

import json

from symgauss.cli.common import (
    add_json_flag,
    add_problem_argument,
    load,
    positive_digits,
    print_json,
)

HELP = "steer (mean0, cov0) to the problem's target at time T, or prove it unreachable"
DESCRIPTION = ("Decide whether the problem's target can be reached (rank cov0 = rank target.cov, "
               "decided exactly) and construct piecewise-constant controls that reach it at "
               "time T: geodesic (full rank), polar (any rank) or attention (full rank; exact "
               "rational controls). The default is the cheapest method that applies, by control "
               "energy. The reached state is verified independently in ball arithmetic. Exit 0 "
               "with a decided answer (reachable or not), 2 on bad input.")


def add_arguments(p):
    add_problem_argument(p)
    p.add_argument("--T", default="1", metavar="T", help="final time, exact (default 1)")
    p.add_argument("--method", choices=("geodesic", "polar", "attention"), default=None,
                   help="construction (default: the cheapest that applies)")
    p.add_argument("--digits", default="50", metavar="D",
                   help="working precision in significant digits (default 50)")
    p.add_argument("--certificate", metavar="FILE", default=None,
                   help="also write a reach/unreachable certificate (check with symgauss check)")
    p.add_argument("--write-controls", metavar="FILE", default=None,
                   help="write a problem file with the controls (input for symgauss solve)")
    add_json_flag(p)


def run(args) -> int:
    from symgauss.kernel.errors import ProblemError
    from symgauss.questions.reach.controls import reach
    problem = load(args.problem)
    digits = positive_digits(args.digits)
    if problem.target is None:
        raise ProblemError(f"{args.problem} has no 'target'; add {{\"target\": {{\"mean\": [...], "
                           "\"cov\": [[...]]}} to ask whether it can be reached")
    res = reach(problem, args.T, args.method, digits)
    if args.certificate:
        from symgauss.model.certificate import envelope, write_certificate
        from symgauss.questions.reach.controls import certificate_from_result
        write_certificate(certificate_from_result(problem, res, envelope), args.certificate)
    if args.write_controls and res.reachable:
        from pathlib import Path
        Path(args.write_controls).write_text(res.controlled_problem(problem).to_json() + "\n",
                                             encoding="utf-8")
    if args.json:
        print_json(res.to_json_dict())
        return 0
    out = res.to_json_dict()
    print(f"reachable: {'yes' if res.reachable else 'no'}   (T = {out['T']})")
    print(f"reason: {res.reason}")
    if res.reachable:
        print(f"method: {res.method}   energy: {out['energy']}   final error ≤ "
              f"{out['final_error']}   level: {res.level}")
        others = ", ".join(f"{m} {e}" for m, e in out["candidates"].items())
        print(f"energies of the methods that apply: {others}")
        print("controls =")
        print(json.dumps(out["controls"], indent=1))
    return 0
