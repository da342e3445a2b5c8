"""The Gaussian closure, derived from the continuity equation with SymPy.

:func:`derive_closure` builds fully symbolic d×d parameters and derives, step by
step, the mean and covariance equations of the mean-field Transformer

    ∂_t μ + ∇·(μ v[μ]) = 0,   v[μ](x) = A x + b + Σ_h V_h ∫ y e^{yᵀB_h x} dμ / ∫ e^{yᵀB_h x} dμ,

for μ = N(m, Σ):

1. the Gaussian moment-generating function by completing the square
   (X = m + LZ, Σ = LLᵀ, so singular Σ is included);
2. the tilting identity ∫ y e^{wᵀy} dμ / ∫ e^{wᵀy} dμ = ∇_w log M(w) = m + Σw;
3. the averaged velocity and the proof that it is affine in x (∂²v/∂x² = 0);
4. the weak form d/dt ∫φ dμ = ∫∇φ·v dμ with φ = x_i, x_i x_j and Gaussian
   moments by Isserlis' theorem (continuous depth), or the push-forward of the
   moment-generating function through one residual layer (discrete depth);
5. the identities with the paper's eq. 1.1.

Every identity is checked by exact expansion, or — where the expansion is large —
at random rational points; each step's justification says which.
Variants that are not closed are delegated to :mod:`symgauss.closure.refute`.

>>> c = derive_closure(1)
>>> c.status, c.level
('proved', 'exact')
>>> c.cov_rhs
Matrix([[2*S_11*(A_11 + B_11*S_11*V_11)]])
"""
from __future__ import annotations

import random

import sympy as sp

from symgauss.closure.gaussian import (
    EXPAND_UP_TO,
    gaussian_expectation,
    gaussian_log_mgf,
    identity_check,
    is_zero_matrix,
    mm,
    sym_matrix,
    sym_symmetric,
    sym_vector,
    tilted_mean,
)
from symgauss.closure.result import Closure, ClosureSymbols, Mat, Step
from symgauss.kernel.errors import ProblemError

DEPTHS = ("continuous", "discrete")
KERNELS = ("softmax", "l2")
FEEDFORWARDS = ("affine", "relu")
ATTENTIONS = ("normalised", "unnormalised", "sigmoid")
DATAS = ("gaussian", "mixture")
MAX_DIM = 12


# --- the closed derivation ----------------------------------------------------------------
def _check_options(dim, heads, depth, kernel, feedforward, attention, data, step):
    if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= MAX_DIM:
        raise ProblemError(f"dim = {dim!r}: expected an integer 1..{MAX_DIM}; pass e.g. dim=3")
    if isinstance(heads, bool) or not isinstance(heads, int) or not 1 <= heads <= 8:
        raise ProblemError(f"heads = {heads!r}: expected an integer 1..8; pass e.g. heads=2")
    for name, value, allowed in (("depth", depth, DEPTHS), ("kernel", kernel, KERNELS),
                                 ("feedforward", feedforward, FEEDFORWARDS),
                                 ("attention", attention, ATTENTIONS), ("data", data, DATAS)):
        if value not in allowed:
            raise ProblemError(f"{name} = {value!r}: expected one of "
                               + ", ".join(repr(a) for a in allowed))
    if step is not None and depth != "discrete":
        raise ProblemError("step is only meaningful with depth='discrete'; drop step or pass "
                           "depth='discrete'")
    if step is not None:
        if not isinstance(step, (int, sp.Basic)) or isinstance(step, bool):
            raise ProblemError(f"step = {step!r}: expected a SymPy symbol or exact number, "
                               "e.g. sympy.Rational(1, 10)")


def derive_closure(dim: int, heads: int = 1, depth: str = "continuous", kernel: str = "softmax",
                   *, feedforward: str = "affine", attention: str = "normalised",
                   data: str = "gaussian", step=None) -> Closure:
    """Derive the moment equations of the Gaussian Transformer and prove the closure exact.

    Parameters
    ----------
    dim : token dimension d (fully symbolic d×d parameters).
    heads : number of attention heads.
    depth : ``"continuous"`` (the ODE) or ``"discrete"`` (one residual layer of step h).
    kernel : ``"softmax"`` (e^{yᵀBx}) or ``"l2"`` (e^{-|Qx - Ky|²/2}).
    feedforward, attention, data : variants; ``"relu"``, ``"unnormalised"``/``"sigmoid"``,
        ``"mixture"`` are not closed and give ``status="refuted"`` with a witness.
    step : the layer step for ``depth="discrete"`` (default: the symbol h).

    Returns
    -------
    Closure with ``status`` ``"proved"`` (right-hand sides, steps) or ``"refuted"`` (witness).

    Examples
    --------
    >>> c = derive_closure(2, heads=2)
    >>> c.status, c.mean_rhs.shape, c.cov_rhs.shape
    ('proved', (2, 1), (2, 2))
    >>> derive_closure(1, attention="sigmoid").status
    'refuted'
    """
    _check_options(dim, heads, depth, kernel, feedforward, attention, data, step)
    if feedforward != "affine" or attention != "normalised" or data != "gaussian":
        from symgauss.closure.refute import refute_closure
        return refute_closure(dim, heads, depth, kernel, feedforward=feedforward,
                              attention=attention, data=data, step=step)
    d = dim
    steps: list[Step] = []
    A, b = sym_matrix("A", d), sym_vector("b", d)
    m, S, x, w = sym_vector("m", d), sym_symmetric("S", d), sym_vector("x", d), sym_vector("w", d)

    # 1-2: log-MGF and the tilting identity
    K = gaussian_log_mgf(d, m, S, w, steps)
    T = tilted_mean(K, w)
    tilt_rhs = m + S * w
    steps.append(Step("Tilting identity: int y exp(wᵀy) dμ / int exp(wᵀy) dμ = grad_w K(w) = m + Σw",
                      sp.Eq(T, tilt_rhs, evaluate=False),
                      "differentiate M(w) = exp K(w) under the integral; grad K computed by "
                      "SymPy and equal to m + Σw by exact expansion"
                      if is_zero_matrix(T - tilt_rhs) else "FAILED"))

    # 3: attention per head, the averaged velocity
    head_syms, attn, relations = [], sp.zeros(d, 1), []
    for k in range(heads):
        sfx = "" if heads == 1 else str(k + 1)
        V = sym_matrix("V" + sfx, d)
        if kernel == "softmax":
            B = sym_matrix("B" + sfx, d)
            # kernel e^{yᵀBx} = e^{wᵀy} with w = Bx
            Th = T.xreplace(dict(zip(w, mm(B, x))))
            head_syms.append((V, B))
            if k == 0:
                steps.append(Step("Softmax kernel exp(yᵀBx) = exp(wᵀy) with w = Bx: tilted mean",
                                  sp.Eq(sp.Symbol("T(x)"), Th, evaluate=False),
                                  "substitution w = Bx in the tilting identity"))
        else:
            Q, Kk = sym_matrix("Q" + sfx, d), sym_matrix("K" + sfx, d)
            G = sym_matrix("G" + sfx, d)
            Th = _l2_tilted_mean(d, m, S, x, Q, Kk, G, steps if k == 0 else None, seed=k)
            head_syms.append((V, Q, Kk, G))
            relations.append(sp.Eq(G * (sp.eye(d) + S * Kk.T * Kk), sp.eye(d), evaluate=False))
        attn += mm(V, Th)
    v = Mat(mm(A, x) + b + attn)
    steps.append(Step("Averaged velocity v[μ](x) = Ax + b + sum_h V_h T_h(x)", v,
                      "definition of the mean-field velocity with the tilted means above"))

    # affinity: ∂²v/∂x² = 0
    J = Mat(v.jacobian(x))
    hess_zero = all(sp.diff(J[i, j], xl) == 0 for i in range(d) for j in range(d) for xl in x)
    free = not (set().union(*[e.free_symbols for e in J]) & set(x))
    if not (hess_zero and free):
        raise RuntimeError("derivation bug: averaged velocity is not affine")
    c = Mat(v.xreplace({xi: 0 for xi in x}))
    hess = sp.Array([[[sp.diff(J[i, j], xl) for xl in x] for j in range(d)] for i in range(d)])
    steps.append(Step("The averaged velocity is affine in x: second x-derivatives vanish", hess,
                      "all d³ second derivatives computed by SymPy are 0, and ∂v/∂x contains no x; "
                      "so v(x) = Mx + c with M = ∂v/∂x, c = v(0)"))
    steps.append(Step("Closure is exact: an affine field has an affine flow map, which maps "
                      "N(m, Σ) to a Gaussian", sp.Eq(sp.Symbol("v(x)"), sp.MatMul(
                          sp.MatrixSymbol("M", d, d), sp.MatrixSymbol("x", d, 1)) +
                          sp.MatrixSymbol("c", d, 1), evaluate=False),
                      "x' = M(t)x + c(t) has solution x(t) = Φ(t)x0 + ψ(t); affine images of "
                      "Gaussians are Gaussian (MGF: K(Φᵀw) + wᵀψ is quadratic)"))

    mu, gamma = sym_matrix("M", d), sym_vector("c", d)   # placeholders for the affine field
    h = None
    if depth == "continuous":
        mean_p, cov_p = _weak_form_moments(d, m, S, x, mu, gamma, steps)
    else:
        h = sp.Symbol("h") if step is None else sp.sympify(step)
        mean_p, cov_p = _discrete_pushforward(d, m, S, w, K, mu, gamma, h, steps)

    sub = {mu[i, j]: J[i, j] for i in range(d) for j in range(d)}
    sub.update({gamma[i]: c[i] for i in range(d)})
    mean_rhs, cov_rhs = Mat(mean_p.xreplace(sub)), Mat(cov_p.xreplace(sub))
    steps.append(Step("Substitute M = ∂v/∂x and c = v(0) into the moment equations",
                      sp.Eq(sp.MatrixSymbol("M", d, d), J, evaluate=False),
                      "the placeholder identities hold for every M, c, hence after substitution"))
    syms = ClosureSymbols(d=d, A=A, heads=tuple(head_syms), b=b, m=m, S=S, x=x,
                          h=h if isinstance(h, sp.Symbol) else None, relations=tuple(relations))
    if kernel == "softmax":
        _eq11_steps(d, syms, J, c, mean_rhs, cov_rhs, depth, h, steps)
    else:
        steps.append(Step("L2 attention closed form: M = A + sum_h V_h G_h Σ K_hᵀQ_h, "
                          "c = b + sum_h V_h G_h m, G_h = (I + Σ K_hᵀK_h)⁻¹", J,
                          "read off from the tilted mean; G_h defined by the relations"))
    return Closure(dim=d, heads=heads, depth=depth, kernel=kernel, feedforward=feedforward,
                   attention=attention, data=data, status="proved", mean_rhs=mean_rhs,
                   cov_rhs=cov_rhs, symbols=syms, steps=tuple(steps), witness=None,
                   velocity=v, velocity_matrix=J, velocity_offset=c)


def _l2_tilted_mean(d, m, S, x, Q, Kk, G, steps, seed=0) -> Mat:
    """Tilted mean for the L2 kernel e^{-|Qx - Ky|²/2}: G(m + ΣKᵀQx), G = (I + ΣKᵀK)⁻¹."""
    y = sym_vector("y", d)
    r = Q * x - Kk * y
    expo = -(r.T * r)[0] / 2
    hess_y = sp.hessian(expo, list(y))
    grad0 = Mat([sp.diff(expo, yi) for yi in y]).xreplace({yi: 0 for yi in y})
    C = Kk.T * Kk
    if not is_zero_matrix(hess_y + C) or not is_zero_matrix(grad0 - Kk.T * Q * x):
        raise RuntimeError("derivation bug: L2 kernel exponent")
    if set().union(*[e.free_symbols for e in hess_y]) & set(x):
        raise RuntimeError("derivation bug: L2 y-quadratic part depends on x")
    if steps is not None:
        steps.append(Step("L2 kernel exponent -|Qx - Ky|²/2 in y: Hessian -KᵀK (free of x), "
                          "linear part wᵀy with w = KᵀQx",
                          sp.Eq(sp.Symbol("w"), Kk.T * Q * x, evaluate=False),
                          "y-Hessian and y-gradient at 0 computed by SymPy, exact expansion; "
                          "the x-only factor exp(-|Qx|²/2) cancels in the normalised ratio"))
    # tilted density ∝ exp(-(y-m)ᵀP(y-m)/2 - yᵀCy/2 + wᵀy): Gaussian, mean n solves
    # (P + C)n = Pm + w, i.e. (I + ΣC)n = m + Σw. Check the two forms at a rational point.
    pt_rng = random.Random(1000 + seed)
    while True:
        Lr = sp.Matrix(d, d, lambda i, j: sp.Rational(pt_rng.randint(-4, 4), pt_rng.randint(1, 3)))
        Sr = Lr * Lr.T + sp.eye(d) / 4
        if Sr.det() != 0:
            break
    pt = {**{S[i, j]: Sr[i, j] for i in range(d) for j in range(d)},
          **{v: sp.Rational(pt_rng.randint(-4, 4), pt_rng.randint(1, 3))
             for v in list(m) + list(x) + list(Q) + list(Kk)}}
    Pr, Cr, wr = Sr.inv(), C.xreplace(pt), (Kk.T * Q * x).xreplace(pt)
    n_prec = (Pr + Cr).inv() * (Pr * m.xreplace(pt) + wr)
    n_cov = (sp.eye(d) + Sr * Cr).inv() * (m.xreplace(pt) + Sr * wr)
    if not is_zero_matrix(n_prec - n_cov):
        raise RuntimeError("derivation bug: L2 tilted mean forms disagree")
    n = G * (m + S * Kk.T * Q * x)
    if steps is not None:
        steps.append(Step("L2 tilted measure is Gaussian with mean G(m + Σw), G = (I + ΣKᵀK)⁻¹",
                          sp.Eq(sp.Symbol("T(x)"), n, evaluate=False),
                          "exponent -(y-m)ᵀP(y-m)/2 - yᵀCy/2 + wᵀy is a concave quadratic; mean "
                          "solves (P + C)n = Pm + w; multiplying by Σ = P⁻¹ gives (I + ΣC)n = "
                          "m + Σw (both forms equal exactly at a random rational point); I + ΣC "
                          "is invertible for Σ, C ⪰ 0 and the formula extends to singular Σ by "
                          "continuity"))
    return Mat(n)


def _weak_form_moments(d, m, S, x, mu, gamma, steps):
    """m' and Σ' from d/dt ∫φ dμ = ∫∇φ·v dμ, φ = x_i, x_i x_j, v = μx + γ, Isserlis moments."""
    v = mu * x + gamma
    mp = Mat([gaussian_expectation(v[i], x, m, S) for i in range(d)])
    steps.append(Step("Weak form with φ = x_i: m_i' = E[v_i(X)]", mp,
                      "∇φ = e_i; Gaussian moments E[x] = m by Isserlis"))
    second_rate = sp.Matrix(d, d, lambda i, j: gaussian_expectation(x[j] * v[i] + x[i] * v[j],
                                                                     x, m, S))
    steps.append(Step("Weak form with φ = x_i x_j: d/dt E[x_i x_j] = E[x_j v_i + x_i v_j]",
                      Mat(second_rate), "∇(x_i x_j) = x_j e_i + x_i e_j; E[x_i x_j] = Σ_ij + "
                      "m_i m_j by Isserlis"))
    cov_p = second_rate - mp * m.T - m * mp.T
    cov_p = Mat(cov_p.applyfunc(sp.expand))
    expect_m, expect_S = mm(mu, m) + gamma, mm(mu, S) + mm(S, mu.T)
    if not (is_zero_matrix(mp - expect_m) and is_zero_matrix(cov_p - expect_S)):
        raise RuntimeError("derivation bug: weak-form moments")
    steps.append(Step("Σ = E[xxᵀ] - mmᵀ gives m' = Mm + c, Σ' = MΣ + ΣMᵀ",
                      sp.Eq(Mat(cov_p), Mat(expect_S), evaluate=False),
                      "product rule; exact expansion with placeholder M, c (valid for every "
                      "affine field)"))
    return Mat(expect_m), Mat(expect_S)


def _discrete_pushforward(d, m, S, w, K, mu, gamma, h, steps):
    """One residual layer x -> x + h(Mx + c): push the log-MGF forward, read off the moments."""
    F = sp.eye(d) + h * mu
    g = h * gamma
    K_next = K.xreplace(dict(zip(w, F.T * w)))
    K_next = K_next + (w.T * g)[0]
    mean_next = Mat([sp.diff(K_next, wi) for wi in w]).xreplace({wi: 0 for wi in w})
    cov_next = Mat(sp.hessian(K_next, list(w)))
    if set().union(*[e.free_symbols for e in cov_next]) & set(w):
        raise RuntimeError("derivation bug: pushed log-MGF not quadratic")
    quad = (w.T * mean_next)[0] + (w.T * cov_next * w)[0] / 2
    if sp.expand(K_next - quad) != 0:
        raise RuntimeError("derivation bug: pushed log-MGF")
    expect_m = mm(F, m) + g
    expect_S = mm(F, S, F.T)
    if not (is_zero_matrix(mean_next - expect_m) and is_zero_matrix(cov_next - expect_S)):
        raise RuntimeError("derivation bug: discrete map")
    steps.append(Step("One layer X_next = (I + hM)X + hc: log E exp(wᵀX_next) = K((I + hM)ᵀw) "
                      "+ h wᵀc is quadratic in w, so X_next is Gaussian", Mat(cov_next),
                      "MGF of an affine image; its w-Hessian has no w (exact), and K_next equals "
                      "its second-order Taylor polynomial by exact expansion"))
    steps.append(Step("Exact one-layer map: m_next = (I + hM)m + hc, Σ_next = (I + hM)Σ(I + hM)ᵀ",
                      sp.Eq(Mat(cov_next), Mat(expect_S), evaluate=False),
                      "gradient at 0 and Hessian of the pushed log-MGF; exact expansion with "
                      "placeholder M, c"))
    return Mat(expect_m), Mat(expect_S)


def eq11(syms: ClosureSymbols, sub=None):
    """The paper's eq. 1.1 written out (for the identity check, not used to derive).

    With ``sub`` (a substitution), the matrices are substituted before multiplying.
    """
    def f(M):
        return M.xreplace(sub) if sub else M
    A, m, S, b = f(syms.A), f(syms.m), f(syms.S), f(syms.b)
    mean = mm(A, m) + b
    cov = mm(A, S) + mm(S, A.T)
    for V, B in syms.heads:
        V, B = f(V), f(B)
        mean = mean + mm(V, m) + mm(V, S, B, m)
        cov = cov + mm(V, S, B, S) + mm(S, B.T, S, V.T)
    return Mat(mean), Mat(cov)


def _matrix_level_identity(heads: int):
    """Dimension-free check with non-commutative matrix symbols: (A + ΣVΣB)Σ + Σ(…)ᵀ = eq. 1.1."""
    n = sp.Symbol("n")
    A, S = sp.MatrixSymbol("A", n, n), sp.MatrixSymbol("Sigma", n, n)
    Vs = [sp.MatrixSymbol(f"V{k}", n, n) for k in range(heads)]
    Bs = [sp.MatrixSymbol(f"B{k}", n, n) for k in range(heads)]
    M = A + sp.MatAdd(*[V * S * B for V, B in zip(Vs, Bs)])
    lhs = (M * S + S * M.T).subs(S.T, S)
    rhs = A * S + S * A.T + sp.MatAdd(*[V * S * B * S + S * B.T * S * V.T for V, B in zip(Vs, Bs)])
    ok = sp.expand(lhs - rhs).doit().subs(S.T, S)
    ok = sp.expand(ok)
    return ok == sp.ZeroMatrix(n, n) or ok == 0, sp.Eq(lhs, rhs, evaluate=False)


def _eq11_steps(d, syms, J, c, mean_rhs, cov_rhs, depth, h, steps):
    params = [*syms.A, *syms.b, *syms.m, *syms.S] + [v for hd in syms.heads for M in hd for v in M]
    ok, eq = _matrix_level_identity(len(syms.heads))
    if not ok:
        raise RuntimeError("derivation bug: matrix-level eq. 1.1 identity")
    steps.append(Step("Eq. 1.1 at the matrix level: (A + sum VΣB)Σ + Σ(A + sum VΣB)ᵀ = "
                      "AΣ + ΣAᵀ + sum (VΣBΣ + ΣBᵀΣVᵀ)", eq,
                      "non-commutative matrix symbols, Σᵀ = Σ, exact expansion (any dimension)"))
    if depth == "continuous":
        jm = identity_check(mean_rhs, lambda p: eq11(syms, p)[0], d, params,
                             "mean equation = eq. 1.1")
        js = identity_check(cov_rhs, lambda p: eq11(syms, p)[1], d, params,
                             "covariance equation = eq. 1.1", seed=1)
        eq_m, eq_S = (sp.MatrixSymbol("rhs_1_1_mean", d, 1), sp.MatrixSymbol("rhs_1_1_cov", d, d))
        if d <= EXPAND_UP_TO:
            eq_m, eq_S = eq11(syms)
        steps.append(Step("Derived m' equals eq. 1.1: (A + V)m + VΣBm + b",
                          sp.Eq(sp.MatrixSymbol("m_dot", d, 1), eq_m, evaluate=False), jm))
        steps.append(Step("Derived Σ' equals eq. 1.1: AΣ + ΣAᵀ + VΣBΣ + ΣBᵀΣVᵀ",
                          sp.Eq(sp.MatrixSymbol("Sigma_dot", d, d), eq_S, evaluate=False), js))
    else:
        def exp_m(p):
            f = (lambda e: e.xreplace(p)) if p else (lambda e: e)
            return Mat(f(syms.m) + f(h) * eq11(syms, p)[0])

        def exp_S(p):
            f = (lambda e: e.xreplace(p)) if p else (lambda e: e)
            M, S = f(J), f(syms.S)
            return Mat(S + f(h) * eq11(syms, p)[1] + f(h) ** 2 * mm(M, S, M.T))
        jm = identity_check(mean_rhs, exp_m, d, params + [h], "discrete mean map")
        js = identity_check(cov_rhs, exp_S, d, params + [h], "discrete covariance map", seed=1,
                             expand_up_to=2)
        steps.append(Step("Discrete map = Euler step of eq. 1.1 plus h²MΣMᵀ",
                          sp.Eq(sp.MatrixSymbol("Sigma_next", d, d), sp.MatrixSymbol("Sigma", d, d)
                                + h * sp.MatrixSymbol("RHS_eq1_1", d, d) + h ** 2 *
                                sp.MatrixSymbol("M", d, d) * sp.MatrixSymbol("Sigma", d, d) *
                                sp.MatrixSymbol("M", d, d).T, evaluate=False),
                          f"mean: {jm}; covariance: {js}"))
