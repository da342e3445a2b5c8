"""Blow-up at d = 2 whose direction turns at infinity: the region of a ``blowup-turning``
certificate (the mathematics is in :mod:`symgauss.kernel.kinds.blowup_turning`).

Untrusted search, in floats: on the circle of rank-one directions at infinity (u = 0, ρ = 1,
angle φ) the turning speed Φ0(φ), the growth rate g0(φ) of ln tr Σ and the rate h0(φ) of
ln det Y. If Φ0 keeps one sign, the averages over a turn in τ are ḡ = ∮g0/Φ0 / ∮1/Φ0 and h̄
likewise; ψ' = (g0 − ḡ)/Φ0 and χ' = (h̄ − h0)/Φ0 have mean 0, and their Fourier series, cut at
HARMONICS terms and integrated, give ψ and χ (rationals of DIGITS digits). Then the largest
levels (c1, c2) at which sampled rates keep MARGIN of ḡ and h̄, backed off, and the kernel's
:func:`~symgauss.kernel.kinds.blowup_turning.turning_region` on CELLS cells (more, or lower
levels, when it fails). The steps into the region are those of
:func:`symgauss.questions.regime.infinity.find_blowup_at_infinity`.
"""
from __future__ import annotations

import math

#: the float circle's grid, the Fourier terms kept (fewer first; more where the turn nearly
#: stops, Φ0 ≈ 0.01 on seed-65 symmetric-B-3-d2, so ψ' is sharply peaked), the digits of the
#: rational coefficients
GRID, HARMONICS, DIGITS = 2048, (16, 32), 12
#: the sampled rates must stay below this fraction of ḡ's and h̄'s
MARGIN = 0.5
#: cell counts tried by the kernel's region check, and how far the levels are lowered after a
#: failure (e-fold units: the region's u and det Y shrink e times)
CELLS, LOWER = (1024, 4096, 16384), (1.0, 2.0, 3.0)
#: det Y's level is set this far (e-folds) below the largest that works at u ≈ 0, to leave room
#: for u
SHARE = 1.0


class TurningRegion:
    """ψ, χ (rational coefficient lists), the levels, the cells and the kernel's region."""

    def __init__(self, psi, chi, levels, cells, region):
        self.psi, self.chi, self.levels, self.cells = psi, chi, levels, cells
        self.region = region

    def enclosure(self, u, Y, t):
        from symgauss.kernel.kinds.blowup_turning import turning_enclosure
        return turning_enclosure(self.region, self.levels, _pairs(self.psi), _pairs(self.chi),
                                 t, u, Y)

    def inside(self, z) -> bool:
        """Whether the float state z = (w, u, svec Y) has W1 < c1 and W2 < c2 (floats)."""
        import numpy as np
        u, (y00, y01, y11) = z[1], z[2:5]
        a, b = (y00 - y11) / 2, y01
        det, r = y00 * y11 - y01 * y01, math.hypot(a, b)
        if not (u > 0 and det > 0 and r > 0):
            return False
        phi = np.array([math.atan2(b, a)])
        w1 = math.log(u) + _eval([float(x) for x in self.psi], phi)[0][0]
        w2 = math.log(det) + _eval([float(x) for x in self.chi], phi)[0][0]
        return w1 < float(self.levels[0]) and w2 < float(self.levels[1])

    def keys(self) -> dict:
        return {"psi": [str(x) for x in self.psi], "chi": [str(x) for x in self.chi],
                "levels": [str(x) for x in self.levels], "cells": self.cells}


def _pairs(xs) -> list:
    """[(p_1, q_1), …] from [p_1, q_1, …] (the kernel's form of ψ and χ)."""
    return list(zip(xs[0::2], xs[1::2]))


def _rates(A, heads, u, rho, phi):
    """(dW1/dτ without ψ'Φ, dW2/dτ without χ'Φ, Φ) in floats, numpy broadcasting."""
    import numpy as np
    a, b = rho * np.cos(phi) / 2, rho * np.sin(phi) / 2
    Y = np.empty(np.broadcast(a, u).shape + (2, 2))
    Y[..., 0, 0], Y[..., 0, 1], Y[..., 1, 0], Y[..., 1, 1] = 0.5 + a, b, b, 0.5 - a
    N = sum(V @ Y @ B for V, B in heads)
    K = np.asarray(u)[..., None, None] * A + N
    KY = K @ Y
    g = 2 * np.trace(KY, axis1=-2, axis2=-1)
    Yp = KY + np.swapaxes(KY, -1, -2) - Y * g[..., None, None]
    ap, bp = (Yp[..., 0, 0] - Yp[..., 1, 1]) / 2, Yp[..., 0, 1]
    return -g, 2 * np.trace(K, axis1=-2, axis2=-1) - 2 * g, (a * bp - b * ap) / (rho ** 2 / 4)


def _series(f, m: int):
    """Coefficients [p_1, q_1, …, p_m, q_m] of ∫f, f (mean ~0) sampled on the grid, cut at m
    terms."""
    import numpy as np
    c = np.fft.rfft(f) / len(f)
    coef = []
    for k in range(1, m + 1):
        # f ≈ Σ 2Re(c_k e^{ikφ}) = Σ 2Re c_k cos kφ − 2Im c_k sin kφ; ∫: sin kφ/k, −cos kφ/k
        alpha, beta = 2 * c[k].real, -2 * c[k].imag
        coef += [-beta / k, alpha / k]
    return coef


def _eval(coef, phi):
    import numpy as np
    f, df = np.zeros_like(phi), np.zeros_like(phi)
    for k in range(1, len(coef) // 2 + 1):
        p, q = coef[2 * k - 2], coef[2 * k - 1]
        f += p * np.cos(k * phi) + q * np.sin(k * phi)
        df += k * (q * np.cos(k * phi) - p * np.sin(k * phi))
    return f, df


def turning_region(problem, ep, flow):
    """(TurningRegion, "") or (None, why)."""
    import numpy as np

    from symgauss.kernel.kinds.blowup_turning import turning_region as kernel_region
    from symgauss.kernel.verdict import NotProved
    from symgauss.questions.regime.basin import _q
    from symgauss.questions.regime.reference import _float_params
    A, heads = _float_params(problem)
    phi = np.arange(GRID) * 2 * np.pi / GRID
    g0, h0, speed = _rates(A, heads, 0.0, 1.0, phi)
    if not (np.all(speed > 0) or np.all(speed < 0)):
        return None, "the direction at infinity does not turn one way round the rank-one circle"
    w = 1 / speed
    gbar, hbar = float((-g0 * w).sum() / w.sum()), float((h0 * w).sum() / w.sum())
    if not (gbar > 0 and hbar < 0):
        return None, (f"on the rank-one circle at infinity the average growth rate over a turn "
                      f"is {gbar:.3g} and the average rate of ln det Y {hbar:.3g}: a blow-up "
                      f"needs > 0 and < 0")
    why = "no region near the rank-one circle at infinity keeps the rates' signs"
    for m in HARMONICS:
        psi = [_q(x, DIGITS) for x in _series((-g0 - gbar) / speed, m)]
        chi = [_q(x, DIGITS) for x in _series((hbar - h0) / speed, m)]
        levels = _levels(A, heads, psi, chi, phi, gbar, hbar)
        if levels is None:
            continue
        for drop in LOWER:
            lowered = [_q(levels[0] - drop, 6), _q(levels[1] - drop, 6)]
            for cells in CELLS:
                try:
                    region = kernel_region(flow, _pairs(psi), _pairs(chi), cells, *lowered)
                    return TurningRegion(psi, chi, lowered, cells, region), ""
                except NotProved as exc:
                    why = f"the kernel did not prove the region: {exc}"
    return None, why


def _levels(A, heads, psi, chi, phi, gbar, hbar):
    """The largest levels (c1, c2) (floats) at which the sampled rates keep MARGIN of ḡ and h̄
    (det Y's level first, at u ≈ 0, then SHARE lower, then u's), or None."""
    import numpy as np
    f1, d1 = _eval([float(x) for x in psi], phi)
    f2, d2 = _eval([float(x) for x in chi], phi)

    def ok(c1, c2):
        ub, db = np.exp(c1 - f1), np.exp(c2 - f2)
        if not np.all(db < 0.24):
            return False
        for su in (0, 0.5, 1):
            for sd in (0, 0.5, 1):
                w1, w2, sp = _rates(A, heads, su * ub, np.sqrt(1 - 4 * sd * db), phi)
                if not (np.all(w1 + d1 * sp < -MARGIN * gbar) and
                        np.all(w2 + d2 * sp < MARGIN * hbar)):
                    return False
        return True

    def largest(test, hi):
        lo = -20.0
        if not test(lo):
            return None
        for _ in range(30):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if test(mid) else (lo, mid)
        return lo
    c2 = largest(lambda c: ok(-20.0, c), float(np.log(0.24) + f2.min()))
    c1 = None if c2 is None else largest(lambda c: ok(c, c2 - SHARE), 5.0)
    return None if c1 is None else (c1, c2 - SHARE)
