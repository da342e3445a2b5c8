"""Problem files: JSON read exactly (see :mod:`symgauss.kernel.numbers`).

>>> p = loads_problem('{"cov0": [[1]], "A": [[0.3]], "V": [["3/10"]]}')
>>> p.A[0, 0] == p.V[0, 0]
True
"""
from __future__ import annotations

from pathlib import Path

from symgauss.kernel.errors import InputFormatError, ProblemError
from symgauss.kernel.numbers import loads_exact
from symgauss.model.problem import PROBLEM_KEYS, Problem, check_keys

#: the built-in example problems (``symgauss/examples/*.json``)
EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"


def load_example(name: str) -> Problem:
    """A built-in example problem by its file stem.

    >>> import symgauss as sg
    >>> sg.example("stable_diag").d
    2
    """
    path = EXAMPLES_DIR / f"{name}.json"
    if not path.is_file():
        known = ", ".join(sorted(q.stem for q in EXAMPLES_DIR.glob("*.json")
                                 if not q.stem.startswith("atlas_")))
        raise ProblemError(f"no built-in example {name!r}; the examples are: {known}")
    return load_problem(path)


def problem_from_dict(obj, where: str = "problem") -> Problem:
    """Build a :class:`Problem` from a parsed JSON object (unknown keys are errors)."""
    check_keys(obj, PROBLEM_KEYS, where)
    if "cov0" not in obj:
        raise ProblemError(f"{where}: 'cov0' is missing; d is read from the initial covariance, "
                           'e.g. "cov0": [[1, 0], [0, 1]]')
    return Problem(**{k: v for k, v in obj.items()})


def loads_problem(text: str, where: str = "problem") -> Problem:
    return problem_from_dict(loads_exact(text, where), where)


def load_problem(path) -> Problem:
    """Read a problem file; every failure is a :class:`ProblemError` naming the file.

    >>> import symgauss as sg
    >>> sg.load_problem("symgauss/examples/scalar_blowup.json").name
    'scalar same-sign blow-up (T* = 1/2)'
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputFormatError(f"{path}: cannot read the file ({exc.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputFormatError(f"{path}: not UTF-8 text; a problem file is JSON") from None
    try:
        return loads_problem(text, str(path))
    except ProblemError as exc:
        msg = str(exc)
        if not msg.startswith(str(path)):
            msg = f"{path}: {msg}"
        raise _with_message(exc, msg) from None


def _with_message(exc: ProblemError, msg: str) -> ProblemError:
    new = ProblemError.__new__(type(exc))
    Exception.__init__(new, msg)
    new.__dict__.update(exc.__dict__)
    return new
