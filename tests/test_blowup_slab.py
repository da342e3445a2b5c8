"""Kind ``blowup-slab`` (issue 13): a blow-up whose compactified flow is slow at infinity, proved
in a slab {0 < u ≤ u_max, ‖y − y_c(u)‖_P ≤ √ρ} around a polynomial slow manifold.

The checked-in certificates verify and hold the projective 30-digit T*; the slab's invariance is
re-examined at sampled boundary points with an independent numpy compactified field; every
claim and witness field is tampered; ``classify`` on the built-in example.
"""
from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from _mutation import reseal
from _oracle import claim_holds

from symgauss import load_problem
from symgauss.kernel.checker import check_certificate

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("blowup_slab_general", "blowup_slab_two_heads")


def _cert(name="blowup_slab_two_heads"):
    return json.loads((ROOT / "certificates" / f"{name}.json").read_text())


def _f(x):
    return float(Fraction(x))


@pytest.mark.parametrize("name", NAMES)
def test_the_checked_in_certificates_verify_and_hold_the_projective_time(name):
    from symgauss.questions.blowup.projective import projective_t_star
    c = _cert(name)
    v = check_certificate(c)
    assert (v.status, v.kind) == ("verified", "blowup-slab"), v.reason
    assert claim_holds(c)
    p = load_problem(ROOT / "symgauss" / "examples" / ("blowup_at_infinity.json" if name ==
                                                       "blowup_slab_general" else
                                                       "blowup_slab.json"))
    t, _ = projective_t_star(p, 30)
    lo, hi = (Fraction(c["claim"][k]) for k in ("t_lower", "t_upper"))
    assert lo < Fraction(str(t)) <= hi


@pytest.mark.parametrize("name", NAMES)
def test_the_slab_is_invariant_at_sampled_boundary_points(name):
    """An independent numpy field: on the face ‖e‖_P = √ρ (tr Y = 1) d/dτ ‖e‖²_P < 0, and on
    u = u_max u' < 0, at 2000 random points."""
    c = _cert(name)
    w, p = c["witness"], c["problem"]
    A = np.array([[_f(x) for x in r] for r in p["A"]])
    heads = ([(np.array([[_f(x) for x in r] for r in h["V"]]),
               np.array([[_f(x) for x in r] for r in h["B"]])) for h in p["heads"]]
             if "heads" in p else [(np.array([[_f(x) for x in r] for r in p["V"]]),
                                    np.array([[_f(x) for x in r] for r in p["B"]]))])
    d = len(A)
    iu = np.triu_indices(d)
    Ys = np.array([[_f(x) for x in r] for r in w["center"]])
    cs = [np.array([_f(x) for x in cj]) for cj in w["manifold"]]
    P = np.array([[_f(x) for x in r] for r in w["P"]])
    rho, u_max = _f(w["rho"]), _f(w["u_max"])

    def full(y):
        S = np.zeros((d, d))
        S[iu] = y
        return S + np.triu(S, 1).T

    def field(u, Y):
        Q = sum(V @ Y @ B @ Y + (V @ Y @ B @ Y).T for V, B in heads)
        L = A @ Y + Y @ A.T
        g = u * np.trace(L) + np.trace(Q)
        return -u * g, (u * L + Q - Y * g)[iu], g

    def curve(u):
        return Ys[iu] + sum(cj * u ** (j + 1) for j, cj in enumerate(cs))

    def speed(u):
        return sum(cj * (j + 1) * u ** j for j, cj in enumerate(cs))

    trace_free = np.array([1.0 if i == j else 0.0 for i, j in zip(*iu)])
    rng = np.random.default_rng(0)
    Li = np.linalg.inv(np.linalg.cholesky(P)).T
    for _ in range(2000):
        u = u_max * rng.uniform(1e-6, 1)
        e = Li @ rng.normal(size=len(iu[0]))
        e -= trace_free * (trace_free @ e) / (trace_free @ trace_free)   # tr e = 0
        e *= np.sqrt(rho) / np.sqrt(e @ P @ e)
        y = curve(u) + e
        du, dy, g = field(u, full(y))
        assert g > 0
        de = dy - du * speed(u)
        assert e @ P @ de < 0
        du_top, _, _ = field(u_max, full(curve(u_max) + e * rng.uniform(0, 1)))
        assert du_top < 0


@pytest.mark.parametrize("edit", ["t_lower", "t_upper", "center", "manifold", "manifold_trace",
                                  "P", "ell", "rho_big", "rho_small", "rate", "u_max", "u_pieces",
                                  "point", "degree"])
def test_a_tampered_slab_certificate_is_not_verified(edit):
    c = copy.deepcopy(_cert())
    w, cl = c["witness"], c["claim"]
    if edit == "t_lower":
        cl["t_lower"] = str(Fraction(cl["t_lower"]) + (Fraction(cl["t_upper"]) -
                                                        Fraction(cl["t_lower"])) / 2)
    elif edit == "t_upper":
        cl["t_upper"] = str(Fraction(cl["t_upper"]) - (Fraction(cl["t_upper"]) -
                                                        Fraction(cl["t_lower"])) / 2)
    elif edit == "center":
        w["center"][0][1] = w["center"][1][0] = str(Fraction(w["center"][0][1]) + Fraction(1, 50))
    elif edit == "manifold":
        w["manifold"][0][1] = str(Fraction(w["manifold"][0][1]) + 1)
    elif edit == "manifold_trace":      # tr c_1 ≠ 0
        w["manifold"][0][0] = str(Fraction(w["manifold"][0][0]) + Fraction(1, 10 ** 9))
    elif edit == "P":
        w["P"][0][0] = str(Fraction(w["P"][0][0]) / 1000)
    elif edit == "ell":
        w["ell"] = "1000"
    elif edit == "rho_big":
        w["rho"] = str(Fraction(w["rho"]) * 10 ** 6)
    elif edit == "rho_small":
        w["rho"] = str(Fraction(w["rho"]) / 10 ** 6)
    elif edit == "rate":
        w["rate"] = str(Fraction(w["rate"]) * 100)
    elif edit == "u_max":
        w["u_max"] = str(Fraction(w["u_max"]) / 10 ** 6)
    elif edit == "u_pieces":
        w["u_pieces"] = 1000
    elif edit == "point":
        st = w["compact_steps"][len(w["compact_steps"]) // 2]
        st["point"][2] = str(Fraction(st["point"][2]) * (1 + Fraction(1, 10 ** 6)))
    elif edit == "degree":
        w["manifold"] = w["manifold"] * 3
    v = check_certificate(reseal(c))
    assert v.status in ("not-proved", "invalid"), (edit, v)


def test_classify_the_slab_example_is_rigorous_and_holds():
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(ROOT / "symgauss" / "examples" / "blowup_slab.json"), digits=15)
    assert (r.kind, r.level) == ("blow-up", "rigorous"), r.evidence
    assert r.certificate_data["kind"] == "blowup-slab" and claim_holds(r.certificate_data)
