"""Convergence to Σ* ≻ 0 from the linear equation for Σ⁻¹ (every V_h = v_h I): the search for a
``limit-riccati`` certificate (the mathematics is in :mod:`symgauss.kernel.kinds.limit_riccati`).

P* = Σ*⁻¹ solves the Lyapunov equation AᵀP* + P*A = −R exactly (a d²×d² rational system). Then
an SDP (cvxpy, Clarabel; untrusted) finds Q with AᵀQ + QA ⪰ rQ (r a short rational share of
min Re λ(A)) and Σ*⁻¹ − Σ0⁻¹ ⪯ Q ≺ Σ*⁻¹ (so μ = 1), with the largest margin; Q is rounded to
rationals and the kernel checks everything exactly. When no such Q exists (Σ0 too far from Σ*
for this bound, which holds for all t at once), there is no certificate here.
"""
from __future__ import annotations

import flint

from symgauss.questions.regime.blowup_bound import BlowupBound, verified

#: the rate tried, as shares of min Re λ(A) (at most 2·min Re λ(A) is possible)
SHARES = (1.0, 0.2)
#: the SDP's smallest margin worth rounding (Q's entries are rounded to 10 digits)
MARGIN = 1e-7


def _lyapunov(A, C):
    """The exact X with AᵀX + XA = C (None when the d²×d² system is singular)."""
    d = A.nrows()
    n = d * d
    K = flint.fmpq_mat(n, n)
    for i in range(d):
        for j in range(d):
            for k in range(d):      # (AᵀX)_ij = Σ_k A_ki X_kj, (XA)_ij = Σ_k X_ik A_kj
                K[i * d + j, k * d + j] += A[k, i]
                K[i * d + j, i * d + k] += A[k, j]
    rhs = flint.fmpq_mat(n, 1, [C[i, j] for i in range(d) for j in range(d)])
    try:
        x = K.solve(rhs)
    except ZeroDivisionError:
        return None
    X = flint.fmpq_mat(d, d, [x[k, 0] for k in range(n)])
    return (X + X.transpose()) / 2


def find_limit_riccati(problem) -> BlowupBound:
    """A kernel-verified ``limit-riccati`` certificate, or why none was found."""
    import numpy as np

    from symgauss.kernel.equations import riccati_R
    from symgauss.kernel.exact import positive_definite
    from symgauss.kernel.read import mat_text, read_problem
    from symgauss.questions.regime.basin import _down, _problem_data, _q
    ep = read_problem(_problem_data(problem))
    p = ep.params
    R = riccati_R(p)
    if R is None:
        return BlowupBound(None, "not every V_h = v_h I")
    if positive_definite(ep.cov0)[0] is not True:
        return BlowupBound(None, "cov0 is not positive definite (the argument needs Σ0⁻¹)")
    A, d = p.A, p.A.nrows()

    def floats(M):
        return np.array([[float(M[i, j]) for j in range(d)] for i in range(d)])
    Af = floats(A)
    low = float(min(np.linalg.eigvals(Af).real))
    if not low > 1e-9:
        return BlowupBound(None, f"A is not positive stable (min Re λ(A) ≈ {low:.3g}): P = Σ⁻¹ "
                           "does not settle")
    P = _lyapunov(A, R * -1)
    if P is None or positive_definite(P)[0] is not True:
        return BlowupBound(None, "the equilibrium of P' = −AᵀP − PA − R is not positive "
                           "definite")
    Pf, Df = floats(P), floats(ep.cov0.inv() - P)
    why = "no Q found"
    for share in SHARES:
        rate = _down(share * low)
        Qf = _witness(Af, Pf, Df, float(rate))
        if Qf is None:
            why = (f"no Q ≻ 0 with AᵀQ + QA ⪰ {rate}·Q between Σ*⁻¹ − Σ0⁻¹ and Σ*⁻¹ (SDP, "
                   "Clarabel): Σ0 is too far from Σ* for this bound")
            continue
        Q = flint.fmpq_mat(d, d, [_q(float(Qf[max(i, j), min(i, j)]), 10) for i in range(d)
                                  for j in range(d)])
        res = verified("limit-riccati", problem, {"cov": mat_text(P.inv()), "rate": str(rate)},
                       {"Q": mat_text(Q), "mu": "1"},
                       "the linear equation for Σ⁻¹ (every V_h = v_h I) "
                       "(symgauss.questions.regime.limit_riccati)", level="exact")
        if res.certificate is not None:
            return res
        why = res.why
    return BlowupBound(None, why)


def _witness(Af, Pf, Df, rate: float):
    """Q (floats) with AᵀQ + QA − rate·Q, Q + Δ, Σ*⁻¹ − Q and Q all ⪰ e·I, e > MARGIN the
    largest (Clarabel), or None."""
    import cvxpy as cp
    import numpy as np
    d = len(Af)
    Q, e, eye = cp.Variable((d, d), symmetric=True), cp.Variable(), np.eye(d)
    cons = [Af.T @ Q + Q @ Af - rate * Q >> e * eye, Q + Df >> e * eye, Pf - Q >> e * eye,
            Q >> e * eye]
    try:
        cp.Problem(cp.Maximize(e), cons).solve(solver="CLARABEL")
    except cp.SolverError:
        return None
    if e.value is None or not e.value > MARGIN or Q.value is None:
        return None
    return (Q.value + Q.value.T) / 2


METHOD = ("the linear equation for Σ⁻¹ when every V_h = v_h I, checked exactly "
          "(symgauss.questions.regime.limit_riccati)")


def riccati_regime(problem, tried, Regime):
    """``stable-equilibrium`` at level exact from a kernel-verified ``limit-riccati``
    certificate, as ``Regime`` (classify's class, passed in: no import cycle), or None
    (``tried`` says why when every V_h = v_h I)."""
    if problem.params.quadratic_R() is None:
        return None
    res = find_limit_riccati(problem)
    if res.certificate is None:
        tried.append(f"the linear equation for Σ⁻¹ (every V_h = v_h I): {res.why}")
        return None
    claim = res.certificate["claim"]
    return Regime("stable-equilibrium", "exact", claim["statement"] + " (kernel: VERIFIED)",
                  METHOD, equilibrium=tuple(tuple(r) for r in claim["cov"]),
                  rate=claim["rate"], certificate_data=res.certificate)
