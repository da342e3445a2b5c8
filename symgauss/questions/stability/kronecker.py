"""Float numerics on d×d matrices for stability at large d (untrusted: the kernel re-checks).

For F(S) = MS + SMᵀ, M = A + Σ_h V_hSB_h, the linearisation at S acts on Sym(d) as
J(Δ) = MΔ + ΔMᵀ + Σ_h(V_hΔC_h + C_hᵀΔV_hᵀ), C_h = B_hS — d×d products, never an
n×n matrix (n = d(d+1)/2) unless one is asked for:

- :func:`newton_krylov`: Newton for F(S) = 0 with GMRES on Sym(d), preconditioned by the
  Lyapunov operator Δ ↦ GΔ + ΔGᵀ (Bartels–Stewart, scipy), where G = M + Σ_h(c_hV_h + v_hC_hᵀ
  − c_hv_hI) (v_h = tr V_h/d, c_h = tr C_h/d) is the part of J that is a Kronecker sum: exact
  when every V_h = v_hI;
- :func:`margin`: m(Q) = −λmax of the symmetric part of J in the inner product
  ⟨X, Y⟩_Q = tr(QXQY), so that ⟨Δ, JΔ⟩_Q ≤ −m(Q)‖Δ‖²_Q (what the kernel's kind
  ``stable-equilibrium-structured`` proves, for a rate below m(Q));
- :func:`improve_q`: raises m(Q) by steps along −∂λmax/∂Q (the top eigenvectors give the
  gradient), starting from Σ⁻¹ and from Lyapunov solutions for G.

>>> import numpy as np
>>> A, heads = np.array([[1.0, 0], [0, 3]]), [(-np.eye(2), np.eye(2))]   # V = −I, B = I
>>> S = newton_krylov(A, heads, 2 * np.eye(2))
>>> np.allclose(S, np.diag([1.0, 3.0]))
True
>>> round(margin(A, heads, S, np.linalg.inv(S))[0], 6)                    # spectrum −2, −4, −6
2.0
"""
from __future__ import annotations

import numpy as np


# --- Sym(d) <-> R^n, orthonormal (off-diagonal entries weighted by √2) ------------------------
def _pairs(d):
    return np.triu_indices(d)


def to_vec(X: np.ndarray) -> np.ndarray:
    """Orthonormal coordinates of the symmetric X (works on stacks (..., d, d) too)."""
    d = X.shape[-1]
    i, j = _pairs(d)
    return X[..., i, j] * np.where(i == j, 1.0, np.sqrt(2.0))


def to_mat(x: np.ndarray, d: int) -> np.ndarray:
    i, j = _pairs(d)
    X = np.zeros(x.shape[:-1] + (d, d))
    w = x / np.where(i == j, 1.0, np.sqrt(2.0))
    X[..., i, j] = w
    X[..., j, i] = w
    return X


# --- the field and its derivative --------------------------------------------------------------
def velocity(A, heads, S):
    return A + sum((V @ S @ B for V, B in heads), np.zeros_like(A))


def field(A, heads, S):
    M = velocity(A, heads, S)
    return M @ S + S @ M.T


def jac(A, heads, S, D):
    """J_S(D) for one D or a stack of them."""
    M = velocity(A, heads, S)
    X = M @ D + sum((V @ D @ (B @ S) for V, B in heads), np.zeros_like(D))
    return X + np.swapaxes(X, -1, -2)


def jac_adjoint(A, heads, S, X):
    """J_S*(X) for the Frobenius inner product on Sym(d): MᵀX + XM + Σ_h(C_hXV_h + V_hᵀXC_hᵀ)."""
    M = velocity(A, heads, S)
    Y = M.T @ X + sum((V.T @ X @ (B @ S).T for V, B in heads), np.zeros_like(X))
    return Y + np.swapaxes(Y, -1, -2)


def kronecker_part(A, heads, S):
    """G = M + Σ_h(c_hV_h + v_hC_hᵀ − c_hv_hI): J minus Σ_h (V_h − v_hI)Δ(C_h − c_hI) + transposes."""
    d = S.shape[0]
    G = velocity(A, heads, S)
    for V, B in heads:
        C = B @ S
        v, c = np.trace(V) / d, np.trace(C) / d
        G = G + c * V + v * C.T - c * v * np.eye(d)
    return G


def _lyapunov_inverse(G):
    """R ↦ X with GX + XGᵀ = R (Bartels–Stewart), or None when G has λ_i + λ_j ≈ 0."""
    from scipy.linalg import solve_continuous_lyapunov
    ev = np.linalg.eigvals(G)
    if np.min(np.abs(ev[:, None] + ev[None, :])) < 1e-10 * (1 + np.max(np.abs(ev))):
        return None
    return lambda R: solve_continuous_lyapunov(G, R)


def solve_linearised(A, heads, S, R, rtol=1e-13):
    """Δ ∈ Sym(d) with J_S(Δ) = R: GMRES preconditioned by the Lyapunov operator of G (the
    dense n×n solve when GMRES does not converge), or None when J_S is singular."""
    from scipy.sparse.linalg import LinearOperator, gmres
    d = S.shape[0]
    n = d * (d + 1) // 2
    op = LinearOperator((n, n), matvec=lambda x: to_vec(jac(A, heads, S, to_mat(x, d))))
    inv = _lyapunov_inverse(kronecker_part(A, heads, S))
    pre = None if inv is None else LinearOperator(
        (n, n), matvec=lambda x: to_vec(inv(to_mat(x, d))))
    x, info = gmres(op, to_vec(R), M=pre, rtol=rtol, atol=0.0, restart=min(n, 60),
                    maxiter=4)
    if info != 0 or not np.all(np.isfinite(x)):  # the preconditioner did not serve: dense
        J = to_vec(jac(A, heads, S, to_mat(np.eye(n), d))).T
        try:
            x = np.linalg.solve(J, to_vec(R))
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(x)):
            return None
    return to_mat(x, d)


def newton_krylov(A, heads, S0, iters=60):
    """A positive-definite zero of F near the positive-definite S0, or None: Newton steps
    (:func:`solve_linearised`), halved until the iterate stays positive definite and ‖F‖
    decreases (a damped Newton method: the flow keeps Σ ≻ 0, and so does the search)."""
    S = (S0 + S0.T) / 2
    res = np.linalg.norm(field(A, heads, S))
    for _ in range(iters):
        step = solve_linearised(A, heads, S, -field(A, heads, S), rtol=1e-12)
        if step is None:
            return None
        t = 1.0
        while t > 1e-3:
            T = S + t * step
            r = np.linalg.norm(field(A, heads, T))
            if r < res and np.min(np.linalg.eigvalsh(T)) > 0:
                break
            t /= 2
        else:
            return None
        if t == 1.0 and np.max(np.abs(step)) <= 1e-14 * (1 + np.max(np.abs(T))):
            return T
        S, res = T, r
        if res == 0:
            return S
    return None


def spectral_abscissa(A, heads, S) -> float:
    """max Re λ(J_S), from the dense n×n matrix of J_S in orthonormal coordinates (floats)."""
    d = S.shape[0]
    n = d * (d + 1) // 2
    J = to_vec(jac(A, heads, S, to_mat(np.eye(n), d))).T
    return float(np.max(np.linalg.eigvals(J).real))


# --- the Q-norm margin and its improvement -----------------------------------------------------
def _sqrt_and_inverse_sqrt(Q):
    w, U = np.linalg.eigh(Q)
    return (U * np.sqrt(w)) @ U.T, (U / np.sqrt(w)) @ U.T


def margin(A, heads, S, Q, k=0):
    """(m(Q), the k top eigenvectors as matrices Δ with ‖Δ‖_Q = 1, their eigenvalues).

    m(Q) = −λmax of (K + K*)/2, K(X) = Q^½ J(Q^-½XQ^-½) Q^½ on Sym(d) (Frobenius); by Lanczos
    (scipy ``eigsh``) on d×d products — small products, no n×n matrix, no threaded LAPACK —
    with the dense n×n eigendecomposition as the fallback.
    """
    from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh
    d = S.shape[0]
    n = d * (d + 1) // 2
    Qh, Qih = _sqrt_and_inverse_sqrt((Q + Q.T) / 2)

    def sym_part(X):
        K = Qh @ jac(A, heads, S, Qih @ X @ Qih) @ Qh
        return (K + Qih @ jac_adjoint(A, heads, S, Qh @ X @ Qh) @ Qih) / 2
    kk = max(k, 1)
    try:
        if n <= 3 * kk + 2:
            raise ArpackNoConvergence("too small for Lanczos", [], [])
        op = LinearOperator((n, n), matvec=lambda x: to_vec(sym_part(to_mat(x, d))))
        w, X = eigsh(op, k=kk, which="LA", tol=1e-10, ncv=min(n, max(20, 4 * kk)))
    except ArpackNoConvergence:
        H = to_vec(sym_part(to_mat(np.eye(n), d)))
        w, X = np.linalg.eigh((H + H.T) / 2)
    order = np.argsort(w)[-kk:]
    w, X = w[order], X[:, order]
    if k == 0:
        return -float(w[-1]), None, None
    return -float(w[-1]), Qih @ to_mat(X.T, d) @ Qih, w


def q_candidates(A, heads, S):
    """Starting points: Σ⁻¹ and Lyapunov solutions for the Kronecker part G (when Hurwitz)."""
    from scipy.linalg import solve_continuous_lyapunov
    d = S.shape[0]
    out = [np.linalg.inv(S)]
    G = kronecker_part(A, heads, S)
    alpha = -float(np.max(np.linalg.eigvals(G).real))
    if alpha > 0:
        for f in (0.0, 0.5):
            Q = solve_continuous_lyapunov((G + f * alpha * np.eye(d)).T, -np.eye(d))
            if np.all(np.linalg.eigvalsh((Q + Q.T) / 2) > 0):
                out.append((Q + Q.T) / 2)
    return [Q * d / np.trace(Q) for Q in out]


def improve_q(A, heads, S, Q, steps=40, target=None, k=3):
    """(m, Q) with m = m(Q) ≥ m(Q_start): steps along −∂λmax/∂Q in the Q-geometry, weighting
    the k top eigenvectors (λmax is not smooth where eigenvalues cross); stops at ``target``."""
    d = S.shape[0]
    best_m, best_Q = margin(A, heads, S, Q)[0], Q
    eta = 0.05
    for _ in range(steps):
        if target is not None and best_m >= target or eta < 1e-4:
            break
        _, Ds, lam = margin(A, heads, S, best_Q, k)
        weights = np.exp(20 * (lam - lam[-1]) / (abs(lam[-1]) + 1e-12))
        weights /= weights.sum()
        g = np.zeros((d, d))
        for c in range(len(lam)):
            D = Ds[c]
            Y = jac(A, heads, S, D)
            g += weights[c] * (D @ best_Q @ Y + Y @ best_Q @ D - 2 * lam[c] * D @ best_Q @ D)
        step = best_Q @ g @ best_Q
        size = np.linalg.norm(np.linalg.solve(best_Q, step))
        if not size > 0:
            break
        trial = best_Q - eta * step / size
        trial = (trial + trial.T) / 2
        if np.min(np.linalg.eigvalsh(trial)) <= 0:
            eta /= 2
            continue
        trial *= d / np.trace(trial)
        m = margin(A, heads, S, trial)[0]
        if m > best_m:
            best_m, best_Q, eta = m, trial, eta * 1.2
        else:
            eta /= 2
    return best_m, best_Q
