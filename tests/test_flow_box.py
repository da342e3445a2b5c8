"""The a-priori box of the kernel's validated step (:mod:`symgauss.kernel.flow`): one radius per
svec coordinate and the affine log-norm bound on it (issue 13).

The bound is compared with the log-norm computed in floats at points sampled in the box
(vertices included): every sampled value must lie below what the kernel accepted. Tampered
per-coordinate radii must not verify.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import flint
import numpy as np
import pytest
from _mutation import reseal
from _oracle import claim_holds
from scipy.linalg import eigh

from symgauss.kernel.checker import check_certificate
from symgauss.kernel.flow import Flow, contracts, contracts_box, slopes, spreads, sym_of
from symgauss.kernel.read import read_problem

ROOT = Path(__file__).resolve().parents[1]


def _params(rng, d):
    r = lambda: [[str(round(x * 8) / 8) for x in row] for row in rng.normal(0, 0.7, (d, d))]  # noqa: E731
    return read_problem({"cov0": np.eye(d).tolist(), "A": r(), "V": r(), "B": r()}).params


def _spd(rng, n, cond):
    Q = np.linalg.qr(rng.normal(size=(n, n)))[0]
    P = Q @ np.diag(np.geomspace(1, 1 / cond, n)) @ Q.T
    Pq = flint.fmpq_mat(n, n, [flint.fmpq(round(P[max(i, j), min(i, j)] * 2 ** 40), 2 ** 40)
                               for i in range(n) for j in range(n)])
    return Pq, np.array([[float(Pq[i, j]) for j in range(n)] for i in range(n)])


def _jac(flow, x, n):
    J = flow.jacobian(sym_of([flint.fmpq(round(v * 2 ** 40), 2 ** 40) for v in x], flow.d))
    return np.array([[float(J[i, j].mid()) for j in range(n)] for i in range(n)])


def _least_accepted(flow, Pa, centre, radii, s):
    lo, hi = -50.0, 1e6
    assert contracts_box(flow, Pa, centre, radii, -flint.arb(hi), s)
    for _ in range(40):
        mid = (lo + hi) / 2
        if contracts_box(flow, Pa, centre, radii, -flint.arb(mid), s):
            hi = mid
        else:
            lo = mid
    return hi


@pytest.mark.parametrize("seed,d,cond", [(0, 2, 1e4), (1, 3, 1e3), (2, 2, 1.0), (3, 3, 1e5)])
def test_the_affine_log_norm_bound_holds_on_the_whole_box(seed, d, cond):
    rng = np.random.default_rng(seed)
    n = d * (d + 1) // 2
    with flint.ctx.workprec(128):
        flow = Flow(_params(rng, d))
        P, Pn = _spd(rng, n, cond)
        Pa = flint.arb_mat(P)
        s = slopes(flow, Pa)
        # s_k bounds every generalised eigenvalue of (J_kᵀP + PJ_k, P)
        J0 = _jac(flow, [0.0] * n, n)
        for k in range(n):
            e = np.zeros(n)
            e[k] = 1
            Jk = _jac(flow, e, n) - J0
            lam = eigh(Jk.T @ Pn + Pn @ Jk, Pn, eigvals_only=True)
            assert np.max(np.abs(lam)) <= float(s[k].mid()) * (1 + 1e-9) + 1e-12
        centre = [flint.fmpq(round(x * 16), 16) for x in rng.normal(0, 1, n)]
        radii = [flint.fmpq(round(x * 1000) + 1, 1000) for x in rng.uniform(0, 0.3, n)]
        mu = _least_accepted(flow, Pa, centre, radii, s)
        worst = -np.inf
        c = np.array([float(x) for x in centre])
        r = np.array([float(x) for x in radii])
        for k in range(400):
            sign = rng.choice([-1.0, 1.0], n) if k % 2 else rng.uniform(-1, 1, n)
            J = _jac(flow, c + sign * r, n)
            worst = max(worst, eigh((J.T @ Pn + Pn @ J) / 2, Pn, eigvals_only=True)[-1])
        assert worst <= mu + 1e-9 * max(1.0, abs(mu))


def test_the_affine_bound_is_tighter_than_the_interval_matrix_on_an_ill_conditioned_metric():
    rng = np.random.default_rng(5)
    d, n = 2, 3
    with flint.ctx.workprec(128):
        flow = Flow(_params(rng, d))
        P, _ = _spd(rng, n, 1e5)
        Pa = flint.arb_mat(P)
        centre = [flint.fmpq(1), flint.fmpq(1, 4), flint.fmpq(2)]
        radii = [flint.fmpq(1, 20)] * n
        mu = _least_accepted(flow, Pa, centre, radii, slopes(flow, Pa))
        box = sym_of(centre, d, [flint.arb(b) for b in radii])
        assert not contracts(Pa, flow.jacobian(box), -flint.arb(mu))


def test_spreads_bound_each_coordinate_of_the_p_ball():
    rng = np.random.default_rng(7)
    n = 6
    P, Pn = _spd(rng, n, 1e4)
    ell = flint.fmpq(1, 10 ** 5)
    with flint.ctx.workprec(128):
        s = [float(v.mid()) for v in spreads(flint.arb_mat(P), ell)]
    for _ in range(2000):   # points on the unit P-sphere
        x = rng.normal(size=n)
        x /= np.sqrt(x @ Pn @ x)
        assert np.all(np.abs(x) <= np.array(s) * (1 + 1e-12))
    assert max(s) <= 1 / np.sqrt(float(ell)) * (1 + 1e-12)


def _limit_cert():
    return json.loads((ROOT / "certificates" / "limit_general3.json").read_text())


def _steps_with_list_beta(cert):
    n = len(cert["witness"]["steps"][0]["point"])
    c = copy.deepcopy(cert)
    for st in c["witness"]["steps"]:
        if not isinstance(st["beta"], list):
            st["beta"] = [st["beta"]] * n
    return c, n


def test_per_coordinate_radii_verify_and_tampered_ones_do_not():
    cert, n = _steps_with_list_beta(_limit_cert())
    assert check_certificate(reseal(cert)).status == "verified"
    assert claim_holds(cert)
    small = copy.deepcopy(cert)
    small["witness"]["steps"][2]["beta"][n - 1] = "1e-14"
    assert check_certificate(reseal(small)).status == "not-proved"
    for bad in (cert["witness"]["steps"][2]["beta"][:-1], ["0"] * n, ["x"] * n):
        c = copy.deepcopy(cert)
        c["witness"]["steps"][2]["beta"] = bad
        assert check_certificate(reseal(c)).status == "invalid", bad


@pytest.mark.slow
def test_a_non_normal_stable_problem_of_the_ensemble_is_certified():
    """growth-38-d2 (seed 13): DF is strongly non-normal while Σ grows to ≈ 300 before it
    settles; the first attempt stalled at t ≈ 3.3. Now a verified limit certificate, and the
    claim agrees with an independent float integration (the oracle)."""
    from symgauss.questions.regime.classify import classify
    from symgauss.questions.regime.ensemble import ensemble
    _, problem = ensemble(39, seed=13)[38]
    r = classify(problem)
    assert (r.kind, r.level) == ("stable-equilibrium", "rigorous"), r.tried
    assert check_certificate(r.certificate_data).status == "verified"
    assert claim_holds(r.certificate_data)
