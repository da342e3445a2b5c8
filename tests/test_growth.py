"""Kind ``growth`` (issue 13): exponential growth without blow-up, d = 2, one head.

The checked-in certificate's region is re-examined with an independent numpy compactified field
(sampled points on its side and inside), its claim against LSODA (``_oracle.claim_holds``), every
witness and claim field tampered, and ``classify`` on the built-in example.
"""
from __future__ import annotations

import copy
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from _mutation import checked_in, reseal
from _oracle import claim_holds

from symgauss import load_problem
from symgauss.kernel.checker import check_certificate

ROOT = Path(__file__).resolve().parents[1]


def _cert():
    return checked_in("growth_general")


def _f(x):
    return float(Fraction(x))


def test_the_checked_in_certificate_verifies_and_its_claim_holds():
    c = _cert()
    v = check_certificate(c)
    assert v.status == "verified", v.reason
    assert claim_holds(c)


def test_the_region_holds_at_sampled_points_of_an_independent_field():
    c = _cert()
    w, p = c["witness"], c["problem"]
    A = np.array([[_f(x) for x in r] for r in p["A"]])
    V = np.array([[_f(x) for x in r] for r in p["V"]])
    B = np.array([[_f(x) for x in r] for r in p["B"]])
    m = (_f(w["m_lo"]) + _f(w["m_hi"])) / 2
    v = np.array([1.0, m]) if w["axis"] == 0 else np.array([m, 1.0])
    assert abs(v @ B @ v) < 1e-12
    Ys = np.outer(v, v) / (v @ v)
    P = np.array([[_f(x) for x in r] for r in w["P"]])
    cvec = np.array([_f(x) for x in w["center"]])
    kappa, u_max = _f(w["kappa"]), _f(w["u_max"])
    a, b = _f(c["claim"]["rate_lower"]), _f(c["claim"]["rate_upper"])

    def field(u, Y):      # the compactified field (u, Y), written again
        X = V @ Y @ B @ Y
        Q = X + X.T
        L = A @ Y + Y @ A.T
        g = u * np.trace(L) + np.trace(Q)
        return -u * g, u * L + Q - Y * g, g

    def coords(M):
        return np.array([(M[0, 0] - M[1, 1]) / 2, M[0, 1]])

    Li = np.linalg.inv(np.linalg.cholesky(P)).T
    rng = np.random.default_rng(0)
    for _ in range(3000):
        u = u_max * rng.uniform(1e-4, 1)
        th = rng.uniform(0, 2 * np.pi)
        e = Li @ np.array([np.cos(th), np.sin(th)])          # ‖e‖_P = 1: the side
        for rad, side in ((1.0, True), (rng.uniform(0, 1), False)):
            x = u * (cvec + kappa * rad * e)
            Y = Ys + np.array([[x[0], x[1]], [x[1], -x[0]]])
            du, dY, g = field(u, Y)
            assert a - 1e-9 <= g / u <= b + 1e-9                # d ln tr Σ/dt = g/u
            if side:      # d/dτ (‖x − uc‖²_P − κ²u²) < 0
                xi = x - u * cvec
                dphi = 2 * xi @ P @ (coords(dY) - du * cvec) - 2 * kappa ** 2 * u * du
                assert dphi < 0


@pytest.mark.parametrize("edit", ["rate_lower", "rate_upper", "m_shift", "axis", "center", "kappa",
                                  "u_max", "point", "arcs", "P"])
def test_a_tampered_growth_certificate_is_not_verified(edit):
    c = copy.deepcopy(_cert())
    w, cl = c["witness"], c["claim"]
    if edit == "rate_lower":
        cl["rate_lower"] = str(Fraction(cl["rate_lower"]) * 3)
    elif edit == "rate_upper":
        cl["rate_upper"] = str(Fraction(cl["rate_upper"]) / 3)
    elif edit == "m_shift":     # the bracket no longer holds the root
        d = Fraction(w["m_hi"]) - Fraction(w["m_lo"])
        w["m_lo"], w["m_hi"] = str(Fraction(w["m_hi"]) + d), str(Fraction(w["m_hi"]) + 2 * d)
    elif edit == "axis":
        w["axis"] = 1 - w["axis"]
    elif edit == "center":
        w["center"][0] = str(Fraction(w["center"][0]) + Fraction(1, 2))
    elif edit == "kappa":
        w["kappa"] = str(Fraction(w["kappa"]) / 100)
    elif edit == "u_max":
        w["u_max"] = str(Fraction(w["u_max"]) * 50)
    elif edit == "point":
        st = w["steps"][len(w["steps"]) // 2]
        st["point"][0] = str(Fraction(st["point"][0]) * (1 + Fraction(1, 10 ** 6)))
    elif edit == "arcs":
        w["arcs"] = 4
    elif edit == "P":
        w["P"] = [["1", "2"], ["2", "1"]]
    v = check_certificate(reseal(c))
    assert v.status in ("not-proved", "invalid"), (edit, v)


def test_growth_is_for_d_2_with_one_head():
    c = copy.deepcopy(_cert())
    p = c["problem"]
    p["heads"] = [{"V": p.pop("V"), "B": p.pop("B")}] * 2
    from symgauss.kernel.read import read_problem
    c["problem_hash"] = read_problem({k: v for k, v in p.items()}).hash
    v = check_certificate(reseal(c))
    assert v.status == "invalid" and "one head" in v.reason, v


def test_classify_the_growth_example_is_rigorous_and_holds():
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(ROOT / "symgauss" / "examples" / "growth.json"), digits=15)
    assert (r.kind, r.level) == ("growth", "rigorous"), r.evidence
    assert r.certificate_data is not None and claim_holds(r.certificate_data)


def test_a_slow_growth_needs_a_narrow_cusp_and_is_proved():
    """Seed-12 general-31-d2 grows at rate ≈ 0.07: on every region of the first pass (κ ≥ 1/20)
    ĝ's bounds straddle 0 (κ = 1/20: [−0.24, 0.39]), so the answer was float; the second pass
    (κ = 1/200, 1/2000) proves it. The claim is checked by the independent numerical oracle."""
    from symgauss.questions.regime.classify import classify
    from symgauss.questions.regime.ensemble import ensemble
    p = next(q for _, q in ensemble(48, seed=12) if q.name == "general-31-d2")
    r = classify(p, digits=15)
    assert (r.kind, r.level) == ("growth", "rigorous"), r.evidence
    assert check_certificate(r.certificate_data).status == "verified"
    assert Fraction(r.certificate_data["witness"]["kappa"]) <= Fraction(1, 200)
    assert claim_holds(r.certificate_data)


def test_a_degenerate_growth_is_not_certified_and_says_why():
    # e_1 spans ker B and ker Bᵀ: the equilibrium at infinity has DQ = 0 (not hyperbolic), and
    # A e_1 is not a multiple of e_1, so kind growth-axis does not apply either
    from symgauss import Problem
    from symgauss.questions.regime.classify import classify
    p = Problem(A=[["1", "0"], ["-1/8", "7/8"]], V=[["-1", "1/8"], ["-1/8", "-1"]],
                B=[["0", "0"], ["0", "9/8"]], cov0=[["11/8", "-7/8"], ["-7/8", "13/8"]])
    r = classify(p, digits=15)
    assert r.kind == "growth" and r.level == "float"
    assert any("null direction of B" in t and "degenerate" in t for t in r.tried), r.tried


def test_past_the_cell_limit_is_invalid_and_says_so():
    c = copy.deepcopy(_cert())
    c["witness"].update(arcs=4096, u_pieces=64)
    v = check_certificate(reseal(c))
    assert v.status == "invalid" and "over a limit" in v.reason, v


def test_a_weak_transversal_rate_is_certified_with_small_u_and_changes_of_metric():
    """Symmetric B, transversal rate ≈ 0.09 at infinity: the region needs u ≤ 10⁻⁴ with 16 u
    pieces, and the steps of eq. 1.1 reach it only by changing metric along the way."""
    from symgauss import Problem
    from symgauss.questions.regime.growth import find_growth
    p = Problem(A=[["0", "-3/8"], ["-3/8", "3/8"]], V=[["5/8", "0"], ["0", "0"]],
                B=[["-1/8", "-3/8"], ["-3/8", "-1/2"]], cov0=[["5/8", "1/16"], ["1/16", "7/8"]])
    res = find_growth(p)
    assert res.certificate is not None, res.why
    w = res.certificate["witness"]
    assert w["u_pieces"] == 16 and w.get("metrics")
    assert check_certificate(res.certificate).status == "verified"
    assert claim_holds(res.certificate)
    for edit in ("kappa", "ell"):       # a change of metric or the region tampered: refused
        c = copy.deepcopy(res.certificate)
        if edit == "kappa":
            c["witness"]["metrics"][0]["kappa"] = "1/2"
        else:
            c["witness"]["metrics"][-1]["ell"] = "2"
        assert check_certificate(reseal(c)).status in ("not-proved", "invalid"), edit


@pytest.mark.slow
def test_steps_past_1000_reach_the_region_and_a_hopeless_pace_stops_early():
    """Seed-71 symmetric-B-33-d2 enters the region after 1540 validated steps (1000 were allowed
    before: float answer); seed-13 symmetric-B-3-d2's steps reach only t ≈ 1.27 of the float entry
    near 2.45 in 1000, and stop there instead of spending the kernel's 2000."""
    from symgauss.questions.regime.ensemble import ensemble
    from symgauss.questions.regime.growth import find_growth

    def problem(seed, name):
        return dict((q.name, q) for _, q in ensemble(48, seed=seed))[name]
    res = find_growth(problem(71, "symmetric-B-33-d2"))
    assert res.certificate is not None, res.why
    assert len(res.certificate["witness"]["steps"]) > 1000
    assert check_certificate(res.certificate).status == "verified"
    assert claim_holds(res.certificate)
    res = find_growth(problem(13, "symmetric-B-3-d2"))
    assert res.certificate is None and "cannot reach the region" in res.why, res.why
