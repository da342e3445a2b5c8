"""Problem files and Python-built problems: exact reading, validation, immutability."""
import contextlib
import io
import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symgauss import Problem, loads_problem
from symgauss.cli.main import main
from symgauss.kernel.errors import (
    DimensionError,
    DurationError,
    InputFormatError,
    NotPSDError,
    NumberFormatError,
    ProblemError,
    SymmetryError,
    UnknownKeyError,
)
from symgauss.kernel.numbers import parse_rational


@pytest.mark.parametrize("text,value", [
    ("0.3", Fraction(3, 10)), ('"0.3"', Fraction(3, 10)), ('"3/10"', Fraction(3, 10)),
    ("1e-3", Fraction(1, 1000)), ('"-6/4"', Fraction(-3, 2)), ("2", Fraction(2)),
    ("0.1000000000000000055511151231257827", Fraction("0.1000000000000000055511151231257827")),
])
def test_numbers_are_read_exactly(text, value):
    p = loads_problem('{"cov0": [[1]], "A": [[%s]]}' % text)
    assert p.A[0, 0] == sp.Rational(value.numerator, value.denominator)


def test_json_float_is_not_rounded_through_binary():
    # 0.1 as a binary double is not 1/10; the file's text is.
    p = loads_problem('{"cov0": [[0.1]]}')
    assert p.cov0[0, 0] == sp.Rational(1, 10)
    assert sp.Rational(0.1) != sp.Rational(1, 10)


def test_defaults_and_dimension_from_cov0():
    p = loads_problem('{"cov0": [[2, 1], [1, 2]]}')
    assert p.d == 2
    assert p.A == sp.zeros(2, 2) and p.V == sp.zeros(2, 2) and p.B == sp.zeros(2, 2)
    assert p.b == sp.zeros(2, 1) and p.mean0 == sp.zeros(2, 1)


def test_heads_controls_target():
    p = loads_problem(json.dumps({
        "cov0": [[1, 0], [0, 1]],
        "heads": [{"V": [[1, 0], [0, 1]], "B": [[1, 0], [0, 1]]}, {"V": [["1/2", 0], [0, 0]]}],
        "target": {"mean": [1, 2], "cov": [[2, 0], [0, 2]]}}))
    assert len(p.heads) == 2 and p.heads[1].B == sp.zeros(2, 2)
    assert p.target.cov[0, 0] == 2
    with pytest.raises(ProblemError, match="heads"):
        p.V
    q = loads_problem(json.dumps({"cov0": [[1]], "controls": [
        {"duration": "1/2", "A": [[1]]}, {"duration": 0.25, "b": [3]}]}))
    assert not q.is_time_invariant and q.total_duration == sp.Rational(3, 4)
    assert q.controls[1].params.A == sp.zeros(1, 1)  # a missing key in a piece means zero
    starts = [s for s, _, _ in q.pieces(sp.Rational(3, 5))]
    assert starts == [0, sp.Rational(1, 2)]


@pytest.mark.parametrize("text,error,fragment", [
    ("", InputFormatError, "empty"),
    ("{", InputFormatError, "invalid JSON"),
    ("[1]", ProblemError, "JSON object"),
    ('{"A": [[1]]}', ProblemError, "cov0"),
    ('{"cov0": []}', DimensionError, "d = 0"),
    ('{"cov0": [[1, 0], [0]]}', DimensionError, "row 1"),
    ('{"cov0": [[1, 0], [0, 1]], "A": [[1, 0]]}', DimensionError, "A"),
    ('{"cov0": [[1, 0], [0, 1]], "b": [1, 2, 3]}', DimensionError, "b"),
    ('{"cov0": [[1, 2], [0, 1]]}', SymmetryError, "symmetric"),
    ('{"cov0": [[1, 2], [2, 1]]}', NotPSDError, "positive semidefinite"),
    ('{"cov0": [[NaN]]}', NumberFormatError, "NaN"),
    ('{"cov0": [[1]], "A": [["inf"]]}', NumberFormatError, "infinit"),
    ('{"cov0": [[1]], "A": [["1/0"]]}', NumberFormatError, "zero denominator"),
    ('{"cov0": [[1]], "A": [["1/2/3"]]}', NumberFormatError, "not a decimal"),
    ('{"cov0": [[1]], "A": [["__import__(\'os\')"]]}', NumberFormatError, "not a decimal"),
    ('{"cov0": [[1]], "A": [[true]]}', NumberFormatError, "boolean"),
    ('{"cov0": [[1]], "Vv": [[1]]}', UnknownKeyError, "Vv"),
    ('{"cov0": [[1]], "controls": [{"duration": 0}]}', DurationError, "not positive"),
    ('{"cov0": [[1]], "controls": [{"duration": "-1"}]}', DurationError, "not positive"),
    ('{"cov0": [[1]], "controls": [{"A": [[1]]}]}', DurationError, "missing"),
    ('{"cov0": [[1]], "A": [[1]], "controls": [{"duration": 1}]}', ProblemError, "not both"),
    ('{"cov0": [[1]], "V": [[1]], "heads": [{"V": [[1]]}]}', ProblemError, "not both"),
    ('{"cov0": [[1]], "A": [["1e999999"]]}', NumberFormatError, "exponent"),
])
def test_bad_input_raises_typed_error(text, error, fragment):
    with pytest.raises(error, match=fragment):
        loads_problem(text)


def test_exact_psd_decision_on_the_boundary():
    # singular PSD accepted (rank 1), a tiny negative eigenvalue rejected exactly
    loads_problem('{"cov0": [[1, 1], [1, 1]]}')
    with pytest.raises(NotPSDError):
        loads_problem('{"cov0": [[1, 1], [1, "0.9999999999999999999999"]]}')


def test_python_api_from_numbers_numpy_fractions_sympy():
    a = Problem(cov0=np.eye(2), A=np.array([[0.3, 0], [0, 1]]), V=[[Fraction(1, 3), 0], [0, 1]],
                B=sp.Matrix([[1, 0], [0, sp.Rational(1, 7)]]), b=np.array([1, 2]))
    assert a.A[0, 0] == sp.Rational(3, 10) and a.V[0, 0] == sp.Rational(1, 3)
    assert a.b[1, 0] == 2 and a.B[1, 1] == sp.Rational(1, 7)
    s = sp.Symbol("s")
    sym = Problem(cov0=[[1]], A=sp.Matrix([[s]]))
    assert not sym.is_numeric and sym.A[0, 0] == s
    with pytest.raises(AttributeError):
        a.cov0 = None
    assert a.replace(name="x") == a.replace(name="x") and a.replace(name="x").name == "x"
    assert a.replace(A=np.zeros((2, 2))).A == sp.zeros(2, 2)


def test_roundtrip_and_hash():
    p = loads_problem('{"cov0": [[1, "1/3"], ["1/3", 1]], "A": [[0.5, 0], [0, 1]]}')
    q = loads_problem(p.to_json())
    assert p == q and p.hash() == q.hash()
    assert p.hash() != p.replace(A=[[1, 0], [0, 1]]).hash()


# --- CLI: malformed files give exactly one line and exit 2 -------------------------------

def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "symgauss", *args], capture_output=True,
                          text=True, cwd=cwd)


number = st.one_of(st.integers(-5, 5), st.sampled_from(["1/2", "0.3", "-2"]))


def _matrix(n, m):
    return st.lists(st.lists(number, min_size=m, max_size=m), min_size=n, max_size=n)


corruptions = st.sampled_from([
    ("A", [[1, 2, 3]]), ("A", "abc"), ("b", [[1]]), ("cov0", [[1, 2], [3, 4]]),
    ("cov0", [[-1, 0], [0, 1]]), ("V", [["nan", 0], [0, 0]]), ("B", [["1/0", 0], [0, 0]]),
    ("mean0", [1]), ("bogus", 1), ("controls", []), ("controls", [{"duration": -1}]),
    ("heads", [{"W": [[0, 0], [0, 0]]}]), ("target", {"cov": [[1]]}), ("name", 3),
    ("A", [[1, "2.5.1"], [0, 0]]), ("b", [None, 1]), ("cov0", [[1, 0], [0]]),
])


def _cli_in_process(*args):
    """The CLI's main() in this process (same code path as the console script, faster)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(A=_matrix(2, 2), corruption=corruptions)
def test_cli_malformed_problem_one_line_exit_2(tmp_path, A, corruption):
    key, value = corruption
    data = {"cov0": [[1, 0], [0, 1]], "A": A}
    data[key] = value
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(data))
    code, out, err = _cli_in_process("solve", str(f), "--t", "1/10", "--digits", "5")
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0] and "Traceback" not in err
    assert key in lines[0] or (key == "controls" and "duration" in lines[0])
    assert out == ""


def test_console_script_error_is_one_line(tmp_path):
    f = tmp_path / "bad.json"
    f.write_text('{"cov0": [[1, 2], [2, 1]]}')
    r = _cli("solve", str(f), "--t", "1")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "positive semidefinite" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("content", ["", "{not json", "\x00\x01", '{"cov0": [[1]]} trailing'])
def test_cli_unreadable_files(tmp_path, content):
    f = tmp_path / "p.json"
    f.write_text(content)
    code, out, err = _cli_in_process("solve", str(f), "--t", "1")
    assert code == 2 and len(err.strip().splitlines()) == 1
    code, out, err = _cli_in_process("solve", str(tmp_path / "missing.json"), "--t", "1")
    assert code == 2 and "cannot read" in err


def test_parse_rational_rejects_non_numbers():
    for bad in [None, [], {}, "1.2.3", "0x10", "1_000", " ", "3/-0"]:
        with pytest.raises(NumberFormatError):
            parse_rational(bad, "x")
