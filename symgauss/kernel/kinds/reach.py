"""Checker for the kinds ``"reach"`` and ``"unreachable"`` (trusted kernel).

``unreachable``
    claim ``{"rank_cov0": r0, "rank_target_cov": r1}`` with r0 ≠ r1. Both ranks
    are recomputed exactly (``fmpq_mat.rank``). Rank is invariant under the flow
    for every control (Σ(t) = Φ(t) Σ0 Φ(t)ᵀ with Φ(t) invertible), so the target
    covariance cannot be reached at any time.

``reach``
    claim ``{"T": T, "epsilon": ε}``; witness ``{"controls": [pieces],
    "working_precision_bits": p}`` (pieces in problem-file form, exact rationals).
    The checker recomputes the state the controls reach at time T = Σ durations
    from the stored cov0/mean0 and accepts iff
    ``max(‖m(T) − target.mean‖₂, ‖Σ(T) − target.cov‖_F) ≤ ε`` is proved:

    - *translation* pieces (A = 0, every V_h = 0): m ↦ m + τb, exactly;
    - *linear* pieces (every head has V_h = 0 or B_h = 0): Σ ↦ e^{Aτ} Σ e^{Aᵀτ},
      mean from the block exponential of [[Nτ, bτ], [0, 0]] with N = A + Σ_h V_h,
      in ball arithmetic (``arb_mat.exp``);
    - *Bernoulli attention* pieces (A = 0, b = 0, every active head V_h = v_h I),
      entered with an exactly known state, zero mean and Σ ≻ 0: with
      R = Σ_h v_h (B_h + B_hᵀ), P = Σ⁻¹ solves P' = −R, so Σ(τ) = (Σ⁻¹ − τR)⁻¹ exactly,
      valid because Σ⁻¹ − sR ≻ 0 for all s ∈ [0, τ] (checked exactly at both ends; the
      cone is convex); the mean stays 0.

    Any other nonlinear piece is not enclosed and the certificate is rejected
    as invalid (reach certificates cover only the pieces above).

>>> import flint
>>> I = flint.fmpq_mat(1, 1, [1])
>>> st = propagate(I, flint.fmpq_mat(1, 1, [0]),
...                [(flint.fmpq(1), ExactParams(flint.fmpq_mat(1, 1), ((flint.fmpq_mat(1, 1),
...                  flint.fmpq_mat(1, 1)),), flint.fmpq_mat(1, 1, [2])))], 128)
>>> st.exact, st.m[0, 0]
(True, 2)
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint

from symgauss.kernel.equations import scalar_of
from symgauss.kernel.exact import positive_definite, require_small
from symgauss.kernel.read import ExactParams, brief, read_pieces, short_text, text
from symgauss.kernel.schema import Field, Schema, integer, nonnegative, positive, raw
from symgauss.kernel.verdict import Invalid, NotProved, Refuted

MIN_PREC, MAX_PREC = 128, 2048
MAX_D = 12
MAX_STEP_NORM = 2 ** 12   # pieces with ‖Aτ‖∞ beyond this are too stiff to enclose: invalid
NORM = "max(‖m(T) − target.mean‖₂, ‖Σ(T) − target.cov‖_F)"
SCHEMAS = {
    "reach": Schema({"T": Field(positive), "epsilon": Field(nonnegative)},
                    {"controls": Field(raw), "working_precision_bits":
                     Field(integer(MIN_PREC, MAX_PREC))}, None, {"d": MAX_D}),
    "unreachable": Schema({"rank_cov0": Field(integer(0, "d")),
                           "rank_target_cov": Field(integer(0, "d"))}, {}, "exact", {}),
}


@dataclass(frozen=True)
class State:
    """Moments at the end of some pieces: exact (fmpq_mat) or enclosed (arb_mat)."""
    S: object
    m: object
    exact: bool


def _is_zero(M) -> bool:
    return all(x == 0 for x in M.entries())


def piece_kind(p: ExactParams, d: int) -> str:
    """'translation', 'linear', 'bernoulli' or 'nonlinear' (see the module docstring)."""
    active = [(V, B) for V, B in p.heads if not _is_zero(V) and not _is_zero(B)]
    if not active:
        if _is_zero(p.A) and all(_is_zero(V) for V, _ in p.heads):
            return "translation"
        return "linear"
    if _is_zero(p.A) and _is_zero(p.b) and all(scalar_of(V) is not None for V, _ in active):
        return "bernoulli"
    return "nonlinear"


def _norm_inf(M) -> Fraction:
    best = Fraction(0)
    for i in range(M.nrows()):
        s = sum((abs(Fraction(int(M[i, j].p), int(M[i, j].q))) for j in range(M.ncols())),
                Fraction(0))
        best = max(best, s)
    return best


def _block_exp(N, b, tau, d):
    """exp([[Nτ, bτ], [0, 0]]) as an arb_mat (at the current precision)."""
    t = flint.arb(tau)
    rows = [[flint.arb(N[i, j]) * t for j in range(d)] + [flint.arb(b[i, 0]) * t]
            for i in range(d)]
    rows.append([flint.arb(0)] * (d + 1))
    return flint.arb_mat(rows).exp()


def _top_left(F, d):
    return flint.arb_mat([[F[i, j] for j in range(d)] for i in range(d)])


def _linear_step(state: State, tau, p: ExactParams, d: int) -> State:
    N = p.A
    for V, _ in p.heads:
        N = N + V
    if max(_norm_inf(N), _norm_inf(p.A)) * Fraction(int(tau.p), int(tau.q)) > MAX_STEP_NORM:
        raise Invalid(f"a piece has ‖Aτ‖ > {MAX_STEP_NORM}; too stiff to enclose")
    S = state.S if not state.exact else flint.arb_mat(state.S)
    m = state.m if not state.exact else flint.arb_mat(state.m)
    F = _block_exp(N, p.b, tau, d)
    E = _top_left(F, d) if N == p.A else (flint.arb_mat(p.A) * flint.arb(tau)).exp()
    S_new = E * S * E.transpose()
    m_new = flint.arb_mat([[sum((F[i, j] * m[j, 0] for j in range(d)), flint.arb(0)) + F[i, d]]
                           for i in range(d)])
    return State(S_new, m_new, False)


def bernoulli_R(p: ExactParams, d: int) -> flint.fmpq_mat:
    """R = Σ_h v_h(B_h + B_hᵀ) over the active heads (V_h = v_hI, B_h ≠ 0) of a Bernoulli piece:
    Σ' = ΣRΣ there, so Σ(τ)⁻¹ = Σ(0)⁻¹ − τR."""
    R = flint.fmpq_mat(d, d)
    for V, B in p.heads:
        if not _is_zero(V) and not _is_zero(B):
            R = R + (B + B.transpose()) * scalar_of(V)
    return R


def _bernoulli_step(state: State, tau, p: ExactParams, d: int, k: int) -> State:
    if not state.exact or not _is_zero(state.m):
        raise Invalid(f"piece {k} is an attention piece: it is enclosed only when entered with an "
                      "exactly known state and zero mean")
    require_small(state.S, f"the exact covariance entering piece {k}")
    if positive_definite(state.S)[0] is not True:
        raise Invalid(f"piece {k} is an attention piece entered with a covariance not proved "
                      "positive definite; its Bernoulli closed form does not apply")
    P1 = state.S.inv() - bernoulli_R(p, d) * tau
    ok, why = positive_definite(P1)
    if ok is None:
        raise NotProved(f"piece {k}: whether Σ⁻¹ − τR ≻ 0 is {why}")
    if not ok:
        raise Refuted(f"piece {k}: Σ⁻¹ − τR is not positive definite (exact), so Σ⁻¹ − sR is "
                      "singular for some s ≤ τ: the covariance blows up within the piece and "
                      "the controls reach no state at time T")
    return State(P1.inv(), state.m, True)


def propagate(cov0, mean0, pieces, prec: int) -> State:
    """The moments reached after all ``pieces`` from (mean0, cov0) (fmpq_mat inputs)."""
    d = cov0.nrows()
    state = State(cov0, mean0, True)
    with flint.ctx.workprec(prec):
        for k, (tau, p) in enumerate(pieces):
            kind = piece_kind(p, d)
            if kind == "translation":
                if state.exact:
                    state = State(state.S, state.m + p.b * tau, True)
                else:
                    state = State(state.S, state.m + flint.arb_mat(p.b) * flint.arb(tau), False)
            elif kind == "linear":
                state = _linear_step(state, tau, p, d)
            elif kind == "bernoulli":
                state = _bernoulli_step(state, tau, p, d, k)
            else:
                raise Invalid(f"piece {k} is a nonlinear attention piece (V ≠ vI, or A ≠ 0, or "
                              "b ≠ 0); reach certificates cover linear pieces and Bernoulli "
                              "attention pieces only")
    return state


def _frac(x) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def error_bounds(state: State, target_mean, target_cov, prec: int):
    """Bounds of the distance max(‖m − m1‖₂, ‖Σ − Σ1‖_F) to the target.

    Returns ``(lower, upper, squared)``: for an exact state ``squared`` is True and
    lower = upper = the exact *square* of the distance; for an enclosure, rational lower
    and upper bounds of the distance itself.
    """
    d = target_cov.nrows()
    if state.exact:
        em = sum((_frac(state.m[i, 0] - target_mean[i, 0]) ** 2 for i in range(d)), Fraction(0))
        eS = sum((_frac(state.S[i, j] - target_cov[i, j]) ** 2 for i in range(d)
                  for j in range(d)), Fraction(0))
        return max(em, eS), max(em, eS), True
    with flint.ctx.workprec(prec):
        def bound(diffs, upper):
            acc = flint.arb(0)
            for e in diffs:
                a = e.abs_upper() if upper else e.abs_lower()
                acc += a * a
            return acc.sqrt()
        dm = [state.m[i, 0] - flint.arb(target_mean[i, 0]) for i in range(d)]
        dS = [state.S[i, j] - flint.arb(target_cov[i, j]) for i in range(d) for j in range(d)]
        up = bound(dm, True).max(bound(dS, True)).upper()
        lo = bound(dm, False).max(bound(dS, False)).lower()
        return arb_to_fraction(lo, upper=False), arb_to_fraction(up, upper=True), False


def arb_to_fraction(x, upper: bool) -> Fraction:
    """A rational bound (above if ``upper``, else below) of the arb ``x``."""
    if not x.is_finite():
        raise NotProved("the enclosure of the reached state is not finite")
    mid, rad, exp = x.mid_rad_10exp(30)
    val = Fraction(int(mid) + (int(rad) if upper else -int(rad))) * Fraction(10) ** int(exp)
    return val if upper else max(val, Fraction(0))


def sci(x: Fraction, digits: int = 3) -> str:
    """Scientific text of a non-negative rational, rounded up (``'3.21e-52'``, ``'0'``)."""
    if x <= 0:
        return "0"
    e = len(str(x.numerator)) - len(str(x.denominator))
    while Fraction(10) ** e > x:
        e -= 1
    while Fraction(10) ** (e + 1) <= x:
        e += 1
    scaled = x / Fraction(10) ** (e - digits + 1)
    q = -((-scaled.numerator) // scaled.denominator)  # ceiling
    text = str(q)
    if len(text) > digits:  # rounding up carried into a new digit
        text, e = text[:-1], e + 1
    return f"{text[0]}.{text[1:]}e{e}" if digits > 1 else f"{text}e{e}"


def statement(kind, claim, problem) -> str:
    if kind == "unreachable":
        return (f"rank cov0 = {claim['rank_cov0']} ≠ {claim['rank_target_cov']} = rank target.cov; "
                "rank is invariant under the flow for every control (Σ(t) = Φ(t) Σ0 Φ(t)ᵀ with "
                "Φ(t) invertible), so the target is unreachable at every time")
    return (f"the piecewise-constant controls in the witness steer N(mean0, cov0) to within "
            f"ε = {short_text(claim['epsilon'])} of N(target.mean, target.cov) at time T = "
            f"{short_text(claim['T'])}, in the distance {NORM}")


def _require_no_other_dynamics(problem, pieces) -> None:
    """The stored problem's own dynamics: none, or exactly the witness controls."""
    if problem.controls:
        if problem.controls != pieces:
            raise Invalid("the stored problem has its own controls, and they differ from the "
                          "witness controls: the certificate would not be about its problem")
        return
    p = problem.params
    if any(x != 0 for M in (p.A, p.b, *[X for h in p.heads for X in h]) for x in M.entries()):
        raise Invalid("the stored problem has its own fixed dynamics (A, V, B or b): a reach "
                      "certificate's dynamics are its witness controls; store cov0, mean0 and "
                      "target only")


def check(kind, claim, witness, problem, ctx) -> str:
    """Raise Invalid / Refuted / NotProved, or return the level proved."""
    if problem.target is None:
        raise Invalid("the stored problem has no target")
    tm, tc = problem.target
    if kind == "unreachable":
        r0c, r1c = claim["rank_cov0"], claim["rank_target_cov"]
        if r0c == r1c:
            raise Invalid("claim: rank_cov0 = rank_target_cov is no obstruction")
        require_small(problem.cov0, "problem.cov0")
        require_small(tc, "problem.target.cov")
        r0, r1 = problem.cov0.rank(), tc.rank()
        if (r0, r1) != (r0c, r1c):
            raise Refuted(f"the ranks are {r0} (cov0) and {r1} (target.cov), not the claimed "
                          f"{r0c} and {r1c} (exact)")
        return "exact"
    T, eps = claim["T"], claim["epsilon"]
    pieces = read_pieces(witness["controls"], problem.d, "witness.controls")
    _require_no_other_dynamics(problem, pieces)
    total = sum((tau for tau, _ in pieces), flint.fmpq(0))
    if total != T:
        raise Invalid(f"the durations add up to {text(total)}, not the claimed T = {text(T)}")
    prec = witness["working_precision_bits"]
    if eps > 0:
        prec = min(max(prec, int(eps.q).bit_length() - int(eps.p).bit_length() + 64), MAX_PREC)
    eps_f = _frac(eps)
    for _ in range(2):
        state = propagate(problem.cov0, problem.mean0, pieces, prec)
        lo, up, squared = error_bounds(state, tm, tc, prec)
        if squared:  # exact
            if lo <= eps_f ** 2:
                return "exact"
            raise Refuted(f"the reached state is computed exactly; its squared distance to the "
                          f"target is {brief(flint.fmpq(lo.numerator, lo.denominator))} > ε²")
        if up <= eps_f:
            return "rigorous"
        if lo > eps_f:
            raise Refuted(f"ball arithmetic at {prec} bits: the distance to the target is "
                          f"≥ {sci(lo)} > ε = {sci(eps_f)}")
        prec = min(2 * prec, MAX_PREC)
    raise NotProved(f"the enclosure at {prec} bits is too wide to compare with ε = {sci(eps_f)}")
