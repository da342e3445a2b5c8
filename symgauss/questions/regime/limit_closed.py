"""Convergence when every V_h = v_h I, entered by the closed form: the search for a
``limit-closed-form`` certificate (the mathematics is in
:mod:`symgauss.kernel.kinds.limit_closed`).

:func:`symgauss.questions.regime.basin.find_limit` finds the contraction region (centre c,
metric P, level ρ) and when the float solution enters {‖x − c‖_P² ≤ 0.81ρ}; here T is that time
with a margin (ENTRY_MARGINS, rounded up to a short rational), and the kernel's own closed form
(:func:`~symgauss.kernel.kinds.limit_closed.closed_form`) is evaluated at T from the precision
the cancellation needs (about 4·max Re λ(A)·T/ln 2 bits) upward, doubling, until its ball lies
inside the region. One block exponential per try, milliseconds at d = 4, where validated steps
took up to a minute or could not get there within their budget (seed-1021 vI-20-d4: the float
solution enters at t ≈ 174).
"""
from __future__ import annotations

import math

import flint

from symgauss.kernel.verdict import NotProved

#: T = factor·(the float entry time) + offset, tried in turn (later T: deeper in the region)
ENTRY_MARGINS = ((1.2, 1.0), (2.0, 5.0))
#: the precision tried first: the cancellation estimate times this, plus EXTRA_BITS
SAFETY, EXTRA_BITS = 1.25, 128


def closed_entry(ep, P, C, rho, t_in) -> tuple | None:
    """(T, prec) with the kernel's closed-form ball of Σ(T) inside {‖x − svec C‖_P² < ρ} (the
    kernel's own entry test), or None (not every V_h = v_h I, Σ0 = 0, R indefinite, no float
    entry, T over the kernel's span limit, or no precision within its limit gets the ball in)."""
    from symgauss.kernel.equations import riccati_R, svec
    from symgauss.kernel.exact import norm_inf
    from symgauss.kernel.kinds.blowup import MAX_SPAN, ldl_psd
    from symgauss.kernel.kinds.limit import require_entry
    from symgauss.kernel.kinds.limit_closed import MAX_PREC, closed_form, falls
    R = riccati_R(ep.params)
    f = None if R is None else ldl_psd(ep.cov0)
    if f is None or f[0] is None or t_in is None or not math.isfinite(t_in):
        return None
    try:
        falling = falls(R)
    except NotProved:
        return None
    growth = max(0.0, _max_real_eig(ep.params.A))
    scale = norm_inf(ep.params.A) + norm_inf(R)
    for factor, offset in ENTRY_MARGINS:
        T = flint.fmpq(math.ceil((factor * t_in + offset) * 100), 100)
        if T * scale > MAX_SPAN:       # the kernel would not read it: the steps are tried
            break
        prec = int(SAFETY * 4 * growth * float(T) / math.log(2)) + EXTRA_BITS
        while prec <= MAX_PREC:
            with flint.ctx.workprec(prec):
                try:
                    S = closed_form(ep.params.A, R, *f, T, not falling)
                except NotProved:       # M(T) not proved invertible (or ≻ 0): more bits
                    S = None
                if S is not None:
                    try:
                        require_entry({"center": C, "t_enter": T}, {"P": P, "rho": rho},
                                      svec(S), flint.arb(0), "")
                        return T, prec
                    except NotProved:
                        if max(x.rad() for x in svec(S)) < 1e-6 * math.sqrt(float(rho)):
                            break   # a thin ball outside the region: a later T may get in
            prec *= 2
    return None


def _max_real_eig(A) -> float:
    import numpy as np
    d = A.nrows()
    return float(max(np.linalg.eigvals(np.array([[float(A[i, j]) for j in range(d)]
                                                 for i in range(d)])).real))
