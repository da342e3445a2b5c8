"""Refutations of Gaussian closure for the variants where it fails, with exact witnesses.

Each refutation is proved for the model it names — the kernel (e^{yᵀBx} or the L2 kernel
e^{-|Qx − Ky|²/2}) and the depth (the continuous flow, or one residual layer
x ↦ T(x) = x + h v(x) with its own step h) — with parameters chosen for that model. The
witnesses are computed in dimension 1 and embedded in dimension d (the parameters act on the
first coordinate only, Σ = diag(s, 1, …, 1), other heads zero, so the first coordinate evolves
on its own); each is an exact number:

- **velocity**: a non-zero derivative of order ≥ 2 of the averaged velocity v (continuous) or
  of the layer map T (discrete), so the field is not affine — the proof of closure breaks;
- **gaussianity** (Gaussian data): continuous — if μ_t stayed Gaussian,
  ∂_t log ρ = −(v' − (x − m)v/s) would be a quadratic polynomial at t = 0; a non-zero
  derivative of order ≥ 3 contradicts that. Discrete — T is increasing (T' > 0, shown for the
  chosen parameters), so Y = T(X) has log ρ_Y(T(x)) = −(x − m)²/(2s) − log T'(x) + const;
  Y Gaussian would make log ρ_Y quadratic, and a non-zero derivative of order ≥ 3 at
  y0 = T(0) (exact series reversion) contradicts that. ReLU (not smooth): mean ≠ median after
  the flow / the layer. Mixture data: the true m'(0) (and Σ'(0)), or the true one-layer mean,
  differ from what the closure predicts for the same m, Σ.

>>> from symgauss.closure.derive import derive_closure
>>> c = derive_closure(2, attention="sigmoid")
>>> c.status, c.witness["quantity"], c.witness["value"]
('refuted', 'd^3 v/dx^3 at x = 0', -5/4)
"""
from __future__ import annotations

import sympy as sp

from symgauss.closure.gaussian import gaussian_expectation
from symgauss.closure.result import Closure, Step
from symgauss.kernel.errors import ProblemError

X = sp.Symbol("x")
U = sp.Symbol("u")
ORDER = 8
PI = (sp.Rational(1, 4), sp.Rational(3, 4))     # mixture weights
MU = (-1, 1)                                     # mixture means (variances 1): |μ_k| equal


def _sigmoid(s):
    return 1 / (1 + sp.exp(-s))


def _embedding(dim: int, heads: int) -> str:
    if dim == 1 and heads == 1:
        return "d = 1"
    return (f"computed in d = 1 and embedded in d = {dim}: all parameters act on coordinate 1 "
            "only (A, V, B, Q, K zero except the (1,1) entry"
            + (", heads other than the first zero" if heads > 1 else "")
            + "), Σ = diag(s, 1, …, 1), m = (m, 0, …, 0), so x_1 evolves on its own")


def _taylor(expr, order=ORDER):
    """Exact Taylor coefficients (derivatives at 0) of a smooth expression in x."""
    ser = sp.series(expr, X, 0, order + 1).removeO()
    return [sp.nsimplify(ser.coeff(X, k)) * sp.factorial(k) for k in range(order + 1)]


def _first_nonzero(coeffs, start):
    for k in range(start, len(coeffs)):
        if coeffs[k] != 0:
            return k, coeffs[k]
    raise RuntimeError("no non-zero derivative found; enlarge ORDER")


def _moment(k, m, s):
    return gaussian_expectation(X ** k, sp.Matrix([X]), sp.Matrix([m]), sp.Matrix([[s]]))


def _layer_step(step):
    """(h used by the witness, how it was chosen). A symbolic step is given the value 1."""
    if step is None or (isinstance(step, sp.Basic) and not step.is_number):
        return sp.Integer(1), "h = 1 (the step is a parameter of the model)"
    h = sp.nsimplify(step)
    if h == 0:
        raise ProblemError("step = 0: a layer of step 0 is the identity, which keeps every "
                           "Gaussian Gaussian; pass a non-zero step")
    return h, f"h = {h} (the given step)"


# --- the averaged velocity of each smooth variant ------------------------------------------
def _velocity(attention, kernel, data, h, steps):
    """(derivatives of v at 0 up to ORDER, parameters, description, m, s, why T' > 0)."""
    sg = 1 if h is None or h > 0 else -1          # V's sign: h·V > 0 keeps T increasing
    mh = 1 if h is None or abs(h) <= 1 else 1 / sp.ceiling(abs(h))   # |h m| ≤ 1
    if data == "mixture":
        return _mixture_velocity(kernel, steps)
    if attention == "unnormalised" and kernel == "softmax":
        pars = {"V": sg, "beta": sp.Rational(1, 4), "m": 0, "s": 1, "A": 0, "b": 0}
        # ∫ y e^{wy} dN(m, s) = d/dw M(w) = (m + sw) e^{mw + sw²/2}, w = βx
        v = sg * (X / 4) * sp.exp(X ** 2 / 32)
        steps.append(Step("Unnormalised attention: int y exp(wy) dμ = dM/dw = (m + sw) "
                          "exp(mw + sw²/2), w = βx", sp.Eq(sp.Symbol("v(x)"), v, evaluate=False),
                          f"derivative of the Gaussian MGF; parameters V = {sg}, β = 1/4, "
                          "m = 0, s = 1"))
        why = "v' = V(1 + x²/16)e^{x²/32}/4 has the sign of V = sign h, so T' = 1 + hv' ≥ 1"
        return _taylor(v), pars, "v(x) = V int y exp(βxy) dμ(y)", 0, 1, why
    if attention == "unnormalised":   # L2 kernel, K = 0: the kernel does not depend on y
        pars = {"V": 1, "Q": 1, "K": 0, "m": mh, "s": 1, "A": 0, "b": 0}
        v = mh * sp.exp(-X ** 2 / 2)
        steps.append(Step("Unnormalised L2 attention with K = 0: int y exp(-|Qx|²/2) dμ = "
                          "m exp(-q²x²/2)", sp.Eq(sp.Symbol("v(x)"), v, evaluate=False),
                          f"the kernel is constant in y; parameters V = Q = s = 1, m = {mh}, "
                          "K = 0"))
        why = "|v'| = m|x|e^{-x²/2} ≤ m e^{-1/2} and |hm| ≤ 1, so T' = 1 + hv' ≥ 1 − e^{-1/2}"
        return _taylor(v), pars, "v(x) = V int y exp(-|Qx - Ky|²/2) dμ(y)", mh, 1, why
    if kernel == "l2":                 # sigmoid of the L2 score −|Qx − Ky|²/2, K = 0
        pars = {"V": 1, "Q": 1, "K": 0, "m": mh, "s": 1, "A": 0, "b": 0}
        v = mh * _sigmoid(-X ** 2 / 2)
        steps.append(Step("Sigmoid attention with the L2 score -|Qx - Ky|²/2 and K = 0: "
                          "int y σ(-|Qx|²/2) dμ = m σ(-q²x²/2)",
                          sp.Eq(sp.Symbol("v(x)"), v, evaluate=False),
                          f"the score is constant in y; parameters V = Q = s = 1, m = {mh}, "
                          "K = 0"))
        why = ("|v'| = m|x|σ'(-x²/2) ≤ m|x|e^{-x²/2} ≤ m e^{-1/2} (σ'(u) ≤ e^u) and |hm| ≤ 1, "
               "so T' ≥ 1 − e^{-1/2}")
        return (_taylor(v), pars, "v(x) = V int y σ(-|Qx - Ky|²/2) dμ(y)", mh, 1, why)
    # sigmoid attention, bilinear score: v(x) = V E[y σ(βxy)], derivatives under the integral
    pars = {"V": sg, "beta": 1, "m": 1, "s": 1, "A": 0, "b": 0}
    u = sp.Symbol("u")
    sig_d = [sp.diff(_sigmoid(u), u, k).subs(u, 0) for k in range(ORDER + 1)]
    coeffs = [sg * sp.nsimplify(sp.simplify(sig_d[k])) * _moment(k + 1, 1, 1)
              for k in range(ORDER + 1)]
    steps.append(Step("Sigmoid attention: d^k v/dx^k (0) = V β^k σ^(k)(0) E[y^(k+1)]",
                      sp.Matrix(coeffs).T, "differentiation under the integral (σ^(k) bounded, "
                      "Gaussian moments finite); Gaussian moments by Isserlis; "
                      f"parameters V = {sg}, β = m = s = 1"))
    why = "v' = Vβ E[y² σ'(βxy)] has the sign of V = sign h (σ' > 0), so T' = 1 + hv' ≥ 1"
    return coeffs, pars, "v(x) = V int y σ(βxy) dμ(y)", 1, 1, why


def _mixture_velocity(kernel, steps):
    """Tilted mean of ¼N(−1, 1) + ¾N(1, 1); with |μ_k| = 1 both kernels give x-affine terms
    plus g(ax) = Σπ_kμ_k e^{aμ_k x}/Σπ_k e^{aμ_k x} (a = 1 for the parameters below)."""
    y = sp.Symbol("y")
    if kernel == "softmax":
        pars = {"V": 1, "beta": 1, "A": 0, "b": 0}
        comps = [(sp.exp(mk * X + X ** 2 / 2), mk + X) for mk in MU]   # MGF_k(w), tilted mean
        how = "per component: MGF exp(μ_k w + w²/2) and tilted mean μ_k + w (w = βx = x)"
    else:
        pars = {"V": 1, "Q": 2, "K": 1, "A": 0, "b": 0}
        q, k, comps = 2, 1, []
        for mk in MU:
            n = (mk + k * q * X) / (1 + k ** 2)
            lhs = -(y - mk) ** 2 / 2 - (q * X - k * y) ** 2 / 2
            rhs = -(1 + k ** 2) * (y - n) ** 2 / 2 - (q * X - k * mk) ** 2 / (2 * (1 + k ** 2))
            if sp.expand(lhs - rhs) != 0:
                raise RuntimeError("completing the square failed")
            comps.append((sp.exp(-(q * X - k * mk) ** 2 / (2 * (1 + k ** 2))), n))
        how = ("per component: -(y - μ_k)²/2 - (qx - ky)²/2 = -(1 + k²)(y - n_k)²/2 - "
               "(qx - kμ_k)²/(2(1 + k²)) with n_k = (μ_k + kqx)/(1 + k²) (exact expansion), so "
               "Z_k(x) ∝ exp(-(qx - kμ_k)²/(2(1 + k²))) and the tilted mean is n_k (q = 2, k = 1)")
    den = sum(p * Z for p, (Z, _) in zip(PI, comps))
    T = sp.simplify(sum(p * Z * n for p, (Z, n) in zip(PI, comps)) / den)
    steps.append(Step("Mixture data ¼N(-1,1) + ¾N(1,1): the tilted mean is a weighted average "
                      "of the components' tilted means — not affine in x",
                      sp.Eq(sp.Symbol("v(x)"), T, evaluate=False), how))
    return _taylor(T), pars, "v(x) = V × tilted mean of the mixture", None, None, None


# --- discrete depth: the law of one layer ---------------------------------------------------
def _series_compose(outer, inner, order):
    """Coefficients of outer(inner(u)) (power-series coefficients, inner(0) = 0), truncated."""
    out = [sp.Integer(0)] * (order + 1)
    power = [sp.Integer(1)] + [sp.Integer(0)] * order
    for c in outer:
        for j in range(order + 1):
            out[j] += c * power[j]
        power = [sum(power[i] * inner[j - i] for i in range(j + 1)) for j in range(order + 1)]
    return out


def _layer_log_density(vk, h, m, s, order=ORDER):
    """Derivatives at y0 = T(0) of log ρ_Y(y), Y = T(X), T(x) = x + h v(x), X ~ N(m, s)."""
    t = [h * vk[k] / sp.factorial(k) for k in range(order + 1)]     # series of T − x
    t[1] += 1
    # F(x) = −(x − m)²/(2s) − log T'(x): series of log T' via log(1 + w), w = T'/T'(0) − 1
    tp = [(k + 1) * t[k + 1] for k in range(order)] + [sp.Integer(0)]
    w = [sp.Integer(0)] + [tp[k] / tp[0] for k in range(1, order + 1)]
    log_series = [sp.Integer(0)] + [sp.Integer((-1) ** (n + 1)) / n for n in range(1, order + 1)]
    logtp = _series_compose(log_series, w, order)
    F = [-logtp[k] for k in range(order + 1)]
    F[0] += -m ** 2 / (2 * s)
    F[1] += m / s
    F[2] += -1 / (2 * s)
    # reversion: x(u) with T(x(u)) − T(0) = u, one order per fixed-point step
    xs = [sp.Integer(0), 1 / t[1]] + [sp.Integer(0)] * (order - 1)
    shifted = [sp.Integer(0)] + t[1:]
    for _ in range(order):
        Tx = _series_compose(shifted, xs, order)
        xs = [xs[j] - (Tx[j] - (1 if j == 1 else 0)) / t[1] for j in range(order + 1)]
    Tx = _series_compose(shifted, xs, order)
    if any(Tx[j] != (1 if j == 1 else 0) for j in range(order + 1)):
        raise RuntimeError("series reversion failed")
    H = _series_compose(F, xs, order)
    return [sp.nsimplify(H[k] * sp.factorial(k)) for k in range(order + 1)], t[0]


def refute_closure(dim, heads, depth, kernel, *, feedforward, attention, data, step) -> Closure:
    """A refuted :class:`~symgauss.closure.derive.Closure` with an exact witness (see module doc)."""
    steps: list[Step] = []
    variant = ("data=mixture" if data == "mixture" else
               f"attention={attention}" if attention != "normalised" else "feedforward=relu")
    h, h_how = _layer_step(step) if depth == "discrete" else (None, None)
    model = (f"{'continuous depth' if depth == 'continuous' else 'one residual layer x + h v(x), ' + h_how}, "
             f"kernel {'exp(yᵀBx)' if kernel == 'softmax' else 'exp(-|Qx - Ky|²/2)'}")
    if data != "mixture" and attention == "normalised":      # ReLU feed-forward
        witness = _relu_witness(dim, heads, depth, h, steps)
        witness["model"] = model + " (V = 0: the kernel plays no part)"
        return _refuted(dim, heads, depth, kernel, feedforward, attention, data, steps, witness)
    coeffs, pars, what, m, s, why = _velocity(attention, kernel, data, h, steps)
    k, val = _first_nonzero(coeffs, 2)
    if depth == "continuous":
        quantity, value = f"d^{k} v/dx^{k} at x = 0", val
        steps.append(Step(f"The averaged velocity is not affine: d^{k} v/dx^{k} (0) ≠ 0",
                          sp.Eq(sp.Symbol(f"v^({k})(0)"), val, evaluate=False),
                          "exact Taylor coefficient; an affine v has all derivatives of order "
                          "≥ 2 zero"))
    else:
        pars = {**pars, "h": h}
        quantity, value = f"d^{k} T/dx^{k} at x = 0, T(x) = x + h v(x)", h * val
        steps.append(Step(f"The layer map T(x) = x + h v(x) is not affine: T^({k})(0) = "
                          f"h v^({k})(0) ≠ 0", sp.Eq(sp.Symbol(f"T^({k})(0)"), h * val,
                                                      evaluate=False),
                          f"exact Taylor coefficient with {h_how}"))
    witness = {"kind": "non-affine " + ("averaged velocity" if depth == "continuous"
                                        else "layer map"),
               "variant": variant, "model": model, "dimension_used": 1,
               "embedding": _embedding(dim, heads), "velocity": what, "parameters": pars,
               "quantity": quantity, "point": {"x": 0}, "value": value, "level": "exact"}
    if data == "mixture":
        witness["moment"] = _mixture_moment_witness(kernel, depth, h, coeffs, steps)
    elif depth == "continuous":
        q = [coeffs[j + 1] - (j * coeffs[j - 1] if j >= 1 else 0) / s + (m * coeffs[j] / s)
             for j in range(len(coeffs) - 1)]
        kq, valq = _first_nonzero(q, 3)
        steps.append(Step("Gaussianity test: q(x) = v'(x) - (x - m)v(x)/s must be quadratic "
                          f"if μ_t stays Gaussian; d^{kq}q/dx^{kq} (0) ≠ 0",
                          sp.Eq(sp.Symbol(f"q^({kq})(0)"), valq, evaluate=False),
                          "continuity equation: ∂_t log ρ = -(v' + v (log ρ)') and log ρ of a "
                          "Gaussian family is quadratic in x; Leibniz rule on the exact "
                          "Taylor coefficients"))
        witness["gaussianity"] = {"quantity": f"d^{kq} q/dx^{kq} at x = 0, q = v' - (x-m)v/s",
                                  "value": valq, "must_be": 0}
    else:
        H, y0 = _layer_log_density(coeffs, h, m, s)
        kh, valh = _first_nonzero(H, 3)
        steps.append(Step(f"Gaussianity test for one layer: Y = T(X), X ~ N({m}, {s}); "
                          f"d^{kh}/dy^{kh} log ρ_Y at y0 = T(0) = {y0} is ≠ 0, so Y is not "
                          "Gaussian", sp.Eq(sp.Symbol(f"(log rho_Y)^({kh})(y0)"), valh,
                                            evaluate=False),
                          f"T is increasing ({why}), so log ρ_Y(T(x)) = -(x - m)²/(2s) - "
                          "log T'(x) + const; exact series of log T' and of the inverse of T "
                          "(reversion, checked), composed; a Gaussian has log ρ quadratic"))
        witness["gaussianity"] = {
            "quantity": f"d^{kh}/dy^{kh} log ρ_Y at y0 = T(0), Y = T(X), X ~ N(m, s)",
            "y0": y0, "value": valh, "must_be": 0, "monotone": why}
    return _refuted(dim, heads, depth, kernel, feedforward, attention, data, steps, witness)


def _refuted(dim, heads, depth, kernel, feedforward, attention, data, steps, witness):
    return Closure(dim=dim, heads=heads, depth=depth, kernel=kernel, feedforward=feedforward,
                   attention=attention, data=data, status="refuted", mean_rhs=None,
                   cov_rhs=None, symbols=None, steps=tuple(steps), witness=witness)


def _relu_witness(dim, heads, depth, h, steps) -> dict:
    relu = sp.Max(0, X)
    second_diff = relu.subs(X, 1) - 2 * relu.subs(X, 0) + relu.subs(X, -1)
    a = 1 if h is None or h > 0 else -1          # h·A > 0 keeps the layer increasing
    steps.append(Step(f"ReLU feed-forward v(x) = A relu(x) (A = {a}, no attention): second "
                      "difference v(1) - 2v(0) + v(-1) ≠ 0",
                      sp.Eq(sp.Symbol("Delta^2 v"), a * second_diff, evaluate=False),
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
        pars = {"A": 1, "V": 0, "b": 0}
    else:
        mean = a * h * e_pos
        how = (f"one layer: X_1 = X + {a * h} relu(X) (hA = {a * h} > 0) is increasing and "
               "fixes 0, so median X_1 = 0")
        where = f"one layer, h = {h}, X_0 ~ N(0, 1)"
        pars = {"A": a, "V": 0, "b": 0, "h": h}
    steps.append(Step("After the flow, mean ≠ median = 0, impossible for a Gaussian",
                      sp.Eq(sp.Symbol("E[X_1]"), mean, evaluate=False),
                      how + "; E[X⁺] = 1/sqrt(2π) from the antiderivative -exp(-x²/2) (checked)"))
    return {"kind": "non-affine feed-forward", "variant": "feedforward=relu",
            "dimension_used": 1, "embedding": _embedding(dim, heads),
            "velocity": "v(x) = A relu(x)", "parameters": pars,
            "quantity": "v(1) - 2 v(0) + v(-1)", "point": {"x": "-1, 0, 1"},
            "value": a * second_diff, "level": "exact",
            "gaussianity": {"quantity": "mean of X_1 (its median is 0)", "where": where,
                            "value": mean, "must_be": 0}}


def _mixture_moment_witness(kernel, depth, h, coeffs, steps) -> dict:
    """True m'(0), Σ'(0) (or the one-layer mean) for ¼N(−1,1) + ¾N(1,1) vs the closure's
    prediction from the same m, Σ."""
    phi = [sp.exp(-(X - mk) ** 2 / 2) / sp.sqrt(2 * sp.pi) for mk in MU]
    p = sum(pk * ph for pk, ph in zip(PI, phi))
    g = sum(pk * mk * sp.exp(mk * X) for pk, mk in zip(PI, MU)) / sum(
        pk * sp.exp(mk * X) for pk, mk in zip(PI, MU))
    rhs = sum(pk * mk * ph for pk, mk, ph in zip(PI, MU, phi))
    if sp.simplify(sp.powsimp(sp.expand((p * g - rhs).rewrite(sp.exp)))) != 0:
        raise RuntimeError("mixture identity p g = Σ π_k μ_k φ(x − μ_k) failed")
    # v = c1 x + c0 g(x) (read off the Taylor coefficients: v'(0) = c1 + c0 g'(0), v(0) = c0 g(0))
    g_t = _taylor(g, 3)
    c0 = sp.nsimplify((coeffs[2]) / g_t[2]) if g_t[2] != 0 else None
    c1 = coeffs[1] - c0 * g_t[1]
    if any(sp.simplify(coeffs[j] - c1 * (j == 1) - c0 * g_t[j]) != 0 for j in range(4)):
        raise RuntimeError("mixture velocity is not c1 x + c0 g(x)")

    def E(f):   # E over the mixture of a polynomial f(x), and of f(x) g(x) via the identity
        return sum(pk * gaussian_expectation(f, sp.Matrix([X]), sp.Matrix([mk]),
                                             sp.Matrix([[1]])) for pk, mk in zip(PI, MU))

    def Eg(f):
        return sum(pk * mk * gaussian_expectation(f, sp.Matrix([X]), sp.Matrix([mk]),
                                                  sp.Matrix([[1]])) for pk, mk in zip(PI, MU))
    m = E(X)
    S = E(X ** 2) - m ** 2
    true_m = c1 * m + c0 * Eg(sp.Integer(1))
    true_S = 2 * (c1 * E(X ** 2) + c0 * Eg(X) - m * true_m)
    if kernel == "softmax":          # eq. 1.1, A = b = 0, V = B = 1
        M, c = S, m
        pred = "eq. 1.1 (A = b = 0, V = B = 1): m' = Vm + VΣBm, Σ' = 2VΣBΣ"
    else:                            # L2 closure: M = VGΣKᵀQ, c = VGm, G = 1/(1 + ΣK²)
        G = 1 / (1 + S)
        M, c = 2 * G * S, G * m
        pred = ("the L2 closure (A = b = 0, V = 1, Q = 2, K = 1): m' = Mm + c, Σ' = 2MΣ, "
                "M = VGΣKᵀQ, c = VGm, G = (1 + ΣKᵀK)⁻¹")
    pred_m, pred_S = M * m + c, 2 * M * S
    just = ("p(x)g(x) = Σ_k π_k μ_k φ(x − μ_k) (checked symbolically), so E[f g] = Σ_k π_k μ_k "
            f"E_k[f]; Gaussian moments by Isserlis; m = {m}, Σ = {S}")
    if depth == "continuous":
        steps.append(Step("Mixture: the true m'(0) = E[v(X)] and Σ'(0) = 2 Cov(X, v(X)) differ "
                          "from the closure's", sp.Eq(sp.Symbol("mdot_true, Sigmadot_true"),
                                                      sp.Tuple(true_m, true_S),
                                                      evaluate=False),
                          just + f"; {pred} gives {pred_m}, {pred_S}"))
        return {"quantity": "m'(0) and Σ'(0) for ¼N(-1,1) + ¾N(1,1)", "m": m, "Sigma": S,
                "true": {"mean_rate": true_m, "cov_rate": true_S},
                "closure": {"mean_rate": pred_m, "cov_rate": pred_S}, "closure_is": pred}
    diff = h * (true_m - pred_m)
    steps.append(Step("Mixture, one layer: the true m_next = m + h E[v(X)] differs from the "
                      "one-layer closure's m + h(Mm + c) — exactly linear in h, so for every "
                      "h ≠ 0", sp.Eq(sp.Symbol("m_next_true - m_next_closure"), diff,
                                     evaluate=False), just + f"; {pred}"))
    return {"quantity": "m_next − (the one-layer closure's m_next) for ¼N(-1,1) + ¾N(1,1)",
            "m": m, "Sigma": S, "h": h, "true": {"m_next": m + h * true_m},
            "closure": {"m_next": m + h * pred_m}, "closure_is": pred,
            "value": diff, "must_be": 0}
