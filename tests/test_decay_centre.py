"""Kind ``decay-centre`` (issue 13, rigorous): d = 2, A a centre (eigenvalues ±iω), Σ(t) → 0 like
1/t because the quadratic part dissipates on average over the rotation, proved by
V = tr(PΣ) − χ(Σ) with PA + AᵀP = 0 and χ solving the homological equation.

The checked-in certificate verifies and a float run stays under its bound; the identity
V' = αw² + β det Σ − ∇χ·Q is re-derived here with SymPy from eq. 1.1 written in the test; the
kernel's slice bounds C, c_χ are compared with sampled Σ ⪰ 0; the inequality V' ≤ −κ₁w² is
re-examined at random Σ ⪰ 0 in the region; every claim and witness field is tampered; classify
on the example; the search declines what it cannot prove.
"""
from __future__ import annotations

import copy
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from _mutation import (
    assert_refused,
    checked_in,
    padded_to_d3,
    rehash,
    reseal,
    roundtrip,
    shrunk_to_d1,
)
from _oracle import claim_holds

from symgauss import load_problem
from symgauss.kernel.checker import check_certificate
from symgauss.kernel.read import read_problem

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "symgauss" / "examples" / "decay_centre.json"
X, Y, Z = sp.symbols("x y z")
MONOMIALS = (X * X, X * Y, X * Z, Y * Y, Y * Z, Z * Z)


def _cert():
    return checked_in("decay_centre")


def _m(rows):
    return sp.Matrix([[sp.Rational(str(v)) for v in r] for r in rows])


def _pieces(c):
    """(w, χ, V' as SymPy polynomials in x, y, z; the quadratic part Q of eq. 1.1's
    derivative of χ) from the certificate's problem and witness, eq. 1.1 written here."""
    p, wt = c["problem"], c["witness"]
    S = sp.Matrix([[X, Y], [Y, Z]])
    A, V, B, P = _m(p["A"]), _m(p["V"]), _m(p["B"]), _m(wt["P"])
    F = A * S + S * A.T + V * S * B * S + (V * S * B * S).T
    Q = V * S * B * S + (V * S * B * S).T
    w = (P * S).trace()
    chi = sum(sp.Rational(v) * m for v, m in zip(wt["chi"], MONOMIALS))

    def along(f, G):
        return sp.expand(sp.diff(f, X) * G[0, 0] + sp.diff(f, Y) * G[0, 1] + sp.diff(f, Z) * G[1, 1])
    return sp.expand(w), sp.expand(chi), along(w - chi, F), along(chi, Q)


def test_the_checked_in_certificate_verifies_and_a_float_run_stays_under_its_bound():
    c = _cert()
    v = check_certificate(c)
    assert (v.status, v.kind, v.level) == ("verified", "decay-centre", "rigorous"), v.reason
    assert claim_holds(c)
    from scipy.integrate import solve_ivp
    p = c["problem"]
    A, V, B = (np.array(_m(p[k]), dtype=float) for k in ("A", "V", "B"))

    def f(_t, y):
        S = y.reshape(2, 2)
        X_ = V @ S @ B @ S
        return (A @ S + S @ A.T + X_ + X_.T).ravel()
    ts = np.linspace(0, 4000, 4001)
    sol = solve_ivp(f, (0, 4000), np.array(_m(p["cov0"]), dtype=float).ravel(), method="LSODA",
                    rtol=1e-10, atol=1e-14, t_eval=ts)
    tr = np.array([np.trace(y.reshape(2, 2)) for y in sol.y.T])
    b, k, t0 = (float(Fraction(c["claim"][key])) for key in ("bound", "rate", "t_enter"))
    later = ts >= t0
    assert np.all(tr[later] <= b / (1 + k * (ts[later] - t0)))
    # algebraic, not exponential: t·tr Σ(t) stays between fixed bounds while tr Σ falls 2×
    assert 0.5 < (ts[-1] * tr[-1]) / (ts[2000] * tr[2000]) < 2 and tr[-1] < 0.6 * tr[2000]


def test_the_identity_and_the_average_re_derived_with_sympy():
    """V' has no linear part (PA + AᵀP = 0), its quadratic part is αw² + β det Σ, and its cubic
    part is −∇χ·Q; the average is dissipative on Σ ⪰ 0: κ = −max(α, α + β/(4 det P)) > 0."""
    c = _cert()
    w, _chi, dV, cubic = _pieces(c)
    alpha, beta = (sp.Rational(v) for v in c["witness"]["average"])
    poly = sp.Poly(dV, X, Y, Z)
    by_degree = {}
    for mon, coef in poly.terms():
        by_degree.setdefault(sum(mon), 0)
        by_degree[sum(mon)] += coef * X ** mon[0] * Y ** mon[1] * Z ** mon[2]
    assert set(by_degree) <= {2, 3}
    assert sp.expand(by_degree[2] - alpha * w ** 2 - beta * (X * Z - Y * Y)) == 0
    assert sp.expand(by_degree[3] + cubic) == 0
    P = _m(c["witness"]["P"])
    assert -max(alpha, alpha + beta / (4 * P.det())) > 0


def _slice_samples(P, n, rng):
    """n random Σ ⪰ 0 with tr(PΣ) = 1 (rank 1 and 2), as (x, y, z)."""
    out = []
    for _ in range(n):
        G = rng.normal(size=(2, rng.integers(1, 3)))
        S = G @ G.T
        S /= np.trace(P @ S)
        out.append((S[0, 0], S[0, 1], S[1, 1]))
    return np.array(out)


def test_the_kernels_slice_bounds_hold_and_are_close_at_sampled_points():
    import flint

    from symgauss.kernel.kinds.decay_centre import QUADRATIC, along, fields, slice_bounds
    c = _cert()
    p = read_problem(roundtrip(c)["problem"])
    P = flint.fmpq_mat([[flint.fmpq(str(v)) for v in r] for r in c["witness"]["P"]])
    chi_k = {m: flint.fmpq(str(v)) for m, v in zip(QUADRATIC, c["witness"]["chi"])}
    with flint.ctx.workprec(128):
        C, cx, _ = slice_bounds(P, chi_k, along(chi_k, fields(p.params)[1]),
                                c["witness"]["cells"])
    _w, chi, _dV, cubic = _pieces(c)
    fc, fx = sp.lambdify((X, Y, Z), cubic), sp.lambdify((X, Y, Z), chi)
    pts = _slice_samples(np.array(P.tolist(), dtype=float), 20000, np.random.default_rng(5))
    top_c = max(abs(fc(*s)) for s in pts)
    top_x = max(abs(fx(*s)) for s in pts)
    assert top_c <= float(C) and top_x <= float(cx)
    assert float(C) < 1.3 * top_c and float(cx) < 1.3 * top_x      # the cells are fine enough


def test_v_decreases_at_random_states_of_the_region():
    """V' ≤ −κ₁w², κ₁ = κ − C·W, at random Σ ⪰ 0 with w ≤ W (V' from SymPy on eq. 1.1)."""
    c = _cert()
    _w, _chi, dV, _cubic = _pieces(c)
    alpha, beta = (float(Fraction(v)) for v in c["witness"]["average"])
    P = np.array(_m(c["witness"]["P"]), dtype=float)
    kappa = -max(alpha, alpha + beta / (4 * np.linalg.det(P)))
    W = float(Fraction(c["witness"]["W"]))
    fd = sp.lambdify((X, Y, Z), dV)
    rng = np.random.default_rng(8)
    worst = -np.inf
    for s in _slice_samples(P, 5000, rng):
        r = W * rng.uniform(0.01, 1)
        worst = max(worst, fd(*(r * s)) / r ** 2)
    assert worst < -0.4 * kappa, (worst, kappa)


def _tampered(edit):
    c = copy.deepcopy(_cert())
    wt, cl = c["witness"], c["claim"]
    if edit == "P_scaled":           # PA + AᵀP = 0 still; χ and the average no longer fit
        wt["P"] = [[str(2 * Fraction(v)) for v in r] for r in wt["P"]]
    elif edit == "P_entry":
        wt["P"][0][1] = wt["P"][1][0] = str(Fraction(wt["P"][0][1]) + Fraction(1, 8))
    elif edit.startswith("chi_"):
        k = int(edit[4:])
        wt["chi"][k] = str(Fraction(wt["chi"][k]) + Fraction(1, 1000))
    elif edit == "alpha":
        wt["average"][0] = str(Fraction(wt["average"][0]) - Fraction(1, 1000))
    elif edit == "beta":
        wt["average"][1] = str(Fraction(wt["average"][1]) + Fraction(1, 1000))
    elif edit == "W_large":
        wt["W"] = str(Fraction(wt["W"]) * 10)
    elif edit == "W_small":          # the steps' end is no longer inside
        wt["W"] = str(Fraction(wt["W"]) / 10)
    elif edit == "cells_one":        # one cell: the bounds too loose for this W
        wt["cells"] = 1
    elif edit == "bound":
        cl["bound"] = str(Fraction(cl["bound"]) / 2)
    elif edit == "rate":
        cl["rate"] = str(Fraction(cl["rate"]) * 2)
    elif edit == "t_enter":
        cl["t_enter"] = str(Fraction(cl["t_enter"]) + 1)
    elif edit == "point":
        st = wt["steps"][len(wt["steps"]) // 2]
        st["point"][1] = str(Fraction(st["point"][1]) * (1 + Fraction(1, 10 ** 6)))
    elif edit == "steps_cut":        # ends early, outside the region
        wt["steps"] = wt["steps"][:40]
        cl["t_enter"] = str(sum(Fraction(s["h"]) for s in wt["steps"]))
    elif edit == "extra_key":
        wt["kappa"] = "1"
    elif edit == "missing_chi":
        del wt["chi"]
    elif edit == "d3":
        padded_to_d3(c)
    elif edit == "d1":
        shrunk_to_d1(c)
    elif edit == "not_centre":       # tr A ≠ 0: no P with PA + AᵀP = 0
        p = c["problem"]
        p["A"][0][0] = str(Fraction(p["A"][0][0]) + Fraction(1, 8))
        rehash(c)
    elif edit == "cov0":
        p = c["problem"]
        p["cov0"][0][0] = str(Fraction(p["cov0"][0][0]) + Fraction(1, 8))
        rehash(c)
    elif edit == "level":
        c["level"] = "exact"
    return reseal(c)


EDITS = ["P_scaled", "P_entry", *(f"chi_{k}" for k in range(6)), "alpha", "beta", "W_large",
         "W_small", "cells_one", "bound", "rate", "t_enter", "point", "steps_cut", "extra_key",
         "missing_chi", "d3", "d1", "not_centre", "cov0", "level"]


@pytest.mark.parametrize("edit", EDITS)
def test_a_tampered_decay_centre_certificate_is_not_verified(edit):
    assert_refused(_tampered(edit))


def test_classify_the_example_is_decay_rigorous_and_holds():
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(EXAMPLE))
    assert (r.kind, r.level) == ("decay", "rigorous"), (r.evidence, r.tried)
    assert r.certificate_data["kind"] == "decay-centre" and claim_holds(r.certificate_data)


@pytest.mark.slow
def test_the_ensembles_other_centre_is_certified():
    """Seed-561 symmetric-B-33-d2 (eigenvalues ±0.637i; 1 112 steps to t ≈ 183)."""
    from symgauss.questions.regime.decay_centre import find_decay_centre
    from symgauss.questions.regime.ensemble import ensemble
    problem = {p.name: p for _, p in ensemble(48, 561)}["symmetric-B-33-d2"]
    res = find_decay_centre(problem)
    assert res.certificate is not None, res.why
    assert check_certificate(res.certificate).status == "verified"
    assert claim_holds(res.certificate)


def test_the_search_declines_what_it_cannot_prove():
    """d = 3; a d = 2 A that is not a centre; a centre whose averaged quadratic part grows
    (V = I, B = I: tr Σ blows up)."""
    from symgauss import Problem
    from symgauss.questions.regime.decay_centre import find_decay_centre
    from symgauss.questions.regime.ensemble import ensemble
    d3 = {p.name: p for _, p in ensemble(48, 521)}["general-11-d3"]
    assert "d = 2" in find_decay_centre(d3).why
    assert "centre" in find_decay_centre(load_problem(ROOT / "symgauss" / "examples" /
                                                       "bounded_turning.json")).why
    grows = Problem(cov0=[[1, 0], [0, 1]], A=[[0, 1], [-1, 0]], V=[[1, 0], [0, 1]],
                    B=[[1, 0], [0, 1]])
    res = find_decay_centre(grows)
    assert res.certificate is None and "not dissipative" in res.why, res.why
