"""The trusted checker: re-verifies certificate files with exact rationals and ball arithmetic.

Trusted kernel rules (CONTRIBUTING.md): import only the standard library, python-flint and
the kernel itself — never cvxpy, scipy, sympy, mpmath, numpy or the search code — never evaluate
file text as code, recompute every claim from the problem stored in the certificate.

The format (version 2) is closed: every key is declared, and read::

    {"format": "symgauss-certificate", "version": 2, "kind": "<kind>",
     "problem": {problem-file keys, exact strings}, "problem_hash": "sha256:…",
     "claim": {"statement": "…", the kind's claim keys}, "witness": {the kind's witness keys},
     "level": "exact" | "rigorous", "generated_by": "…" (optional), "notes": "…" (optional)}

A file is VERIFIED only when: it is at most ``MAX_FILE_BYTES`` bytes of UTF-8 JSON without
duplicate keys; its problem reads and its hash matches; its claim and witness hold exactly the
keys its kind declares, of the declared types and shapes, within the kind's limits; its
``level`` is the level the kind proves; its ``claim.statement`` is, word for word, the statement
the checker produces from the claim's numbers (:func:`statement_of`); and the kind's check proves
every part of that statement. ``generated_by`` and ``notes`` are free text, never a claim.

>>> import symgauss as sg
>>> sg.check("certificates/stable_diag.json").status
'verified'
"""
from __future__ import annotations

from os import PathLike
from pathlib import Path

from symgauss.kernel.errors import SymgaussError
from symgauss.kernel.kinds import (
    blowup,
    blowup_infinity,
    blowup_slab,
    blowup_trajectory,
    blowup_turning,
    bounded,
    bounded_turning,
    decay_centre,
    decay_cone,
    growth,
    growth_axis,
    growth_quasi,
    growth_riccati,
    growth_schur,
    in_range,
    limit,
    limit_closed,
    limit_riccati,
    linear,
    reach,
    stability,
    structured,
)
from symgauss.kernel.numbers import JSONNumber, loads_exact
from symgauss.kernel.read import FORMAT, MAX_D, VERSION, ExactProblem, read_problem
from symgauss.kernel.schema import Context, read_section
from symgauss.kernel.verdict import Invalid, NotProved, Refuted, Verdict

#: kind -> the module that checks it (each module has SCHEMAS, statement(), check())
KINDS = {kind: module for module in (stability, structured, in_range, blowup, reach, limit,
                                      limit_closed, limit_riccati, blowup_trajectory,
                                      blowup_infinity, blowup_slab, blowup_turning, growth,
                                      growth_axis, growth_schur, growth_riccati, growth_quasi,
                                      bounded, bounded_turning, decay_cone, decay_centre, linear)
         for kind in module.SCHEMAS}
ENVELOPE_KEYS = {"format", "version", "kind", "problem", "problem_hash", "claim", "witness",
                 "level"}
OPTIONAL_KEYS = {"generated_by", "notes"}
MAX_FILE_BYTES = 1 << 20      # 1 MiB
MAX_NOTE_CHARS = 4000


def _envelope(cert):
    """(kind, problem, kind's schema, Context) of a certificate whose envelope is well formed."""
    if not isinstance(cert, dict):
        raise Invalid("a certificate is a JSON object")
    for key in cert:
        if key not in ENVELOPE_KEYS | OPTIONAL_KEYS:
            raise Invalid(f"unknown top-level key {key!r}")
    for key in sorted(ENVELOPE_KEYS):
        if key not in cert:
            raise Invalid(f"missing field {key!r}")
    if cert["format"] != FORMAT:
        raise Invalid(f"'format' must be {FORMAT!r}")
    if str(cert["version"]) != str(VERSION):
        raise Invalid(f"unsupported version {cert['version']!r}; this checker reads version "
                      f"{VERSION} (regenerate the certificate with this symgauss)")
    kind = cert["kind"]
    if not isinstance(kind, str) or kind not in KINDS:
        raise Invalid(f"unknown kind {kind!r}; known kinds: {', '.join(sorted(KINDS))}")
    for key in OPTIONAL_KEYS & set(cert):
        if not isinstance(cert[key], str) or isinstance(cert[key], JSONNumber) \
                or len(cert[key]) > MAX_NOTE_CHARS:
            raise Invalid(f"{key!r}: expected text of at most {MAX_NOTE_CHARS} characters")
    schema = KINDS[kind].SCHEMAS[kind]
    cov0 = cert["problem"].get("cov0") if isinstance(cert["problem"], dict) else None
    d = len(cov0) if isinstance(cov0, list) else 0
    if d > schema.limits.get("d", MAX_D):   # before any arithmetic on the problem
        raise Invalid(f"over a limit: kind {kind} is checked for d ≤ "
                      f"{schema.limits.get('d', MAX_D)}, this problem has d = {d}")
    problem = read_problem(cert["problem"])
    if cert["problem_hash"] != problem.hash:
        raise Invalid(f"problem_hash does not match the stored problem (recomputed "
                      f"{problem.hash})")
    return kind, problem, schema, Context(problem.d, problem)


def _claim(cert, schema, ctx):
    claim = cert["claim"]
    if not isinstance(claim, dict):
        raise Invalid("claim: expected a JSON object")
    if not isinstance(claim.get("statement"), str) or isinstance(claim["statement"], JSONNumber):
        raise Invalid("claim.statement: the statement (text) is missing")
    return read_section({k: v for k, v in claim.items() if k != "statement"}, schema.claim,
                        "claim", ctx)


def statement_of(cert) -> str:
    """The statement this checker proves for ``cert``'s claim (``claim.statement`` aside).

    Writers put it into ``claim.statement``; raises :class:`Invalid` for a malformed claim.
    """
    kind, problem, schema, ctx = _envelope(cert)
    claim = dict(cert["claim"]) if isinstance(cert["claim"], dict) else cert["claim"]
    if isinstance(claim, dict):
        claim.setdefault("statement", "")
    return KINDS[kind].statement(kind, _claim(dict(cert, claim=claim), schema, ctx), problem)


def check_certificate(cert) -> Verdict:
    """Check one parsed certificate (numbers as :class:`symgauss.kernel.numbers.JSONNumber` or str)."""
    kind = cert.get("kind") if isinstance(cert, dict) and isinstance(cert.get("kind"), str) \
        else None
    try:
        kind, problem, schema, ctx = _envelope(cert)
        claim = _claim(cert, schema, ctx)
        witness = read_section(cert["witness"], schema.witness, "witness", ctx)
        said = KINDS[kind].statement(kind, claim, problem)
        if cert["claim"]["statement"] != said:
            raise Invalid("claim.statement is not the statement this checker proves for these "
                          f"numbers, which is: {said}")
        if schema.level is not None and cert["level"] != schema.level:
            raise Invalid(f"level {cert['level']!r}: kind {kind} proves level {schema.level!r}")
        level = KINDS[kind].check(kind, claim, witness, problem, ctx) or schema.level
        if cert["level"] != level:
            raise Invalid(f"level {cert['level']!r}: this certificate is proved at level "
                          f"{level!r}")
        return Verdict("verified", said, kind, level)
    except Invalid as exc:
        return Verdict("invalid", str(exc), kind)
    except Refuted as exc:
        return Verdict("refuted", str(exc), kind)
    except NotProved as exc:
        return Verdict("not-proved", str(exc), kind)
    except Exception as exc:  # never crash, never accept: a malformed file is invalid
        return Verdict("invalid", f"malformed certificate ({type(exc).__name__}: "
                                  f"{' '.join(str(exc).split())[:200]})", kind)


def load_certificate(path):
    """The parsed certificate file; :class:`Invalid` when it is not one (size, UTF-8, JSON)."""
    try:
        path = Path(path)
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise Invalid(f"over a limit: the file has {size} bytes; this checker reads at most "
                          f"{MAX_FILE_BYTES}")
        return loads_exact(path.read_text(encoding="utf-8"), "file")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise Invalid(f"cannot read the file: {getattr(exc, 'strerror', None) or exc}") from None
    except SymgaussError as exc:
        raise Invalid(str(exc)) from None


def check_file(path) -> Verdict:
    """Check one certificate file (a file that is not one is INVALID)."""
    try:
        cert = load_certificate(path)
    except Invalid as exc:
        return Verdict("invalid", str(exc))
    return check_certificate(cert)


def check(certificate) -> Verdict:
    """Check a certificate: a parsed JSON object, or the path of a certificate file.

    >>> import symgauss as sg
    >>> v = sg.check(sg.certify(sg.load_problem("symgauss/examples/stable_diag.json")).certificate)
    >>> v.status, v.kind, v.level
    ('verified', 'stable-equilibrium', 'exact')
    """
    if isinstance(certificate, dict):
        return check_certificate(certificate)
    if not isinstance(certificate, (str, PathLike)):
        return Verdict("invalid", "expected a certificate (a parsed JSON object) or the path of "
                                  f"a certificate file, got {type(certificate).__name__}")
    return check_file(certificate)


__all__ = ["check", "check_certificate", "check_file", "load_certificate", "statement_of",
           "Verdict", "ExactProblem", "KINDS"]
