"""Equilibria: exact residuals, agreement of independent methods, levels, bad problems, CLI."""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symgauss import Problem
from symgauss.cli.main import main
from symgauss.kernel.errors import UnsupportedError
from symgauss.model.linearise import exact_matrix, exact_params, residual_exact
from symgauss.model.problem_file import load_problem
from symgauss.questions.equilibria.lyapunov import bias_for_mean, lyapunov_exact, mean_fixed_point
from symgauss.questions.equilibria.search import find_equilibria

EX = Path(__file__).resolve().parents[1] / "symgauss" / "examples"


def _zero(M):
    return all(x == 0 for x in M.entries())


def test_worked_example_stable_diag():
    """A = diag(1, 3), V = −I, B = I: R = −2I, P* = diag(1, 1/3), Σ* = P*⁻¹ = diag(1, 3)."""
    p = load_problem(EX / "stable_diag.json")
    e = find_equilibria(p)[0]
    assert e.level == "exact" and e.rank == 2 and e.stable is True
    S = exact_matrix(e.cov)
    assert _zero(residual_exact(p.params, S))
    P = lyapunov_exact(exact_params(p.params).A, exact_matrix([[2, 0], [0, 2]]))  # = −R
    assert P == exact_matrix([[1, 0], [0, "1/3"]]) and P.inv() == S


def test_threshold_equilibrium_is_unstable_and_zero_is_stable():
    p = load_problem(EX / "threshold.json")
    eqs = find_equilibria(p)
    pd = [e for e in eqs if e.rank == 2]
    assert len(pd) == 1 and pd[0].cov == (("1", "0"), ("0", "1")) and pd[0].stable is False
    assert pd[0].stability.certificate["kind"] == "unstable-equilibrium"
    zero = [e for e in eqs if e.rank == 0][0]
    assert zero.stable is True   # A = −I Hurwitz: small Σ0 decay


def _spd(draw, d, lo=1):
    G = [[Fraction(draw(st.integers(-3, 3)), draw(st.integers(1, 3))) for _ in range(d)]
         for _ in range(d)]
    return [[sum(G[i][k] * G[j][k] for k in range(d)) + (lo if i == j else 0) for j in range(d)]
            for i in range(d)]


@st.composite
def designed(draw):
    """A general-V problem with a prescribed rational equilibrium S: A = −VSB + K S⁻¹, K skew."""
    d = draw(st.integers(2, 3))
    S = exact_matrix(_spd(draw, d))
    V = exact_matrix([[draw(st.integers(-2, 2)) for _ in range(d)] for _ in range(d)])
    B = exact_matrix([[draw(st.integers(-2, 2)) for _ in range(d)] for _ in range(d)])
    k = [[draw(st.integers(-2, 2)) for _ in range(d)] for _ in range(d)]
    K = exact_matrix([[k[i][j] - k[j][i] for j in range(d)] for i in range(d)])
    A = -(V * S * B) + K * S.inv()
    def txt(M):
        return [[str(x) for x in r] for r in M.tolist()]
    p = Problem(cov0=np.eye(d).astype(int).tolist(), A=txt(A), V=txt(V), B=txt(B))
    return p, S


@settings(max_examples=15, deadline=None)
@given(designed())
def test_designed_equilibrium_is_an_exact_zero(case):
    p, S = case
    assert _zero(residual_exact(p.params, S))


@pytest.mark.slow
@settings(max_examples=6, deadline=None)
@given(designed())
def test_newton_finds_a_designed_equilibrium(case):
    p, S = case
    # Newton from several starts need not find every equilibrium, but what it reports is one
    for e in find_equilibria(p, digits=20):
        if e.level == "exact" and e.algebraic is None:  # rational strings (else: algebraic)
            assert _zero(residual_exact(p.params, exact_matrix(e.cov)))


def test_general3_rigorous_enclosure():
    p = load_problem(EX / "general3.json")
    e = find_equilibria(p)[0]
    assert e.level == "rigorous" and e.rank == 3 and e.radius < Fraction(1, 10 ** 25)
    assert e.stable is True
    # the residual at the centre is tiny, and the float flow from cov0 converges there
    from symgauss.integrate.float_solver import solve_moments_float
    sol = solve_moments_float(p, 20)
    C = np.array([[float(x) for x in r] for r in e.cov])
    assert np.max(np.abs(np.array(sol.cov, dtype=float) - C)) < 1e-8
    m = np.array([float(x) for x in e.mean])
    assert np.max(np.abs(np.array(sol.mean, dtype=float) - m)) < 1e-6


def test_mean_fixed_point_and_bias():
    p = load_problem(EX / "stable_diag.json")
    S = exact_matrix([[1, 0], [0, 3]])
    target = ["5/7", "-2"]
    b = bias_for_mean(p.params, S, target)
    q = p.replace(b=b)
    assert [str(x) for x in mean_fixed_point(q.params, S).entries()] == target


def test_rank_deficient_in_invariant_range():
    p = Problem(cov0=[[1, 0], [0, 0]], A=[[2, 0], [0, 5]], V=[[-1, 0], [0, -1]],
                B=[[1, 0], [0, 1]])
    eqs = find_equilibria(p)
    r1 = [e for e in eqs if e.rank == 1]
    assert r1 and r1[0].cov == (("2", "0"), ("0", "0")) and r1[0].stable is True
    assert _zero(residual_exact(p.params, exact_matrix(r1[0].cov)))


def test_rank_deficient_moving_range_is_unsupported():
    p = Problem(cov0=[[1, 0], [0, 0]], A=[[1, 1], [1, 1]], V=[[-1, 0], [0, -1]],
                B=[[1, 0], [0, 1]])
    with pytest.raises(UnsupportedError, match="not invariant"):
        find_equilibria(p)


def test_d1_closed_form():
    p = Problem(cov0=[[1]], A=[["3/2"]], V=[[-2]], B=[["1/3"]])
    e = find_equilibria(p)[0]   # σ(2a + 2vβσ) = 0 ⇒ σ* = −a/(vβ) = 9/4
    assert e.cov == (("9/4",),) and e.stable is True


def test_controls_problem_is_rejected():
    p = Problem(cov0=[[1]], controls=[{"duration": 1, "A": [[1]]}])
    with pytest.raises(UnsupportedError):
        find_equilibria(p)


def test_cli_json_format(capsys):
    assert main(["equilibria", str(EX / "stable_diag.json"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    e = out["equilibria"][0]
    assert e["cov"] == [["1", "0"], ["0", "3"]] and e["mean"] == ["1", "0"]
    assert e["rank"] == 2 and e["level"] == "exact" and e["stable"] is True


def test_cli_text(capsys):
    assert main(["equilibria", str(EX / "threshold.json")]) == 0
    assert "unstable" in capsys.readouterr().out


def test_d0_rejected_at_load(tmp_path, capsys):
    f = tmp_path / "p.json"
    f.write_text('{"cov0": []}')
    assert main(["equilibria", str(f)]) == 2
    assert "d = 0" in capsys.readouterr().err


def test_newton_refinement_declines_a_singular_linearisation():
    """A non-isolated equilibrium (here: zero parameters, every Σ is one) is skipped, not a crash."""
    import numpy as np

    from symgauss.questions.equilibria.newton import _newton_mp
    p = Problem(cov0=[[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    assert _newton_mp(p.params, np.eye(3), 20) is None
