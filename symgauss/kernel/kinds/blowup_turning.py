"""Checker for kind ``"blowup-turning"``: finite-time blow-up at d = 2 whose direction Σ/tr Σ
turns for ever, round the circle of rank-one directions at infinity, instead of settling at an
equilibrium there (so kinds ``blowup-infinity`` and ``blowup-slab`` have no point to validate).

Compactified flow as in :mod:`symgauss.kernel.kinds.blowup_infinity` (u = 1/tr Σ, Y = uΣ, time
dτ = dt/u): u' = −u·g, Y' = KY + YKᵀ − g·Y with N = Σ_h V_hYB_h, K = u·A + N,
g = u·tr L(Y) + tr Q(Y) = 2u·tr(AY) + 2tr(NY). The flow keeps tr Y = 1 and Y ⪰ 0, so at d = 2

    Y = [[1/2 + a, b], [b, 1/2 − a]],  a = (ρ/2)·cos φ,  b = (ρ/2)·sin φ,  0 ≤ ρ ≤ 1,

with D = det Y = (1 − ρ²)/4 (ρ = 1: rank one). Exactly (d = 2, adj(Y)·Y = D·I):
d ln u/dτ = −g, d ln D/dτ = 2tr K − 2g, dφ/dτ = Φ = (a·b' − b·a')/(a² + b²) (a', b' from Y').
With the trigonometric polynomials ψ(φ) = Σ_k p_k cos kφ + q_k sin kφ (``psi``) and χ
(``chi``) let W1 = ln u + ψ(φ), W2 = ln D + χ(φ), so

    dW1/dτ = −g + ψ'(φ)·Φ,   dW2/dτ = 2tr K − 2g + χ'(φ)·Φ.

On the circle at infinity g changes sign along a turn; ψ' = (g − ḡ)/Φ (ḡ g's average over a
turn in τ) makes dW1/dτ = −ḡ < 0 there, and χ likewise for the distance to the circle.

Checks, in ball arithmetic: (1) the steps of eq. 1.1 and the compactified steps (as kind
``blowup-infinity``: ``steps``, ``compact_steps``, …) end at (t, u, Y) balls with u > 0 and
a² + b² > 0, where W1 ≤ c1 and W2 ≤ c2 (upper ends; cos φ, sin φ = (a, b)/√(a² + b²), so no
angle is taken; c1, c2 the witness's ``levels``). (2) Region R = {u > 0, W1 ≤ c1, W2 ≤ c2}:
for each of ``cells`` equal cells
of φ ∈ [0, 2π]: on the box u ∈ [0, e^{c1 − ψ}], D ∈ [0, e^{c2 − χ}] (upper ends over the cell;
D's < 1/4, so ρ > 0 and φ is defined) dW1/dτ ≤ −κ_i < 0 and dW2/dτ < 0. Then R is forward
invariant (both W decrease in it), κ = min κ_i, K = max sup(−dW1/dτ), and with ψ ∈ [ψ_lo, ψ_hi]
on the circle and w_lo ≤ W1 ≤ w_hi at the entry: u(τ) = e^{W1 − ψ} ≤ e^{w_hi − ψ_lo − κτ} and
≥ e^{w_lo − ψ_hi − Kτ}, so t = t0 + ∫u dτ increases to

    T* ∈ [t + e^{w_lo − ψ_hi}/K, t + e^{w_hi − ψ_lo}/κ],

and tr Σ = 1/u → ∞ as t → T* (u > 0 for all τ, u → 0).

Claim: as kind ``blowup``. Witness: the ``blowup-infinity`` step keys (``steps``, ``order``,
``prec``, ``metrics``, ``compact_steps``, ``compact_P``, ``compact_ell``, ``compact_metrics``);
``psi``, ``chi`` ([p_1, q_1, …, p_m, q_m], 1 ≤ m ≤ MAX_HARMONICS); ``levels`` [c1, c2];
``cells``. One region serves every later entry (W1, W2 only fall in it), so the steps may go on
past the first entry to narrow T* without a new region check.
"""
from __future__ import annotations

import flint

from symgauss.kernel.flow import Flow, upper
from symgauss.kernel.kinds.blowup import check_claim
from symgauss.kernel.kinds.blowup_infinity import SCHEMAS as INFINITY
from symgauss.kernel.kinds.blowup_infinity import read_compact, statement, to_infinity
from symgauss.kernel.read import rational
from symgauss.kernel.schema import Field, Schema, integer, rationals, raw
from symgauss.kernel.verdict import Invalid, NotProved

MAX_HARMONICS, MAX_CELLS = 32, 20_000
#: cells checked per step of eq. 1.1's worth of work: a cell took 150–230 µs at 32 harmonics,
#: one head, 128–2048 bits (AMD EPYC, 2026-12-02); a step of eq. 1.1 at d = 2 counts ≥ 900 µs
CELLS_PER_STEP = 4
_W = INFINITY["blowup-infinity"].witness
SCHEMAS = {"blowup-turning": Schema(
    INFINITY["blowup-infinity"].claim,
    {**{k: _W[k] for k in ("steps", "order", "prec", "compact_steps", "compact_P",
                           "compact_ell", "compact_metrics", "metrics")},
     "psi": Field(raw), "chi": Field(raw), "levels": Field(rationals(2, 2)),
     "cells": Field(integer(1, MAX_CELLS))},
    "rigorous", {"d": 2})}

__all__ = [
    "SCHEMAS",
    "check",
    "entries",
    "rates",
    "read_series",
    "statement",
    "turning_enclosure",
    "turning_region",
]


def read_series(value, where: str) -> list:
    """[(p_k, q_k)] for k = 1..m from [p_1, q_1, …, p_m, q_m]."""
    if not isinstance(value, list) or not 2 <= len(value) <= 2 * MAX_HARMONICS or \
            len(value) % 2:
        raise Invalid(f"{where}: expected [p_1, q_1, …, p_m, q_m], an even count of 2 to "
                      f"{2 * MAX_HARMONICS} numbers")
    xs = [rational(x, f"{where}[{i}]") for i, x in enumerate(value)]
    return list(zip(xs[0::2], xs[1::2]))


def _harmonics(c, s, m: int) -> list:
    """[(cos kφ, sin kφ)] for k = 1..m from the balls c = cos φ, s = sin φ."""
    out = [(c, s)]
    for _ in range(m - 1):
        ck, sk = out[-1]
        out.append((ck * c - sk * s, sk * c + ck * s))
    return out


def _series(coef, harm) -> tuple:
    """(f(φ), f'(φ)) for f = Σ p_k cos kφ + q_k sin kφ, harm from :func:`_harmonics`."""
    f, df = flint.arb(0), flint.arb(0)
    for k, ((p, q), (ck, sk)) in enumerate(zip(coef, harm), start=1):
        f += p * ck + q * sk
        df += k * (q * ck - p * sk)
    return f, df


def entries(flow) -> tuple:
    """(A, [(V, B)]) of the flow as 2×2 lists of balls, for :func:`rates`."""
    def rows(M):
        return [[flint.arb(M[i, j]) for j in range(2)] for i in range(2)]
    return rows(flow.A), [(rows(V), rows(B)) for V, B in flow.heads]


def rates(A, heads, u, rho, c, s) -> tuple:
    """(dW1/dτ without ψ'Φ, dW2/dτ without χ'Φ, Φ) = (−g, 2tr K − 2g, Φ) on the numbers u, ρ,
    cos φ, sin φ (balls, or :class:`~symgauss.kernel.kinds.growth_schur.Dual` numbers), A and
    the heads from :func:`entries`."""
    a, b = rho * c / 2, rho * s / 2
    Y = [[a + flint.arb(0.5), b], [b, flint.arb(0.5) - a]]

    def mul(X, Z):
        return [[X[i][0] * Z[0][j] + X[i][1] * Z[1][j] for j in range(2)] for i in range(2)]
    K = [[A[i][j] * u for j in range(2)] for i in range(2)]
    for V, B in heads:
        N = mul(mul(V, Y), B)
        K = [[K[i][j] + N[i][j] for j in range(2)] for i in range(2)]
    KY = mul(K, Y)
    g = 2 * (KY[0][0] + KY[1][1])     # 2u·tr(AY) + 2tr(NY)
    ap = KY[0][0] - KY[1][1] - g * a     # (Y'00 − Y'11)/2 with Y' = KY + YKᵀ − gY
    bp = KY[0][1] + KY[1][0] - g * b
    return -g, 2 * (K[0][0] + K[1][1]) - 2 * g, (a * bp - b * ap) / (rho * rho / 4)


def turning_region(flow, psi, chi, cells: int, c1, c2) -> tuple:
    """Check (2) of the module docstring: (κ, K, ψ_lo, ψ_hi) as arbs, or NotProved."""
    pi = flint.arb.pi()
    A, heads = entries(flow)
    kappa = top = psi_lo = psi_hi = None
    quarter = flint.arb(1) / 4
    for i in range(cells):
        phi = pi * (2 * i + 1) / cells + flint.arb(0, upper(pi / cells))
        harm_p = [((k * phi).cos(), (k * phi).sin()) for k in range(1, len(psi) + 1)]
        harm_c = [((k * phi).cos(), (k * phi).sin()) for k in range(1, len(chi) + 1)]
        f1, d1 = _series(psi, harm_p)
        f2, d2 = _series(chi, harm_c)
        u_top, d_top = (flint.arb(c1) - f1).exp().upper(), (flint.arb(c2) - f2).exp().upper()
        if not d_top < quarter:
            raise NotProved(f"cell {i}: det Y < 1/4 (Y away from the centre, so the angle is "
                            "defined) is not proved on the region")
        rho_lo = (1 - 4 * d_top).sqrt().lower()
        unit = flint.arb(flint.fmpq(1, 2), flint.fmpq(1, 2))     # [0, 1], exactly
        u, rho = u_top * unit, rho_lo + (1 - rho_lo) * unit     # ⊇ [0, u_top], [ρ_lo, 1]
        w1, w2, speed = rates(A, heads, u, rho, phi.cos(), phi.sin())
        w1, w2 = w1 + d1 * speed, w2 + d2 * speed
        if not (w1 < 0 and w2 < 0):
            raise NotProved(f"cell {i} (φ ∈ {phi.str(5)}): dW1/dτ < 0 and dW2/dτ < 0 are not "
                            f"proved (dW1/dτ ∈ {w1.str(5)}, dW2/dτ ∈ {w2.str(5)})")
        lo, hi, f_lo, f_hi = -w1.upper(), -w1.lower(), f1.lower(), f1.upper()
        kappa = lo if kappa is None else min(kappa, lo)
        top = hi if top is None else max(top, hi)
        psi_lo = f_lo if psi_lo is None else min(psi_lo, f_lo)
        psi_hi = f_hi if psi_hi is None else max(psi_hi, f_hi)
    return kappa, top, psi_lo, psi_hi


def entry_levels(psi, chi, u, Y) -> tuple:
    """(c1, c1', c2): upper and lower ends of W1 and the upper end of W2 at the entry (u, Y
    balls holding the true state, tr Y = 1), or NotProved."""
    a, b = (Y[0, 0] - Y[1, 1]) / 2, Y[0, 1]
    r2 = a * a + b * b
    det = Y[0, 0] * Y[1, 1] - Y[0, 1] * Y[0, 1]
    if not (u > 0 and r2 > 0 and det.upper() > 0):
        raise NotProved("u > 0, Y ≠ I/2 and det Y's upper end > 0 are not proved at the end of "
                        "the compactified steps")
    r = r2.sqrt()
    c, s = a / r, b / r
    f1, _ = _series(psi, _harmonics(c, s, len(psi)))
    f2, _ = _series(chi, _harmonics(c, s, len(chi)))
    w1 = u.log() + f1
    w2 = det.upper().log() + f2
    return w1.upper(), w1.lower(), w2.upper()


def turning_enclosure(region, levels, psi, chi, t, u, Y) -> tuple:
    """(lower, upper) arb bounds of T* when (u, Y) at time t (balls) is in the region of
    ``levels`` (c1, c2) whose :func:`turning_region` is ``region``."""
    w_hi, w_lo, w2_hi = entry_levels(psi, chi, u, Y)
    if not (w_hi <= flint.arb(levels[0]) and w2_hi <= flint.arb(levels[1])):
        raise NotProved("the end of the compactified steps is not proved inside the region "
                        "(W1 ≤ c1 and W2 ≤ c2)")
    kappa, top, psi_lo, psi_hi = region
    lo = t.lower() + (w_lo - psi_hi).exp() / top
    hi = t.upper() + (w_hi - psi_lo).exp() / kappa
    return lo, hi


def check(kind, claim, witness, problem, ctx) -> None:
    check_claim(claim, problem)
    if problem.d != 2:
        raise Invalid(f"kind blowup-turning is for d = 2 (the circle of rank-one directions); "
                      f"this problem has d = {problem.d}")
    psi = read_series(witness["psi"], "witness.psi")
    chi = read_series(witness["chi"], "witness.chi")
    levels = witness["levels"]
    legs = read_compact(witness, ctx, witness["cells"] // CELLS_PER_STEP)
    with flint.ctx.workprec(witness["prec"]):
        flow = Flow(problem.params)
        region = turning_region(flow, psi, chi, witness["cells"], *levels)
        t, u, Y = to_infinity(flow, problem, witness, legs)
        t_lo, t_hi = turning_enclosure(region, levels, psi, chi, t, u, Y)
        if not (flint.arb(claim["t_lower"]) < t_lo and t_hi <= flint.arb(claim["t_upper"])):
            raise NotProved(f"the proved enclosure [{t_lo.str(10)}, {t_hi.str(10)}] of T* is not "
                            "within the claimed (t_lower, t_upper]")
