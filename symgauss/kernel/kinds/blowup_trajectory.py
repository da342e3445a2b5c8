"""Checker for kind ``"blowup-trajectory"``: finite-time blow-up for any V_h, B_h, proved by
validated steps to a large Σ(t0) and two comparison equations from there.

With F(Σ) = AΣ + ΣAᵀ + Σ_h(V_hΣB_hΣ + ΣB_hᵀΣV_hᵀ) and Σ(t) ⪰ 0 for all t (rank invariance):

* upper bound. s = tr Σ has s' = 2tr(AΣ) + 2Σ_h tr(V_hΣB_hΣ). If (A + Aᵀ)/2 − aI ⪰ 0 and
  K − (c/2)·ttᵀ ⪰ 0 (K the svec matrix of the form Σ ↦ Σ_h tr(V_hΣB_hΣ), t the svec of I's
  trace form), both decided exactly, then s' ≥ 2as + cs² for every Σ ⪰ 0. With s(t0) ≥ s0 > 0
  and 2a + cs0 > 0, s exceeds the solution of z' = 2az + cz², z(t0) = s0, which blows up at
  t0 + T_B, T_B = ln(1 + 2a/(cs0))/(2a) (1/(cs0) when a = 0): T* ≤ t0 + T_B.
* lower bound. n = ‖Σ‖_F has n' ≤ αn + βn², α = 2‖A‖_F, β = 2Σ_h‖V_h‖_F‖B_h‖_F (‖XY‖_F ≤
  ‖X‖_F‖Y‖_F), so with n(t0) ≤ n0 the solution exists on [t0, t0 + T_L), T_L = ln(1 + α/(βn0))/α
  (1/(βn0) when α = 0): T* ≥ t0 + T_L.
* a maximal solution with T* < ∞ of an ODE with polynomial field has ‖Σ(t)‖ → ∞ as t → T*.

Σ(t0) is enclosed by the validated steps of :mod:`symgauss.kernel.flow` (metric I; no steps:
t0 = 0 and Σ(t0) = cov0). Claim: as kind ``blowup`` (``t_lower`` < ``t_upper``, optional
``t_star``). Witness: ``steps``, ``order``, ``prec`` (as kind ``limit``), ``a``, ``c`` > 0.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import eye, is_psd
from symgauss.kernel.flow import (
    Flow,
    frobenius_upper,
    pairs,
    require_work,
    svec_of,
    sym_of,
    units,
    upper,
)
from symgauss.kernel.kinds.blowup import SCHEMAS as BLOWUP
from symgauss.kernel.kinds.blowup import check_claim
from symgauss.kernel.kinds.blowup import statement as blowup_statement
from symgauss.kernel.kinds.limit import (
    MAX_D,
    MAX_ORDER,
    MAX_PREC,
    MIN_PREC,
    read_steps,
    step_counts,
)
from symgauss.kernel.read import rational
from symgauss.kernel.schema import Field, Schema, integer, positive, raw
from symgauss.kernel.steps import check_steps
from symgauss.kernel.verdict import NotProved

SCHEMAS = {"blowup-trajectory": Schema(
    BLOWUP["blowup"].claim,
    {"steps": Field(raw), "order": Field(integer(2, MAX_ORDER)),
     "prec": Field(integer(MIN_PREC, MAX_PREC)),
     "a": Field(lambda v, w, ctx: rational(v, w)), "c": Field(positive)},
    "rigorous", {"d": MAX_D})}


def statement(kind, claim, problem) -> str:
    return blowup_statement(kind, claim, problem)


def quadratic_form(params, weight=None) -> flint.fmpq_mat:
    """K with svec(Σ)ᵀ K svec(Σ) = Σ_h tr(W·V_hΣB_hΣ), W = ``weight`` or I (exact, symmetric;
    svec here the entries Σ_ij, i ≤ j, as :func:`symgauss.kernel.flow.pairs` orders them)."""
    d = params.A.nrows()
    basis = units(d)
    n = len(basis)
    K = flint.fmpq_mat(n, n)
    for V, B in params.heads:
        VE = [(V if weight is None else weight * V) * E for E in basis]
        BE = [B * E for E in basis]
        for k in range(n):
            for m in range(n):
                X = VE[k] * BE[m]
                K[k, m] += sum((X[i, i] for i in range(d)), flint.fmpq(0)) / 2
                K[m, k] += sum((X[i, i] for i in range(d)), flint.fmpq(0)) / 2
    return K


def trace_vector(d: int, weight=None) -> flint.fmpq_mat:
    """p with pᵀ svec(Σ) = tr(WΣ), W = ``weight`` (symmetric) or I."""
    if weight is None:
        return flint.fmpq_mat(d * (d + 1) // 2, 1, [int(i == j) for i, j in pairs(d)])
    return flint.fmpq_mat(d * (d + 1) // 2, 1, [weight[i, j] * (1 if i == j else 2)
                                                for i, j in pairs(d)])


def _bernoulli_time(k, q, y0):
    """The blow-up time of y' = ky + qy², y(0) = y0 > 0 (k + qy0 > 0)."""
    return 1 / (q * y0) if k == 0 else (1 + k / (q * y0)).log() / k


def bounds(params, a, c, end, r_end, t0) -> tuple:
    """(t0 + T_L, t0 + T_B) as arb, for Σ(t0) within r_end of the svec ``end`` (module
    docstring); the exact conditions on a and c are :func:`require_rates`."""
    d = params.A.nrows()
    S = sym_of(end, d, upper(r_end))
    tr = sum((S[i, i] for i in range(d)), flint.arb(0))
    s0 = tr.mid() - tr.rad()
    k = 2 * flint.arb(a)
    if not (s0 > 0 and k + flint.arb(c) * s0 > 0):
        raise NotProved("tr Σ(t0) is not proved large enough for the comparison "
                        "(need tr Σ(t0) > 0 and 2a + c·tr Σ(t0) > 0)")
    alpha = 2 * frobenius_upper(params.A)
    beta = 2 * sum((frobenius_upper(V) * frobenius_upper(B) for V, B in params.heads),
                   flint.arb(0))
    if not beta > 0:
        raise NotProved("no quadratic term: no blow-up")
    t = flint.arb(t0)
    return t + _bernoulli_time(alpha, beta, frobenius_upper(S)), \
        t + _bernoulli_time(k, flint.arb(c), s0)


def require_rates(params, a, c) -> None:
    d = params.A.nrows()
    if not is_psd((params.A + params.A.transpose()) / 2 - eye(d) * a):
        raise NotProved("(A + Aᵀ)/2 − a·I is not positive semidefinite")
    t = trace_vector(d)
    if not is_psd(quadratic_form(params) - t * t.transpose() * (c / 2)):
        raise NotProved("K − (c/2)·ttᵀ is not positive semidefinite, so tr Q(Σ) ≥ c·(tr Σ)² "
                        "is not proved")




def check(kind, claim, witness, problem, ctx) -> None:
    check_claim(claim, problem)
    lo, hi = claim["t_lower"], claim["t_upper"]
    steps = read_steps(witness["steps"], ctx.n)
    p = problem.params
    plain, c1 = step_counts(steps)
    require_work(problem.d, len(p.heads), witness["order"], witness["prec"], plain, c1=c1)
    require_rates(p, witness["a"], witness["c"])
    t0 = sum((h for h, _, _, _ in steps), flint.fmpq(0))
    with flint.ctx.workprec(witness["prec"]):
        end, r_end = check_steps(Flow(p), flint.arb_mat(eye(ctx.n)), flint.fmpq(1),
                                 svec_of(problem.cov0), steps, witness["order"])
        t_lo, t_hi = bounds(p, witness["a"], witness["c"], end, r_end, t0)
        if not (flint.arb(lo) < t_lo and t_hi <= flint.arb(hi)):
            raise NotProved(f"the proved enclosure [{t_lo.str(10)}, {t_hi.str(10)}] of T* is not "
                            "within the claimed (t_lower, t_upper]")
