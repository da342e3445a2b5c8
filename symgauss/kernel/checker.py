"""The trusted checker: re-verifies certificate files with exact rationals and ball arithmetic.

Trusted kernel rules (CONTRIBUTING.md): import only the standard library, python-flint and
the kernel itself — never cvxpy, scipy, sympy, mpmath, numpy or the search code — never evaluate
file text as code, recompute every claim from the problem stored in the certificate. Envelope (version 1)::

    {"format": "symgauss-certificate", "version": 1, "kind": "<kind>",
     "problem": {problem-file keys, exact strings}, "problem_hash": "sha256:…",
     "claim": {...}, "witness": {...}, "level": "exact" | "rigorous", ...}

``kind`` selects the module (``KINDS``); each has ``check(cert, problem: ExactProblem) -> Verdict``.

>>> import symgauss as sg
>>> sg.check("certificates/stable_diag.json").status
'verified'
"""
from __future__ import annotations

from pathlib import Path

from symgauss.kernel.errors import SymgaussError
from symgauss.kernel.kinds import blowup, in_range, reach, stability
from symgauss.kernel.numbers import loads_exact
from symgauss.kernel.read import FORMAT, VERSION, ExactProblem, read_problem
from symgauss.kernel.verdict import Invalid, Verdict

KINDS = {"stable-equilibrium": stability, "unstable-equilibrium": stability,
         "common-lyapunov": stability, "robust-global": stability, "blowup": blowup,
         "reach": reach, "unreachable": reach, "stable-equilibrium-in-range": in_range}
ENVELOPE_KEYS = frozenset({"format", "version", "kind", "problem", "problem_hash", "claim",
                           "witness", "level", "generated_by", "notes"})


def check_certificate(cert) -> Verdict:
    """Check one parsed certificate (numbers as :class:`symgauss.kernel.numbers.JSONNumber` or str)."""
    kind = cert.get("kind") if isinstance(cert, dict) else None
    kind = kind if isinstance(kind, str) else None
    try:
        if not isinstance(cert, dict):
            raise Invalid("a certificate is a JSON object")
        for key in set(cert) - ENVELOPE_KEYS:
            raise Invalid(f"unknown top-level key {key!r}")
        if cert.get("format") != FORMAT:
            raise Invalid(f"'format' must be {FORMAT!r}")
        if str(cert.get("version")) != str(VERSION):
            raise Invalid(f"unsupported version {cert.get('version')!r}; this checker reads "
                          f"version {VERSION}")
        if kind not in KINDS:
            raise Invalid(f"unknown kind {kind!r}; known kinds: {', '.join(sorted(KINDS))}")
        for key in ("problem", "problem_hash", "claim", "witness", "level"):
            if key not in cert:
                raise Invalid(f"missing field {key!r}")
        problem = read_problem(cert["problem"])
        if cert["problem_hash"] != problem.hash:
            raise Invalid(f"problem_hash does not match the stored problem (recomputed "
                          f"{problem.hash})")
        return KINDS[kind].check(cert, problem)
    except Invalid as exc:
        return Verdict("invalid", str(exc), kind)
    except Exception as exc:  # never crash, never accept: a malformed file is invalid
        return Verdict("invalid", f"malformed certificate ({type(exc).__name__}: "
                                  f"{' '.join(str(exc).split())[:200]})", kind)


class Unreadable(Exception):
    """The file cannot be read or is not JSON (CLI exit code 2)."""


def load_certificate(path):
    try:
        return loads_exact(Path(path).read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise Unreadable(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") \
            from None
    except SymgaussError as exc:
        raise Unreadable(str(exc)) from None


def check_file(path) -> Verdict:
    """Check one certificate file; raises :class:`Unreadable` if it is not JSON."""
    return check_certificate(load_certificate(path))


def check(certificate) -> Verdict:
    """Check a certificate: a parsed JSON object, or the path of a certificate file.

    >>> import symgauss as sg
    >>> v = sg.check(sg.certify(sg.load_problem("symgauss/examples/stable_diag.json")).certificate)
    >>> v.status, v.kind
    ('verified', 'stable-equilibrium')
    """
    if isinstance(certificate, dict):
        return check_certificate(certificate)
    return check_file(certificate)


__all__ = ["check", "check_certificate", "check_file", "load_certificate", "Verdict", "Unreadable",
           "ExactProblem", "KINDS"]
