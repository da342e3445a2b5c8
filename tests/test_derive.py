"""The derived closure equals eq. 1.1 at random rational points; refutation witnesses hold."""
import dataclasses
import json
import random

import mpmath
import pytest
import sympy as sp

from symgauss import derive_closure
from symgauss.kernel.errors import ProblemError
from symgauss.model import moments
from symgauss.model.problem import Head, Params


def _rational_point(symbols, seed):
    rng = random.Random(seed)
    return {s: sp.Rational(rng.randint(-7, 7), rng.randint(1, 5)) for s in symbols}


def _numeric(c, seed):
    """Random rational values for every symbol of a closure, and the Params they define."""
    syms = c.symbols
    free = set(syms.A) | set(syms.b) | set(syms.m) | set(syms.S)
    for hd in syms.heads:
        for M in hd[:3] if len(hd) == 4 else hd:
            free |= set(M)
    if syms.h is not None:
        free.add(syms.h)
    pt = _rational_point(sorted(free, key=str), seed)
    f = lambda M: M.xreplace(pt)  # noqa: E731
    return pt, f


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_continuous_equals_eq_1_1(d):
    c = derive_closure(d)
    assert c.status == "proved"
    for seed in range(2):
        pt, f = _numeric(c, seed)
        s = c.symbols
        params = Params(f(s.A), tuple(Head(f(V), f(B)) for V, B in s.heads), f(s.b))
        assert c.mean_rhs.xreplace(pt) == moments.mean_rhs(params, f(s.m), f(s.S))
        assert c.cov_rhs.xreplace(pt) == moments.cov_rhs(params, f(s.S))


def test_multihead_sum():
    c = derive_closure(2, heads=3)
    pt, f = _numeric(c, 7)
    s = c.symbols
    params = Params(f(s.A), tuple(Head(f(V), f(B)) for V, B in s.heads), f(s.b))
    assert len(params.heads) == 3
    assert c.cov_rhs.xreplace(pt) == moments.cov_rhs(params, f(s.S))
    assert c.mean_rhs.xreplace(pt) == moments.mean_rhs(params, f(s.m), f(s.S))
    # and the sum really is over heads: dropping one head changes the value
    fewer = Params(params.A, params.heads[:2], params.b)
    assert c.cov_rhs.xreplace(pt) != moments.cov_rhs(fewer, f(s.S))


@pytest.mark.parametrize("d", [1, 2, 3])
def test_discrete_one_layer_map(d):
    c = derive_closure(d, depth="discrete")
    pt, f = _numeric(c, 3)
    s = c.symbols
    params = Params(f(s.A), tuple(Head(f(V), f(B)) for V, B in s.heads), f(s.b))
    h, S, m = pt[s.h], f(s.S), f(s.m)
    F = sp.eye(d) + h * moments.velocity_matrix(params, S)
    assert c.cov_rhs.xreplace(pt) == F * S * F.T
    assert c.mean_rhs.xreplace(pt) == m + h * moments.mean_rhs(params, m, S)


def test_discrete_with_given_step():
    c = derive_closure(1, depth="discrete", step=sp.Rational(1, 10))
    assert c.symbols.h is None and sp.Symbol("h") not in c.cov_rhs.free_symbols


def test_l2_closed_form_against_precision_form():
    """L2 kernel: tilted mean (P + KᵀK)⁻¹(Pm + KᵀQx), P = Σ⁻¹ — an independent route."""
    d = 2
    c = derive_closure(d, kernel="l2")
    s = c.symbols
    V, Q, K, G = s.heads[0]
    pt = _rational_point(sorted(set(s.A) | set(s.b) | set(s.m) | set(V) | set(Q) | set(K),
                                key=str), 11)
    Sr = sp.Matrix([[2, sp.Rational(1, 3)], [sp.Rational(1, 3), 1]])
    pt.update({s.S[i, j]: Sr[i, j] for i in range(d) for j in range(d)})
    Kr, Qr, Vr = K.xreplace(pt), Q.xreplace(pt), V.xreplace(pt)
    Gr = (sp.eye(d) + Sr * Kr.T * Kr).inv()
    pt.update({G[i, j]: Gr[i, j] for i in range(d) for j in range(d)})
    P = Sr.inv()
    H = (P + Kr.T * Kr).inv()
    M = s.A.xreplace(pt) + Vr * H * Kr.T * Qr
    cvec = s.b.xreplace(pt) + Vr * H * P * s.m.xreplace(pt)
    assert c.velocity_matrix.xreplace(pt) == M
    assert c.cov_rhs.xreplace(pt) == M * Sr + Sr * M.T
    assert c.mean_rhs.xreplace(pt) == M * s.m.xreplace(pt) + cvec


def test_affinity_is_what_the_proof_claims():
    c = derive_closure(3)
    x = list(c.symbols.x)
    assert all(sp.diff(v, a, b) == 0 for v in c.velocity for a in x for b in x)
    assert c.velocity_matrix == c.velocity.jacobian(x)


def test_closure_is_immutable():
    c = derive_closure(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.status = "refuted"
    assert isinstance(c.steps, tuple) and all(isinstance(st.statement, str) for st in c.steps)


@pytest.mark.parametrize("kw", [{"dim": 0}, {"dim": "2"}, {"dim": 2, "kernel": "cosine"},
                                {"dim": 2, "heads": 0}, {"dim": 2, "step": sp.Rational(1, 2)},
                                {"dim": 2, "attention": "linear"}])
def test_bad_options_raise_problem_error(kw):
    with pytest.raises(ProblemError):
        derive_closure(**kw)


# --- refutations: each witness recomputed independently (mpmath quadrature) -----------------
def _gauss_quad(f, m, s):
    return mpmath.quad(lambda y: f(y) * mpmath.npdf(y, m, mpmath.sqrt(s)), [-mpmath.inf, m,
                                                                          mpmath.inf])


def _moment_integral(k_fn, m, s):
    """∫ y g(y) dN(m, s) by quadrature (independent of the Isserlis route)."""
    return _gauss_quad(lambda y: y * k_fn(y), m, s)


def test_sigmoid_witness():
    c = derive_closure(2, attention="sigmoid")
    w = c.witness
    assert c.status == "refuted" and c.mean_rhs is None and w["value"] != 0
    with mpmath.workdps(20):
        sig = lambda u: 1 / (1 + mpmath.exp(-u))  # noqa: E731
        # d^k/dx^k ∫ y σ(xy) dN(1,1) at x = 0 = σ^(k)(0) ∫ y^(k+1) dN(1,1)   (V = β = 1)
        vk = [mpmath.diff(sig, 0, k) * _moment_integral(lambda y: y ** k, 1, 1) for k in range(4)]
        assert abs(vk[2]) < 1e-15 and w["quantity"].startswith("d^3")
        assert abs(vk[3] - mpmath.mpf(-5) / 4) < 1e-12 and w["value"] == sp.Rational(-5, 4)


def test_unnormalised_witness():
    w = derive_closure(1, attention="unnormalised").witness
    with mpmath.workdps(20):
        # v(x) = ∫ y e^{xy/4} dN(0,1):  v^(k)(0) = ∫ y (y/4)^k dN(0,1)
        vk = [_moment_integral(lambda y: (y / 4) ** k, 0, 1) for k in range(6)]
        assert abs(vk[3] - mpmath.mpf(3) / 64) < 1e-15 and w["value"] == sp.Rational(3, 64)
        # q = v' - x v must be quadratic if Gaussian; its 4th derivative at 0 is v5 - 4 v3
        q4 = vk[5] - 4 * vk[3]
        g = w["gaussianity"]["value"]
        assert abs(q4 - mpmath.mpf(g.p) / g.q) < 1e-15 and abs(q4) > 0.1


def test_l2_unnormalised_witness():
    w = derive_closure(1, kernel="l2", attention="unnormalised").witness
    with mpmath.workdps(20):
        mean = _moment_integral(lambda y: 1, 1, 1)
        v = lambda x: mpmath.exp(-x ** 2 / 2) * mean  # noqa: E731  (K = 0: kernel free of y)
        assert abs(mpmath.diff(v, 0, 2) - (-1)) < 1e-10
    assert w["value"] == -1


def test_relu_witness():
    for depth, t_map in (("continuous", lambda x: x * mpmath.e if x > 0 else x),
                         ("discrete", lambda x: 2 * x if x > 0 else x)):
        c = derive_closure(2, feedforward="relu", depth=depth)
        w = c.witness
        relu = lambda x: max(0, x)  # noqa: E731
        assert w["value"] == relu(1) - 2 * relu(0) + relu(-1) == 1
        with mpmath.workdps(20):
            mean = _gauss_quad(t_map, 0, 1)
            assert abs(mean - mpmath.mpf(sp.N(w["gaussianity"]["value"], 25))) < 1e-12
            assert mean > 0.1   # median is 0: not Gaussian


def test_mixture_witness():
    c = derive_closure(1, data="mixture")
    w = c.witness
    with mpmath.workdps(15):
        logM = lambda u: mpmath.log((mpmath.exp(-u + u ** 2 / 2)  # noqa: E731
                                     + mpmath.exp(u + u ** 2 / 2)) / 2)
        assert abs(mpmath.diff(logM, 0, 4) - w["value"]) < 1e-6 and w["value"] == -2
        T = lambda x: mpmath.diff(logM, x)  # noqa: E731
        true = 2 * sum(_gauss_quad(lambda x: x * T(x), mk, 1) for mk in (-1, 1)) / 2
        assert abs(true - w["moment"]["true"]) < 1e-6
        assert w["moment"]["true"] != w["moment"]["eq_1_1"] == 8   # eq. 1.1 with Σ = 2


# --- CLI ---------------------------------------------------------------------------------
def test_cli_json_and_errors(capsys):
    from symgauss.cli.main import main
    assert main(["derive", "--dim", "2", "--heads", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "proved" and out["level"] == "exact" and out["dim"] == 2
    assert len(out["cov_rhs"]) == 2 and all("statement" in s for s in out["steps"])
    # the printed right-hand side parses back to the derived one
    c = derive_closure(2, heads=2)
    assert sp.sympify(out["cov_rhs"][0][1]) - c.cov_rhs[0, 1] == 0
    assert main(["derive", "--dim", "1", "--attention", "sigmoid", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "refuted" and out["witness"]["value"] == "-5/4"
    for bad in (["--dim", "0"], ["--dim", "two"], ["--dim", "2", "--kernel", "rbf"]):
        assert main(["derive", *bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "error" in err


def test_cli_human(capsys):
    from symgauss.cli.main import main
    assert main(["derive", "--dim", "1", "--discrete"]) == 0
    out = capsys.readouterr().out
    assert "status: proved" in out and "Σ_next" in out
