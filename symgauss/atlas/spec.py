"""Atlas specs: a base problem and one or two axes, read exactly.

A *spec* (JSON, read exactly) names a base problem and one or two axes::

    {"name": "scalar phase diagram",
     "problem": {"A": [[0]], "V": [[1]], "B": [[1]], "cov0": [[1]]},
     "axes": [{"vary": ["A", 0, 0], "grid": {"from": -2, "to": 2, "steps": 41}, "label": "a"},
              {"vary": {"scale": "V"}, "grid": {"from": -2, "to": 2, "steps": 41}}],
     "digits": 30, "certify": true, "certificates": false}

* ``vary`` is one entry — ``["A", i, j]``, ``["V", i, j]``, ``["B", i, j]``,
  ``["cov0", i, j]`` (set symmetrically), ``["b", i]``, ``["mean0", i]``, or
  ``["heads", k, "V" | "B", i, j]`` — set to the grid value, or a whole matrix
  multiplied by it: ``{"scale": "V"}`` (``"head": k`` for one head of several).
* ``grid``: ``steps`` equally spaced exact rationals from ``from`` to ``to``
  inclusive (``steps`` = number of points; 1 only when from = to).
* ``problem`` is an inline problem object or a path (relative to the spec file).
* ``digits``: significant digits of T*; ``certify`` (default true): certified T*
  enclosures for problems that are neither scalar nor diagonal (see
  :func:`symgauss.questions.regime.classify.classify`; false is much faster); ``certificates`` (default
  false): write a certificate file per blow-up / stable cell to ``OUT/certificates``.

>>> spec = parse_spec({"problem": {"cov0": [[1]], "V": [[1]], "B": [[1]]},
...                    "axes": [{"vary": ["A", 0, 0], "grid": {"from": -1, "to": 1, "steps": 5}}]})
>>> [str(x) for x in spec.axes[0].values], spec.axes[0].label
(['-1', '-1/2', '0', '1/2', '1'], 'A[0][0]')
>>> spec.cell_problem(spec.points()[1]).A[0, 0]
-1/2
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from symgauss.kernel.errors import InputFormatError, ProblemError
from symgauss.kernel.numbers import JSONNumber, loads_exact, parse_rational, rational_text
from symgauss.model.problem import check_keys as _keys

SPEC_KEYS = frozenset({"name", "problem", "axes", "digits", "certify", "certificates"})


AXIS_KEYS = frozenset({"vary", "grid", "label"})


GRID_KEYS = frozenset({"from", "to", "steps"})


SCALE_KEYS = frozenset({"scale", "head"})


MATRICES = ("A", "V", "B", "cov0")


VECTORS = ("b", "mean0")


MAX_CELLS = 1_000_000


CACHE_VERSION = 1


@dataclass(frozen=True)
class Axis:
    """One swept parameter: ``target`` is ("entry", name, index...) or ("scale", name, head)."""
    target: tuple
    values: tuple
    label: str

    def to_dict(self) -> dict:
        kind, name, *rest = self.target
        if kind == "scale":
            vary = {"scale": name} if rest[0] is None else {"scale": name, "head": rest[0]}
        else:
            vary = [name, *rest]
        return {"vary": vary, "grid": {"from": rational_text(self.values[0]),
                                       "to": rational_text(self.values[-1]),
                                       "steps": len(self.values)},
                "label": self.label}


@dataclass(frozen=True)
class AtlasSpec:
    """A parsed, validated spec: base problem (exact dict), axes, digits, certificates."""
    base: dict
    axes: tuple
    digits: int = 30
    certificates: bool = False
    name: str | None = None
    certify: bool = True

    @property
    def shape(self) -> tuple:
        return tuple(len(a.values) for a in self.axes)

    def points(self) -> list:
        """All grid points (tuples of Fraction), the first axis varying slowest."""
        out = [()]
        for ax in self.axes:
            out = [p + (v,) for p in out for v in ax.values]
        return out

    def to_dict(self) -> dict:
        out = {"problem": self.base, "axes": [a.to_dict() for a in self.axes],
               "digits": self.digits, "certify": self.certify,
               "certificates": self.certificates}
        if self.name is not None:
            out = {"name": self.name, **out}
        return out

    def payload(self) -> dict:
        """What a worker needs (JSON-able, small)."""
        return {"base": self.base, "targets": [list(a.target) for a in self.axes],
                "digits": self.digits, "certify": self.certify,
                "certificates": self.certificates}

    def cell_key(self, point) -> str:
        data = {"v": CACHE_VERSION, "base": self.base,
                "axes": [list(a.target) for a in self.axes],
                "point": [rational_text(x) for x in point], "digits": self.digits,
                "certify": self.certify, "certificates": self.certificates}
        return hashlib.sha256(json.dumps(data, sort_keys=True,
                                         separators=(",", ":")).encode()).hexdigest()[:32]

    def cell_problem(self, point):
        return cell_problem(self.base, [list(a.target) for a in self.axes],
                             [rational_text(x) for x in point])


# --- spec parsing ------------------------------------------------------------------------
def load_spec(path) -> AtlasSpec:
    """Read a spec file; every failure is a :class:`ProblemError` naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFormatError(f"{path}: cannot read the spec "
                               f"({getattr(exc, 'strerror', None) or exc})") from None
    return parse_spec(loads_exact(text, str(path)), where=str(path), base_dir=path.parent)


def parse_spec(obj, where: str = "spec", base_dir=None) -> AtlasSpec:
    """Validate a parsed spec object (numbers as JSONNumber text, ints or strings)."""
    from symgauss.model.problem_file import load_problem, problem_from_dict
    _keys(obj, SPEC_KEYS, where)
    for key in ("problem", "axes"):
        if key not in obj:
            raise ProblemError(f"{where}: '{key}' is missing; a spec needs a base 'problem' "
                               "and a list of one or two 'axes'")
    name = obj.get("name")
    if name is not None and (not isinstance(name, str) or isinstance(name, JSONNumber)):
        raise ProblemError(f"{where}.name: expected a string")
    prob = obj["problem"]
    if isinstance(prob, str) and not isinstance(prob, JSONNumber):
        ppath = Path(prob) if base_dir is None else Path(base_dir) / prob
        problem = load_problem(ppath)
    elif isinstance(prob, dict):
        problem = problem_from_dict(prob, f"{where}.problem")
    else:
        raise ProblemError(f"{where}.problem: expected a problem object {{\"cov0\": ...}} or "
                           "the path of a problem file")
    if not problem.is_time_invariant:
        raise ProblemError(f"{where}.problem: has time-varying 'controls'; an atlas sweeps "
                           "constant parameters A, V, B, b")
    if not problem.is_numeric:
        raise ProblemError(f"{where}.problem: has symbols; give rational entries")
    base = problem.to_dict()
    base.pop("name", None)
    axes = obj["axes"]
    if not isinstance(axes, list) or not 1 <= len(axes) <= 2:
        raise ProblemError(f"{where}.axes: expected a list of one or two axes, e.g. "
                           '[{"vary": ["A", 0, 0], "grid": {"from": -1, "to": 1, "steps": 21}}]')
    parsed = tuple(_axis(ax, f"{where}.axes[{k}]", problem) for k, ax in enumerate(axes))
    _check_overlap(parsed, where)
    digits = _integer(obj.get("digits", 30), f"{where}.digits", 1, 2000)
    flags = {}
    for key, default in (("certify", True), ("certificates", False)):
        flags[key] = obj.get(key, default)
        if not isinstance(flags[key], bool):
            raise ProblemError(f"{where}.{key}: expected true or false")
    n = math.prod(len(a.values) for a in parsed)
    if n > MAX_CELLS:
        raise ProblemError(f"{where}: {n} cells is more than {MAX_CELLS}; use fewer steps")
    return AtlasSpec(base, parsed, digits, flags["certificates"], name, flags["certify"])


def _integer(value, where, lo, hi) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, JSONNumber)):
        raise ProblemError(f"{where}: expected an integer in {lo}..{hi}, found {value!r}")
    f = parse_rational(value, where)
    if f.denominator != 1 or not lo <= f <= hi:
        raise ProblemError(f"{where}: expected an integer in {lo}..{hi}, found {value}")
    return int(f)


def _axis(obj, where, problem) -> Axis:
    _keys(obj, AXIS_KEYS, where)
    if "vary" not in obj or "grid" not in obj:
        raise ProblemError(f"{where}: an axis needs 'vary' (e.g. [\"A\", 0, 1] or "
                           "{\"scale\": \"V\"}) and 'grid' ({\"from\", \"to\", \"steps\"})")
    target = _target(obj["vary"], f"{where}.vary", problem)
    grid = obj["grid"]
    _keys(grid, GRID_KEYS, f"{where}.grid")
    for k in GRID_KEYS:
        if k not in grid:
            raise ProblemError(f"{where}.grid: '{k}' is missing; give from, to and steps")
    lo = parse_rational(grid["from"], f"{where}.grid.from")
    hi = parse_rational(grid["to"], f"{where}.grid.to")
    steps = _integer(grid["steps"], f"{where}.grid.steps", 1, MAX_CELLS)
    if steps == 1 and lo != hi:
        raise ProblemError(f"{where}.grid.steps = 1 but from != to; steps is the number of "
                           "points, at least 2 for a range")
    if steps > 1 and lo == hi:
        raise ProblemError(f"{where}.grid: from = to = {rational_text(lo)} with {steps} steps; "
                           "give a range or steps = 1")
    values = tuple(lo + (hi - lo) * k / (steps - 1) for k in range(steps)) if steps > 1 else (lo,)
    label = obj.get("label")
    if label is None:
        label = _default_label(target)
    elif not isinstance(label, str) or isinstance(label, JSONNumber):
        raise ProblemError(f"{where}.label: expected a string")
    return Axis(target, values, label)


def _target(vary, where, problem) -> tuple:
    d = problem.d
    nheads = len(problem.heads)
    if isinstance(vary, dict):
        _keys(vary, SCALE_KEYS, where)
        name = vary.get("scale")
        if name not in MATRICES + VECTORS:
            raise ProblemError(f"{where}.scale: {name!r} is not a parameter; use one of "
                               + ", ".join(MATRICES + VECTORS))
        head = vary.get("head")
        if head is not None:
            if name not in ("V", "B"):
                raise ProblemError(f"{where}.head: only V and B belong to a head")
            head = _integer(head, f"{where}.head", 0, nheads - 1)
        elif name in ("V", "B") and nheads > 1:
            raise ProblemError(f"{where}: the problem has {nheads} heads; say which one with "
                               f'"head": k (0..{nheads - 1})')
        return ("scale", name, head)
    if not isinstance(vary, list) or not vary or not isinstance(vary[0], str) \
            or isinstance(vary[0], JSONNumber):
        raise ProblemError(f"{where}: expected an entry like [\"A\", 0, 1] or a scale like "
                           "{\"scale\": \"V\"}")
    name = vary[0]
    if name == "heads":
        if len(vary) != 5 or vary[2] not in ("V", "B"):
            raise ProblemError(f"{where}: a head entry is [\"heads\", k, \"V\" or \"B\", i, j]")
        k = _integer(vary[1], f"{where}[1]", 0, nheads - 1)
        i, j = (_integer(vary[n], f"{where}[{n}]", 0, d - 1) for n in (3, 4))
        return ("entry", "heads", k, vary[2], i, j)
    if name in MATRICES:
        if name in ("V", "B") and nheads > 1:
            raise ProblemError(f"{where}: the problem has {nheads} heads; use "
                               f"[\"heads\", k, \"{name}\", i, j]")
        if len(vary) != 3:
            raise ProblemError(f"{where}: a matrix entry is [\"{name}\", i, j] (0-based)")
        i, j = (_integer(vary[n], f"{where}[{n}]", 0, d - 1) for n in (1, 2))
        if name == "cov0" and i > j:
            i, j = j, i
        return ("entry", name, i, j)
    if name in VECTORS:
        if len(vary) != 2:
            raise ProblemError(f"{where}: a vector entry is [\"{name}\", i] (0-based)")
        return ("entry", name, _integer(vary[1], f"{where}[1]", 0, d - 1))
    raise ProblemError(f"{where}: {name!r} is not a parameter; use one of "
                       + ", ".join(MATRICES + VECTORS + ("heads",)))


def _touches(target) -> tuple:
    """(parameter, head) that a target changes, for the overlap check."""
    if target[1] == "heads":
        return (target[3], target[2])
    head = target[2] if target[0] == "scale" else None
    return (target[1], head)


def _check_overlap(axes, where):
    if len(axes) == 2:
        t0, t1 = (a.target for a in axes)
        if t0 == t1:
            raise ProblemError(f"{where}.axes: both axes vary the same thing ({axes[0].label}); "
                               "vary two different parameters")
        if "scale" in (t0[0], t1[0]) and _touches(t0)[0] == _touches(t1)[0]:
            raise ProblemError(f"{where}.axes: one axis scales {_touches(t0)[0]} and the other "
                               "changes it too; the result would depend on their order — vary "
                               "different parameters")


def _default_label(target) -> str:
    kind, name, *rest = target
    if kind == "scale":
        return f"scale of {name}" + ("" if rest[0] is None else f" (head {rest[0]})")
    if name == "heads":
        k, m, i, j = rest
        return f"heads[{k}].{m}[{i}][{j}]"
    return name + "".join(f"[{i}]" for i in rest)


# --- one cell ----------------------------------------------------------------------------
def cell_problem(base: dict, targets: list, point: list):
    """The problem at one grid point (pure: a new problem from exact strings)."""
    from symgauss.model.problem_file import problem_from_dict
    data = json.loads(json.dumps(base))  # a deep copy of nested lists of strings
    for target, text in zip(targets, point):
        x = Fraction(text)
        kind, name, *rest = target
        if kind == "scale":
            head = rest[0]
            if head is not None:
                mats = [data["heads"][head]]
            elif "heads" in data and name in ("V", "B"):
                mats = data["heads"]
            else:
                mats = [data]
            for holder in mats:
                holder[name] = _scaled(holder[name], x)
        elif name == "heads":
            k, m, i, j = rest
            data["heads"][k][m][i][j] = text
        elif name in VECTORS:
            data[name][rest[0]] = text
        else:
            i, j = rest
            data[name][i][j] = text
            if name == "cov0":
                data[name][j][i] = text
    return problem_from_dict(data, "cell")


def _scaled(value, x: Fraction):
    if isinstance(value, list):
        return [_scaled(v, x) for v in value]
    return rational_text(Fraction(value) * x)
