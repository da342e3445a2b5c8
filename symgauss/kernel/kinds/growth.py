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
E = C + κΔ (C, Δ traceless, coordinates x(M) = ((M11 − M22)/2, M12); C the witness ``center``,
near the slow manifold Y ≈ Y* + uC), exactly (Q(Y*) = 0, Q quadratic):

    g = u·ĝ,  ĝ = tr L(Y) + tr DQ(Y*)[E] + u·tr Q(E),
    dY/dτ = u·Ĝ,  Ĝ = L(Y) + DQ(Y*)[E] + u·Q(E) − Y·ĝ.

Region R = {tr Y = 1, 0 < u ≤ u_max, ‖ξ‖_P ≤ κu}, ξ = x(Y − Y*) − u·c. On its side (Δ on the
P-unit circle, ξ = κuΔ) φ = ‖ξ‖²_P − κ²u² has dφ/dτ = 2κu²·(Δᵀ P (x(Ĝ) + uĝ·c) + κu·ĝ)
(ξ' = u·x(Ĝ) + u²ĝ·c since u' = −u²ĝ): if that bracket is < 0 and ĝ > 0 on R (so u decreases:
the side u = u_max is not crossed), R is forward invariant and bounded, the compactified solution
exists for all τ, and in the time t (dt = u dτ, which tends to ∞ since u ≥ u0/(1 + b·u0·τ))
d ln tr Σ/dt = ĝ ∈ [a, b]. The checks cover the circle by ``arcs`` angle intervals
(Δ = L⁻ᵀ(cos θ, sin θ), P = LLᵀ) and [0, u_max] by ``u_pieces`` intervals, in ball arithmetic
with Y* as a ball (its exactness enters only through Q(Y*) = 0 above); the bounds of ĝ on R also
cover the radius ∈ [0, 1]. A cell whose plain evaluation does not prove the side < 0 is tried in
the mean-value form along the angle and in u (:func:`mean_value_side`), which keeps what a box
over the arc loses when P is ill-conditioned (an arc of width 1.5e-3 became a Δ ball 0.05 wide
at seed-931 symmetric-B-3-d2).

Claim: ``t_enter`` t0 (the steps' total), ``rate_lower`` a > 0, ``rate_upper`` b: Σ(t) exists for
all t ≥ 0 and tr Σ(t0)·e^{a(t−t0)} ≤ tr Σ(t) ≤ tr Σ(t0)·e^{b(t−t0)} for t ≥ t0. Witness:
``steps``, ``order``, ``prec`` (eq. 1.1, metric I, as kind ``limit``; optional ``metrics``, changes
of metric along them that end in metric I), ``axis``, ``m_lo``,
``m_hi``, ``center`` c, ``P`` (2×2), ``kappa``, ``u_max``, ``arcs``, ``u_pieces``.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import eye, require_pd
from symgauss.kernel.flow import Flow, svec_of, sym_of, upper
from symgauss.kernel.kinds.blowup_infinity import Compact, trace
from symgauss.kernel.kinds.limit import (
    MAX_ORDER,
    MAX_PREC,
    MIN_PREC,
    read_timed_steps,
    steps_in_region_metric,
)
from symgauss.kernel.read import rational, short_text
from symgauss.kernel.schema import Field, Schema, integer, nonnegative, positive, raw, sym, vec
from symgauss.kernel.verdict import Invalid, NotProved

MAX_ARCS, MAX_U_PIECES, MAX_CELLS = 4096, 64, 40_000
#: the cells tried in the mean-value form (7 side evaluations each) may cost at most
#: MEAN_VALUE_WORK µs, a cell charged MEAN_VALUE_COST = (fixed, per head) µs at 128 bits and
#: ⌈prec/128⌉ times that above (0.197 ms measured with one head, 0.432 ms with eight; AMD EPYC,
#: 2026-12-07, benchmarks/README.md, thirty-second attempt), so that with the plain cells and the
#: steps' own limit a file is answered within the 20 s of tests/test_kernel_limits.py
MEAN_VALUE_WORK, MEAN_VALUE_COST = 4_000_000, (200, 40)


def mean_value_cells(heads: int, prec: int) -> int:
    """How many cells may be tried in the mean-value form (MEAN_VALUE_WORK)."""
    fixed, per_head = MEAN_VALUE_COST
    return MEAN_VALUE_WORK // ((fixed + per_head * heads) * -(-prec // 128))
SCHEMAS = {"growth": Schema(
    {"t_enter": Field(nonnegative), "rate_lower": Field(positive), "rate_upper": Field(positive)},
    {"steps": Field(raw), "order": Field(integer(2, MAX_ORDER)),
     "prec": Field(integer(MIN_PREC, MAX_PREC)), "axis": Field(integer(0, 1)),
     "m_lo": Field(lambda v, w, ctx: rational(v, w)), "m_hi": Field(lambda v, w, ctx: rational(v, w)),
     "center": Field(vec(2)), "P": Field(sym(2)), "kappa": Field(positive),
     "u_max": Field(positive),
     "arcs": Field(integer(4, MAX_ARCS)), "u_pieces": Field(integer(1, MAX_U_PIECES)),
     "metrics": Field(raw, False)},
    "rigorous", {"d": 2})}


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


def region_terms(cp: Compact, Ys, c, kappa, u, x):
    """(x(Ĝ), ĝ) at u (ball) and Δ with coordinates x (balls): E = C + κΔ, Y = Y* + uE
    (DQ(Y*)[E] = cp.quad(Y*, E), Q(E) = cp.quad(E))."""
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


def side_value(cp: Compact, Ys, c, kappa, u, Pa, x):
    """The side's bracket Δᵀ P (x(Ĝ) + uĝ·c) + κu·ĝ at u and Δ with coordinates x (balls)."""
    Gx, gh = region_terms(cp, Ys, c, kappa, u, x)
    w = flint.arb_mat(2, 1, [g + u * gh * ci for g, ci in zip(Gx, c)])
    return (flint.arb_mat(1, 2, x) * Pa * w)[0, 0] + kappa * u * gh


def mean_value_side(cp: Compact, Ys, c, kappa, Pa, Lit, theta, u, um, e):
    """The side's bracket on the cell θ ∈ ``theta``, u ∈ ``u`` (balls that hold the cell) in the
    mean-value form: its value at (θm, um) (θm the midpoint of ``theta``, um of the u piece,
    exact) plus the deviations θ − θm and u − um (the balls ``theta`` − θm and ``u`` − um) times
    its derivatives over the cell. At fixed u it is a polynomial of degree ≤ 4 in x (E = C + κΔ is affine in x, ĝ
    quadratic, Y·ĝ cubic, xᵀP(…) quartic), so ∇ₓ·h = (q(−2) − 8q(−1) + 8q(1) − q(2))/12 with
    q(s) = side(x + s·h) exactly, for h = x'(θ) = L⁻ᵀ(−sin θ, cos θ); at fixed x it is quadratic
    in u (Y and ĝ affine in u), so ∂ᵤ = (side(u + e) − side(u − e))/(2e) exactly, for any e > 0.
    Both evaluated with x, h, u the cell's balls enclose the derivatives anywhere on the cell;
    Δ = L⁻ᵀ(cos θ, sin θ) moves along the circle, not across the box of its arc, so the
    correlation that a plain evaluation over the arc's box loses is kept."""
    x = Lit * flint.arb_mat(2, 1, [theta.cos(), theta.sin()])
    h = Lit * flint.arb_mat(2, 1, [-theta.sin(), theta.cos()])
    mid = theta.mid()
    xm = Lit * flint.arb_mat(2, 1, [mid.cos(), mid.sin()])
    xs, hs = [x[0, 0], x[1, 0]], [h[0, 0], h[1, 0]]
    q = {s: side_value(cp, Ys, c, kappa, u, Pa, [a + s * b for a, b in zip(xs, hs)])
         for s in (-2, -1, 1, 2)}
    d_theta = (q[-2] - 8 * q[-1] + 8 * q[1] - q[2]) / 12
    d_u = (side_value(cp, Ys, c, kappa, u + e, Pa, xs) -
           side_value(cp, Ys, c, kappa, u - e, Pa, xs)) / (2 * e)
    return (side_value(cp, Ys, c, kappa, um, Pa, [xm[0, 0], xm[1, 0]]) +
            d_theta * (theta - mid) + d_u * (u - um))


def check_region(flow, Ys, c, P, kappa, u_max, arcs, pieces):
    """The side condition and the bounds of ĝ on R (module docstring): returns (min, max) of ĝ.
    A cell whose plain evaluation (the arc's box) does not prove the side negative is tried in
    the mean-value form (:func:`mean_value_side`), at most :func:`mean_value_cells` of them (for
    the flow's heads, at the working precision)."""
    Pa = flint.arb_mat(P)
    Lit = cholesky_inv_t(Pa)
    cp, k, ca, lo, hi = Compact(flow), flint.arb(kappa), [flint.arb(x) for x in c], None, None
    e, refined, most = flint.arb(u_max), 0, mean_value_cells(len(flow.heads), flint.ctx.prec)
    for j in range(pieces):     # u ∈ [j, j + 1]·u_max/pieces
        um = flint.arb(flint.fmpq(2 * j + 1, 2 * pieces) * u_max)
        u = flint.arb(flint.fmpq(2 * j + 1, 2 * pieces) * u_max, flint.fmpq(1, 2 * pieces) * u_max)
        for i in range(arcs):
            th = flint.arb(flint.fmpq(2 * i + 1, arcs), flint.fmpq(1, arcs)) * flint.arb.pi()
            x = Lit * flint.arb_mat(2, 1, [th.cos(), th.sin()])
            xs = [x[0, 0], x[1, 0]]
            side = side_value(cp, Ys, ca, k, u, Pa, xs)
            mean_value = not side < 0 and refined < most
            if mean_value:
                refined += 1
                side = mean_value_side(cp, Ys, ca, k, Pa, Lit, th, u, um, e)
            if not side < 0:
                how = ("in the plain and mean-value forms" if mean_value else
                       f"in the plain form (the mean-value form's {most} cells are used up)")
                raise NotProved(f"the region is not proved invariant: on its side, angle piece "
                                f"{i}, u piece {j}, d/dτ (‖ξ‖²_P − κ²u²) < 0 fails {how}")
            _, g = region_terms(cp, Ys, ca, k, u, [xi * flint.arb(0.5, 0.5) for xi in xs])
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
    steps = read_timed_steps(witness, ctx.n, len(p.heads), claim["t_enter"], problem.d)
    require_pd(witness["P"], "witness.P")
    axis, lo, hi = witness["axis"], witness["m_lo"], witness["m_hi"]
    null_root(p.heads, axis, lo, hi)
    with flint.ctx.workprec(witness["prec"]):
        flow = Flow(p)
        m = flint.arb((lo + hi) / 2, (hi - lo) / 2)
        Ys = star(axis, m)
        c = witness["center"]
        g_lo, g_hi = check_region(flow, Ys, c, witness["P"], witness["kappa"], witness["u_max"],
                                  witness["arcs"], witness["u_pieces"])
        if not (flint.arb(claim["rate_lower"]) <= g_lo and g_hi <= flint.arb(claim["rate_upper"])):
            raise NotProved(f"ĝ on the region lies in [{float(g_lo):.6g}, {float(g_hi):.6g}], "
                            "not within the claimed [rate_lower, rate_upper]")
        end, r_end = steps_in_region_metric(flow, eye(ctx.n), 1, svec_of(problem.cov0), steps,
                                            witness, ctx.n)
        entry(Ys, c, witness["P"], witness["kappa"], witness["u_max"], end, r_end)


def entry(Ys, c, P, kappa, u_max, end, r_end) -> None:
    """Σ within r_end (metric I) of the svec ``end``, compactified, lies in R (else NotProved)."""
    S = sym_of(end, 2, upper(r_end))
    tr = trace(S)
    if not tr > 0:
        raise NotProved("tr Σ(t0) > 0 is not proved")
    u = 1 / tr
    x = [a - u * flint.arb(b) for a, b in zip(coords(S / tr - Ys), c)]
    nx = (flint.arb_mat(1, 2, x) * flint.arb_mat(P) * flint.arb_mat(2, 1, x))[0, 0]
    if not (u <= flint.arb(u_max) and upper(nx).sqrt() < flint.arb(kappa) * u):
        raise NotProved("Σ(t0), compactified, is not proved inside the region "
                        "(u ≤ u_max and ‖x − uc‖_P < κu)")
