"""C¹ steps of the compactified flow (issue 13, items 1 and 3): the shape-carrying steps of
:mod:`symgauss.kernel.steps` on :class:`CompactFlow`, for blow-ups whose log-norm compactified
steps lose their accuracy (a direction that turns at infinity).

The tangents are checked against central differences of the Taylor coefficients (256 bits) and
the all-directions matrix form against the direction-by-direction recursion; the checked-in
certificate holds T* from an independent float integration of the compactified flow written
here; every part of a C¹ compactified step is tampered; their price counts in the work limit.
"""
from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import flint
import numpy as np
import pytest
from _mutation import reseal
from _oracle import claim_holds
from test_blowup_turning import _params, _t_star

from symgauss.kernel.checker import check_certificate
from symgauss.kernel.flow import Flow
from symgauss.kernel.kinds.blowup_infinity import CompactFlow
from symgauss.kernel.read import read_problem

ROOT = Path(__file__).resolve().parents[1]
FILE = ROOT / "certificates" / "blowup_turning_c1.json"


def _cert():
    return json.loads(FILE.read_text())


def _two_heads_d3():
    return read_problem({
        "cov0": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
        "A": [["1/3", "1/5", "0"], ["-1/2", "1/7", "1/4"], ["0", "1/3", "-1/5"]],
        "heads": [{"V": [["1/2", "1/3", "0"], ["0", "-1", "1/4"], ["1/5", "0", "1/3"]],
                   "B": [["1", "1/7", "0"], ["1/3", "1/2", "0"], ["0", "1/4", "1"]]},
                  {"V": [["-1/2", "0", "1/3"], ["1/5", "1", "0"], ["0", "1/7", "1/3"]],
                   "B": [["1/2", "0", "1/4"], ["0", "1", "1/6"], ["1/3", "0", "1/2"]]}]})


def test_compact_tangents_are_the_derivatives_of_the_taylor_coefficients():
    """Central differences (step 10⁻³⁰ at 256 bits) of CompactFlow.taylor's coefficients along
    each unit agree with tangent_matrices to 10⁻⁴⁰; the matrix form agrees with tangents (the
    recursion along one direction at a time) to 10⁻⁶⁰. Two heads, d = 3, with the elapsed time."""
    p = _two_heads_d3()
    rng = np.random.default_rng(3)
    with flint.ctx.workprec(256):
        cf = CompactFlow(Flow(p.params))
        m = cf.m
        z = [flint.fmpq(int(k), 10) for k in rng.integers(-9, 10, m)]
        D = cf.tangent_matrices(cf.box(z), 6)
        eps = flint.fmpq(1, 10 ** 30)
        worst = 0.0
        for j in range(m):
            hi, lo = list(z), list(z)
            hi[j] += eps
            lo[j] -= eps
            Th, Tl = cf.taylor(cf.box(hi), 6), cf.taylor(cf.box(lo), 6)
            for k in range(7):
                for i in range(m):
                    fd = (Th[k][i, 0] - Tl[k][i, 0]) / (2 * flint.arb(eps))
                    worst = max(worst, float(abs(fd - D[k][i, j]).mid()))
        assert worst < 1e-40, worst
        assert max(float(abs(D[k][i, j]).mid()) for k in range(1, 7) for i in range(m)
                   for j in range(m)) > 1e-3       # not all zero: the test can fail
        units = [cf.box([int(i == j) for i in range(m)]) for j in range(m)]
        T = cf.tangents(cf.box(z), 6, units)
        gap = max(float(abs(T[j][k][i, 0] - D[k][i, j]).mid()) for k in range(7)
                  for i in range(m) for j in range(m))
        assert gap < 1e-60, gap


def test_the_c1_turning_certificate_verifies_and_holds_an_independent_t_star():
    c = _cert()
    assert c["witness"]["compact_steps"] and all(
        "nu" in s and "mu" not in s for s in c["witness"]["compact_steps"])
    v = check_certificate(c)
    assert (v.status, v.kind) == ("verified", "blowup-turning"), v.reason
    assert claim_holds(c)
    A, heads = _params(c["problem"])
    S0 = np.array([[float(Fraction(x)) for x in r] for r in c["problem"]["cov0"]])
    t = _t_star(A, heads, S0)
    lo, hi = (float(Fraction(c["claim"][k])) for k in ("t_lower", "t_upper"))
    assert lo < t <= hi, (lo, t, hi)
    assert abs(t - 1.2958693939683041) < 1e-6      # the float reference, LSODA on svec Σ


def _tampered(edit):
    c = copy.deepcopy(_cert())
    steps = c["witness"]["compact_steps"]
    k = len(steps) // 2
    if edit == "nu_small":
        steps[k]["nu"] = str(Fraction(steps[k]["nu"]) * Fraction(9, 10))
    elif edit == "nu_half_everywhere":
        for s in steps:
            s["nu"] = str(Fraction(s["nu"]) / 2)
    elif edit == "nu_zero":
        steps[k]["nu"] = "0"
    elif edit == "nu_and_mu":
        steps[k]["mu"] = "1"
    elif edit == "nu_as_mu":            # the same number read as a log-norm rate
        steps[k]["mu"] = steps[k].pop("nu")
    elif edit == "point":
        steps[k]["point"] = [str(Fraction(x) + Fraction(1, 10 ** 6))
                             for x in steps[k]["point"]]
    elif edit == "last_point":
        steps[-1]["point"] = [str(Fraction(x) * Fraction(11, 10)) for x in steps[-1]["point"]]
    elif edit == "beta":
        steps[k]["beta"] = "1e-40"
    elif edit == "h":
        steps[k]["h"] = str(Fraction(steps[k]["h"]) * 2)
    elif edit == "dropped_step":
        steps.pop(k)
    return reseal(c)


EDITS = ["nu_small", "nu_half_everywhere", "nu_zero", "nu_and_mu", "nu_as_mu", "point",
         "last_point", "beta", "h", "dropped_step"]


@pytest.mark.slow
@pytest.mark.parametrize("edit", EDITS)
def test_a_tampered_c1_compact_step_is_not_verified(edit):
    v = check_certificate(_tampered(edit))
    assert v.status in ("not-proved", "invalid"), (edit, v)
    assert "problem_hash" not in v.reason and "statement" not in v.reason, v.reason
    if edit in ("nu_zero", "nu_and_mu"):
        assert v.status == "invalid", v.reason
    if edit in ("nu_small", "nu_half_everywhere"):
        assert "ν" in v.reason, v.reason


def test_c1_compact_steps_count_at_their_own_price_in_the_work_limit():
    """Three copies of the certificate's 400 C¹ compactified steps pass the work limit as
    log-norm compactified steps (refused later, at a step) but not as C¹ steps: the file is
    refused as over a limit before any step is checked."""
    from symgauss.kernel.flow import MAX_STEP_WORK, step_work
    c = _cert()
    w = c["witness"]
    many = w["compact_steps"] * 3
    n_plain = len(w["steps"]) + w["cells"] // 4 + len(w.get("metrics", []))
    assert (len(many) * step_work(2, 1, 24, 128, "compact") + n_plain * step_work(2, 1, 24, 128)
            < MAX_STEP_WORK < len(many) * step_work(2, 1, 24, 128, "compact-c1"))
    as_c1 = copy.deepcopy(c)
    as_c1["witness"]["compact_steps"] = copy.deepcopy(many)
    v = check_certificate(reseal(as_c1))
    assert v.status == "invalid" and "over a limit" in v.reason and "1200 C¹" in v.reason, \
        v.reason
    as_log = copy.deepcopy(c)
    as_log["witness"]["compact_steps"] = [{**{k: s[k] for k in ("h", "beta", "point")},
                                           "mu": s["nu"]} for s in copy.deepcopy(many)]
    v = check_certificate(reseal(as_log))
    assert "over a limit" not in v.reason and v.status != "verified", v.reason
