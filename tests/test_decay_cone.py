"""Kind ``decay-cone`` (issue 13, exact): Σ(t) → 0 with tr Σ(t) ≤ b/(1 + k·t) when A is not
Hurwitz (A = 0, or A singular), by w = tr(PΣ) whose derivative is dissipative on the cone Σ ⪰ 0.

The checked-in certificate verifies, and an independent float integration stays under its bound;
the Kronecker form is compared with numpy's kron in exact rationals; the inequality
w' ≤ −(κ/Λ²)w² is re-examined at random Σ ⪰ 0 with w ≤ W, with eq. 1.1 written here; every claim
and witness field is tampered; ``classify`` on the example and on an ensemble problem whose A has
an exact zero eigenvalue (the float reference calls it unclear).
"""
from __future__ import annotations

import copy
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from _mutation import checked_in, reseal, roundtrip
from test_bounded import _field, _m  # eq. 1.1 in floats, written in the tests

from symgauss import load_problem
from symgauss.kernel.checker import check_certificate
from symgauss.kernel.read import read_problem

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "symgauss" / "examples" / "decay_a0.json"


def _cert():
    return checked_in("decay_cone")


def _float_traces(p, t_end, n):
    from scipy.integrate import solve_ivp
    F, S0 = _field(p), _m(p["cov0"])
    d = len(S0)
    ts = np.linspace(0, t_end, n)
    sol = solve_ivp(lambda _t, y: F(y.reshape(d, d)).ravel(), (0, t_end), S0.ravel(),
                    method="LSODA", rtol=1e-10, atol=1e-14, t_eval=ts)
    assert sol.status == 0
    return ts, np.array([np.trace(y.reshape(d, d)) for y in sol.y.T])


def test_the_checked_in_certificate_verifies_and_a_float_run_stays_under_its_bound():
    c = _cert()
    v = check_certificate(c)
    assert (v.status, v.kind, v.level) == ("verified", "decay-cone", "exact"), v.reason
    b, k = float(Fraction(c["claim"]["bound"])), float(Fraction(c["claim"]["rate"]))
    ts, tr = _float_traces(c["problem"], 3000, 3001)
    assert np.all(tr <= b / (1 + k * ts))
    # the decay is algebraic (A = 0): t·tr Σ(t) settles, it does not go to 0
    assert 0.3 < (ts[-1] * tr[-1]) / (ts[1500] * tr[1500]) < 1.1


def test_the_kronecker_form_is_the_pairing_with_sigma_kron_sigma():
    import flint

    from symgauss.kernel.flow import pairs
    from symgauss.kernel.kinds.decay_cone import kron_form
    rng = np.random.default_rng(3)
    for d in (2, 3):
        K = [[Fraction(int(rng.integers(-9, 10)), int(rng.integers(1, 5))) for _ in range(d * d)]
             for _ in range(d * d)]
        S = [[Fraction(0)] * d for _ in range(d)]
        for i in range(d):
            for j in range(i, d):
                S[i][j] = S[j][i] = Fraction(int(rng.integers(-9, 10)), 7)
        Kq = flint.fmpq_mat(d * d, d * d, [flint.fmpq(x.numerator, x.denominator)
                                           for row in K for x in row])
        T = kron_form(Kq, d)
        x = [S[i][j] for i, j in pairs(d)]
        lhs = sum(Fraction(int(T[a, b].p), int(T[a, b].q)) * x[a] * x[b]
                  for a in range(len(x)) for b in range(len(x)))
        rhs = sum(K[a * d + b][c * d + f] * S[a][c] * S[b][f] for a in range(d)
                  for b in range(d) for c in range(d) for f in range(d))
        assert lhs == rhs


def test_the_differential_inequality_holds_at_random_psd_points_in_the_region():
    c = _cert()
    w = c["witness"]
    F = _field(c["problem"])
    P = _m(w["P"])
    kappa, lam = float(Fraction(w["kappa"])), float(Fraction(w["Lambda"]))
    W = float(np.trace(P @ _m(c["problem"]["cov0"])))
    rng = np.random.default_rng(0)
    for _ in range(3000):
        X = rng.normal(size=P.shape)
        S = X @ X.T
        S *= W * rng.uniform(1e-4, 1) / np.trace(P @ S)
        wS = np.trace(P @ S)
        assert np.trace(P @ F(S)) <= -kappa / lam ** 2 * wS ** 2 + 1e-12


def _tampered(edit):
    c = copy.deepcopy(_cert())
    cl, w = c["claim"], c["witness"]
    if edit == "bound":
        cl["bound"] = str(Fraction(cl["bound"]) / 2)
    elif edit == "rate":
        cl["rate"] = str(Fraction(cl["rate"]) * 100)
    elif edit == "P":
        w["P"][0][0] = str(Fraction(w["P"][0][0]) * 3)
    elif edit == "P_asym":
        w["P"][0][1] = str(Fraction(w["P"][0][1]) + 1)
    elif edit == "ell":
        w["ell"] = str(Fraction(w["ell"]) * 10)
    elif edit == "Lambda":
        w["Lambda"] = str(Fraction(w["Lambda"]) / 10)
    elif edit == "T":
        w["T"] = str(Fraction(w["T"]) / 10)
    elif edit == "kappa":
        w["kappa"] = str(Fraction(w["kappa"]) * 100)
    elif edit == "kappa_zero":
        w["kappa"] = "0"
    elif edit == "K_negative":
        w["K"][0][0] = str(-Fraction(w["K"][0][0]))
    elif edit == "K_huge":          # K ⪰ 0 still, but then Z = −H − T(K) is not
        w["K"][0][0] = "1000"
    elif edit == "K_asym":
        w["K"][0][1] = str(Fraction(w["K"][0][1]) + 1)
    elif edit == "K_size":
        w["K"] = [row[:3] for row in w["K"][:3]]
    elif edit == "A":            # a growing linear part: −(PA + AᵀP) ⪰ 0 fails
        c["problem"]["A"] = [["1/2", "0"], ["0", "0"]]
        c["problem_hash"] = read_problem(roundtrip(c)["problem"]).hash
    elif edit == "head":         # the same-sign head: blow-up
        c["problem"]["V"] = [["1", "0"], ["0", "1"]]
        c["problem_hash"] = read_problem(roundtrip(c)["problem"]).hash
    elif edit == "cov0":
        c["problem"]["cov0"] = [["1000", "0"], ["0", "1000"]]
        c["problem_hash"] = read_problem(roundtrip(c)["problem"]).hash
    elif edit == "level":
        c["level"] = "rigorous"
    elif edit == "extra_key":
        w["Q"] = w["P"]
    elif edit == "missing_key":
        del w["T"]
    return reseal(c)


EDITS = ["bound", "rate", "P", "P_asym", "ell", "Lambda", "T", "kappa", "kappa_zero",
         "K_negative", "K_huge", "K_asym", "K_size", "A", "head", "cov0", "level", "extra_key",
         "missing_key"]


def test_classify_the_example_is_decay_at_level_exact():
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(EXAMPLE))
    assert (r.kind, r.level) == ("decay", "exact"), (r.evidence, r.tried)
    assert r.certificate_data["kind"] == "decay-cone"
    assert check_certificate(r.certificate_data).status == "verified"


def test_an_ensemble_problem_with_a_singular_a_is_decay_and_its_bound_holds():
    """seed-341 general-1-d2: A's eigenvalues are −5/8 and 0 exactly; the float reference
    cannot classify it (‖Σ‖ between 1e-4 and 1e-2 at t = 20…2000, still moving)."""
    from symgauss.questions.regime.classify import classify
    from symgauss.questions.regime.ensemble import ensemble
    p = next(p for _, p in ensemble(48, seed=341) if p.name == "general-1-d2")
    r = classify(p)
    assert (r.kind, r.level) == ("decay", "exact"), (r.evidence, r.tried)
    c = r.certificate_data
    b, k = float(Fraction(c["claim"]["bound"])), float(Fraction(c["claim"]["rate"]))
    ts, tr = _float_traces(c["problem"], 2000, 2001)
    assert np.all(tr <= b / (1 + k * ts))


def test_no_decay_certificate_where_sigma_does_not_decay():
    """The bounded example oscillates for ever, the growth example grows: no decay-cone."""
    from symgauss.questions.regime.decay_cone import find_decay_cone
    for name in ("bounded.json", "growth.json"):
        res = find_decay_cone(load_problem(ROOT / "symgauss" / "examples" / name))
        assert res.certificate is None, name


STEPS_EXAMPLE = ROOT / "symgauss" / "examples" / "decay_singular_a.json"


def _steps_cert():
    return checked_in("decay_cone_steps")


def test_the_checked_in_steps_certificate_verifies_and_a_float_run_stays_under_its_bound():
    """A's eigenvalues are −9/8 and 0 exactly; Σ0 is too large for a cone region, so validated
    steps come first (level rigorous, not exact)."""
    c = _steps_cert()
    v = check_certificate(c)
    assert (v.status, v.kind, v.level) == ("verified", "decay-cone-steps", "rigorous"), v.reason
    b, k = float(Fraction(c["claim"]["bound"])), float(Fraction(c["claim"]["rate"]))
    t0 = float(Fraction(c["claim"]["t_enter"]))
    ts, tr = _float_traces(c["problem"], 2000, 20001)
    after = ts >= t0
    assert np.all(tr[after] <= b / (1 + k * (ts[after] - t0)))
    assert tr[0] > b        # the bound does not hold at t = 0: the steps are needed


def _tampered_steps(edit):
    c = copy.deepcopy(_steps_cert())
    cl, w = c["claim"], c["witness"]
    if edit == "t_enter":
        cl["t_enter"] = str(Fraction(cl["t_enter"]) + Fraction(1, 10))
    elif edit == "step_h":        # the lengths no longer add up to t_enter
        w["steps"][0]["h"] = str(Fraction(w["steps"][0]["h"]) * 2)
    elif edit == "step_point":
        w["steps"][-1]["point"][0] = str(Fraction(w["steps"][-1]["point"][0]) * 3)
    elif edit == "steps_cut":     # fewer steps, t_enter to match: Σ there is outside the region
        h = sum(Fraction(s["h"]) for s in w["steps"][-10:])
        w["steps"] = w["steps"][:-10]
        cl["t_enter"] = str(Fraction(cl["t_enter"]) - h)
    elif edit == "order":
        w["order"] = 1
    elif edit == "prec":
        w["prec"] = 10 ** 6
    elif edit == "metrics":
        w["metrics"] = "none"
    elif edit == "T":
        w["T"] = str(Fraction(w["T"]) / 2)
    elif edit == "bound":
        cl["bound"] = str(Fraction(cl["bound"]) / 2)
    elif edit == "level":
        c["level"] = "exact"
    elif edit == "no_steps":
        del w["steps"]
    elif edit == "kind":          # the exact kind reads no steps
        c["kind"] = "decay-cone"
        del cl["t_enter"]
    return reseal(c)


STEP_EDITS = ["t_enter", "step_h", "step_point", "steps_cut", "order", "prec", "metrics", "T",
              "bound", "level", "no_steps", "kind"]


@pytest.mark.parametrize("tamper, edit", [(_tampered, e) for e in EDITS] +
                         [(_tampered_steps, e) for e in STEP_EDITS])
def test_a_tampered_decay_certificate_is_not_verified(tamper, edit):
    """Both kinds: every claim and witness field, the level, the keys."""
    v = check_certificate(tamper(edit))
    assert v.status in ("not-proved", "invalid"), (edit, v)
    assert "problem_hash" not in v.reason and "statement" not in v.reason, v.reason


def test_classify_the_steps_example_is_decay_at_level_rigorous():
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(STEPS_EXAMPLE))
    assert (r.kind, r.level) == ("decay", "rigorous"), (r.evidence, r.tried)
    assert r.certificate_data["kind"] == "decay-cone-steps"


def _random_problem(rng, d, singular):
    """V near −I, B near I (opposite signs), and A = 0 or A with an exact zero eigenvalue (row 0
    of A outside column 0, a stable block below): entries in 1/8ths."""
    from symgauss.model.problem import Problem

    def r8(M):
        return [[str(Fraction(round(float(x) * 8), 8)) for x in row] for row in M]
    E = np.eye(d)
    A = np.zeros((d, d))
    if singular:
        A[1:, 1:] = -np.eye(d - 1) + rng.normal(0, 0.2, (d - 1, d - 1))
        A[0, 1:] = rng.normal(0, 0.3, d - 1)
    H = rng.normal(0, 1, (d, d))
    return Problem(A=r8(A), V=r8(-E + rng.normal(0, 0.2, (d, d))),
                   B=r8(E + rng.normal(0, 0.2, (d, d))), cov0=r8(H @ H.T / d + E / 2))


@pytest.mark.parametrize("seed", range(6))
def test_random_pure_attention_and_singular_a_problems_get_a_decay_certificate(seed):
    """Problems drawn here, not tuned to: A = 0 or singular (d = 2…4); the certificate verifies
    and an independent float run stays under its bound until t = 300."""
    from _oracle import claim_holds

    from symgauss.questions.regime.decay_cone import find_decay_cone
    rng = np.random.default_rng(100 + seed)
    p = _random_problem(rng, 2 + seed % 3, seed % 2 == 1)
    res = find_decay_cone(p)
    assert res.certificate is not None, res.why
    assert check_certificate(res.certificate).status == "verified"
    assert claim_holds(res.certificate)


FAST = {"A": [["0", "0"], ["0", "0"]], "V": [["-16", "1"], ["0", "-15"]],
        "B": [["16", "0"], ["1", "17"]], "cov0": [["1", "1/4"], ["1/4", "1"]]}


def test_a_fast_algebraic_decay_is_not_taken_for_an_equilibrium():
    """A = 0 and a strong quadratic part: Σ ~ 1/(ct) with c ≈ 500 has ‖F(Σ)‖ ≈ 1e-9 by t = 2000,
    which the float reference's absolute test alone took for a settled Σ* ≈ 1.17e-6·I
    ("stable-equilibrium" at level float, wrong); its relative-speed test says unclear, and
    classify proves the decay."""
    from symgauss.model.problem import Problem
    from symgauss.questions.regime.classify import classify
    from symgauss.questions.regime.reference import reference_regime
    p = Problem(**FAST)
    assert reference_regime(p)["kind"] == "unclear"
    r = classify(p)
    assert (r.kind, r.level) == ("decay", "exact"), (r.evidence, r.tried)
    assert check_certificate(r.certificate_data).status == "verified"
    ts, tr = _float_traces(r.certificate_data["problem"], 2000, 2001)
    b, k = (float(Fraction(r.certificate_data["claim"][key])) for key in ("bound", "rate"))
    assert np.all(tr <= b / (1 + k * ts))
    assert tr[-1] < 2e-6 and ts[-1] * tr[-1] > 0.5 / k    # algebraic: t·tr Σ(t) does not → 0


def test_the_search_for_a_later_start_stops_when_sigma_grows():
    """Pure attention (A = 0) with general V, B whose Σ grows faster than exponentially (the
    ensemble's extra family, seed 1, problem 11): the float run looking for a smaller Σ(t) stops
    when tr Σ passes 100·tr Σ0 — it ran on towards the singularity for minutes before — and no
    decay certificate is found."""
    from symgauss.questions.regime.decay_cone import _later_states, find_decay_cone
    from symgauss.questions.regime.ensemble import EXTRA_FAMILIES, ensemble
    _, p = ensemble(24, seed=1, families=EXTRA_FAMILIES)[11]
    assert p.name == "pure-attention-11-d4"
    assert _later_states(p) == []
    assert find_decay_cone(p).certificate is None
