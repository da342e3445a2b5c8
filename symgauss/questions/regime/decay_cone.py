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
    """(M_of, m_of, e, n): P ↦ M(P), the matrix of the quadratic part q(Σ) in the svec
    coordinates, and P ↦ m(P), the coefficients of tr((PA + AᵀP)Σ) (both cvxpy expressions,
    linear in P); e the coefficients of tr Σ; n = d(d + 1)/2."""
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

    # tr(P·G) = vec(Gᵀ)·vec(P) (column-major): one matrix for all n² entries
    Gmat = np.array([G[k][m].T.ravel(order="F") for k in range(n) for m in range(n)])
    sel = np.zeros((n, d * d))       # svec coefficients of a symmetric matrix from its vec
    for r, (i, j) in enumerate(idx):
        sel[r, j * d + i] = 1 if i == j else 2

    def M_of(P):
        import cvxpy as cp
        M = cp.reshape(Gmat @ cp.vec(P, order="F"), (n, n), order="C")
        return (M + M.T) / 2

    def m_of(P):
        import cvxpy as cp
        return sel @ cp.vec(P @ A + A.T @ P, order="F")
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


#: the later start states tried when Σ0 itself is too large for a certificate: the first float
#: states where tr Σ(t) has fallen to these fractions of tr Σ0
FALLS = (0.3, 0.1, 0.03, 0.01)


def _rounded_p(first, basis, basis_q, d):
    """P from the first SDP, rounded inside the subspace (least squares for its coordinates in
    the exact basis, then 8 significant digits)."""
    import flint
    import numpy as np

    from symgauss.questions.regime.basin import _q
    coef = np.linalg.lstsq(np.array([B.ravel() for B in basis]).T, first.ravel(), rcond=None)[0]
    Pq = flint.fmpq_mat(d, d)
    for c, B in zip(coef, basis_q):
        cq = _q(float(c), 8)
        for i in range(d):
            for j in range(d):
                if B[i, j] != 0:
                    Pq[i, j] += cq * flint.fmpq(int(B[i, j].p), int(B[i, j].q))
    return Pq


def _steps_to(ep, Pq, ell, T, d, heads):
    """Validated steps from Σ0 until tr(PΣ)/ℓ ≤ T on their enclosure: (run, W) or None."""
    import flint

    from symgauss.integrate.validated import integrate, step_budget
    from symgauss.kernel.equations import svec
    from symgauss.kernel.exact import eye
    from symgauss.kernel.flow import sym_of, upper
    from symgauss.kernel.kinds.limit import MAX_STEPS
    from symgauss.kernel.steps import mid_fmpq
    top = {}

    def inside(c, rr):
        S = sym_of(c, d, upper(rr))
        w = sum((flint.arb(Pq[i, j]) * S[i, j] for i in range(d) for j in range(d)),
                flint.arb(0))
        if not (w.is_finite() and w < flint.arb(T * ell)):
            return False
        top["W"] = mid_fmpq(upper(w))
        return True
    n = d * (d + 1) // 2
    run = integrate(ep.params, svec(ep.cov0), eye(n), flint.fmpq(1), inside, t_max=400,
                    tol=1e-18, max_steps=min(step_budget(d, heads), MAX_STEPS))
    return (run, top["W"]) if run.stopped else None


def _later_states(problem):
    """Float states Σ(t) (one LSODA run) where tr Σ has first fallen to each of FALLS × tr Σ0;
    the run stops at the last fall, when tr Σ passes 100·tr Σ0 (no decay to look for), at t = 400
    or after MAX_EVALS field evaluations."""
    import numpy as np

    from symgauss.integrate.float_events import solve_with_events
    from symgauss.questions.regime.reference import MAX_EVALS, float_field
    f, full, y0 = float_field(problem)
    tr0, evals = float(np.trace(full(y0))), [0]

    def field(t, y):
        evals[0] += 1
        if evals[0] > MAX_EVALS:
            raise _Stop
        return f(t, y)

    def fall(frac):
        def event(_t, y):
            return np.trace(full(y)) - frac * tr0
        event.terminal, event.direction = frac == FALLS[-1], -1
        return event

    def big(_t, y):
        return np.trace(full(y)) - 100 * tr0
    big.terminal = True
    try:
        sol = solve_with_events(field, (0, 400), y0, [*map(fall, FALLS), big], method="LSODA",
                                rtol=1e-10, atol=1e-14)
    except _Stop:
        return []
    return [full(ys[0]) for ys in sol.y_events[:len(FALLS)] if len(ys)]


class _Stop(Exception):
    pass


def find_decay_cone(problem) -> BlowupBound:
    """A kernel-verified ``decay-cone`` certificate (from Σ0), or else ``decay-cone-steps``
    (validated steps to a smaller Σ(t0) first), or why none was found."""
    import numpy as np
    import sympy as sp

    from symgauss.kernel.kinds.decay_cone import MAX_D
    from symgauss.kernel.read import read_problem
    from symgauss.questions.regime.basin import _problem_data
    from symgauss.questions.regime.reference import _float_params
    d = problem.d
    if d > MAX_D:
        return BlowupBound(None, f"d = {d} is over kind decay-cone's d ≤ {MAX_D}")
    ep = read_problem(_problem_data(problem))
    Aq = sp.Matrix(d, d, [sp.Rational(str(ep.params.A[i, j])) for i in range(d)
                          for j in range(d)])
    A, heads = _float_params(problem)
    if max(np.linalg.eigvals(A).real) > 1e-12:
        return BlowupBound(None, "A has an eigenvalue with positive real part")
    basis_q = _subspace(Aq)
    if not basis_q:
        return BlowupBound(None, "no symmetric P maps ker A into ker Aᵀ")
    setup = (ep, A, heads, basis_q, [np.array(B.tolist(), dtype=float) for B in basis_q],
             _kron_map(d))
    S0 = np.array([[float(ep.cov0[i, j]) for j in range(d)] for i in range(d)])
    res = _attempt(problem, setup, S0, False)
    if res.certificate is not None:
        return res
    for S1 in _later_states(problem):
        later = _attempt(problem, setup, S1, True)
        if later.certificate is not None:
            return later
    return res


def _attempt(problem, setup, S, steps) -> BlowupBound:
    """A certificate whose cone region is sized for the float state S: Σ0 itself, or with
    ``steps`` a later state reached by validated steps."""
    import flint
    import numpy as np

    from symgauss.integrate.validated import ORDER, PREC
    from symgauss.kernel.read import mat_text
    from symgauss.questions.regime.basin import _down, _q
    from symgauss.questions.regime.blowup_bound import _up_abs
    ep, A, heads, basis_q, basis, L = setup
    d = problem.d
    why = "the SDP found no P, K (Clarabel)"
    for factor in T_FACTORS:
        first = _sdp(d, heads, A, S, basis, L, factor * float(np.trace(S)))
        if first is None:
            continue
        Pq = _rounded_p(first[0], basis, basis_q, d)
        Pf = np.array([[float(Pq[i, j]) for j in range(d)] for i in range(d)])
        lam = np.linalg.eigvalsh(Pf)
        if not lam[0] > 0:
            continue
        ell, Lam = _down(0.999 * lam[0]), _up_abs(lam[-1])
        claim, extra = {}, {}
        if steps:
            T = _up_abs(1.05 * float(np.trace(Pf @ S)) / float(ell))
            reached = _steps_to(ep, Pq, ell, T, d, len(heads))
            if reached is None:
                why = "validated steps did not reach the later state's cone region"
                continue
            run, W = reached
            claim = {"t_enter": str(run.t)}
            extra = {"steps": run.witness_steps(), "order": ORDER, "prec": PREC,
                     **({"metrics": run.witness_metrics()} if run.switches else {})}
        else:
            W = sum((Pq[i, j] * ep.cov0[i, j] for i in range(d) for j in range(d)),
                    flint.fmpq(0))
            T = _up_abs(float(W / ell))
        second = _sdp(d, heads, A, S, basis, L, float(T), P_fixed=Pf)
        if second is None:
            why = "with P rounded, the SDP for K found no dissipation (Clarabel)"
            continue
        _, kappa, K = second
        Kq = flint.fmpq_mat(d * d, d * d, [_q(float(K[max(i, j), min(i, j)]), 8)
                                           for i in range(d * d) for j in range(d * d)])
        kq = _down(0.9 * kappa)
        claim.update(bound=str(_up_abs(float(W / ell))),
                     rate=str(_down(float(kq * W / (Lam * Lam)))))
        res = verified("decay-cone-steps" if steps else "decay-cone", problem, claim,
                       {"P": mat_text(Pq), "ell": str(ell), "Lambda": str(Lam), "T": str(T),
                        "kappa": str(kq), "K": mat_text(Kq), **extra},
                       "a linear functional tr(PΣ) dissipative on the cone Σ ⪰ 0 "
                       "(symgauss.questions.regime.decay_cone)",
                       level="rigorous" if steps else "exact")
        if res.certificate is not None:
            return res
        why = res.why
    return BlowupBound(None, why)
