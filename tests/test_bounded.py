"""Kind ``bounded-linear`` (issue 13, exact): Σ(t) exists for all t ≥ 0 and stays bounded, by
w = tr(PΣ) with w' ≤ aw − κw².

The checked-in certificate verifies; an independent float integration stays under its bound
and does not settle (the regime is bounded, not a limit); the inequality w' ≤ aw − κw² is
re-examined at random Σ ⪰ 0 with eq. 1.1 written here; every claim and witness field is
tampered; ``classify`` on the example.
"""
from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from _mutation import reseal, roundtrip

from symgauss import load_problem
from symgauss.kernel.checker import check_certificate
from symgauss.kernel.read import read_problem

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "symgauss" / "examples" / "bounded.json"


def _cert():
    return json.loads((ROOT / "certificates" / "bounded_linear.json").read_text())


def _m(rows):
    return np.array([[float(Fraction(x)) for x in r] for r in rows])


def _field(p):
    A = _m(p["A"])
    heads = [(_m(h["V"]), _m(h["B"])) for h in p["heads"]] if "heads" in p else \
        [(_m(p["V"]), _m(p["B"]))]

    def F(S):
        M = A + sum(V @ S @ B for V, B in heads)
        return M @ S + S @ M.T
    return F


def test_the_checked_in_certificate_verifies_and_a_float_run_stays_under_its_bound():
    from scipy.integrate import solve_ivp
    c = _cert()
    v = check_certificate(c)
    assert (v.status, v.kind, v.level) == ("verified", "bounded-linear", "exact"), v.reason
    F, S0 = _field(c["problem"]), _m(c["problem"]["cov0"])
    d = len(S0)
    sol = solve_ivp(lambda _t, y: F(y.reshape(d, d)).ravel(), (0, 500), S0.ravel(),
                    method="LSODA", rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, 500, 2001))
    assert sol.status == 0
    traces = [np.trace(y.reshape(d, d)) for y in sol.y.T]
    assert max(traces) <= float(Fraction(c["claim"]["bound"]))
    late = traces[1000:]
    assert max(late) - min(late) > 0.1      # still moving at t = 250…500: no limit to prove


def test_the_differential_inequality_holds_at_random_psd_points():
    c = _cert()
    w = c["witness"]
    F = _field(c["problem"])
    P = _m(w["P"])
    a, kappa = float(Fraction(w["a"])), float(Fraction(w["kappa"]))
    rng = np.random.default_rng(0)
    for _ in range(3000):
        X = rng.normal(size=P.shape) * rng.uniform(0.01, 100)
        S = X @ X.T
        wS = np.trace(P @ S)
        assert np.trace(P @ F(S)) <= a * wS - kappa * wS ** 2 + 1e-9 * (1 + wS ** 2)


def _tampered(edit):
    c = copy.deepcopy(_cert())
    cl, w = c["claim"], c["witness"]
    if edit == "bound":
        cl["bound"] = str(Fraction(cl["bound"]) / 2)
    elif edit == "P":
        w["P"][0][0] = str(Fraction(w["P"][0][0]) * 3)
    elif edit == "P_asym":
        w["P"][0][1] = str(Fraction(w["P"][0][1]) + 1)
    elif edit == "ell":
        w["ell"] = str(Fraction(w["ell"]) * 10)
    elif edit == "a":
        w["a"] = str(Fraction(w["a"]) / 2)
    elif edit == "kappa":
        w["kappa"] = str(Fraction(w["kappa"]) * 100)
    elif edit == "kappa_zero":
        w["kappa"] = "0"
    elif edit == "cov0":
        c["problem"]["cov0"] = [["1000", "0"], ["0", "1000"]]
        c["problem_hash"] = read_problem(roundtrip(c)["problem"]).hash
    elif edit == "head":       # a head that makes the quadratic part grow
        c["problem"]["heads"][0]["V"] = [["1", "0"], ["0", "1"]]
        c["problem"]["heads"][0]["B"] = [["1", "0"], ["0", "1"]]
        c["problem_hash"] = read_problem(roundtrip(c)["problem"]).hash
    elif edit == "level":
        c["level"] = "rigorous"
    elif edit == "extra_key":
        w["Q"] = w["P"]
    return reseal(c)


@pytest.mark.parametrize("edit", ["bound", "P", "P_asym", "ell", "a", "kappa", "kappa_zero",
                                  "cov0", "head", "level", "extra_key"])
def test_a_tampered_bounded_certificate_is_not_verified(edit):
    v = check_certificate(_tampered(edit))
    assert v.status in ("not-proved", "invalid"), (edit, v)
    assert "problem_hash" not in v.reason and "statement" not in v.reason, v.reason


def test_classify_the_example_is_bounded_at_level_exact():
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(EXAMPLE))
    assert (r.kind, r.level) == ("bounded", "exact"), (r.evidence, r.tried)
    assert r.certificate_data["kind"] == "bounded-linear"
