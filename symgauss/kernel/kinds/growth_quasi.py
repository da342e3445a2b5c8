"""Checker for kind ``"growth-quasi"``: Σ(t) exists for all t ≥ 0 and Σ_jj(t) grows exponentially
(d = 2, any number of heads) along an axis e_j that is a *double* null direction of the
quadratic term: row and column j of every B_h are zero. Then Σ/tr Σ tends to e_je_jᵀ, but
Σ_jk grows like √Σ_jj (quasi-homogeneous, as in Matsue–Takayasu), so no equilibrium at
infinity of kinds ``growth`` or ``growth-axis`` describes it.

Coordinates (j moved to index 0, k the other index; exact): with B_h = b_h·e_ke_kᵀ,
Σ_h (V_hΣB_hΣ + ΣB_hᵀΣV_hᵀ) = W s sᵀ + s sᵀWᵀ, W = Σ_h b_h V_h, s = Σe_k = (z, w), where
Σ = [[x, z], [z, w]]. With v = 1/√x, p = z/√x (so x = v⁻², z = p/v) and the time τ,
dτ/dt = 1/v, eq. 1.1 becomes, exactly (a = A permuted; the polynomials of
:func:`quasi_field`):

    g = x'/x = 2a₀₀ + 2a₀₁pv + 2W₀₀p² + 2W₀₁wpv,
    dv/dτ = −(g/2)·v²,
    dp/dτ = a₁₀ + W₁₀p² + v·[(a₀₀ + a₁₁)p + (W₀₀ + W₁₁)pw − (g/2)p] + v²·[a₀₁w + W₀₁w²],
    dw/dτ = 2p·(a₁₀ + W₁₀w) + v·(2a₁₁w + 2W₁₁w²).

At v = 0 the point (p*, w*) with w* = −a₁₀/W₁₀ = p*² attracts at rate 2W₁₀p* when that is
negative. Region R = {0 < v ≤ v_max, ‖e‖_P² ≤ ρ}, e = (p, w) − c(v), c(v) = c₀ + c₁v + c₂v²
(``manifold``). For each of ``v_pieces`` equal pieces V_i of [0, v_max], on the box
{v ∈ V_i, (p, w) ∈ c(V_i) ± √ρ·√((P⁻¹)_ll)} (which holds R's points with v ∈ V_i), in ball
arithmetic: g ∈ [κ, K] with κ > 0; ‖H(V_i)‖_P < λ√ρ with H(v) = F(v, c(v)) − c'(v)·dv/dτ
(F = (dp/dτ, dw/dτ); a polynomial in v, its coefficients exact, :func:`manifold_defect`); and
−(JᵀP + PJ) − 2λP ≻ 0 for J = ∂F/∂(p, w) − c'(v)·∂(dv/dτ)/∂(p, w) on the box. Then on ‖e‖_P = √ρ, de/dτ = H(v) + J̄e (J̄ an average of J over the segment from
c(v), inside the box), so d‖e‖²_P/dτ ≤ 2√ρ‖H‖_P − 2λρ < 0; on v = v_max, dv/dτ < 0: R is
forward invariant. In R, v ≥ v₀/(1 + Kv₀τ/2) > 0 for all τ, so t = t0 + ∫v dτ → ∞ with τ: the
solution exists for all t ≥ t0, and x' = g·x gives Σ_jj(t0)·e^{κ(t−t0)} ≤ Σ_jj(t) ≤
Σ_jj(t0)·e^{K(t−t0)}.

Checks: the structure (exact); P ≻ 0 (exact); the pieces above; the steps of eq. 1.1 (``steps``,
``order``, ``prec``, optional ``metrics``, in metric I as kind ``limit``) add up to t0 and end in
a ball whose (v, p, w) (x > 0 proved) has v < v_max and ‖(p, w) − c(v)‖_P < √ρ; and the claim's
rates: rate_lower ≤ κ, K ≤ rate_upper.

Claim: ``axis`` j, ``t_enter`` t0, ``rate_lower``, ``rate_upper`` (as kind ``growth-schur``).
Witness: the steps keys, ``manifold`` [c₀, c₁, c₂] (2 each), ``P`` (2×2), ``rho``, ``rate`` λ,
``v_max``, ``v_pieces``.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import eye, require_pd
from symgauss.kernel.flow import Flow, contracts, p_norm, svec_of, sym_of, upper
from symgauss.kernel.kinds.growth_schur import statement as schur_statement
from symgauss.kernel.kinds.limit import (
    MAX_ORDER,
    MAX_PREC,
    MIN_PREC,
    read_timed_steps,
    steps_in_region_metric,
)
from symgauss.kernel.schema import Field, Schema, integer, mat, positive, raw, sym
from symgauss.kernel.verdict import Invalid, NotProved

MAX_PIECES = 4096
SCHEMAS = {"growth-quasi": Schema(
    {"axis": Field(integer(0, 1)), "t_enter": Field(positive),
     "rate_lower": Field(positive), "rate_upper": Field(positive)},
    {"steps": Field(raw), "order": Field(integer(2, MAX_ORDER)),
     "prec": Field(integer(MIN_PREC, MAX_PREC)), "metrics": Field(raw, False),
     "manifold": Field(mat(3, 2)), "P": Field(sym(2)), "rho": Field(positive),
     "rate": Field(positive), "v_max": Field(positive),
     "v_pieces": Field(integer(1, MAX_PIECES))},
    "rigorous", {"d": 2})}


def statement(kind, claim, problem) -> str:
    return schur_statement(kind, claim, problem)


def structure(p, j: int) -> tuple:
    """(a, W) as 2×2 nested lists of fmpq with index j first: A permuted and W = Σ_h b_h V_h
    permuted, when row and column j of every B_h are zero (exact); else NotProved."""
    k = 1 - j
    W = [[flint.fmpq(0)] * 2 for _ in range(2)]
    for h, (V, B) in enumerate(p.heads):
        if any(B[j, i] != 0 or B[i, j] != 0 for i in range(2)):
            raise NotProved(f"row or column {j + 1} of B of head {h + 1} is not zero: e_{j + 1} "
                            "is not a double null direction of the quadratic term")
        for r in range(2):
            for c in range(2):
                W[r][c] += B[k, k] * V[r, c]
    order = [j, k]
    return ([[p.A[r, c] for c in order] for r in order],
            [[W[r][c] for c in order] for r in order])


def growth_rate(a, W, v, p, w):
    """g = Σ_jj'/Σ_jj at (v, p, w)."""
    return 2 * (a[0][0] + a[0][1] * p * v + W[0][0] * p * p + W[0][1] * w * p * v)


def quasi_field(a, W, v, p, w) -> tuple:
    """(g, dv/dτ, dp/dτ, dw/dτ) at (v, p, w) (arb, or exact polynomials in v; a, W nested
    lists of numbers)."""
    g = growth_rate(a, W, v, p, w)
    dv = -g * v * v / 2
    dp = a[1][0] + W[1][0] * p * p + v * ((a[0][0] + a[1][1]) * p + (W[0][0] + W[1][1]) * p * w
                                          - g * p / 2) + v * v * (a[0][1] * w + W[0][1] * w * w)
    dw = 2 * p * (a[1][0] + W[1][0] * w) + v * (2 * a[1][1] * w + 2 * W[1][1] * w * w)
    return g, dv, dp, dw


def quasi_jacobian(a, W, v, p, w) -> tuple:
    """(∂g, ∂(dv/dτ), ∂(dp/dτ), ∂(dw/dτ)), each the pair of derivatives in (p, w)."""
    g = growth_rate(a, W, v, p, w)
    gp = 2 * (a[0][1] * v + 2 * W[0][0] * p + W[0][1] * w * v)
    gw = 2 * W[0][1] * p * v
    s = a[0][0] + a[1][1]
    t = W[0][0] + W[1][1]
    dpp = 2 * W[1][0] * p + v * (s + t * w - g / 2 - gp * p / 2)
    dpw = v * (t * p - gw * p / 2) + v * v * (a[0][1] + 2 * W[0][1] * w)
    dwp = 2 * (a[1][0] + W[1][0] * w)
    dww = 2 * p * W[1][0] + v * (2 * a[1][1] + 4 * W[1][1] * w)
    return (gp, gw), (-gp * v * v / 2, -gw * v * v / 2), (dpp, dpw), (dwp, dww)


def _manifold(c, v):
    """(c(v), c'(v)) as lists of arb."""
    return ([c[0][i] + (c[1][i] + c[2][i] * v) * v for i in range(2)],
            [c[1][i] + 2 * c[2][i] * v for i in range(2)])


def _horner(coeffs, v):
    acc = flint.arb(0)
    for c in reversed(coeffs):
        acc = acc * v + flint.arb(c)
    return acc


def manifold_defect(aq, Wq, cq) -> list:
    """H(v) = F(v, c(v)) − c'(v)·dv/dτ(v, c(v)) as two exact polynomials in v (their coefficient
    lists, fmpq): evaluated on a piece of v by Horner's rule, the near-cancellation of the
    field along c(v) is kept (a ball evaluation of F on the piece would lose it)."""
    v = flint.fmpq_poly([0, 1])
    cv = [flint.fmpq_poly([cq[0][i], cq[1][i], cq[2][i]]) for i in range(2)]
    dc = [flint.fmpq_poly([cq[1][i], 2 * cq[2][i]]) for i in range(2)]
    _, dv, dp, dw = quasi_field(aq, Wq, v, *cv)
    return [(dp - dc[0] * dv).coeffs(), (dw - dc[1] * dv).coeffs()]


def check_region(p, j, witness) -> tuple:
    """(κ, K): the bounds of g on R, once every piece passes (module docstring)."""
    aq, Wq = structure(p, j)
    a, W = (([[flint.arb(x) for x in row] for row in M]) for M in (aq, Wq))
    P, rho, lam, vmax, m = (witness[x] for x in ("P", "rho", "rate", "v_max", "v_pieces"))
    require_pd(P, "witness.P")
    Pa, root = flint.arb_mat(P), flint.arb(rho).sqrt()
    inv = Pa.inv()
    spread = [upper(upper(inv[i, i]).sqrt() * root) for i in range(2)]
    cq = [[witness["manifold"][r, i] for i in range(2)] for r in range(3)]
    c = [[flint.arb(x) for x in row] for row in cq]
    defect = manifold_defect(aq, Wq, cq)
    rng = None
    for i in range(m):
        v = flint.arb(vmax) * (2 * i + 1) / (2 * m)
        v = v + flint.arb(0, upper(flint.arb(vmax) / (2 * m)))
        cv, dc = _manifold(c, v)
        p_, w_ = (cv[q] + flint.arb(0, spread[q]) for q in range(2))
        g = growth_rate(a, W, v, p_, w_)
        if not g > 0:
            raise NotProved(f"g > 0 is not proved on v-piece {i}: Σ_jj may stop growing there")
        rng = g if rng is None else rng.union(g)
        H = [_horner(coeffs, v) for coeffs in defect]
        if not p_norm(Pa, H) < flint.arb(lam) * root:
            raise NotProved(f"‖H‖_P < rate·√ρ is not proved on v-piece {i}: the manifold "
                            "c(v) is not close enough to invariant there")
        _, jv, jp, jw = quasi_jacobian(a, W, v, p_, w_)
        J = flint.arb_mat([[jp[q] - dc[0] * jv[q] for q in range(2)],
                           [jw[q] - dc[1] * jv[q] for q in range(2)]])
        if not contracts(Pa, J, flint.arb(lam)):
            raise NotProved(f"the fast variables are not proved to contract at the rate on "
                            f"v-piece {i}")
    return rng.lower(), rng.upper()


def entry(p, j, witness, end, r_end) -> None:
    """Σ within r_end (metric I) of the svec ``end`` lies in R (else NotProved)."""
    S = sym_of(end, 2, upper(r_end))
    k = 1 - j
    x, z, w = S[j, j], S[j, k], S[k, k]
    if not x > 0:
        raise NotProved(f"Σ_{j + 1}{j + 1}(t0) > 0 is not proved")
    v = 1 / x.sqrt()
    c = [[flint.arb(witness["manifold"][r, i]) for i in range(2)] for r in range(3)]
    cv, _ = _manifold(c, v)
    e = [z * v - cv[0], w - cv[1]]
    if not (v < flint.arb(witness["v_max"]) and
            p_norm(flint.arb_mat(witness["P"]), e) < flint.arb(witness["rho"]).sqrt()):
        raise NotProved("Σ(t0) is not proved inside the region (v < v_max, ‖e‖_P < √ρ)")


def check(kind, claim, witness, problem, ctx) -> None:
    p = problem.params
    if p is None:
        raise Invalid("growth-quasi certificates are for time-invariant parameters (no "
                      "'controls')")
    if problem.d != 2:
        raise Invalid(f"over a limit: kind growth-quasi is checked for d = 2 only, this problem "
                      f"has d = {problem.d}")
    j = claim["axis"]
    structure(p, j)
    steps = read_timed_steps(witness, ctx.n, len(p.heads), claim["t_enter"], problem.d)
    with flint.ctx.workprec(witness["prec"]):     # the cheap parts first, the region last
        end, r_end = steps_in_region_metric(Flow(p), eye(ctx.n), 1, svec_of(problem.cov0),
                                            steps, witness, ctx.n)
        entry(p, j, witness, end, r_end)
        g_lo, g_hi = check_region(p, j, witness)
        if not (flint.arb(claim["rate_lower"]) <= g_lo and g_hi <= flint.arb(claim["rate_upper"])):
            raise NotProved(f"g on the region lies in [{float(g_lo):.6g}, {float(g_hi):.6g}], "
                            "not within the claimed [rate_lower, rate_upper]")
