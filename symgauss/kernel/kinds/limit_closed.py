"""Checker for kind ``"limit-closed-form"``: the claim of kind ``limit`` (Σ(t) converges to a
positive-definite, zero or singular Σ*), when every V_h = v_h I, with Σ(t_enter) enclosed by the
closed form of the Riccati equation instead of validated steps.

With R = Σ_h v_h(B_h + B_hᵀ), eq. 1.1 is Σ' = AΣ + ΣAᵀ + ΣRΣ. As in kind ``blowup``
(:mod:`symgauss.kernel.kinds.blowup`): Σ0 = L_rD_rL_rᵀ (exact LDLᵀ), G(t) = ∫_0^t e^{Aᵀs}Re^{As} ds,
M(t) = D_r⁻¹ − L_rᵀG(t)L_r, and while M ≻ 0 on [0, t], Σ(t) = e^{At}L_rM(t)⁻¹L_rᵀe^{Aᵀt}. With
T = claim.t_enter, M ≻ 0 on [0, T] is proved by the sign of R, decided exactly:

- R ⪯ 0: G(t) ⪯ 0, so M(t) ⪰ D_r⁻¹ ≻ 0 for every t ≥ 0 (no blow-up at all);
- R ⪰ 0: G is Loewner-increasing, so M(t) ⪰ M(T) for t ≤ T, and M(T) ≻ 0 (ball LDLᵀ) suffices;
- R indefinite: the witness's ``pieces`` and ``bound`` R' (both or neither; when given they are
  the existence proof whatever the sign of R). With R' ⪰ 0 and R' − R ⪰ 0 (exact), pieces
  [t_k, t_k + h_k] covering [0, T] (runs of equal length: [count, h]), E_k = e^{At_k}L_r: for
  t = t_k + u, u ∈ [0, h_k], exactly M(t) = M(t_k) − E_kᵀG(u)E_k, and G(u) ⪯ G'(u) ⪯ G'(h_k)
  (G' the G of R', Loewner-increasing as R' ⪰ 0), so M(t) ⪰ M(t_k) − E_kᵀG'(h_k)E_k, which must
  be ≻ 0 (ball LDLᵀ) on every piece. Moving forward only R's positive part costs length (the
  negative part raises M), so R' is about R's positive part. G(h), G'(h) and e^{Ah} come from
  two block exponentials per run; M(t_{k+1}) = M(t_k) − E_kᵀG(h_k)E_k and
  E_{k+1} = e^{Ah_k}E_k are balls around the exact values. Work: pieces·⌈prec/512⌉ ≤
  MAX_PIECE_WORK and runs·⌈prec/512⌉² ≤ MAX_RUN_WORK.

Then G(T) and e^{AT} come from one block exponential (Van Loan) at ``prec`` bits, Σ(T) is the
ball matrix e^{AT}L_rM(T)⁻¹L_rᵀe^{AᵀT}, symmetrised (Σ(T) is symmetric, so it lies in the
average of the ball and its transpose), and checks 1, 3 and 4 of kind ``limit`` hold as there
(:func:`~symgauss.kernel.kinds.limit.check_target`), with check 2 on this ball:
‖svec(Σ(T)) − C‖_P < √ρ for every point of it. No steps, so a late T costs precision, not time:
the closed form cancels about 4·max Re λ(A)·T/ln 2 bits (seed-1021 vI-20-d4, where validated
steps could not get there: T = 210.11, 3 123 bits, checked in 40 ms; at MAX_PREC about 2 s at
d = 4, the region being checked at kind limit's precision, at most 512 bits).

Claim: as kind ``limit``. Witness: ``P`` (n×n), ``ell``, ``rho``, ``prec`` (bits), optional
``pieces`` (runs [count, h]) and ``bound`` (d×d).
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
from symgauss.kernel.schema import Field, Schema, integer, rationals, sym
from symgauss.kernel.verdict import Invalid, NotProved

#: the work limits: bits, and (kind blowup's) t_enter·(‖A‖_∞ + ‖R‖_∞) ≤ MAX_SPAN: the block
#: exponential squares about log₂ of it times (t_enter = 10³⁰⁰ took 16 s at 32 768 bits)
MIN_PREC, MAX_PREC = 64, 32_768
#: pieces·⌈prec/512⌉ and runs·⌈prec/512⌉² at most these: a piece is five d×d products and an
#: LDLᵀ, a run two block exponentials; a file at both limits (d = 5, 8 heads, runs about
#: t_enter/runs long at half MAX_SPAN) took 3.8 s at 512 bits, 1.5 s at 2 048 and 2.5 s at 22 528
#: (tests/test_kernel_limits.py; pieces end at 23 040 bits)
MAX_PIECE_WORK, MAX_RUN_WORK = 32_768, 2048
_W = limit.SCHEMAS["limit"].witness


def runs(value, where, ctx) -> list:
    """The witness's pieces: a list of [count, h] (count a positive integer, h > 0)."""
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_RUN_WORK:
        raise Invalid(f"{where}: expected a list of 1 to {MAX_RUN_WORK} [count, h] pairs")
    out = []
    for i, pair in enumerate(value):
        n, h = rationals(2, 2)(pair, f"{where}[{i}]", ctx)
        if n.q != 1 or n < 1 or h <= 0:
            raise Invalid(f"{where}[{i}]: expected [count, h], a positive integer and h > 0")
        out.append((int(n.p), h))
    return out


SCHEMAS = {"limit-closed-form": Schema(
    limit.SCHEMAS["limit"].claim,
    {"P": _W["P"], "ell": _W["ell"], "rho": _W["rho"],
     "prec": Field(integer(MIN_PREC, MAX_PREC)),
     "pieces": Field(runs, False), "bound": Field(sym("d"), False)},
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


def over_work(pieces: int, runs: int, prec: int) -> bool:
    """True past the work limits: pieces·⌈prec/512⌉ > MAX_PIECE_WORK or runs·⌈prec/512⌉² >
    MAX_RUN_WORK."""
    w = -(-prec // 512)
    return pieces * w > MAX_PIECE_WORK or runs * w * w > MAX_RUN_WORK


def piece_exps(A, R, Rb, h) -> tuple:
    """(G(h), e^{Ah}, G'(h)) at the current precision (G' the G of R' = ``Rb``)."""
    Gh, Eh = van_loan(A, R, flint.arb(h))
    return Gh, Eh, van_loan(A, Rb, flint.arb(h))[0]


def piece_step(M, E, exps) -> tuple | None:
    """(M(t_k + h), E_{k+1}) after proving M ⪰ M(t_k) − E_kᵀG'(h)E_k ≻ 0 on the piece, or None."""
    Gh, Eh, Gb = exps
    Et = E.transpose()
    N = M - Et * Gb * E
    if not arb_positive_definite((N + N.transpose()) / 2):
        return None
    return M - Et * Gh * E, Eh * E


def exists_by_pieces(A, R, Rb, Lr, Dinv, pieces) -> None:
    """NotProved unless M(s) ≻ 0 is proved on every piece (R' = ``Rb`` ⪰ 0 and R' − R ⪰ 0
    already checked; module docstring)."""
    M, E, t, known = flint.arb_mat(Dinv), flint.arb_mat(Lr), flint.fmpq(0), {}
    for n, h in pieces:
        exps = known[h] = known.get(h) or piece_exps(A, R, Rb, h)
        for _ in range(n):
            out = piece_step(M, E, exps)
            if out is None:
                raise NotProved(f"M(t) is not proved positive definite on the piece of length "
                                f"{float(h):.6g} from t = {float(t):.6g}, so Σ is not proved "
                                "to exist up to t_enter")
            (M, E), t = out, t + h


def falls(R) -> bool:
    """True when R ⪯ 0, False when R ⪰ 0 (exact); NotProved when R is indefinite."""
    if is_psd(R * -1):
        return True
    if not is_psd(R):
        raise NotProved("R = Σ_h v_h(B_h + B_hᵀ) is indefinite: without the witness's 'pieces' "
                        "and 'bound' this kind proves that Σ exists up to t_enter only when "
                        "R ⪯ 0 or R ⪰ 0")
    return False


def check(kind, claim, witness, problem, ctx) -> None:
    if problem.params is None:
        raise Invalid("limit certificates are for time-invariant parameters (no 'controls')")
    p = problem.params
    R, f = riccati_start(problem, "the closed form of the Riccati equation (every V_h = v_h I)")
    if f[0] is None:
        raise NotProved("Σ0 = 0: the closed form needs a non-zero Σ0")
    require_span(claim["t_enter"], p.A, R, "claim.t_enter", kind)
    pieces, Rb = witness.get("pieces"), witness.get("bound")
    if (pieces is None) != (Rb is None):
        raise Invalid("witness: 'pieces' and 'bound' go together (both or neither)")
    if pieces is None:
        rising = not falls(R)
    else:
        rising = False
        if over_work(sum(n for n, _ in pieces), len(pieces), witness["prec"]):
            raise Invalid(f"witness.pieces: pieces·⌈prec/512⌉ is over {MAX_PIECE_WORK} or "
                          f"runs·⌈prec/512⌉² over {MAX_RUN_WORK}, the limits of kind {kind}")
        if sum(n * h for n, h in pieces) != claim["t_enter"]:
            raise Invalid("witness.pieces: the lengths do not add up to claim.t_enter")
        for X, what in ((Rb, "R' ⪰ 0"), (Rb - R, "R' − R ⪰ 0")):
            if not is_psd(X):
                raise NotProved(f"witness.bound R': {what} is false")
    with flint.ctx.workprec(min(witness["prec"], limit.MAX_PREC)):     # ample for the region
        check_target(claim, witness, p, problem.d, ctx.n)
    with flint.ctx.workprec(witness["prec"]):
        if pieces is not None:
            exists_by_pieces(p.A, R, Rb, *f, pieces)
        S = closed_form(p.A, R, *f, claim["t_enter"], rising)
        require_entry(claim, witness, svec(S), flint.arb(0),
                      f"the closed form at {witness['prec']} bits")
