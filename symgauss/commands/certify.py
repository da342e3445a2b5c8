"""``symgauss certify P.json -o FILE [--digits D] [--json]``: write a checked certificate.

Order of questions for a time-invariant problem: finite-time blow-up first (when
:mod:`symgauss.blowup` provides ``make_certificate``), else the positive-definite equilibrium and
its stability. A problem with a ``target`` is a reachability question
(:func:`symgauss.reach.make_certificate`).

Exit codes: 0 certificate written (and re-checked); 1 refused — the equilibrium is unstable (the
instability evidence is printed, and written to FILE with ``--evidence``), none exists, or
stability is undecided; 2 bad input.
"""
from __future__ import annotations

import importlib
import sys

from ._common import add_json_flag, add_problem_argument, load, positive_digits, print_json

HELP = "write a certificate (stable equilibrium, blow-up or reachability), checked exactly"
EXIT_REFUSED = 1


def add_arguments(p):
    add_problem_argument(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="certificate file to write")
    p.add_argument("--digits", default="30", metavar="D",
                   help="working digits for non-rational equilibria and blow-up (default 30)")
    p.add_argument("--evidence", metavar="FILE",
                   help="when refusing, write the instability evidence certificate here")
    p.add_argument("--latex", metavar="FILE",
                   help="also write the certificate as a LaTeX document (and its PDF)")
    add_json_flag(p)


def _optional(module: str, name: str):
    try:
        mod = importlib.import_module(f"symgauss.{module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"symgauss.{module}":
            raise
        return None
    return getattr(mod, name, None)


def make(problem, digits: int):
    """(certificate or None, StabilityResult or None, reason)."""
    from ..errors import UnsupportedError
    if problem.target is not None:
        make_reach = _optional("reach", "make_certificate")
        if make_reach is None:
            raise UnsupportedError("this problem has a target (a reachability question) but "
                                   "symgauss.reach.make_certificate is not installed")
        return make_reach(problem), None, "reachability"
    if not problem.is_time_invariant:
        raise UnsupportedError("certify: a problem with 'controls' and no target has no "
                               "certificate kind; add a target or use constant parameters")
    make_blowup = _optional("blowup", "make_certificate")
    if make_blowup is not None:
        cert = make_blowup(problem, digits=digits)
        if cert is not None:
            return cert, None, "blow-up"
    from ..stability import certify
    res = certify(problem, digits=digits)
    return (res.certificate if res.status == "verified" else None), res, "stability"


def run(args) -> int:
    from ..certificate import write_certificate
    from ..checker import check_certificate
    problem = load(args.problem)
    cert, res, what = make(problem, positive_digits(args.digits))
    if cert is None:
        evidence = res.certificate if res is not None else None
        if args.evidence and evidence is not None:
            write_certificate(evidence, args.evidence)
        if args.json:
            print_json({"certified": False, "status": res.status, "reason": res.reason,
                        "evidence": evidence})
        sys.stderr.write(f"symgauss certify: refused ({res.status}): {res.reason}\n")
        return EXIT_REFUSED
    verdict = check_certificate(cert)   # never write what the trusted checker rejects
    if not verdict.ok:
        sys.stderr.write(f"symgauss certify: the {what} certificate found does not check: "
                         f"{verdict.reason}\n")
        return EXIT_REFUSED
    path = write_certificate(cert, args.output)
    _extra_outputs(args, cert)
    if args.json:
        print_json({"certified": True, "file": str(path), "kind": cert["kind"],
                    "level": cert["level"], "verdict": verdict.reason})
    else:
        print(f"{path}: {cert['kind']} ({cert['level']}): {verdict.reason}")
    return 0


def _extra_outputs(args, cert) -> None:
    """Further renderings of a written certificate (e.g. ``--latex FILE``) go here."""
    if getattr(args, "latex", None):
        from ..checker import check_certificate
        from ..latex import write_certificate_document
        print(write_certificate_document(cert, args.latex, check_certificate(cert)))
