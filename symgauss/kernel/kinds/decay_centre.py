"""Checker for kind ``"decay-centre"`` (rigorous): d = 2 and A a centre (eigenvalues ±iω, ω > 0),
so the linear part neither decays nor grows; Σ(t) still decays to 0, like 1/t, when the quadratic
part dissipates *on average over the rotation* — where neither tr(PΣ) alone (kind
``decay-cone``) nor any other linear functional does.

Coordinates x = Σ₁₁, y = Σ₁₂, z = Σ₂₂; eq. 1.1 is F = L + Q, L = AΣ + ΣAᵀ, Q = Σ_h(V_hΣB_hΣ +
(V_hΣB_hΣ)ᵀ), and ∇f·G means f_x G₁₁ + f_y G₁₂ + f_z G₂₂. The checker verifies, exactly:
P ≻ 0 with PA + AᵀP = 0 (``P``), so w = tr(PΣ) has ∇w·L = 0 and w' = q := ∇w·Q; and, for the
quadratic form χ (``chi``: its coefficients of x², xy, xz, y², yz, z²) and ``average`` (α, β),
the polynomial identity q − αw² − β·det Σ − ∇χ·L ≡ 0 (χ solves the homological equation of the
rotation; αw² + β det Σ is q's average over it). With V = w − χ, exactly V' = αw² + β det Σ − c(Σ),
c = ∇χ·Q cubic. On Σ ⪰ 0, 0 ≤ det Σ ≤ w²/(4 det P) (AM–GM for P^½ΣP^½), so the average is
≤ −κw², κ = −max(α, α + β/(4 det P)) > 0. In ball arithmetic, on the slice {Σ ⪰ 0, w = 1}
(x, z ∈ [0, 1/ℓ], |y| ≤ 1/(2ℓ), ℓ = det P/tr P ≤ λmin(P); z from w = 1) cut into ``cells``²
cells (those where Σ ⪰ 0 fails for certain skipped): |c| ≤ C and |χ| ≤ c_χ there, so |c| ≤ Cw³
and |χ| ≤ c_χw² everywhere on the cone (homogeneity). With W (``W``): κ₁ = κ − C·W > 0 and
1 − c_χW > 0. Validated ``steps`` (eq. 1.1 from Σ0, as kind ``limit``) end at Σ(t0) with
w < W and V ≤ V_e < W(1 − c_χW) on their enclosure. R = {Σ ⪰ 0, w < W, V ≤ V_e} is then
forward invariant: on w = W, V ≥ W(1 − c_χW) > V_e, and in R, V' ≤ −κ₁w² ≤ 0. There
w(1 − c_χW) ≤ V ≤ w(1 + c_χW), so V' ≤ −k₂V², k₂ = κ₁/(1 + c_χW)², V(t) ≤ V_e/(1 + k₂V_e(t − t0))
and tr Σ ≤ w/ℓ ≤ V/((1 − c_χW)ℓ): tr Σ(t) ≤ b/(1 + k(t − t0)) for b ≥ V_e/((1 − c_χW)ℓ),
k ≤ k₂V_e. Σ(t) stays bounded, so it exists for all t.

Claim: ``bound`` b, ``rate`` k, ``t_enter`` t0. Witness: ``P``, ``chi`` (6), ``average`` (α, β),
``W``, ``cells``, ``steps``, ``order``, ``prec``, optional ``metrics``.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import eye
from symgauss.kernel.flow import Flow, svec_of, sym_of, upper
from symgauss.kernel.kinds.decay_cone import statement as cone_statement
from symgauss.kernel.kinds.limit import (
    MAX_ORDER,
    MAX_PREC,
    MIN_PREC,
    read_timed_steps,
    steps_in_region_metric,
)
from symgauss.kernel.read import short_text
from symgauss.kernel.schema import Field, Schema, integer, positive, raw, sym, vec
from symgauss.kernel.steps import mid_fmpq
from symgauss.kernel.verdict import Invalid, NotProved

MAX_CELLS = 128
#: the monomials of χ, in the order of witness.chi (exponents of x, y, z)
QUADRATIC = ((2, 0, 0), (1, 1, 0), (1, 0, 1), (0, 2, 0), (0, 1, 1), (0, 0, 2))
SCHEMAS = {"decay-centre": Schema(
    {"bound": Field(positive), "rate": Field(positive), "t_enter": Field(positive)},
    {"P": Field(sym(2)), "chi": Field(vec(6)), "average": Field(vec(2)), "W": Field(positive),
     "cells": Field(integer(1, MAX_CELLS)), "steps": Field(raw),
     "order": Field(integer(2, MAX_ORDER)), "prec": Field(integer(MIN_PREC, MAX_PREC)),
     "metrics": Field(raw, False)},
    "rigorous", {"d": 2})}


def statement(kind, claim, problem) -> str:
    return cone_statement(kind, claim, problem)


# --- polynomials in (x, y, z): {exponents: coefficient} -----------------------------------------
def add_polys(*ps):
    out = {}
    for p in ps:
        for m, c in p.items():
            out[m] = out.get(m, 0) + c
    return {m: c for m, c in out.items() if c != 0}


def mul_polys(p, q):
    out = {}
    for m, c in p.items():
        for n, e in q.items():
            k = (m[0] + n[0], m[1] + n[1], m[2] + n[2])
            out[k] = out.get(k, 0) + c * e
    return {m: c for m, c in out.items() if c != 0}


def scale_poly(p, s):
    return {m: c * s for m, c in p.items() if c * s != 0}


def diff_poly(p, v):
    out = {}
    for m, c in p.items():
        if m[v]:
            k = tuple(e - (i == v) for i, e in enumerate(m))
            out[k] = out.get(k, 0) + c * m[v]
    return out


def along(f, G):
    """∇f·G for G a 2×2 matrix of polynomials (f_x G₁₁ + f_y G₁₂ + f_z G₂₂)."""
    return add_polys(*(mul_polys(diff_poly(f, v), G[i][j]) for v, (i, j) in enumerate(((0, 0), (0, 1),
                                                                         (1, 1)))))


def _matmul(X, Y):
    return [[add_polys(*(mul_polys(X[i][k], Y[k][j]) for k in range(2))) for j in range(2)]
            for i in range(2)]


def _const(M):
    return [[{(0, 0, 0): M[i, j]} if M[i, j] != 0 else {} for j in range(2)] for i in range(2)]


def fields(params):
    """(L, Q) of eq. 1.1 as 2×2 matrices of polynomials in (x, y, z)."""
    S = [[{(1, 0, 0): flint.fmpq(1)}, {(0, 1, 0): flint.fmpq(1)}],
         [{(0, 1, 0): flint.fmpq(1)}, {(0, 0, 1): flint.fmpq(1)}]]
    A = _const(params.A)
    AS = _matmul(A, S)
    L = [[add_polys(AS[i][j], AS[j][i]) for j in range(2)] for i in range(2)]
    Q = [[{}, {}], [{}, {}]]
    for V, B in params.heads:
        X = _matmul(_matmul(_matmul(_const(V), S), _const(B)), S)
        Q = [[add_polys(Q[i][j], X[i][j], X[j][i]) for j in range(2)] for i in range(2)]
    return L, Q


def poly_value(p, x, y, z):
    """p at the balls x, y, z (powers by products: arb's ** of a ball that holds 0 gives nan)."""
    def power(v, k):
        out = flint.arb(1)
        for _ in range(k):
            out = out * v
        return out
    return sum((c * power(x, m[0]) * power(y, m[1]) * power(z, m[2]) for m, c in p.items()),
               flint.arb(0))


def slice_bounds(P, chi, cubic, cells: int):
    """Upper bounds (arb) of |cubic| and |χ| on {Σ ⪰ 0, tr(PΣ) = 1}, over cells × cells cells of
    (x, y) (module docstring)."""
    ell = (P[0, 0] * P[1, 1] - P[0, 1] ** 2) / (P[0, 0] + P[1, 1])
    top, C, cx = 1 / ell, flint.arb(0), flint.arb(0)
    # balls once, not per cell: a forger may add huge multiples of w² and det Σ to χ, which
    # leaves the identity true and makes exact coefficients slow to multiply
    chi, cubic = ({m: flint.arb(c) for m, c in p.items()} for p in (chi, cubic))
    for i in range(cells):
        x = flint.arb(top * (2 * i + 1) / (2 * cells), top / (2 * cells))
        for j in range(cells):
            y = flint.arb(top * (2 * j + 1 - cells) / (2 * cells), top / (2 * cells))
            z = (1 - P[0, 0] * x - 2 * P[0, 1] * y) / P[1, 1]
            if z < 0 or x * z - y * y < 0:      # Σ ⪰ 0 fails on all of the cell
                continue
            C = upper(flint.arb(C).union(abs(poly_value(cubic, x, y, z))))
            cx = upper(flint.arb(cx).union(abs(poly_value(chi, x, y, z))))
    return C, cx, ell


def check(kind, claim, witness, problem, ctx) -> None:
    p = problem.params
    if p is None or problem.d != 2:
        raise Invalid(f"{kind} certificates are for d = 2 and time-invariant parameters (no "
                      "'controls')")
    P, W = witness["P"], witness["W"]
    if not (P[0, 0] > 0 and P.det() > 0) or P * p.A + p.A.transpose() * P != flint.fmpq_mat(2, 2):
        raise NotProved("P ≻ 0 with PA + AᵀP = 0 is not met (A must be a centre)")
    L, Q = fields(p)
    w = {m: c for m, c in (((1, 0, 0), P[0, 0]), ((0, 1, 0), 2 * P[0, 1]),
                           ((0, 0, 1), P[1, 1])) if c != 0}
    chi = {m: witness["chi"][k, 0] for k, m in enumerate(QUADRATIC) if witness["chi"][k, 0] != 0}
    alpha, beta = witness["average"][0, 0], witness["average"][1, 0]
    det = {(1, 0, 1): flint.fmpq(1), (0, 2, 0): flint.fmpq(-1)}
    if add_polys(along(w, Q), scale_poly(mul_polys(w, w), -alpha), scale_poly(det, -beta),
            scale_poly(along(chi, L), -1)):
        raise NotProved("q − α·w² − β·det Σ − ∇χ·L is not identically 0 (witness.chi, "
                        "witness.average)")
    detP = P[0, 0] * P[1, 1] - P[0, 1] ** 2
    kappa = -max(alpha, alpha + beta / (4 * detP))
    if not kappa > 0:
        raise NotProved(f"the average of q is not dissipative on Σ ⪰ 0: κ = {short_text(kappa)}")
    steps = read_timed_steps(witness, ctx.n, len(p.heads), claim["t_enter"], 2)
    with flint.ctx.workprec(witness["prec"]):
        C, cx, ell = slice_bounds(P, chi, along(chi, Q), witness["cells"])
        k1, shrink, grow = kappa - C * W, 1 - cx * W, 1 + cx * W
        if not (k1 > 0 and shrink > 0):
            raise NotProved(f"witness.W is too large: κ − C·W = {k1.str(5)}, 1 − c_χ·W = "
                            f"{shrink.str(5)} (C ≤ {C.str(5)}, c_χ ≤ {cx.str(5)})")
        end, r_end = steps_in_region_metric(Flow(p), eye(ctx.n), 1, svec_of(problem.cov0),
                                            steps, witness, ctx.n)
        S = sym_of(end, 2, upper(r_end))
        x, y, z = S[0, 0], S[0, 1], S[1, 1]
        we, Ve = poly_value(w, x, y, z), poly_value(w, x, y, z) - poly_value(chi, x, y, z)
        if not (we < W and Ve < W * shrink):
            raise NotProved(f"the steps do not end inside the region: w ≤ {upper(we).str(5)} "
                            f"(needs < W = {short_text(W)}), V ≤ {upper(Ve).str(5)} (needs < "
                            f"W(1 − c_χW) = {(W * shrink).str(5)})")
        Vq = mid_fmpq(upper(Ve))
        if not (flint.arb(Vq) >= Ve and Vq > 0):
            raise NotProved("V at the steps' end has no exact positive upper bound")
        if not flint.arb(claim["bound"]) >= Vq / (shrink * ell):
            raise NotProved(f"claim.bound is below V_e/((1 − c_χW)ℓ) = "
                            f"{upper(Vq / (shrink * ell)).str(5)}")
        if not flint.arb(claim["rate"]) <= k1 / (grow * grow) * Vq:
            raise NotProved(f"claim.rate is above κ₁V_e/(1 + c_χW)² = "
                            f"{(k1 / (grow * grow) * Vq).str(5)}")
