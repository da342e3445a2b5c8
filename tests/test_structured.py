"""Stability at large d with d×d witnesses: the kernel kinds stable-equilibrium-structured(-enclosed)
and the route that writes them (symgauss.questions.stability.structured).

The claims are re-derived independently: the Q-norm margin from the n×n svec matrices built
with floats here (Gram matrix of tr(QΔQΔ), the oracle's linearisation), the spectrum of the
linearisation by numpy.
"""
from __future__ import annotations

import copy
from fractions import Fraction

import flint
import numpy as np
import pytest
from _oracle import lin_float

import symgauss as sg
from symgauss.kernel.checker import check_certificate
from symgauss.kernel.read import mat_text
from symgauss.model.certificate import envelope
from symgauss.questions.stability.certify import certify
from symgauss.questions.stability.structured import certify_structured


def designed(d, eps, seed=0, den=20):
    """A problem with the rational equilibrium Σ* = I + GGᵀ: A = ΣŜ − VΣB (Ŝ skew) makes
    M = A + VΣB = ΣŜ, and MΣ + ΣMᵀ = Σ(Ŝ + Ŝᵀ)Σ = 0. V = −I + ε·noise, B = I + ε·noise."""
    rng = np.random.default_rng(seed)

    def rat(scale):
        x = np.round(scale * den * rng.standard_normal((d, d)) / np.sqrt(d))
        return flint.fmpq_mat(d, d, [flint.fmpq(int(v), den) for v in x.ravel()])
    eye = flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    G = rat(1.0)
    S = eye + G * G.transpose()
    V, B, K = rat(eps) - eye, rat(eps) + eye, rat(1.0)
    A = S * (K - K.transpose()) - V * S * B
    return sg.Problem(cov0=mat_text(eye), A=mat_text(A), V=mat_text(V), B=mat_text(B)), S


def floats(M):
    return np.array([[float(x) for x in r] for r in M], dtype=float)


def q_margin(problem, S, Q):
    """−λmax of the symmetric part of L in the inner product xᵀPx, P the svec Gram matrix of
    tr(QΔQΔ) (built entry by entry here)."""
    d = problem.d
    A = floats(problem.params.A.tolist())
    heads = [(floats(h.V.tolist()), floats(h.B.tolist())) for h in problem.params.heads]
    L = lin_float(A, heads, S)
    pairs = [(i, j) for i in range(d) for j in range(i, d)]
    E = []
    for i, j in pairs:
        X = np.zeros((d, d))
        X[i, j] = X[j, i] = 1
        E.append(X)
    P = np.array([[np.trace(Q @ a @ Q @ b) for b in E] for a in E])
    Pi = np.linalg.cholesky(P)
    H = np.linalg.solve(Pi, np.linalg.solve(Pi, (P @ L + L.T @ P) / 2).T)
    return -np.max(np.linalg.eigvalsh((H + H.T) / 2))


def abscissa(problem, S):
    A = floats(problem.params.A.tolist())
    heads = [(floats(h.V.tolist()), floats(h.B.tolist())) for h in problem.params.heads]
    return np.max(np.linalg.eigvals(lin_float(A, heads, S)).real)


def exact_cert(problem, S, Q, rate):
    return envelope("stable-equilibrium-structured", problem,
                    {"cov": mat_text(S), "rate": str(rate)}, {"Q": Q}, "rigorous")


@pytest.fixture(scope="module")
def d6():
    p, S = designed(6, 0.3)
    Sf = floats(S.tolist())
    Q = np.linalg.inv(Sf)
    Qtext = [[str(Fraction(Q[min(i, j), max(i, j)]).limit_denominator(10 ** 8))
              for j in range(6)] for i in range(6)]
    Qq = floats([[Fraction(x) for x in r] for r in Qtext])
    return p, S, Sf, Qtext, q_margin(p, Sf, Qq)


def test_the_kernel_proves_the_margin_and_no_more(d6):
    p, S, Sf, Q, m = d6
    assert 0 < m < -abscissa(p, Sf)
    below, above = (Fraction(f * m).limit_denominator(10 ** 6) for f in (0.99, 1.01))
    v = check_certificate(exact_cert(p, S, Q, below))
    assert v.status == "verified" and v.level == "rigorous", v.reason
    v = check_certificate(exact_cert(p, S, Q, above))
    assert v.status == "not-proved", v.reason     # a weak witness is never a refutation


def test_tampering_never_verifies(d6):
    p, S, Sf, Q, m = d6
    rate = Fraction(m / 2).limit_denominator(1000)
    c = exact_cert(p, S, Q, rate)
    bad = copy.deepcopy(c)                     # not an equilibrium: refuted, with the residual
    bad["claim"]["cov"][0][0] = str(Fraction(bad["claim"]["cov"][0][0]) + Fraction(1, 10 ** 9))
    bad["claim"]["cov"][1][0] = bad["claim"]["cov"][0][1]
    assert check_certificate(bad).status == "refuted"
    neg = copy.deepcopy(c)                     # −Q: the same P = Q⊗Q, but Q is not ≻ 0
    neg["witness"]["Q"] = [[str(-Fraction(x)) for x in r] for r in Q]
    assert check_certificate(neg).status == "not-proved"
    asym = copy.deepcopy(c)
    asym["witness"]["Q"][0][1] = "12345"
    assert check_certificate(asym).status == "invalid"
    lvl = copy.deepcopy(c)
    lvl["level"] = "exact"
    assert check_certificate(lvl).status == "invalid"


def test_the_route_certifies_exact_and_enclosed_equilibria():
    p, S = designed(5, 0.3, seed=1)
    res = certify_structured(p)
    assert res.status == "verified" and res.level == "rigorous"
    assert res.certificate["claim"]["cov"] == mat_text(S)
    rate = float(Fraction(res.certificate["claim"]["rate"]))
    assert 0 < rate <= -abscissa(p, floats(S.tolist()))
    # an irrational equilibrium: shift one entry of A by 1/7 (a nearby Σ*, not rational)
    data = p.to_dict()
    data["A"][0][1] = str(Fraction(data["A"][0][1]) + Fraction(1, 7))
    q = sg.Problem(**{k: data[k] for k in ("cov0", "A", "V", "B")})
    res = certify_structured(q, digits=20)
    assert res.status == "verified" and res.level == "rigorous", res.reason
    c = res.certificate["claim"]
    assert c["statement"].startswith("the unique equilibrium Σ* within Frobenius distance")
    C = floats([[Fraction(x) for x in r] for r in c["cov_center"]])
    A = floats(q.params.A.tolist())
    V, B = floats(q.params.V.tolist()), floats(q.params.B.tolist())
    M = A + V @ C @ B
    assert np.abs(M @ C + C @ M.T).max() < 1e-12      # the centre is an equilibrium in floats
    assert 0 < float(Fraction(c["cov_radius"])) < 1e-18
    assert float(Fraction(c["rate"])) <= -abscissa(q, C) + 1e-9
    assert check_certificate(res.certificate).ok


def test_enclosure_witnesses_that_fail_are_not_proved():
    cert = sg.check("certificates/structured_enclosed_general3.json")
    assert cert.ok
    from symgauss.kernel.checker import load_certificate
    c = load_certificate("certificates/structured_enclosed_general3.json")
    small = copy.deepcopy(c)
    small["witness"]["head_bounds"] = ["1/100", "1/100"]   # not bounds of ‖V‖, ‖B‖
    assert check_certificate(small).status == "not-proved"
    few = copy.deepcopy(c)
    few["witness"]["head_bounds"] = few["witness"]["head_bounds"] * 2
    assert check_certificate(few).status == "invalid"
    tiny = copy.deepcopy(c)
    tiny["claim"]["cov_radius"] = "1e-60"                   # too small to hold the zero
    from _mutation import reseal
    assert check_certificate(reseal(tiny)).status == "not-proved"


def test_strong_coupling_is_undecided_never_wrong():
    # V far from any multiple of I: the linearisation may be stable, but no tr(QΔQΔ) need
    # prove it; the answer is then undecided, and a verified answer must be true
    for seed in range(3):
        p, S = designed(4, 1.5, seed=seed)
        res = certify_structured(p, digits=15)
        assert res.status in ("verified", "undecided")
        if res.status == "verified":
            Sc = res.certificate["claim"].get("cov") or res.certificate["claim"]["cov_center"]
            Sf = floats([[Fraction(x) for x in r] for r in Sc])
            assert abscissa(p, Sf) <= -float(Fraction(res.certificate["claim"]["rate"])) + 1e-9
        else:
            assert res.reason


@pytest.mark.slow
def test_certify_uses_d_by_d_witnesses_past_d_12():
    p, S = designed(14, 0.2, seed=2)
    res = certify(p)
    assert res.status == "verified", res.reason
    assert res.certificate["kind"] == "stable-equilibrium-structured"
    assert res.certificate["claim"]["cov"] == mat_text(S)
    assert len(res.certificate["witness"]["Q"]) == 14
