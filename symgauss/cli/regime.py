"""``symgauss regime P.json [--certificate FILE] [--digits D] [--json]``."""
from __future__ import annotations

from symgauss.cli.common import (
    add_json_flag,
    add_problem_argument,
    load,
    positive_digits,
    print_json,
)

HELP = "the long-time regime of a time-invariant problem, with a certificate when proved"
DESCRIPTION = (
    "Decide what Σ(t) does for time-invariant parameters: stable-equilibrium (the limit Σ* ≻ 0 "
    "and a rate), decay (Σ → 0), singular-limit (Σ → a rank-deficient Σ*), blow-up (T* with a "
    "proved enclosure), growth, bounded, constant — or undecided, with why and what was tried. "
    "Each answer carries its level (exact / rigorous / high-precision / float); with "
    "--certificate FILE a certificate that `symgauss check` re-verifies is written when the "
    "answer was proved. Methods: closed forms (d = 1, diagonal problems), the Riccati equation "
    "(V = vI), validated Taylor integration into a contraction region (kernel kind 'limit'), "
    "validated integration plus comparison equations for T* (kind 'blowup-trajectory'). "
    "Time-varying controls are not handled: use `symgauss solve` for their trajectory.")


def add_arguments(p):
    add_problem_argument(p)
    p.add_argument("--certificate", default=None, metavar="FILE",
                   help="write the certificate of a proved answer to FILE")
    p.add_argument("--digits", default="15", metavar="D",
                   help="significant digits of T* where a closed form or the Riccati method "
                        "gives them (default 15)")
    add_json_flag(p)


def run(args) -> int:
    from symgauss.questions.regime.classify import classify
    problem = load(args.problem)
    digits = positive_digits(args.digits)
    r = classify(problem, digits=digits, certificate_file=args.certificate)
    if args.json:
        print_json(r.to_json_dict())
        return 0
    print(f"{r.kind.upper()}   level: {r.level or '-'}")
    print(f"method: {r.method}")
    if r.t_star is not None:
        print(f"T* = {r.t_star}" + (f"  (closed form {r.t_star_exact})" if r.t_star_exact else ""))
    if r.enclosure is not None:
        print(f"proved enclosure: T* ∈ ({r.enclosure[0]}, {r.enclosure[1]}]")
    if r.equilibrium is not None:
        print("equilibrium Σ*: " + "; ".join(", ".join(row) for row in r.equilibrium))
        if any("/" in x and len(x) > 12 for row in r.equilibrium for x in row):
            print("  ≈ " + "; ".join(", ".join(_decimal(x) for x in row) for row in r.equilibrium)
                  + " (each rounded to 10 significant digits)")
    if r.rate is not None and r.kind == "growth":
        print(f"rate: tr Σ(t) grows at least like e^({r.rate}·t) (from the time in the evidence)")
    elif r.rate is not None:
        print(f"rate: ‖Σ(t) − Σ*‖ decays at least like e^(−{r.rate}·t)")
    print(f"evidence: {r.evidence}")
    for note in r.notes:
        print(f"note: {note}")
    for item in r.tried:
        print(f"tried: {item}")
    if r.certificate is not None:
        print(f"certificate: {r.certificate} (check it with: symgauss check {r.certificate})")
    elif args.certificate:
        print("certificate: none written (this answer is not proved by a kernel-checked "
              "certificate)")
    return 0


def _decimal(text: str) -> str:
    """An exact rational's text, correctly rounded to 10 significant digits (decimal division
    in a 10-digit context rounds once)."""
    from decimal import Context, Decimal
    from fractions import Fraction
    x = Fraction(text)
    return str(Context(prec=10).divide(Decimal(x.numerator), Decimal(x.denominator)))
