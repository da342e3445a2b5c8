"""Validated integration, the kinds ``limit``, ``blowup-trajectory``, ``blowup-infinity`` and the
``symgauss regime`` command.

Claims are compared with independent computations: the logistic closed form, scipy integration
of eq. 1.1 on svec(Σ), and the kernel's verdicts on tampered certificates (a true claim with a
broken witness is NOT PROVED, never REFUTED).
"""
from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import flint
import numpy as np
import pytest
from _mutation import reseal
from _oracle import claim_holds

from symgauss import Problem, load_problem
from symgauss.integrate.validated import integrate
from symgauss.kernel.checker import check_certificate
from symgauss.kernel.read import read_problem
from symgauss.questions.regime.classify import classify

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "symgauss" / "examples"
SCRIPT = Path(sys.executable).parent / "symgauss"
CERTS = ROOT / "certificates"


def _load(name):
    return json.loads((CERTS / name).read_text())


def test_validated_steps_enclose_the_logistic_closed_form():
    # σ' = 2σ − 2σ², σ(0) = 1/4: σ(t) = 1/(1 + 3e^{−2t})
    p = read_problem({"cov0": [[1]], "A": [[1]], "V": [[-1]], "B": [[1]]})
    run = integrate(p.params, [flint.fmpq(1, 4)], flint.fmpq_mat([[1]]), flint.fmpq(1),
                    lambda c, r: False, t_max=3)
    t = run.t
    with flint.ctx.workprec(200):
        exact = 1 / (1 + 3 * (-2 * flint.arb(t)).exp())
        lo = flint.arb(run.points[-1][0]) - run.radius
        hi = flint.arb(run.points[-1][0]) + run.radius
        assert lo < exact < hi
    assert float(run.radius.mid()) < 1e-12


@pytest.mark.parametrize("name", ["limit_general3.json", "limit_singular.json",
                                  "limit_transient.json", "blowup_trajectory_general.json"])
def test_checked_in_certificates_verify_and_hold(name):
    cert = _load(name)
    v = check_certificate(reseal(cert))
    assert v.status == "verified", v.reason
    assert claim_holds(cert)


def _tampered(cert, path, value):
    c = copy.deepcopy(cert)
    obj = c
    for k in path[:-1]:
        obj = obj[k]
    obj[path[-1]] = value
    return check_certificate(reseal(c))


def test_a_broken_limit_witness_is_not_proved_never_refuted():
    cert = _load("limit_general3.json")
    step = cert["witness"]["steps"][3]
    nudged = [str(Fraction(x) + Fraction(1, 10 ** 6)) for x in step["point"]]
    # a nudge of 1e-6 only widens the enclosure: still a proof (the method is not brittle)
    assert _tampered(cert, ["witness", "steps", 3, "point"], nudged).status == "verified"
    moved = [str(Fraction(x) + 10) for x in step["point"]]
    for path, value in [(["witness", "steps", 3, "point"], moved),
                        (["witness", "steps", 3, "beta"], "1e-9"),
                        (["witness", "steps", 3, "mu"], "-100"),
                        (["witness", "rho"], "1e6"),
                        (["witness", "ell"], "1e3"),
                        (["witness", "steps"], cert["witness"]["steps"][:2])]:
        v = _tampered(cert, path, value)
        assert v.status in ("not-proved", "invalid"), (path, v)


def _region_parts(cert):
    w, p = cert["witness"], read_problem(cert["problem"])
    P = flint.fmpq_mat([[flint.fmpq(Fraction(x).numerator, Fraction(x).denominator) for x in row]
                        for row in w["P"]])
    C = [Fraction(x) for i, row in enumerate(cert["claim"]["center"]) for x in row[i:]]
    return p, P, C, Fraction(w["ell"]), Fraction(w["rho"]), Fraction(cert["claim"]["rate"])


def test_the_region_test_is_the_steps_affine_one_on_the_ellipsoids_box():
    """The transient's region (P with condition number ≈ 8e3): the kernel bounds DF on the box of
    radii √ρ·√((P⁻¹)_ii) by DF's affine dependence (as in the steps). The old test — the interval
    matrix DF on the cube of radius √(ρ/ℓ) — refuses this region, so the certificate relies on
    the new one; and the new one is sound: at points of the ellipsoid, sampled, −(JᵀP + PJ) −
    2λP ≻ 0 (floats, independent of the kernel); regions ρ·4^k that break this are refused."""
    from symgauss.kernel.flow import Flow, contracts
    from symgauss.kernel.kinds.limit import check_region
    from symgauss.kernel.verdict import NotProved
    cert = _load("limit_transient.json")
    p, P, C, ell, rho, rate = _region_parts(cert)

    def q(x):
        return flint.fmpq(x.numerator, x.denominator)
    c = [q(x) for x in C]
    with flint.ctx.workprec(128):
        flow = Flow(p.params)
        F_C = flint.fmpq_mat(len(c), 1, [flint.fmpq(0)] * len(c))
        check_region(flow, P, q(ell), q(rho), c, q(rate), F_C)
        wide = flow.box(c, (flint.arb(q(rho)) / flint.arb(q(ell))).sqrt())
        assert not contracts(flint.arb_mat(P), flow.jacobian(wide), flint.arb(q(rate)))
    user = load_problem(EX / "transient_equilibrium.json")
    A = np.array(user.A.tolist(), dtype=float)
    heads = [(np.array(h.V.tolist(), dtype=float), np.array(h.B.tolist(), dtype=float))
             for h in user.params.heads]
    Pf = np.array([[float(P[i, j]) for j in range(P.ncols())] for i in range(P.nrows())])
    Lc = np.linalg.cholesky(np.linalg.inv(Pf))
    rng = np.random.default_rng(3)

    def worst(level):   # the largest eigenvalue of JᵀP + PJ + 2λP on the ellipsoid's boundary
        top = -np.inf
        for _ in range(400):
            x = rng.normal(size=len(C))
            e = Lc @ (x / np.linalg.norm(x)) * np.sqrt(level)
            y = np.array([float(v) for v in C]) + e
            S = np.array([[y[0], y[1]], [y[1], y[2]]])
            J = _svec_jacobian(A, heads, S)
            top = max(top, np.linalg.eigvalsh(J.T @ Pf + Pf @ J + 2 * float(rate) * Pf)[-1])
        return top
    assert worst(float(rho)) < 0
    refused = 0
    for k in range(1, 40):
        big = rho * 4 ** k
        if worst(float(big)) < 0:
            continue
        with flint.ctx.workprec(128), pytest.raises(NotProved):
            check_region(flow, P, q(ell), q(big), c, q(rate), F_C)
        refused += 1
        if refused == 3:
            break
    assert refused == 3


def _svec_jacobian(A, heads, S, h=1e-7):
    """DF on svec coordinates (d = 2) by central differences of eq. 1.1 (floats)."""
    def F(y):
        X = np.array([[y[0], y[1]], [y[1], y[2]]])
        M = A.copy()
        for V, B in heads:
            M = M + V @ X @ B
        Z = M @ X
        Z = Z + Z.T
        return np.array([Z[0, 0], Z[0, 1], Z[1, 1]])
    y = np.array([S[0, 0], S[0, 1], S[1, 1]])
    return np.array([(F(y + h * e) - F(y - h * e)) / (2 * h) for e in np.eye(3)]).T


def test_a_stronger_limit_claim_is_not_verified():
    cert = _load("limit_general3.json")
    for path, value in [(["claim", "rate"], "10"), (["claim", "radius"], "1e-40"),
                        (["claim", "regime"], "singular-limit"),
                        (["claim", "regime"], "decay")]:
        v = _tampered(cert, path, value)
        assert v.status != "verified", (path, v)


def test_a_narrower_blowup_enclosure_is_not_verified():
    cert = _load("blowup_trajectory_general.json")
    lo, hi = Fraction(cert["claim"]["t_lower"]), Fraction(cert["claim"]["t_upper"])
    c = copy.deepcopy(cert)
    c["claim"].pop("t_star", None)
    for claim in ({"t_lower": str(lo), "t_upper": str(lo + (hi - lo) / 1000)},
                  {"t_lower": str(hi - (hi - lo) / 1000), "t_upper": str(hi)}):
        c["claim"].update(claim)
        v = check_certificate(reseal(c))
        assert v.status == "not-proved", v
    v = _tampered(cert, ["witness", "c"], "100")
    assert v.status == "not-proved", v


def _float_limit(problem, t=300.0):
    from scipy.integrate import solve_ivp

    from symgauss.questions.regime.reference import float_field
    f, full, y0 = float_field(problem)
    sol = solve_ivp(f, (0, t), y0, method="LSODA", rtol=1e-12, atol=1e-14)
    return full(sol.y[:, -1])


def test_classify_general_v_stable_equilibrium_matches_integration():
    p = load_problem(EX / "general3.json")
    r = classify(p, digits=15)
    assert (r.kind, r.level) == ("stable-equilibrium", "rigorous")
    S = np.array([[float(Fraction(x)) for x in row] for row in r.equilibrium])
    assert np.max(np.abs(S - _float_limit(p))) < 1e-9
    # the rate is a lower bound of the decay rate: every eigenvalue of the linearisation
    from _oracle import lin_float
    A = np.array(p.A.tolist(), dtype=float)
    heads = [(np.array(h.V.tolist(), dtype=float), np.array(h.B.tolist(), dtype=float))
             for h in p.params.heads]
    assert max(np.linalg.eigvals(lin_float(A, heads, S)).real) <= -float(Fraction(r.rate))


def test_classify_singular_limit_is_singular_by_integration():
    p = load_problem(EX / "singular_limit.json")
    r = classify(p, digits=15)
    assert (r.kind, r.level) == ("singular-limit", "rigorous")
    lam = np.linalg.eigvalsh(_float_limit(p))
    assert abs(lam[0]) < 1e-9 and lam[-1] > 0.1


def test_classify_general_v_blowup_enclosure_holds_the_float_time():
    from symgauss.questions.regime.reference import reference_regime
    p = load_problem(EX / "general_blowup.json")
    r = classify(p, digits=15)
    assert (r.kind, r.level) == ("blow-up", "rigorous")
    lo, hi = (float(Fraction(x)) for x in r.enclosure)
    t = reference_regime(p)["t_star"]
    assert lo - 1e-8 <= t <= hi + 1e-8 and hi - lo < 1e-6


def _run(*args):
    return subprocess.run([str(SCRIPT), "regime", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def test_cli_regime_json_keys_and_certificate(tmp_path):
    out = _run(str(EX / "general3.json"), "--json", "--certificate", str(tmp_path / "c.json"))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    for key in ("kind", "level", "t_star", "enclosure", "equilibrium", "rate", "certificate",
                "evidence", "tried"):
        assert key in data
    assert data["kind"] == "stable-equilibrium" and data["certificate"]
    chk = subprocess.run([str(SCRIPT), "check", data["certificate"]], capture_output=True,
                         text=True, cwd=ROOT)
    assert chk.returncode == 0 and "VERIFIED" in chk.stdout


def test_cli_regime_time_varying_names_solve(tmp_path):
    f = tmp_path / "switched.json"
    f.write_text((EX / "switched.json").read_text())
    out = _run(str(f))
    assert out.returncode == 2 and "solve" in out.stderr and out.stderr.count("\n") == 1


def test_growth_with_an_indefinite_quadratic_part_is_proved():
    # d = 2: exponential growth along a null direction of B (kind growth); was undecided before
    p = Problem(cov0=[["3/4", 0], [0, "1/2"]], A=[["7/8", "-3/8"], ["1/4", "1/2"]],
                V=[["1/8", "-1/2"], ["-5/8", "-3/8"]], B=[["-1/4", "1/4"], ["3/4", "-1/8"]])
    r = classify(p, digits=15)
    assert (r.kind, r.level) == ("growth", "rigorous"), r.evidence
    assert claim_holds(r.certificate_data)


def test_steps_that_miss_the_region_say_where_every_try_stopped():
    """find_limit's reason names each try of steps_into_region (the region's metric, changing
    metric, ‖·‖_2, C¹ steps) and where it stopped; it used to give only the last one's, which on seed-2
    general-1-d2 hid that the first had run out of steps at t ≈ 93 while contracting."""
    from symgauss.kernel.equations import svec
    from symgauss.kernel.flow import Flow
    from symgauss.kernel.read import read_problem
    from symgauss.questions.regime.basin import (
        _problem_data,
        contraction_region,
        newton_center,
        steps_into_region,
    )
    from symgauss.questions.regime.reference import reference_regime
    p = load_problem(EX / "general3.json")
    ep = read_problem(_problem_data(p))
    c = newton_center(ep.params, reference_regime(p)["limit"], p.d)
    with flint.ctx.workprec(128):
        P, ell, rho, _ = contraction_region(Flow(ep.params), c)
    run, _ = steps_into_region(ep.params, svec(ep.cov0), P, ell, c, rho, t_max=0.05)
    assert not run.stopped
    parts = run.why.split("; ")
    assert [x.split(":")[0] for x in parts] == [
        "in the region's metric", "changing metric along the solution", "in ‖·‖_2",
        "C¹ steps (the enclosure's shape carried along)"], run.why
    assert all(": stopped at t = " in x and " steps" in x for x in parts), run.why


def test_a_growth_whose_rate_keeps_rising_is_not_called_growth():
    """Seed-2 general-11-d3: ‖Σ‖ passes 1e6 at relative speed ≈ 440 (under the blow-up test's
    1e3), up from ≈ 54 at 1e4 — faster than exponential, which in floats can be a blow-up; it
    was answered 'growth' at level float. A steady growth of the same seed still is one, and
    classify still tries the growth proofs (their reason is in ``tried``)."""
    from symgauss.questions.regime.ensemble import ensemble
    from symgauss.questions.regime.reference import STEADY, reference_regime
    ps = {q.name: q for _, q in ensemble(48, seed=2)}
    ref = reference_regime(ps["general-11-d3"])
    assert (ref["kind"], ref["growth_seen"]) == ("unclear", True)
    found = re.findall(r"speed ([\d.]+), up from ([\d.]+)", ref["note"])
    high, low = (float(x) for x in found[0])
    assert high > 5 * low > 5 * STEADY
    assert reference_regime(ps["growth-38-d2"])["kind"] == "growth"
    r = classify(ps["general-11-d3"], digits=15)
    assert r.kind == "undecided"
    assert "faster than exponential" in r.tried[0]
    assert any(t.startswith("validated integration + an invariant region at infinity")
               for t in r.tried), r.tried


def test_undecided_says_why_and_what_was_tried():
    # symmetric B, d = 4 (seed-21 ensemble, problem 23): the solution passes near a saddle at
    # infinity and lingers there; no method here decides it
    from symgauss.questions.regime.ensemble import ensemble
    _, p = ensemble(24, seed=21)[23]
    r = classify(p, digits=15)
    assert r.kind == "undecided", r
    assert r.evidence and len(r.tried) >= 2


def test_the_float_reference_does_not_call_a_saddle_at_infinity_a_blow_up():
    """Seed-21 problem 23: ‖Σ‖ passes 1e6 fast (LSODA's first estimate T* ≈ 1.4105), but an
    independent DOP853 run finds Σ(1.42) finite (tr Σ ≈ 2.5e7): the reference, which now goes on
    to ‖Σ‖ = 1e12 and compares the two estimates, says unclear (the reference is also
    classify's proposal, so no blow-up is searched for there)."""
    from scipy.integrate import solve_ivp

    from symgauss.questions.regime.ensemble import ensemble
    from symgauss.questions.regime.reference import float_field, reference_regime
    _, p = ensemble(24, seed=21)[23]
    assert reference_regime(p)["kind"] == "unclear"
    f, full, y0 = float_field(p)
    sol = solve_ivp(f, (0, 1.42), y0, method="DOP853", rtol=1e-13, atol=1e-16)
    assert sol.status == 0 and 1e6 < np.trace(full(sol.y[:, -1])) < 1e9


def test_a_float_reference_over_its_evaluation_budget_is_unclear_and_says_so(monkeypatch):
    """LSODA stops after MAX_EVALS field evaluations: the reference is unclear, with a note that
    classify's ``tried`` repeats (here with a budget of 200 on a plain blow-up, which needs more)."""
    import symgauss.questions.regime.reference as reference
    p = Problem(cov0=[[1, 0], [0, 1]], A=[[0, 1], [-1, 0]], V=[[1, 0], [0, 1]],
                B=[[1, 0], [0, 1]])
    assert reference.reference_regime(p)["kind"] == "blow-up"
    monkeypatch.setattr(reference, "MAX_EVALS", 200)
    ref = reference.reference_regime(p)
    assert ref["kind"] == "unclear" and "200 field evaluations" in ref["note"]
    r = classify(p)
    assert any("200 field evaluations" in t for t in r.tried), r.tried


def test_a_float_reference_that_neither_settles_nor_diverges_says_what_it_saw():
    """Σ0 = diag(2, 1/2) turned by A = [[0, 1], [−1, 0]] (no attention): Σ(t) is a rotation of
    Σ0, so ‖Σ‖_F = √(4 + 1/4) ≈ 2.06 and λmin/λmax = 1/4 for ever, and it never settles. The
    reference was a bare "unclear"; it now says what the float run saw. A shear, A = [[0, 1],
    [0, 0]], makes ‖Σ‖ grow like t²: still rising, not "looks bounded"."""
    from symgauss.questions.regime.reference import reference_regime
    turn = Problem(cov0=[[2, 0], [0, "1/2"]], A=[[0, 1], [-1, 0]], V=[[0, 0], [0, 0]],
                   B=[[0, 0], [0, 0]])
    ref = reference_regime(turn)
    assert ref["kind"] == "unclear", ref
    assert "‖Σ‖ between 2.06 and 2.06" in ref["note"], ref["note"]
    assert "λmin/λmax = 0.25" in ref["note"] and "looks bounded" in ref["note"], ref["note"]
    shear = Problem(cov0=[[1, 0], [0, 1]], A=[[0, 1], [0, 0]], V=[[0, 0], [0, 0]],
                    B=[[0, 0], [0, 0]])
    ref = reference_regime(shear, t_max=400)
    assert ref["kind"] == "unclear" and "still rising" in ref["note"], ref


@pytest.mark.slow
def test_the_seed_9_problem_that_kept_lsoda_busy_for_minutes_reaches_the_budget(monkeypatch):
    """Seed-9 general-11-d3: LSODA went past 3 million field evaluations (over a minute, and the
    bench's 120 s limit for classify); it now stops at the budget, so `symgauss regime` answers
    undecided with the reason instead of running on."""
    import symgauss.questions.regime.reference as reference
    from symgauss.questions.regime.ensemble import ensemble
    p = next(q for _, q in ensemble(48, seed=9) if q.name == "general-11-d3")
    real, calls = reference.float_field, []

    def counted(problem):
        f, full, y0 = real(problem)
        return (lambda t, y: calls.append(1) or f(t, y)), full, y0
    monkeypatch.setattr(reference, "float_field", counted)
    ref = reference.reference_regime(p)
    assert ref["kind"] == "unclear" and len(calls) == reference.MAX_EVALS, len(calls)


@pytest.mark.slow
def test_a_slow_singular_limit_whose_accurate_steps_ran_out_is_certified(tmp_path):
    """Seed-10 symmetric-B-13-d3: Σ(t) → a rank-one limit, slowest rates 0.11 and 0.27; the
    steps stayed accurate but the 2000 the kernel reads ended at t = 78 before the region
    (entered near t = 81, float); a second try with longer steps enters it (the answer was
    float, after 71 s in the bench)."""
    from symgauss.kernel.checker import check_file
    from symgauss.questions.regime.ensemble import ensemble
    p = next(q for _, q in ensemble(48, seed=10) if q.name == "symmetric-B-13-d3")
    r = classify(p, certificate_dir=tmp_path)
    assert (r.kind, r.level) == ("singular-limit", "rigorous"), r.evidence
    assert check_file(r.certificate).status == "verified"
    S = np.array(r.equilibrium, dtype=float)
    assert np.linalg.eigvalsh(S)[0] < 1e-9 < np.linalg.eigvalsh(S)[-1]


@pytest.mark.parametrize("seed, name, kind", [
    (4, "general-31-d2", "singular-limit"), (10, "symmetric-B-33-d2", "stable-equilibrium")])
def test_a_limit_approached_at_rate_0_02_is_decided_and_certified(tmp_path, seed, name, kind):
    """‖F(Σ(t))‖ is still ≈ 1e-5 at t = 400 (rates near 0.02): with the float reference
    stopping there the answer was undecided, and no proof was tried. The oracle integrates
    on to t = 2000 by itself."""
    from symgauss.kernel.checker import check_file
    from symgauss.questions.regime.ensemble import ensemble
    from symgauss.questions.regime.reference import reference_regime
    p = next(q for _, q in ensemble(48, seed=seed) if q.name == name)
    assert reference_regime(p, t_max=400)["kind"] == "unclear"
    r = classify(p, certificate_dir=tmp_path)
    assert (r.kind, r.level) == (kind, "rigorous"), r.evidence
    assert check_file(r.certificate).status == "verified"
    assert claim_holds(json.loads(Path(r.certificate).read_text()))


def _float_blowup_time(problem, big=1e9):
    """T* from DOP853 on svec Σ (rtol 1e-13) up to ‖Σ‖ = big, plus 1/(relative speed)."""
    from scipy.integrate import solve_ivp

    from symgauss.questions.regime.reference import float_field
    f, full, y0 = float_field(problem)

    def stop(_t, y):
        return np.max(np.abs(y)) - big
    stop.terminal = True
    sol = solve_ivp(f, (0, 50), y0, method="DOP853", rtol=1e-13, atol=1e-16, events=stop)
    y = sol.y[:, -1]
    return sol.t[-1] + np.linalg.norm(y) / np.linalg.norm(f(0, y))


def test_a_blowup_two_float_integrations_agree_on_is_answered_at_level_float(monkeypatch):
    """general V, d = 3 (seed-13 ensemble, problem 41): the direction Σ/tr Σ keeps turning
    (no equilibrium at infinity), so no proof; LSODA and the float projective system agree on
    T*, so the answer is blow-up at level float, T* to the digits they share — checked here
    against a third integration (DOP853). When the two float times disagree: undecided."""
    import symgauss.questions.blowup.projective as projective
    from symgauss.questions.regime.ensemble import ensemble
    _, p = ensemble(42, seed=13)[41]
    r = classify(p, digits=15)
    assert (r.kind, r.level, r.enclosure, r.certificate_data) == ("blow-up", "float", None, None)
    digits = len(r.t_star.replace(".", "").lstrip("0"))
    assert 4 <= digits <= 6
    t = _float_blowup_time(p)
    assert abs(float(r.t_star) - t) <= 0.5 * 10 ** (1 - digits) * t + 1e-7 * t
    true = projective.projective_float
    monkeypatch.setattr(projective, "projective_float",
                        lambda q, **kw: (lambda t, c, k: (t * (1 + 3e-5), c, k))(*true(q, **kw)))
    r = classify(p, digits=15)
    assert r.kind == "undecided" and any("disagree" in x for x in r.tried), r


@pytest.mark.slow
def test_a_long_blowup_gets_its_second_float_time_from_more_projective_steps(monkeypatch):
    """seed-171 general-11-d3: T* ≈ 6.94, the direction at infinity keeps turning (no proof);
    the projective run reaches u → 0 after about 535 Taylor steps (534 with the packages of
    2026-12-03, 535 with numpy 2.4.6 / scipy 1.17.1 on 2026-12-04: a float64 step count), past
    its default 400, so the answer was undecided. With classify.PROJECTIVE_STEPS it is blow-up at
    level float, T* as a third integration (DOP853) has it; with 400 steps it is undecided
    again."""
    import symgauss.questions.regime.classify as classify_module
    from symgauss.questions.regime.ensemble import ensemble
    p = next(q for _, q in ensemble(48, seed=171) if q.name == "general-11-d3")
    r = classify(p, digits=15)
    assert (r.kind, r.level, r.enclosure, r.certificate_data) == ("blow-up", "float", None, None)
    steps = re.search(r"after (\d+) Taylor steps", r.evidence)
    assert steps and 400 < int(steps.group(1)) <= classify_module.PROJECTIVE_STEPS, r.evidence
    digits = len(r.t_star.replace(".", "").lstrip("0"))
    t = _float_blowup_time(p)
    assert abs(float(r.t_star) - t) <= 0.5 * 10 ** (1 - digits) * t + 1e-7 * t
    monkeypatch.setattr(classify_module, "PROJECTIVE_STEPS", 400)
    r = classify(p, digits=15)
    assert r.kind == "undecided"
    assert any("projective system in float64: no u → 0" in x for x in r.tried), r.tried


@pytest.mark.slow
def test_a_late_blowup_is_within_the_projective_steps():
    """seed-761 symmetric-B-43-d3: T* ≈ 19.3 after a long stretch where Σ looks bounded. The
    float projective run reaches u → 0 after 3 687 Taylor steps, past the earlier budget of
    2 000 (then classify was undecided) and within classify.PROJECTIVE_STEPS, at the T* of a
    third integration (DOP853) to 1e-5 relative, classify's FLOAT_AGREE."""
    import symgauss.questions.regime.classify as classify_module
    from symgauss.questions.blowup.projective import projective_float
    from symgauss.questions.regime.ensemble import ensemble
    p = next(q for _, q in ensemble(48, seed=761) if q.name == "symmetric-B-43-d3")
    assert projective_float(p, max_steps=2000)[0] is None
    t, _, steps = projective_float(p, max_steps=classify_module.PROJECTIVE_STEPS)
    assert t is not None and 2000 < steps <= classify_module.PROJECTIVE_STEPS
    assert abs(t - _float_blowup_time(p)) <= classify_module.FLOAT_AGREE * t


def test_a_blowup_below_a_proof_level_says_what_was_tried():
    # general V, d = 3 (seed-13 ensemble, problem 11): blow-up at high precision only; the
    # answer must list the proof attempts and why each failed
    from symgauss.questions.regime.ensemble import ensemble
    _, p = ensemble(12, seed=13)[11]
    r = classify(p, digits=15)
    assert r.kind == "blow-up"
    if r.level not in ("exact", "rigorous"):
        assert any("comparison bounds" in t for t in r.tried)
        assert any("region at infinity" in t for t in r.tried)


def test_over_the_d_limit_is_invalid_naming_the_limit():
    cert = _load("limit_general3.json")
    d = 6
    cert["problem"] = {"cov0": [[int(i == j) for j in range(d)] for i in range(d)],
                       "A": [[-int(i == j) for j in range(d)] for i in range(d)]}
    v = check_certificate(reseal(cert))
    assert v.status == "invalid" and "d ≤ 5" in v.reason, v


def test_an_unproved_blow_up_against_a_converging_integration_is_undecided(monkeypatch):
    """decide_blowup's float root of det M(t) at a late time (cancellation in D⁻¹ − LᵀG(t)L;
    found on vI-20-d4, seed 7, T* ≈ 87.65 while Σ(t) converges) must not become a blow-up
    answer when the integration converges: two unproved answers that disagree give undecided."""
    import symgauss.questions.blowup.decide as decide
    import symgauss.questions.regime.basin as basin
    import symgauss.questions.regime.reference as reference
    from symgauss.questions.blowup.result import BlowupResult
    from symgauss.questions.regime.basin import LimitResult
    monkeypatch.setattr(reference, "reference_regime", lambda p: {
        "kind": "stable-equilibrium", "t_star": None, "limit": [[1, 0], [0, 1]]})
    monkeypatch.setattr(basin, "find_limit", lambda *_: LimitResult(None, None, "stalled"))
    monkeypatch.setattr(decide, "decide_blowup", lambda p, digits, certify: BlowupResult(
        "blow-up", True, "87.65", None, False, "float root", "high-precision", "root found"))
    r = classify(Problem(cov0=[[1, 0], [0, 1]], A=[[1, 1], [0, 1]], V=[[-1, 0], [0, -1]],
                         B=[[1, 1], [0, 1]]))
    assert r.kind == "undecided" and r.level is None
    assert any("87.65" in t for t in r.tried)


def test_a_pace_starts_the_next_step_where_the_last_one_was_made():
    """With a kernel that accepts only steps up to about h/64, the first step halves six times; the
    next ones start at the made fraction (twice it after a first-try success), and each makes
    the same step as without the pace."""
    from symgauss.integrate.validated import Pace, shortened_step
    from symgauss.kernel.flow import Flow
    from symgauss.kernel.verdict import NotProved
    flow = Flow(read_problem({"cov0": [[1]], "A": [[-1]], "V": [[1]], "B": [[1]]}).params)
    with flint.ctx.workprec(128):
        co = flow.taylor(flow.box([flint.fmpq(1)]), 8)
        tries = []

        def validate(H, nxt):
            tries.append(H)
            if float(H) > 0.005:     # 0.3/64 ≈ 0.00469 passes, 0.3/32 does not
                raise NotProved("no a-priori box")
            return [0.1], flint.arb(0), flint.arb(0), 1.0
        made, pace = [], Pace()
        for _ in range(4):
            tries.clear()
            made.append((shortened_step(flow, co, 8, 30, 0.3, 1.0, 1.0, flint.arb(0), validate,
                                        pace)[0], len(tries)))
        tries.clear()
        alone = shortened_step(flow, co, 8, 30, 0.3, 1.0, 1.0, flint.arb(0), validate)[0]
    assert [n for _, n in made] == [7, 1, 2, 1] and len(tries) == 7
    assert all(H == alone for H, _ in made)


def test_the_compiled_conditioning_sdp_takes_each_new_matrix():
    """The SDP compiled once per n is solved for the matrix it is given now: a normal Hurwitz
    matrix has the identity as its best-conditioned metric (condition 1), a non-normal one
    needs condition > 1, and the first again gives 1."""
    from symgauss.integrate.validated import conditioned_lyapunov
    normal, skewed = np.diag([-1.0, -2.0]), np.array([[-1.0, 10.0], [0.0, -1.0]])
    conds = []
    for L in (normal, skewed, normal):
        P = conditioned_lyapunov(L, 0.0)
        assert np.linalg.eigvalsh((L.T @ P + P @ L + (L.T @ P + P @ L).T) / 2)[-1] <= 1e-7
        w = np.linalg.eigvalsh(P)
        conds.append(w[-1] / w[0])
    assert conds[0] == pytest.approx(1, abs=1e-5) and conds[2] == pytest.approx(1, abs=1e-5)
    assert conds[1] > 10


def test_the_conditioning_sdp_does_not_depend_on_what_was_solved_before():
    """The same matrix gives a bit-identical metric after other solves of the compiled SDP (an
    updated Clarabel solver kept the last solve's state: 3e-15 apart at n = 10, enough to move a
    growth search's steps past its budget when other tests had run first)."""
    import warnings

    from symgauss.integrate.validated import conditioned_lyapunov
    rng = np.random.default_rng(3)
    Ls = [rng.normal(size=(10, 10)) * 0.3 - 2 * np.eye(10) for _ in range(4)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = conditioned_lyapunov(Ls[0], 0.0)
        for L in Ls[1:]:
            conditioned_lyapunov(L, 0.0)
        again = conditioned_lyapunov(Ls[0], 0.0)
    assert first is not None and np.array_equal(first, again)
