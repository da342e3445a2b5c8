"""Untrusted float search for equilibria: Newton in svec coordinates (numpy), from many starts.

F(Σ) = MΣ + ΣMᵀ, M = A + Σ_h V_hΣB_h, in svec coordinates (entries i ≤ j, as
:mod:`symgauss.model.linearise`); the Jacobian is built in one broadcast from

    vec(MΔ + ΔMᵀ + Σ_h(V_hΔB_hΣ + ΣB_hᵀΔV_hᵀ)) = (M⊗I + I⊗M + Σ_h(V_h⊗ΣB_hᵀ + ΣB_hᵀ⊗V_h)) vec Δ.

Newton is damped (backtracking on the residual) and *deflated* (Farrell, Birkisson & Funke
2015): once roots r_k are known — Σ = 0 from the start — the step is that of
F(x)·∏_k(1/‖x − r_k‖² + 1), which repels the iteration from them, so one start can give several
roots. Starts: cov0, multiples of I at the problem's scale ‖A‖/Σ‖V_h‖‖B_h‖, the Lyapunov
guesses of :mod:`.lyapunov` with V_h replaced by multiples of I, and seeded random ones; then
Newton homotopies (:mod:`.homotopy`). Everything here only proposes: the roots are refined and
proved (or labelled) by :mod:`.refine`.
"""
from __future__ import annotations

import numpy as np

from symgauss.model.linearise import numeric_params


class FloatSystem:
    """F and its Jacobian in svec coordinates for one problem, in floats."""

    def __init__(self, A, heads):
        self.A = np.asarray(A, dtype=float)
        self.heads = [(np.asarray(V, dtype=float), np.asarray(B, dtype=float)) for V, B in heads]
        d = self.d = self.A.shape[0]
        pairs = [(i, j) for i in range(d) for j in range(i, d)]
        self.n = len(pairs)
        self.iu = (np.array([p[0] for p in pairs], dtype=int),
                   np.array([p[1] for p in pairs], dtype=int))
        self.rows = np.array([i * d + j for i, j in pairs], dtype=int)
        self.cji = np.array([j * d + i for i, j in pairs], dtype=int)
        self.off = np.array([float(i != j) for i, j in pairs])
        self.eye = np.eye(d)
        qs = sum(np.linalg.norm(V, 2) * np.linalg.norm(B, 2) for V, B in self.heads)
        a = np.linalg.norm(self.A, 2)
        self.scale = float(a / qs) if qs > 0 and a > 0 else 1.0   # where AΣ ~ VΣBΣ
        self.coef = float(a + qs) or 1.0   # |F(Σ)| ≲ coef·(1 + |Σ|)²

    @classmethod
    def of(cls, problem) -> "FloatSystem":
        A, heads, _ = numeric_params(problem.params, float)
        return cls(A, heads)

    def smat(self, x):
        S = np.zeros((self.d, self.d), dtype=np.asarray(x).dtype)
        S[self.iu] = x
        S.T[self.iu] = x
        return S

    def svec(self, S):
        return np.asarray(S)[self.iu]

    def _M(self, S):
        M = self.A.astype(S.dtype)
        for V, B in self.heads:
            M = M + V @ S @ B
        return M

    def F(self, x):
        S = self.smat(x)
        R = self._M(S) @ S
        return (R + R.T)[self.iu]

    def J(self, x):
        S = self.smat(x)
        M, eye, d = self._M(S), self.eye, self.d
        K = M[:, None, :, None] * eye[None, :, None, :] + eye[:, None, :, None] * M[None, :, None, :]
        for V, B in self.heads:
            T = S @ B.T
            K = K + V[:, None, :, None] * T[None, :, None, :] + T[:, None, :, None] * V[None, :, None, :]
        K = K.reshape(d * d, d * d)[self.rows]
        return K[:, self.rows] + K[:, self.cji] * self.off


def solve(J, r):
    """J⁻¹r; above n = 64 by LAPACK through scipy (numpy's threaded OpenBLAS solve was 50×
    slower for n ≈ 100 on a busy 2-core machine); numpy.linalg.LinAlgError when J is singular."""
    if J.shape[0] <= 64:   # small: numpy's solve, without scipy's per-call overhead
        x = np.linalg.solve(J, r)
        if not np.all(np.isfinite(x)):
            raise np.linalg.LinAlgError("singular matrix")
        return x
    import warnings

    from scipy.linalg import LinAlgWarning, lu_factor, lu_solve
    with warnings.catch_warnings():
        warnings.simplefilter("error", LinAlgWarning)
        try:
            lu = lu_factor(J, check_finite=False)
        except (LinAlgWarning, ValueError) as exc:
            raise np.linalg.LinAlgError(str(exc)) from None
    if not np.all(np.isfinite(lu[0])) or np.min(np.abs(np.diag(lu[0]))) == 0:
        raise np.linalg.LinAlgError("singular matrix")
    return lu_solve(lu, r, check_finite=False)


def _merit(x, f, roots):
    m = float(np.linalg.norm(f))
    for r in roots:
        e = x - r
        m *= 1.0 / max(float(e @ e), 1e-150) + 1.0
    return m


def _lstsq(J, r):
    from scipy.linalg import lstsq
    return lstsq(J, r, cond=1e-12, check_finite=False)[0]


def newton(fs: FloatSystem, x, roots=(), iters: int = 60, *, lstsq: bool = False):
    """Damped Newton from x, deflated by ``roots``; the root (svec) or None.

    Gives up when the (deflated) residual has not halved in 8 iterations or far away; a
    numerically singular Jacobian (a continuum of roots) gets a minimum-norm step (least
    squares), as every step does with ``lstsq``.
    """
    x = np.array(x, dtype=float)
    f = fs.F(x)
    cur = _merit(x, f, roots)
    hist = [cur]
    for _ in range(iters):
        J = fs.J(x)
        try:
            dx = _lstsq(J, -f) if lstsq else solve(J, -f)
            if not np.max(np.abs(dx)) < 1e8 * (1 + np.max(np.abs(x))):
                raise np.linalg.LinAlgError("a numerically singular Jacobian")
        except np.linalg.LinAlgError:   # singular (e.g. on a continuum): minimum-norm step
            try:
                dx = _lstsq(J, -f)
            except (np.linalg.LinAlgError, ValueError):
                return None
        if roots:  # the deflated step: dx / (1 − ∇log m · dx)  (Sherman–Morrison)
            g = np.zeros_like(x)
            for r in roots:
                e = x - r
                q = max(float(e @ e), 1e-150)
                g -= 2 * e / (q * q) / (1 / q + 1)
            den = 1.0 - float(g @ dx)
            if abs(den) > 1e-12:
                dx = dx / den
        t = 1.0
        while True:
            xn = x + t * dx
            fn = fs.F(xn)
            mn = _merit(xn, fn, roots)
            if (np.isfinite(mn) and mn < (1 - t / 4) * cur) or t < 1 / 64:
                break
            t /= 2
        if not np.all(np.isfinite(xn)) or np.max(np.abs(xn)) > 1e12 * (1 + fs.scale):
            return None
        x, f, cur = xn, fn, mn
        hist.append(cur)
        if np.max(np.abs(t * dx)) <= 1e-14 * (1 + np.max(np.abs(x))):
            return x
        if len(hist) > 8 and not hist[-1] < 0.5 * hist[-9]:
            return None
    return None


def lyapunov_guesses(fs: FloatSystem) -> list:
    """Σ = P⁻¹ with AᵀP + PA = −Σ_h v_h(B_h + B_hᵀ), v_h the mean / extreme real parts of the
    eigenvalues of V_h: the exact equilibrium when every V_h = v_h I, a guess otherwise."""
    import warnings

    from scipy.linalg import solve_continuous_lyapunov
    out = []
    for pick in (np.mean, np.min, np.max):
        R = np.zeros((fs.d, fs.d))
        for V, B in fs.heads:
            R += pick(np.linalg.eigvals(V).real) * (B + B.T)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                P = solve_continuous_lyapunov(fs.A.T, -R)
            P = (P + P.T) / 2
            if np.all(np.isfinite(P)) and np.all(np.linalg.eigvalsh(P) > 0):
                out.append(np.linalg.inv(P))
        except (np.linalg.LinAlgError, ValueError):
            pass
    return out


def starts(fs: FloatSystem, cov0, rng, nrand: int) -> list:
    d, s = fs.d, fs.scale
    out = [np.asarray(cov0, dtype=float)]
    out += [c * s * fs.eye for c in (0.1, 0.3, 1.0, 3.0, 10.0)]
    out += lyapunov_guesses(fs)
    for _ in range(nrand):
        G = rng.standard_normal((d, d))
        out.append(s * 10 ** rng.uniform(-1, 1) * (G @ G.T / d + 0.05 * fs.eye))
    return out
