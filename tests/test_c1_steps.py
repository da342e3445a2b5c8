"""C¹ steps (the mean-value form with the enclosure's shape carried along; issue 13 item 1):
they enclose the true solution, stay thin where log-norm steps of one metric grow, mix with
log-norm steps and changes of metric, and the kernel refuses every tampered part.

The true solutions here come from closed forms evaluated in mpmath (a linear flow's
e^{At}Σ0e^{Aᵀt}, the logistic equation), never from the integrators under test.
"""
from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import flint
import mpmath
import pytest
from _mutation import reseal, roundtrip

from symgauss.integrate.mean_value import integrate_c1
from symgauss.integrate.validated import integrate
from symgauss.kernel.checker import check_certificate
from symgauss.kernel.exact import eye
from symgauss.kernel.flow import Flow
from symgauss.kernel.read import read_problem
from symgauss.kernel.steps import Nu, check_steps
from symgauss.kernel.verdict import Invalid, NotProved

ROOT = Path(__file__).resolve().parents[1]


def _cert():
    return json.loads((ROOT / "certificates" / "limit_c1.json").read_text())


def _rotation():
    """Σ' = AΣ + ΣAᵀ with A = [[1/10, 3], [−3, 1/10]]: Σ(t) = e^{At}Σ0e^{Aᵀt} turns about five
    times by t = 10; in the svec coordinates (the off-diagonal entry counted once) no single
    metric sees that turn as an isometry, so log-norm steps of one metric widen at every step."""
    return read_problem({"cov0": [[2, 0], [0, "1/2"]], "A": [["1/10", 3], [-3, "1/10"]]})


def _exact_rotation(t):
    with mpmath.workdps(40):
        A = mpmath.matrix([[mpmath.mpf(1) / 10, 3], [-3, mpmath.mpf(1) / 10]])
        E = mpmath.expm(A * mpmath.mpf(int(t.p)) / mpmath.mpf(int(t.q)))
        S = E * mpmath.matrix([[2, 0], [0, mpmath.mpf(1) / 2]]) * E.T
        return [S[0, 0], S[0, 1], S[1, 1]]


def _distance(end, exact):
    """‖end − exact‖_2 at 40 digits (end exact rationals)."""
    with mpmath.workdps(40):
        return mpmath.sqrt(sum((mpmath.mpf(int(e.p)) / int(e.q) - x) ** 2
                               for e, x in zip(end, exact)))


def test_c1_steps_enclose_a_turning_flow_and_stay_thin_where_log_norm_steps_widen():
    p, r0 = _rotation(), flint.arb(flint.fmpq(1, 10 ** 8))
    start = [flint.fmpq(2), flint.fmpq(0), flint.fmpq(1, 2)]
    c1 = integrate_c1(p.params, start, eye(3), None, t_max=10, max_steps=2000, radius=r0)
    log = integrate(p.params, start, eye(3), flint.fmpq(1), None, t_max=10, max_steps=2000,
                    radius=r0)
    assert float(c1.t) >= 10 and float(log.t) >= 10, (c1.why, log.why)
    # the flow map is e^{0.2t} times an isometry of ‖·‖_F, and ‖·‖_F is within √2 of svec's ‖·‖_2
    grow = 2 * float(mpmath.exp(0.2 * float(c1.t)))
    assert float(c1.radius.mid()) < 2 * grow * float(r0), float(c1.radius.mid())
    assert float(log.radius.mid()) > 100 * grow * float(r0), float(log.radius.mid())
    # the kernel re-checks the C¹ run from the same ball, and its end ball holds the solution
    with flint.ctx.workprec(128):
        end, r = check_steps(Flow(p.params), flint.arb_mat(eye(3)), flint.fmpq(1), start,
                             c1.steps, 24, radius=flint.arb(r0))
    exact = _exact_rotation(c1.t)
    gap = _distance(end, exact)
    assert gap <= float(r.mid()) < 2 * grow * float(r0)


def test_c1_steps_enclose_the_logistic_closed_form_in_d2():
    # a diagonal problem is two logistic equations: σ_i' = 2a_iσ_i − 2σ_i², Σ_12 = 0
    p = read_problem({"cov0": [["1/4", 0], [0, 3]], "A": [[1, 0], [0, "1/2"]],
                      "V": [[-1, 0], [0, -1]], "B": [[1, 0], [0, 1]]})
    run = integrate_c1(p.params, [flint.fmpq(1, 4), flint.fmpq(0), flint.fmpq(3)], eye(3), None,
                       t_max=4)
    t = run.t
    assert all(isinstance(m, Nu) for _, _, m, _ in run.steps)
    with flint.ctx.workprec(200):
        T = flint.arb(t)
        s1 = 1 / (1 + 3 * (-2 * T).exp())                       # a = 1, σ0 = 1/4
        s2 = flint.arb(1) / 2 / (1 - (1 - flint.arb(1) / 6) * (-T).exp())   # a = 1/2, σ0 = 3
        for got, true in zip(run.points[-1], [s1, 0, s2]):
            assert abs(flint.arb(got) - true) < run.radius
    assert float(run.radius.mid()) < 1e-12


def test_log_norm_and_c1_steps_mix_with_changes_of_metric():
    """Log-norm steps, then C¹ steps (the kernel enters and leaves their shapes), then log-norm
    steps again after a change of metric: one list, re-checked from the start; the end ball
    holds the closed form."""
    from symgauss.integrate.validated import _kappa
    p = _rotation()
    start = [flint.fmpq(2), flint.fmpq(0), flint.fmpq(1, 2)]
    first = integrate(p.params, start, eye(3), flint.fmpq(1), None, t_max=0.5)
    mid = integrate_c1(p.params, first.points[-1], eye(3), None, t_max=3, radius=first.radius)
    P = flint.fmpq_mat([[2, 0, 0], [0, 1, 0], [0, 0, 2]])       # a change of metric here
    kappa = _kappa(eye(3), P)
    last = integrate(p.params, mid.points[-1], P, flint.fmpq(1), None, t_max=1,
                     radius=mid.radius * flint.arb(kappa))
    steps = first.steps + mid.steps + last.steps
    switches = {len(first.steps) + len(mid.steps): (flint.arb_mat(P), flint.fmpq(1), kappa)}
    with flint.ctx.workprec(128):
        end, r = check_steps(Flow(p.params), flint.arb_mat(eye(3)), flint.fmpq(1), start, steps,
                             24, switches=switches)
    t = sum((h for h, _, _, _ in steps), flint.fmpq(0))
    exact = _exact_rotation(t)
    # ‖x‖_2 ≤ ‖x‖_P for this P ⪰ I
    gap = _distance(end, exact)
    assert gap <= float(r.mid()) < 1e-10


def test_a_c1_step_is_refused_for_a_field_without_tangents():
    class Bare:          # the five methods check_steps needs, no tangent_matrices
        def __init__(self, flow):
            self.inner = flow

        def __getattr__(self, name):
            if name == "tangent_matrices":
                raise AttributeError(name)
            return getattr(self.inner, name)
    p = _rotation()
    run = integrate_c1(p.params, [flint.fmpq(2), 0, flint.fmpq(1, 2)], eye(3), None, t_max=0.1)
    with flint.ctx.workprec(128), pytest.raises(Invalid, match="eq. 1.1"):
        check_steps(Bare(Flow(p.params)), flint.arb_mat(eye(3)), flint.fmpq(1),
                    [flint.fmpq(2), 0, flint.fmpq(1, 2)], run.steps, 24)


def test_the_checked_in_c1_certificate_verifies_and_its_limit_is_the_float_limit():
    from _oracle import claim_holds
    c = _cert()
    assert all("nu" in s and "mu" not in s for s in c["witness"]["steps"])
    v = check_certificate(c)
    assert (v.status, v.kind) == ("verified", "limit"), v.reason
    assert claim_holds(c)


def _tampered(edit):
    c = copy.deepcopy(_cert())
    w, steps = c["witness"], c["witness"]["steps"]
    k = len(steps) // 2
    if edit == "nu_small":          # ν below what the step's derivative needs
        steps[k]["nu"] = str(Fraction(steps[k]["nu"]) * Fraction(9, 10))
    elif edit == "nu_tiny_everywhere":
        for s in steps:
            s["nu"] = "1/2"
    elif edit == "nu_zero":
        steps[k]["nu"] = "0"
    elif edit == "nu_negative":
        steps[k]["nu"] = "-1"
    elif edit == "nu_text":
        steps[k]["nu"] = "one"
    elif edit == "nu_and_mu":
        steps[k]["mu"] = "1"
    elif edit == "nu_extra_key":
        steps[k]["shape"] = [[1, 0], [0, 1]]
    elif edit == "nu_renamed":
        steps[k]["nus"] = steps[k].pop("nu")
    elif edit == "point":
        steps[k]["point"] = [str(Fraction(x) + Fraction(1, 1000)) for x in steps[k]["point"]]
    elif edit == "beta":
        steps[k]["beta"] = "1e-30"
    elif edit == "h":               # a longer step: the time no longer adds up
        steps[k]["h"] = str(Fraction(steps[k]["h"]) * 2)
    elif edit == "h_and_t_enter":   # ... and with the claimed time moved to match
        extra = Fraction(steps[k]["h"])
        steps[k]["h"] = str(extra * 2)
        c["claim"]["t_enter"] = str(Fraction(c["claim"]["t_enter"]) + extra)
    elif edit == "dropped_step":
        dropped = steps.pop(k)
        c["claim"]["t_enter"] = str(Fraction(c["claim"]["t_enter"]) - Fraction(dropped["h"]))
    elif edit == "rho":             # a region the enclosure's end does not fit
        w["rho"] = str(Fraction(w["rho"]) / 10 ** 6)
    return reseal(c)


EDITS = ["nu_small", "nu_tiny_everywhere", "nu_zero", "nu_negative", "nu_text", "nu_and_mu",
         "nu_extra_key", "nu_renamed", "point", "beta", "h", "h_and_t_enter", "dropped_step",
         "rho"]


@pytest.mark.parametrize("edit", EDITS)
def test_a_tampered_c1_certificate_is_not_verified(edit):
    v = check_certificate(_tampered(edit))
    assert v.status in ("not-proved", "invalid"), (edit, v)
    assert "problem_hash" not in v.reason and "statement" not in v.reason, v.reason
    if edit.startswith("nu_") and edit not in ("nu_small", "nu_tiny_everywhere"):
        assert v.status == "invalid", (edit, v.reason)
    if edit in ("nu_small", "nu_tiny_everywhere"):
        assert "ν" in v.reason, v.reason


def test_a_compactified_step_with_nu_is_checked_as_a_c1_step():
    """A log-norm compactified step turned into a C¹ step (tests/test_compact_c1.py has the
    certificates made of them) is checked as one: a ν far below the flow map's derivative from
    the start's shape is refused for ν, at that step."""
    c = json.loads((ROOT / "certificates" / "blowup_infinity_general.json").read_text())
    s = c["witness"]["compact_steps"][0]
    s.pop("mu")
    s["nu"] = "1/1000"
    v = check_certificate(reseal(c))
    assert v.status == "not-proved" and "ν" in v.reason and "step 0" in v.reason, v.reason


def test_c1_steps_count_at_their_own_price_in_the_work_limit():
    """Copies of the certificate's steps as log-norm steps fit the work budget where as C¹
    steps they do not: the file is refused as over a limit, before any step is checked."""
    from symgauss.kernel.flow import MAX_STEP_WORK, step_work
    c = _cert()
    d = len(c["problem"]["cov0"])
    c1_max = MAX_STEP_WORK // step_work(d, 1, 24, 128, "c1")
    steps = c["witness"]["steps"]
    many = (steps * (c1_max // len(steps) + 1))[:c1_max + 1]
    c["witness"]["steps"] = many
    c["claim"]["t_enter"] = str(sum(Fraction(s["h"]) for s in many))
    v = check_certificate(reseal(roundtrip(c)))
    if c1_max + 1 <= 2000:      # under MAX_STEPS: the work count is what refuses it
        assert v.status == "invalid" and "over a limit" in v.reason and "C¹" in v.reason, v.reason
    else:
        assert v.status == "invalid" and "at most 2000 steps" in v.reason, v.reason


def test_a_broken_c1_step_is_not_proved_and_names_the_step():
    p = _rotation()
    start = [flint.fmpq(2), flint.fmpq(0), flint.fmpq(1, 2)]
    run = integrate_c1(p.params, start, eye(3), None, t_max=1)
    h, beta, nu, pt = run.steps[5]
    broken = list(run.steps)
    broken[5] = (h, beta, Nu(nu.value / 2), pt)
    with flint.ctx.workprec(128), pytest.raises(NotProved, match="step 5: ν"):
        check_steps(Flow(p.params), flint.arb_mat(eye(3)), flint.fmpq(1), start, broken, 24)
