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

When R is indefinite, the kernel needs Σ's existence up to T piece by piece: R' is R's positive
part (rounded, plus εI, both conditions checked exactly) and the pieces are found greedily with
the kernel's own piece test, short where Σ is large (seed-1031 vI-20-d4: Σ peaks near 800 at
t ≈ 2; 626 pieces in 13 runs to T = 53.12, where the steps stopped at t ≈ 1.7).
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
    """(T, witness fields: ``prec``, and ``pieces`` and ``bound`` when R is indefinite) with the
    kernel's closed-form ball of Σ(T) inside {‖x − svec C‖_P² < ρ} (the kernel's own entry test)
    and, for an indefinite R, M ≻ 0 proved on [0, T] piece by piece (:func:`pieces_for`); or
    None (not every V_h = v_h I, Σ0 = 0, no float entry, T over the kernel's span limit, or no
    precision or number of pieces within its limits does it)."""
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
        rising, bound = not falls(R), None
    except NotProved:                   # indefinite: existence piece by piece, from t = 0
        rising, bound = False, positive_part(R)
    growth, d = max(0.0, _max_real_eig(ep.params.A)), R.nrows()
    scale = norm_inf(ep.params.A) + norm_inf(R)
    for factor, offset in ENTRY_MARGINS:
        T = flint.fmpq(math.ceil((factor * t_in + offset) * 100), 100)
        if T * scale > MAX_SPAN:       # the kernel would not read it: the steps are tried
            break
        prec = int(SAFETY * 4 * growth * float(T) / math.log(2)) + EXTRA_BITS
        while prec <= MAX_PREC:
            with flint.ctx.workprec(prec):
                try:
                    S = closed_form(ep.params.A, R, *f, T, rising)
                except NotProved:       # M(T) not proved invertible (or ≻ 0): more bits
                    S = None
                if S is not None:
                    try:
                        require_entry({"center": C, "t_enter": T}, {"P": P, "rho": rho},
                                      svec(S), flint.arb(0), "")
                    except NotProved:
                        if max(x.rad() for x in svec(S)) < 1e-6 * math.sqrt(float(rho)):
                            break   # a thin ball outside the region: a later T may get in
                    else:
                        if bound is None:
                            return T, {"prec": prec}
                        runs = pieces_for(ep.params.A, R, bound, f, T, prec)
                        if runs == OVER:        # more bits only lower the kernel's limits
                            return None
                        if runs is not None:
                            return T, {"prec": prec, "pieces": runs, "bound": [
                                [str(bound[i, j]) for j in range(d)] for i in range(d)]}
            prec *= 2
    return None


def _max_real_eig(A) -> float:
    import numpy as np
    d = A.nrows()
    return float(max(np.linalg.eigvals(np.array([[float(A[i, j]) for j in range(d)]
                                                 for i in range(d)])).real))


def positive_part(R) -> flint.fmpq_mat:
    """R' ⪰ 0 with R' − R ⪰ 0 (both exact): R's positive part, rounded to 2⁻⁴⁰, plus εI."""
    import numpy as np

    from symgauss.kernel.exact import eye, is_psd
    d = R.nrows()
    w, V = np.linalg.eigh(np.array([[float(R[i, j]) for j in range(d)] for i in range(d)]))
    Rp = (V * np.maximum(w, 0)) @ V.T
    grid = 2 ** 40
    Rb = flint.fmpq_mat(d, d, [flint.fmpq(round(grid * (Rp[i, j] + Rp[j, i]) / 2), grid)
                               for i in range(d) for j in range(d)])
    eps = flint.fmpq(max(1, round(grid * 1e-9 * max(1.0, float(max(abs(w)))))), grid)
    while not (is_psd(Rb) and is_psd(Rb - R)):
        Rb, eps = Rb + eye(d) * eps, eps * 4
    return Rb


#: the greedy partition: h doubles after GROW proved pieces in a row and halves on a failure;
#: OVER is :func:`pieces_for`'s answer past the kernel's work limits
GROW, MIN_PIECE, OVER = 8, flint.fmpq(1, 2 ** 40), "over the work limits"


def pieces_for(A, R, Rb, f, T, prec: int) -> list | str | None:
    """Runs [[count, h], …] (h dyadic, the last one the remainder) adding up to T on which the
    kernel's own piece test (:func:`~symgauss.kernel.kinds.limit_closed.piece_step`) proves
    M ≻ 0 at the current precision ``prec``, found greedily; OVER past the kernel's work
    limits, None when the balls are too wide (or h below MIN_PIECE). The pieces are short where
    Σ is large (a piece needs about h·‖Σ^½R'Σ^½‖ < 1)."""
    from symgauss.kernel.kinds.blowup import arb_positive_definite
    from symgauss.kernel.kinds.limit_closed import over_work, piece_exps, piece_step
    known, out, count = {}, [], 0
    M, E, t = flint.arb_mat(f[1]), flint.arb_mat(f[0]), flint.fmpq(0)
    # the first try: about T/64, a power of two, at most 1
    h, streak = flint.fmpq(1, 2 ** max(0, 6 - math.floor(math.log2(float(T))))), 0
    while t < T:
        step = min(h, T - t)
        if step not in known:
            known[step] = piece_exps(A, R, Rb, step)
        nxt = piece_step(M, E, known[step])
        if nxt is None:     # no piece helps if M(t_k) itself is not proved ≻ 0 (balls too wide)
            if step < MIN_PIECE or not arb_positive_definite((M + M.transpose()) / 2):
                return None
            h, streak = step / 2 if step < h else h / 2, 0
            continue
        (M, E), t, count, streak = nxt, t + step, count + 1, streak + 1
        if out and out[-1][1] == step:
            out[-1][0] += 1
        else:
            out.append([1, step])
        if over_work(count, len(out), prec):
            return OVER
        if streak >= GROW and step == h:
            h, streak = h * 2, 0
    return [[n, str(h)] for n, h in out]
