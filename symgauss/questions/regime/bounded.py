"""Bounded for all time, from a linear functional tr(PΣ) whose quadratic part is dissipative:
the search for a ``bounded-linear`` certificate (the mathematics is in
:mod:`symgauss.kernel.kinds.bounded`).

An SDP (cvxpy, Clarabel; untrusted) finds P ≻ 0 (tr P = 1) with −M(P) ⪰ t·I, t as large as it
can be (M(P) the quadratic part of tr(PΣ)' in the entries of Σ); then κ = t/‖p‖² (p the
coefficients of tr(PΣ), so that −M ⪰ κppᵀ), a just above the largest eigenvalue of
P^{-1/2}(PA + AᵀP)P^{-1/2} and ℓ just below λmin(P), all short rationals, and the kernel checks
them exactly. Tried only when the float reference can classify nothing (``unclear``), after
:func:`decay_regime` (kind ``decay-cone``, :mod:`symgauss.questions.regime.decay_cone`), which is
also tried when the reference sees a decay that the validated routes do not prove, and, when A is
a centre at d = 2, by a decay averaged over the rotation (kind ``decay-centre``,
:mod:`symgauss.questions.regime.decay_centre`); at d = 2 both come after a region round a cycle of
rank-one matrices (kind ``bounded-turning``, :mod:`symgauss.questions.regime.bounded_turning`),
except for a centre A, whose decay is tried first.
"""
from __future__ import annotations

import math

from symgauss.questions.regime.blowup_bound import BlowupBound, verified


def find_bounded(problem) -> BlowupBound:
    """A kernel-verified ``bounded-linear`` certificate, or why none was found."""
    import cvxpy as cp
    import flint
    import numpy as np

    from symgauss.kernel.flow import pairs
    from symgauss.kernel.kinds.bounded import MAX_D
    from symgauss.kernel.read import mat_text, read_problem
    from symgauss.questions.regime.basin import _down, _problem_data, _q
    from symgauss.questions.regime.decay_cone import _forms
    from symgauss.questions.regime.reference import _float_params
    if problem.d > MAX_D:
        return BlowupBound(None, f"d = {problem.d} is over kind bounded-linear's d ≤ {MAX_D}")
    A, heads = _float_params(problem)
    d = problem.d
    idx = pairs(d)      # the kernel's coordinates of Sym(d)
    M_of, _, _, n = _forms(d, heads, A)
    P = cp.Variable((d, d), symmetric=True)
    t = cp.Variable()
    Msym = M_of(P)
    prob = cp.Problem(cp.Maximize(t), [-Msym >> t * np.eye(n), P >> 1e-3 * np.eye(d),
                                       cp.trace(P) == 1])
    try:
        prob.solve(solver="CLARABEL")
    except cp.SolverError:
        return BlowupBound(None, "the SDP for P failed")
    if t.value is None or not t.value > 1e-7:
        return BlowupBound(None, "no P ≻ 0 makes the quadratic part of tr(PΣ)' negative "
                           "definite (SDP, Clarabel)")
    Pf = (P.value + P.value.T) / 2
    Pq = flint.fmpq_mat(d, d, [_q(float(Pf[max(i, j), min(i, j)]), 10) for i in range(d)
                               for j in range(d)])
    Pf = np.array([[float(Pq[i, j]) for j in range(d)] for i in range(d)])
    vec = np.array([Pf[i, j] if i == j else 2 * Pf[i, j] for i, j in idx])
    kappa = _down(0.9 * float(t.value) / float(vec @ vec))
    Li = np.linalg.inv(np.linalg.cholesky(Pf))
    top = float(np.linalg.eigvalsh(Li @ (Pf @ A + A.T @ Pf) @ Li.T)[-1])
    a = _q(top + 1e-4 * max(1.0, abs(top)), 6)     # above top after rounding
    ell = _down(0.99 * float(np.linalg.eigvalsh(Pf)[0]))
    ep = read_problem(_problem_data(problem))
    w0 = sum((Pq[i, j] * ep.cov0[i, j] for i in range(d) for j in range(d)), flint.fmpq(0))
    exact = max(w0, a / kappa) / ell
    e = math.floor(math.log10(float(exact))) - 2         # up to 3 significant digits
    bound = flint.fmpq(math.ceil(float(exact) / 10.0 ** e) + 1) * flint.fmpq(10) ** e
    return verified("bounded-linear", problem, {"bound": str(bound)},
                    {"P": mat_text(Pq), "ell": str(ell), "a": str(a), "kappa": str(kappa)},
                    "a linear functional tr(PΣ) with a dissipative quadratic part "
                    "(symgauss.questions.regime.bounded)", level="exact")


METHOD = ("a linear functional tr(PΣ) with a dissipative quadratic part, checked exactly "
          "(symgauss.questions.regime.bounded)")
TURNING_METHOD = ("validated integration into a region round a cycle of rank-one matrices, "
                  "checked in ball arithmetic (symgauss.questions.regime.bounded_turning)")


DECAY_METHOD = {"decay-cone": "a linear functional tr(PΣ) dissipative on the cone Σ ⪰ 0, checked "
                              "exactly (symgauss.questions.regime.decay_cone)",
                "decay-cone-steps": "validated Taylor steps, then a linear functional tr(PΣ) "
                                    "dissipative on the cone Σ ⪰ 0 (symgauss.questions.regime."
                                    "decay_cone)"}


def decay_regime(problem, tried, Regime):
    """``decay`` from a kernel-verified ``decay-cone`` certificate (exact) or ``decay-cone-steps``
    (rigorous), else, for a centre A at d = 2, ``decay-centre`` (rigorous), as ``Regime``
    (classify's class, passed in), or None (``tried`` says why)."""
    from symgauss.questions.regime.decay_centre import METHOD as CENTRE
    from symgauss.questions.regime.decay_centre import find_decay_centre, is_centre
    from symgauss.questions.regime.decay_cone import find_decay_cone
    res = find_decay_cone(problem)
    if res.certificate is None:
        tried.append(f"a linear functional tr(PΣ) dissipative on the cone Σ ⪰ 0: {res.why}")
        if not is_centre(problem):
            return None
        res = find_decay_centre(problem)
        if res.certificate is None:
            tried.append(f"tr(PΣ) − χ(Σ), the quadratic part averaged over the rotation of the "
                         f"centre A: {res.why}")
            return None
    return Regime("decay", res.certificate["level"], res.certificate["claim"]["statement"] +
                  " (kernel: VERIFIED)", {**DECAY_METHOD, "decay-centre": CENTRE}[
                      res.certificate["kind"]], certificate_data=res.certificate,
                  tried=tuple(tried))


def bounded_regime(problem, tried, Regime):
    """For a centre A, :func:`decay_regime` first; at d = 2 a region round a cycle of rank-one
    matrices (kind ``bounded-turning``, rigorous: its floor on tr Σ rules out a decay, so nothing
    stronger is missed); then
    :func:`decay_regime`, or else ``bounded`` from a kernel-verified ``bounded-linear``
    certificate (exact), as ``Regime``, or None (``tried`` says why)."""
    from symgauss.questions.regime.decay_centre import is_centre
    if is_centre(problem) and (decay := decay_regime(problem, tried, Regime)) is not None:
        return decay        # a centre A: no cycle of rank-one matrices to look for first
    if problem.d == 2:
        from symgauss.questions.regime.bounded_turning import find_bounded_turning
        res = find_bounded_turning(problem)
        if res.certificate is not None:
            return Regime("bounded", "rigorous", res.certificate["claim"]["statement"] +
                          " (kernel: VERIFIED)", TURNING_METHOD,
                          certificate_data=res.certificate, tried=tuple(tried))
        tried.append(f"a region round a cycle of rank-one matrices: {res.why}")
    if not is_centre(problem) and (decay := decay_regime(problem, tried, Regime)) is not None:
        return decay
    res = find_bounded(problem)
    if res.certificate is None:
        tried.append(f"a linear functional tr(PΣ) bounding Σ(t): {res.why}")
        return None
    return Regime("bounded", "exact", res.certificate["claim"]["statement"] +
                  " (kernel: VERIFIED)", METHOD, certificate_data=res.certificate,
                  tried=tuple(tried))
