"""Exponential growth along an axis the attention never sees: the search for a ``growth-axis``
certificate (the mathematics is in :mod:`symgauss.kernel.kinds.growth_axis`).

When A e_k = a·e_k with a > 0 and every B_h has row and column k zero (exact), s = Σ_kk obeys
s' = 2a·s + f(y) while the other coordinates y obey a closed equation y' = G(y). Untrusted
search: a float integration of y' = G(y) proposes its limit; Newton's method in ball arithmetic
polishes it to a rational centre c; P solves a Lyapunov equation of DG(c) and the region
{‖y − c‖_P² ≤ ρ} is grown while the kernel's own region check accepts it
(:func:`symgauss.questions.regime.basin.contraction_region`); validated steps of y' = G(y) run
until y is inside it; the kernel carries s along the steps and bounds the forcing f on the region.
The finished certificate is checked by :func:`symgauss.kernel.checker.check` before it is used.
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
        return BlowupBound(None, f"the coordinates other than Σ_{k}{k} do not settle (float "
                           "integration)")
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

