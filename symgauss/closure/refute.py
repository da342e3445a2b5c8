"""Refutations of Gaussian closure for the variants where it fails, with exact witnesses.

The witnesses are computed in dimension 1 and embedded in dimension d (the parameters
act on the first coordinate only, Σ = diag(s, 1, …, 1), so the first coordinate evolves
on its own); each witness is an exact number:

- **velocity**: a non-zero derivative of order ≥ 2 (or a non-zero second difference) of
  the averaged velocity v[μ], so v is not affine — the proof of closure breaks;
- **gaussianity** (Gaussian data): if μ_t stayed Gaussian, ∂_t log ρ = -(v' + v (log ρ)')
  = -(v' - (x - m)v/s) would be a quadratic polynomial in x at t = 0; a non-zero derivative
  of order ≥ 3 contradicts that. For ReLU (not smooth) the witness is mean ≠ median
  after the flow; for mixture data, the true Σ'(0) differs from eq. 1.1's prediction.

>>> from symgauss.closure.derive import derive_closure
>>> c = derive_closure(2, attention="sigmoid")
>>> c.status, c.witness["quantity"], c.witness["value"]
('refuted', 'd^3 v/dx^3 at x = 0', -5/4)
"""
from __future__ import annotations

import sympy as sp

from symgauss.closure.gaussian import gaussian_expectation, gaussian_log_mgf
from symgauss.closure.result import Closure, Step

X = sp.Symbol("x")
W = sp.Symbol("w")
ORDER = 8


def _sigmoid(s):
    return 1 / (1 + sp.exp(-s))


def _embedding(dim: int) -> str:
    if dim == 1:
        return "d = 1"
    return (f"computed in d = 1 and embedded in d = {dim}: all parameters act on coordinate 1 only "
            "(A, V, B, Q, K zero except the (1,1) entry, Σ = diag(s, 1, …, 1), m = (m, 0, …, 0)), "
            "so x_1 evolves on its own")


def _taylor(expr, order=ORDER):
    """Exact Taylor coefficients (derivatives at 0) of a smooth expression in x."""
    ser = sp.series(expr, X, 0, order + 1).removeO()
    return [sp.nsimplify(ser.coeff(X, k)) * sp.factorial(k) for k in range(order + 1)]


def _first_nonzero(coeffs, start):
    for k in range(start, len(coeffs)):
        if coeffs[k] != 0:
            return k, coeffs[k]
    raise RuntimeError("no non-zero derivative found; enlarge ORDER")


def _gaussian_moment_1d(k, m, s):
    return gaussian_expectation(X ** k, sp.Matrix([X]), sp.Matrix([m]), sp.Matrix([[s]]))


def _velocity(attention, kernel, data, steps):
    """(derivatives of v at 0 up to ORDER, parameters, description) for a smooth variant."""
    K = gaussian_log_mgf(1, sp.Matrix([sp.Symbol("m")]), sp.Matrix([[sp.Symbol("s")]]),
                         sp.Matrix([W]))
    if data == "mixture":
        pars = {"V": 1, "beta": 1, "weights": "1/2, 1/2", "means": "-1, 1", "variances": "1, 1"}
        Mmix = sum(sp.Rational(1, 2) * sp.exp(K.subs({"m": mk, "s": 1})) for mk in (-1, 1))
        T = sp.diff(sp.log(Mmix), W)
        steps.append(Step("Mixture data: the tilted mean is grad log of the mixture MGF, "
                          "a sum of exponentials — not affine in w",
                          sp.Eq(sp.Symbol("T(w)"), T, evaluate=False),
                          "MGF of a mixture = weighted sum of the Gaussian MGFs derived above"))
        return _taylor(T.subs(W, X)), pars, "v(x) = V T(βx), T = d/dw log M_mix(w)"
    if attention == "unnormalised" and kernel == "softmax":
        pars = {"V": 1, "beta": sp.Rational(1, 4), "m": 0, "s": 1, "A": 0, "b": 0}
        Mw = sp.exp(K)
        integral = sp.diff(Mw, W)   # ∫ y e^{wy} dμ = d/dw M(w)
        v = integral.subs({"m": 0, "s": 1}).subs(W, X / 4)
        steps.append(Step("Unnormalised attention: int y exp(wy) dμ = dM/dw = (m + sw) exp(K(w)), "
                          "w = βx", sp.Eq(sp.Symbol("v(x)"), v, evaluate=False),
                          "derivative of the Gaussian MGF; parameters V = 1, β = 1/4, m = 0, s = 1"))
        return _taylor(v), pars, "v(x) = V int y exp(βxy) dμ(y)"
    if attention == "unnormalised":   # L2 kernel, K = 0: kernel exp(-q²x²/2) does not depend on y
        pars = {"V": 1, "Q": 1, "K": 0, "m": 1, "s": 1, "A": 0, "b": 0}
        v = sp.exp(-X ** 2 / 2)
        steps.append(Step("Unnormalised L2 attention with K = 0: int y exp(-|Qx|²/2) dμ = "
                          "m exp(-q²x²/2)", sp.Eq(sp.Symbol("v(x)"), v, evaluate=False),
                          "the kernel is constant in y; parameters V = Q = m = s = 1, K = 0"))
        return _taylor(v), pars, "v(x) = V int y exp(-|Qx - Ky|²/2) dμ(y)"
    # sigmoid attention: v(x) = V E[y σ(βxy)], derivatives under the integral sign
    pars = {"V": 1, "beta": 1, "m": 1, "s": 1, "A": 0, "b": 0}
    u = sp.Symbol("u")
    sig_d = [sp.diff(_sigmoid(u), u, k).subs(u, 0) for k in range(ORDER + 1)]
    coeffs = [sp.nsimplify(sp.simplify(sig_d[k])) * _gaussian_moment_1d(k + 1, 1, 1)
              for k in range(ORDER + 1)]
    steps.append(Step("Sigmoid attention: d^k v/dx^k (0) = V β^k σ^(k)(0) E[y^(k+1)]",
                      sp.Matrix(coeffs).T, "differentiation under the integral (σ^(k) bounded, "
                      "Gaussian moments finite); Gaussian moments by Isserlis; "
                      "parameters V = β = m = s = 1"))
    return coeffs, pars, "v(x) = V int y σ(βxy) dμ(y)"


def refute_closure(dim, heads, depth, kernel, *, feedforward, attention, data, step) -> Closure:
    """A refuted :class:`~symgauss.closure.derive.Closure` with an exact witness (see module doc)."""
    steps: list[Step] = []
    variant = ("data=mixture" if data == "mixture" else
               f"attention={attention}" if attention != "normalised" else "feedforward=relu")
    layer = ("" if depth == "continuous" else
             "; one residual layer x + h v(x) has the same derivatives times h (h ≠ 0)")
    if data != "mixture" and attention == "normalised":      # ReLU feed-forward
        witness = _relu_witness(dim, depth, steps)
    else:
        coeffs, pars, what = _velocity(attention, kernel, data, steps)
        k, val = _first_nonzero(coeffs, 2)
        steps.append(Step(f"The averaged velocity is not affine: d^{k} v/dx^{k} (0) ≠ 0",
                          sp.Eq(sp.Symbol(f"v^({k})(0)"), val, evaluate=False),
                          "exact Taylor coefficient; an affine v has all derivatives of order ≥ 2 "
                          "zero" + layer))
        witness = {"kind": "non-affine averaged velocity", "variant": variant,
                   "dimension_used": 1, "embedding": _embedding(dim), "velocity": what,
                   "parameters": pars, "quantity": f"d^{k} v/dx^{k} at x = 0", "point": {"x": 0},
                   "value": val, "level": "exact"}
        if data == "mixture":
            witness["moment"] = _mixture_moment_witness(steps)
        else:
            m, s = pars["m"], pars["s"]
            q = [coeffs[j + 1] - (j * coeffs[j - 1] if j >= 1 else 0) / s
                 + (m * coeffs[j] / s) for j in range(len(coeffs) - 1)]
            kq, valq = _first_nonzero(q, 3)
            steps.append(Step("Gaussianity test: q(x) = v'(x) - (x - m)v(x)/s must be quadratic "
                              f"if μ_t stays Gaussian; d^{kq}q/dx^{kq} (0) ≠ 0",
                              sp.Eq(sp.Symbol(f"q^({kq})(0)"), valq, evaluate=False),
                              "continuity equation: ∂_t log ρ = -(v' + v (log ρ)') and log ρ of a "
                              "Gaussian family is quadratic in x; Leibniz rule on the exact "
                              "Taylor coefficients"))
            witness["gaussianity"] = {"quantity": f"d^{kq} q/dx^{kq} at x = 0, q = v' - (x-m)v/s",
                                      "value": valq, "must_be": 0}
    return Closure(dim=dim, heads=heads, depth=depth, kernel=kernel, feedforward=feedforward,
                   attention=attention, data=data, status="refuted", mean_rhs=None,
                   cov_rhs=None, symbols=None, steps=tuple(steps), witness=witness)


def _relu_witness(dim, depth, steps) -> dict:
    relu = sp.Max(0, X)
    second_diff = relu.subs(X, 1) - 2 * relu.subs(X, 0) + relu.subs(X, -1)
    steps.append(Step("ReLU feed-forward v(x) = relu(x) (A = 1, no attention): second difference "
                      "v(1) - 2v(0) + v(-1) ≠ 0", sp.Eq(sp.Symbol("Delta^2 v"), second_diff,
                                                           evaluate=False),
                      "an affine v has zero second differences; exact"))
    # E[X⁺] for X ~ N(0, 1): antiderivative of x e^{-x²/2} is -e^{-x²/2}
    F = -sp.exp(-X ** 2 / 2)
    if sp.simplify(sp.diff(F, X) - X * sp.exp(-X ** 2 / 2)) != 0:
        raise RuntimeError("antiderivative check failed")
    e_pos = (sp.limit(F, X, sp.oo) - F.subs(X, 0)) / sp.sqrt(2 * sp.pi)
    if depth == "continuous":
        mean = (sp.E - 1) * e_pos
        how = ("flow of x' = relu(x) for time 1: X_1 = e X for X > 0, X otherwise; the flow is "
               "increasing and fixes 0, so median X_1 = 0")
        where = "time t = 1, X_0 ~ N(0, 1)"
    else:
        mean = e_pos
        how = ("one layer with h = 1: X_1 = X + relu(X) is increasing and fixes 0, so "
               "median X_1 = 0")
        where = "one layer, h = 1, X_0 ~ N(0, 1)"
    steps.append(Step("After the flow, mean ≠ median = 0, impossible for a Gaussian",
                      sp.Eq(sp.Symbol("E[X_1]"), mean, evaluate=False),
                      how + "; E[X⁺] = 1/sqrt(2π) from the antiderivative -exp(-x²/2) (checked)"))
    return {"kind": "non-affine feed-forward", "variant": "feedforward=relu",
            "dimension_used": 1, "embedding": _embedding(dim),
            "velocity": "v(x) = A relu(x)", "parameters": {"A": 1, "V": 0, "b": 0},
            "quantity": "v(1) - 2 v(0) + v(-1)", "point": {"x": "-1, 0, 1"},
            "value": second_diff, "level": "exact",
            "gaussianity": {"quantity": "mean of X_1 (its median is 0)", "where": where,
                            "value": mean, "must_be": 0}}


def _mixture_moment_witness(steps) -> dict:
    """True Σ'(0) for ½N(-1,1) + ½N(1,1), V = β = 1, vs eq. 1.1 with the same m, Σ."""
    phi = [sp.exp(-(X - mk) ** 2 / 2) / sp.sqrt(2 * sp.pi) for mk in (-1, 1)]
    p = (phi[0] + phi[1]) / 2
    Mmix = sum(sp.exp(mk * X + X ** 2 / 2) for mk in (-1, 1)) / 2
    T = sp.diff(Mmix, X) / Mmix
    rhs = sum((mk + X) * ph for mk, ph in zip((-1, 1), phi)) / 2
    if sp.simplify(sp.powsimp(sp.expand((p * T - rhs).rewrite(sp.exp)))) != 0:
        raise RuntimeError("mixture identity p T = sum (m_k + x) φ_k / 2 failed")
    true_rate = 2 * sum(gaussian_expectation(X * (mk + X), sp.Matrix([X]), sp.Matrix([mk]),
                                             sp.Matrix([[1]])) for mk in (-1, 1)) / 2
    mean = sum(sp.Integer(mk) for mk in (-1, 1)) / 2
    var = sum(1 + sp.Integer(mk) ** 2 for mk in (-1, 1)) / 2 - mean ** 2
    predicted = 2 * var ** 2          # eq. 1.1 with A = 0, V = B = 1: Σ' = 2VΣBΣ
    steps.append(Step("Mixture: true Σ'(0) = 2 E[x v(x)] differs from eq. 1.1's 2VBΣ²",
                      sp.Eq(sp.Symbol("Sigma_dot_true"), true_rate, evaluate=False),
                      "p(x)T(x) = sum_k π_k (m_k + x) φ(x - m_k) (checked symbolically), then "
                      f"Gaussian moments by Isserlis; eq. 1.1 with m = {mean}, Σ = {var} gives "
                      f"{predicted}"))
    return {"quantity": "Σ'(0) for ½N(-1,1) + ½N(1,1), V = B = 1, A = b = 0",
            "true": true_rate, "eq_1_1": predicted}
