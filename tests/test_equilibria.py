"""Equilibria: exact residuals, printed digits within their stated radius, completeness and
continua, exact decisions for Σ = 0, high-precision only with agreeing runs, rank-deficient
cov0 in the original coordinates, bad problems, CLI."""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import flint
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from symgauss import Problem
from symgauss.cli.main import main
from symgauss.kernel.errors import UnsupportedError
from symgauss.model.linearise import exact_matrix, exact_params, residual_exact
from symgauss.model.problem_file import load_problem
from symgauss.questions.equilibria.designed import designed_problem
from symgauss.questions.equilibria.lyapunov import bias_for_mean, lyapunov_exact, mean_fixed_point
from symgauss.questions.equilibria.result import decimal_ball
from symgauss.questions.equilibria.search import find_equilibria

EX = Path(__file__).resolve().parents[1] / "symgauss" / "examples"


def _zero(M):
    return all(x == 0 for x in M.entries())


def _frac_matrix(rows):
    return [[Fraction(x) for x in r] for r in rows]


def _max_dist(P, Q) -> Fraction:
    return max(abs(Fraction(a) - Fraction(b)) for ra, rb in zip(P, Q) for a, b in zip(ra, rb))


def test_worked_example_stable_diag():
    """A = diag(1, 3), V = −I, B = I: R = −2I, P* = diag(1, 1/3), Σ* = P*⁻¹ = diag(1, 3)."""
    p = load_problem(EX / "stable_diag.json")
    res = find_equilibria(p)
    e = res[0]
    assert e.level == "exact" and e.rank == 2 and e.stable is True and res.complete
    S = exact_matrix(e.cov)
    assert _zero(residual_exact(p.params, S))
    P = lyapunov_exact(exact_params(p.params).A, exact_matrix([[2, 0], [0, 2]]))  # = −R
    assert P == exact_matrix([[1, 0], [0, "1/3"]]) and P.inv() == S


def test_threshold_equilibrium_is_unstable_and_zero_is_stable():
    p = load_problem(EX / "threshold.json")
    eqs = find_equilibria(p)
    pd = [e for e in eqs if e.rank == 2]
    assert len(pd) == 1 and pd[0].cov == (("1", "0"), ("0", "1")) and pd[0].stable is False
    assert pd[0].stability.certificate["kind"] == "unstable-equilibrium"
    zero = [e for e in eqs if e.rank == 0][0]
    assert zero.stable is True   # A = −I Hurwitz: small Σ0 decay


# --- printed digits (A.1) ------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.lists(st.fractions(), min_size=1, max_size=6), st.fractions(min_value=0, max_value=1),
       st.integers(1, 40))
def test_decimal_ball_covers_the_rounding(values, radius, digits):
    texts, R = decimal_ball(values, radius, digits)
    for v, t in zip(values, texts):
        assert abs(Fraction(t) - v) + radius <= R


def _printed(args, capsys):
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_general3_printed_matrix_is_within_its_radius_of_the_true_equilibrium(capsys):
    """The printed 30-digit matrix, against an 80-digit enclosure of the same equilibrium."""
    out = _printed(["equilibria", str(EX / "general3.json"), "--json"], capsys)
    e = out["equilibria"][0]
    assert e["level"] == "rigorous" and e["stable"] is True and out["complete"] is False
    radius = Fraction(e["radius"])
    assert radius < Fraction(1, 10 ** 28)
    fine = find_equilibria(load_problem(EX / "general3.json"), digits=80)[0]
    C80, r80 = fine.enclosure[0], fine.enclosure[1]
    assert fine.level == "rigorous" and r80 < Fraction(1, 10 ** 78)
    true = [[Fraction(int(C80[i, j].p), int(C80[i, j].q)) for j in range(3)] for i in range(3)]
    assert _max_dist(_frac_matrix(e["cov"]), true) + r80 <= radius
    # the mean, likewise (its ball is computed over the enclosure)
    m80 = [Fraction(x) for x in fine.mean]
    for a, b in zip(e["mean"], m80):
        assert abs(Fraction(a) - b) + fine.mean_radius <= Fraction(e["mean_radius"])
    # the exact centre printed in the JSON is the certificate's
    assert _max_dist(e["cov_center"], true) + r80 <= Fraction(e["cov_radius"])


def test_text_output_prints_the_proved_radius(capsys):
    assert main(["equilibria", str(EX / "general3.json")]) == 0
    text = capsys.readouterr().out
    line = next(ln for ln in text.splitlines() if ln.startswith("equilibrium 0"))
    radius = Fraction(line.split("within ")[1].split(" ")[0])
    cov_line = next(ln for ln in text.splitlines() if ln.strip().startswith("cov"))
    rows = [r.split(",") for r in cov_line.split("[")[1].split("]")[0].split(";")]
    fine = find_equilibria(load_problem(EX / "general3.json"), digits=60)[0]
    C, r = fine.enclosure[0], fine.enclosure[1]
    true = [[Fraction(int(C[i, j].p), int(C[i, j].q)) for j in range(3)] for i in range(3)]
    assert _max_dist([[x.strip() for x in row] for row in rows], true) + r <= radius
    assert "not proved complete" in text


# --- the search finds designed equilibria; what it reports is one (A.5, A.7) ----------------------
@pytest.mark.parametrize("seed", range(6))
def test_newton_finds_a_designed_equilibrium(seed):
    p, S = designed_problem(3, seed=seed, kind="random")
    assert _zero(residual_exact(p.params, S))
    res = find_equilibria(p, digits=20)
    assert not res.complete   # general V, d = 3: a search, not a proof
    pd = [e for e in res if e.rank == 3]
    hits = [e for e in pd if e.level == "exact" and exact_matrix(e.cov) == S]
    assert len(hits) == 1
    for e in pd:   # every other one reported is an equilibrium, within its stated radius
        if e.level == "exact":
            assert _zero(residual_exact(p.params, exact_matrix(e.cov)))
        else:
            assert e.level == "rigorous"
            C, r, _ = e.enclosure
            assert _max_dist(e.cov, [[Fraction(int(C[i, j].p), int(C[i, j].q)) for j in
                                      range(3)] for i in range(3)]) + r <= e.radius


def test_mean_fixed_point_and_bias():
    p = load_problem(EX / "stable_diag.json")
    S = exact_matrix([[1, 0], [0, 3]])
    target = ["5/7", "-2"]
    b = bias_for_mean(p.params, S, target)
    q = p.replace(b=b)
    assert [str(x) for x in mean_fixed_point(q.params, S).entries()] == target


# --- continua (A.2) ------------------------------------------------------------------------------
def _family_cov(fam, value):
    t = sp.Symbol(fam.parametrisation["parameters"][0])
    return [[sp.Rational(sp.sympify(x).subs(t, value)) for x in row]
            for row in fam.parametrisation["cov"]]


def test_rotation_continuum_is_reported_exactly():
    """A skew, V = 0: every cI (c > 0) is an equilibrium."""
    p = Problem(cov0=[[1, 0], [0, 1]], A=[[0, 1], [-1, 0]], V=[[0, 0], [0, 0]],
                B=[[1, 0], [0, 1]])
    res = find_equilibria(p)
    assert res.complete and len(res.families) == 1
    fam = res.families[0]
    assert fam.level == "exact" and fam.dimension == 1
    for t in (sp.Rational(1, 3), 2, 17):
        S = exact_matrix(_family_cov(fam, t))
        assert _zero(residual_exact(p.params, S)) and S == exact_matrix([[1 / sp.Rational(t), 0], [0, 1 / sp.Rational(t)]])
    assert _zero(residual_exact(p.params, exact_matrix(fam.point)))


def test_singular_mean_field_continuum_d2():
    """Every [[5, −6], [−6, s]] with s > 36/5 is an equilibrium (and nothing else ≻ 0)."""
    p = Problem(cov0=[[1, 0], [0, 1]], A=[[-4, -12], [-8, -24]], V=[[1, 0], [2, 0]],
                B=[[2, 0], [1, -2]])
    res = find_equilibria(p)
    assert res.complete and [e.rank for e in res] == [0]
    fam = res.families[0]
    assert fam.level == "exact" and fam.parametrisation["where"] == "s22 > 36/5"
    for s in (sp.Rational(36, 5) + sp.Rational(1, 10 ** 6), 8, 1000):
        S = _family_cov(fam, s)
        assert S == [[5, -6], [-6, s]] and _zero(residual_exact(p.params, exact_matrix(S)))
    assert _zero(residual_exact(p.params, exact_matrix(fam.point)))


@settings(max_examples=8, deadline=None)
@given(st.integers(-3, 3), st.integers(-3, 3), st.integers(1, 3), st.integers(1, 4),
       st.sampled_from(["-1", "2", "1/2"]))
def test_structured_continuum_from_imaginary_eigenvalues(a, b, c, w, v):
    """A = T·[[0, w], [−w, 0]]·T⁻¹ and B skew (R = 0): AᵀP + PA = 0 is singular; the
    positive-definite equilibria form the family P⁻¹, P = T⁻ᵀ(tI)T⁻¹, t > 0."""
    T = exact_matrix([[c, a], [b, c + a * b + 1]]) if c * (c + a * b + 1) - a * b != 0 else \
        exact_matrix([[1, 0], [0, 1]])
    A = T * exact_matrix([[0, w], [-w, 0]]) * T.inv()
    p = Problem(cov0=[[1, 0], [0, 1]], A=[[str(x) for x in r] for r in A.tolist()],
                V=[[v, 0], [0, v]], B=[[0, 1], [-1, 0]])
    res = find_equilibria(p)
    assert res.complete and len(res.families) == 1 and res.families[0].level == "exact"
    expected = T * T.transpose()     # P = T⁻ᵀT⁻¹ ⇒ Σ = TTᵀ (t = 1)
    assert _zero(residual_exact(p.params, expected))
    fam = res.families[0]
    S = exact_matrix(fam.point)
    assert _zero(residual_exact(p.params, S))
    # the point is a positive multiple of TTᵀ (the family is one ray)
    ratio = S[0, 0] / expected[0, 0]
    assert ratio > 0 and S == expected * ratio


def test_newton_continuum_in_d3_is_not_dropped():
    """d = 3, general V: Σ = cI₂ ⊕ 2 for every c > 0. No exact method applies; the search must
    report a continuum (float evidence) with a point that is an equilibrium, not drop it."""
    p = Problem(cov0=np.eye(3, dtype=int).tolist(), A=[[0, 1, 0], [-1, 0, 0], [0, 0, 2]],
                V=[[0, 0, 0], [0, 0, 0], [0, 0, -1]], B=np.eye(3, dtype=int).tolist())
    res = find_equilibria(p, digits=20)
    assert not res.complete and len(res.families) == 1
    fam = res.families[0]
    assert fam.level == "float" and "not isolated" in fam.description
    S = np.array([[float(x) for x in r] for r in fam.point])
    assert abs(S[2, 2] - 2) < 1e-9 and abs(S[0, 0] - S[1, 1]) < 1e-9 and S[0, 0] > 0
    assert np.max(np.abs(S - np.diag(np.diag(S)))) < 1e-9


def test_cli_json_has_complete_and_families(tmp_path, capsys):
    f = tmp_path / "rot.json"
    f.write_text('{"cov0": [[1, 0], [0, 1]], "A": [[0, 1], [-1, 0]], "V": [[0, 0], [0, 0]], '
                 '"B": [[1, 0], [0, 1]]}')
    out = _printed(["equilibria", str(f), "--json"], capsys)
    assert out["complete"] is True and "positive-definite" in out["complete_scope"]
    assert out["families"][0]["parametrisation"]["where"] == "t > 0"
    assert [e["rank"] for e in out["equilibria"]] == [0]


# --- Σ = 0, decided exactly (A.3) -------------------------------------------------------------------
def _conjugated_rotation():
    S = flint.fmpq_mat(2, 2, [1, 10 ** 8, 0, 1])
    A = S * flint.fmpq_mat(2, 2, [0, 1, -1, 0]) * S.inv()
    return [[str(A[i, j]) for j in range(2)] for i in range(2)]


def test_zero_is_stable_not_asymptotically_for_a_badly_conditioned_rotation():
    """Eigenvalues exactly ±i (floats see ±i only to ~1e-8 relative); V = 0: a linear flow."""
    p = Problem(cov0=[[1, 0], [0, 1]], A=_conjugated_rotation(), V=[[0, 0], [0, 0]],
                B=[[1, 0], [0, 1]])
    zero = [e for e in find_equilibria(p) if e.rank == 0][0]
    assert zero.level == "exact" and zero.stable is True
    assert "not asymptotically" in zero.stability.reason


def test_zero_is_undecided_when_the_linearisation_is_critical_and_nonlinear():
    p = Problem(cov0=[[1, 0], [0, 1]], A=_conjugated_rotation(), V=[[1, 0], [0, 2]],
                B=[[1, 0], [0, 1]])
    zero = [e for e in find_equilibria(p) if e.rank == 0][0]
    assert zero.stable is None and zero.stability.status == "undecided"


def test_zero_is_unstable_for_a_jordan_block_on_the_axis():
    """A = [[0, 1], [0, 0]], V = 0: Σ(t) = e^{At}Σ0e^{Aᵀt} grows like t²."""
    p = Problem(cov0=[[1, 0], [0, 1]], A=[[0, 1], [0, 0]], V=[[0, 0], [0, 0]],
                B=[[1, 0], [0, 1]])
    zero = [e for e in find_equilibria(p) if e.rank == 0][0]
    assert zero.stable is False and zero.level == "exact"


# --- high-precision only with agreement (A.4) ---------------------------------------------------------
def test_high_precision_label_is_backed_by_two_agreeing_runs(monkeypatch):
    """Without the existence proof the route falls back to two Newton runs; the digits it prints
    must be right to the number of digits it states (checked against the rigorous enclosure)."""
    from symgauss.questions.equilibria import refine
    p = load_problem(EX / "general3.json")
    proved = find_equilibria(p, digits=40)[0]
    C, r = proved.enclosure[0], proved.enclosure[1]
    true = [[Fraction(int(C[i, j].p), int(C[i, j].q)) for j in range(3)] for i in range(3)]
    monkeypatch.setattr(refine, "prove", lambda *a: None)
    e = find_equilibria(p, digits=25)[0]
    assert e.level == "high-precision" and e.radius is None and e.digits == 25
    assert e.stable is None and "agree to 25 digits" in e.stability.reason
    scale = max(abs(x) for row in true for x in row)
    assert _max_dist(e.cov, true) + r <= scale * Fraction(1, 10 ** (e.digits - 1))


def test_disagreeing_runs_are_labelled_float(monkeypatch):
    from symgauss.questions.equilibria import refine
    monkeypatch.setattr(refine, "prove", lambda *a: None)
    runs = iter([1, 2])

    def fake(params, C, bits, steps=40):   # two runs that agree to ~3 digits only
        return C * (1 + flint.fmpq(next(runs), 10 ** 4))
    monkeypatch.setattr(refine, "_newton_hp", fake)
    e = find_equilibria(load_problem(EX / "general3.json"), digits=25)[0]
    assert e.level == "float" and e.digits == 8 and e.stability.status == "undecided"


# --- rank-deficient cov0 (A.6) ---------------------------------------------------------------------
def test_rank_deficient_in_invariant_range_exact_with_the_real_mean():
    p = Problem(cov0=[[1, 0], [0, 0]], A=[[2, 0], [0, 5]], V=[[-1, 0], [0, -1]],
                B=[[1, 0], [0, 1]], b=["1/2", 3])
    res = find_equilibria(p)
    r1 = [e for e in res if e.rank == 1]
    assert r1 and r1[0].cov == (("2", "0"), ("0", "0")) and r1[0].stable is True
    S = exact_matrix(r1[0].cov)
    assert _zero(residual_exact(p.params, S))
    # the mean is the real problem's: (A + V + VΣ*B) m* + b = 0, with b ≠ 0
    P = exact_params(p.params)
    M = P.A + P.heads[0][0] + P.heads[0][0] * S * P.heads[0][1]
    assert _zero(M * exact_matrix([[x] for x in r1[0].mean]) + P.b)
    assert res.complete


def test_rank_deficient_rigorous_is_returned_in_original_coordinates():
    """cov0 of rank 3 in d = 4 with W = span(e1, e2, e3) invariant; the reduced 3×3 problem is
    general3 (a rigorous, irrational equilibrium): the lifted result keeps radius and stability."""
    g = load_problem(EX / "general3.json").to_dict()

    def pad(M, corner="0"):
        return [list(r) + ["0"] for r in M] + [["0", "0", "0", corner]]
    p = Problem(cov0=pad(g["cov0"]), A=pad(g["A"], "1"), V=pad(g["V"], "1"), B=pad(g["B"]),
                b=list(g["b"]) + ["1"])
    res = find_equilibria(p, digits=30)
    e = [e for e in res if e.rank == 3][0]
    assert e.level == "rigorous" and e.radius is not None and e.stable is True
    assert len(e.cov) == 4 and all(x == "0" for x in e.cov[3]) and e.mean is not None
    fine = find_equilibria(load_problem(EX / "general3.json"), digits=60)[0]
    C, r = fine.enclosure[0], fine.enclosure[1]
    true = [[Fraction(int(C[i, j].p), int(C[i, j].q)) for j in range(3)] + [Fraction(0)]
            for i in range(3)] + [[Fraction(0)] * 4]
    assert _max_dist(e.cov, true) + r <= e.radius
    # the real mean has a 4th coordinate driven by b[3] = 1: m4 = −b4/(A44 + V44) = −1/2
    assert abs(Fraction(e.mean[3]) + Fraction(1, 2)) <= e.mean_radius
    assert "invariant set" in e.stability.reason


def test_rank_deficient_moving_range_is_unsupported():
    p = Problem(cov0=[[1, 0], [0, 0]], A=[[1, 1], [1, 1]], V=[[-1, 0], [0, -1]],
                B=[[1, 0], [0, 1]])
    with pytest.raises(UnsupportedError, match="not invariant"):
        find_equilibria(p)


def test_d1_closed_form():
    p = Problem(cov0=[[1]], A=[["3/2"]], V=[[-2]], B=[["1/3"]])
    e = find_equilibria(p)[0]   # σ(2a + 2vβσ) = 0 ⇒ σ* = −a/(vβ) = 9/4
    assert e.cov == (("9/4",),) and e.stable is True


def test_controls_problem_is_rejected():
    p = Problem(cov0=[[1]], controls=[{"duration": 1, "A": [[1]]}])
    with pytest.raises(UnsupportedError):
        find_equilibria(p)


def test_cli_json_format(capsys):
    out = _printed(["equilibria", str(EX / "stable_diag.json"), "--json"], capsys)
    e = out["equilibria"][0]
    assert e["cov"] == [["1", "0"], ["0", "3"]] and e["mean"] == ["1", "0"]
    assert e["rank"] == 2 and e["level"] == "exact" and e["stable"] is True
    assert out["complete"] is True and out["families"] == []


def test_cli_text(capsys):
    assert main(["equilibria", str(EX / "threshold.json")]) == 0
    out = capsys.readouterr().out
    assert "unstable" in out and "complete (proved)" in out


def test_d0_rejected_at_load(tmp_path, capsys):
    f = tmp_path / "p.json"
    f.write_text('{"cov0": []}')
    assert main(["equilibria", str(f)]) == 2
    assert "d = 0" in capsys.readouterr().err


def test_every_sigma_is_an_equilibrium_with_zero_parameters():
    """A = 0, V = 0: the flow is Σ' = 0; the structured route reports the whole cone exactly."""
    p = Problem(cov0=np.eye(3, dtype=int).tolist())
    res = find_equilibria(p)
    assert res.complete and len(res.families) == 1 and res.families[0].dimension == 6
    assert exact_matrix(res.families[0].point).rank() == 3


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.integers(1, 2), st.integers(0, 10 ** 6))
def test_float_system_agrees_with_the_reference_formulas(d, heads, seed):
    """The broadcast Jacobian and residual of the search against the loop-based ones of
    symgauss.model.linearise (independent code), at random symmetric points."""
    from symgauss.model.linearise import linearisation_num, residual_num
    from symgauss.questions.equilibria.newton import FloatSystem
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((d, d))
    hs = [(rng.standard_normal((d, d)), rng.standard_normal((d, d))) for _ in range(heads)]
    S = rng.standard_normal((d, d))
    S = S + S.T
    fs = FloatSystem(A, hs)
    x = fs.svec(S)
    R = residual_num(A, hs, S)
    assert np.allclose(fs.F(x), fs.svec(R), rtol=1e-13, atol=1e-12)
    assert np.allclose(fs.J(x), linearisation_num(A, hs, S), rtol=1e-13, atol=1e-12)


@settings(max_examples=6, deadline=None)
@given(st.integers(-2, 2).filter(bool), st.integers(-2, 2), st.integers(1, 3), st.integers(-2, 2),
       st.integers(1, 3), st.integers(-2, 2), st.integers(1, 3))
def test_d2_affine_continuum_from_a_rank_one_value(v1, v2, a, c, s11, s12, dd):
    """V with second column 0, A = −VΣ0B: every Σ with the first row of Σ0 is an equilibrium
    (VΣB = VΣ0B, so M = 0), i.e. s22 is free; Σ ≻ 0 ⇔ s22 > s12²/s11."""
    B = exact_matrix([[a, c], [dd, a + 1]])
    if B.det() == 0:
        return
    S0 = exact_matrix([[s11, s12], [s12, s12 * s12 + 1]])
    V = exact_matrix([[v1, 0], [v2, 0]])
    A = -(V * S0 * B)
    p = Problem(cov0=[[1, 0], [0, 1]], A=[[str(x) for x in r] for r in A.tolist()],
                V=[[str(x) for x in r] for r in V.tolist()],
                B=[[str(x) for x in r] for r in B.tolist()])
    res = find_equilibria(p)
    assert res.complete and len(res.families) == 1
    fam = res.families[0]
    assert fam.level == "exact" and fam.dimension == 1
    bound = sp.Rational(s12 * s12, s11)
    assert fam.parametrisation["where"] == f"s22 > {bound}"
    for s in (bound + sp.Rational(1, 1000), bound + 7):
        S = _family_cov(fam, s)
        assert S == [[s11, s12], [s12, s]]
        assert _zero(residual_exact(p.params, exact_matrix(S)))
    # no isolated positive-definite equilibrium besides the family (the exact route says so)
    assert [e.rank for e in res] == [0]


def test_rank_deficient_rigorous_stability_is_not_overclaimed():
    """The reduced problem's equilibrium is irrational (an enclosure); the kernel's in-range kind
    takes exact reduced equilibria only, so certify must not answer "verified" without a
    certificate of this problem — it says why instead."""
    from symgauss.questions.stability.certify import certify
    g = load_problem(EX / "general3.json").to_dict()

    def pad(M, corner="0"):
        return [list(r) + ["0"] for r in M] + [["0", "0", "0", corner]]
    p = Problem(cov0=pad(g["cov0"]), A=pad(g["A"], "1"), V=pad(g["V"], "1"), B=pad(g["B"]),
                b=list(g["b"]) + ["1"])
    res = certify(p)
    assert res.status == "undecided" and res.certificate is None
    assert "proved for the reduced problem" in res.reason
