"""Checker for kind ``"bounded-turning"``: Σ(t) exists for all t ≥ 0 and stays bounded at d = 2
when Σ/tr Σ turns for ever round the circle of directions and tr Σ follows an attracting cycle —
Σ(t) approaches a periodic orbit of rank-one matrices (the oscillations of the symmetric-B
family), so there is no equilibrium to validate and no linear functional bounds it.

Coordinates as kind blowup-turning: ℓ = ln u, u = 1/tr Σ, Y = uΣ = [[1/2 + a, b], [b, 1/2 − a]],
(a, b) = (ρ/2)(cos φ, sin φ), D = det Y = (1 − ρ²)/4, time dτ = dt/u: dℓ/dτ = −g,
d ln D/dτ = 2tr K − 2g, dφ/dτ = Φ (:func:`~symgauss.kernel.kinds.blowup_turning.rates`, which also runs on
:class:`~symgauss.kernel.kinds.growth_schur.Dual` numbers). With three C¹ functions of φ,
each the cubic Hermite interpolant of its values and slopes at the ``nodes`` 0 = x_0 < … < x_N = 2
(φ = π·x, periodic: node N is node 0) — L_lo, L_hi (``lower``, ``upper``) and M (``det``) — the
region

    R = {L_lo(φ) ≤ ℓ ≤ L_hi(φ),  ln D ≤ M(φ)}

is forward invariant (Nagumo: at a first exit some constraint would be active and not
decreasing) when on each interval of nodes (an interval that fails halved at most ``depth``
times, at most ``tests`` pieces in all):
  (1) d(ℓ − L_lo)/dτ = −g − L_lo'·Φ > 0 where ℓ = L_lo(φ), D ∈ [0, e^M];
  (2) d(ℓ − L_hi)/dτ = −g − L_hi'·Φ < 0 where ℓ = L_hi(φ), D ∈ [0, e^M];
  (3) d(ln D − M)/dτ = 2tr K − 2g − M'·Φ < 0 for L_lo ≤ ℓ ≤ L_hi, D ∈ [0, e^M];
with e^M < 1/4 (so ρ > 0 and φ is a coordinate on R). Each is in the mean-value form in φ (and
in u for side 3): its value at the piece's centre plus the half-widths times its derivatives over
the piece (forward mode), ρ as a ball. On R, tr Σ = e^{−ℓ} lies in [e^{−L_hi}, e^{−L_lo}]. So
once Σ(t0) is in R (validated steps of eq. 1.1 from Σ0, as kind limit: ``steps``, ``order``,
``prec``, optional ``metrics``), Σ(t) stays in the compact R: it exists for all t, with
tr Σ(t) ≤ max e^{−L_lo} and ≥ min e^{−L_hi} for t ≥ t0, and tr Σ on [0, t0] within the steps'
a-priori boxes.

Claim: ``t_enter`` t0, ``bound`` (tr Σ(t) ≤ bound for every t ≥ 0), ``floor`` (tr Σ(t) ≥ floor
for t ≥ t0). Witness: the steps' keys, ``nodes``, ``lower``, ``upper``, ``det`` (each [value_0,
slope_0, …, value_{N−1}, slope_{N−1}], slopes in φ), ``depth``, ``tests``.
"""
from __future__ import annotations

import itertools

import flint

from symgauss.kernel.exact import eye
from symgauss.kernel.flow import Flow, require_work, svec_of, sym_of, upper
from symgauss.kernel.kinds.blowup_turning import entries, rates
from symgauss.kernel.kinds.growth_schur import Dual
from symgauss.kernel.kinds.limit import (
    MAX_ORDER,
    MAX_PREC,
    MIN_PREC,
    read_timed_steps,
    step_counts,
    steps_in_region_metric,
)
from symgauss.kernel.read import rational, short_text
from symgauss.kernel.schema import Field, Schema, integer, positive, raw
from symgauss.kernel.verdict import Invalid, NotProved

#: a piece (three sides, each at its centre and in forward mode over the piece) is charged to the
#: kernel's work budget as PIECE_STEPS steps of eq. 1.1 (about 1 ms a piece, one head, 128 bits,
#: AMD EPYC, 2026-12-04; a step at d = 2 counts ≥ 900 µs)
MAX_NODES, MAX_PIECES, PIECE_STEPS = 4_000, 8_000, 2
SCHEMAS = {"bounded-turning": Schema(
    {"t_enter": Field(positive), "bound": Field(positive), "floor": Field(positive)},
    {"steps": Field(raw), "order": Field(integer(2, MAX_ORDER)),
     "prec": Field(integer(MIN_PREC, MAX_PREC)), "metrics": Field(raw, False),
     "nodes": Field(raw), "lower": Field(raw), "upper": Field(raw), "det": Field(raw),
     "depth": Field(integer(0, 16)), "tests": Field(integer(1, MAX_PIECES))},
    "rigorous", {"d": 2})}


def statement(kind, claim, problem) -> str:
    return (f"Σ(t) exists for all t ≥ 0 and stays bounded: tr Σ(t) ≤ "
            f"{short_text(claim['bound'])} for every t ≥ 0, and tr Σ(t) ≥ "
            f"{short_text(claim['floor'])} for t ≥ {short_text(claim['t_enter'])} (it neither "
            f"blows up nor decays to 0)")


def read_nodes(value) -> list:
    """The nodes x_0 = 0 < x_1 < … < x_N = 2 (rationals; φ = π·x)."""
    if not isinstance(value, list) or not 3 <= len(value) <= MAX_NODES + 1:
        raise Invalid(f"witness.nodes: expected a list of 3 to {MAX_NODES + 1} rationals")
    xs = [rational(x, f"witness.nodes[{i}]") for i, x in enumerate(value)]
    if xs[0] != 0 or xs[-1] != 2 or any(not a < b for a, b in itertools.pairwise(xs)):
        raise Invalid("witness.nodes: expected 0 = x_0 < x_1 < … < x_N = 2")
    return xs


def read_hermite(value, n: int, where: str) -> list:
    """[(value_k, slope_k)] for the n nodes 0..N−1 from [value_0, slope_0, …]."""
    if not isinstance(value, list) or len(value) != 2 * n:
        raise Invalid(f"{where}: expected {2 * n} rationals (a value and a slope per node)")
    xs = [rational(x, f"{where}[{i}]") for i, x in enumerate(value)]
    return list(zip(xs[0::2], xs[1::2]))


def hermite(f, k: int, x0, h, phi) -> tuple:
    """(f, f') at φ (arb or Dual) on the interval k = [x0·π, x0·π + h] of the interpolant f, in
    the form y0 + h·t·(m0 + c2·t + c3·t²) (t = (φ − x0·π)/h), whose coefficients c2, c3 are small
    where f is nearly linear (balls of t then widen it little)."""
    (y0, m0), (y1, m1) = f[k], f[(k + 1) % len(f)]
    t = (phi - x0 * flint.arb.pi()) / h
    delta = (y1 - y0) / h
    c2, c3 = 3 * delta - 2 * m0 - m1, m0 + m1 - 2 * delta
    return y0 + h * t * (m0 + t * (c2 + t * c3)), m0 + t * (2 * c2 + 3 * c3 * t)


def _sides(part, phi, u) -> list:
    """(side 1, side 2, side 3) of the module docstring at φ and u (side 3's; arbs, or Duals in
    (φ, u)) on interval k of the interpolants; ``part`` = (A, heads, lo, hi, det, k, x0, h, ρ)."""
    A, heads, lo, hi, det, k, x0, h, rho = part
    zero = flint.arb(0)
    c, s = ((Dual(phi.v.cos(), [-phi.v.sin(), zero]), Dual(phi.v.sin(), [phi.v.cos(), zero]))
            if isinstance(phi, Dual) else (phi.cos(), phi.sin()))
    out = []
    for f in (lo, hi):
        val, slope = hermite(f, k, x0, h, phi)
        w1, _, speed = rates(A, heads, val.exp(), rho, c, s)
        out.append(w1 - slope * speed)
    _, w2, speed = rates(A, heads, u, rho, c, s)
    return out + [w2 - hermite(det, k, x0, h, phi)[1] * speed]


def check_region(flow, nodes, lo, hi, det, depth: int, tests: int) -> tuple:
    """Checks (1)–(3) of the module docstring: (max e^{−L_lo}, min e^{−L_hi}) as arbs (bounds
    of tr Σ on R) and the pieces checked, or NotProved."""
    A, heads = entries(flow)
    pi, quarter, unit = flint.arb.pi(), flint.arb(1) / 4, flint.arb(0.5, 0.5)   # unit = [0, 1]
    one, zero = flint.arb(1), flint.arb(0)
    top = floor = None
    todo = [(k, (a + b) / 2, (b - a) / 2, 0) for k, (a, b) in enumerate(itertools.pairwise(nodes))]
    done = 0
    while todo:
        k, mid, half, level = todo.pop()        # φ ∈ π·[mid − half, mid + half], interval k
        done += 1
        if done > tests:
            raise NotProved(f"over {tests} pieces of φ (witness.tests) were needed")
        x0, h = nodes[k], (nodes[k + 1] - nodes[k]) * pi
        width, centre = upper(pi * half), pi * mid
        piece = centre + flint.arb(0, width)
        (f_lo, _), (f_hi, _), (f_m, _) = (hermite(f, k, x0, h, piece) for f in (lo, hi, det))
        d_top = f_m.exp().upper()
        rho_lo = (1 - 4 * d_top).sqrt().lower() if d_top < quarter else zero
        rho = rho_lo + (1 - rho_lo) * unit
        u_lo, u_hi = f_lo.exp().lower(), f_hi.exp().upper()
        u_mid, u_half = (u_lo + u_hi) / 2, (u_hi - u_lo) / 2

        part = (A, heads, lo, hi, det, k, x0, h, rho)
        at = _sides(part, centre, u_mid)
        slope = _sides(part, Dual(piece, [one, zero]),
                       Dual(u_mid + u_half * (2 * unit - 1), [zero, one]))
        w = [v + x.d[0] * flint.arb(0, width) for v, x in zip(at, slope)]
        w[2] = w[2] + slope[2].d[1] * u_half * (2 * unit - 1)
        if not (d_top < quarter and w[0] > 0 and w[1] < 0 and w[2] < 0):
            if level < depth:
                todo += [(k, mid - half / 2, half / 2, level + 1),
                         (k, mid + half / 2, half / 2, level + 1)]
                continue
            raise NotProved(f"φ ∈ {piece.str(5)}: D < 1/4 (ρ > 0) and the flow pointing into the "
                            f"region are not proved (side 1 > 0: {w[0].str(5)}, side 2 < 0: "
                            f"{w[1].str(5)}, side 3 < 0: {w[2].str(5)})")
        tr_hi, tr_lo = (-f_lo).exp().upper(), (-f_hi).exp().lower()    # tr Σ = e^{−ℓ} on R
        top = tr_hi if top is None else max(top, tr_hi)
        floor = tr_lo if floor is None else min(floor, tr_lo)
    return top, floor, done


def entry(nodes, lo, hi, det, S) -> None:
    """Σ(t0) in the ball S (2×2) lies in R (else NotProved)."""
    u = 1 / (S[0, 0] + S[1, 1])
    Y = S * u
    a, b = (Y[0, 0] - Y[1, 1]) / 2, Y[0, 1]
    if not (u > 0 and a * a + b * b > 0):
        raise NotProved("tr Σ(t0) > 0 and Σ(t0) ≠ (tr Σ/2)·I (the angle defined) are not proved")
    pi = flint.arb.pi()
    phi = flint.arb.atan2(b, a)
    phi = phi + 2 * pi if phi < 0 else phi if phi >= 0 else None
    if phi is None:
        raise NotProved("the angle of Σ(t0) is not proved to lie on one side of φ = 0")
    ell, d = u.log(), Y[0, 0] * Y[1, 1] - Y[0, 1] * Y[0, 1]
    met = [k for k, (x0, x1) in enumerate(itertools.pairwise(nodes))
           if not (phi < x0 * pi or phi > x1 * pi)]     # the intervals the angle's ball meets
    if not met:
        raise NotProved("the angle of Σ(t0) meets no interval of the nodes")
    for k in met:
        x0, x1 = nodes[k], nodes[k + 1]
        h = (x1 - x0) * pi
        f_lo, f_hi, f_m = (hermite(f, k, x0, h, phi)[0] for f in (lo, hi, det))
        if not (ell >= f_lo and ell <= f_hi and d <= f_m.exp()):
            raise NotProved("Σ(t0) is not proved inside the region (L_lo ≤ ℓ ≤ L_hi, "
                            "ln D ≤ M)")


def check(kind, claim, witness, problem, ctx) -> None:
    p = problem.params
    if p is None or problem.d != 2:
        raise Invalid("bounded-turning certificates are for d = 2 (the circle of directions) "
                      "and time-invariant parameters")
    nodes = read_nodes(witness["nodes"])
    lo, hi, det = (read_hermite(witness[k], len(nodes) - 1, f"witness.{k}")
                   for k in ("lower", "upper", "det"))
    steps = read_timed_steps(witness, ctx.n, len(p.heads), claim["t_enter"], 2)
    plain, c1 = step_counts(steps)
    metrics = witness.get("metrics", [])
    require_work(2, len(p.heads), witness["order"], witness["prec"],
                 plain + (len(metrics) if isinstance(metrics, list) else 0) +
                 witness["tests"] * PIECE_STEPS, c1=c1)
    bound = flint.arb(claim["bound"])
    with flint.ctx.workprec(witness["prec"]):
        seen = []

        def visit(_h, box):
            if not (box[0, 0] + box[1, 1]) <= bound:
                seen.append(box)
        flow = Flow(p)
        end, r_end = steps_in_region_metric(flow, eye(ctx.n), 1, svec_of(problem.cov0), steps,
                                            witness, ctx.n, visit=visit)
        if seen:
            raise NotProved("tr Σ ≤ claim.bound is not proved on an a-priori box of the steps")
        entry(nodes, lo, hi, det, sym_of(end, 2, upper(r_end)))
        top, floor, _ = check_region(flow, nodes, lo, hi, det, witness["depth"],
                                     witness["tests"])
        if not (top <= bound and floor >= flint.arb(claim["floor"])):
            raise NotProved(f"on the region tr Σ lies in [{floor.str(6)}, {top.str(6)}], not "
                            "within [claim.floor, claim.bound]")
