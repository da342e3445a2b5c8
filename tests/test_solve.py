"""The high-precision moment solver against closed forms and an independent float integrator."""
import json
import subprocess
import sys
from importlib.resources import files

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

from symgauss import BlowUpError, Problem, load_problem
from symgauss.integrate.float_solver import solve_moments_float
from symgauss.integrate.high_precision import solve_moments


def _example(name):
    return load_problem(files("symgauss") / "examples" / f"{name}.json")


def _rel_err(got_str, exact, dps):
    with mpmath.workdps(dps + 20):
        return abs(mpmath.mpf(got_str) - exact) / abs(exact)


def test_scalar_blowup_closed_form_50_digits():
    # d = 1, A = 0, V = B = 1, σ0 = 1: σ(t) = 1/(1 − 2t)
    p = Problem(cov0=[[1]], V=[[1]], B=[[1]])
    for t in ["1/4", "0.45", "49/100"]:
        sol = solve_moments(p, t, digits=50)
        with mpmath.workdps(80):
            tt = mpmath.mpf(sp.Rational(t).p) / sp.Rational(t).q
            exact = 1 / (1 - 2 * tt)
        assert _rel_err(sol.cov_str(55)[0][0], exact, 60) < mpmath.mpf(10) ** -50
        assert sol.digits_agreed >= 50


@pytest.mark.parametrize("v,beta,s0,m0,t", [("1/2", "3", "1/3", "2", "1/4"),
                                            ("-1", "1", "2", "-1", "1"),
                                            ("3/10", "-2/3", "5", "7/3", "3/2")])
def test_scalar_mean_and_cov_closed_form(v, beta, s0, m0, t):
    # σ(t) = σ0/(1 − 2vβσ0 t), m(t) = m0 e^{vt} (1 − 2vβσ0 t)^{−1/2}
    p = Problem(cov0=[[s0]], V=[[v]], B=[[beta]], mean0=[m0])
    sol = solve_moments(p, t, digits=40)
    with mpmath.workdps(80):
        R = lambda q: mpmath.mpf(sp.Rational(q).p) / sp.Rational(q).q  # noqa: E731
        vv, bb, ss, mm, tt = map(R, (v, beta, s0, m0, t))
        den = 1 - 2 * vv * bb * ss * tt
        sigma = ss / den
        mean = mm * mpmath.exp(vv * tt) / mpmath.sqrt(den)
    assert _rel_err(sol.cov_str(45)[0][0], sigma, 50) < mpmath.mpf(10) ** -40
    assert _rel_err(sol.mean_str(45)[0], mean, 50) < mpmath.mpf(10) ** -40


def _scipy_reference(A, V, B, b, m0, S0, T):
    """An integration written independently of symgauss (eq. 1.1 as in the paper)."""
    d = len(m0)

    def f(_t, y):
        m, S = y[:d], y[d:].reshape(d, d)
        dm = (A + V) @ m + V @ S @ B @ m + b
        dS = A @ S + S @ A.T + V @ S @ B @ S + S @ B.T @ S @ V.T
        return np.concatenate([dm, dS.ravel()])
    sol = solve_ivp(f, (0, T), np.concatenate([m0, S0.ravel()]), method="Radau", rtol=1e-13,
                    atol=1e-15)
    return sol.y[:d, -1], sol.y[d:, -1].reshape(d, d)


def test_3x3_agrees_with_independent_float_integration():
    p = _example("general3")
    f = lambda M: np.array(M.tolist(), dtype=float)  # noqa: E731
    m_ref, S_ref = _scipy_reference(f(p.A), f(p.V), f(p.B), f(p.b)[:, 0], f(p.mean0)[:, 0],
                                    f(p.cov0), 1.0)
    sol = solve_moments(p, 1, digits=30)
    S = np.array([[float(x) for x in row] for row in sol.cov_str()])
    m = np.array([float(x) for x in sol.mean_str()])
    assert np.max(np.abs(S - S_ref)) < 1e-10 and np.max(np.abs(m - m_ref)) < 1e-10
    fl = solve_moments_float(p, 1)
    assert np.max(np.abs(np.array(fl.cov) - S)) < 1e-10
    assert np.max(np.abs(np.array(fl.mean) - m)) < 1e-10


def test_high_precision_is_self_consistent_and_symmetric():
    p = _example("multihead")
    a = solve_moments(p, "1/2", digits=30)
    b = solve_moments(p, "1/2", digits=60)
    with mpmath.workdps(70):
        for ra, rb in zip(a.cov_str(), b.cov_str()):
            for x, y in zip(ra, rb):
                assert abs(mpmath.mpf(x) - mpmath.mpf(y)) <= mpmath.mpf(10) ** -29 * (1 + abs(mpmath.mpf(y)))
        S = [[mpmath.mpf(x) for x in row] for row in b.cov_str()]
        assert S[0][1] == S[1][0]


def test_piecewise_controls_equal_composition_of_pieces():
    # Two pieces = solving the first, then the second from its end state.
    pieces = [{"duration": "1/3", "A": [[1, 0], [0, -1]], "V": [[-1, 0], [0, -1]],
               "B": [[1, 0], [0, 1]], "b": [1, 0]},
              {"duration": "1/2", "A": [[0, 1], [-1, 0]], "b": [0, 2]}]
    p = Problem(cov0=[[2, 0], [0, 1]], mean0=[1, 1], controls=pieces)
    whole = solve_moments(p, "5/6", digits=30)
    first = solve_moments(Problem(cov0=[[2, 0], [0, 1]], mean0=[1, 1], **{k: v for k, v in pieces[0].items() if k != "duration"}), "1/3", digits=40)
    S1 = [[sp.Rational(x) for x in row] for row in first.cov_str(40)]
    m1 = [sp.Rational(x) for x in first.mean_str(40)]
    second = solve_moments(Problem(cov0=S1, mean0=m1, A=pieces[1]["A"], b=pieces[1]["b"]), "1/2",
                           digits=30)
    with mpmath.workdps(40):
        for x, y in zip(sum(whole.cov_str(), []), sum(second.cov_str(), [])):
            assert abs(mpmath.mpf(x) - mpmath.mpf(y)) < mpmath.mpf(10) ** -28
    with pytest.raises(Exception, match="controls last"):
        solve_moments(p, 1, digits=10)


def test_blowup_is_reported_not_a_number():
    p = Problem(cov0=[[1]], V=[[1]], B=[[1]])
    with pytest.raises(BlowUpError) as info:
        solve_moments(p, 1, digits=30)
    assert abs(info.value.t_estimate - 0.5) < 1e-6
    with pytest.raises(BlowUpError) as info:
        solve_moments_float(p, 1)
    assert abs(info.value.t_estimate - 0.5) < 1e-6


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "symgauss", *args], capture_output=True,
                          text=True)


def test_cli_solve_json_50_digits_and_blowup_exit_3(tmp_path):
    f = tmp_path / "p.json"
    f.write_text('{"cov0": [[1]], "V": [[1]], "B": [[1]], "mean0": [1]}')
    r = _cli("solve", str(f), "--t", "1/4", "--digits", "50", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["t"] == "1/4" and out["level"] == "high-precision"
    cov = out["cov"][0][0]
    assert len(cov.replace(".", "").lstrip("0")) >= 50
    with mpmath.workdps(60):
        assert abs(mpmath.mpf(cov) - 2) < mpmath.mpf(10) ** -49
    r = _cli("solve", str(f), "--t", "1", "--json")
    assert r.returncode == 3 and json.loads(r.stdout)["blows_up"] is True
    assert "blows up" in r.stderr and "T*" in r.stderr
    r = _cli("solve", str(f), "--t", "1", "--digits", "abc")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


def test_symbolic_problem_is_refused_clearly():
    s = sp.Symbol("s")
    with pytest.raises(Exception, match="symbols"):
        solve_moments(Problem(cov0=[[1]], A=[[s]]), 1)


def test_fast_exponential_growth_is_not_mistaken_for_blowup():
    # σ' = 2aσ: σ(3) = e^{120} is huge but finite (an entire solution: no pole)
    sol = solve_moments(Problem(cov0=[[1]], A=[[20]]), 3, digits=30)
    with mpmath.workdps(60):
        assert _rel_err(sol.cov_str(35)[0][0], mpmath.exp(120), 40) < mpmath.mpf(10) ** -30
