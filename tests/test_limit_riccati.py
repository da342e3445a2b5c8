"""Kind ``limit-riccati`` (issue 13, exact): every V_h = v_h I, convergence to Σ* ≻ 0 proved from
the linear equation for P = Σ⁻¹, P(t) = P* + e^{−Aᵀt}(P0 − P*)e^{−At}.

The checked-in certificate verifies; its Σ* is an equilibrium and the limit of an independent
float integration, and P(t) stays positive definite at sampled times (scipy's expm, not the
kernel's argument); every claim and witness field is tampered; ``classify`` on the example
answers at level exact where validated steps had given only a float answer after 50 s.
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
EXAMPLE = ROOT / "symgauss" / "examples" / "riccati_limit.json"


def _cert():
    return json.loads((ROOT / "certificates" / "limit_riccati.json").read_text())


def _m(rows):
    return np.array([[float(Fraction(x)) for x in r] for r in rows])


def test_the_checked_in_certificate_verifies_and_its_limit_is_the_float_limit():
    from scipy.integrate import solve_ivp
    from scipy.linalg import expm
    c = _cert()
    v = check_certificate(c)
    assert (v.status, v.kind, v.level) == ("verified", "limit-riccati", "exact"), v.reason
    p = c["problem"]
    A, V, B, S0, S = _m(p["A"]), _m(p["V"]), _m(p["B"]), _m(p["cov0"]), _m(c["claim"]["cov"])

    def F(X):
        M = A + V @ X @ B
        return M @ X + X @ M.T
    assert np.abs(F(S)).max() < 1e-9 * np.abs(S).max()          # an equilibrium
    assert np.linalg.eigvalsh(S)[0] > 0
    sol = solve_ivp(lambda _t, y: F(y.reshape(4, 4)).ravel(), (0, 60), S0.ravel(),
                    method="LSODA", rtol=1e-11, atol=1e-13)
    assert sol.status == 0 and np.abs(sol.y[:, -1].reshape(4, 4) - S).max() < 1e-6
    P0, Ps = np.linalg.inv(S0), np.linalg.inv(S)
    for t in np.linspace(0, 30, 301):     # P(t) = Σ(t)⁻¹ stays positive definite
        E = expm(-A * t)
        assert np.linalg.eigvalsh(Ps + E.T @ (P0 - Ps) @ E)[0] > 0


def _tampered(edit):
    c = copy.deepcopy(_cert())
    cl, w = c["claim"], c["witness"]
    if edit == "cov":
        cl["cov"][0][0] = str(Fraction(cl["cov"][0][0]) * (1 + Fraction(1, 10 ** 12)))
    elif edit == "cov_offdiag":
        cl["cov"][0][1] = cl["cov"][1][0] = str(Fraction(cl["cov"][0][1]) + Fraction(1, 10 ** 9))
    elif edit == "rate":
        cl["rate"] = str(Fraction(cl["rate"]) * 20)
    elif edit == "Q_big":
        w["Q"][0][0] = str(Fraction(w["Q"][0][0]) * 1000)
    elif edit == "Q_small":
        w["Q"] = [[str(Fraction(x) / 1000) for x in r] for r in w["Q"]]
    elif edit == "Q_asym":
        w["Q"][0][1] = str(Fraction(w["Q"][0][1]) + 1)
    elif edit == "mu_zero":
        w["mu"] = "0"
    elif edit == "mu_big":
        w["mu"] = "5"
    elif edit == "mu_negative":
        w["mu"] = "-1"
    elif edit == "V_not_scalar":
        c["problem"]["V"][0][1] = "1/100"
        c["problem_hash"] = read_problem(roundtrip(c)["problem"]).hash
    elif edit == "cov0_far":       # a start the one bound does not cover
        c["problem"]["cov0"] = [["100" if i == j else "0" for j in range(4)] for i in range(4)]
        c["problem_hash"] = read_problem(roundtrip(c)["problem"]).hash
    elif edit == "level":
        c["level"] = "rigorous"
    elif edit == "extra_key":
        w["P"] = w["Q"]
    return reseal(c)


@pytest.mark.parametrize("edit", ["cov", "cov_offdiag", "rate", "Q_big", "Q_small", "Q_asym",
                                  "mu_zero", "mu_big", "mu_negative", "V_not_scalar",
                                  "cov0_far", "level", "extra_key"])
def test_a_tampered_riccati_limit_certificate_is_not_verified(edit):
    v = check_certificate(_tampered(edit))
    assert v.status in ("not-proved", "invalid"), (edit, v)
    assert "problem_hash" not in v.reason and "statement" not in v.reason, v.reason


def test_classify_the_example_is_exact_and_certified():
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(EXAMPLE))
    assert (r.kind, r.level) == ("stable-equilibrium", "exact"), r.evidence
    assert r.certificate_data["kind"] == "limit-riccati"
    assert r.equilibrium == tuple(tuple(row) for row in _cert()["claim"]["cov"])


def test_the_cli_prints_the_long_exact_equilibrium_also_to_ten_digits():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "symgauss", "regime", str(EXAMPLE)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if x.startswith("  ≈ "))
    shown = [float(v) for row in line[4:].split(" (")[0].split("; ") for v in row.split(", ")]
    exact = [Fraction(x) for row in _cert()["claim"]["cov"] for x in row]
    assert len(shown) == 16
    for s, x in zip(shown, exact):      # each within half a unit of its 10th digit
        assert abs(Fraction(s) - x) <= abs(x) * Fraction(5, 10 ** 10), (s, x)


#: d = 6 (over the validated kinds' d ≤ 5), V = −I/2, R = −(B + Bᵀ)/2 indefinite, A positive stable
D6 = {
    "A": [
        ["3/2", "3/8", "13/8", "-1/4", "-3/8", "1/8"],
        ["-7/8", "1/8", "3/8", "-1", "-5/8", "3/4"],
        ["3/8", "-3/4", "15/8", "0", "-1/4", "1/8"],
        ["0", "3/4", "3/8", "1/2", "-1/4", "1/2"],
        ["-3/8", "-5/8", "-11/8", "1/2", "1", "-1/8"],
        ["-1/2", "-3/8", "0", "-5/8", "0", "2"],
    ],
    "V": [["-1/2" if i == j else "0" for j in range(6)] for i in range(6)],
    "B": [
        ["1/2", "0", "13/8", "1/8", "13/8", "1"],
        ["7/8", "7/8", "-1/2", "11/8", "1/8", "-1/8"],
        ["-17/8", "-1/8", "7/2", "5/8", "7/4", "1/4"],
        ["-11/8", "1/8", "15/8", "5/4", "-1/4", "-1/8"],
        ["-9/8", "-1/4", "1/8", "1", "15/8", "-1"],
        ["-15/8", "-1/4", "-3/4", "7/8", "-1", "13/8"],
    ],
    "cov0": [["1" if i == j else "0" for j in range(6)] for i in range(6)],
}


def test_classify_proves_a_d6_limit_exactly_where_validated_steps_are_not_tried():
    from symgauss import Problem
    from symgauss.kernel.checker import check_certificate as check
    from symgauss.questions.regime.classify import classify
    r = classify(Problem(**D6))
    assert (r.kind, r.level) == ("stable-equilibrium", "exact"), (r.evidence, r.tried)
    v = check(r.certificate_data)
    assert (v.status, v.kind) == ("verified", "limit-riccati"), v.reason
