"""The slab around the slow manifold of the compactified flow at infinity: the search for the
region of a ``blowup-slab`` certificate (the mathematics is in
:mod:`symgauss.kernel.kinds.blowup_slab`); :mod:`symgauss.questions.regime.infinity` takes the
validated steps into it.
"""
from __future__ import annotations

import flint

from symgauss.kernel.verdict import NotProved

#: u pieces of the slab around the slow manifold (kind blowup-slab)
SLAB_PIECES = 8
#: thinner slabs (ρ/16, ρ/16², …) tried beside the widest one: g's ball on a piece widens with
#: the slab (∇g times its half-width), so a thinner slab, entered later, narrows T*'s enclosure
#: (seed-801 two-heads-32-d2: g ∈ [0.0053, 0.0122] on u ∈ [0, 0.00125] at ρ ≈ 6·10⁻⁸, while
#: g runs from 0.0084 to 0.0092 there)
THINNER = 3


def slab_region_near(flow, Jf, ys, prec: int):
    """Slabs {0 < u ≤ u_max, ‖y − y* − c₁u − c₂u²‖_P² ≤ ρ} around the slow manifold that the
    kernel's :func:`~symgauss.kernel.kinds.blowup_slab.slab_region` accepts, as a list of
    {"keys" (its witness keys, text), "P", "rho", "u_max", "c" (the manifold [c₁, c₂]), "g"
    (g's ball on each u piece)}: the widest ρ found, then up to THINNER thinner ones; or [].
    J_Y = ∂G_Y/∂y at z*, b = ∂G_Y/∂u there, g* = g(z*): the slow manifold has (J_Y + g*I)c₁ = −b
    (tr c₁ = 0) and (J_Y + 2g*I)c₂ = −s₂ − g₁c₁; P solves a Lyapunov equation of J_Y on the
    trace-0 directions shifted by half its rate; ρ is scanned down until the slab holds."""
    import numpy as np

    from symgauss.integrate.validated import lyapunov
    from symgauss.kernel.flow import pairs, svec_of
    from symgauss.kernel.kinds.blowup_infinity import Compact, trace
    from symgauss.kernel.kinds.blowup_slab import slab_region, traceless_basis
    from symgauss.questions.regime.basin import _down, _q
    n = len(ys)
    JY = Jf[1:, 1:]
    M = np.array(traceless_basis(flow.d).tolist(), dtype=float)
    N = np.linalg.pinv(M)
    JT = N @ JY @ M                 # J_Y on the trace-0 directions (tr Y = 1 is kept)
    alpha = -max(np.linalg.eigvals(JT).real)
    if not alpha > 1e-6:
        return None
    with flint.ctx.workprec(prec):
        cp = Compact(flow)
        Yb = flow.box(ys)
        LY = cp.lin(Yb)
        b = np.array([float(x.mid()) for x in svec_of(LY - Yb * trace(LY))])
        gstar = float(cp.g(flint.arb(0), Yb).mid())
    # J_Y + g*I is singular along tr Y (d tr Y/dτ = g(1 − tr Y)) and b is traceless: least squares
    c = -np.linalg.lstsq(JY + gstar * np.eye(n), b, rcond=None)[0]
    if not np.all(np.isfinite(c)):
        return None
    diag = [k for k, (i, j) in enumerate(pairs(flow.d)) if i == j]

    def traceless(x):
        q = [_q(float(v), 15) for v in x]
        q[diag[-1]] = -sum((q[k] for k in diag[:-1]), flint.fmpq(0))     # tr c = 0 exactly
        return q
    # (J_Y + g*I)y* = 0 (the direction of Y itself), so c + t·y* solves it too: take tr c = 0
    ysf = np.array([float(y) for y in ys])
    c1 = traceless(c - sum(c[k] for k in diag) * ysf)
    # second order: (J_Y + 2g*I)c2 = −s2 − g1·c1, s2 and g1 the u² and u coefficients of
    # G_Y(u, y* + c1·u) and g(u, y* + c1·u) (polynomials: read off their values at u = 0..3)
    with flint.ctx.workprec(prec):
        vals = []
        for m in range(4):
            u = flint.arb(m)
            Yu = flow.box([flint.arb(y) + u * flint.arb(x) for y, x in zip(ys, c1)])
            gu = cp.g(u, Yu)
            vals.append(([float(x.mid()) for x in svec_of(cp.lin(Yu) * u + cp.quad(Yu)
                                                         - Yu * gu)], float(gu.mid())))
    V4 = np.vander(np.arange(4.0), 4, increasing=True)
    s_coef = np.linalg.solve(V4, np.array([v for v, _ in vals]))
    g_coef = np.linalg.solve(V4, np.array([g for _, g in vals]))
    c1f = np.array([float(x) for x in c1])
    c2 = -np.linalg.lstsq(JY + 2 * gstar * np.eye(n), s_coef[2] + g_coef[1] * c1f,
                          rcond=None)[0]
    manifold = [c1, traceless(c2)] if np.all(np.isfinite(c2)) else [c1]
    Pw = lyapunov(JT, alpha / 2)
    v = np.zeros(n)
    v[diag] = 1
    Pf = N.T @ Pw @ N + np.outer(v, v) * np.max(np.abs(Pw))    # MᵀPM = Pw
    P, ell, _ = rounded_metric((Pf + Pf.T) / 2)
    with flint.ctx.workprec(prec):
        for u_max, frac in ((flint.fmpq(1, 10), 0.5), (flint.fmpq(1, 100), 0.5),
                            (flint.fmpq(1, 1000), 0.5), (flint.fmpq(1, 1000), 0.2)):
            rate = _down(alpha / 2 * frac)
            rho = _down(float(u_max) ** 2 * 10)
            for _ in range(24):
                try:
                    g = slab_region(flow, P, ell, rho, rate, ys, manifold, u_max, SLAB_PIECES)
                except NotProved:
                    rho = _down(float(rho) / 4)
                    continue
                text = [[str(P[i, j]) for j in range(n)] for i in range(n)]
                slabs = []
                for k in range(THINNER + 1):
                    if k:
                        rho = _down(float(rho) / 16)
                        try:
                            g = slab_region(flow, P, ell, rho, rate, ys, manifold, u_max,
                                            SLAB_PIECES)
                        except NotProved:
                            break
                    slabs.append({"keys": {"manifold": [[str(x) for x in cj] for cj in manifold],
                                           "P": text, "ell": str(ell), "rho": str(rho),
                                           "rate": str(rate), "u_max": str(u_max),
                                           "u_pieces": SLAB_PIECES},
                                  "P": P, "rho": rho, "u_max": u_max, "c": manifold, "g": g})
                return slabs
    return []


def rounded_metric(Pf):
    """(P, ell, λmax): Pf scaled to max |P_ij| = 1, rounded to rationals (10 digits), ell ≤
    λmin(P), and λmax of the scaled Pf (floats)."""
    import numpy as np

    from symgauss.questions.regime.basin import _down, _q
    Pf = Pf / np.max(np.abs(Pf))
    n1, eig = Pf.shape[0], np.linalg.eigvalsh(Pf)
    P = flint.fmpq_mat(n1, n1, [_q(Pf[max(i, j), min(i, j)], 10) for i in range(n1)
                                for j in range(n1)])
    return P, _down(float(eig[0])), float(eig[-1])
