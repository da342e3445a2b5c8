"""Kinds ``growth-axis``, ``growth-axis-row`` and changes of metric along validated steps (issue 13).

The checked-in certificates (one plain, one whose steps change metric 18 times, one of C¹ steps)
are re-checked, their claims against LSODA (``_oracle.claim_holds``), the structure the kernel
relies on — the coordinates other than Σ_kk do not see Σ_kk — and the axis field's tangent maps
against an independent numpy field, every claim, witness and problem field tampered, the
metric-change reader attacked, and ``classify`` run on the built-in examples.
"""
from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import flint
import numpy as np
import pytest
from _mutation import reseal, roundtrip
from _oracle import _svec_field, claim_holds

from symgauss import load_problem
from symgauss.kernel.checker import check_certificate
from symgauss.kernel.read import read_problem

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("growth_axis", "growth_axis_transient")


def _cert(name="growth_axis"):
    return json.loads((ROOT / "certificates" / f"{name}.json").read_text())


def _mat(rows):
    return np.array([[float(Fraction(x)) for x in r] for r in rows])


@pytest.mark.parametrize("name", NAMES)
def test_the_checked_in_certificates_verify_and_their_claims_hold(name):
    c = _cert(name)
    v = check_certificate(c)
    assert (v.status, v.kind, v.level) == ("verified", "growth-axis", "rigorous"), v.reason
    assert claim_holds(c)


def test_the_transient_certificate_changes_metric_along_its_steps():
    w = _cert("growth_axis_transient")["witness"]
    assert len(w["metrics"]) >= 2 and w["metrics"][-1]["P"] == w["P"]


@pytest.mark.parametrize("name", NAMES)
def test_the_other_coordinates_do_not_see_the_axis_entry(name):
    """An independent numpy field: changing Σ_kk changes only the kk entry of F, by 2a·ΔΣ_kk."""
    p = _cert(name)["problem"]
    A = _mat(p["A"])
    heads = [(_mat(h["V"]), _mat(h["B"])) for h in p["heads"]] if "heads" in p else \
        [(_mat(p["V"]), _mat(p["B"]))]
    d, k = len(A), 0
    f, full, iu = _svec_field(A, heads, d)
    kk = list(zip(*iu)).index((k, k))
    rng = np.random.default_rng(1)
    for _ in range(200):
        y = rng.normal(0, 3, len(iu[0]))
        z = y.copy()
        z[kk] += rng.normal(0, 50)
        dF = f(0, z) - f(0, y)
        assert np.allclose(np.delete(dF, kk), 0, atol=1e-9)
        assert abs(dF[kk] - 2 * A[k, k] * (z[kk] - y[kk])) < 1e-9 * (1 + abs(z[kk]))


def _heads(p):
    return p["heads"] if "heads" in p else [{"V": p["V"], "B": p["B"]}]


def _edit(c, edit):
    w, cl, p = c["witness"], c["claim"], c["problem"]
    st = w["steps"][len(w["steps"]) // 2]
    if edit == "axis":
        cl["axis"] = 1
    elif edit == "rate":
        cl["rate"] = str(Fraction(cl["rate"]) + Fraction(1, 8))
    elif edit == "t_enter":
        cl["t_enter"] = str(Fraction(cl["t_enter"]) + 1)
    elif edit == "lower":
        cl["lower"] = str(Fraction(cl["lower"]) * Fraction(105, 100))
    elif edit == "upper":
        cl["upper"] = str(Fraction(cl["upper"]) * Fraction(95, 100))
    elif edit == "P":
        w["P"][0][0] = str(Fraction(w["P"][0][0]) * 4)
    elif edit == "ell":
        w["ell"] = str(Fraction(w["ell"]) * 100)
    elif edit == "rho_big":
        w["rho"] = str(Fraction(w["rho"]) * 10 ** 8)
    elif edit == "rho_small":
        w["rho"] = str(Fraction(w["rho"]) / 10 ** 8)
    elif edit == "center":
        w["center"][0] = str(Fraction(w["center"][0]) + Fraction(1, 10))
    elif edit == "lam":
        w["lam"] = str(Fraction(w["lam"]) * 10)
    elif edit == "point":
        st["point"][0] = str(Fraction(st["point"][0]) * (1 + Fraction(1, 10 ** 6)))
    elif edit == "mu":
        st["mu"] = str(Fraction(st["mu"]) - 5)
    elif edit == "beta":
        st["beta"] = [str(Fraction(b) / 1000) for b in st["beta"]] \
            if isinstance(st["beta"], list) else str(Fraction(st["beta"]) / 1000)
    elif edit == "h":
        st["h"] = str(Fraction(st["h"]) * 2)
    elif edit == "metric":
        w["metric"] = "identity"
    elif edit == "A_column":      # A e_0 no longer a multiple of e_0
        p["A"][1][0] = "1/8"
    elif edit == "B_row":         # B e_0 ≠ 0
        h = _heads(p)[0]
        h["B"][1][0] = "1/8"
    elif edit == "cov0":
        p["cov0"][0][0] = str(Fraction(p["cov0"][0][0]) * 2)
    elif edit.startswith("metrics_"):
        m = w["metrics"][len(w["metrics"]) // 2]
        if edit == "metrics_kappa":
            m["kappa"] = str(Fraction(m["kappa"]) * Fraction(9, 10))
        elif edit == "metrics_ell":
            m["ell"] = str(Fraction(m["ell"]) * 100)
        elif edit == "metrics_P":
            m["P"][0][0] = str(Fraction(m["P"][0][0]) / 4)
        elif edit == "metrics_at":
            m["at"] = w["metrics"][0]["at"]
        elif edit == "metrics_last":    # the steps no longer end in the region's metric
            w["metrics"] = w["metrics"][:-1]
        elif edit == "metrics_none":
            del w["metrics"]
        elif edit == "metrics_key":
            m["note"] = "x"
    if edit in ("A_column", "B_row", "cov0"):
        c["problem_hash"] = read_problem(roundtrip(c)["problem"]).hash


PLAIN = ["axis", "rate", "t_enter", "lower", "upper", "P", "ell", "rho_big", "rho_small", "center",
         "lam", "point", "mu", "beta", "h", "metric", "A_column", "B_row", "cov0"]
SWITCHED = ["metrics_kappa", "metrics_ell", "metrics_P", "metrics_at", "metrics_last",
            "metrics_none", "metrics_key", "point", "lower", "upper"]


@pytest.mark.parametrize("name,edit", [("growth_axis", e) for e in PLAIN] +
                         [("growth_axis_transient", e) for e in SWITCHED])
def test_a_tampered_certificate_is_not_verified(name, edit):
    c = copy.deepcopy(_cert(name))
    _edit(c, edit)
    v = check_certificate(reseal(c))
    assert v.status in ("not-proved", "invalid"), (edit, v)


# --- C¹ steps of the other coordinates (seed-701 growth-28-d4) ------------------------------------

def test_the_c1_certificate_verifies_its_claim_holds_and_its_steps_are_c1():
    c = _cert("growth_axis_c1")
    v = check_certificate(c)
    assert (v.status, v.kind, v.level) == ("verified", "growth-axis", "rigorous"), v.reason
    assert claim_holds(c)
    assert all("nu" in st for st in c["witness"]["steps"])


def test_the_axis_tangents_are_eq_1_1s_derivative_without_the_axis_entry():
    """D₁ of the axis field's tangent maps (∂F/∂y at a point, Σ_kk = 0) against central
    differences of an independent numpy field, the kk row and column left out; and the higher
    D_j are eq. 1.1's with that row and column left out."""
    from symgauss.kernel.flow import Flow
    from symgauss.kernel.kinds.growth_axis import Axis
    c = _cert("growth_axis_c1")
    p = c["problem"]
    A, V, B = _mat(p["A"]), _mat(p["V"]), _mat(p["B"])
    d = len(A)
    f, _full, iu = _svec_field(A, [(V, B)], d)
    kk = list(zip(*iu)).index((0, 0))
    flow = Flow(read_problem(roundtrip(c)["problem"]).params)
    ax = Axis(flow, 0)
    rng = np.random.default_rng(3)
    y = rng.normal(0, 1, len(iu[0]) - 1)
    exact = [flint.fmpq(*Fraction(float(x)).as_integer_ratio()) for x in y]
    D = ax.tangent_matrices(ax.box(exact), 3)
    full_D = flow.tangent_matrices(flow.box(exact[:kk] + [0] + exact[kk:]), 3)
    z = np.insert(y, kk, 0.0)
    keep = [i for i in range(len(z)) if i != kk]
    num = np.array([(f(0, z + 1e-6 * e) - f(0, z - 1e-6 * e)) / 2e-6
                    for e in np.eye(len(z))]).T[np.ix_(keep, keep)]
    assert np.allclose([[float(D[1][i, j].mid()) for j in range(len(y))] for i in range(len(y))],
                       num, atol=1e-7)
    for j in range(4):
        assert all(D[j][a, b].overlaps(full_D[j][keep[a], keep[b]])
                   for a in range(len(y)) for b in range(len(y)))


@pytest.mark.parametrize("edit", ["nu", "point", "h", "beta"])
def test_a_tampered_c1_step_is_not_verified(edit):
    c = copy.deepcopy(_cert("growth_axis_c1"))
    st = c["witness"]["steps"][0]
    if edit == "nu":
        st["nu"] = str(Fraction(st["nu"]) * Fraction(1, 2))
    elif edit == "point":
        st["point"][1] = str(Fraction(st["point"][1]) + Fraction(1, 10 ** 6))
    elif edit == "h":
        st["h"] = str(Fraction(st["h"]) * 4)
        c["claim"]["t_enter"] = str(Fraction(c["claim"]["t_enter"])
                                    + 3 * Fraction(c["witness"]["steps"][0]["h"]) / 4)
    else:
        st["beta"] = [str(Fraction(b) / 1000) for b in st["beta"]] \
            if isinstance(st["beta"], list) else str(Fraction(st["beta"]) / 1000)
    v = check_certificate(reseal(c))
    assert v.status in ("not-proved", "invalid"), (edit, v)


@pytest.mark.slow
def test_classify_finds_the_c1_example():
    """The search's log-norm steps stop short of the contraction region (at t ≈ 14–32); C¹ steps
    of the axis field reach it (before, this growth stayed at level float)."""
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(ROOT / "symgauss" / "examples" / "growth_axis_c1.json"), digits=15)
    assert (r.kind, r.level) == ("growth", "rigorous"), r.evidence
    c = r.certificate_data
    assert c["kind"] == "growth-axis" and claim_holds(c)
    assert any("nu" in st for st in c["witness"]["steps"])


def test_the_metric_reader_proves_each_change_exactly():
    from symgauss.kernel.kinds.limit import MAX_SWITCHES, read_switches
    from symgauss.kernel.verdict import Invalid, NotProved
    eye = flint.fmpq_mat([[1, 0], [0, 1]])
    half = [["1/2", "0"], ["0", "2"]]
    sw, last = read_switches([{"at": 0, "P": half, "ell": "1/4", "kappa": "3/2"}], 2, eye, 5)
    assert list(sw) == [0] and last == flint.fmpq_mat([[flint.fmpq(1, 2), 0], [0, 2]])
    with pytest.raises(NotProved, match="kappa"):   # κ² = 2 < λmax = 2: not strictly above
        read_switches([{"at": 0, "P": half, "ell": "1/4", "kappa": "1414/1000"}], 2, eye, 5)
    with pytest.raises(NotProved, match="ell"):
        read_switches([{"at": 0, "P": half, "ell": "1/2", "kappa": "3/2"}], 2, eye, 5)
    with pytest.raises(Invalid, match="at"):
        read_switches([{"at": 2, "P": half, "ell": "1/4", "kappa": "3/2"},
                       {"at": 2, "P": half, "ell": "1/4", "kappa": "3/2"}], 2, eye, 5)
    with pytest.raises(Invalid, match="at"):
        read_switches([{"at": 6, "P": half, "ell": "1/4", "kappa": "3/2"}], 2, eye, 5)
    with pytest.raises(Invalid, match="at most"):
        read_switches([{"at": k, "P": half, "ell": "1/4", "kappa": "3/2"}
                       for k in range(MAX_SWITCHES + 1)], 2, eye, 100)
    with pytest.raises(Invalid, match="symmetric"):
        read_switches([{"at": 0, "P": [["1", "1/2"], ["0", "1"]], "ell": "1/4", "kappa": "3"}],
                      2, eye, 5)


@pytest.mark.parametrize("name", NAMES)
def test_classify_the_examples_is_rigorous_and_holds(name):
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(ROOT / "symgauss" / "examples" / f"{name}.json"), digits=15)
    assert (r.kind, r.level) == ("growth", "rigorous"), r.evidence
    assert r.certificate_data["kind"] == "growth-axis" and claim_holds(r.certificate_data)
    assert r.rate == r.certificate_data["claim"]["rate"]


def test_without_changes_of_metric_the_transient_example_is_not_reached():
    """The region's metric alone: the steps' radius blows up in the transient; following the
    solution with changes of metric gets there (what the transient certificate records)."""
    from symgauss.integrate.validated import integrate
    from symgauss.kernel.equations import svec
    from symgauss.kernel.flow import Flow
    from symgauss.kernel.kinds.growth_axis import Axis
    c = _cert("growth_axis_transient")
    p = read_problem(roundtrip(c)["problem"])
    w = roundtrip(c)["witness"]
    P = flint.fmpq_mat([[flint.fmpq(*Fraction(str(x)).as_integer_ratio()) for x in r]
                        for r in w["P"]])
    ell = flint.fmpq(*Fraction(str(w["ell"])).as_integer_ratio())
    ax = Axis(Flow(p.params), 0)
    y0 = svec(p.cov0)
    del y0[ax.skip]
    T = float(Fraction(str(c["claim"]["t_enter"])))
    plain = integrate(p.params, y0, P, ell, None, t_max=T, flow=ax, max_steps=400)
    assert float(plain.t) < T or float(plain.radius.mid()) > 1e-3, (plain.why, plain.radius)
    followed = integrate(p.params, y0, P, ell, None, t_max=T, flow=ax, max_steps=400, adapt=6)
    assert float(followed.t) >= T and float(followed.radius.mid()) < 1e-9 and followed.switches


def test_newton_with_a_singular_jacobian_keeps_its_point():
    """A = 0, no attention: DF = 0 is singular; Newton stops instead of raising (found on the
    growth family of seed 0–39, where the limit of the other coordinates can be singular)."""
    from symgauss.kernel.flow import Flow
    from symgauss.questions.regime.basin import newton
    p = read_problem({"cov0": [["1", "0"], ["0", "1"]], "A": [["0", "0"], ["0", "0"]]})
    x = [flint.fmpq(1), flint.fmpq(0), flint.fmpq(2)]
    assert newton(Flow(p.params), x) == x


def test_an_axis_whose_other_coordinates_blow_up_says_so_without_a_traceback():
    from symgauss import Problem
    from symgauss.questions.regime.growth_axis import find_growth_axis
    p = Problem(A=[["1/2", "0"], ["0", "0"]], V=[["1", "0"], ["0", "1"]],
                B=[["0", "0"], ["0", "1"]], cov0=[["1", "0"], ["0", "1"]])
    res = find_growth_axis(p)       # σ_11' = 2σ_11²: the other coordinates blow up at t = 1/2
    assert res.certificate is None and "do not settle" in res.why


# --- kind growth-axis-row: row k grows too, more slowly than Σ_kk -------------------------------

def test_the_row_certificate_verifies_and_its_claim_holds():
    c = _cert("growth_axis_row")
    v = check_certificate(c)
    assert (v.status, v.kind, v.level) == ("verified", "growth-axis-row", "rigorous"), v.reason
    assert claim_holds(c)
    # the premise of the kind: row 0 grows (an independent LSODA run: |Σ_01| at least doubles
    # from t = 20 to t = 40), so the plain growth-axis certificate does not exist
    p = c["problem"]
    f, full, iu = _svec_field(_mat(p["A"]), [(_mat(p["V"]), _mat(p["B"]))], len(p["A"]))
    from scipy.integrate import solve_ivp
    sol = solve_ivp(f, (0, 40), _mat(p["cov0"])[iu], method="LSODA", rtol=1e-11, atol=1e-14,
                    dense_output=True)
    row = [np.max(np.abs(full(sol.sol(t))[0, 1:])) for t in (20, 40)]
    assert row[1] > 2 * row[0] > 2


def test_with_v_e_k_on_the_axis_the_rest_splits_into_a_closed_part_and_a_linear_row():
    """An independent numpy field on the row example (V e_0 = v·e_0): the entries outside row 0
    obey the reduced problem's eq. 1.1 whatever row 0 and Σ_00 are, row 0's field is affine in
    row 0 (second differences vanish), Σ_00's is 2a·Σ_00 plus a quadratic in row 0; and with a
    nonzero V_10 the row's field is no longer affine — the structure the kernel checks matters."""
    p = _cert("growth_axis_row")["problem"]
    A, V, B = _mat(p["A"]), _mat(p["V"]), _mat(p["B"])
    d = len(A)
    rng = np.random.default_rng(5)

    def F(S, V=V):
        X = (A + V @ S @ B) @ S
        return X + X.T
    for _ in range(100):
        S = rng.normal(0, 2, (d, d))
        S = S + S.T
        r, s = rng.normal(0, 5, d - 1), rng.normal(0, 50)

        def with_row(r, s=s, S=S):
            T = S.copy()
            T[0, 1:] = T[1:, 0] = r
            T[0, 0] = s
            return T
        red = (A[1:, 1:] + V[1:, 1:] @ S[1:, 1:] @ B[1:, 1:]) @ S[1:, 1:]
        assert np.allclose(F(with_row(r))[1:, 1:], red + red.T, atol=1e-9)
        second = F(with_row(2 * r))[0, 1:] - 2 * F(with_row(r))[0, 1:] + F(with_row(0 * r))[0, 1:]
        assert np.allclose(second, 0, atol=1e-8)
        q = F(with_row(r))[0, 0] - 2 * A[0, 0] * s
        assert abs(q - (F(with_row(r, 0.0))[0, 0])) < 1e-8 * (1 + abs(s))
    W = V.copy()
    W[1, 0] = 0.125
    S = np.eye(d)
    r = np.ones(d - 1)
    rows = [F(np.block([[np.array([[1.0]]), x[None, :]], [x[:, None], S[1:, 1:]]]), W)[0, 1:]
            for x in (0 * r, r, 2 * r)]
    assert not np.allclose(rows[2] - 2 * rows[1] + rows[0], 0, atol=1e-6)


def _edit_row(c, edit):
    w, cl, p = c["witness"], c["claim"], c["problem"]
    st = w["steps"][len(w["steps"]) // 2]
    if edit in ("Q", "ell_q", "mu_big", "mu_small", "V_column", "metric_key", "P", "point"):
        if edit == "P":             # (×4 is still a proof here: the region stays valid)
            w["P"][0][0] = str(Fraction(w["P"][0][0]) / 100)
        elif edit == "point":       # (a 1e-6 nudge is still a proof: the enclosure widens)
            st["point"][0] = str(Fraction(st["point"][0]) * Fraction(11, 10))
        elif edit == "Q":
            w["Q"][0][0] = str(Fraction(w["Q"][0][0]) / 100)
        elif edit == "ell_q":
            w["ell_q"] = str(Fraction(w["ell_q"]) * 100)
        elif edit == "mu_big":      # μ > a: Σ_kk need not outgrow row k (2a − 2μ < 0 would
            w["mu"] = str(Fraction(p["A"][0][0]) * 3 / 2)   # make the forcing bound negative)
        elif edit == "mu_small":    # row 0 grows faster than this
            w["mu"] = "1/1000"
        elif edit == "V_column":    # V e_0 no longer a multiple of e_0
            p["V"][1][0] = "1/8"
            c["problem_hash"] = read_problem(roundtrip(c)["problem"]).hash
        elif edit == "metric_key":  # the plain kind's key: not read by this kind
            w["metric"] = "identity"
        return
    if edit == "steps_short":
        w["steps"] = w["steps"][:len(w["steps"]) // 2]
        cl["t_enter"] = str(sum(Fraction(x["h"]) for x in w["steps"]))
        return
    _edit(c, edit)
    del st


ROW = ["axis", "rate", "t_enter", "lower", "upper", "P", "ell", "rho_big", "rho_small", "center",
       "lam", "point", "mu", "beta", "h", "A_column", "B_row", "cov0", "Q", "ell_q", "mu_big",
       "mu_small", "V_column", "metric_key", "steps_short"]


@pytest.mark.parametrize("edit", ROW)
def test_a_tampered_row_certificate_is_not_verified(edit):
    c = copy.deepcopy(_cert("growth_axis_row"))
    _edit_row(c, edit)
    v = check_certificate(reseal(c))
    assert v.status in ("not-proved", "invalid"), (edit, v)
    # the two checks nothing else would catch: the structure, and μ < a
    if edit == "V_column":
        assert "column 0 of V" in v.reason, v
    if edit == "mu_big":
        assert "mu" in v.reason, v


def test_classify_the_row_example_is_rigorous_and_holds():
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(ROOT / "symgauss" / "examples" / "growth_axis_row.json"), digits=15)
    assert (r.kind, r.level) == ("growth", "rigorous"), r.evidence
    assert r.certificate_data["kind"] == "growth-axis-row" and claim_holds(r.certificate_data)
    assert "row k" in r.method


def test_a_violent_transient_is_followed_by_well_conditioned_local_metrics():
    """Seed-4 growth-18-d3 (growth along e_0): along the way DF's log-norm in ‖·‖₂ is far above
    its spectral abscissa. The local metrics the steps change to are the least-conditioned
    ones with a margin of 0.3 (an SDP); with the −I Lyapunov metrics the steps stalled at
    t ≈ 9.6 ("no step could be validated") and the answer was growth at level float."""
    from symgauss.questions.regime.classify import classify
    from symgauss.questions.regime.ensemble import ensemble
    _, p = ensemble(19, seed=4)[18]
    r = classify(p, digits=15)
    assert (r.kind, r.level) == ("growth", "rigorous"), r.tried
    assert r.certificate_data["witness"].get("metrics") and claim_holds(r.certificate_data)
