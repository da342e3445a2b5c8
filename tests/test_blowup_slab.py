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
from hypothesis import given, settings
from hypothesis import strategies as st

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


def test_the_stiff_certificate_verifies_and_holds_the_float_time():
    """Eq. 1.1's steps spend their budget before Σ is large (a rank-one collapse); the
    compactified steps go on from there. The projective run gives no T* here, so the reference is
    LSODA's (to about 1e-9; the claim is 0.03 wide and must hold it)."""
    from symgauss.questions.regime.reference import reference_regime
    c = _cert("blowup_slab_stiff")
    v = check_certificate(c)
    assert (v.status, v.kind) == ("verified", "blowup-slab"), v.reason
    assert claim_holds(c)
    t = reference_regime(load_problem(ROOT / "symgauss" / "examples" / "blowup_stiff.json"))
    lo, hi = (_f(c["claim"][k]) for k in ("t_lower", "t_upper"))
    assert t["kind"] == "blow-up" and lo < t["t_star"] <= hi and hi - lo < 0.05


@pytest.mark.parametrize("name", NAMES + ("blowup_slab_stiff",))
def test_g_on_each_u_piece_holds_sampled_points(name):
    """The kernel's ball of g on each u piece (plain evaluation ∩ the mean-value form along the
    slow manifold) holds g of an independent numpy field at 400 random points (u, y_c(u) + e),
    |e_k| ≤ √(ρ/ℓ), of the piece's box."""
    import flint

    from symgauss.kernel.flow import Flow
    from symgauss.kernel.kinds.blowup_slab import read_manifold, slab_region
    from symgauss.kernel.read import read_problem
    c = _cert(name)
    w, p = c["witness"], c["problem"]
    ep = read_problem(copy.deepcopy(p))
    d, q = ep.d, Fraction
    n = d * (d + 1) // 2
    exact = {k: flint.fmpq(q(w[k]).numerator, q(w[k]).denominator)
             for k in ("ell", "rho", "rate", "u_max")}
    P = flint.fmpq_mat(n, n, [flint.fmpq(q(x).numerator, q(x).denominator)
                              for r in w["P"] for x in r])
    iu = np.triu_indices(d)
    ys = [flint.fmpq(q(w["center"][i][j]).numerator, q(w["center"][i][j]).denominator)
          for i, j in zip(*iu)]
    with flint.ctx.workprec(w["prec"]):
        pieces = slab_region(Flow(ep.params), P, exact["ell"], exact["rho"], exact["rate"], ys,
                             read_manifold(w["manifold"], n), exact["u_max"], w["u_pieces"])
    A = np.array([[_f(x) for x in r] for r in p["A"]])
    heads = [(np.array([[_f(x) for x in r] for r in h["V"]]),
              np.array([[_f(x) for x in r] for r in h["B"]])) for h in p["heads"]] \
        if "heads" in p else [(np.array([[_f(x) for x in r] for r in p["V"]]),
                               np.array([[_f(x) for x in r] for r in p["B"]]))]
    cs = [np.array([_f(x) for x in cj]) for cj in w["manifold"]]
    y0 = np.array([_f(w["center"][i][j]) for i, j in zip(*iu)])
    width = np.sqrt(_f(w["rho"]) / _f(w["ell"]))
    rng = np.random.default_rng(1)
    assert len(pieces) == w["u_pieces"]
    for lo, hi, g_ball in pieces:
        g_lo, g_hi = float(g_ball.lower()), float(g_ball.upper())
        assert 0 < g_lo
        for _ in range(400):
            u = rng.uniform(float(lo), float(hi))
            y = y0 + sum(cj * u ** (j + 1) for j, cj in enumerate(cs)) + \
                width * rng.uniform(-1, 1, size=n)
            S = np.zeros((d, d))
            S[iu] = y
            Y = S + np.triu(S, 1).T
            g = u * np.trace(A @ Y + Y @ A.T) + sum(2 * np.trace(V @ Y @ B @ Y) for V, B in heads)
            assert g_lo - 1e-12 <= g <= g_hi + 1e-12, (float(lo), g, g_lo, g_hi)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 12), st.integers(0, 10 ** 6), st.integers(0, 10 ** 6), st.lists(
    st.integers(1, 1000), min_size=12, max_size=12))
def test_the_time_left_is_bounded_piece_by_piece(pieces, num, rad, gs):
    """∫_0^{u0} du/g with g = g_j exactly on piece j is Σ_j |U_j ∩ [0, u0]|/g_j; the kernel's
    lower and upper bounds, from the ends of a ball u, hold it for u0 at the ball's ends and
    midpoint (pieces of [0, 1/10]; u may fall on a piece's end or past u_max)."""
    import flint

    from symgauss.kernel.kinds.blowup_slab import _time_left
    u_max = Fraction(1, 10)
    cut = [u_max * j / pieces for j in range(pieces + 1)]
    g = [Fraction(x, 1000) for x in gs[:pieces]]
    mid, r = Fraction(num, 10 ** 7), Fraction(rad, 10 ** 9)
    u = flint.arb(flint.fmpq(mid.numerator, mid.denominator),
                  flint.fmpq(r.numerator, r.denominator))
    ball = [(flint.fmpq(a.numerator, a.denominator), flint.fmpq(b.numerator, b.denominator),
             flint.arb(flint.fmpq(x.numerator, x.denominator))) for a, b, x in
            zip(cut, cut[1:], g)]
    def end(x):     # an arb end point as an exact Fraction
        m, e = x.mid().man_exp()
        return Fraction(int(m)) * Fraction(2) ** int(e)
    low = end(_time_left(u.mid() - u.rad(), ball, True).lower())
    high = end(_time_left(u.mid() + u.rad(), ball, False).upper())

    def exact(u0):
        return sum((max(Fraction(0), min(u0, b) - a) / x for a, b, x in zip(cut, cut[1:], g)),
                   Fraction(0))
    for u0 in (mid - r, mid, mid + r):
        if u0 > 0:
            assert low <= exact(u0) <= high
    # and they are tight (arb stores a radius rounded up to 30 bits)
    assert high - low <= 2 * r / min(g) * (1 + Fraction(1, 10 ** 6)) + Fraction(1, 10 ** 9)


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


@pytest.mark.slow
def test_classify_the_slab_example_is_rigorous_and_holds():
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(ROOT / "symgauss" / "examples" / "blowup_slab.json"), digits=15)
    assert (r.kind, r.level) == ("blow-up", "rigorous"), r.evidence
    assert r.certificate_data["kind"] == "blowup-slab" and claim_holds(r.certificate_data)


@pytest.mark.slow
def test_classify_goes_on_to_infinity_where_the_steps_of_eq_1_1_run_out():
    """Seed-801 two-heads-32-d2: eq. 1.1's steps reach only t = 3.72 (tr Σ ≈ 170) on their
    share of the budget; the compactified steps from there enter a slab at infinity. Before,
    this was a blow-up at level float."""
    from symgauss.questions.regime.classify import classify
    from symgauss.questions.regime.reference import reference_regime
    p = load_problem(ROOT / "symgauss" / "examples" / "blowup_stiff.json")
    r = classify(p, digits=15)
    assert (r.kind, r.level) == ("blow-up", "rigorous"), r.evidence
    c = r.certificate_data
    assert c["kind"] == "blowup-slab" and check_certificate(c).status == "verified"
    lo, hi = (_f(c["claim"][k]) for k in ("t_lower", "t_upper"))
    assert lo < reference_regime(p)["t_star"] <= hi
