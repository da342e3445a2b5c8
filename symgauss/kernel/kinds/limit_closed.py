"""Checker for kind ``"limit-closed-form"``: the claim of kind ``limit`` (Σ(t) converges to a
positive-definite, zero or singular Σ*), when every V_h = v_h I, with Σ(t_enter) enclosed by the
closed form of the Riccati equation instead of validated steps.

With R = Σ_h v_h(B_h + B_hᵀ), eq. 1.1 is Σ' = AΣ + ΣAᵀ + ΣRΣ. As in kind ``blowup``
(:mod:`symgauss.kernel.kinds.blowup`): Σ0 = L_rD_rL_rᵀ (exact LDLᵀ), G(t) = ∫_0^t e^{Aᵀs}Re^{As} ds,
M(t) = D_r⁻¹ − L_rᵀG(t)L_r, and while M ≻ 0 on [0, t], Σ(t) = e^{At}L_rM(t)⁻¹L_rᵀe^{Aᵀt}. With
T = claim.t_enter, M ≻ 0 on [0, T] is proved by the sign of R, decided exactly:

- R ⪯ 0: G(t) ⪯ 0, so M(t) ⪰ D_r⁻¹ ≻ 0 for every t ≥ 0 (no blow-up at all);
- R ⪰ 0: G is Loewner-increasing, so M(t) ⪰ M(T) for t ≤ T, and M(T) ≻ 0 (ball LDLᵀ) suffices;
- R indefinite: not checked by this kind (NotProved).

Then G(T) and e^{AT} come from one block exponential (Van Loan) at ``prec`` bits, Σ(T) is the
ball matrix e^{AT}L_rM(T)⁻¹L_rᵀe^{AᵀT}, symmetrised (Σ(T) is symmetric, so it lies in the
average of the ball and its transpose), and checks 1, 3 and 4 of kind ``limit`` hold as there
(:func:`~symgauss.kernel.kinds.limit.check_target`), with check 2 on this ball:
‖svec(Σ(T)) − C‖_P < √ρ for every point of it. No steps, so a late T costs precision, not time:
the closed form cancels about 4·max Re λ(A)·T/ln 2 bits (seed-1021 vI-20-d4, where validated
steps could not get there: T = 210.11, 3 123 bits, checked in 40 ms; at MAX_PREC about 2 s at
d = 4, the region being checked at kind limit's precision, at most 512 bits).

Claim: as kind ``limit``. Witness: ``P`` (n×n), ``ell``, ``rho``, ``prec`` (bits).
"""
from __future__ import annotations

import flint

from symgauss.kernel.equations import svec
from symgauss.kernel.exact import is_psd
from symgauss.kernel.kinds import limit
from symgauss.kernel.kinds.blowup import (
    arb_positive_definite,
    require_span,
    riccati_start,
    van_loan,
)
from symgauss.kernel.kinds.limit import MAX_D, check_target, require_entry
from symgauss.kernel.schema import Field, Schema, integer
from symgauss.kernel.verdict import Invalid, NotProved

#: the work limits: bits, and (kind blowup's) t_enter·(‖A‖_∞ + ‖R‖_∞) ≤ MAX_SPAN: the block
#: exponential squares about log₂ of it times (t_enter = 10³⁰⁰ took 16 s at 32 768 bits)
MIN_PREC, MAX_PREC = 64, 32_768
_W = limit.SCHEMAS["limit"].witness
SCHEMAS = {"limit-closed-form": Schema(
    limit.SCHEMAS["limit"].claim,
    {"P": _W["P"], "ell": _W["ell"], "rho": _W["rho"],
     "prec": Field(integer(MIN_PREC, MAX_PREC))},
    "rigorous", {"d": MAX_D})}
#: the claim is kind limit's, so is its statement
statement = limit.statement


def closed_form(A, R, Lr, Dinv, t, rising: bool):
    """Σ(t) = e^{At}L_rM(t)⁻¹L_rᵀe^{Aᵀt} as a symmetric ball matrix at the current precision;
    ``rising`` (R ⪰ 0): M(t) ≻ 0 is proved first. NotProved when the balls are too wide."""
    G, E = van_loan(A, R, flint.arb(t))
    L = flint.arb_mat(Lr)
    M = flint.arb_mat(Dinv) - L.transpose() * G * L
    M = (M + M.transpose()) / 2
    if rising and not arb_positive_definite(M):
        raise NotProved("R ⪰ 0, and M(t_enter) = D⁻¹ − LᵀG(t_enter)L is not proved positive "
                        "definite, so Σ is not proved to exist up to t_enter")
    try:
        Mi = M.inv()
    except ZeroDivisionError:
        raise NotProved("M(t_enter) is not proved invertible at witness.prec bits (the closed "
                        "form cancels about 4·max Re λ(A)·t_enter/ln 2 bits)") from None
    EL = E * L
    S = EL * Mi * EL.transpose()
    return (S + S.transpose()) / 2


def falls(R) -> bool:
    """True when R ⪯ 0, False when R ⪰ 0 (exact); NotProved when R is indefinite."""
    if is_psd(R * -1):
        return True
    if not is_psd(R):
        raise NotProved("R = Σ_h v_h(B_h + B_hᵀ) is indefinite: this kind proves that Σ exists "
                        "up to t_enter only when R ⪯ 0 or R ⪰ 0")
    return False


def check(kind, claim, witness, problem, ctx) -> None:
    if problem.params is None:
        raise Invalid("limit certificates are for time-invariant parameters (no 'controls')")
    p = problem.params
    R, f = riccati_start(problem, "the closed form of the Riccati equation (every V_h = v_h I)")
    if f[0] is None:
        raise NotProved("Σ0 = 0: the closed form needs a non-zero Σ0")
    require_span(claim["t_enter"], p.A, R, "claim.t_enter", kind)
    falling = falls(R)
    with flint.ctx.workprec(min(witness["prec"], limit.MAX_PREC)):     # ample for the region
        check_target(claim, witness, p, problem.d, ctx.n)
    with flint.ctx.workprec(witness["prec"]):
        S = closed_form(p.A, R, *f, claim["t_enter"], not falling)
        require_entry(claim, witness, svec(S), flint.arb(0),
                      f"the closed form at {witness['prec']} bits")
