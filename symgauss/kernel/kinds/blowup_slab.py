"""Checker for kind ``"blowup-slab"``: as ``blowup-infinity`` (validated steps of eq. 1.1, then of
the compactified flow z = (w, u, Y)), but the region at infinity is a slab around the slow
manifold, so that a flow whose u decays slowly beside fast directions (stiff at infinity) enters
it early.

Compactified flow (:class:`~symgauss.kernel.kinds.blowup_infinity.Compact`): u' = −u·g,
Y' = G_Y(u, Y) = u·L(Y) + Q(Y) − Y·g, g = u·tr L(Y) + tr Q(Y) (time dτ = dt/u). Region
R = {0 < u ≤ u_max, ‖e‖_P² ≤ ρ}, e = y − y_c(u), y_c(u) = y* + Σ_j c_j·u^j (y = svec Y;
y* = svec Y*, c_1..c_m the witness's ``center`` and ``manifold``: a polynomial approximation of
the slow manifold). Let B_j be the box {u ∈ U_j, y ∈ y_c(U_j) ± √(ρ/ℓ)} for the pieces
U_j of [0, u_max] (``u_pieces``); it holds every point of R with u ∈ U_j. Checks, in ball
arithmetic:

0. tr Y* = 1 and tr c_j = 0 (exact), so e has trace 0 wherever tr Y = 1, which the flow keeps
   (d tr Y/dτ = g(1 − tr Y)): R stands for R ∩ {tr Y = 1} below, the set the solution is in;
1. P − ℓI ≻ 0 (exact); on every B_j: g ∈ g_j = [κ_j, K_j] with κ_j > 0 (g_j: g's plain
   evaluation on B_j intersected with the mean-value form of g(u, y_c(u) + e) about (m_j, 0),
   m_j U_j's midpoint; the path (m_j + s(u − m_j), y_c(·) + s·e), s ∈ [0, 1], stays in B_j)
   and tr Y > 0, and
   −Mᵀ(JᵀP + PJ + 2λP)M ≻ 0 for every J = J_Y + u·y_c'(u)·∇_y gᵀ on B_j (J_Y = ∂G_Y/∂y; the
   columns of M span the trace-0 svec vectors, so eᵀPJe ≤ −λ‖e‖²_P for every e of trace 0 — the
   direction tr Y, slow at rate g, never enters);
2. on every piece: ‖H(U_j, 0)‖_P < λ√ρ, with
   H(u, e) = G_Y(u, y_c(u) + e) + u·g(u, y_c(u) + e)·y_c'(u)
   (H(u, 0) is a polynomial of degree ≤ 3m in u: its coefficients from its values at
   u = 0, 1, …, 3m, by the exact inverse Vandermonde matrix).

Then R is forward invariant: on u = u_max, u' = −ug < 0; on ‖e‖_P = √ρ, e' = y' − u'·y_c'(u) =
H(u, e) and H(u, e) = H(u, 0) + J̄e (J̄ an average of ∂H/∂e = J_Y + u·y_c'(u)·∇_y gᵀ over the
segment, which lies in the box of its u piece), so d/dτ ‖e‖²_P ≤ −2λρ + 2√ρ·‖H(u, 0)‖_P < 0;
u > 0 is kept (u' = −ug). In R, u0e^{−Kτ} ≤ u(τ) ≤ u0e^{−κτ}, so t = t0 + w + ∫u dτ increases
to a finite T*, and tr Σ = tr Y/u → ∞ (tr Y = 1 is kept by the flow). As u falls strictly
(g > 0), dt = −du/g: T* = t0 + w + ∫_0^{u0} du/g, where g lies in g_j (g's ball on B_j) while
u ∈ U_j, so T* − t0 − w ∈ [Σ_j |U_j ∩ [0, u0]|/K_j, Σ_j |U_j ∩ [0, u0]|/κ_j] (κ_j, K_j g_j's
ends) — within t0 + w + [u0/K, u0/κ], and much narrower when g varies with u.
3. The compactified steps end with z in R (u ≤ u_max, u > 0, ‖e‖_P < √ρ).

Claim: as kind ``blowup``. Witness: ``steps``, ``order``, ``prec``, ``compact_steps``,
``compact_P``, ``compact_ell``, optional ``compact_metrics`` (all as ``blowup-infinity``; the
compactified steps may be none), ``center`` Y* (d×d), ``manifold`` [c_1, …, c_m] (m ≤ 4, svec
each), ``P`` (n×n), ``ell``, ``rho``, ``rate`` λ, ``u_max``, ``u_pieces``.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import eye, require_pd
from symgauss.kernel.flow import Flow, p_norm, pairs, positive_definite_balls, svec_of, upper
from symgauss.kernel.kinds.blowup import check_claim
from symgauss.kernel.kinds.blowup_infinity import SCHEMAS as INFINITY
from symgauss.kernel.kinds.blowup_infinity import (
    Compact,
    read_compact,
    statement,
    to_infinity,
    trace,
)
from symgauss.kernel.kinds.limit import MAX_D
from symgauss.kernel.read import rational
from symgauss.kernel.schema import Field, Schema, integer, positive, raw, sym
from symgauss.kernel.verdict import Invalid, NotProved

MAX_U_PIECES, MAX_DEGREE = 64, 4
_W = INFINITY["blowup-infinity"].witness
SCHEMAS = {"blowup-slab": Schema(
    INFINITY["blowup-infinity"].claim,
    {**{k: _W[k] for k in ("steps", "order", "prec", "center", "compact_steps", "compact_P",
                           "compact_ell", "compact_metrics", "metrics")},
     "manifold": Field(raw), "P": Field(sym("n")), "ell": Field(positive),
     "rho": Field(positive), "rate": Field(positive), "u_max": Field(positive),
     "u_pieces": Field(integer(1, MAX_U_PIECES))},
    "rigorous", {"d": MAX_D})}

__all__ = ["SCHEMAS", "check", "slab_region", "statement"]


def _pieces(u_max, pieces):
    return [flint.arb(flint.fmpq(2 * j + 1, 2 * pieces) * u_max, flint.fmpq(1, 2 * pieces) * u_max)
            for j in range(pieces)]


def _time_left(u_end, g_pieces, lower: bool) -> flint.arb:
    """A lower (``lower``) or upper bound of ∫_0^{u0} du/g for every u0 ≤ (≥) the exact point
    u_end: each piece's length below u_end over g's upper (lower) end on it."""
    total = flint.arb(0)
    for lo, hi, g in g_pieces:
        part = u_end - lo
        if lower:
            part = hi - lo if u_end >= hi else part.mid() - part.rad() if part > 0 else None
        else:
            part = hi - lo if u_end >= hi else None if part < 0 else upper(part)
        if part is not None:
            total += flint.arb(part) / (g.mid() + g.rad() if lower else g.mid() - g.rad())
    return total


def _curve(ys, cs, u) -> list:
    """y* + Σ_j c_j·u^j (svec; u a ball)."""
    return [y + sum((c[i] * u ** (j + 1) for j, c in enumerate(cs)), flint.arb(0))
            for i, y in enumerate(ys)]


def _speed(cs, u) -> list:
    """Σ_j j·c_j·u^(j−1): the curve's derivative in u."""
    return [sum((c[i] * (j + 1) * u ** j for j, c in enumerate(cs)), flint.arb(0))
            for i in range(len(cs[0]))]


def _h(cp, ys, cs, u):
    """H(u, 0) = G_Y(u, y_c(u)) + u·g(u, y_c(u))·y_c'(u) (module docstring), svec, at the ball u."""
    Y = cp.f.box(_curve(ys, cs, u))
    g = cp.g(u, Y)
    return [a + u * g * v for a, v in zip(svec_of(cp.lin(Y) * u + cp.quad(Y) - Y * g),
                                          _speed(cs, u))]


def read_manifold(value, n: int) -> list:
    """The curve's coefficients c_1..c_m (1 ≤ m ≤ MAX_DEGREE), each n rationals (svec)."""
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_DEGREE:
        raise Invalid(f"witness.manifold: expected a list of 1 to {MAX_DEGREE} svec vectors")
    out = []
    for j, c in enumerate(value):
        if not isinstance(c, list) or len(c) != n:
            raise Invalid(f"witness.manifold[{j}]: expected {n} numbers (svec)")
        out.append([rational(x, f"witness.manifold[{j}][{i}]") for i, x in enumerate(c)])
    return out


def slab_region(flow, P, ell, rho, rate, ystar, manifold, u_max, pieces):
    """Checks 1–2 of the module docstring: returns [(lo_j, hi_j, g_j)], U_j = [lo_j, hi_j]
    (exact) and g_j a ball holding g on B_j (its lower end > 0), or raises NotProved naming the
    failing part."""
    require_pd(P - eye(P.nrows()) * ell, "witness.P − ell·I")
    cp, n, d = Compact(flow), P.nrows(), flow.d
    diag = [pairs(d).index((i, i)) for i in range(d)]
    if sum((ystar[k] for k in diag), flint.fmpq(0)) != 1 or any(
            sum((c[k] for k in diag), flint.fmpq(0)) != 0 for c in manifold):
        raise NotProved("tr Y* = 1 and tr c_j = 0 (exactly) are needed for the slab")
    M = traceless_basis(d)
    Ma = flint.arb_mat(M)
    Pa, lam = flint.arb_mat(P), flint.arb(rate)
    width = (flint.arb(rho) / flint.arb(ell)).sqrt()
    ys, cs = [flint.arb(x) for x in ystar], [[flint.arb(x) for x in c] for c in manifold]
    units = [flow.box([int(k == m) for m in range(n)]) for k in range(n)]
    g_all, pieces_u = [], _pieces(u_max, pieces)
    for j, U in enumerate(pieces_u):
        Yb = flow.box(_curve(ys, cs, U), [upper(width)] * n)
        grad = [U * trace(cp.lin(E)) + trace(cp.quad(Yb, E)) for E in units]    # ∇_y g
        v = _speed(cs, U)
        # g on B_j, also in the mean-value form of g(u, y_c(u) + e) about (m, 0), m = U_j's
        # midpoint: d/du = tr L(Y) + ∇_y g·y_c'(u), ∇_e = ∇_y g, both on B_j, |e_k| ≤ width
        m = flint.arb(U.mid())
        dg_du = trace(cp.lin(Yb)) + sum((a * b for a, b in zip(grad, v)), flint.arb(0))
        g = cp.g(U, Yb).intersection(cp.g(m, flow.box(_curve(ys, cs, m))) + dg_du * (U - m) + sum(
            (a * flint.arb(0, upper(width)) for a in grad), flint.arb(0)))
        if not (g > 0 and trace(Yb) > 0):
            raise NotProved("g > 0 and tr Y > 0 are not proved on the slab")
        J = cp.jacobian(U, Yb)
        JH = flint.arb_mat(n, n, [J[i + 1, k + 1] + U * v[i] * grad[k] for i in range(n)
                                  for k in range(n)])
        S = Ma.transpose() * (JH.transpose() * Pa + Pa * JH + Pa * (2 * lam)) * Ma
        if not positive_definite_balls(-S):
            raise NotProved("the flow of e = y − y_c(u) is not proved to contract on the slab "
                            "(−Mᵀ(JᵀP + PJ + 2·rate·P)M ≻ 0, J = J_Y + u·y_c'(u)·∇gᵀ)")
        g_all.append((u_max * flint.fmpq(j, pieces), u_max * flint.fmpq(j + 1, pieces), g))
    # H(u, 0) has degree ≤ 3m in u: its coefficients from the values at u = 0, 1, …, 3m (exact
    # inverse Vandermonde), then evaluated on each piece (Horner; the coefficients of u^0..u^m
    # are nearly 0 on the slow manifold, so the pieces see only the higher ones)
    k = 3 * len(cs) + 1
    vals = [_h(cp, ys, cs, flint.arb(m)) for m in range(k)]
    Vi = flint.fmpq_mat(k, k, [m ** j for m in range(k) for j in range(k)]).inv()
    coef = [[sum((flint.arb(Vi[j, m]) * vals[m][i] for m in range(k)), flint.arb(0))
             for i in range(n)] for j in range(k)]
    for U in pieces_u:
        force = []
        for i in range(n):
            f = coef[k - 1][i]
            for j in range(k - 2, -1, -1):
                f = f * U + coef[j][i]
            force.append(f)
        if not p_norm(Pa, force) < lam * flint.arb(rho).sqrt():
            raise NotProved("the slab is not proved invariant: ‖H(u, 0)‖_P < rate·√rho fails")
    return g_all


def traceless_basis(d: int) -> flint.fmpq_mat:
    """M (n × (n − 1), exact): its columns span the svec vectors of trace 0 — the off-diagonal
    units and e_ii − e_(d−1)(d−1) for i < d − 1."""
    idx = pairs(d)
    n, last = len(idx), idx.index((d - 1, d - 1))
    cols = []
    for k, (i, j) in enumerate(idx):
        if k == last:
            continue
        col = [0] * n
        col[k] = 1
        if i == j:
            col[last] = -1
        cols.append(col)
    return flint.fmpq_mat(n, n - 1, [cols[m][r] for r in range(n) for m in range(n - 1)])


def check(kind, claim, witness, problem, ctx) -> None:
    check_claim(claim, problem)
    n = ctx.n
    # a u piece: a Jacobian and an (n − 1)² ball LDLᵀ, about a quarter of a step
    legs = read_compact(witness, ctx, witness["u_pieces"] // 4)
    c = read_manifold(witness["manifold"], n)
    ystar = svec_of(witness["center"])
    with flint.ctx.workprec(witness["prec"]):
        flow = Flow(problem.params)
        g = slab_region(flow, witness["P"], witness["ell"], witness["rho"], witness["rate"],
                           ystar, c, witness["u_max"], witness["u_pieces"])
        t, u, Y = to_infinity(flow, problem, witness, legs)
        t_lo, t_hi = slab_enclosure(witness["P"], witness["rho"], witness["u_max"], ystar, c, g,
                                    u, Y, t)
        if not (flint.arb(claim["t_lower"]) < t_lo and t_hi <= flint.arb(claim["t_upper"])):
            raise NotProved(f"the proved enclosure [{t_lo.str(10)}, {t_hi.str(10)}] of T* is not "
                            "within the claimed (t_lower, t_upper]")


def slab_enclosure(P, rho, u_max, ystar, c, g, u, Y, t) -> tuple:
    """(lower, upper) arb bounds of T* when z = (u, Y) (balls) at time t (a ball) is in the slab
    (check 3; g the pieces of :func:`slab_region`): T* − t ∈ [Σ|U_j ∩ [0, u]|/K_j,
    Σ|U_j ∩ [0, u]|/κ_j]."""
    e = [y - x for y, x in zip(svec_of(Y), _curve([flint.arb(a) for a in ystar],
                                                   [[flint.arb(x) for x in cj] for cj in c], u))]
    if not (u > 0 and u <= flint.arb(u_max) and
            p_norm(flint.arb_mat(P), e) < flint.arb(rho).sqrt()):
        raise NotProved("z at the end of the compactified steps is not proved inside the slab "
                        "(0 < u ≤ u_max, ‖y − y_c(u)‖_P < √rho)")
    return (t.mid() - t.rad()) + _time_left(u.mid() - u.rad(), g, True), \
        (t.mid() + t.rad()) + _time_left(u.mid() + u.rad(), g, False)
