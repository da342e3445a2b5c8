"""Blow-up decision: closed forms, 50-digit T*, certified enclosures, comparison bounds.

Checks are mathematical: the Newton root of det(P0 − G) against independent closed forms at
60 digits, certified enclosures containing the closed-form value, the moment ODE itself
(hpsolve) approaching T*, and exact orthogonal rotations of decoupled problems.
"""
from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from symgauss import Problem, load_problem
from symgauss.integrate.high_precision import solve_moments
from symgauss.kernel.errors import ProblemError, UnsupportedError
from symgauss.questions.blowup.closed_form import closed_form
from symgauss.questions.blowup.decide import decide_blowup
from symgauss.questions.blowup.enclosure import certify_root, first_root, riccati_data

EX = Path(__file__).resolve().parents[1] / "symgauss" / "examples"
Q = sp.Matrix([[sp.Rational(3, 5), sp.Rational(-4, 5)], [sp.Rational(4, 5), sp.Rational(3, 5)]])


def rot(M):
    """Q M Qᵀ with an exact rational rotation Q."""
    return (Q * sp.Matrix(M) * Q.T).as_immutable()


def close(expr, text: str, digits: int) -> bool:
    with mpmath.workdps(digits + 20):
        a, b = mpmath.mpf(str(sp.N(expr, digits + 15))), mpmath.mpf(text)
        return abs(a - b) <= abs(a) * mpmath.mpf(10) ** (1 - digits)


def inside(expr, enclosure) -> bool:
    lo, hi = (sp.Rational(Fraction(x).numerator, Fraction(x).denominator) for x in enclosure)
    v = sp.N(expr, 80)
    return bool(lo < v) and bool(v < hi)


# --- acceptance examples ---------------------------------------------------------------------------
def test_scalar_half():
    r = decide_blowup(load_problem(EX / "scalar_blowup.json"), digits=50)
    assert r.blows_up is True and r.regime == "blow-up" and r.closed_form == sp.Rational(1, 2)
    assert close(sp.Rational(1, 2), r.t_star, 50)
    assert r.certified and inside(sp.Rational(1, 2), r.enclosure)
    assert Fraction(r.enclosure[1]) - Fraction(r.enclosure[0]) <= Fraction(1, 10 ** 30)
    # the integration cross-check agrees (at least 10 digits) with T* and with the residue C
    assert all(n >= 7 for _, n in r.agreement), r.agreement


def test_diag_quarter():
    r = decide_blowup(load_problem(EX / "blowup_diag.json"), digits=30)
    assert r.closed_form == sp.Rational(1, 4) and close(sp.Rational(1, 4), r.t_star, 30)
    assert r.certified and inside(sp.Rational(1, 4), r.enclosure)
    assert r.level == "exact"


def test_threshold_decays_and_integration_agrees():
    p = load_problem(EX / "threshold.json")
    r = decide_blowup(p, digits=20)
    assert r.blows_up is False and r.regime == "decay" and r.limit_rank == 0
    sol = solve_moments(p, 8, digits=15)   # σ' = −2σ + 2σ², 1/σ = 1 + e^{2t}: Σ → 0
    s = float(sol.cov[0][0].mid())
    assert abs(s - 1 / (1 + float(mpmath.e ** 16))) < 1e-20 and s < 1e-6


def test_threshold_rotated_is_detected_as_decoupled_and_by_riccati():
    A, B, S = rot([[-1, 0], [0, -2]]), rot([[1, 0], [0, 2]]), rot([[sp.Rational(1, 2), 0],
                                                                 [0, sp.Rational(1, 4)]])
    p = Problem(cov0=S, A=A, V=[[1, 0], [0, 1]], B=B)
    cf = closed_form(p)
    assert cf is not None and cf.family == "decoupled" and cf.regime == "decay"
    # the Riccati path alone (Lyapunov limit G∞) reaches the same verdict
    from symgauss.questions.blowup.decide import _riccati_decision
    r = _riccati_decision(p, riccati_data(p), 20, False, False)
    assert r.regime == "decay" and r.level == "exact"


def test_above_threshold_blows_up_at_closed_form():
    # scalar modes a = −1, c = 1, σ0 = 2: T = ln(1 − 1/2)/(−2) = ln 2 / 2
    p = Problem(cov0=[[2, 0], [0, 2]], A=[[-1, 0], [0, -1]], V=[[1, 0], [0, 1]],
                B=[[1, 0], [0, 1]])
    r = decide_blowup(p, digits=50, certify=True, crosscheck=False)
    assert sp.simplify(r.closed_form - sp.log(2) / 2) == 0
    assert close(sp.log(2) / 2, r.t_star, 50) and inside(sp.log(2) / 2, r.enclosure)


# --- 50 digits against closed forms (Newton root computed without the closed form) -----------------
CASES = [
    Problem(cov0=[[2, 1], [1, 2]], A=[["1/2", 0], [0, "1/2"]], V=[[1, 0], [0, 1]],
            B=[[1, 1], [0, 1]]),                                  # V = I, A = αI, B non-normal
    Problem(cov0=[[2, 1], [1, 2]], A=[[1, 1], [1, 1]], V=[[1, 0], [0, 1]],
            B=[[3, 1], [1, 3]]),                                  # decoupled, non-diagonal
    Problem(cov0=[[1, 1, 0], [1, 1, 0], [0, 0, 0]], A=[[0, 0, 0], [0, 0, 0], [0, 0, 0]],
            V=[[2, 0, 0], [0, 2, 0], [0, 0, 2]], B=[[1, 2, 0], [0, 1, 0], [0, 0, 5]]),  # rank 1
    Problem(cov0=rot([[1, 0], [0, 3]]), A=rot([[-1, 0], [0, 2]]), V=[[1, 0], [0, 1]],
            B=rot([[2, 0], [0, -1]])),                            # rotated, mixed signs
]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_fifty_digits_and_enclosure_contain_closed_form(k):
    p = CASES[k]
    cf = closed_form(p)
    assert cf is not None and cf.regime == "blow-up"
    data = riccati_data(p)
    root = first_root(data, digits=50)            # float location + Newton: no closed form used
    with mpmath.workdps(70):
        exact = mpmath.mpf(str(sp.N(cf.t_star, 60)))
        assert abs(root.t_star - exact) <= exact * mpmath.mpf(10) ** -50
    enc = certify_root(data, root, digits=50)
    assert enc is not None and enc.upper - enc.lower <= Fraction(1, 10 ** 50)
    assert inside(cf.t_star, (enc.lower, enc.upper))


def test_general_A_riccati_agrees_with_moment_ode():
    p = Problem(cov0=[[2, 1], [1, 2]], A=[[1, 2], [-1, 1]], V=[[1, 0], [0, 1]],
                B=[[3, 1], [-2, -1]])                             # R indefinite, A not normal
    assert closed_form(p) is None
    r = decide_blowup(p, digits=30)
    assert r.regime == "blow-up" and r.level == "rigorous" and r.certified
    assert dict(r.agreement)[next(m for m, _ in r.agreement if m.startswith("moment ODE"))] >= 9
    # the moment ODE at 0.9 T*: Σ finite; beyond T*: hpsolve reports blow-up
    t = Fraction(r.t_star[:20])
    solve_moments(p, t * Fraction(9, 10), digits=10)
    from symgauss.kernel.errors import BlowUpError
    with pytest.raises(BlowUpError):
        solve_moments(p, t * Fraction(11, 10), digits=10)


def test_rank_deficient_general_A_root_matches_square_root_form():
    # rank-1 Σ0 = y yᵀ: Σ = Y Yᵀ with Y' = AY + ½ Y (YᵀRY): a scalar Riccati along y's orbit
    p = Problem(cov0=[[1, 1], [1, 1]], A=[[0, 1], [-1, 0]], V=[[1, 0], [0, 1]],
                B=[[1, 0], [0, 1]])                               # A skew: |Y| obeys u' = u³
    # rotation keeps R = 2I invariant: u = |Y|², u' = 2u², u0 = 2: T* = 1/4
    r = decide_blowup(p, digits=40, crosscheck=False)
    assert close(sp.Rational(1, 4), r.t_star, 40) and inside(sp.Rational(1, 4), r.enclosure)


# --- general V ---------------------------------------------------------------------------------
def test_general_V_bracket_contains_closed_form():
    p = Problem(cov0=[[1, 0], [0, 1]], A=[[0, 0], [0, 0]], V=[[1, 0], [0, 2]],
                B=[[1, 0], [0, 1]])                               # modes: T = 1/2, 1/4
    from symgauss.questions.blowup.decide import _general_decision
    r = _general_decision(p, 12, False, False)
    lo, hi = (Fraction(x) for x in r.bracket)
    assert r.regime == "blow-up" and r.level == "rigorous" and lo <= Fraction(1, 4) <= hi
    assert r.t_star is not None and abs(float(r.t_star) - 0.25) < 1e-6


def test_general_V_opposite_signs_no_blowup():
    r = decide_blowup(load_problem(EX / "general3.json"), digits=10, certify=False)
    assert r.blows_up is False and r.level == "exact"


# --- cheap path, bad input, CLI -----------------------------------------------------------------
def test_cheap_scalar_path_is_exact_and_fast():
    t0 = time.perf_counter()
    for k in range(1, 201):
        r = decide_blowup(Problem(cov0=[[k]], A=[["-1/3"]], V=[[1]], B=[[1]]), digits=8,
                          certify=False)
        if r.blows_up:
            assert close(sp.log(1 - sp.Rational(1, 3) / k) / sp.Rational(-2, 3), r.t_star, 8)
        else:
            assert Fraction(k) * 1 <= Fraction(1, 3)
    assert time.perf_counter() - t0 < 10


def test_bad_input():
    p = load_problem(EX / "scalar_blowup.json")
    for bad in (0, -1, 2001, 3.5, "30", True):
        with pytest.raises(ProblemError):
            decide_blowup(p, digits=bad)
    with pytest.raises(UnsupportedError):
        decide_blowup(Problem(cov0=[[1]], controls=[{"duration": 1, "V": [[1]], "B": [[1]]}]))
    with pytest.raises(UnsupportedError):
        decide_blowup(Problem(cov0=[[1]], V=[[sp.Symbol("v")]], B=[[1]]))


def test_cli_json(capsys):
    from symgauss.cli.main import main
    assert main(["blowup", str(EX / "scalar_blowup.json"), "--json", "--digits", "50"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["blows_up"] is True and out["certified"] is True and out["level"] == "exact"
    assert close(sp.Rational(1, 2), out["t_star"], 50)
    lo, hi = (Fraction(x) for x in out["enclosure"])
    assert lo < Fraction(1, 2) < hi
    assert main(["blowup", str(EX / "threshold.json"), "--no-certify"]) == 0
    assert "NO BLOW-UP" in capsys.readouterr().out
    assert main(["blowup", str(EX / "scalar_blowup.json"), "--digits", "0"]) == 2


# --- general V: the projective (desingularised) system ----------------------------------------
@pytest.mark.parametrize("p", [
    Problem(cov0=[[1, 0], [0, 3]], A=[["1/2", 0], [0, -1]], V=[[1, 0], [0, 2]],
            B=[[2, 0], [0, 1]]),                                   # diagonal, general V
    Problem(cov0=rot([[1, 0], [0, 0]]), A=rot([[1, 0], [0, 2]]), V=rot([[3, 0], [0, 1]]),
            B=rot([[1, 0], [0, 5]])),                              # rotated, rank 1
])
def test_projective_fifty_digits_against_closed_form(p):
    from symgauss.questions.blowup.projective import projective_t_star
    cf = closed_form(p)
    assert cf is not None and cf.regime == "blow-up" and riccati_data(p) is None
    t, _ = projective_t_star(p, digits=50)
    with mpmath.workdps(70):
        exact = mpmath.mpf(str(sp.N(cf.t_star, 60)))
        assert abs(t - exact) <= exact * mpmath.mpf(10) ** -50


def test_general_V_reports_two_agreeing_methods():
    from symgauss.questions.blowup.decide import _general_decision
    p = Problem(cov0=[[1, 1], [1, 1]], V=[[2, 1], [1, 2]], B=[[1, 0], [0, 3]],
                A=[[0, 1], [-1, 0]])
    r = _general_decision(p, 20, False, False)
    lo, hi = (Fraction(x) for x in r.bracket)
    assert r.blows_up and lo < Fraction(r.t_star) < hi
    assert r.agreement and r.agreement[0][1] >= 19
