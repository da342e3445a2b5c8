"""Decay to 0 from a linear functional tr(PΣ) dissipative on the cone Σ ⪰ 0, also when A is not
Hurwitz (A singular, A = 0: the decay is algebraic, like 1/t): the search for a ``decay-cone``
certificate (the mathematics is in :mod:`symgauss.kernel.kinds.decay_cone`).

Untrusted search, two SDPs (cvxpy, Clarabel). When A has a kernel N (exact), PA + AᵀP ⪯ 0 forces
AᵀPN = 0, so P is sought in that subspace (an exact rational basis), and rounding keeps it there.
The first SDP finds P ⪰ I with tr(PΣ0) ≤ T for a trial T, −(PA + AᵀP) ≻ 0 off N, and the largest κ
for which H(P, κ) = −T(K) − Z with K, Z ⪰ 0; P is rounded to short rationals, ℓ, Λ and T are
then exact, and the second SDP (P fixed) finds K and κ again with a margin on K and Z, so that
the rounded K passes the kernel's exact checks.
"""
from __future__ import annotations

from symgauss.questions.regime.blowup_bound import BlowupBound, verified

#: trial values of T / tr Σ0 (P ⪰ I, so tr(PΣ0) ≥ tr Σ0 and T must be larger)
T_FACTORS = (1.5, 4.0, 16.0)


def _subspace(A):
    """A rational basis (sympy matrices) of {P symmetric : AᵀPN = 0}, N = ker A (exact)."""
    import sympy as sp
    d = A.shape[0]
    N = A.nullspace()
    units = []
    for i in range(d):
        for j in range(i, d):
            E = sp.zeros(d, d)
            E[i, j] = E[j, i] = 1
            units.append(E)
    if not N:
        return units
    # the map coefficients → AᵀPN, one column per unit
    Mmap = sp.Matrix([[x for n in N for x in (A.T * E * n)] for E in units]).T
    return [sum((c * E for c, E in zip(v, units)), sp.zeros(d, d)) for v in Mmap.nullspace()]


def _kron_map(d: int):
    """The matrix L with svec-form(T(K)) = L·vec(K) (both flattened column-major)."""
    import numpy as np

    from symgauss.kernel.flow import pairs
    idx = pairs(d)
    at = {}
    for n, (i, j) in enumerate(idx):
        at[i, j] = at[j, i] = n
    n, D = len(idx), d * d
    L = np.zeros((n * n, D * D))
    for a in range(d):
        for b in range(d):
            for c in range(d):
                for f in range(d):
                    r, s = at[a, c], at[b, f]
                    col = (c * d + f) * D + (a * d + b)
                    L[s * n + r, col] += 0.5
                    L[r * n + s, col] += 0.5
    return L


def _forms(d, heads, A):
    """Functions P ↦ (M(P), m(P)) in the svec coordinates: the quadratic part's matrix and the
    coefficients of tr((PA + AᵀP)Σ) (cvxpy expressions or floats)."""
    import numpy as np

    from symgauss.kernel.flow import pairs
    idx = pairs(d)
    units = []
    for i, j in idx:
        E = np.zeros((d, d))
        E[i, j] = E[j, i] = 1
        units.append(E)
    n = len(idx)
    # q(Σ) = 2 Σ_h tr(P V Σ B Σ): entry (k, m) = Σ_h tr(P V E_k B E_m) + tr(P V E_m B E_k)
    G = [[sum(V @ units[k] @ B @ units[m] + V @ units[m] @ B @ units[k] for V, B in heads)
          for m in range(n)] for k in range(n)]

    def M_of(P):
        import cvxpy as cp
        entries = [cp.trace(P @ G[k][m]) for k in range(n) for m in range(n)]
        M = cp.reshape(cp.hstack(entries), (n, n), order="C")
        return (M + M.T) / 2

    def m_of(P):
        import cvxpy as cp
        MA = P @ A + A.T @ P
        return cp.hstack([MA[i, j] * (1 if i == j else 2) for i, j in idx])
    e = np.array([1.0 if i == j else 0.0 for i, j in idx])
    return M_of, m_of, e, n


def _sdp(d, heads, A, S0, basis, L, T, P_fixed=None, margin=1e-6):
    """(P, κ, K) floats from the SDP (first stage when P_fixed is None), or None."""
    import cvxpy as cp
    import numpy as np
    M_of, m_of, e, n = _forms(d, heads, A)
    if P_fixed is None:
        c = cp.Variable(len(basis))
        P = sum(c[i] * basis[i] for i in range(len(basis)))
    else:
        P = cp.Constant(P_fixed)
    K = cp.Variable((d * d, d * d), symmetric=True)
    Z = cp.Variable((n, n), symmetric=True)
    kappa = cp.Variable()
    m = m_of(P)
    H = (cp.reshape(m, (n, 1), order="C") @ e.reshape(1, n)
         + e.reshape(n, 1) @ cp.reshape(m, (1, n), order="C")) / (2 * T) + M_of(P) \
        + kappa * np.outer(e, e)
    TK = cp.reshape(L @ cp.vec(K, order="F"), (n, n), order="F")
    cons = [K >> margin * np.eye(d * d), Z >> margin * np.eye(n), H + TK + Z == 0]
    if P_fixed is None:
        cons += [P >> np.eye(d), cp.trace(P @ S0) <= T / 1.05]
        Cc = _off_kernel(A)
        if Cc.shape[1]:
            MA = P @ A + A.T @ P
            cons.append(Cc.T @ MA @ Cc << -1e-3 * np.eye(Cc.shape[1]))
    prob = cp.Problem(cp.Maximize(kappa), cons)
    try:
        prob.solve(solver="CLARABEL")
    except cp.SolverError:
        return None
    if kappa.value is None or not kappa.value > 0:
        return None
    Pv = P.value if P_fixed is None else P_fixed
    return (Pv + Pv.T) / 2, float(kappa.value), (K.value + K.value.T) / 2


def _off_kernel(A):
    """An orthonormal basis of (ker A)^⊥ (floats)."""
    import numpy as np
    from scipy.linalg import null_space, orth
    N = null_space(A)
    if N.shape[1] == 0:
        return np.eye(A.shape[0])
    return orth(np.eye(A.shape[0]) - N @ N.T)


def find_decay_cone(problem) -> BlowupBound:
    """A kernel-verified ``decay-cone`` certificate, or why none was found."""
    import flint
    import numpy as np
    import sympy as sp

    from symgauss.kernel.kinds.decay_cone import MAX_D
    from symgauss.kernel.read import mat_text, read_problem
    from symgauss.questions.regime.basin import _down, _problem_data, _q
    from symgauss.questions.regime.blowup_bound import _up_abs
    from symgauss.questions.regime.reference import _float_params
    d = problem.d
    if d > MAX_D:
        return BlowupBound(None, f"d = {d} is over kind decay-cone's d ≤ {MAX_D}")
    ep = read_problem(_problem_data(problem))
    Aq = sp.Matrix(d, d, [sp.Rational(str(ep.params.A[i, j])) for i in range(d)
                          for j in range(d)])
    A, heads = _float_params(problem)
    S0 = np.array([[float(ep.cov0[i, j]) for j in range(d)] for i in range(d)])
    basis_q = _subspace(Aq)
    if not basis_q:
        return BlowupBound(None, "no symmetric P maps ker A into ker Aᵀ")
    basis = [np.array(B.tolist(), dtype=float) for B in basis_q]
    L = _kron_map(d)
    why = "the SDP found no P, K (Clarabel)"
    for factor in T_FACTORS:
        first = _sdp(d, heads, A, S0, basis, L, factor * float(np.trace(S0)))
        if first is None:
            continue
        # P rounded inside the subspace: least squares for its coordinates, then short rationals
        coef = np.linalg.lstsq(np.array([B.ravel() for B in basis]).T, first[0].ravel(),
                               rcond=None)[0]
        Pq = flint.fmpq_mat(d, d)
        for c, B in zip(coef, basis_q):
            cq = _q(float(c), 8)
            for i in range(d):
                for j in range(d):
                    if B[i, j] != 0:
                        Pq[i, j] += cq * flint.fmpq(int(B[i, j].p), int(B[i, j].q))
        Pf = np.array([[float(Pq[i, j]) for j in range(d)] for i in range(d)])
        lam = np.linalg.eigvalsh(Pf)
        if not lam[0] > 0:
            continue
        ell, Lam = _down(0.999 * lam[0]), _up_abs(lam[-1])
        W = sum((Pq[i, j] * ep.cov0[i, j] for i in range(d) for j in range(d)), flint.fmpq(0))
        T = _up_abs(float(W / ell))
        second = _sdp(d, heads, A, S0, basis, L, float(T), P_fixed=Pf)
        if second is None:
            why = "with P rounded, the SDP for K found no dissipation (Clarabel)"
            continue
        _, kappa, K = second
        Kq = flint.fmpq_mat(d * d, d * d, [_q(float(K[max(i, j), min(i, j)]), 8)
                                           for i in range(d * d) for j in range(d * d)])
        kq = _down(0.9 * kappa)
        bound = _up_abs(float(W / ell))
        rate = _down(float(kq * W / (Lam * Lam)))
        res = verified("decay-cone", problem, {"bound": str(bound), "rate": str(rate)},
                       {"P": mat_text(Pq), "ell": str(ell), "Lambda": str(Lam), "T": str(T),
                        "kappa": str(kq), "K": mat_text(Kq)},
                       "a linear functional tr(PΣ) dissipative on the cone Σ ⪰ 0 "
                       "(symgauss.questions.regime.decay_cone)", level="exact")
        if res.certificate is not None:
            return res
        why = res.why
    return BlowupBound(None, why)
