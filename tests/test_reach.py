"""Reachability: closed forms, independent re-integration, the CLI round trip, random targets."""
from __future__ import annotations

import json
from fractions import Fraction
from importlib import resources

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symgauss import Problem
from symgauss.cli.main import main
from symgauss.integrate.high_precision import solve_moments
from symgauss.kernel.errors import ProblemError, UnsupportedError
from symgauss.kernel.exact import rank
from symgauss.kernel.numbers import parse_rational
from symgauss.questions.reach.controls import METHODS, construct, energy, reach

TOL = Fraction(1, 10 ** 40)
R = [["3/5", "-4/5"], ["4/5", "3/5"]]          # a rational rotation
ROTATED = [["149/45", "64/15"], ["64/15", "29/5"]]   # R diag(9, 1/9) Rᵀ, checked below


def _example(name):
    from symgauss.model.problem_file import load_problem
    return load_problem(resources.files("symgauss") / "examples" / name)


def _acceptance():
    return Problem(cov0=[[1, 0], [0, 1]], mean0=[0, 0],
                   target={"mean": [2, -1], "cov": [[9, 0], [0, "1/9"]]})


def _frac_mat(rows):
    return [[parse_rational(x, "x") for x in row] for row in rows]


def _hp_distance(problem, controls, T, digits=50):
    """Distance reached-target by the Taylor solver (independent of the ball-arithmetic check)."""
    p = Problem(cov0=problem.cov0, mean0=problem.mean0, controls=list(controls))
    sol = solve_moments(p, T, digits)
    with mpmath.workdps(digits + 10):
        tm, tc = problem.target.mean, problem.target.cov
        err = max(abs(mpmath.mpf(sol.mean_str(digits + 5)[i]) - mpmath.mpf(tm[i].p) / tm[i].q)
                  for i in range(p.d))
        cov = sol.cov_str(digits + 5)
        err = max([err] + [abs(mpmath.mpf(cov[i][j]) - mpmath.mpf(tc[i, j].p) / tc[i, j].q)
                           for i in range(p.d) for j in range(p.d)])
        return err


def test_rotated_target_is_rotation_of_diag():
    Rm = _frac_mat(R)
    D = [Fraction(9), Fraction(1, 9)]
    S = [[sum(Rm[i][k] * D[k] * Rm[j][k] for k in range(2)) for j in range(2)] for i in range(2)]
    assert S == _frac_mat(ROTATED)


def test_acceptance_geodesic_closed_form():
    r = reach(_acceptance(), method="geodesic")
    (piece,) = r.controls
    with mpmath.workdps(60):
        ln3 = mpmath.log(3)
        A = [[mpmath.mpf(parse_rational(x, "A").numerator) / parse_rational(x, "A").denominator
              for x in row] for row in piece["A"]]
        assert abs(A[0][0] - ln3) < 1e-50 and abs(A[1][1] + ln3) < 1e-50
        assert A[0][1] == 0 and A[1][0] == 0
        # constant b solving m(1) = (e^a − 1)/a · b = m1, coordinate-wise
        for a, m1, bs in ((ln3, 2, piece["b"][0]), (-ln3, -1, piece["b"][1])):
            b = parse_rational(bs, "b")
            assert abs(mpmath.mpf(b.numerator) / b.denominator - m1 * a / (mpmath.exp(a) - 1)) \
                < 1e-50
        # energy ∫‖A‖² + ‖b‖² = ln²3 (2 + 1 + 9/4)
        assert abs(mpmath.mpf(r.energy.numerator) / r.energy.denominator - 5.25 * ln3 ** 2) < 1e-45
    assert r.level == "rigorous" and r.final_error <= TOL


@pytest.mark.parametrize("method", METHODS)
def test_rotated_target_all_methods(method):
    p = Problem(cov0=[[1, 0], [0, 1]], mean0=[1, 0], target={"mean": [2, -1], "cov": ROTATED})
    r = reach(p, method=method)
    assert r.reachable and r.final_error <= TOL
    assert sum(parse_rational(pc["duration"], "t") for pc in r.controls) == 1
    assert _hp_distance(p, r.controls, "1") < 1e-40


def test_attention_is_exact_and_rational():
    r = reach(_acceptance(), method="attention")
    assert r.level == "exact" and r.final_error == 0
    att = [pc for pc in r.controls if "V" in pc]
    assert len(att) == 1 and all(x == "0" for row in att[0]["A"] for x in row)
    V = _frac_mat(att[0]["V"])
    assert V[0][0] > 0 and V == [[V[0][0], 0], [0, V[0][0]]]
    assert any(x != 0 for row in _frac_mat(att[0]["B"]) for x in row)
    # the nonlinear attention dynamics integrated by the Taylor solver agree
    assert _hp_distance(_acceptance(), r.controls, "1") < 1e-40


def test_rank1_d3_polar_structure():
    p = _example("rank1_d3.json")
    r = reach(p)
    assert r.method == "polar" and r.final_error <= TOL
    H, K = (_frac_mat(pc["A"]) for pc in r.controls)
    assert all(H[i][j] == H[j][i] for i in range(3) for j in range(3))      # symmetric
    assert all(K[i][j] == -K[j][i] for i in range(3) for j in range(3))     # skew
    assert _hp_distance(p, r.controls, "1") < 1e-40


def test_rank_mismatch_is_unreachable():
    p = Problem(cov0=[[1, 0], [0, 1]], target={"mean": [0, 0], "cov": [[1, 1], [1, 1]]})
    r = reach(p)
    assert not r.reachable and r.level == "exact"
    assert (r.rank_cov0, r.rank_target) == (2, 1) and "invariant" in r.reason
    assert r.to_json_dict()["reachable"] is False


def test_default_is_cheapest_and_energies_are_exact():
    p = Problem(cov0=[[2, 1], [1, 1]], mean0=[1, 1],
                target={"mean": [0, 3], "cov": [[1, 0], [0, 5]]})
    r = reach(p)
    costs = dict(r.candidates)
    assert set(costs) == set(METHODS) and r.energy == min(costs.values())
    assert energy(r.controls, 2) == r.energy


def test_other_final_time():
    p = _acceptance()
    r = reach(p, T="1/3", method="polar")
    assert sum(parse_rational(pc["duration"], "t") for pc in r.controls) == Fraction(1, 3)
    assert r.final_error <= TOL and r.to_json_dict()["T"] == "1/3"


def test_bad_requests():
    with pytest.raises(ProblemError, match="target"):
        reach(Problem(cov0=[[1]]))
    with pytest.raises(ProblemError, match="method"):
        reach(_acceptance(), method="newton")
    with pytest.raises(ProblemError, match="positive"):
        reach(_acceptance(), T=0)
    with pytest.raises(UnsupportedError, match="polar"):
        reach(_example("rank1_d3.json"), method="attention")


def _run(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("name,method", [("reach_geodesic.json", None),
                                         ("reach_geodesic.json", "attention"),
                                         ("rank1_d3.json", None)])
def test_cli_controls_fed_back_through_solve(tmp_path, capsys, name, method):
    path = resources.files("symgauss") / "examples" / name
    argv = ["reach", str(path), "--json", "--digits", "50"] + (["--method", method] if method
                                                               else [])
    code, out, _ = _run(capsys, argv)
    res = json.loads(out)
    assert code == 0 and res["reachable"] and float(res["final_error"]) <= 1e-40
    problem = json.loads(path.read_text())
    ctl = tmp_path / "ctl.json"
    ctl.write_text(json.dumps({"cov0": problem["cov0"], "mean0": problem["mean0"],
                               "controls": res["controls"]}))
    code, out, _ = _run(capsys, ["solve", str(ctl), "--t", res["T"], "--json", "--digits", "50"])
    sol = json.loads(out)
    assert code == 0
    with mpmath.workdps(60):
        for x, y in zip(sol["mean"], problem["target"]["mean"]):
            f = parse_rational(y, "m")
            assert abs(mpmath.mpf(x) - mpmath.mpf(f.numerator) / f.denominator) < 1e-40
        for rx, ry in zip(sol["cov"], problem["target"]["cov"]):
            for x, y in zip(rx, ry):
                f = parse_rational(y, "S")
                assert abs(mpmath.mpf(x) - mpmath.mpf(f.numerator) / f.denominator) < 1e-40


def test_cli_no_target_exit_2(tmp_path, capsys):
    f = tmp_path / "p.json"
    f.write_text('{"cov0": [[1]]}')
    code, _, err = _run(capsys, ["reach", str(f)])
    assert code == 2 and "target" in err and err.count("\n") == 1
    assert err.count("{") == err.count("}")  # the suggested fix is balanced as printed


def test_cli_text_and_files(tmp_path, capsys):
    path = resources.files("symgauss") / "examples" / "reach_geodesic.json"
    cert, ctl = tmp_path / "c.json", tmp_path / "ctl.json"
    code, out, _ = _run(capsys, ["reach", str(path), "--certificate", str(cert),
                                 "--write-controls", str(ctl)])
    assert code == 0 and "reachable: yes" in out
    code, out, _ = _run(capsys, ["check", str(cert)])
    assert code == 0 and "VERIFIED" in out
    from symgauss.model.problem_file import load_problem
    assert load_problem(ctl).controls is not None


# --- random targets -----------------------------------------------------------------------------

small = st.fractions(min_value=-3, max_value=3, max_denominator=4)


@st.composite
def targets(draw):
    d = draw(st.integers(1, 5))
    r0 = draw(st.integers(1, d))
    r1 = draw(st.sampled_from([r0, r0, r0, max(1, r0 - 1)]))

    def cov(r):
        L = [[draw(small) for _ in range(r)] for _ in range(d)]
        return [[sum(L[i][k] * L[j][k] for k in range(r)) for j in range(d)] for i in range(d)]
    return d, cov(r0), cov(r1), [draw(small) for _ in range(d)], [draw(small) for _ in range(d)]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(targets())
def test_random_targets(data):
    d, S0, S1, m0, m1 = data
    p = Problem(cov0=S0, mean0=m0, target={"mean": m1, "cov": S1})
    r = reach(p)
    assert r.reachable == (rank(S0) == rank(S1))
    if r.reachable:
        scale = max([1] + [abs(x) for row in S1 for x in row] + [abs(x) for x in m1])
        assert r.final_error <= TOL * scale
        assert r.level in ("exact", "rigorous")


@pytest.mark.parametrize("method", ["geodesic", "polar", "attention"])
def test_constructed_controls_reach_the_target_by_an_independent_float_integration(method):
    """construct() alone is unverified; integrated independently (scipy expm, closed forms in
    tests/_oracle.py) its controls land on the target to float accuracy, and a wrong target
    is missed by far."""
    from _oracle import _reach_distance
    p = _acceptance()
    pcs = construct(p, method, 1, 50)
    assert sum(parse_rational(pc["duration"], "t") for pc in pcs) == 1
    cert = {"problem": {"cov0": [["1", "0"], ["0", "1"]], "mean0": ["0", "0"],
                        "target": {"mean": ["2", "-1"], "cov": [["9", "0"], ["0", "1/9"]]}},
            "witness": {"controls": pcs}}
    assert _reach_distance(cert) < 1e-9
    cert["problem"]["target"]["cov"] = [["9", "0"], ["0", "1/8"]]
    assert _reach_distance(cert) > 1e-3


def test_verify_falls_back_to_taylor_for_nonlinear_pieces():
    """A = 0, V = 1, B = 1/4, σ0 = 1, m0 = 1 (d = 1): σ(t) = 1/(1 − t/2) and
    m(t) = e^t / sqrt(1 − t/2), so at t = 1 the state is (e√2, 2); the piece enters with a
    non-zero mean, which the ball-arithmetic enclosure does not cover."""
    from symgauss.questions.reach.controls import verify
    with mpmath.workdps(70):
        m1 = mpmath.nstr(mpmath.e * mpmath.sqrt(2), 65)
    p = Problem(cov0=[[1]], mean0=[1], target={"mean": [m1], "cov": [[2]]})
    pieces = [{"duration": "1", "A": [["0"]], "V": [["1"]], "B": [["1/4"]], "b": ["0"]}]
    err, level, _ = verify(p, pieces, 50)
    assert level == "high-precision" and err < Fraction(1, 10 ** 45)
