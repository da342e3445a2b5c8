"""solve_ivp's event root finder fails near a blow-up (seed-121 general-1-d2 of the regime
ensemble); the float runs must go on, and `symgauss regime` must answer, not crash."""
import json
import subprocess
import sys

import numpy as np
import pytest

import symgauss.integrate.float_events as fe
from symgauss.questions.regime.ensemble import ensemble
from symgauss.questions.regime.reference import reference_regime


def _seed121():
    return next(p for _, p in ensemble(48, seed=121) if p.name == "general-1-d2")


def test_the_problem_that_broke_scipys_root_finder_is_a_blowup_near_the_certified_time():
    # the float reference goes past the failure; its T* agrees with the kernel-verified
    # enclosure (2.8201854312273, 2.8201854336561] of `symgauss regime` to the reference's own
    # confirmation tolerance (two estimates within 1e-4 relative)
    ref = reference_regime(_seed121())
    assert ref["kind"] == "blow-up"
    assert abs(ref["t_star"] - 2.82018543) < 1e-4 * 2.82018543


@pytest.mark.slow
def test_symgauss_regime_answers_that_problem_with_a_certified_blowup(tmp_path):
    problem = tmp_path / "p.json"
    problem.write_text(json.dumps(_seed121().to_dict()))
    out = subprocess.run([sys.executable, "-m", "symgauss", "regime", str(problem), "--json"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr
    answer = json.loads(out.stdout)
    assert answer["kind"] == "blow-up" and answer["level"] == "rigorous"
    lo, hi = (float(x) for x in answer["enclosure"])
    assert lo < 2.8201854324 < hi and hi - lo < 1e-8


def _root_finder_failing(monkeypatch):
    """scipy's solve_ivp, raising brentq's error whenever it is given events."""
    import scipy.integrate
    real = scipy.integrate.solve_ivp

    def fake(f, span, y0, events=None, **options):
        if events is not None:
            raise ValueError("f(a) and f(b) must have different signs")
        return real(f, span, y0, **options)
    monkeypatch.setattr(scipy.integrate, "solve_ivp", fake)


def test_the_fallback_stops_at_the_first_step_past_a_terminal_event(monkeypatch):
    _root_finder_failing(monkeypatch)

    def big(_t, y):
        return y[0] - 10.0
    big.terminal = True

    def quarter(_t, y):
        return y[0] - 4.0
    quarter.direction = 1      # y = 1/(1 − t) passes 4 at t = 3/4, 10 at t = 9/10
    sol = fe.solve_with_events(lambda t, y: y * y, (0, 2), [1.0], [big, quarter],
                               method="LSODA", rtol=1e-10, atol=1e-12)
    assert sol.status == 1
    assert sol.y[0, -1] >= 10.0 and sol.y[0, -2] < 10.0        # the first step point past 10
    assert len(sol.t_events[0]) == 1 and sol.t_events[0][0] == sol.t[-1]
    assert len(sol.t_events[1]) == 1 and 0.75 <= sol.t_events[1][0] < 0.9
    assert np.all(sol.y_events[1][0] >= 4.0)


def test_the_fallback_respects_an_events_direction_and_a_run_without_crossing(monkeypatch):
    _root_finder_failing(monkeypatch)

    def down(_t, y):
        return y[0] - 4.0
    down.direction = -1        # y only grows: never crossed downwards
    down.terminal = True
    sol = fe.solve_with_events(lambda t, y: y * y, (0, 0.5), [1.0], down, method="LSODA",
                               rtol=1e-10, atol=1e-12)
    assert sol.status == 0 and len(sol.t_events[0]) == 0 and sol.t[-1] == 0.5
    assert abs(sol.y[0, -1] - 2.0) < 1e-8            # y(1/2) = 2


def test_the_fallback_stops_at_a_pole(monkeypatch):
    _root_finder_failing(monkeypatch)

    def never(_t, y):
        return -1.0
    never.terminal = True      # the run goes into the blow-up at t = 1: status −1, no hang
    sol = fe.solve_with_events(lambda t, y: y * y, (0, 2), [1.0], never, method="DOP853")
    assert sol.status == -1 and sol.t[-1] < 2 and len(sol.t_events[0]) == 0   # stopped, failed


def test_other_value_errors_are_not_swallowed(monkeypatch):
    import scipy.integrate

    def broken(*_a, **_k):
        raise ValueError("`y0` must be 1-dimensional.")
    monkeypatch.setattr(scipy.integrate, "solve_ivp", broken)
    with pytest.raises(ValueError, match="1-dimensional"):
        fe.solve_with_events(lambda t, y: y, (0, 1), [[1.0]], [lambda t, y: y[0]])


def test_the_fallback_keeps_a_dense_solution_even_without_a_step(monkeypatch):
    _root_finder_failing(monkeypatch)

    def big(_t, y):
        return y[0] - 10.0
    big.terminal = True
    sol = fe.solve_with_events(lambda t, y: y * y, (0, 0.5), [1.0], big, method="LSODA",
                               rtol=1e-10, atol=1e-12, dense_output=True)
    assert abs(sol.sol(0.25)[0] - 4 / 3) < 1e-8          # y(1/4) = 1/(1 − 1/4)
    sol = fe.solve_with_events(lambda t, y: y * y, (0, 0.5), [20.0], big, method="LSODA",
                               rtol=1e-10, atol=1e-12, dense_output=True)
    assert sol.status == -1 and sol.t[-1] < 0.05         # y = 20/(1 − 20t): stopped at the pole
    assert sol.sol(0.0)[0] == 20.0


@pytest.mark.slow
def test_a_float_run_that_overflows_before_the_blowup_direction_is_read_does_not_crash():
    """Seed-221 general-21-d4: LSODA towards T* overflowed (NaN) before tr Σ = 1e5, and reading
    Σ/tr Σ from its last column raised scipy's "y0 must be finite" out of classify. Now the
    region at infinity is not tried, saying why, and the answer is undecided."""
    from symgauss.questions.regime.classify import classify
    p = next(q for _, q in ensemble(48, seed=221) if q.name == "general-21-d4")
    r = classify(p)
    assert r.kind == "undecided"
    assert any("no finite direction" in t and "overflowed" in t for t in r.tried), r.tried
