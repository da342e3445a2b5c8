"""Kind ``growth-quasi`` (issue 13, rigorous): d = 2, any number of heads, row and column j of
every B_h zero (e_j a double null direction of the quadratic term), Σ_jj grows exponentially
while Σ_jk grows like √Σ_jj, proved in the coordinates v = Σ_jj^(−1/2), p = Σ_jk·v, w = Σ_kk
with the time dτ = dt/v.

The checked-in certificate verifies and its claim holds against LSODA; the kernel's field and
Jacobian in (v, p, w) are re-derived here with SymPy from eq. 1.1 written in the test (two heads,
every entry a symbol); the exact defect polynomial H(v) is compared with direct evaluation; two
heads and the other axis are certified; every claim and witness field is tampered; the search
declines what it cannot prove.
"""
from __future__ import annotations

import copy
from fractions import Fraction
from pathlib import Path

import flint
import pytest
import sympy as sp
from _mutation import assert_refused, checked_in, padded_to_d3, rehash, reseal, shrunk_to_d1
from _oracle import claim_holds

from symgauss import Problem, load_problem
from symgauss.kernel.checker import check_certificate
from symgauss.kernel.kinds.growth_quasi import manifold_defect, quasi_field, quasi_jacobian

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "symgauss" / "examples" / "growth_quasi.json"


def _cert():
    return checked_in("growth_quasi")


def test_the_checked_in_certificate_verifies_and_its_claim_holds():
    c = _cert()
    v = check_certificate(c)
    assert (v.status, v.kind, v.level) == ("verified", "growth-quasi", "rigorous"), v.reason
    assert claim_holds(c)


def test_the_field_in_v_p_w_re_derived_with_sympy_from_eq_1_1():
    """Σ = [[v⁻², p/v], [p/v, w]], two heads with B_h = b_h·e₂e₂ᵀ and V_h, A all symbols:
    g = x'/x, dv/dτ = v·v', dp/dτ = v·p', dw/dτ = v·w' (dτ = dt/v) equal the kernel's
    polynomials with W = Σ_h b_h V_h; the Jacobian equals their derivatives."""
    v, p, w = sp.symbols("v p w", positive=True)
    A = sp.Matrix(2, 2, sp.symbols("a0:4"))
    heads = [(sp.Matrix(2, 2, sp.symbols(f"V{h}_0:4")), sp.Symbol(f"b{h}")) for h in range(2)]
    S = sp.Matrix([[1 / v ** 2, p / v], [p / v, w]])
    E = sp.Matrix([[0, 0], [0, 1]])
    F = A * S + S * A.T
    for V, b in heads:
        X = V * S * (b * E) * S
        F += X + X.T
    x, z = S[0, 0], S[0, 1]
    g = sp.simplify(F[0, 0] / x)
    dv = v * sp.diff(x ** sp.Rational(-1, 2), v) / sp.diff(x, v) * F[0, 0]   # v·(d v/dx)·x'
    dp = v * (F[0, 1] / sp.sqrt(x) - z * F[0, 0] / (2 * x ** sp.Rational(3, 2)))
    dw = v * F[1, 1]
    W = sum((b * V for V, b in heads), sp.zeros(2, 2))
    a = [[A[0, 0], A[0, 1]], [A[1, 0], A[1, 1]]]
    Wl = [[W[0, 0], W[0, 1]], [W[1, 0], W[1, 1]]]
    kg, kdv, kdp, kdw = quasi_field(a, Wl, v, p, w)
    for mine, theirs in ((kg, g), (kdv, dv), (kdp, dp), (kdw, dw)):
        assert sp.simplify(sp.expand(mine - theirs)) == 0
    jac = quasi_jacobian(a, Wl, v, p, w)
    for pair, f in zip(jac, (kg, kdv, kdp, kdw)):
        for d, var in zip(pair, (p, w)):
            assert sp.expand(d - sp.diff(f, var)) == 0


def test_the_exact_defect_polynomial_is_the_field_along_the_manifold():
    """H(v) of manifold_defect at rational v equals F(v, c(v)) − c'(v)·dv/dτ computed directly
    in exact arithmetic, for the example's witness."""
    from symgauss.kernel.kinds.growth_quasi import structure
    from symgauss.kernel.read import read_problem
    c = _cert()
    ep = read_problem(c["problem"])
    aq, Wq = structure(ep.params, 0)
    cq = [[flint.fmpq(*Fraction(x).as_integer_ratio()) for x in row]
          for row in c["witness"]["manifold"]]
    H = manifold_defect(aq, Wq, cq)
    for vv in (flint.fmpq(0), flint.fmpq(1, 37), flint.fmpq(3, 20), flint.fmpq(-2, 7)):
        cv = [cq[0][i] + cq[1][i] * vv + cq[2][i] * vv * vv for i in range(2)]
        dc = [cq[1][i] + 2 * cq[2][i] * vv for i in range(2)]
        _, dv, dp, dw = quasi_field(aq, Wq, vv, *cv)
        direct = [dp - dc[0] * dv, dw - dc[1] * dv]
        for coeffs, want in zip(H, direct):
            got = sum((co * vv ** k for k, co in enumerate(coeffs)), flint.fmpq(0))
            assert got == want


def _two_heads():
    """The example with V split over two heads (b₁ = b₂ = 1/2): the same W, so the same Σ(t)."""
    p = load_problem(EXAMPLE)
    B = [["0", "0"], ["0", "1/2"]]
    return Problem(cov0=p.to_dict()["cov0"], A=p.to_dict()["A"],
                   heads=[{"V": [["-1", "0"], ["-1/2", "-1"]], "B": B},
                          {"V": [["-5/4", "-1/4"], ["0", "-1"]], "B": B}])


def _swapped():
    """The example with the two coordinates swapped: the double null direction is e₂."""
    d = load_problem(EXAMPLE).to_dict()

    def sw(M):
        return [[M[1][1], M[1][0]], [M[0][1], M[0][0]]]
    return Problem(cov0=sw(d["cov0"]), A=sw(d["A"]), V=sw(d["V"]), B=sw(d["B"]))


@pytest.mark.parametrize("make, axis", [(_two_heads, 0), (_swapped, 1)])
def test_two_heads_and_the_other_axis_are_certified(make, axis):
    from symgauss.questions.regime.growth_quasi import axes, find_growth_quasi
    problem = make()
    assert axes(problem) == [axis]
    res = find_growth_quasi(problem, axis)
    assert res.certificate is not None, res.why
    assert check_certificate(res.certificate).status == "verified"
    assert res.certificate["claim"]["axis"] == axis and claim_holds(res.certificate)


def _tampered(edit):
    c = copy.deepcopy(_cert())
    cl, wt = c["claim"], c["witness"]
    if edit.startswith("manifold_"):
        r, i = int(edit[9]), int(edit[10])    # a change the region's width cannot absorb
        shift = (Fraction(1, 10), Fraction(1), Fraction(100))[r]
        wt["manifold"][r][i] = str(Fraction(wt["manifold"][r][i]) + shift)
    elif edit == "P_scaled_entry":
        wt["P"][0][1] = wt["P"][1][0] = "9/10"
    elif edit == "P_not_pd":
        wt["P"] = [["1", "2"], ["2", "1"]]
    elif edit == "rho_large":
        wt["rho"] = str(Fraction(wt["rho"]) * 400)
    elif edit == "rho_small":         # the steps' end is no longer inside
        wt["rho"] = str(Fraction(wt["rho"]) / 10 ** 8)
    elif edit == "rate":
        wt["rate"] = str(Fraction(wt["rate"]) * 3)
    elif edit == "v_max_large":
        wt["v_max"] = "1"
    elif edit == "v_max_small":
        wt["v_max"] = str(Fraction(wt["v_max"]) / 100)
    elif edit == "v_pieces_zero":
        wt["v_pieces"] = 0
    elif edit == "rate_lower":
        cl["rate_lower"] = str(Fraction(cl["rate_lower"]) * 2)
    elif edit == "rate_upper":
        cl["rate_upper"] = str(Fraction(cl["rate_upper"]) / 2)
    elif edit == "t_enter":
        cl["t_enter"] = str(Fraction(cl["t_enter"]) + 1)
    elif edit == "axis":
        cl["axis"] = 1
    elif edit == "point":             # the last point's Σ_12 off by 10 %: outside the region
        st = wt["steps"][-1]
        st["point"][1] = str(Fraction(st["point"][1]) * (1 + Fraction(1, 10)))
    elif edit == "steps_cut":         # ends early, outside the region
        wt["steps"] = wt["steps"][:10]
        wt.pop("metrics", None)
        cl["t_enter"] = str(sum(Fraction(s["h"]) for s in wt["steps"]))
    elif edit == "extra_key":
        wt["kappa"] = "1"
    elif edit == "missing_manifold":
        del wt["manifold"]
    elif edit == "B_row":             # e₁ no longer a double null direction
        c["problem"]["B"][0][1] = "1/8"
        rehash(c)
    elif edit == "A_coupling":        # the fast point moves: w* = −a₁₀/W₁₀ changes
        c["problem"]["A"][1][0] = "1/4"
        rehash(c)
    elif edit == "cov0":
        c["problem"]["cov0"][0][0] = str(Fraction(c["problem"]["cov0"][0][0]) + Fraction(1, 8))
        rehash(c)
    elif edit == "d3":
        padded_to_d3(c)
    elif edit == "d1":
        shrunk_to_d1(c)
    elif edit == "level":
        c["level"] = "exact"
    return reseal(c)


EDITS = [*(f"manifold_{r}{i}" for r in range(3) for i in range(2)), "P_scaled_entry", "P_not_pd",
         "rho_large", "rho_small", "rate", "v_max_large", "v_max_small", "v_pieces_zero",
         "rate_lower", "rate_upper", "t_enter", "axis", "point", "steps_cut", "extra_key",
         "missing_manifold", "B_row", "A_coupling", "cov0", "d3", "d1", "level"]


@pytest.mark.parametrize("edit", EDITS)
def test_a_tampered_growth_quasi_certificate_is_not_verified(edit):
    assert_refused(_tampered(edit))


@pytest.mark.parametrize("r, i", [(r, i) for r in range(3) for i in range(2)])
def test_a_moved_manifold_fails_the_region_check_itself(r, i):
    """The tampered manifolds above are refused at the entry, which is checked first; the
    region's own check refuses them too (on a piece: ‖H‖_P, the contraction or g)."""
    from symgauss.kernel.kinds.growth_quasi import check_region
    from symgauss.kernel.read import read_problem
    from symgauss.kernel.verdict import NotProved
    c = _cert()
    wt = c["witness"]

    def q(x):
        return flint.fmpq(*Fraction(x).as_integer_ratio())
    M = [[q(x) for x in row] for row in wt["manifold"]]
    M[r][i] += q((Fraction(1, 10), Fraction(1), Fraction(100))[r])
    witness = {"manifold": flint.fmpq_mat(M), "P": flint.fmpq_mat([[q(x) for x in row]
                                                                   for row in wt["P"]]),
               "rho": q(wt["rho"]), "rate": q(wt["rate"]), "v_max": q(wt["v_max"]),
               "v_pieces": wt["v_pieces"]}
    with flint.ctx.workprec(128), pytest.raises(NotProved):
        check_region(read_problem(c["problem"]).params, 0, witness)


def test_classify_the_example_is_growth_rigorous_and_holds():
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(EXAMPLE))
    assert (r.kind, r.level) == ("growth", "rigorous"), (r.evidence, r.tried)
    assert r.certificate_data["kind"] == "growth-quasi" and claim_holds(r.certificate_data)


def test_the_search_declines_what_it_cannot_prove():
    """No double null axis (B full); W₁₀ = 0 (no fast point at infinity); w* > 0 but the growth
    rate at infinity 2(a₀₀ + W₀₀w*) negative."""
    from symgauss.questions.regime.growth_quasi import axes, find_growth_quasi
    full = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 1]], V=[[-1, 0], [0, -1]],
                   B=[[1, 0], [0, 1]])
    assert axes(full) == []
    d = load_problem(EXAMPLE).to_dict()
    no_fast = Problem(cov0=d["cov0"], A=d["A"], V=[["-9/8", "-1/8"], ["0", "-1"]], B=d["B"])
    res = find_growth_quasi(no_fast, 0)
    assert res.certificate is None and "no fast point" in res.why, res.why
    shrinks = Problem(cov0=d["cov0"], A=[["1/8", "0"], ["1/8", "7/8"]], V=d["V"], B=d["B"])
    res = find_growth_quasi(shrinks, 0)         # a₀₀ + W₀₀w* = 1/8 − 9/16 < 0
    assert res.certificate is None and "not positive" in res.why, res.why
