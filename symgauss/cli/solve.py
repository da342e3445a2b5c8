"""``symgauss solve P.json --t T [--digits D] [--float] [--json]``."""
from __future__ import annotations

import sys

from symgauss.cli.common import (
    add_json_flag,
    add_problem_argument,
    load,
    positive_digits,
    print_json,
)

HELP = "integrate the moment ODEs to time T with D significant digits"
EXIT_BLOWUP = 3


def add_arguments(p):
    add_problem_argument(p)
    p.add_argument("--t", required=True, metavar="T", help="final time (exact: 1/2, 0.5, 3)")
    p.add_argument("--digits", default="30", metavar="D",
                   help="significant digits (default 30; 50 and more work)")
    p.add_argument("--float", action="store_true",
                   help="quick float answer (scipy DOP853, rtol 1e-12) instead of high precision")
    add_json_flag(p)


def run(args) -> int:
    from symgauss.integrate.float_solver import solve_moments_float
    from symgauss.integrate.high_precision import solve_moments
    from symgauss.kernel.errors import BlowUpError
    problem = load(args.problem)
    digits = positive_digits(args.digits)
    try:
        sol = (solve_moments_float(problem, args.t) if args.float
               else solve_moments(problem, args.t, digits))
    except BlowUpError as exc:
        if args.json:
            print_json({"t": args.t, "blows_up": True,
                        "t_star_estimate": repr(float(exc.t_estimate)),
                        "message": str(exc)})
        sys.stderr.write(f"symgauss solve: {exc}\n")
        return EXIT_BLOWUP
    if args.json:
        print_json(sol.to_json_dict())
        return 0
    print(f"t = {sol.t}   level: {sol.level}   method: {sol.method}")
    if sol.level == "high-precision":
        print(f"two independent runs agree to {sol.digits_agreed:.1f} digits (normwise)")
    print("mean =")
    for x in sol.mean_str():
        print("  " + x)
    print("cov =")
    for row in sol.cov_str():
        print("  [" + ", ".join(row) + "]")
    return 0
