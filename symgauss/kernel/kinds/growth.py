"""Checker for kind ``"growth"``: Σ(t) exists for all t ≥ 0 and tr Σ(t) grows exponentially,
without blowing up (d = 2), proved by validated steps to a large Σ(t0) and an invariant region of
the compactified flow around a non-hyperbolic equilibrium at infinity.

Compactified flow (as kind ``blowup-infinity``): u = 1/tr Σ, Y = Σ/tr Σ (tr Y = 1), dτ = dt/u,
du/dτ = −u·g, dY/dτ = u·L(Y) + Q(Y) − Y·g, g = u·tr L(Y) + tr Q(Y). If v = (1, m°) (``axis`` 0;
(m°, 1) for ``axis`` 1) has vᵀBv = 0 — an exact root m° in (m_lo, m_hi), proved by the sign change
of the quadratic vᵀBv (exact rationals; with several heads, of vᵀSv where every B_h + B_hᵀ is a
multiple of one S: one head's root is then every head's) — then Y* = vvᵀ/vᵀv has
Q(Y*) = (vᵀBv)·(Vvvᵀ + vvᵀVᵀ)/(vᵀv)² = 0; with several heads (or one), m° = m_lo = m_hi may be
rational and x = Σ_h (vᵀB_h v)·V_h v = 0 is checked exactly, so Q(Y*) = (xvᵀ + vxᵀ)/(vᵀv)² = 0
again; and (0, Y*) is an equilibrium at infinity with g = 0 there. With Y = Y* + uE,
E = C(u) + κΔ (C, Δ traceless, coordinates x(M) = ((M11 − M22)/2, M12); C(u) = c + Σ_k c_k·u^k
with c the witness ``center`` and c_1, c_2, … the optional ``center_terms``, near the slow
manifold Y ≈ Y* + u·C(u)), exactly (Q(Y*) = 0, Q quadratic):

    g = u·ĝ,  ĝ = tr L(Y) + tr DQ(Y*)[E] + u·tr Q(E),
    dY/dτ = u·Ĝ,  Ĝ = L(Y) + DQ(Y*)[E] + u·Q(E) − Y·ĝ.

Region R = {tr Y = 1, 0 < u ≤ u_max, ‖ξ‖_P ≤ κu}, ξ = x(Y − Y*) − u·C(u). On its side (Δ on the
P-unit circle, ξ = κuΔ) φ = ‖ξ‖²_P − κ²u² has dφ/dτ = 2κu²·(Δᵀ P (x(Ĝ) + uĝ·C₁(u)) + κu·ĝ)
(ξ' = u·x(Ĝ) + u²ĝ·C₁(u) since u' = −u²ĝ, C₁(u) = d(u·C(u))/du): if that bracket is < 0 and
ĝ > 0 on R (so u decreases: the side u = u_max is not crossed), R is forward invariant and
bounded, the compactified solution exists for all τ, and in the time t (dt = u dτ, which tends
to ∞ since u ≥ u0/(1 + b·u0·τ)) d ln tr Σ/dt = ĝ ∈ [a, b]. The checks cover the circle by
``arcs`` angle intervals (Δ = L⁻ᵀ(cos θ, sin θ), P = LLᵀ) and [0, u_max] by ``u_pieces``
intervals, in ball arithmetic
with Y* as a ball (its exactness enters only through Q(Y*) = 0 above); the bounds of ĝ on R also
cover the radius ∈ [0, 1]. A cell whose plain evaluation does not prove the side < 0 is tried in
the mean-value form along the angle and in u (:func:`mean_value_side`), which keeps what a box
over the arc loses when P is ill-conditioned (an arc of width 1.5e-3 became a Δ ball 0.05 wide
at seed-931 symmetric-B-3-d2). The terms of C(u) follow the slow manifold to higher order in u, so
that a region with a larger u_max is invariant and the steps reach it sooner (seed-1141
symmetric-B-3-d2: u_max = 1/1000 with C = c, entered near t ≈ 28; 1/50 with two terms). Then a
ball of u loses the cancellations in u: a cell is tried in u's Taylor form instead
(:func:`taylor_side`, from exact points of u). A cell where the plain bound of ĝ is not > 0 is
bounded again in the Taylor form in the radius and u (:func:`g_taylor`); ĝ lies in both balls.

With the optional ``compact_steps``, ``compact_P``, ``compact_ell`` (and ``compact_metrics``), as
kind ``blowup-infinity``'s (:func:`~symgauss.kernel.kinds.blowup_infinity.to_infinity`), the steps
of eq. 1.1 are followed by validated steps of the compactified flow with the elapsed time w, which
pass where Σ grows too fast for steps in t (seed-1151 symmetric-B-33-d2: tr Σ goes 10 → 616 over
t ∈ [0.32, 0.40]); their end (u, Y) must lie in R, and t_enter is then any exact number ≥ the
proved t0 + w(τ_N): R is forward invariant, so the bounds hold from any later time.

Claim: ``t_enter`` t0 (the steps' total; with the compactified leg, a bound of the time it ends),
``rate_lower`` a > 0, ``rate_upper`` b: Σ(t) exists for all t ≥ 0 and
tr Σ(t0)·e^{a(t−t0)} ≤ tr Σ(t) ≤ tr Σ(t0)·e^{b(t−t0)} for t ≥ t0. Witness: ``steps``, ``order``,
``prec`` (eq. 1.1, metric I, as kind ``limit``; optional ``metrics``, changes of metric along them
that end in metric I unless the compactified leg follows), ``axis``, ``m_lo``, ``m_hi``,
``center`` c, optional ``center_terms`` [c_1, c_2, …] (at most MAX_CENTER_TERMS pairs), ``P``
(2×2), ``kappa``, ``u_max``, ``arcs``, ``u_pieces``, and the optional compactified leg above.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import eye, require_pd
from symgauss.kernel.flow import Flow, svec_of, sym_of, upper
from symgauss.kernel.kinds.blowup_infinity import Compact, read_compact, to_infinity, trace
from symgauss.kernel.kinds.limit import (
    MAX_ORDER,
    MAX_PREC,
    MIN_PREC,
    read_timed_steps,
    steps_in_region_metric,
)
from symgauss.kernel.read import rational, short_text, vector
from symgauss.kernel.schema import Field, Schema, integer, nonnegative, positive, raw, sym, vec
from symgauss.kernel.verdict import Invalid, NotProved

MAX_ARCS, MAX_U_PIECES, MAX_CELLS, MAX_CENTER_TERMS = 4096, 64, 40_000, 3
#: the cells tried in the refined forms may cost at most MEAN_VALUE_WORK µs, a cell of the
#: mean-value form (7 side evaluations) charged MEAN_VALUE_COST = (fixed, per head) µs at 128 bits
#: and ⌈prec/128⌉ times that above (0.197 ms measured with one head, 0.432 ms with eight; AMD
#: EPYC, 2026-12-07, benchmarks/README.md, thirty-second attempt), the other forms by their
#: evaluations, and ĝ's refinements half as much again, so that with the plain cells and the
#: steps' own limit a file is answered within the 20 s of tests/test_kernel_limits.py
MEAN_VALUE_WORK, MEAN_VALUE_COST = 4_000_000, (200, 40)


def refined_evaluations(heads: int, prec: int) -> int:
    """How many side evaluations the refined forms may make (MEAN_VALUE_WORK), and half as many
    of ĝ: 7 a cell in the mean-value form (:func:`mean_value_side`), 5·(2m + 1) in u's Taylor
    form (:func:`taylor_side`), 3·(2K + 1) for ĝ's (:func:`g_taylor`)."""
    fixed, per_head = MEAN_VALUE_COST
    return MEAN_VALUE_WORK * 7 // ((fixed + per_head * heads) * -(-prec // 128))
SCHEMAS = {"growth": Schema(
    {"t_enter": Field(nonnegative), "rate_lower": Field(positive), "rate_upper": Field(positive)},
    {"steps": Field(raw), "order": Field(integer(2, MAX_ORDER)),
     "prec": Field(integer(MIN_PREC, MAX_PREC)), "axis": Field(integer(0, 1)),
     "m_lo": Field(lambda v, w, ctx: rational(v, w)), "m_hi": Field(lambda v, w, ctx: rational(v, w)),
     "center": Field(vec(2)), "center_terms": Field(lambda v, w, ctx: _terms(v, w), False),
     "P": Field(sym(2)), "kappa": Field(positive),
     "u_max": Field(positive),
     "arcs": Field(integer(4, MAX_ARCS)), "u_pieces": Field(integer(1, MAX_U_PIECES)),
     "metrics": Field(raw, False), "compact_steps": Field(raw, False),
     "compact_P": Field(raw, False), "compact_ell": Field(positive, False),
     "compact_metrics": Field(raw, False)},
    "rigorous", {"d": 2})}


def _terms(value, where):
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_CENTER_TERMS:
        raise Invalid(f"{where}: expected a list of 1 to {MAX_CENTER_TERMS} pairs (the centre's "
                      "coefficients of u, u², …)")
    return [vector(v, f"{where}[{i}]", 2) for i, v in enumerate(value)]


def statement(kind, claim, problem) -> str:
    t0, a, b = (short_text(claim[k]) for k in ("t_enter", "rate_lower", "rate_upper"))
    return (f"Σ(t) exists for all t ≥ 0 and grows without bound: for t ≥ t0 = {t0}, "
            f"tr Σ(t0)·e^({a}·(t − t0)) ≤ tr Σ(t) ≤ tr Σ(t0)·e^({b}·(t − t0))")


def coords(M):
    """x(M) = ((M11 − M22)/2, M12): coordinates of a traceless symmetric 2×2 matrix."""
    return [(M[0, 0] - M[1, 1]) / 2, M[0, 1]]


def star(axis, m) -> flint.arb_mat:
    """Y* = vvᵀ/vᵀv for v = (1, m) (axis 0) or (m, 1) (axis 1); m a ball."""
    v = [flint.arb(1), m] if axis == 0 else [m, flint.arb(1)]
    n = v[0] * v[0] + v[1] * v[1]
    return flint.arb_mat(2, 2, [v[0] * v[0] / n, v[0] * v[1] / n, v[1] * v[0] / n, v[1] * v[1] / n])


def null_root(heads, axis, lo, hi) -> None:
    """Q(Y*) = 0 for v = (1, m°) (axis 0) or (m°, 1): lo < hi, the symmetric parts B_h + B_hᵀ all
    multiples of one S ≠ 0 (one head; or the others skew) and vᵀSv changes sign between m = lo and
    m = hi (exact), so a root m°, null for every head, lies between; or lo = hi = m° and
    Σ_h (vᵀB_h v)·V_h v = 0 exactly (Q(vvᵀ) is its symmetrised product with vᵀ)."""
    def vec(m):
        return flint.fmpq_mat(2, 1, [1, m] if axis == 0 else [m, 1])

    def q(B, m):
        return (vec(m).transpose() * B * vec(m))[0, 0]
    if lo == hi:
        v = vec(lo)
        x = sum((q(B, lo) * (V * v) for V, B in heads), flint.fmpq_mat(2, 1))
        if any(x[i, 0] != 0 for i in range(2)):
            raise NotProved("Σ_h (vᵀB_h v)·V_h v ≠ 0 at m_lo = m_hi: Q(vvᵀ) = 0 fails, so vvᵀ "
                            "is no direction at infinity of zero speed")
        return
    if not lo < hi:
        raise Invalid("witness.m_lo must be below witness.m_hi")
    sym = [B + B.transpose() for _, B in heads]
    S = next((M for M in sym if any(M[i, j] != 0 for i in range(2) for j in range(2))), None)
    i, j = next(((i, j) for i in range(2) for j in range(2) if S is not None and S[i, j] != 0),
                (0, 0))
    if S is None or any(M * S[i, j] != S * M[i, j] for M in sym):
        raise NotProved("the heads' B_h + B_hᵀ are not all multiples of one matrix: a sign change "
                        "proves no common null direction (give m_lo = m_hi, an exact root)")
    if not q(S, lo) * q(S, hi) < 0:
        raise NotProved("vᵀBv does not change sign on [m_lo, m_hi]: no null direction of B is "
                        "proved there")


def _traceless(x):
    return flint.arb_mat(2, 2, [x[0], x[1], x[1], -x[0]])


def centre_at(cs, u) -> tuple:
    """(C(u), C₁(u)) = (Σ_k cs[k]·u^k, d(u·C(u))/du) for the centre's coefficients cs (balls)."""
    c, c1, power = [flint.arb(0)] * 2, [flint.arb(0)] * 2, flint.arb(1)
    for k, ck in enumerate(cs):
        c = [a + b * power for a, b in zip(c, ck)]
        c1 = [a + (k + 1) * b * power for a, b in zip(c1, ck)]
        power = power * u
    return c, c1


def taylor_coefficients(vals) -> list:
    """a = W·vals, the coefficients a_0 … a_2m of the polynomial p of degree ≤ 2m with
    vals = (p(−m), …, p(m)) (balls; W the inverse of the points' Vandermonde matrix, exact)."""
    m = len(vals) // 2
    W = flint.fmpq_mat([[flint.fmpq(j) ** k for k in range(2 * m + 1)]
                        for j in range(-m, m + 1)]).inv()
    return [sum((W[k, j] * v for j, v in enumerate(vals)), flint.arb(0)) for k in range(2 * m + 1)]


def on_unit(coefs) -> flint.arb:
    """Σ_k a_k·s^k over s ∈ [−1, 1] (balls a_k)."""
    total, power, s = flint.arb(0), flint.arb(1), flint.arb(0, 1)
    for a in coefs:
        total, power = total + a * power, power * s
    return total


def u_taylor(vals) -> flint.arb:
    """p over s ∈ [−1, 1] from vals = (p(−m), …, p(m)) for a polynomial p of degree ≤ 2m."""
    return on_unit(taylor_coefficients(vals))


def region_terms(cp: Compact, Ys, cs, kappa, u, x):
    """(x(Ĝ), ĝ) at u (ball) and Δ with coordinates x (balls): E = C(u) + κΔ, Y = Y* + uE
    (DQ(Y*)[E] = cp.quad(Y*, E), Q(E) = cp.quad(E)); cs the centre's coefficients."""
    return _terms_at(cp, Ys, centre_at(cs, u)[0], kappa, u, x)


def _terms_at(cp: Compact, Ys, c, kappa, u, x):
    """:func:`region_terms` with the centre's value C(u) = ``c`` given."""
    E = _traceless(c) + _traceless(x) * kappa
    Y = Ys + E * u
    dq, qq, LY = cp.quad(Ys, E), cp.quad(E), cp.lin(Y)
    gh = trace(LY) + trace(dq) + u * trace(qq)
    return coords(LY + dq + qq * u - Y * gh), gh


def cholesky_inv_t(Pa) -> flint.arb_mat:
    """L⁻ᵀ for the 2×2 ball matrix Pa = LLᵀ (L lower triangular), so that x = L⁻ᵀ(cos θ, sin θ)
    runs over the P-unit circle."""
    l11 = Pa[0, 0].sqrt()
    l21 = Pa[1, 0] / l11
    l22 = (Pa[1, 1] - l21 * l21).sqrt()
    return flint.arb_mat(2, 2, [l11, l21, 0, l22]).inv()


def side_value(cp: Compact, Ys, cs, kappa, u, Pa, x):
    """The side's bracket Δᵀ P (x(Ĝ) + uĝ·C₁(u)) + κu·ĝ at u and Δ with coordinates x (balls)."""
    c, c1 = centre_at(cs, u)        # once for both uses
    Gx, gh = _terms_at(cp, Ys, c, kappa, u, x)
    w = flint.arb_mat(2, 1, [g + u * gh * ci for g, ci in zip(Gx, c1)])
    return (flint.arb_mat(1, 2, x) * Pa * w)[0, 0] + kappa * u * gh


def _along_arc(cp: Compact, Ys, cs, kappa, Pa, Lit, theta, u, u_mid):
    """(the side at (θm, u_mid), its derivative along the angle at u anywhere on the arc θ ∈
    ``theta``, the arc's box of x). At fixed u the side is a polynomial of degree ≤ 4 in x
    (E = C(u) + κΔ is affine in x, ĝ quadratic, Y·ĝ cubic, xᵀP(…) quartic), so
    ∇ₓ·h = (q(−2) − 8q(−1) + 8q(1) − q(2))/12 with q(s) = side(x + s·h) exactly, for
    h = x'(θ) = L⁻ᵀ(−sin θ, cos θ); evaluated with x, h the arc's balls it encloses the derivative
    anywhere on the arc. Δ = L⁻ᵀ(cos θ, sin θ) moves along the circle, not across the box of its
    arc, so the correlation that a plain evaluation over the arc's box loses is kept."""
    x = Lit * flint.arb_mat(2, 1, [theta.cos(), theta.sin()])
    h = Lit * flint.arb_mat(2, 1, [-theta.sin(), theta.cos()])
    mid = theta.mid()
    xm = Lit * flint.arb_mat(2, 1, [mid.cos(), mid.sin()])
    xs, hs = [x[0, 0], x[1, 0]], [h[0, 0], h[1, 0]]
    q = {s: side_value(cp, Ys, cs, kappa, u, Pa, [a + s * b for a, b in zip(xs, hs)])
         for s in (-2, -1, 1, 2)}
    return (side_value(cp, Ys, cs, kappa, u_mid, Pa, [xm[0, 0], xm[1, 0]]),
            (q[-2] - 8 * q[-1] + 8 * q[1] - q[2]) / 12, xs)


def mean_value_side(cp: Compact, Ys, cs, kappa, Pa, Lit, theta, u, um, e):
    """The side's bracket on the cell θ ∈ ``theta``, u ∈ ``u`` (balls that hold the cell), with a
    constant centre (``cs`` one pair), in the mean-value form: its value at (θm, um) (θm the
    midpoint of ``theta``, um of the u piece, exact) plus the deviations θ − θm and u − um times
    its derivatives over the cell (:func:`_along_arc` for θ); at fixed x it is quadratic in u (Y
    and ĝ affine in u), so ∂ᵤ = (side(u + e) − side(u − e))/(2e) exactly, for any e > 0."""
    value, d_theta, xs = _along_arc(cp, Ys, cs, kappa, Pa, Lit, theta, u, um)
    d_u = (side_value(cp, Ys, cs, kappa, u + e, Pa, xs) -
           side_value(cp, Ys, cs, kappa, u - e, Pa, xs)) / (2 * e)
    return value + d_theta * (theta - theta.mid()) + d_u * (u - um)


def taylor_side(cp: Compact, Ys, cs, kappa, Pa, Lit, theta, um, w):
    """The side's bracket on the cell θ ∈ ``theta``, u ∈ [um − w, um + w] (um, w exact) when the
    centre has terms in u. At fixed x the side is a polynomial of degree ≤ 3K − 1 ≤ 2m in u
    (K = len(cs), m = ⌊3K/2⌋: E of degree K − 1, ĝ of 2K − 1, Y·ĝ of 3K − 1), so
    side(θ, um + s·w) = Σ_k a_k(θ)·s^k exactly with a = W·(side(θ, um + jw))_j, j = −m … m
    (:func:`u_taylor`); each side(θ, um + jw) is enclosed over the arc in the mean-value form at
    the exact u (:func:`_along_arc`), and s runs over [−1, 1]. Points, not a ball of u, so the
    cancellations in u that make C(u) follow the slow manifold are kept."""
    m, vals = (3 * len(cs)) // 2, []
    for j in range(-m, m + 1):
        u = flint.arb(um + j * w)
        value, d_theta, _ = _along_arc(cp, Ys, cs, kappa, Pa, Lit, theta, u, u)
        vals.append(value + d_theta * (theta - theta.mid()))
    return u_taylor(vals)


def g_taylor(cp: Compact, Ys, cs, kappa, xs, um, w):
    """ĝ on the cell (x in the arc's box ``xs`` times the radius r ∈ [0, 1], u ∈ [um − w, um + w],
    um and w exact) in the Taylor form in r and u from exact points: ĝ is quadratic in r (E affine
    in r) and of degree 2K − 1 ≤ 2K in u (K = len(cs)), so ĝ((1 + s)/2, um + t·w) =
    Σ_kl a_kl·s^k·t^l exactly, from its values at r = 0, 1/2, 1 and u = um + jw, j = −K … K
    (:func:`taylor_coefficients` in r, then in u). Balls of r and u lose what cancels in them: at
    seed-931 symmetric-B-3-d2, ĝ sampled in [0.83, 2.56] was [−3.98, 7.39] in balls."""
    rows = []
    for j in range(-len(cs), len(cs) + 1):
        u = flint.arb(um + j * w)
        rows.append(taylor_coefficients([region_terms(cp, Ys, cs, kappa, u, [x * r for x in xs])[1]
                                         for r in (0, flint.fmpq(1, 2), 1)]))
    return on_unit([u_taylor([row[k] for row in rows]) for k in range(3)])


def check_region(flow, Ys, cs, P, kappa, u_max, arcs, pieces):
    """The side condition and the bounds of ĝ on R (module docstring): returns (min, max) of ĝ;
    cs the centre's coefficients (``center``, then ``center_terms``).
    A cell whose plain evaluation (the arc's box) does not prove the side negative is tried in
    the mean-value form (:func:`mean_value_side`; :func:`taylor_side` when the centre has terms
    in u), and one whose plain ĝ is not > 0 is bounded again by :func:`g_taylor`, within
    :func:`refined_evaluations` (for the flow's heads, at the working precision)."""
    Pa = flint.arb_mat(P)
    Lit = cholesky_inv_t(Pa)
    cp, k, lo, hi = Compact(flow), flint.arb(kappa), None, None
    ca = [[flint.arb(x) for x in c] for c in cs]
    e, left = flint.arb(u_max), refined_evaluations(len(flow.heads), flint.ctx.prec)
    left_g = left // 2      # ĝ's refinements have a budget of their own, half the side's
    side_cost = 7 if len(cs) == 1 else 5 * (2 * ((3 * len(cs)) // 2) + 1)
    g_cost = 3 * (2 * len(cs) + 1)
    for j in range(pieces):     # u ∈ [j, j + 1]·u_max/pieces
        um_q, w_q = flint.fmpq(2 * j + 1, 2 * pieces) * u_max, flint.fmpq(1, 2 * pieces) * u_max
        um, u = flint.arb(um_q), flint.arb(um_q, w_q)
        for i in range(arcs):
            th = flint.arb(flint.fmpq(2 * i + 1, arcs), flint.fmpq(1, arcs)) * flint.arb.pi()
            x = Lit * flint.arb_mat(2, 1, [th.cos(), th.sin()])
            xs = [x[0, 0], x[1, 0]]
            side = side_value(cp, Ys, ca, k, u, Pa, xs)
            mean_value = not side < 0 and left >= side_cost
            if mean_value:
                left -= side_cost
                side = (mean_value_side(cp, Ys, ca, k, Pa, Lit, th, u, um, e) if len(cs) == 1
                        else taylor_side(cp, Ys, ca, k, Pa, Lit, th, um_q, w_q))
            if not side < 0:
                how = ("in the plain and mean-value forms" if mean_value else
                       "in the plain form (the refined forms' "
                       f"{refined_evaluations(len(flow.heads), flint.ctx.prec)} evaluations are "
                       "used up)")
                raise NotProved(f"the region is not proved invariant: on its side, angle piece "
                                f"{i}, u piece {j}, d/dτ (‖ξ‖²_P − κ²u²) < 0 fails {how}")
            _, g = region_terms(cp, Ys, ca, k, u, [xi * flint.arb(0.5, 0.5) for xi in xs])
            if not g > 0 and left_g >= g_cost:     # the radius ∈ [0, 1] and u in balls: refined
                left_g -= g_cost        # both balls hold ĝ on the cell
                g = g.intersection(g_taylor(cp, Ys, ca, k, xs, um_q, w_q))
            if not g.is_finite():
                raise NotProved("ĝ is not bounded on the region")
            a, b = g.mid() - g.rad(), g.mid() + g.rad()
            lo = a if lo is None or a < lo else lo
            hi = b if hi is None or b > hi else hi
    return lo, hi


def check(kind, claim, witness, problem, ctx) -> None:
    p = problem.params
    if p is None:
        raise Invalid("growth certificates are for time-invariant parameters")
    if witness["arcs"] * witness["u_pieces"] > MAX_CELLS:
        raise Invalid(f"over a limit: arcs × u_pieces ≤ {MAX_CELLS}")
    legged = [k for k in ("compact_steps", "compact_P", "compact_ell") if k in witness]
    if legged and len(legged) < 3 or "compact_metrics" in witness and not legged:
        raise Invalid("witness: compact_steps, compact_P and compact_ell go together (and "
                      "compact_metrics only with them)")
    if legged:      # both legs, as kind blowup-infinity's
        legs = read_compact(witness, ctx)
    else:
        steps = read_timed_steps(witness, ctx.n, len(p.heads), claim["t_enter"], problem.d)
    require_pd(witness["P"], "witness.P")
    axis, lo, hi = witness["axis"], witness["m_lo"], witness["m_hi"]
    null_root(p.heads, axis, lo, hi)
    with flint.ctx.workprec(witness["prec"]):
        flow = Flow(p)
        m = flint.arb((lo + hi) / 2, (hi - lo) / 2)
        Ys = star(axis, m)
        c = [witness["center"], *witness.get("center_terms", [])]
        # the steps first (a broken step is refused before the region's cells are tried)
        if legged:
            t, u, Y = to_infinity(flow, problem, witness, legs)
            if not t <= flint.arb(claim["t_enter"]):
                raise NotProved(f"the steps end at t ∈ [{t.lower().str(10)}, {t.upper().str(10)}],"
                                " not proved ≤ the claimed t_enter")
        else:
            end, r_end = steps_in_region_metric(flow, eye(ctx.n), 1, svec_of(problem.cov0),
                                                steps, witness, ctx.n)
        g_lo, g_hi = check_region(flow, Ys, c, witness["P"], witness["kappa"], witness["u_max"],
                                  witness["arcs"], witness["u_pieces"])
        if not (flint.arb(claim["rate_lower"]) <= g_lo and g_hi <= flint.arb(claim["rate_upper"])):
            raise NotProved(f"ĝ on the region lies in [{float(g_lo):.6g}, {float(g_hi):.6g}], "
                            "not within the claimed [rate_lower, rate_upper]")
        if legged:
            entry_at(Ys, c, witness["P"], witness["kappa"], witness["u_max"], u, Y)
        else:
            entry(Ys, c, witness["P"], witness["kappa"], witness["u_max"], end, r_end)


def entry(Ys, cs, P, kappa, u_max, end, r_end) -> None:
    """Σ within r_end (metric I) of the svec ``end``, compactified, lies in R (else NotProved);
    cs the centre's coefficients."""
    S = sym_of(end, 2, upper(r_end))
    tr = trace(S)
    if not tr > 0:
        raise NotProved("tr Σ(t0) > 0 is not proved")
    entry_at(Ys, cs, P, kappa, u_max, 1 / tr, S / tr)


def entry_at(Ys, cs, P, kappa, u_max, u, Y) -> None:
    """The compactified state (u, Y) (balls; the true u > 0 and tr Y = 1) lies in R (else
    NotProved); cs the centre's coefficients."""
    c = centre_at([[flint.arb(x) for x in ck] for ck in cs], u)[0]
    x = [a - u * b for a, b in zip(coords(Y - Ys), c)]
    nx = (flint.arb_mat(1, 2, x) * flint.arb_mat(P) * flint.arb_mat(2, 1, x))[0, 0]
    if not (u <= flint.arb(u_max) and upper(nx).sqrt() < flint.arb(kappa) * u):
        raise NotProved("Σ(t0), compactified, is not proved inside the region "
                        "(u ≤ u_max and ‖x − u·C(u)‖_P < κu)")
