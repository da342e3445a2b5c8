"""Trusted checks of equilibrium stability at large d: the Lyapunov function V(Δ) = tr(QΔQΔ).

On Sym(d) the norm ‖Δ‖_Q = tr(QΔQΔ)^½ (Q ≻ 0 d×d; its svec Gram matrix is P = Q⊗Q) needs only
a d×d witness. The linearisation at S, J(Δ) = MΔ + ΔMᵀ + Σ_h(V_hΔC_h + C_hᵀΔV_hᵀ) with
M = A + Σ_h V_hSB_h and C_h = B_hS, is *s-dissipative* when ⟨Δ, JΔ⟩_Q ≤ −s‖Δ‖²_Q for every Δ,
i.e. when the n×n matrix −(PL + LᵀP) − 2sP is positive definite (n = d(d+1)/2). The checker
builds that matrix in ball arithmetic from d×d products, one svec column at a time, and proves
it positive definite by a float Cholesky factor R of the diagonally scaled matrix minus 2⁻³⁰·I
and a ball bound on the residual: M' = RRᵀ + 2⁻³⁰I + E with ‖E‖_F < 2⁻³⁰ (Rump's idea; the
float factor is only a guess, the ball residual is the proof). s-dissipativity gives every
eigenvalue of J real part ≤ −s and ‖J⁻¹‖_Q ≤ 1/s.

Kinds:

- ``stable-equilibrium-structured`` (rigorous): claim ``cov`` Σ*, ``rate``; witness ``Q``. F(Σ*) = 0
  exactly, Σ* ≻ 0, Q ≻ 0 (exact) and J at Σ* is rate-dissipative (ball arithmetic: the level is
  rigorous, not exact, although Σ* itself is exact).
- ``stable-equilibrium-structured-enclosed`` (rigorous): claim ``cov_center`` C, ``cov_radius``
  r (Frobenius), ``rate``; witness ``Q``, ``Q_range`` [lo, hi] with lo·I ≺ Q ≺ hi·I, and
  ``head_bounds`` [v_1, β_1, v_2, β_2, …] with v_h²Q − V_hᵀQV_h ≻ 0 and
  [[β_h²Q, B_hᵀ], [B_h, Q]] ≻ 0, i.e. ‖Q^½V_hQ^-½‖ < v_h and ‖Q^-½B_hQ^-½‖ < β_h, so that the
  quadratic part obeys ‖Σ_h V_hEB_hE + EB_hᵀEV_hᵀ‖_Q ≤ 2q‖E‖²_Q, q = Σ_h v_hβ_h. With
  s = rate + 4q·lo·r, J at C s-dissipative and f ≥ ‖F(C)‖_Q, the map E ↦ −J_C⁻¹(F(C) + quad(E))
  sends the Q-ball of radius ρ = lo·r into itself (f + 2qρ² ≤ sρ) and contracts there, so F has
  exactly one zero Σ* in it (within Frobenius distance r of C); it is the only one in the
  Frobenius ball (that ball lies in the Q-ball of radius hi·r, where 4q·hi·r < s still
  contracts), Σ* ⪰ C − rI ≻ 0, and J at Σ* differs from J at C by at most 4qρ in the Q-norm,
  so it is rate-dissipative.
"""
from __future__ import annotations

import math
import operator

import flint

from symgauss.kernel.equations import residual, velocity_matrix
from symgauss.kernel.exact import eye, require_pd
from symgauss.kernel.kinds.stability import require_equilibrium, stable_statement
from symgauss.kernel.read import MAX_D, MAX_HEADS, brief, short_text
from symgauss.kernel.schema import Field, Schema, positive, rationals, sym
from symgauss.kernel.verdict import Invalid, NotProved

PREC = 128                # bits of the ball arithmetic
SHIFT_BITS = 30           # the Cholesky shift 2^-30 (scaled matrix, unit diagonal)

SCHEMAS = {
    "stable-equilibrium-structured": Schema(
        {"cov": Field(sym("d")), "rate": Field(positive)}, {"Q": Field(sym("d"))}, "rigorous",
        {"d": MAX_D}),
    "stable-equilibrium-structured-enclosed": Schema(
        {"cov_center": Field(sym("d")), "cov_radius": Field(positive), "rate": Field(positive)},
        {"Q": Field(sym("d")), "Q_range": Field(rationals(2, 2)),
         "head_bounds": Field(rationals(2, 2 * MAX_HEADS))}, "rigorous", {"d": MAX_D}),
}


def statement(kind, claim, problem) -> str:
    if kind == "stable-equilibrium-structured":
        return stable_statement(claim)
    return stable_statement(claim, "the unique equilibrium Σ* within Frobenius distance "
                                   f"{short_text(claim['cov_radius'])} of claim.cov_center")


# --- the dissipation matrix and its positive-definiteness proof ------------------------------
def _svec_pairs(d):
    return [(i, j) for i in range(d) for j in range(i, d)]


def _power_of_two_near(x: float) -> flint.arb:
    return flint.arb(2) ** round(math.log2(x)) if 0 < x < math.inf else flint.arb(1)


def dissipation_matrix(p, S: flint.fmpq_mat, Q: flint.fmpq_mat, s) -> flint.arb_mat:
    """D(−(PL + LᵀP) − 2sP)D as a ball matrix (prec :data:`PREC`) on svec coordinates, with
    D = diag(δ_kδ_l) for a = (k, l), δ_k = 2^round(−½log₂ Q_kk) (exact powers of two, so
    that the diagonal is near 1; a congruence, which keeps positive definiteness).

    Column b = (i, j) of K = PL + sP is tr(E_a Z) for Z = Q(J(E_b) + sE_b)Q = U + Uᵀ,
    U = Σ_t X_t E_b Y_t with (X_t, Y_t) = (Q(M + s/2·I), Q) and (QV_h, B_hSQ): so U is
    Σ_t X_t[:, i]Y_t[j, :] (+ the same with i, j exchanged), one small product per column.
    """
    d = S.nrows()
    pairs = _svec_pairs(d)
    with flint.ctx.workprec(PREC):
        delta = [_power_of_two_near(float(Q[k, k]) ** -0.5) for k in range(d)]
        Qa = flint.arb_mat(Q)
        Ma = flint.arb_mat(velocity_matrix(p, S)) + flint.arb(flint.fmpq(s)) / 2
        Sa = flint.arb_mat(S)
        Xs = [Qa * Ma] + [Qa * flint.arb_mat(V) for V, _ in p.heads]
        Ys = [Qa] + [flint.arb_mat(B) * Sa * Qa for _, B in p.heads]
        # cols[i]: d×T, column t = δ_i·Δ X_t[:, i]; rows[j]: T×d, row t = δ_j·Y_t[j, :]Δ
        cols = [flint.arb_mat([[X[k, i] * delta[k] * delta[i] for X in Xs] for k in range(d)])
                for i in range(d)]
        rows = [flint.arb_mat([[Y[j, l] * delta[l] * delta[j] for l in range(d)] for Y in Ys])
                for j in range(d)]
        where = [k * d + l for k, l in pairs]
        K = []                                   # K[b]: column b of DKD
        for i, j in pairs:
            U = cols[i] * rows[j]
            if i != j:
                U += cols[j] * rows[i]
            Z = (U + U.transpose()).entries()    # tr(E_a Z) = 2Z_kl (k < l), Z_kk
            K.append([Z[t] * 2 if t % (d + 1) else Z[t] for t in where])
        K = flint.arb_mat(K)                     # rows b: the transpose of DKD
        return -(K + K.transpose())


def _cholesky_rows(M: list, shift: float):
    """Rows of a float lower-triangular L with LLᵀ ≈ M − shift·I, or None (a float guess)."""
    mul, L = operator.mul, []
    for i, Mi in enumerate(M):
        Li = []
        for j in range(i):
            Lj = L[j]
            Li.append((Mi[j] - sum(map(mul, Li, Lj))) / Lj[j])
        piv = Mi[i] - shift - sum(map(mul, Li, Li))
        if not 0 < piv < math.inf:
            return None
        Li.append(math.sqrt(piv))
        L.append(Li)
    return L


def require_positive_definite_balls(M: flint.arb_mat, what: str) -> None:
    """:class:`NotProved` unless every matrix in the symmetric ball matrix M is positive
    definite: with a float Cholesky factor L of mid(M) − σI (σ = 2^-30), E = M − σI − LLᵀ in
    ball arithmetic and ‖E‖_F < σ give xᵀMx = ‖Lᵀx‖² + xᵀ(σI + E)x > 0 for x ≠ 0."""
    n = M.nrows()
    with flint.ctx.workprec(PREC):
        mid = [float(x.mid()) for x in M.entries()]
        shift = 2.0 ** -SHIFT_BITS
        L = _cholesky_rows([mid[a * n:(a + 1) * n] for a in range(n)], shift)
        if L is None:
            raise NotProved(f"{what}: no Cholesky factor (it is not positive definite with "
                            "the margin this check needs; claim a smaller rate)")
        La = flint.arb_mat([row + [0.0] * (n - len(row)) for row in L])
        E = M - La * La.transpose() - flint.arb(shift)
        if not sum((e * e for e in E.entries()), flint.arb(0)) < flint.arb(shift) ** 2:
            raise NotProved(f"{what}: the Cholesky residual is not below the shift (ill-"
                            "conditioned, or over the precision of this check)")


def require_dissipative(p, S, Q, s, what) -> None:
    """J at S is s-dissipative in the Q-norm (see the module docstring), or NotProved."""
    M = dissipation_matrix(p, S, Q, s)
    require_positive_definite_balls(M, f"−(PL + LᵀP) − 2·{short_text(s)}·P at {what} "
                                       "(P = Q⊗Q, L the linearisation)")


# --- the enclosure --------------------------------------------------------------------------
def sqrt_upper(x: flint.fmpq) -> flint.fmpq:
    """A rational ≥ √x (x = p/q ≥ 0), within 2^-64/q of it: (⌊√(pq·4⁶⁴)⌋ + 1)/(q·2⁶⁴)."""
    if x == 0:
        return flint.fmpq(0)
    return flint.fmpq(math.isqrt(int(x.p) * int(x.q) << 128) + 1, int(x.q) << 64)


def _head_factor(p, Q, bounds) -> flint.fmpq:
    """q = Σ_h v_hβ_h after proving ‖Q^½V_hQ^-½‖ < v_h and ‖Q^-½B_hQ^-½‖ < β_h."""
    if len(bounds) != 2 * len(p.heads):
        raise Invalid(f"witness.head_bounds: expected {2 * len(p.heads)} numbers (v_h, β_h "
                      "for each head)")
    d, q = Q.nrows(), flint.fmpq(0)
    for h, (V, B) in enumerate(p.heads):
        v, beta = bounds[2 * h], bounds[2 * h + 1]
        if v <= 0 or beta <= 0:
            raise Invalid("witness.head_bounds: every bound must be positive")
        require_pd(Q * v * v - V.transpose() * Q * V, f"head {h}: v²Q − VᵀQV")
        block = flint.fmpq_mat(2 * d, 2 * d)
        for i in range(d):
            for j in range(d):
                block[i, j], block[d + i, d + j] = Q[i, j] * beta * beta, Q[i, j]
                block[i, d + j], block[d + i, j] = B[j, i], B[i, j]
        require_pd(block, f"head {h}: [[β²Q, Bᵀ], [B, Q]]")
        q += v * beta
    return q


def check_enclosed(p, claim, w) -> None:
    C, r, rate, Q = claim["cov_center"], claim["cov_radius"], claim["rate"], w["Q"]
    lo, hi = w["Q_range"]
    if lo <= 0:
        raise Invalid("witness.Q_range: the lower bound must be positive")
    d = C.nrows()
    require_pd(Q - eye(d) * lo, "Q − lo·I")
    require_pd(eye(d) * hi - Q, "hi·I − Q")
    q = _head_factor(p, Q, w["head_bounds"])
    rho = lo * r                                    # Q-ball inside the Frobenius ball
    s = rate + 4 * q * rho
    X = Q * residual(p, C)                          # tr(QFQF) = Σ X_ij X_ji ≥ 0
    f = sqrt_upper(sum((X[i, j] * X[j, i] for i in range(d) for j in range(d)), flint.fmpq(0)))
    if not (f + 2 * q * rho * rho <= s * rho and 4 * q * hi * r < s):
        raise NotProved(f"the enclosure bounds fail: ‖F(C)‖_Q ≤ {brief(f)}, q = {brief(q)}, "
                        f"ρ = lo·r = {brief(rho)}, s = {brief(s)} (need f + 2qρ² ≤ sρ and "
                        "4q·hi·r < s)")
    require_pd(C - eye(d) * r, "cov_center − r·I")
    require_dissipative(p, C, Q, s, "cov_center")


def check(kind, claim, w, problem, ctx) -> None:
    """Raise Invalid / Refuted / NotProved, or return: the claim is proved."""
    p = problem.params
    if p is None:
        raise Invalid(f"{kind} claims need time-invariant parameters (no 'controls')")
    if kind == "stable-equilibrium-structured-enclosed":
        check_enclosed(p, claim, w)
        return
    S = claim["cov"]
    require_equilibrium(p, S)
    require_pd(w["Q"], "witness.Q")
    require_dissipative(p, S, w["Q"], claim["rate"], "Σ*")
