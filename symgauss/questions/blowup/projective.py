"""T* for general V by a desingularised (projective) system: blow-up becomes a regular limit.

With a weight W ≻ 0, s = tr(WΣ), u = 1/s, Σ̂ = uΣ and the new time dτ = dt/u:

    dΣ̂/dτ = u L̂ + Q̂ − Σ̂ (u g + q),   du/dτ = −u (u g + q),   dt/dτ = u,
    L̂ = AΣ̂ + Σ̂Aᵀ,  Q̂ = Σ_h (V_hΣ̂B_hΣ̂ + Σ̂B_hᵀΣ̂V_hᵀ),  g = tr(W L̂),  q = tr(W Q̂).

A polynomial (cubic) vector field with no singularity: Σ blows up at T* exactly when u → 0 as
τ → ∞, and then T* = lim t(τ) = t(τ₁) + u(τ₁)/q(τ₁) + O(u²). Rank-deficient Σ0 needs nothing
special (Σ̂ stays PSD of the same rank). The field is integrated by a Taylor-series method
(Cauchy products, arb midpoints at an explicit precision — level *high-precision*); two runs
with different weights W (different trajectories, orders and precisions) must agree.

>>> from symgauss import Problem
>>> p = Problem(cov0=[[1, 0], [0, 1]], V=[[1, 0], [0, 2]], B=[[1, 0], [0, 1]])
>>> t, steps = projective_t_star(p, digits=20)
>>> mpmath.nstr(t, 15)
'0.25'
"""
from __future__ import annotations

import math

import flint
import mpmath
import numpy as np

from symgauss.integrate.high_precision import arb_matrix, horner


def _series(A, heads, W, S, u, order):
    """Taylor coefficients (Σ̂_k, u_k, t_k) of the projective field at (S, u)."""
    d = A.nrows()
    Sc, uc, tc = [S], [u], [flint.arb(0)]
    WT = W
    VS = [[V * S * B] for V, B in heads]       # (V Σ̂ B)_j
    wl = []                                    # w_k = (u g)_k + q_k
    gs = []
    for k in range(order):
        L = A * Sc[k] + Sc[k] * A.transpose()
        gs.append((WT * L).trace())
        P = flint.arb_mat(d, d)
        for h in range(len(heads)):
            for j in range(k + 1):
                P = P + VS[h][j] * Sc[k - j]
        Q = P + P.transpose()
        q = (WT * Q).trace()
        ug = sum((uc[j] * gs[k - j] for j in range(k + 1)), flint.arb(0))
        wl.append(ug + q)
        uL = flint.arb_mat(d, d)
        for j in range(k + 1):
            uL = uL + (A * Sc[k - j] + Sc[k - j] * A.transpose()) * uc[j]
        Sw = flint.arb_mat(d, d)
        uw = flint.arb(0)
        for j in range(k + 1):
            Sw = Sw + Sc[j] * wl[k - j]
            uw = uw + uc[j] * wl[k - j]
        Snew = ((uL + Q - Sw) / (k + 1)).mid()
        unew = (-uw / (k + 1)).mid()
        tnew = (uc[k] / (k + 1)).mid()
        Sc.append(Snew)
        uc.append(unew)
        tc.append(tnew)
        for h, (V, B) in enumerate(heads):
            VS[h].append(V * Snew * B)
    return Sc, uc, tc


def _size(S, u):
    return max([abs(float(x.mid())) for x in S.entries()] + [abs(float(u.mid()))] + [1e-300])


def projective_t_star(problem, digits: int = 30, weight: int = 0, max_steps: int = 300):
    """(T*, steps) from the projective system (mpf at ~digits + 20), or (None, steps) if
    u does not reach 10^-(digits/2 + 14) within ``max_steps`` Taylor steps (no blow-up seen)."""
    dps = digits + 20
    order = int(1.15 * dps) + 6
    d = problem.d
    with flint.ctx.workdps(dps), mpmath.workdps(dps):
        A = arb_matrix(problem.params.A)
        heads = [(arb_matrix(h.V), arb_matrix(h.B)) for h in problem.params.heads]
        W = flint.arb_mat(d, d)
        for i in range(d):
            W[i, i] = flint.arb(1 + weight * i) / (1 + weight)
        S = arb_matrix(problem.cov0)
        s = (W * S).trace()
        u = 1 / s
        S = S * u
        t = flint.arb(0)
        tol = 10.0 ** (-dps)
        target = flint.arb(10) ** (-(dps // 2 + 4))
        steps = 0
        while steps < max_steps:
            Sc, uc, tc = _series(A, heads, W, S, u, order)
            lg = [math.log(max(_size(a, b), 1e-300)) for a, b in zip(Sc, uc)]
            h = min(math.exp((math.log(tol) - lg[k]) / k) for k in (order - 1, order))
            h = min(h, 1e6)
            hb = flint.arb(h)
            S = horner(Sc, hb)
            u = horner(uc, hb)
            t = horner(tc, hb) + t
            steps += 1
            if float(u.mid()) <= 0:
                return None, steps
            if u < target:
                Q = flint.arb_mat(d, d)
                for V, B in heads:
                    P = V * S * B * S
                    Q = Q + P + P.transpose()
                q = (W * Q).trace()
                if not q > 0:
                    return None, steps
                T = (t + u / q).mid()
                m, e = T.man_exp()
                return mpmath.mpf((int(m), int(e))), steps
        return None, steps


def _series_float(A, heads, W, S, u, order):
    """Taylor coefficients (Σ̂_k, u_k, t_k) of the projective field in float64 (numpy)."""
    d = S.shape[0]
    Sc = np.zeros((order + 1, d, d))
    uc, tc, wl, gs = np.zeros(order + 1), np.zeros(order + 1), np.zeros(order), np.zeros(order)
    VS = np.zeros((len(heads), order + 1, d, d))      # V_h Σ̂_j B_h
    Sc[0], uc[0] = S, u
    for h, (V, B) in enumerate(heads):
        VS[h, 0] = V @ S @ B
    for k in range(order):
        rev = Sc[k::-1]                                 # Σ̂_k, …, Σ̂_0
        gs[k] = 2.0 * float(np.sum(W * (A @ Sc[k])))   # tr(W(AΣ̂ + Σ̂Aᵀ)), W symmetric
        P = (VS[:, :k + 1] @ rev).sum(axis=(0, 1))
        q = 2.0 * float(np.sum(W * P))
        wl[k] = float(np.dot(uc[:k + 1], gs[k::-1])) + q
        uL = A @ np.tensordot(uc[:k + 1], rev, axes=1)
        Sw = np.tensordot(wl[k::-1], Sc[:k + 1], axes=1)
        uw = float(np.dot(uc[:k + 1], wl[k::-1]))
        Sc[k + 1] = (uL + uL.T + P + P.T - Sw) / (k + 1)
        uc[k + 1] = -uw / (k + 1)
        tc[k + 1] = uc[k] / (k + 1)
        for h, (V, B) in enumerate(heads):
            VS[h, k + 1] = V @ Sc[k + 1] @ B
    return Sc, uc, tc


def projective_float(problem, order: int = 20, max_steps: int = 400):
    """(T*, tr C, steps) from the projective system in float64, W = I, or (None, None, steps).

    A quick cross-check of T* by the moment ODE itself (desingularised; level *float*).
    Near the blow-up Σ ≈ C/(T* − t), so u = 1/trΣ ≈ (T* − t)/tr C and tr C = 1/q at u = 0.

    >>> from symgauss import Problem
    >>> t, trc, _ = projective_float(Problem(cov0=[[1, 0], [0, 1]], V=[[1, 0], [0, 2]],
    ...                                      B=[[1, 0], [0, 1]]))
    >>> round(t, 12), round(trc, 10)     # σ2 = 1/(1 − 4t): T* = 1/4, C = diag(0, 1/4)
    (0.25, 0.25)
    """
    d = problem.d

    def f(M):
        return np.array([[float(M[i, j]) for j in range(M.shape[1])] for i in range(M.shape[0])])
    A = f(problem.params.A)
    heads = [(f(h.V), f(h.B)) for h in problem.params.heads]
    W = np.eye(d)
    S = f(problem.cov0)
    u = 1.0 / float(np.trace(S))
    S = S * u
    t, tol = 0.0, 1e-17
    with np.errstate(all="ignore"):     # an overflowing run ends below (u or t not finite)
        return _projective_steps(A, heads, W, S, u, t, tol, order, max_steps)


def _projective_steps(A, heads, W, S, u, t, tol, order, max_steps):
    """The Taylor steps of :func:`projective_float` from (S, u, t)."""
    for steps in range(1, max_steps + 1):
        Sc, uc, tc = _series_float(A, heads, W, S, u, order)
        lg = np.log(np.maximum(np.maximum(np.abs(Sc).max(axis=(1, 2)), np.abs(uc)), 1e-300))
        h = min(math.exp((math.log(tol) - lg[k]) / k) for k in (order - 1, order))
        h = min(h, 1e6)
        powers = h ** np.arange(order + 1)
        S = np.tensordot(powers, Sc, axes=1)
        u = float(np.dot(powers, uc))
        t = t + float(np.dot(powers, tc))
        if not (u > 0 and math.isfinite(t)):
            return None, None, steps
        q = sum(2.0 * float(np.sum(W * (V @ S @ B @ S))) for V, B in heads)
        g = 2.0 * float(np.sum(W * (A @ S)))
        if q > 0 and u * (1 + abs(g)) < 1e-10 * q:
            return t + u / q, 1.0 / q, steps
    return None, None, max_steps
