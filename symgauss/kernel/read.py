"""Reading certificate data exactly: rationals (flint ``fmpq``), matrices (``fmpq_mat``).

Trusted kernel: standard library, python-flint and the kernel only; text is never evaluated.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from fractions import Fraction

import flint

from symgauss.kernel.exact import EXACT_WORK_LIMIT, exact_work, is_psd, positive_definite
from symgauss.kernel.numbers import parse_rational, rational_text
from symgauss.kernel.verdict import Invalid

FORMAT, VERSION = "symgauss-certificate", 2
#: limits of every stored problem (a kind may set lower ones)
MAX_D, MAX_PIECES, MAX_HEADS = 32, 64, 8


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
    if any(not isinstance(r, list) or len(r) != cols for r in value):
        raise Invalid(f"{where}: expected {cols} entries in every row")
    return flint.fmpq_mat(rows, cols, [rational(x, f"{where}[{i}][{j}]") for i, r in
                                       enumerate(value) for j, x in enumerate(r)])


def vector(value, where: str, n: int) -> flint.fmpq_mat:
    """A column vector (n×1) from a flat JSON list."""
    if not isinstance(value, list) or len(value) != n:
        raise Invalid(f"{where}: expected a list of {n} numbers")
    return flint.fmpq_mat(n, 1, [rational(x, f"{where}[{i}]") for i, x in enumerate(value)])


def text(x) -> str:
    """Canonical exact text of an fmpq (``'3/10'``, ``'-2'``; FLINT's own, any length)."""
    return str(x if isinstance(x, flint.fmpq) else flint.fmpq(x))


def brief(x, limit: int = 60) -> str:
    """An exact number for a message: its text, or its first digits and its size."""
    t = text(x)
    return t if len(t) <= limit else f"{t[:limit // 2]}… ({len(t)} characters)"


def short_text(x) -> str:
    """Exact text for statements: the shortest of p/q, a terminating decimal and exact
    scientific notation (``'3/7'``, ``'0.25'``, ``'1e-53'``)."""
    if len(text(x)) > 200:
        return brief(x)
    f = Fraction(int(x.p), int(x.q))
    q, k2, k5 = f.denominator, 0, 0
    while q % 2 == 0:
        q, k2 = q // 2, k2 + 1
    while q % 5 == 0:
        q, k5 = q // 5, k5 + 1
    exact = rational_text(f)
    if q != 1 or f.denominator == 1:
        return exact
    k = max(k2, k5)
    m = abs(f.numerator) * 10 ** k // f.denominator   # f = ±m·10^(−k) exactly
    digits = str(m).rjust(k + 1, "0")
    sign = "-" if f < 0 else ""
    dec = sign + digits[:-k] + "." + digits[-k:]
    mant = str(m).rstrip("0")
    exp = len(str(m)) - 1 - k
    sci = sign + mant[0] + ("." + mant[1:] if len(mant) > 1 else "") + f"e{exp}"
    return min((exact, dec, sci), key=len)


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


_PROBLEM_KEYS = {"A", "V", "B", "b", "mean0", "cov0", "heads", "target", "controls"}


_PIECE_KEYS = {"duration", "A", "V", "B", "b", "heads"}


def read_pieces(value, d: int, where: str) -> tuple:
    """Control pieces ((duration fmpq > 0, ExactParams), ...) from their problem-file form."""
    if not isinstance(value, list) or not value:
        raise Invalid(f"{where}: expected a non-empty list of pieces")
    if len(value) > MAX_PIECES:
        raise Invalid(f"{where}: {len(value)} pieces is over the limit of {MAX_PIECES}")
    pieces = []
    for k, pc in enumerate(value):
        if not isinstance(pc, dict) or set(pc) - _PIECE_KEYS or "duration" not in pc:
            raise Invalid(f"{where}[{k}]: expected an object with duration, A, V, B, b (heads)")
        dur = rational(pc["duration"], f"{where}[{k}].duration")
        if dur <= 0:
            raise Invalid(f"{where}[{k}].duration must be positive")
        pieces.append((dur, _params(pc, d, f"{where}[{k}].")))
    return tuple(pieces)


def _params(obj, d, where):
    def mat(o, k):
        return matrix(o[k], f"{where}{k}", d, d) if k in o else flint.fmpq_mat(d, d)
    heads = obj.get("heads", [obj])
    if "heads" in obj and ("V" in obj or "B" in obj or not isinstance(heads, list) or not heads):
        raise Invalid(f"{where}heads: a non-empty list, and not together with V/B")
    if len(heads) > MAX_HEADS:
        raise Invalid(f"{where}heads: {len(heads)} heads is over the limit of {MAX_HEADS}")
    for k, h in enumerate(heads):
        if "heads" in obj and (not isinstance(h, dict) or set(h) - {"V", "B"}):
            raise Invalid(f"{where}heads[{k}]: expected {{'V': ..., 'B': ...}}")
    b = vector(obj["b"], f"{where}b", d) if "b" in obj else flint.fmpq_mat(d, 1)
    return ExactParams(mat(obj, "A"), tuple((mat(h, "V"), mat(h, "B")) for h in heads), b)


def _params_text(p: ExactParams) -> dict:
    hs = [{"V": mat_text(V), "B": mat_text(B)} for V, B in p.heads]
    return {"A": mat_text(p.A), **(hs[0] if len(hs) == 1 else {"heads": hs}), "b": vec_text(p.b)}


def _covariance(S, where):
    if S.transpose() != S:
        raise Invalid(f"{where} is not symmetric")
    if positive_definite(S)[0]:   # the fast test first; the exact one for a singular S
        return S
    if exact_work(S) > EXACT_WORK_LIMIT:
        raise Invalid(f"over a limit: {where} is not positive definite and too large for the "
                      "exact semidefiniteness test")
    if not is_psd(S):
        raise Invalid(f"{where} is not a covariance (symmetric positive semidefinite)")
    return S


def read_problem(obj) -> ExactProblem:
    """Read the ``problem`` field of a certificate (same keys as problem files)."""
    if not isinstance(obj, dict):
        raise Invalid("problem: expected a JSON object")
    for k in set(obj) - _PROBLEM_KEYS:
        raise Invalid(f"problem: unknown key {k!r}")
    cov = obj.get("cov0")
    if not isinstance(cov, list) or not cov:
        raise Invalid("problem.cov0: expected a non-empty d×d matrix")
    d = len(cov)
    if d > MAX_D:
        raise Invalid(f"problem: d = {d} is over the checker's limit of d = {MAX_D}")
    cov0 = matrix(cov, "problem.cov0", d, d)
    _covariance(cov0, "problem.cov0")
    mean0 = vector(obj["mean0"], "problem.mean0", d) if "mean0" in obj else flint.fmpq_mat(d, 1)
    params, controls, canon = None, (), {}
    if "controls" in obj:
        cs = obj["controls"]
        if any(k in obj for k in ("A", "V", "B", "b", "heads")) or not isinstance(cs, list) \
                or not cs:
            raise Invalid("problem.controls: a non-empty list, without constant parameters")
        controls = read_pieces(cs, d, "problem.controls")
        canon["controls"] = [{"duration": text(t), **_params_text(p)} for t, p in controls]
    else:
        params = _params(obj, d, "problem.")
        canon.update(_params_text(params))
    canon["mean0"], canon["cov0"], target = vec_text(mean0), mat_text(cov0), None
    if "target" in obj:
        t = obj["target"]
        if not isinstance(t, dict) or set(t) - {"mean", "cov"} or "cov" not in t:
            raise Invalid("problem.target: expected {'mean': ..., 'cov': ...}")
        tm = vector(t["mean"], "problem.target.mean", d) if "mean" in t else flint.fmpq_mat(d, 1)
        target = (tm, _covariance(matrix(t["cov"], "problem.target.cov", d, d), "problem.target.cov"))
        canon["target"] = {"mean": vec_text(tm), "cov": mat_text(target[1])}
    digest = hashlib.sha256(json.dumps(canon, sort_keys=True, separators=(",", ":")).encode())
    return ExactProblem(d, cov0, mean0, params, controls, target, "sha256:" + digest.hexdigest())
