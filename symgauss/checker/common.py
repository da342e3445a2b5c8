"""Reading certificate data exactly: rationals (flint ``fmpq``), matrices (``fmpq_mat``).

Part of the trusted kernel: standard library + python-flint + symgauss.numbers only.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from fractions import Fraction

import flint

from ..numbers import parse_rational, rational_text

FORMAT = "symgauss-certificate"
VERSION = 1
STATUSES = ("verified", "refuted", "invalid")


class Invalid(Exception):
    """The certificate is malformed (a reason, never an acceptance)."""


@dataclass(frozen=True)
class Verdict:
    status: str          # "verified" | "refuted" | "invalid"
    reason: str
    kind: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "verified"


def rational(value, where: str) -> flint.fmpq:
    """An exact rational from a JSON number or string (never evaluated as code)."""
    if isinstance(value, (list, dict)):
        raise Invalid(f"{where}: expected a number, found a {type(value).__name__}")
    try:
        f = parse_rational(value, where)
    except ValueError as exc:
        raise Invalid(str(exc)) from None
    return flint.fmpq(f.numerator, f.denominator)


def matrix(value, where: str, rows: int, cols: int) -> flint.fmpq_mat:
    if not isinstance(value, list) or len(value) != rows:
        raise Invalid(f"{where}: expected {rows} rows")
    out = []
    for i, row in enumerate(value):
        if not isinstance(row, list) or len(row) != cols:
            raise Invalid(f"{where}[{i}]: expected {cols} entries")
        out.append([rational(x, f"{where}[{i}][{j}]") for j, x in enumerate(row)])
    return flint.fmpq_mat(rows, cols, [x for r in out for x in r]) if rows and cols else \
        flint.fmpq_mat(rows, cols)


def vector(value, where: str, n: int) -> flint.fmpq_mat:
    """A column vector (n×1) from a flat JSON list."""
    if not isinstance(value, list) or len(value) != n:
        raise Invalid(f"{where}: expected a list of {n} numbers")
    return flint.fmpq_mat(n, 1, [rational(x, f"{where}[{i}]") for i, x in enumerate(value)])


def text(x) -> str:
    """Canonical exact text of an fmpq."""
    return rational_text(Fraction(int(x.p), int(x.q)))


def mat_text(M) -> list:
    return [[text(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())]


def vec_text(v) -> list:
    return [text(v[i, 0]) for i in range(v.nrows())]


@dataclass(frozen=True)
class ExactParams:
    A: flint.fmpq_mat
    heads: tuple          # of (V, B)
    b: flint.fmpq_mat     # d×1


@dataclass(frozen=True)
class ExactProblem:
    """The problem stored in a certificate, exactly; ``hash`` as :meth:`Problem.hash`."""
    d: int
    cov0: flint.fmpq_mat
    mean0: flint.fmpq_mat
    params: ExactParams | None
    controls: tuple       # of (duration fmpq, ExactParams); empty when params is set
    target: tuple | None  # (mean, cov)
    hash: str


_PROBLEM_KEYS = {"name", "A", "V", "B", "b", "mean0", "cov0", "heads", "target", "controls"}
_PIECE_KEYS = {"duration", "A", "V", "B", "b", "heads"}


def _params(obj, d, where):
    zero = flint.fmpq_mat(d, d)
    A = matrix(obj["A"], f"{where}A", d, d) if "A" in obj else zero
    b = vector(obj["b"], f"{where}b", d) if "b" in obj else flint.fmpq_mat(d, 1)
    if "heads" in obj:
        if "V" in obj or "B" in obj or not isinstance(obj["heads"], list) or not obj["heads"]:
            raise Invalid(f"{where}heads: a non-empty list, and not together with V/B")
        heads = []
        for k, h in enumerate(obj["heads"]):
            if not isinstance(h, dict) or set(h) - {"V", "B"}:
                raise Invalid(f"{where}heads[{k}]: expected {{'V': ..., 'B': ...}}")
            heads.append((matrix(h["V"], f"{where}heads[{k}].V", d, d) if "V" in h else zero,
                          matrix(h["B"], f"{where}heads[{k}].B", d, d) if "B" in h else zero))
    else:
        heads = [(matrix(obj["V"], f"{where}V", d, d) if "V" in obj else zero,
                  matrix(obj["B"], f"{where}B", d, d) if "B" in obj else zero)]
    return ExactParams(A, tuple(heads), b)


def _params_text(p: ExactParams) -> dict:
    out = {"A": mat_text(p.A)}
    if len(p.heads) == 1:
        out["V"], out["B"] = mat_text(p.heads[0][0]), mat_text(p.heads[0][1])
    else:
        out["heads"] = [{"V": mat_text(V), "B": mat_text(B)} for V, B in p.heads]
    out["b"] = vec_text(p.b)
    return out


def read_problem(obj) -> ExactProblem:
    """Read the ``problem`` field of a certificate (same keys as problem files)."""
    if not isinstance(obj, dict):
        raise Invalid("problem: expected a JSON object")
    extra = set(obj) - _PROBLEM_KEYS
    if extra:
        raise Invalid(f"problem: unknown key {sorted(extra)[0]!r}")
    cov = obj.get("cov0")
    if not isinstance(cov, list) or not cov:
        raise Invalid("problem.cov0: expected a non-empty d×d matrix")
    d = len(cov)
    cov0 = matrix(cov, "problem.cov0", d, d)
    if cov0.transpose() != cov0:
        raise Invalid("problem.cov0 is not symmetric")
    mean0 = vector(obj["mean0"], "problem.mean0", d) if "mean0" in obj else flint.fmpq_mat(d, 1)
    canon = {}
    if "controls" in obj:
        if any(k in obj for k in ("A", "V", "B", "b", "heads")):
            raise Invalid("problem: 'controls' together with constant parameters")
        if not isinstance(obj["controls"], list) or not obj["controls"]:
            raise Invalid("problem.controls: expected a non-empty list")
        pieces = []
        for k, pc in enumerate(obj["controls"]):
            if not isinstance(pc, dict) or set(pc) - _PIECE_KEYS or "duration" not in pc:
                raise Invalid(f"problem.controls[{k}]: expected duration, A, V, B, b")
            dur = rational(pc["duration"], f"problem.controls[{k}].duration")
            if dur <= 0:
                raise Invalid(f"problem.controls[{k}].duration must be positive")
            pieces.append((dur, _params(pc, d, f"problem.controls[{k}].")))
        params, controls = None, tuple(pieces)
        canon["controls"] = [{"duration": text(t), **_params_text(p)} for t, p in controls]
    else:
        params, controls = _params(obj, d, "problem."), ()
        canon.update(_params_text(params))
    canon["mean0"] = vec_text(mean0)
    canon["cov0"] = mat_text(cov0)
    target = None
    if "target" in obj:
        t = obj["target"]
        if not isinstance(t, dict) or set(t) - {"mean", "cov"} or "cov" not in t:
            raise Invalid("problem.target: expected {'mean': ..., 'cov': ...}")
        tc = matrix(t["cov"], "problem.target.cov", d, d)
        tm = vector(t["mean"], "problem.target.mean", d) if "mean" in t else flint.fmpq_mat(d, 1)
        target = (tm, tc)
        canon["target"] = {"mean": vec_text(tm), "cov": mat_text(tc)}
    digest = hashlib.sha256(json.dumps(canon, sort_keys=True, separators=(",", ":"))
                            .encode()).hexdigest()
    return ExactProblem(d, cov0, mean0, params, controls, target, "sha256:" + digest)


def ldl_positive_definite(S: flint.fmpq_mat) -> tuple:
    """Exact test that symmetric S ≻ 0: all LDLᵀ pivots positive. Returns (ok, pivots)."""
    n = S.nrows()
    M = [[S[i, j] for j in range(n)] for i in range(n)]
    pivots = []
    for k in range(n):
        p = M[k][k]
        pivots.append(p)
        if p <= 0:
            return False, pivots
        for i in range(k + 1, n):
            f = M[i][k] / p
            for j in range(k + 1, n):
                M[i][j] -= f * M[k][j]
    return True, pivots
