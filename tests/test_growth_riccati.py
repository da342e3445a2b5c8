"""Kind ``growth-riccati`` (issue 13): growth for all time when every V_h = v_h I and A = αI,
from the closed form of the Riccati equation.

The closed form against LSODA, the checked-in certificate's claim against LSODA (and its lower
constant shown sharp), every claim and witness field and the problem's structure tampered, and
``classify`` on the built-in example and on the ensemble problem that was "exact" without a
certificate before.
"""
import copy
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from _mutation import checked_in, reseal
from _oracle import _svec_field, claim_holds
from scipy.integrate import solve_ivp

from symgauss import load_problem
from symgauss.kernel.checker import check_certificate
from symgauss.kernel.read import read_problem

ROOT = Path(__file__).resolve().parents[1]


def _cert():
    return checked_in("growth_riccati")


def _m(M):
    return np.array([[float(Fraction(str(x))) for x in row] for row in M])


def _lsoda(p, t_end):
    """Σ(t) of eq. 1.1 (numpy, LSODA on the upper triangle), as a dense solution."""
    heads = [(_m(h["V"]), _m(h["B"])) for h in p["heads"]]
    f, full, iu = _svec_field(_m(p["A"]), heads, len(p["cov0"]))
    sol = solve_ivp(f, (0, t_end), _m(p["cov0"])[iu], method="LSODA", rtol=1e-12, atol=1e-14,
                    dense_output=True)
    return lambda t: full(sol.sol(t))


def test_the_checked_in_certificate_verifies_and_its_claim_holds():
    c = _cert()
    v = check_certificate(c)
    assert (v.status, v.level) == ("verified", "exact"), v.reason
    assert claim_holds(c)


def test_the_closed_form_is_the_solution_and_the_lower_constant_is_sharp():
    """Σ(t) = e^{2αt}(P0 − sR)⁻¹, s = (e^{2αt} − 1)/(2α), against LSODA; with ker R of
    dimension one, tr Σ(t)·e^{−2αt} → wᵀw/(wᵀΣ0⁻¹w), the claim's lower constant."""
    c = _cert()
    p = c["problem"]
    alpha = _m(p["A"])[0, 0]
    R = sum(_m(h["V"])[0, 0] * (_m(h["B"]) + _m(h["B"]).T) for h in p["heads"])
    P0 = np.linalg.inv(_m(p["cov0"]))
    sigma = _lsoda(p, 24)
    for t in (0.5, 2.0, 6.0):
        s = (np.exp(2 * alpha * t) - 1) / (2 * alpha)
        closed = np.exp(2 * alpha * t) * np.linalg.inv(P0 - s * R)
        assert np.allclose(sigma(t), closed, rtol=1e-8)
    lower = float(Fraction(c["claim"]["lower"]))
    ratio = np.trace(sigma(24)) * np.exp(-2 * alpha * 24) / lower
    assert 1 <= ratio < 1 + 1e-3, ratio


def _refused(c):
    v = check_certificate(reseal(c))
    assert v.status in ("not-proved", "invalid"), v
    return v


@pytest.mark.parametrize("where, value", [
    (("claim", "rate"), "11/10"),               # 2α = 1
    (("claim", "rate"), "9/10"),
    (("claim", "lower"), "3/5"),                # above wᵀw/(wᵀΣ0⁻¹w) = 42/71
    (("witness", "w"), ["0", "0", "0"]),
    (("witness", "w"), ["1", "0", "0"]),        # not in ker R
    (("witness", "w"), ["1", "-1"]),
    (("claim", "extra"), "1"),
    (("witness", "extra"), "1"),
])
def test_tampered_fields_are_refused(where, value):
    c = copy.deepcopy(_cert())
    c[where[0]][where[1]] = value
    _refused(c)


def test_a_higher_level_is_refused():
    c = copy.deepcopy(_cert())
    c["level"] = "rigorous"
    assert check_certificate(c).status != "verified"


def _with_problem(change):
    c = copy.deepcopy(_cert())
    change(c["problem"])
    c["problem_hash"] = read_problem(c["problem"]).hash
    return c


@pytest.mark.parametrize("change, why", [
    (lambda p: p["heads"][0]["V"][0].__setitem__(1, "1/8"), "V_h = v_h I"),
    (lambda p: p["A"][1].__setitem__(1, "1/2"), "A = αI"),
    (lambda p: p["heads"][0]["V"].__setitem__(0, [1, 0, 0]), "V_h = v_h I"),
    # v_0 = +1: R = B_0 + B_0ᵀ ⪰ 0, not ⪯ 0 (and it blows up)
    (lambda p: p["heads"].__setitem__(0, {"V": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
                                          "B": p["heads"][0]["B"]}), "principal minor"),
    (lambda p: p.__setitem__("A", [["-1/4", 0, 0], [0, "-1/4", 0], [0, 0, "-1/4"]]), "rate"),
    (lambda p: p.__setitem__("cov0", [[1, 1, 0], [1, 1, 0], [0, 0, 1]]), "cov0"),
])
def test_a_problem_outside_the_kind_is_refused(change, why):
    v = _refused(_with_problem(change))
    assert why in v.reason, v.reason


def test_classify_the_example_is_exact_and_certified():
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(ROOT / "symgauss" / "examples" / "growth_riccati.json"))
    assert (r.kind, r.level, r.rate) == ("growth", "exact", "1/2"), r.evidence
    assert check_certificate(r.certificate_data).status == "verified"


def test_classify_an_ensemble_closed_form_growth_now_carries_a_certificate():
    """Seed-31 growth-8-d2 (A = I, V = −I, B = diag(0, 1)) was reported "exact" from the closed
    form with no certificate before this kind."""
    from symgauss.questions.regime.classify import classify
    from symgauss.questions.regime.ensemble import ensemble
    p = dict((q.name, q) for _, q in ensemble(48, seed=31))["growth-8-d2"]
    r = classify(p)
    assert (r.kind, r.level) == ("growth", "exact"), r.evidence
    assert r.certificate_data["kind"] == "growth-riccati"
    assert check_certificate(r.certificate_data).status == "verified"
    assert claim_holds(r.certificate_data)


def test_the_search_says_why_when_the_closed_form_does_not_apply():
    from symgauss import Problem
    from symgauss.questions.regime.growth_riccati import find_growth_riccati
    A, V = [["1/2", 0], [0, "1/2"]], [[-1, 0], [0, -1]]
    cases = {"Σ0⁻¹": dict(B=[[0, 0], [0, 1]], cov0=[[1, 1], [1, 1]]),       # singular cov0
             "invertible": dict(B=[[1, 0], [0, 1]], cov0=[[1, 0], [0, 1]]),
             "A = αI": dict(A=[[1, 0], [0, "1/2"]], B=[[0, 0], [0, 1]], cov0=[[1, 0], [0, 1]])}
    for why, data in cases.items():
        res = find_growth_riccati(Problem(**{"A": A, "V": V, **data}))
        assert res.certificate is None and why in res.why, (why, res.why)
