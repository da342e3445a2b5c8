"""``symgauss blowup P.json [--digits D] [--no-certify] [--no-crosscheck] [--json]``."""
from __future__ import annotations

from symgauss.cli.common import (
    add_json_flag,
    add_problem_argument,
    load,
    positive_digits,
    print_json,
)

HELP = "decide finite-time blow-up of the covariance; T* to D digits, certified enclosure"
DESCRIPTION = (
    "Decide, for time-invariant parameters, whether the covariance blows up in finite time: "
    "blows up / bounded / decays / exists for all time / undecided, with the argument used "
    "(closed form; the linear equation for P = Σ⁻¹ when V = vI; comparison bounds on tr Σ and "
    "‖Σ‖; the sign structure of V and B) and its level. When it blows up: T* to D digits, a "
    "certified enclosure [T⁻, T⁺] (ball arithmetic, V = vI), and the agreement with the "
    "moment ODE integrated independently (a cross-check, never part of the proof; "
    "--no-crosscheck skips it). Limits: blow-up belongs to the mean-field "
    "limit — a finite-token system never blows up in finite time (its growth is at most "
    "exponential); time-varying controls are not handled.")


def add_arguments(p):
    add_problem_argument(p)
    p.add_argument("--digits", default="30", metavar="D",
                   help="significant digits of T* (default 30; 50 and more work)")
    p.add_argument("--no-certify", action="store_true",
                   help="skip the certified enclosure and the integration cross-check (fast)")
    p.add_argument("--no-crosscheck", action="store_true",
                   help="skip only the cross-check against the integrated moment ODE (the "
                        "certified enclosure is still proved)")
    add_json_flag(p)


def run(args) -> int:
    from symgauss.questions.blowup.decide import decide_blowup
    problem = load(args.problem)
    digits = positive_digits(args.digits)
    res = decide_blowup(problem, digits, certify=not args.no_certify,
                        crosscheck=False if args.no_crosscheck else None)
    if args.json:
        print_json(res.to_json_dict())
        return 0
    verdict = {True: "BLOWS UP", False: "NO BLOW-UP", None: "UNDECIDED"}[res.blows_up]
    print(f"{verdict}  regime: {res.regime}   level: {res.level}")
    print(f"method: {res.method}")
    if res.closed_form is not None:
        print(f"closed form: T* = {res.closed_form}")
    if res.t_star is not None:
        print(f"T* ≈ {res.t_star}")
    if res.enclosure is not None:
        print(f"certified enclosure: T* ∈ [{res.enclosure[0]}, {res.enclosure[1]}]")
    if res.bracket is not None:
        lo, hi = res.bracket
        print(f"rigorous bracket (comparison bounds): T* ∈ [{lo or '0'}, {hi or '∞'}]")
    for method, n in res.agreement:
        print(f"agreement: {method}: {n:.1f} digits")
    print(f"evidence: {res.evidence}")
    if res.blows_up:
        print("note: blow-up is a property of the mean-field limit; finite-token systems do not "
              "blow up in finite time")
    return 0
