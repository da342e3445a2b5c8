"""Algebraic decay when A is a centre (d = 2): the search for a ``decay-centre`` certificate (the
mathematics is in :mod:`symgauss.kernel.kinds.decay_centre`).

Untrusted search, but nothing here is float: P = [[−c, a], [a, b]] for A = [[a, b], [c, −a]]
(PA + AᵀP = 0 exactly when tr A = 0), the homological equation q − αw² − β det Σ = ∇χ·L solved
exactly (6 equations in the 8 unknowns χ, α, β; χ is unique up to the invariants w² and det Σ,
and the free unknowns are set to 0), the kernel's own bounds C ≥ |∇χ·Q|, c_χ ≥ |χ| on the slice w = 1 and
W = W_SHARE·min(κ/C, 1/c_χ) rounded down. Then validated steps of eq. 1.1 (log-norm steps with
changes of metric, else C¹ steps) until their enclosure is inside {w < W, V < W(1 − c_χW)},
V = w − χ; the float solution tells how far to go.
"""
from __future__ import annotations

from symgauss.questions.regime.blowup_bound import BlowupBound, verified

#: W as a share of the largest W the bounds allow (κ − CW > 0, 1 − c_χW > 0): a larger share
#: lets the steps stop sooner, a smaller one leaves the rate κ − CW larger
W_SHARE = 0.5
#: cells per side of the slice w = 1 for the kernel's bounds of |∇χ·Q| and |χ|
CELLS = 64
METHOD = ("validated Taylor steps, then V = tr(PΣ) − χ(Σ), the quadratic part averaged over the "
          "rotation of a centre A (symgauss.questions.regime.decay_centre)")


def _average(params, P):
    """(χ as 6 fmpq, α, β) solving q − αw² − β det Σ − ∇χ·L ≡ 0 exactly, or None."""
    import flint
    import sympy as sp

    from symgauss.kernel.kinds.decay_centre import QUADRATIC, add_polys, along, fields, mul_polys
    L, Q = fields(params)
    w = {(1, 0, 0): P[0, 0], (0, 1, 0): 2 * P[0, 1], (0, 0, 1): P[1, 1]}
    columns = [along({m: flint.fmpq(1)}, L) for m in QUADRATIC]
    columns += [mul_polys(w, w), {(1, 0, 1): flint.fmpq(1), (0, 2, 0): flint.fmpq(-1)}]
    q = add_polys(along(w, Q))

    def rat(x):
        return sp.Rational(int(x.p), int(x.q))
    M = sp.Matrix([[rat(col.get(m, flint.fmpq(0))) for col in columns] for m in QUADRATIC])
    rhs = sp.Matrix([rat(q.get(m, flint.fmpq(0))) for m in QUADRATIC])
    try:
        sol, params_free = M.gauss_jordan_solve(rhs)
    except ValueError:
        return None
    sol = sol.subs({s: 0 for s in params_free})
    out = [flint.fmpq(int(v.p), int(v.q)) for v in sol]
    return out[:6], out[6], out[7]


def _float_entry(problem, P, target):
    """The float time at which w = tr(PΣ) first falls below ``target`` (LSODA), or None."""
    import math

    import numpy as np

    from symgauss.questions.regime.reference import first_event_time
    Pf = [float(P[0, 0]), 2 * float(P[0, 1]), float(P[1, 1])]

    def w(_t, y):
        return np.dot(Pf, y) - target
    t = first_event_time(problem, w, 2000, atol=1e-14)
    return t if t is not None and math.isfinite(t) else None


def is_centre(problem) -> bool:
    """d = 2, time-invariant, and A a centre: tr A = 0 and det A > 0, exactly."""
    if problem.d != 2 or not problem.is_time_invariant:
        return False
    A = problem.params.A
    return A[0, 0] + A[1, 1] == 0 and A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0] > 0


def find_decay_centre(problem) -> BlowupBound:
    """A kernel-verified ``decay-centre`` certificate, or why none was found."""
    import flint

    from symgauss.integrate.mean_value import integrate_c1
    from symgauss.integrate.validated import ORDER, PREC, integrate, step_budget
    from symgauss.kernel.equations import svec
    from symgauss.kernel.exact import eye
    from symgauss.kernel.flow import sym_of, upper
    from symgauss.kernel.kinds.decay_centre import (
        QUADRATIC,
        along,
        fields,
        poly_value,
        slice_bounds,
    )
    from symgauss.kernel.kinds.limit import MAX_STEPS
    from symgauss.kernel.read import mat_text, read_problem
    from symgauss.kernel.steps import mid_fmpq
    from symgauss.questions.regime.basin import ADAPT, _down, _problem_data
    from symgauss.questions.regime.blowup_bound import _up_abs
    if problem.d != 2:
        return BlowupBound(None, f"kind decay-centre is for d = 2 (this problem has d = "
                           f"{problem.d})")
    ep = read_problem(_problem_data(problem))
    A = ep.params.A
    a, b, c = A[0, 0], A[0, 1], A[1, 0]
    if A[1, 1] != -a or not a * a + b * c < 0:
        return BlowupBound(None, "A is not a centre (tr A = 0 and det A > 0, exactly)")
    P = flint.fmpq_mat([[-c, a], [a, b]])
    P = P if P[0, 0] > 0 else P * -1
    found = _average(ep.params, P)
    if found is None:
        return BlowupBound(None, "the homological equation of the rotation has no solution")
    chi, alpha, beta = found
    kappa = -max(alpha, alpha + beta / (4 * P.det()))
    if not kappa > 0:
        return BlowupBound(None, f"the quadratic part averaged over the rotation of A is not "
                           f"dissipative on Σ ⪰ 0 (κ = {float(kappa):.3g})")
    chi_p = {m: v for m, v in zip(QUADRATIC, chi) if v != 0}
    _, Q = fields(ep.params)
    with flint.ctx.workprec(PREC):
        C, cx, ell = slice_bounds(P, chi_p, along(chi_p, Q), CELLS)
        W = _down(W_SHARE * min(float(kappa) / float(C), 1 / float(cx)))
        shrink = 1 - cx * W
        cap = W * shrink
    # near w = W, |χ| ≤ c_χW² = W·(1 − shrink): w below 0.9·cap − that puts V below cap too
    target = 0.9 * float(cap.lower()) - float((cx * W * W).upper())
    t_float = _float_entry(problem, P, target)
    if t_float is None:
        return BlowupBound(None, f"the float solution does not reach tr(PΣ) ≤ {target:.3g} by "
                           "t = 2000")

    w_p = {(1, 0, 0): P[0, 0], (0, 1, 0): 2 * P[0, 1], (0, 0, 1): P[1, 1]}

    def at_end(pt, r):
        """(w, V) on the enclosure of centre pt, radius r (balls)."""
        S = sym_of(pt, 2, upper(r))
        xyz = S[0, 0], S[0, 1], S[1, 1]
        return poly_value(w_p, *xyz), poly_value(w_p, *xyz) - poly_value(chi_p, *xyz)

    def inside(pt, r):
        with flint.ctx.workprec(PREC):
            w, V = at_end(pt, r)
            return bool(w < W and V < cap)
    n, heads = 3, len(ep.params.heads)
    runs = [lambda: integrate(ep.params, svec(ep.cov0), eye(n), flint.fmpq(1), inside,
                              t_max=1.5 * t_float + 10, tol=1e-18, adapt=ADAPT,
                              max_steps=min(step_budget(2, heads), MAX_STEPS)),
            lambda: integrate_c1(ep.params, svec(ep.cov0), eye(n), inside,
                                 t_max=1.5 * t_float + 10, tol=1e-18,
                                 max_steps=min(step_budget(2, heads, kind="c1"), MAX_STEPS))]
    why = []
    for run_of in runs:
        run = run_of()
        if not run.stopped:
            why.append(run.why or "no enclosure")
            continue
        with flint.ctx.workprec(PREC):
            Vq = mid_fmpq(upper(at_end(run.points[-1], run.radius)[1]))
            k1, grow = kappa - C * W, 1 + cx * W
            bound = _up_abs(float((Vq / (shrink * ell)).upper()) * 1.001)
            rate = _down(0.999 * float((k1 / (grow * grow) * Vq).lower()))
        claim = {"bound": str(bound), "rate": str(rate), "t_enter": str(run.t)}
        witness = {"P": mat_text(P), "chi": [str(v) for v in chi],
                   "average": [str(alpha), str(beta)], "W": str(W), "cells": CELLS,
                   "steps": run.witness_steps(), "order": ORDER, "prec": PREC,
                   **({"metrics": run.witness_metrics()} if run.switches else {})}
        res = verified("decay-centre", problem, claim, witness, METHOD, level="rigorous")
        if res.certificate is not None:
            return res
        why.append(res.why)
    return BlowupBound(None, "validated steps did not enter the region {w < W, V < W(1 − "
                       f"c_χW)}} (W = {float(W):.3g}, float entry t ≈ {t_float:.4g}): "
                       + "; ".join(why))
