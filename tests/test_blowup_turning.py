"""Kind ``blowup-turning`` (issue 13): a d = 2 blow-up whose direction Σ/tr Σ turns for ever round
the circle of rank-one directions at infinity, proved on a region {W1 ≤ c1, W2 ≤ c2} with
W1 = ln(1/tr Σ) + ψ(φ), W2 = ln det(Σ/tr Σ) + χ(φ).

The checked-in certificate verifies and holds T* computed here by an independent integration;
the region's two rates are re-examined at sampled points by finite differences of W1 and W2
along eq. 1.1 itself (not the kernel's formulas for the rates); every claim and witness field is
tampered; ``classify`` on the built-in example.
"""
from __future__ import annotations

import copy
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from _mutation import padded_to_d3, reseal, roundtrip
from _oracle import claim_holds

from symgauss import load_problem
from symgauss.kernel.checker import check_certificate
from symgauss.kernel.kinds.blowup_turning import MAX_CELLS, MAX_HARMONICS
from symgauss.kernel.read import read_problem

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "symgauss" / "examples" / "blowup_turning.json"


def _cert():
    return json.loads((ROOT / "certificates" / "blowup_turning.json").read_text())


def _f(x):
    return float(Fraction(x))


def _params(p):
    A = np.array([[_f(x) for x in r] for r in p["A"]])
    heads = ([(np.array([[_f(x) for x in r] for r in h["V"]]),
               np.array([[_f(x) for x in r] for r in h["B"]])) for h in p["heads"]]
             if "heads" in p else [(np.array([[_f(x) for x in r] for r in p["V"]]),
                                    np.array([[_f(x) for x in r] for r in p["B"]]))])
    return A, heads


def _field(A, heads, S):
    M = A + sum(V @ S @ B for V, B in heads)
    return M @ S + S @ M.T


def _series(coef, phi):
    return sum(_f(coef[2 * k]) * math.cos((k + 1) * phi) + _f(coef[2 * k + 1]) *
               math.sin((k + 1) * phi) for k in range(len(coef) // 2))


def _t_star(A, heads, S0):
    """T* by LSODA on the compactified flow (u, Y, t) in τ (written here, in floats, any d): t →
    T* as u = 1/tr Σ → 0."""
    from scipy.integrate import solve_ivp

    d = S0.shape[0]

    def G(_tau, z):
        u, Y = z[0], z[1:1 + d * d].reshape(d, d)
        Q = sum(V @ Y @ B @ Y + (V @ Y @ B @ Y).T for V, B in heads)
        L = A @ Y + Y @ A.T
        g = u * np.trace(L) + np.trace(Q)
        return np.r_[-u * g, (u * L + Q - Y * g).ravel(), u]
    sol = solve_ivp(G, (0, 400), np.r_[1 / np.trace(S0), (S0 / np.trace(S0)).ravel(), 0.0],
                    method="LSODA", rtol=1e-12, atol=1e-16)
    assert sol.status == 0 and sol.y[0, -1] < 1e-14
    return sol.y[-1, -1]


def test_the_checked_in_certificate_verifies_and_holds_an_independent_t_star():
    c = _cert()
    v = check_certificate(c)
    assert (v.status, v.kind) == ("verified", "blowup-turning"), v.reason
    assert claim_holds(c)
    A, heads = _params(c["problem"])
    S0 = np.array([[_f(x) for x in r] for r in c["problem"]["cov0"]])
    t = _t_star(A, heads, S0)
    lo, hi = (_f(c["claim"][k]) for k in ("t_lower", "t_upper"))
    assert lo < t <= hi, (lo, t, hi)
    assert abs(t - 1.7170272602953567) < 1e-6      # the float reference, LSODA on svec Σ


def test_the_region_rates_are_negative_at_sampled_points_by_finite_differences():
    """At 3000 random points of the region (u ≤ e^{c1 − ψ}, det Y ≤ e^{c2 − χ}), W1 and W2 fall
    along eq. 1.1: central differences along F(Σ) of W(Σ) itself, times u = 1/tr Σ (dτ = dt/u)."""
    c = _cert()
    w = c["witness"]
    A, heads = _params(c["problem"])
    c1, c2 = (_f(x) for x in w["levels"])

    def angle(Y):
        return math.atan2(Y[0, 1], (Y[0, 0] - Y[1, 1]) / 2)

    def W(S):
        Y = S / np.trace(S)
        phi = angle(Y)
        return (-math.log(np.trace(S)) + _series(w["psi"], phi),
                math.log(np.linalg.det(Y)) + _series(w["chi"], phi))
    rng = np.random.default_rng(0)
    worst = [-math.inf, -math.inf]
    for _ in range(3000):
        phi = rng.uniform(0, 2 * math.pi)
        u = math.exp(c1 - _series(w["psi"], phi)) * rng.uniform(0.01, 1)
        D = math.exp(c2 - _series(w["chi"], phi)) * rng.uniform(0.01, 1)
        rho = math.sqrt(1 - 4 * D)
        a, b = rho * math.cos(phi) / 2, rho * math.sin(phi) / 2
        S = np.array([[0.5 + a, b], [b, 0.5 - a]]) / u
        F = _field(A, heads, S)
        eps = 1e-6 * np.linalg.norm(S) / np.linalg.norm(F)
        hi, lo = W(S + eps * F), W(S - eps * F)
        for i in range(2):
            worst[i] = max(worst[i], u * (hi[i] - lo[i]) / (2 * eps))
    assert worst[0] < -0.05 and worst[1] < -0.05, worst


def _tampered(edit):
    c = copy.deepcopy(_cert())
    w, cl = c["witness"], c["claim"]
    lo, hi = Fraction(cl["t_lower"]), Fraction(cl["t_upper"])
    if edit == "t_lower":
        cl["t_lower"] = str(lo + (hi - lo) / 2)
    elif edit == "t_upper":
        cl["t_upper"] = str(hi - (hi - lo) / 2)
    elif edit == "psi":
        w["psi"][0] = str(Fraction(w["psi"][0]) + Fraction(1, 2))
    elif edit == "chi":
        w["chi"][1] = str(Fraction(w["chi"][1]) - Fraction(1, 2))
    elif edit == "psi_odd":
        w["psi"] = w["psi"][:-1]
    elif edit == "chi_long":
        w["chi"] = w["chi"] + ["0"] * (2 * MAX_HARMONICS)
    elif edit == "psi_empty":
        w["psi"] = []
    elif edit == "levels_up_u":           # a region reaching further from infinity
        w["levels"][0] = str(Fraction(w["levels"][0]) + 3)
    elif edit == "levels_up_det":         # ... or further from the rank-one circle
        w["levels"][1] = str(Fraction(w["levels"][1]) + 3)
    elif edit == "levels_down":           # a region the steps' end is not in
        w["levels"][0] = str(Fraction(w["levels"][0]) - 10)
    elif edit == "levels_three":
        w["levels"] = w["levels"] + ["0"]
    elif edit == "cells_few":
        w["cells"] = 8
    elif edit == "cells_over":
        w["cells"] = MAX_CELLS + 1
    elif edit == "point":
        st = w["compact_steps"][len(w["compact_steps"]) // 2]
        st["point"][2] = str(Fraction(st["point"][2]) * (1 + Fraction(1, 10 ** 6)))
    elif edit == "last_point":
        st = w["compact_steps"][-1]
        st["point"][1] = str(Fraction(st["point"][1]) * 2)
    elif edit == "h":
        w["compact_steps"][0]["h"] = str(Fraction(w["compact_steps"][0]["h"]) * 4)
    elif edit == "steps_cut":
        w["compact_steps"] = w["compact_steps"][:10]
    elif edit == "extra_key":
        w["center"] = [["1", "0"], ["0", "0"]]
    elif edit == "missing_levels":
        del w["levels"]
    elif edit == "d3":
        padded_to_d3(c)
    elif edit == "level":
        c["level"] = "exact"
    return reseal(c)


@pytest.mark.parametrize("edit", ["t_lower", "t_upper", "psi", "chi", "psi_odd", "chi_long",
                                  "psi_empty", "levels_up_u", "levels_up_det", "levels_down",
                                  "levels_three", "cells_few", "cells_over", "point",
                                  "last_point", "h", "steps_cut", "extra_key", "missing_levels",
                                  "d3", "level"])
def test_a_tampered_turning_certificate_is_not_verified(edit):
    v = check_certificate(_tampered(edit))
    assert v.status in ("not-proved", "invalid"), (edit, v)
    assert "problem_hash" not in v.reason and "statement" not in v.reason, v.reason


def test_a_turning_certificate_for_d1_is_invalid():
    c = copy.deepcopy(_cert())
    p = c["problem"]
    for key in ("A", "V", "B", "cov0"):
        p[key] = [[p[key][0][0]]]
    for key in ("b", "mean0"):
        if key in p:
            p[key] = p[key][:1]
    c["problem_hash"] = read_problem(roundtrip(c)["problem"]).hash
    v = check_certificate(reseal(c))
    assert v.status == "invalid" and "d = 2" in v.reason, v


def test_classify_the_turning_example_is_rigorous_and_holds():
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(EXAMPLE), digits=15)
    assert (r.kind, r.level) == ("blow-up", "rigorous"), r.evidence
    assert r.certificate_data["kind"] == "blowup-turning" and claim_holds(r.certificate_data)
    assert "turns for ever" in r.method
