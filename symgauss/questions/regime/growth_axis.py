"""Exponential growth along an axis the attention never sees: the search for a ``growth-axis``
certificate (the mathematics is in :mod:`symgauss.kernel.kinds.growth_axis`).

When A e_k = a·e_k with a > 0 and every B_h has row and column k zero (exact), s = Σ_kk obeys
s' = 2a·s + f(y) while the other coordinates y obey a closed equation y' = G(y). Untrusted
search: a float integration of y' = G(y) proposes its limit; Newton's method in ball arithmetic
polishes it to a rational centre c; P solves a Lyapunov equation of DG(c) and the region
{‖y − c‖_P² ≤ ρ} is grown while the kernel's own region check accepts it
(:func:`symgauss.questions.regime.basin.contraction_region`); validated steps of y' = G(y) run
until y is inside it; the kernel carries s along the steps and bounds the forcing f on the region.
When y does not settle because row k grows too (more slowly), and V_h e_k = v_h·e_k as well,
:func:`_find_row` builds a ``growth-axis-row`` certificate: the entries outside row k settle (the
reduced problem), row k is bounded by a log-norm μ < a. The finished certificate is checked by
:func:`symgauss.kernel.checker.check` before it is used.
"""
from __future__ import annotations

import flint

from symgauss.kernel.verdict import NotProved
from symgauss.questions.regime.blowup_bound import BlowupBound, verified


def growth_axis(params):
    """The first k with A e_k = A_kk·e_k, A_kk > 0, and B_h e_k = B_hᵀe_k = 0 for every head
    (exact), or None."""
    from symgauss.kernel.kinds.growth_axis import require_structure
    for k in range(params.A.nrows()):
        try:
            if require_structure(params, k) > 0:
                return k
        except NotProved:
            continue
    return None


def has_growth_axis(problem) -> bool:
    """Whether :func:`growth_axis` finds an axis for the (numeric, time-invariant) problem."""
    from symgauss.kernel.read import read_problem
    from symgauss.questions.regime.basin import _problem_data
    return growth_axis(read_problem(_problem_data(problem)).params) is not None


def _float_limit(ax, y0, t_max: float = 400.0):
    """The limit of y' = G(y) from y0 by LSODA (floats), or None if it does not settle."""
    import warnings

    import numpy as np
    from scipy.integrate import solve_ivp

    def G(_t, y):
        return [float(x.mid()) for x in ax.coords(ax.field(ax.box([_exact(v) for v in y])))]
    y, t = np.array([float(v) for v in y0]), 0.0
    with flint.ctx.workprec(64), warnings.catch_warnings():
        warnings.simplefilter("ignore")     # LSODA's convergence warnings: the result decides
        while t < t_max:
            try:
                sol = solve_ivp(G, (t, t + 40), y, method="LSODA", rtol=1e-10, atol=1e-13)
            except (OverflowError, ValueError):     # an infinite or NaN state: it diverges
                return None
            if not sol.success or not np.all(np.isfinite(sol.y[:, -1])):
                return None
            y, t = sol.y[:, -1], t + 40
            if np.linalg.norm(G(0, y)) < 1e-9 * max(1.0, np.linalg.norm(y)):
                return y
    return None


def _exact(x: float) -> flint.fmpq:
    from fractions import Fraction
    f = Fraction(float(x))
    return flint.fmpq(f.numerator, f.denominator)


def find_growth_axis(problem) -> BlowupBound:
    """A kernel-verified ``growth-axis`` certificate, or why none was found."""
    from symgauss.kernel.equations import svec
    from symgauss.kernel.flow import Flow
    from symgauss.kernel.kinds.growth_axis import SCHEMAS, Axis, enclose
    from symgauss.kernel.read import read_problem, short_text
    from symgauss.kernel.schema import Context, read_section
    from symgauss.questions.regime.basin import (
        _down,
        _problem_data,
        _q,
        _up,
        contraction_region,
        newton,
        steps_into_region,
    )
    ep = read_problem(_problem_data(problem))
    p = ep.params
    k = growth_axis(p)
    if k is None:
        return BlowupBound(None, "no axis e_k with A e_k = a·e_k, a > 0, and B_h e_k = B_hᵀe_k = 0")
    a = p.A[k, k]
    prec = 128
    with flint.ctx.workprec(prec):
        ax = Axis(Flow(p), k)
    y0 = svec(ep.cov0)
    del y0[ax.skip]
    guess = _float_limit(ax, y0)
    if guess is None:
        return _find_row(problem, ep, k, y0, prec)
    c = newton(ax, [_q(float(v), 15) for v in guess])
    found = contraction_region(ax, c, prec)
    if isinstance(found, str):
        return BlowupBound(None, found)
    P, ell, rho, lam = found
    run, metric = steps_into_region(p, y0, P, ell, c, rho, t_max=200, flow=ax)
    if not run.stopped:
        return BlowupBound(None, f"validated steps did not reach the contraction region of the "
                           f"other coordinates ({run.why})")
    witness = {"steps": run.witness_steps(), "order": 24, "prec": prec,
               **({"metric": metric} if metric != "region" else {}),
               **({"metrics": run.witness_metrics()} if run.switches else {}),
               "P": [[str(P[i, j]) for j in range(P.ncols())] for i in range(P.nrows())],
               "ell": str(ell), "rho": str(rho), "center": [str(x) for x in c], "lam": str(lam)}
    try:    # s(T) and the bounds exactly as the kernel encloses them
        with flint.ctx.workprec(prec):
            s, bound, rest = enclose(k, run.t, read_section(
                witness, SCHEMAS["growth-axis"].witness, "witness", Context(problem.d, ep)), ep)
    except NotProved as exc:
        return BlowupBound(None, f"the kernel's check of the steps failed: {exc}")
    lo, hi = float((s - bound).lower()), float((s + bound + rest).upper())
    if not lo > 0:
        return BlowupBound(None, f"Σ_{k}{k}(T) ∈ {s.str(5)} does not exceed the forcing bound "
                           f"F/(2a) ≤ {bound.str(5)}: growth is not proved")
    claim = {"axis": k, "rate": short_text(2 * a), "t_enter": str(run.t),
             "lower": short_text(_down(lo)), "upper": short_text(_up(hi))}
    return verified("growth-axis", problem, claim, witness,
                    "validated Taylor steps of the coordinates other than Σ_kk into a contraction "
                    "region, Σ_kk by variation of constants (symgauss.questions.regime.growth_axis)")


def _find_row(problem, ep, k: int, y0: list, prec: int) -> BlowupBound:
    """A kernel-verified ``growth-axis-row`` certificate when row k grows too (more slowly than
    Σ_kk) and the entries outside row k settle: their contraction region (the reduced problem
    without row and column k), validated steps of all coordinates but Σ_kk in ‖·‖_2 until those
    entries are inside it, then a metric Q and a rate μ < a for row k's linear equation
    (Lyapunov at the limit, μ scanned up towards a); or why none was found."""
    import math

    from symgauss.integrate.validated import integrate, step_budget
    from symgauss.kernel.exact import eye, norm_inf
    from symgauss.kernel.flow import Flow, p_norm, pairs
    from symgauss.kernel.kinds.growth_axis import Axis, Without, require_row_structure
    from symgauss.kernel.kinds.limit import MAX_STEPS, MAX_SWITCHES
    from symgauss.questions.regime.basin import ADAPT, _q, contraction_region, newton
    unsettled = f"the coordinates other than Σ_{k}{k} do not settle (float integration)"
    p, d = ep.params, problem.d
    try:
        require_row_structure(p, k)
    except NotProved as exc:
        return BlowupBound(None, f"{unsettled}, and row {k} does not split off ({exc})")
    cut = Without(p, k)
    with flint.ctx.workprec(prec):
        red, ax = Flow(cut), Axis(Flow(p), k)
    ys = [pq for pq in pairs(d) if pq != (k, k)]
    iz = [ys.index((cut.keep[i], cut.keep[j])) for i, j in pairs(d - 1)]
    ir = [ys.index((min(i, k), max(i, k))) for i in cut.keep]
    guess = _float_limit(red, [y0[i] for i in iz])
    if guess is None:
        return BlowupBound(None, f"{unsettled}, nor do the entries outside row {k}")
    c = newton(red, [_q(float(v), 15) for v in guess])
    found = contraction_region(red, c, prec)
    if isinstance(found, str):
        return BlowupBound(None, f"{unsettled}; outside row {k}: {found}")
    P, ell, rho, lam = found
    Pa, scale = flint.arb_mat(P), math.sqrt(float(norm_inf(P)))
    target = math.sqrt(float(rho)) * 0.9

    def inside(pt, r):
        gap = [flint.arb(pt[i]) - flint.arb(x) for i, x in zip(iz, c)]
        return float(p_norm(Pa, gap).mid()) + float(r.mid()) * scale < target
    work = step_budget(problem.d, len(p.heads))
    n1, why = len(y0), "no run"
    for later in (0.0, 4.0, 12.0):     # Σ_kk must outgrow the forcing: go on after entering
        def deep(pt, r, t, later=later):
            return float(t) >= later and inside(pt, r)
        run = integrate(p, y0, eye(n1), flint.fmpq(1), None, stop_time=deep, t_max=200,
                        flow=ax, max_steps=min(MAX_STEPS, work))
        if not run.stopped:
            run = integrate(p, y0, eye(n1), flint.fmpq(1), None, stop_time=deep, t_max=200,
                            flow=ax, adapt=ADAPT, max_steps=min(MAX_STEPS, work - MAX_SWITCHES))
        if not run.stopped:
            return BlowupBound(None, f"{unsettled}; validated steps did not bring the entries "
                               f"outside row {k} into their contraction region ({run.why})")
        found = _row_certificate(problem, ep, k, run, (P, ell, rho, c, lam), cut, ax, iz, ir,
                                 prec)
        if found.certificate is not None:
            return found
        why = found.why
    return BlowupBound(None, f"{unsettled}; {why}")


def _row_certificate(problem, ep, k, run, region, cut, ax, iz, ir, prec) -> BlowupBound:
    """The ``growth-axis-row`` certificate from a run that ends with the entries outside row k
    in their region: Q and μ for row k (μ scanned from its rate at the limit towards a)."""
    import numpy as np

    from symgauss.integrate.validated import lyapunov
    from symgauss.kernel.flow import pairs
    from symgauss.kernel.kinds.growth_axis import SCHEMAS, enclose_row
    from symgauss.kernel.read import short_text
    from symgauss.kernel.schema import Context, read_section
    from symgauss.questions.regime.basin import _down, _q, _up
    P, ell, rho, c, lam = region
    p, d = ep.params, problem.d
    a = float(p.A[k, k])
    with flint.ctx.workprec(prec):
        S = flint.arb_mat(d, d)
        for i, gi in enumerate(cut.keep):
            for j, gj in enumerate(cut.keep):
                S[gi, gj] = flint.arb(c[pairs(d - 1).index((min(i, j), max(i, j)))])
        J = ax.jacobian(S)
        M = np.array([[float(J[i, j].mid()) for j in ir] for i in ir])
    top = float(max(np.linalg.eigvals(M).real))
    if not top < a:
        return BlowupBound(None, f"row {k} grows at rate ≈ {top:.3g}, not below a = {a:.3g}")
    base = {"steps": run.witness_steps(), "order": 24, "prec": prec,
            **({"metrics": run.witness_metrics()} if run.switches else {}),
            "P": [[str(P[i, j]) for j in range(P.ncols())] for i in range(P.nrows())],
            "ell": str(ell), "rho": str(rho), "center": [str(x) for x in c], "lam": str(lam)}
    why = "no rate μ < a was proved for row k"
    for frac in (0.2, 0.4, 0.7):
        mu = _up(max(top, 0.0) + (a - max(top, 0.0)) * frac)
        if not float(mu) < a:
            continue
        Qf = lyapunov(M, -(max(top, 0.0) + float(mu)) / 2)
        Qf = Qf / np.max(np.abs(Qf))
        q = d - 1
        Q = flint.fmpq_mat(q, q, [_q(Qf[max(i, j), min(i, j)], 10) for i in range(q)
                                  for j in range(q)])
        witness = {**base, "Q": [[str(Q[i, j]) for j in range(q)] for i in range(q)],
                   "ell_q": str(_down(float(np.linalg.eigvalsh(Qf)[0]))), "mu": str(mu)}
        try:    # s(T) and the forcing bound exactly as the kernel encloses them
            with flint.ctx.workprec(prec):
                s, bound, rest = enclose_row(k, run.t, read_section(
                    witness, SCHEMAS["growth-axis-row"].witness, "witness",
                    Context(problem.d, ep)), ep)
        except NotProved as exc:
            why = f"the kernel's check failed: {exc}"
            continue
        lo, hi = float((s - bound).lower()), float((s + bound + rest).upper())
        if not lo > 0:
            why = (f"Σ_{k}{k}(T) ∈ {s.str(5)} does not exceed the forcing bound "
                   f"{bound.str(5)}: growth is not proved")
            continue
        claim = {"axis": k, "rate": short_text(2 * p.A[k, k]), "t_enter": str(run.t),
                 "lower": short_text(_down(lo)), "upper": short_text(_up(hi))}
        return verified("growth-axis-row", problem, claim, witness,
                        "validated Taylor steps of the coordinates other than Σ_kk, the entries "
                        "outside row k into a contraction region, row k by a log-norm bound, "
                        "Σ_kk by variation of constants (symgauss.questions.regime.growth_axis)")
    return BlowupBound(None, why)
