"""``symgauss certify P.json -o FILE [--digits D] [--json]``: write a checked certificate.

Order of questions for a time-invariant problem: finite-time blow-up first (when
:mod:`symgauss.questions.blowup.decide` provides ``make_certificate``), else the positive-definite equilibrium and
its stability. A problem with a ``target`` is a reachability question
(:func:`symgauss.questions.reach.controls.make_certificate`).

Exit codes: 0 certificate written (and re-checked); 1 refused — the equilibrium is unstable (the
instability evidence is printed, and written to FILE with ``--evidence``), none exists, or
stability is undecided; 2 bad input.
"""
from __future__ import annotations

import sys

from symgauss.cli.common import (
    add_json_flag,
    add_problem_argument,
    load,
    positive_digits,
    print_json,
)

HELP = "write a certificate (stable equilibrium, blow-up or reachability), checked exactly"
EXIT_REFUSED = 1


def add_arguments(p):
    add_problem_argument(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="certificate file to write")
    p.add_argument("--digits", default="30", metavar="D",
                   help="working digits for non-rational equilibria and blow-up (default 30)")
    p.add_argument("--evidence", metavar="FILE",
                   help="when refusing, write the instability evidence certificate here")
    p.add_argument("--box", metavar="FILE",
                   help="robust certificate: a JSON list of {\"entry\": [\"A\", i, j], "
                        "\"from\": lo, \"to\": hi}; certifies global convergence for every A "
                        "in the box (V = vI, R ≺ 0)")
    p.add_argument("--structured", action="store_true",
                   help="stability with d×d witnesses (Lyapunov function tr(QΔQΔ)) at any d; "
                        "the default for d > 12")
    p.add_argument("--latex", metavar="FILE",
                   help="also write the certificate as a LaTeX document (and its PDF)")
    add_json_flag(p)


def make(problem, digits: int, box=None, structured: bool = False):
    """(certificate or None, StabilityResult or None, reason)."""
    if box is not None:
        from symgauss.questions.stability.local import StabilityResult
        from symgauss.questions.stability.robust import robust_global_certificate
        cert = robust_global_certificate(problem, box)
        if cert is None:
            return None, StabilityResult(
                "undecided", "no robust certificate: it needs every V_h = v_h I with R ≺ 0, and "
                "no common Z was found for the box's vertices (SDP, Clarabel)", "exact"), \
                "robust"
        return cert, None, "robust"
    if problem.target is not None:
        from symgauss.questions.reach.controls import make_certificate as make_reach
        return make_reach(problem), None, "reachability"
    if not problem.is_time_invariant:  # switched: Σ = 0 under any switching among the pieces
        from symgauss.questions.stability.local import StabilityResult
        from symgauss.questions.stability.robust import common_lyapunov_certificate
        cert = common_lyapunov_certificate(problem)
        if cert is None:
            return None, StabilityResult(
                "undecided", "no common Lyapunov function tr(PΣ) was found for the pieces' "
                "feed-forward matrices A (SDP, Clarabel); it needs every A Hurwitz and more",
                None), "switched"
        return cert, None, "switched"
    from symgauss.questions.blowup.decide import make_certificate as make_blowup
    cert = make_blowup(problem, digits=digits)
    if cert is not None:
        return cert, None, "blow-up"
    from symgauss.questions.stability.certify import certify
    res = certify(problem, digits=digits, structured=structured)
    return (res.certificate if res.status == "verified" else None), res, "stability"


def _read_box(path):
    """A box file: a JSON list of {"entry": ["A", i, j], "from": lo, "to": hi} (read exactly)."""
    from pathlib import Path

    from symgauss.kernel.errors import InputFormatError, ProblemError
    from symgauss.kernel.numbers import loads_exact, parse_rational
    try:
        box = loads_exact(Path(path).read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFormatError(f"{path}: cannot read the box file ({exc})") from None
    if not isinstance(box, list) or not 1 <= len(box) <= 10:
        raise ProblemError(f"{path}: a box is a list of 1..10 entries "
                           '{"entry": ["A", i, j], "from": lo, "to": hi}')
    for k, e in enumerate(box):
        ok = isinstance(e, dict) and set(e) == {"entry", "from", "to"} and \
            isinstance(e["entry"], list) and len(e["entry"]) == 3 and e["entry"][0] == "A"
        if not ok:
            raise ProblemError(f"{path}: box[{k}] must be "
                               '{"entry": ["A", i, j], "from": lo, "to": hi}')
        idx = [parse_rational(x, f"box[{k}].entry") for x in e["entry"][1:]]
        if any(x.denominator != 1 for x in idx):
            raise ProblemError(f"{path}: box[{k}].entry indices must be integers")
        e["entry"] = ["A"] + [int(x) for x in idx]
        if parse_rational(e["from"], f"box[{k}].from") > parse_rational(e["to"], f"box[{k}].to"):
            raise ProblemError(f"{path}: box[{k}] has from > to")
    return box


def run(args) -> int:
    from symgauss.kernel.checker import check_certificate
    from symgauss.model.certificate import write_certificate
    problem = load(args.problem)
    box = _read_box(args.box) if args.box else None
    cert, res, what = make(problem, positive_digits(args.digits), box, args.structured)
    if cert is None:
        evidence = res.certificate if res is not None else None
        if args.evidence and evidence is not None:
            write_certificate(evidence, args.evidence)
        if args.json:
            print_json({"certified": False, "status": res.status, "reason": res.reason,
                        "evidence": evidence})
        why = "no certificate" if res.status == "verified" else res.status  # proved, not certifiable
        sys.stderr.write(f"symgauss certify: refused ({why}): {res.reason}\n")
        return EXIT_REFUSED
    if res is not None and res.status == "verified" and res.certificate is cert:
        reason = res.reason   # this very object was just accepted by the kernel (local.checked)
    else:
        verdict = check_certificate(cert)   # never write what the trusted checker rejects
        if not verdict.ok:
            sys.stderr.write(f"symgauss certify: the {what} certificate found does not check: "
                             f"{verdict.reason}\n")
            return EXIT_REFUSED
        reason = verdict.reason
    path = write_certificate(cert, args.output)
    _extra_outputs(args, cert)
    if args.json:
        print_json({"certified": True, "file": str(path), "kind": cert["kind"],
                    "level": cert["level"], "verdict": reason})
    else:
        print(f"{path}: {cert['kind']} ({cert['level']}): {reason}")
    return 0


def _extra_outputs(args, cert) -> None:
    """Further renderings of a written certificate (e.g. ``--latex FILE``) go here."""
    if getattr(args, "latex", None):
        from symgauss.kernel.checker import check_certificate
        from symgauss.reporting.latex import write_certificate_document
        print(write_certificate_document(cert, args.latex, check_certificate(cert)))
