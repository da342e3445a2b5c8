"""C¹ steps in the mean-value form: validated integration of eq. 1.1 that carries the shape of
the enclosure (Lohner's idea), for stretches where the log-norm steps of
:mod:`symgauss.integrate.validated` lose their accuracy.

Untrusted search: each step is proposed here (h, the a-priori box, the next point, ν) and kept
only when the kernel's own :func:`symgauss.kernel.steps.c1_step` accepts it; the mathematics is
in :mod:`symgauss.kernel.steps`. The enclosure is the ellipsoid
{x : (x − c)ᵀQ⁻¹(x − c) ≤ r²}; each step maps it by the flow's derivative [Φ] over the set
(the Taylor series of the variational equation, order C1_ORDER, with its Lagrange remainder)
and takes the next shape Q' ≈ Φ·Q·Φᵀ, so that ν = ‖Φ‖ from shape to shape stays near 1 where a
log-norm in one fixed metric would grow like e^{μh} at every step.

A flow that turns Σ about five times (Σ' = AΣ + ΣAᵀ, A = [[1/10, 3], [−3, 1/10]]), from a ball
of radius 10⁻⁸: the C¹ steps end with a radius near the flow's own growth e^{0.2t} ≈ 7.4, where
log-norm steps of one metric end near 170 (tests/test_c1_steps.py):

>>> import flint
>>> from symgauss.kernel.exact import eye
>>> from symgauss.kernel.read import read_problem
>>> p = read_problem({"cov0": [[2, 0], [0, "1/2"]], "A": [["1/10", 3], [-3, "1/10"]]})
>>> run = integrate_c1(p.params, [flint.fmpq(2), flint.fmpq(0), flint.fmpq(1, 2)], eye(3),
...                    None, t_max=10, radius=flint.arb(flint.fmpq(1, 10 ** 8)))
>>> float(run.t) >= 10, float(run.radius.mid()) < 1e-6
(True, True)
"""
from __future__ import annotations

import math

import flint

from symgauss.integrate.validated import (
    ORDER,
    POINT_DIGITS,
    PREC,
    Pace,
    Run,
    _box,
    _floats,
    _floats_mid,
    _simple_signed,
    shortened_step,
    taylor_scale,
)
from symgauss.kernel.flow import Flow, upper
from symgauss.kernel.steps import (
    Nu,
    c1_derivative,
    c1_step,
    enter_shape,
    leave_shape,
    nu_bounds,
    shape_map,
)
from symgauss.kernel.verdict import NotProved


def _estimate(P_inv, Q, r):
    """A float estimate of r in ‖·‖_P (√λmax(P·Q)·r; ``P_inv`` = P⁻¹ in floats), for the stop
    test between the kernel's own conversions (:func:`~symgauss.kernel.steps.leave_shape`)."""
    import numpy as np
    from scipy.linalg import eigh
    try:
        top = float(eigh(_floats(Q), P_inv, eigvals_only=True)[-1])
    except (np.linalg.LinAlgError, ValueError):
        return flint.arb("inf")
    return flint.arb(float(r.mid()) * math.sqrt(max(top, 0.0))) if math.isfinite(top) else \
        flint.arb("inf")


def least_nu(Phi, Q, Q2, K):
    """The least of a few short rationals ν, rounded up from √λmax of (Φ·Q·Φᵀ, Q') at the
    midpoints (floats) with margins 10⁻¹⁰…10⁻² for [Φ]'s radii, that the kernel's
    :func:`~symgauss.kernel.steps.nu_bounds` accepts for the balls K; or None."""
    import numpy as np
    from scipy.linalg import eigh
    G = _floats_mid(Phi)
    try:
        top = float(eigh(G @ _floats(Q) @ G.T, _floats(Q2), eigvals_only=True)[-1])
    except (np.linalg.LinAlgError, ValueError):
        return None
    if not math.isfinite(top) or top <= 0:
        return None
    for m in (1e-10, 1e-8, 1e-6, 1e-4, 1e-2):
        nu = _simple_signed(math.sqrt(top) * (1 + m), 12)
        if nu_bounds(K, nu):
            return nu
    return None


def integrate_c1(params, start, P, stop, *, t_max, order: int = ORDER, prec: int = PREC,
                 max_steps: int = 600, safety: float = 0.12, tol: float = 1e-15, radius=None,
                 digits: int = POINT_DIGITS, stop_time=None, flow=None) -> Run:
    """C¹ steps from the exact svec ``start`` (within ‖·‖_P-distance ``radius``; P ≻ 0 an
    fmpq_mat) until ``stop(point, r)`` or ``stop_time(point, r, t)`` holds — r the radius
    converted back to ‖·‖_P as the kernel converts it after the last step
    (:func:`~symgauss.kernel.steps.leave_shape`) — or ``t_max`` or ``max_steps``. The Run's
    radius is in ‖·‖_P; its steps carry ν (:class:`~symgauss.kernel.steps.Nu`). ``flow``: another
    field with :class:`~symgauss.kernel.flow.Flow`'s methods and its tangents (default eq. 1.1
    for ``params``; the compactified flow of
    :class:`~symgauss.kernel.kinds.blowup_infinity.CompactFlow`)."""
    import numpy as np
    steps, points, texts = [], [list(start)], []
    t = flint.fmpq(0)
    with flint.ctx.workprec(prec):
        flow, Pa, P_inv = flow or Flow(params), flint.arb_mat(P), np.linalg.inv(_floats(P))
        r0 = flint.arb(0) if radius is None else upper(radius)
        Q, r = enter_shape(Pa, r0)
        c, pace = list(start), Pace()

        def stops(radius):
            return (stop is not None and stop(c, radius)) or (stop_time is not None and
                                                              stop_time(c, radius, t))

        def exact():
            try:
                return leave_shape(Pa, Q, r)
            except NotProved:
                return flint.arb("inf")
        while True:
            if steps and stops(_estimate(P_inv, Q, r)) and stops(r_P := exact()):
                return Run(steps, points, r_P, t, True, texts)
            if float(t) >= t_max or len(steps) >= max_steps:
                return Run(steps, points, exact(), t, False, texts,
                           f"stopped at t = {float(t):.4g} after {len(steps)} C¹ steps")
            co, a0, h0 = taylor_scale(flow, c, order)
            spread = [upper(flint.arb(Q[i, i])).sqrt() for i in range(len(c))]

            def validate(H, nxt, co=co):
                B = _box(flow, c, r, spread, H)
                found = c1_derivative(flow, Q, c, r, H, B)
                nu = least_nu(found[0], Q, *shape_map(found[0], Q)[:2])
                if nu is None:
                    raise NotProved("no ν")
                r_new, Q_new = c1_step(flow, Q, c, r, H, B, nu, nxt, order, derivative=found,
                                       point=co[:order])
                return B, (nu, Q_new), r_new, float(nu)
            found = shortened_step(flow, co, order, digits, h0 * safety, a0, tol, r, validate,
                                   pace)
            if found is None:
                return Run(steps, points, exact(), t, False, texts,
                           f"no C¹ step could be validated at t = {float(t):.4g}")
            H, rounded, B, (nu, Q_new), r_new = found
            nxt = [x for x, _ in rounded]
            steps.append((H, B, Nu(nu), nxt))
            points.append(nxt)
            texts.append([tx for _, tx in rounded])
            c, r, Q, t = nxt, r_new, Q_new, t + H
