"""Homotopies for the float equilibrium search (untrusted: every end point is re-solved by
Newton and then refined and proved, or labelled, by :mod:`.refine`).

- :func:`total_degree`: the equations are n = d(d+1)/2 quadratics, so by Bézout there are at most
  2ⁿ isolated complex solutions. H(x, t) = (1 − t)·γ·(x²/s² − 1) + t·F(x) with a random complex
  γ (the "gamma trick": the paths avoid singularities with probability one) starts at the 2ⁿ
  points x ∈ {±s}ⁿ; all paths are tracked at once (numpy batches, Euler predictor, Newton
  corrector, step control per path) and the real end points are kept. Used for n ≤ 6 (d ≤ 3).
- :func:`newton_homotopy`: H(x, τ) = F(x) − (1 − τ)F(x0) from (x0, 0) by pseudo-arclength
  continuation (turning points are passed), keeping every crossing of τ = 1 — one path can give
  several roots.
"""
from __future__ import annotations

import itertools

import numpy as np

from symgauss.questions.equilibria.newton import FloatSystem, newton, solve


def _batched(fs: FloatSystem, X):
    """F and its Jacobian for a batch (P, n) of complex svec vectors."""
    d, P = fs.d, X.shape[0]
    i, j = fs.iu
    S = np.zeros((P, d, d), dtype=X.dtype)
    S[:, i, j] = X
    S[:, j, i] = X
    M = np.broadcast_to(fs.A, (P, d, d)).astype(X.dtype)
    for V, B in fs.heads:
        M = M + V @ S @ B
    R = M @ S
    F = (R + np.swapaxes(R, 1, 2))[:, i, j]
    eye = fs.eye
    K = M[:, :, None, :, None] * eye[None, None, :, None, :] + \
        eye[None, :, None, :, None] * M[:, None, :, None, :]
    for V, B in fs.heads:
        T = S @ B.T
        K = K + V[None, :, None, :, None] * T[:, None, :, None, :] + \
            T[:, :, None, :, None] * V[None, None, :, None, :]
    K = K.reshape(P, d * d, d * d)[:, fs.rows]
    return F, K[:, :, fs.rows] + K[:, :, fs.cji] * fs.off


def _solve(M, r):
    try:
        return np.linalg.solve(M, r[..., None])[..., 0]
    except np.linalg.LinAlgError:
        return None


def total_degree(fs: FloatSystem, rng, max_steps: int = 400) -> list:
    """Real end points (svec, re-solved by Newton) of the 2ⁿ total-degree homotopy paths."""
    n, s = fs.n, fs.scale
    gamma = np.exp(2j * np.pi * rng.uniform())
    X = s * np.array(list(itertools.product((1.0, -1.0), repeat=n)), dtype=complex)
    P = X.shape[0]
    t, h = np.zeros(P), np.full(P, 0.02)
    active = np.ones(P, dtype=bool)
    eye = np.eye(n)

    def H(x, tt):
        F, J = _batched(fs, x)
        G = x * x / s ** 2 - 1
        Hx = tt[:, None, None] * J + ((1 - tt)[:, None] * gamma * 2 * x / s ** 2)[:, :, None] * eye
        return (1 - tt)[:, None] * gamma * G + tt[:, None] * F, Hx, F - gamma * G

    for _ in range(max_steps):
        idx = np.nonzero(active)[0]
        if idx.size == 0:
            break
        x, tt = X[idx], t[idx]
        hh = np.minimum(h[idx], 1 - tt)
        _, Hx, Ht = H(x, tt)
        dx = _solve(Hx, -Ht)
        t1 = tt + hh
        x1 = x + hh[:, None] * (dx if dx is not None else 0)
        ok = np.ones(idx.size, dtype=bool)
        prev = None
        for _ in range(3):
            Hv, Hx, _ = H(x1, t1)
            dz = _solve(Hx, -Hv)
            if dz is None:
                ok[:] = False
                break
            x1 = x1 + dz
            nz = np.linalg.norm(dz, axis=1)
            if prev is not None:
                ok &= nz <= 0.5 * prev + 1e-12 * (1 + np.linalg.norm(x1, axis=1))
            prev = nz
        if prev is not None:
            ok &= prev < 1e-6 * (1 + np.linalg.norm(x1, axis=1))
        ok &= np.all(np.isfinite(x1), axis=1)
        X[idx[ok]], t[idx[ok]] = x1[ok], t1[ok]
        h[idx[ok]] = np.minimum(hh[ok] * 1.6, 0.2)
        h[idx[~ok]] = hh[~ok] / 2
        done = (t[idx] >= 1) | (h[idx] < 1e-7) | (np.linalg.norm(X[idx], axis=1) > 1e4 * s)
        active[idx[done]] = False
    out = []
    for x in X[t >= 1]:
        if np.max(np.abs(x.imag)) <= 1e-6 * (1 + np.max(np.abs(x))):
            y = newton(fs, x.real, (), 10)
            if y is not None:
                out.append(y)
    return out


def newton_homotopy(fs: FloatSystem, x0, steps: int = 150) -> list:
    """Roots (svec) where the pseudo-arclength path of F(x) − (1 − τ)F(x0) crosses τ = 1."""
    n = fs.n
    F0 = fs.F(x0)
    if not np.any(F0):
        return [np.array(x0, dtype=float)]
    y = np.append(np.asarray(x0, dtype=float), 0.0)

    def D(y):
        return np.hstack([fs.J(y[:n]), F0[:, None]])
    q = np.linalg.qr(D(y).T, mode="complete")[0]
    tan = q[:, -1] if q[-1, -1] >= 0 else -q[:, -1]
    h = 0.1 * (1 + np.linalg.norm(x0))
    found = []
    for _ in range(steps):
        yp = y + h * tan
        z, ok = yp.copy(), False
        for _ in range(6):
            Dz = D(z)
            try:
                dz = solve(np.vstack([Dz, tan]),
                           -np.append(fs.F(z[:n]) - (1 - z[n]) * F0, tan @ (z - yp)))
            except np.linalg.LinAlgError:
                break
            z = z + dz
            if np.linalg.norm(dz) <= 1e-10 * (1 + np.linalg.norm(z)):
                ok = True
                break
        if not ok or np.linalg.norm(z - yp) > 0.3 * h:
            h /= 2
            if h < 1e-8:
                break
            continue
        try:
            v = solve(np.vstack([Dz, tan]), np.append(np.zeros(n), 1.0))
        except np.linalg.LinAlgError:
            break
        if (y[n] - 1) * (z[n] - 1) <= 0:
            a = (1 - y[n]) / (z[n] - y[n]) if z[n] != y[n] else 0.5
            r = newton(fs, y[:n] + a * (z[:n] - y[:n]), (), 10)
            if r is not None:
                found.append(r)
        y, tan = z, v / np.linalg.norm(v)
        if np.max(np.abs(y[:n])) > 1e8 * (1 + fs.scale):
            break
        h = min(h * 1.5, 10 * (1 + np.linalg.norm(y[:n])))
    return found
