"""Immutable, validated problem objects.

A :class:`Problem` holds the initial Gaussian N(mean0, cov0), the parameters
(A, heads = ((V, B), ...), b) or a list of piecewise-constant control pieces,
and an optional target. Entries are exact SymPy numbers (rationals) or, in the
Python API, SymPy expressions with symbols. Everything is validated once, when
the object is built; nothing is repaired silently.

>>> p = Problem(cov0=[[1, 0], [0, "1/2"]], A=[[1, 0], [0, 3]], V=[[-1, 0], [0, -1]],
...             B=[[1, 0], [0, 1]])
>>> p.d, p.cov0[1, 1], p.V[0, 0]
(2, 1/2, -1)
>>> p.replace(name="ex").name
'ex'
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from symgauss.kernel.errors import (
    DimensionError,
    DurationError,
    NotPSDError,
    ProblemError,
    SymmetryError,
    UnknownKeyError,
)
from symgauss.kernel.exact import psd_witness
from symgauss.kernel.numbers import JSONNumber, parse_rational, rational_text

Mat = sp.ImmutableMatrix


def _entry(value, where: str):
    """One entry: exact rational from numbers/text, SymPy expressions kept as given."""
    if isinstance(value, sp.Basic):
        if isinstance(value, sp.Float):
            return _entry(str(value), where)
        if value.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            raise ProblemError(f"{where}: {value} is not a finite number")
        if value.free_symbols:
            return value
        if value.is_Rational:
            return value
        if value.is_number and value.is_real is False:
            raise ProblemError(f"{where}: {value} is not real")
        return value
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalar
        value = value.item()
    f = parse_rational(value, where)
    return sp.Rational(f.numerator, f.denominator)


def _shape_of(value):
    if isinstance(value, sp.MatrixBase):
        return value.shape
    if hasattr(value, "shape") and hasattr(value, "tolist"):
        return tuple(value.shape)
    return None


def as_matrix(value, where: str, rows: int | None, cols: int | None) -> Mat:
    """A d×d (or d×1) exact matrix from nested lists, numpy or SymPy input."""
    if isinstance(value, sp.MatrixBase):
        data = value.tolist()
    elif hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        data = value.tolist()
    else:
        data = value
    if cols == 1:  # a vector: accept a flat list, or a column
        if isinstance(data, (list, tuple)) and all(isinstance(r, (list, tuple)) and len(r) == 1
                                                   for r in data) and data:
            data = [r[0] for r in data]
        if not isinstance(data, (list, tuple)) or isinstance(data, JSONNumber):
            raise DimensionError(where, f"a list of {rows} numbers", type(data).__name__)
        if rows is not None and len(data) != rows:
            raise DimensionError(where, f"({rows},)", f"({len(data)},)")
        for i, x in enumerate(data):
            if isinstance(x, (list, tuple, dict)):
                raise DimensionError(where, f"({rows},) flat list", f"a nested entry at [{i}]")
        return Mat([[_entry(x, f"{where}[{i}]")] for i, x in enumerate(data)])
    if not isinstance(data, (list, tuple)) or isinstance(data, JSONNumber):
        raise DimensionError(where, f"({rows}, {cols}) list of rows", type(data).__name__)
    if rows is not None and len(data) != rows:
        raise DimensionError(where, f"({rows}, {cols})", f"{len(data)} rows")
    out = []
    for i, row in enumerate(data):
        if not isinstance(row, (list, tuple)) or isinstance(row, JSONNumber):
            raise DimensionError(where, f"({rows}, {cols})", f"row {i} is not a list")
        if cols is not None and len(row) != cols:
            raise DimensionError(where, f"({rows}, {cols})", f"row {i} has {len(row)} entries")
        for j, x in enumerate(row):
            if isinstance(x, (list, tuple, dict)):
                raise DimensionError(where, f"({rows}, {cols})", f"a nested entry at [{i}][{j}]")
        out.append([_entry(x, f"{where}[{i}][{j}]") for j, x in enumerate(row)])
    return Mat(out)


def _zero(d, cols=None) -> Mat:
    return sp.zeros(d, cols or d).as_immutable()


def _is_numeric(M: Mat) -> bool:
    return all(x.is_Rational for x in M)


@dataclass(frozen=True)
class Head:
    """One attention head: value matrix V and query-key interaction B."""
    V: Mat
    B: Mat


@dataclass(frozen=True)
class Params:
    """Time-invariant parameters: feed-forward A, bias b, attention heads."""
    A: Mat
    heads: tuple
    b: Mat

    @property
    def d(self) -> int:
        return self.A.shape[0]

    @property
    def V(self) -> Mat:
        return self._single().V

    @property
    def B(self) -> Mat:
        return self._single().B

    def _single(self) -> Head:
        if len(self.heads) != 1:
            raise ProblemError(f"this problem has {len(self.heads)} heads; use .heads, "
                               "or a method that supports multi-head attention")
        return self.heads[0]

    @property
    def is_numeric(self) -> bool:
        return all(_is_numeric(M) for M in self.matrices())

    def matrices(self):
        yield self.A
        for h in self.heads:
            yield h.V
            yield h.B
        yield self.b

    def quadratic_R(self):
        """R with Σ_h (V_hΣB_hΣ + ΣB_hᵀΣV_hᵀ) = ΣRΣ for all Σ, or None.

        This holds exactly when every V_h = v_h I; then R = Σ_h v_h (B_h + B_hᵀ).
        """
        d = self.d
        R = sp.zeros(d, d)
        for h in self.heads:
            v = h.V[0, 0]
            if h.V != v * sp.eye(d):
                return None
            R += v * (h.B + h.B.T)
        return R.as_immutable()


@dataclass(frozen=True)
class Piece:
    """A constant piece of a piecewise-constant control: parameters held for ``duration``."""
    duration: sp.Expr
    params: Params


@dataclass(frozen=True)
class Target:
    mean: Mat
    cov: Mat


PROBLEM_KEYS = frozenset({"name", "A", "V", "B", "b", "mean0", "cov0", "heads", "target",
                          "controls"})
HEAD_KEYS = frozenset({"V", "B"})
PIECE_KEYS = frozenset({"duration", "A", "V", "B", "b", "heads"})
TARGET_KEYS = frozenset({"mean", "cov"})


def check_keys(obj, allowed, where):
    if not isinstance(obj, dict):
        raise ProblemError(f"{where}: expected a JSON object {{...}}, found {type(obj).__name__}")
    for k in obj:
        if k not in allowed:
            raise UnknownKeyError(where, k, allowed)


def _check_cov(S: Mat, where: str) -> None:
    d = S.shape[0]
    for i in range(d):
        for j in range(i + 1, d):
            if sp.simplify(S[i, j] - S[j, i]) != 0:
                raise SymmetryError(f"{where} is not symmetric: entry [{i}][{j}] = {S[i, j]} but "
                                    f"[{j}][{i}] = {S[j, i]}; a covariance must equal its transpose")
    if _is_numeric(S):
        x = psd_witness([[Fraction(int(v.p), int(v.q)) for v in S.row(i)] for i in range(d)])
        if x is not None:
            xs = "(" + ", ".join(rational_text(v) for v in x) + ")"
            raise NotPSDError(f"{where} is not positive semidefinite: x = {xs} gives xᵀ{where}x < 0 "
                              "(decided exactly); a covariance must be PSD")


def _params(d, A, V, B, b, heads, where) -> Params:
    A = _zero(d) if A is None else as_matrix(A, f"{where}A", d, d)
    b = _zero(d, 1) if b is None else as_matrix(b, f"{where}b", d, 1)
    if heads is not None:
        if V is not None or B is not None:
            raise ProblemError(f"{where}: give either 'heads' or 'V'/'B', not both")
        if isinstance(heads, (str, bytes)) or not isinstance(heads, (list, tuple)) or not heads:
            raise ProblemError(f"{where}heads: expected a non-empty list of {{\"V\": ..., \"B\": ...}}")
        hs = []
        for k, h in enumerate(heads):
            if isinstance(h, Head):
                h = {"V": h.V, "B": h.B}
            check_keys(h, HEAD_KEYS, f"{where}heads[{k}]")
            hV, hB = h.get("V"), h.get("B")
            hs.append(Head(_zero(d) if hV is None else as_matrix(hV, f"{where}heads[{k}].V", d, d),
                           _zero(d) if hB is None else as_matrix(hB, f"{where}heads[{k}].B", d, d)))
        return Params(A, tuple(hs), b)
    V = _zero(d) if V is None else as_matrix(V, f"{where}V", d, d)
    B = _zero(d) if B is None else as_matrix(B, f"{where}B", d, d)
    return Params(A, (Head(V, B),), b)


class Problem:
    """A Gaussian-Transformer moment problem (immutable, validated on construction).

    Parameters
    ----------
    cov0 : d×d symmetric PSD matrix (d is read from it).
    A, V, B : d×d matrices (missing = zero); ``heads`` = list of (V, B) pairs replaces V, B.
    b, mean0 : d-vectors (missing = zero).
    controls : list of pieces ``{"duration", "A", "V", "B", "b"}`` (or :class:`Piece`);
        replaces the constant parameters.
    target : ``{"mean": ..., "cov": ...}``.
    name : optional label.

    Examples
    --------
    >>> import symgauss as sg
    >>> p = sg.Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 3]], V=[["-1", 0], [0, -1]],
    ...                B=[[1, 0], [0, 1]], b=["0.5", 0])
    >>> p.d, p.b[0], p.is_time_invariant
    (2, 1/2, True)
    """

    __slots__ = ("cov0", "mean0", "_params", "controls", "target", "name")

    def __init__(self, cov0, A=None, V=None, B=None, b=None, mean0=None, heads=None,
                 target=None, controls=None, name=None):
        set_ = object.__setattr__
        if cov0 is None:
            raise ProblemError("cov0 is missing; give the initial covariance as a d×d matrix, "
                               "e.g. [[1, 0], [0, 1]]")
        shape = _shape_of(cov0)
        if shape is not None:
            d = shape[0]
        elif isinstance(cov0, (list, tuple)):
            d = len(cov0)
        else:
            raise DimensionError("cov0", "(d, d) list of rows", type(cov0).__name__)
        if d == 0:
            raise DimensionError("cov0", "(d, d) with d >= 1", "an empty matrix (d = 0)")
        S0 = as_matrix(cov0, "cov0", d, d)
        _check_cov(S0, "cov0")
        set_(self, "cov0", S0)
        set_(self, "mean0", _zero(d, 1) if mean0 is None else as_matrix(mean0, "mean0", d, 1))
        if name is not None and (not isinstance(name, str) or isinstance(name, JSONNumber)):
            raise ProblemError(f"name: expected a string, found {type(name).__name__}")
        set_(self, "name", name)
        if controls is not None:
            if any(x is not None for x in (A, V, B, b, heads)):
                raise ProblemError("give either 'controls' or the constant parameters "
                                   "A, V, B, b, heads — not both ('controls' replaces them)")
            if isinstance(controls, (str, bytes)) or not isinstance(controls, (list, tuple)) \
                    or not controls:
                raise ProblemError("controls: expected a non-empty list of pieces "
                                   '{"duration": ..., "A": ..., "V": ..., "B": ..., "b": ...}')
            pieces = []
            for k, pc in enumerate(controls):
                w = f"controls[{k}]."
                if isinstance(pc, Piece):
                    pieces.append(Piece(self._duration(pc.duration, w), self._reparams(pc.params, d, w)))
                    continue
                check_keys(pc, PIECE_KEYS, f"controls[{k}]")
                if "duration" not in pc:
                    raise DurationError(f"{w}duration is missing; every piece needs a positive "
                                        "duration")
                pieces.append(Piece(self._duration(pc["duration"], w),
                                    _params(d, pc.get("A"), pc.get("V"), pc.get("B"), pc.get("b"),
                                            pc.get("heads"), w)))
            set_(self, "controls", tuple(pieces))
            set_(self, "_params", None)
        else:
            set_(self, "controls", None)
            set_(self, "_params", _params(d, A, V, B, b, heads, ""))
        if target is not None:
            if isinstance(target, Target):
                target = {"mean": target.mean, "cov": target.cov}
            check_keys(target, TARGET_KEYS, "target")
            if "cov" not in target:
                raise ProblemError("target.cov is missing; a target needs a covariance")
            T = as_matrix(target["cov"], "target.cov", d, d)
            _check_cov(T, "target.cov")
            m = target.get("mean")
            set_(self, "target", Target(_zero(d, 1) if m is None else
                                        as_matrix(m, "target.mean", d, 1), T))
        else:
            set_(self, "target", None)

    @staticmethod
    def _duration(value, where):
        t = _entry(value, f"{where}duration")
        if t.is_Rational and t <= 0:
            raise DurationError(f"{where}duration = {t} is not positive; every piece needs a "
                                "duration > 0")
        return t

    @staticmethod
    def _reparams(p: Params, d, w) -> Params:
        return _params(d, p.A, None, None, p.b, [{"V": h.V, "B": h.B} for h in p.heads], w)

    def __setattr__(self, key, value):
        raise AttributeError("Problem is immutable; use .replace(...) for a modified copy")

    # --- views -----------------------------------------------------------------
    @property
    def d(self) -> int:
        return self.cov0.shape[0]

    @property
    def is_time_invariant(self) -> bool:
        return self.controls is None

    @property
    def params(self) -> Params:
        if self._params is None:
            raise ProblemError("this problem has time-varying 'controls'; use .pieces(t_end) "
                               "or a problem with constant A, V, B, b")
        return self._params

    A = property(lambda self: self.params.A)
    b = property(lambda self: self.params.b)
    V = property(lambda self: self.params.V)
    B = property(lambda self: self.params.B)
    heads = property(lambda self: self.params.heads)

    @property
    def is_numeric(self) -> bool:
        mats = [self.cov0, self.mean0]
        if self.target is not None:
            mats += [self.target.mean, self.target.cov]
        ps = [self._params] if self.controls is None else [p.params for p in self.controls]
        return all(_is_numeric(M) for M in mats) and all(p.is_numeric for p in ps) and (
            self.controls is None or all(p.duration.is_Rational for p in self.controls))

    @property
    def total_duration(self):
        return None if self.controls is None else sum(p.duration for p in self.controls)

    def pieces(self, t_end=None):
        """(start, end, Params) triples covering [0, t_end] (or all controls)."""
        if self.controls is None:
            return ((sp.Integer(0), t_end, self._params),)
        out, t = [], sp.Integer(0)
        for p in self.controls:
            end = t + p.duration
            if t_end is not None and end >= t_end:
                out.append((t, t_end, p.params))
                return tuple(out)
            out.append((t, end, p.params))
            t = end
        if t_end is not None and t_end > t:
            raise ProblemError(f"the controls last {t} in total but time {t_end} was asked for; "
                               "ask for t <= the sum of the durations or add a piece")
        return tuple(out)

    # --- identity ----------------------------------------------------------------
    def to_dict(self) -> dict:
        """JSON-ready dict under the problem-file keys, entries as exact strings."""
        out = {}
        if self.name is not None:
            out["name"] = self.name
        if self.controls is None:
            out.update(_params_dict(self._params))
        else:
            out["controls"] = [{"duration": _text(p.duration), **_params_dict(p.params)}
                               for p in self.controls]
        out["mean0"] = _vec(self.mean0)
        out["cov0"] = _mat(self.cov0)
        if self.target is not None:
            out["target"] = {"mean": _vec(self.target.mean), "cov": _mat(self.target.cov)}
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def hash(self) -> str:
        """sha256 of the canonical JSON of the problem (name excluded)."""
        data = self.to_dict()
        data.pop("name", None)
        return "sha256:" + hashlib.sha256(
            json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()

    def _key(self):
        return json.dumps(self.to_dict(), sort_keys=True)

    def __eq__(self, other):
        return isinstance(other, Problem) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def _repr_latex_(self) -> str:
        """Jupyter display, through the symgauss LaTeX printer."""
        from symgauss.reporting.printer import problem_block
        return problem_block(self)

    def __repr__(self):
        return f"Problem({self._key()})"

    def replace(self, **changes) -> "Problem":
        """A new problem with some fields changed (validated again)."""
        kw = {"cov0": self.cov0, "mean0": self.mean0, "name": self.name,
              "target": self.target}
        if self.controls is None:
            p = self._params
            kw.update(A=p.A, b=p.b, heads=list(p.heads))
        else:
            kw["controls"] = list(self.controls)
        if ("V" in changes or "B" in changes) and "heads" not in changes:
            kw.pop("heads", None)
            h = self._params.heads[0] if self._params is not None else None
            kw["V"] = changes.pop("V", h.V if h else None)
            kw["B"] = changes.pop("B", h.B if h else None)
        if "controls" in changes:
            for k in ("A", "b", "heads", "V", "B"):
                kw.pop(k, None)
        kw.update(changes)
        if kw.get("heads") is not None:
            kw["heads"] = [{"V": h.V, "B": h.B} if isinstance(h, Head) else h
                           for h in kw["heads"]]
        return Problem(**kw)


def _text(x) -> str:
    return rational_text(x) if x.is_Rational else sp.sstr(x)


def _vec(v: Mat) -> list:
    return [_text(v[i, 0]) for i in range(v.shape[0])]


def _mat(M: Mat) -> list:
    return [[_text(M[i, j]) for j in range(M.shape[1])] for i in range(M.shape[0])]


def _params_dict(p: Params) -> dict:
    out = {"A": _mat(p.A)}
    if len(p.heads) == 1:
        out["V"], out["B"] = _mat(p.heads[0].V), _mat(p.heads[0].B)
    else:
        out["heads"] = [{"V": _mat(h.V), "B": _mat(h.B)} for h in p.heads]
    out["b"] = _vec(p.b)
    return out
