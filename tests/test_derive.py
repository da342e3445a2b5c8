"""The derived closure equals eq. 1.1 at random rational points; refutation witnesses hold."""
import dataclasses
import json
import math
import random

import mpmath
import numpy as np
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


def _mixture_expect(f):
    """E f(Y) for Y ~ ¼N(-1,1) + ¾N(1,1) (Gauss–Hermite per component)."""
    return (_gh(f, -1, 1) + 3 * _gh(f, 1, 1)) / 4


def _tilted_mean_by_quadrature(kernel, x):
    """The model's own averaged velocity (V = 1) over ¼N(-1,1) + ¾N(1,1), by quadrature:
    softmax e^{xy} (B = 1), or L2 e^{-(Qx - Ky)²/2} with Q = 2, K = 1."""
    kern = ((lambda y: np.exp(x * y)) if kernel == "softmax"
            else (lambda y: np.exp(-(2 * x - y) ** 2 / 2)))
    return _mixture_expect(lambda y: y * kern(y)) / _mixture_expect(kern)


def _closure_prediction(kernel, depth, m, S, h=None):
    """m', Σ' (or m_next) of the *derived* closure at V = 1, B = 1 or Q = 2, K = 1, A = b = 0."""
    c = derive_closure(1, kernel=kernel, depth=depth)
    s = c.symbols
    pt = {s.A[0, 0]: 0, s.b[0]: 0, s.m[0]: m, s.S[0, 0]: S}
    if kernel == "softmax":
        V, B = s.heads[0]
        pt.update({V[0, 0]: 1, B[0, 0]: 1})
    else:
        V, Q, K, G = s.heads[0]
        pt.update({V[0, 0]: 1, Q[0, 0]: 2, K[0, 0]: 1, G[0, 0]: 1 / (1 + S)})
    if s.h is not None:
        pt[s.h] = h
    return c.mean_rhs[0].xreplace(pt), c.cov_rhs[0, 0].xreplace(pt)


@pytest.mark.parametrize("kernel", ["softmax", "l2"])
def test_mixture_witness_is_about_its_kernel(kernel):
    """True m'(0), Σ'(0) by quadrature of the model's own attention; the closure's prediction
    from derive_closure; both equal the witness, and they differ."""
    w = derive_closure(2, data="mixture", kernel=kernel).witness
    mo = w["moment"]
    m, S = sp.Rational(1, 2), sp.Rational(7, 4)
    assert (mo["m"], mo["Sigma"]) == (m, S)
    pm, pS = _closure_prediction(kernel, "continuous", m, S)
    assert (mo["closure"]["mean_rate"], mo["closure"]["cov_rate"]) == (pm, pS)
    v = np.vectorize(lambda x: _tilted_mean_by_quadrature(kernel, x))
    rate_m = _mixture_expect(v)
    rate_S = 2 * _mixture_expect(lambda x: (x - 0.5) * v(x))
    assert abs(rate_m - float(mo["true"]["mean_rate"])) < 1e-9
    assert abs(rate_S - float(mo["true"]["cov_rate"])) < 1e-9
    assert abs(rate_m - float(pm)) > 0.01 and abs(rate_S - float(pS)) > 0.01
    # the velocity witness: v''(0) of the model's own velocity
    assert abs(_fd(lambda x: float(v(x)), 0.0, 2) - float(w["value"])) < 1e-5


@pytest.mark.parametrize("kernel", ["softmax", "l2"])
def test_discrete_mixture_witness_uses_the_layer(kernel):
    w = derive_closure(1, data="mixture", kernel=kernel, depth="discrete",
                       step=sp.Rational(1, 10)).witness
    mo = w["moment"]
    pm, _ = _closure_prediction(kernel, "discrete", sp.Rational(1, 2), sp.Rational(7, 4),
                                h=sp.Rational(1, 10))
    assert mo["closure"]["m_next"] == pm and w["parameters"]["h"] == sp.Rational(1, 10)
    true = 0.5 + 0.1 * _mixture_expect(np.vectorize(lambda x: _tilted_mean_by_quadrature(kernel,
                                                                                      x)))
    assert abs(true - float(mo["true"]["m_next"])) < 1e-9 and abs(true - float(pm)) > 1e-3
    assert mo["value"] == mo["true"]["m_next"] - mo["closure"]["m_next"] != 0


# Independent recomputation for the one-layer witnesses: Gaussian expectations by Gauss–Hermite
# quadrature (80 nodes), derivatives by central differences with one Richardson step.
_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(80)
_GH_W = _GH_W / np.sqrt(2 * np.pi)


def _gh(f, m, s):
    """E f(Y), Y ~ N(m, s), for f taking numpy arrays."""
    return float(np.dot(_GH_W, f(m + np.sqrt(s) * _GH_X)))


def _fd(f, x0, k, h=0.05):
    def central(h):
        return sum((-1) ** j * math.comb(k, j) * f(x0 + (k / 2 - j) * h)
                   for j in range(k + 1)) / h ** k
    return (4 * central(h / 2) - central(h)) / 3


def _sig(u):
    return 0.5 * (1 + np.tanh(np.asarray(u) / 2))     # σ(u), no overflow


def _layer_log_density(T, m, s):
    """y ↦ log ρ_Y(y) for Y = T(X), X ~ N(m, s), T increasing (root finding, T' by a small
    central difference)."""
    from scipy.optimize import brentq

    def H(y):
        x = brentq(lambda z: T(z) - y, y - 50, y + 50, xtol=1e-15, rtol=1e-15)
        tp = (T(x + 1e-5) - T(x - 1e-5)) / 2e-5
        return -(x - m) ** 2 / (2 * s) - math.log(tp)
    return H


def test_discrete_sigmoid_witness_is_about_the_layer():
    """One layer of sigmoid attention (h = 1, V = β = m = s = 1): log ρ_Y of Y = T(X),
    T(x) = x + E[y σ(xy)], y ~ N(1, 1), by quadrature and root finding — its third derivative
    at T(0) is the witness."""
    w = derive_closure(2, attention="sigmoid", depth="discrete").witness
    g = w["gaussianity"]
    assert w["parameters"]["h"] == 1 and g["quantity"].startswith("d^3/dy^3 log ρ_Y")
    T = lambda x: x + _gh(lambda y: y * _sig(x * y), 1, 1)  # noqa: E731
    assert abs(_fd(T, 0.0, 3) - float(w["value"])) < 1e-5
    y0 = T(0.0)
    assert abs(y0 - float(g["y0"])) < 1e-14
    d3 = _fd(_layer_log_density(T, 1, 1), y0, 3)
    assert abs(d3 - float(g["value"])) < 1e-4 and abs(d3) > 0.1


@pytest.mark.parametrize("attention", ["sigmoid", "unnormalised"])
@pytest.mark.parametrize("step", [None, sp.Rational(-5, 2)])
def test_discrete_l2_witness_is_about_the_l2_layer(attention, step):
    """L2 score -|Qx - Ky|²/2 with K = 0 (Q = V = s = 1): the model's own attention, by
    quadrature over y, then log ρ_Y of one layer (step h) by root finding."""
    w = derive_closure(1, kernel="l2", attention=attention, depth="discrete", step=step).witness
    pars, g = w["parameters"], w["gaussianity"]
    assert pars["K"] == 0 and pars["Q"] == 1 and (step is None or pars["h"] == step)
    h, m, K = float(pars["h"]), float(pars["m"]), 0.0
    score = lambda x, y: -(x - K * y) ** 2 / 2  # noqa: E731
    weight = ((lambda x, y: _sig(score(x, y))) if attention == "sigmoid" else
              (lambda x, y: np.exp(score(x, y))))
    T = lambda x: x + h * _gh(lambda y: y * weight(x, y), m, 1)  # noqa: E731
    assert abs(_fd(T, 0.0, 2) - float(w["value"])) < 1e-5
    k = int(g["quantity"][2])
    dk = _fd(_layer_log_density(T, m, 1), T(0.0), k)
    assert abs(dk - float(g["value"])) < 1e-4 * max(1, abs(dk)) and abs(dk) > 1e-3


def test_continuous_l2_sigmoid_witness_is_about_the_l2_kernel():
    w = derive_closure(1, kernel="l2", attention="sigmoid").witness
    K = 0.0
    v = lambda x: _gh(lambda y: y * _sig(-(x - K * y) ** 2 / 2), 1, 1)  # noqa: E731
    q = lambda x: _fd(v, x, 1, 1e-3) - (x - 1) * v(x)  # noqa: E731
    assert abs(_fd(v, 0.0, 2) - float(w["value"])) < 1e-5
    k = int(w["gaussianity"]["quantity"][2])
    assert abs(_fd(q, 0.0, k) - float(w["gaussianity"]["value"])) < 1e-4


def test_step_zero_is_rejected_for_a_refutation():
    with pytest.raises(ProblemError):
        derive_closure(1, attention="sigmoid", depth="discrete", step=0)


def test_discrete_relu_witness_uses_the_given_step():
    w = derive_closure(1, feedforward="relu", depth="discrete", step=-3).witness
    a, h = w["parameters"]["A"], w["parameters"]["h"]
    with mpmath.workdps(20):
        layer = lambda x: x + h * a * max(0, x)  # noqa: E731
        mean = _gauss_quad(layer, 0, 1)
        assert abs(mean - mpmath.mpf(sp.N(w["gaussianity"]["value"], 25))) < 1e-12
        assert layer(-1) < layer(0) == 0 < layer(1)      # increasing, fixes 0: median 0


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
