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
    from symgauss.questions.blowup.general import general_decision as _general_decision
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
    from symgauss.questions.blowup.general import general_decision as _general_decision
    p = Problem(cov0=[[1, 1], [1, 1]], V=[[2, 1], [1, 2]], B=[[1, 0], [0, 3]],
                A=[[0, 1], [-1, 0]])
    r = _general_decision(p, 20, False, False)
    lo, hi = (Fraction(x) for x in r.bracket)
    assert r.blows_up and lo < Fraction(r.t_star) < hi
    assert r.agreement and r.agreement[0][1] >= 19


# --- no quadratic term: the exact zero test makes the global-existence branch reachable -------
def test_zero_matrix_norm_bound_is_zero_and_bounds_are_upper_bounds():
    import numpy as np

    from symgauss.questions.blowup.general import _norm_upper
    assert _norm_upper(sp.zeros(3, 3)) == 0
    rng = np.random.default_rng(5)
    for _ in range(5):
        M = sp.Matrix(3, 3, [sp.Rational(int(x), 7) for x in rng.integers(-9, 10, 9)])
        bound = _norm_upper(M)
        true = np.linalg.norm(np.array(M.tolist(), dtype=float), 2)
        assert true <= float(bound) <= true * (1 + 1e-6) + 1e-9


def test_heads_without_quadratic_term_exist_for_all_time():
    # general V (not a multiple of I), B = 0: Σ' = AΣ + ΣAᵀ; A Hurwitz (eigenvalues -1/2 ± i√7/2)
    p = Problem(cov0=[[2, 1], [1, 1]], A=[[0, 1], [-2, -1]], V=[[1, 2], [3, 4]],
                B=[[0, 0], [0, 0]])
    assert riccati_data(p) is None and closed_form(p) is None
    r = decide_blowup(p, digits=10)
    assert r.regime == "decay" and r.blows_up is False and r.level == "exact"
    assert r.method == "no quadratic term" and r.limit_rank == 0
    sol = solve_moments(p, 30, digits=10)      # Σ(30) = e^{30A}Σ0e^{30Aᵀ} is tiny
    assert max(abs(float(x.mid())) for row in sol.cov for x in row) < 1e-10
    # two heads, one with B = 0 and one with V = 0; A a rotation (not Hurwitz): Σ stays bounded
    q = Problem(cov0=[[2, 1], [1, 1]], A=[[0, 1], [-1, 0]],
                heads=[{"V": [[1, 2], [3, 4]], "B": [[0, 0], [0, 0]]},
                       {"V": [[0, 0], [0, 0]], "B": [[1, 2], [0, 1]]}])
    r = decide_blowup(q, digits=10)
    assert r.regime == "global" and r.blows_up is False and r.level == "exact"
    # a head with a non-zero product VΣBΣ does not take this branch
    s = Problem(cov0=[[2, 1], [1, 1]], A=[[0, 1], [-1, 0]], V=[[1, 2], [3, 4]],
                B=[[0, 0], [0, "1/1000"]])
    assert decide_blowup(s, digits=10, certify=False).method != "no quadratic term"


# --- general V: a value of T* only from two agreeing projective runs ---------------------------
NON_SYMMETRIC = Problem(cov0=[[1, 0], [0, 1]], V=[[1, 1], [0, 1]], B=[[2, 1], [0, 2]],
                        A=[[0, 0], [0, 0]])


def _patched(monkeypatch, second):
    """Replace the weight-1 projective run by ``second(t_true)``."""
    from symgauss.questions.blowup import projective
    real = projective.projective_t_star

    def fake(problem, digits=30, weight=0, max_steps=300):
        t, n = real(problem, digits, weight=0, max_steps=max_steps)
        return (second(t), n) if weight == 1 else (t, n)
    monkeypatch.setattr(projective, "projective_t_star", fake)


def test_general_V_without_second_run_is_not_high_precision(monkeypatch):
    from symgauss.questions.blowup.general import general_decision as _general_decision
    honest = _general_decision(NON_SYMMETRIC, 20, False, False)
    assert honest.regime == "blow-up" and honest.level == "high-precision"
    assert honest.bracket[1] is None           # no rigorous upper bound: V, B not symmetric
    _patched(monkeypatch, lambda t: None)
    r = _general_decision(NON_SYMMETRIC, 20, False, False)
    assert r.regime == "undecided" and r.blows_up is None and r.t_star is None
    assert r.level is None and "second agreeing run" in r.evidence
    # with a rigorous upper bound the blow-up stays rigorous, but no value of T* is given
    diag = Problem(cov0=[[1, 0], [0, 1]], V=[[1, 0], [0, 2]], B=[[1, 0], [0, 1]],
                   A=[[0, 0], [0, 0]])
    r = _general_decision(diag, 20, False, False)
    lo, hi = (Fraction(x) for x in r.bracket)
    assert r.regime == "blow-up" and r.level == "rigorous" and r.t_star is None
    assert lo <= Fraction(1, 4) <= hi and "only within the bracket" in r.evidence


def test_general_V_digits_limited_to_agreement(monkeypatch):
    from symgauss.questions.blowup.general import general_decision as _general_decision
    _patched(monkeypatch, lambda t: t * (1 + mpmath.mpf(10) ** -6))
    r = _general_decision(NON_SYMMETRIC, 20, False, False)
    assert r.regime == "blow-up" and r.level == "high-precision"
    assert len(r.t_star.replace("0.", "").lstrip("0")) == 6       # six significant digits
    assert "given to those 6 digits only" in r.evidence


# --- float location of the root: Van Loan's cancellation at large t ----------------------------
# Hurwitz A, indefinite R, small Σ0 (from the seeded random family of issue 13): M(t) → M∞ ≻ 0,
# but 64-bit midpoints of Van Loan's exponential (which cancels like e^{2‖A‖t}) showed a
# spurious sign change near t ≈ 28.8, and Newton then ran off to t ~ 1e13.
HURWITZ_INDEFINITE = Problem(
    cov0=[["13/10160", 0], [0, "4641/325120"]], A=[["-7/4", "5/8"], ["7/8", "-7/8"]],
    heads=[{"V": [["-1/4", 0], [0, "-1/4"]], "B": [["-5/8", "7/8"], ["-1/4", "-13/8"]]},
           {"V": [["-5/4", 0], [0, "-5/4"]], "B": [["3/2", "-7/4"], ["3/2", "-1"]]}])


def test_float_m_matrix_is_accurate_at_large_t():
    """M(t) from the scan equals D⁻¹ − Lᵀ(G∞ − e^{Aᵀt}G∞e^{At})L (an independent formula, G∞
    exact from the Lyapunov equation AᵀG∞ + G∞A = −R) to 10 digits at t = 30."""
    import flint
    import numpy as np

    from symgauss.questions.blowup.enclosure import lyapunov as _lyapunov
    from symgauss.questions.blowup.enclosure import _m_float
    data = riccati_data(HURWITZ_INDEFINITE)
    Ginf = _lyapunov(data.A, data.R)
    with flint.ctx.workprec(200):
        E = (flint.arb_mat(data.A) * 30).exp()
        G = flint.arb_mat(Ginf) - E.transpose() * flint.arb_mat(Ginf) * E
        L = flint.arb_mat(data.Lr)
        M = flint.arb_mat(data.Dinv) - L.transpose() * G * L
        ref = np.array([[float(M[i, j].mid()) for j in range(2)] for i in range(2)])
    got = _m_float(data, 30.0)
    assert np.max(np.abs(got - ref)) <= 1e-10 * np.max(np.abs(ref))


def test_no_spurious_root_for_hurwitz_indefinite():
    import flint

    from symgauss.kernel.kinds.blowup import arb_positive_definite, m_matrix
    from symgauss.questions.blowup.enclosure import locate_root
    data = riccati_data(HURWITZ_INDEFINITE)
    with flint.ctx.workprec(400):         # M ≻ 0 (proved) where 64-bit midpoints said M ⊁ 0
        assert arb_positive_definite(m_matrix(data.A, data.R, data.Lr, data.Dinv,
                                              flint.arb("28.795540925144508")))
    assert locate_root(data, 100.0) is None
    r = decide_blowup(HURWITZ_INDEFINITE, digits=30)
    assert r.blows_up is not True and r.t_star is None


# --- exact signs in the closed forms ---------------------------------------------------------
def _sqrt2_below(digits):
    """The largest rational with ``digits`` decimals below √2 (checked by r² < 2, exactly)."""
    from math import isqrt
    r = Fraction(isqrt(2 * 10 ** (2 * digits)), 10 ** digits)
    assert r * r < 2 < (r + Fraction(1, 10 ** digits)) ** 2
    return r


@pytest.mark.parametrize("above", [False, True])
def test_sign_of_an_algebraic_number_within_1e_300_of_zero(above):
    """A = [[r + 1, 1], [1, r − 1]] has eigenvalues r ± √2; with r within 10^-300 of √2 the
    small one has the sign of r − √2 (decided here by r² vs 2). With V = −I, B = I, Σ0 = I the
    modes are a = r ± √2, k = −1: a > 0 converges to a limit, a < 0 decays — so the rank of
    the limit is 2 or 1 by that sign (60- or 240-digit numerics cannot see it)."""
    r = _sqrt2_below(300) + (Fraction(1, 10 ** 300) if above else 0)
    rs = sp.Rational(r.numerator, r.denominator)
    p = Problem(cov0=[[1, 0], [0, 1]], A=[[rs + 1, 1], [1, rs - 1]], V=[[-1, 0], [0, -1]],
                B=[[1, 0], [0, 1]])
    cf = closed_form(p)
    assert cf is not None and cf.family == "decoupled" and cf.regime == "bounded"
    assert cf.limit_rank == (2 if r * r > 2 else 1)
    r2 = decide_blowup(p, digits=10)
    assert r2.regime == "bounded" and r2.level == "exact" and r2.limit_rank == cf.limit_rank


def test_sign_of_sympy_numbers_is_exact_or_undecided():
    from symgauss.questions.blowup.closed_form import _sign
    assert _sign(sp.sqrt(2) + 3) == 1 and _sign(-sp.sqrt(3) - 2) == -1
    assert _sign(sp.sqrt(8) - 2 * sp.sqrt(2)) == 0
    # roots of the minimal polynomial of both signs: not decided without numerics
    assert _sign(sp.sqrt(2) - 1) is None


def test_vI_alphaI_closed_form_takes_largest_eigenvalue():
    """V = I, A = αI, B non-normal: T* = ln(1 + 2α/λ)/(2α) at the largest eigenvalue λ of
    Σ0R, here irrational; checked against the eigenvalues by mpmath (independent)."""
    p = Problem(cov0=[[2, 1], [1, 3]], A=[["1/3", 0], [0, "1/3"]], V=[[1, 0], [0, 1]],
                B=[[1, 2], [0, 1]])
    cf = closed_form(p)
    assert cf.family == "vI-alphaI" and cf.level == "exact" and cf.regime == "blow-up"
    with mpmath.workdps(50):
        S = mpmath.matrix([[2, 1], [1, 3]])
        R = mpmath.matrix([[2, 2], [2, 2]])
        lam = max(mpmath.re(x) for x in mpmath.eig(S * R)[0])
        want = mpmath.log(1 + mpmath.mpf(2) / 3 / lam) / (mpmath.mpf(2) / 3)
        assert abs(mpmath.mpf(str(sp.N(cf.t_star, 45))) - want) < mpmath.mpf(10) ** -40
        ball = cf.t_star_arb(200)
        assert abs(mpmath.mpf(ball.mid().str(50, radius=False)) - want) < mpmath.mpf(10) ** -45


def test_blowup_above_threshold_is_exact_even_without_the_root(monkeypatch):
    """A Hurwitz (not αI), R ⪰ 0, M∞ = Σ0⁻¹ − G∞ not PSD: blow-up is proved exactly; if the
    float location fails the answer stays 'blow-up' (exact), with no T*."""
    from symgauss.kernel.errors import BlowUpError
    from symgauss.questions.blowup import enclosure
    from symgauss.questions.blowup.decide import _riccati_decision
    p = Problem(cov0=[[10, 0], [0, 10]], A=[[-1, "1/2"], [0, -1]], V=[[1, 0], [0, 1]],
                B=[[1, 0], [0, 1]])
    assert closed_form(p) is None
    r = _riccati_decision(p, riccati_data(p), 20, False, False)
    assert r.regime == "blow-up" and r.t_star is not None
    with pytest.raises(BlowUpError):
        solve_moments(p, Fraction(r.t_star[:12]) * Fraction(11, 10), digits=10)
    monkeypatch.setattr(enclosure, "first_root", lambda *a, **k: None)
    r = _riccati_decision(p, riccati_data(p), 20, False, False)
    assert r.regime == "blow-up" and r.blows_up is True and r.level == "exact"
    assert r.t_star is None and "not PSD" in r.evidence


def test_cli_no_crosscheck_is_still_certified(capsys):
    from symgauss.cli.main import main
    path = str(EX / "blowup_diag.json")
    assert main(["blowup", path, "--json", "--no-crosscheck"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["certified"] is True and out["level"] == "exact"
    assert not any(a["method"].startswith("moment ODE") for a in out.get("agreement", []))
    lo, hi = (Fraction(x) for x in out["enclosure"])
    assert lo < Fraction(1, 4) < hi
    assert main(["blowup", path, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    xc = [a for a in out["agreement"] if a["method"].startswith("moment ODE")]
    assert xc and xc[0]["digits"] >= 12        # the projective integration sees T* = 1/4


def test_uncertified_root_contradicted_by_the_moment_ode_is_undecided(monkeypatch):
    """A high-precision root of det M(t) that is neither certified nor confirmed by the
    projective integration is no answer (seen on the regime ensemble's vI-20-d4, seed 7: a
    spurious root at t ≈ 87.65 from cancellation, while Σ(t) converges)."""
    import symgauss.questions.blowup.decide as decide
    import symgauss.questions.blowup.enclosure as enclosure
    from symgauss import Problem
    p = Problem(cov0=[[1, 0], [0, 1]], A=[["1/10", 1], [0, "1/5"]], V=[[1, 0], [0, 1]],
                B=[[1, "1/2"], ["1/2", 1]])
    honest = decide.decide_blowup(p, digits=15, certify=True)
    assert honest.regime == "blow-up" and honest.level == "rigorous"
    monkeypatch.setattr(enclosure, "certify_root", lambda *a, **k: None)
    confirmed = decide.decide_blowup(p, digits=15, certify=True)
    assert confirmed.regime == "blow-up" and confirmed.level == "high-precision"
    monkeypatch.setattr(decide, "_projective_check", lambda *a: [
        ("moment ODE, projective form (float64 Taylor): no blow-up seen", 0.0)])
    r = decide.decide_blowup(p, digits=15, certify=True)
    assert r.regime == "undecided" and r.level is None and r.t_star is None
    assert "neither certified nor confirmed" in r.evidence
