"""Checker for kind ``"blowup"``: finite-time blow-up of the covariance, V_h = v_h I.

Trusted kernel: standard library, python-flint (arb / arb_mat / fmpq_mat) and
:mod:`symgauss.kernel.read` only. Everything is recomputed from the stored problem.

The mathematics (notes §4). With every V_h = v_h I, Σ' = AΣ + ΣAᵀ + ΣRΣ with
R = Σ_h v_h (B_h + B_hᵀ). Write Σ0 = L D Lᵀ (exact LDLᵀ without pivoting, D ≥ 0 diagonal)
and keep the r columns with D_ii > 0: Σ0 = L_r D_r L_rᵀ. Then, as long as

    M(t) = D_r⁻¹ − L_rᵀ G(t) L_r,     G(t) = ∫_0^t e^{Aᵀs} R e^{As} ds,

is positive definite, Σ(t) = e^{At} L_r M(t)⁻¹ L_rᵀ e^{Aᵀt} (differentiate: M' = −L_rᵀe^{Aᵀt}Re^{At}L_r
gives exactly the Riccati equation), and at the first t where M(t) becomes singular the
largest eigenvalue of M(t)⁻¹ tends to +∞ while e^{At}L_r keeps full column rank: ‖Σ‖ → ∞.
For Σ0 ≻ 0, M is congruent to P0 − G(t) with P0 = Σ0⁻¹, so "M loses definiteness" is
"det(P0 − G(t)) reaches 0". G comes from one block exponential (Van Loan):

    exp(t [[−Aᵀ, R], [0, A]]) = [[e^{−Aᵀt}, e^{−Aᵀt} G(t)], [0, e^{At}]].

Claim checked: the maximal existence time T* lies in (t_lower, t_upper], i.e.
(1) M(t) ≻ 0 for every t in [0, t_lower] — when R ⪰ 0 (decided exactly) G is increasing in the
Loewner order, so M(t_lower) ≻ 0 suffices; otherwise on every sub-interval [a, b] of the witness
partition: with c ≥ 0 the Gershgorin shift (R + cI is diagonally dominant with a nonnegative
diagonal, so R + cI ⪰ 0), G = G₊ − G₋, G₊(t) = ∫_0^t e^{Aᵀs}(R + cI)e^{As} ds and
G₋(t) = c·G_I(t), G_I(t) = ∫_0^t e^{Aᵀs}e^{As} ds, are both Loewner-increasing, so on [a, b]
M(t) ⪰ D_r⁻¹ − L_rᵀ(G_R(b) + c·(G_I(b) − G_I(a)))L_r, which must be ≻ 0 — only point values,
no ball in t. This bound loses (b − a)·c·‖e^{At}L_r‖² on [a, b]; near T*, where M(t) is nearly
singular, it needs thousands of sub-intervals. So each sub-interval is first tried with the
end-point bound: with W = e^{Ab}L_r, σ = b − t ∈ [0, h], h = b − a, exactly
M(t) = M(b) + Wᵀ K(σ) W, K(σ) = ∫_{−σ}^0 e^{Aᵀs}Re^{As} ds ⪰ σR − (κ₀σ²/2)·I with
κ₀ = ‖AᵀR + RA‖_F·e^{2‖A‖_F·h} (the derivative of e^{Aᵀs}Re^{As} is e^{Aᵀs}(AᵀR + RA)e^{As}), so
M(t) ⪰ Φ(σ) = M(b) + σ·WᵀRW − (κ₀σ²/2)·WᵀW, whose least eigenvalue is concave in σ (WᵀW ⪰ 0):
Φ(0) = M(b) ≻ 0 and Φ(h) ≻ 0 give M ≻ 0 on all of [a, b]. The remainder is weighted by WᵀW, not
by ‖W‖²·I: where e^{At} stretches one direction by e^{50} and M(t) is nearly singular along
another (a late T*), the remainder along the near-null direction stays as small as W makes it,
and a piece may be as long as the slope there allows. Then the second-order bound: with
m = (a + b)/2, h = (b − a)/2, M(t) = M(m) + (t − m)M'(m) +
∫_m^t (t − s)M''(s) ds, M' = −L_rᵀe^{Aᵀt}Re^{At}L_r, M'' = −L_rᵀe^{Aᵀt}(AᵀR + RA)e^{At}L_r, and
‖M''(s)‖₂ ≤ κ = ‖e^{Am}L_r‖_F²·e^{2‖A‖_F·h}·‖AᵀR + RA‖_F on [a, b] (e^{As} = e^{A(s−m)}e^{Am}),
so M(t) ⪰ N(t) = M(m) + (t − m)M'(m) − (κh²/2)·I, affine in t: N(m ± h) ≻ 0 gives N ≻ 0, hence
M ≻ 0, on all of [a, b]. Then (2) xᵀ M(t_upper) x < 0 for the witness vector x (r rationals), so
M(t_upper) is not positive definite.
Positive definiteness of a ball matrix is proved by LDLᵀ in arb with every pivot certainly > 0.

Certificate ``claim``: {"statement", "t_lower", "t_upper", optional "t_star" (a point of the
enclosure, checked to lie in it)}; ``witness``: {"method": "riccati-van-loan", "x": [r
rationals], optional "partition": [rationals from 0 to t_lower] (needed when R is not PSD),
"prec": bits}. Limits: d ≤ MAX_D, prec ≤ MAX_PREC bits, sub-intervals × ⌈prec/512⌉² ≤
MAX_PARTITION. A certificate without a partition that fails at ``prec`` is tried once more at
2·prec.
"""
from __future__ import annotations

import flint

from symgauss.kernel.equations import riccati_R
from symgauss.kernel.exact import eye, is_psd, norm_inf
from symgauss.kernel.flow import frobenius_upper
from symgauss.kernel.read import short_text
from symgauss.kernel.schema import Field, Schema, choice, decimal, integer, positive, rationals, raw
from symgauss.kernel.verdict import Invalid, NotProved, Refuted

MAX_D, MAX_PARTITION = 8, 256
#: t·(‖A‖_∞ + ‖R‖_∞) at most this for every t whose block exponential is taken (arb squares
#: about log₂ of it times: t_lower = 10²⁰⁰⁰/7 at d = 8 took 66 s before this limit)
MAX_SPAN = 2 ** 20
MIN_PREC, MAX_PREC = 64, 4096
SCHEMAS = {"blowup": Schema(
    {"t_lower": Field(positive), "t_upper": Field(positive), "t_star": Field(decimal, False)},
    {"method": Field(choice("riccati-van-loan")), "x": Field(raw),
     "partition": Field(rationals(2, MAX_PARTITION + 1), False),
     "prec": Field(integer(MIN_PREC, MAX_PREC))},
    "rigorous", {"d": MAX_D})}


# --- exact preliminaries ----------------------------------------------------------------------
def ldl_psd(S):
    """Exact LDLᵀ (no pivoting) of a PSD rational matrix: (L_r d×r, D_r⁻¹ r×r diagonal).

    Returns None if S is not PSD (a negative pivot, or a zero pivot with a non-zero row).
    """
    n = S.nrows()
    M = [[S[i, j] for j in range(n)] for i in range(n)]
    L = [[flint.fmpq(int(i == j)) for j in range(n)] for i in range(n)]
    keep = []
    for k in range(n):
        p = M[k][k]
        if p < 0:
            return None
        if p == 0:
            if any(M[k][j] != 0 for j in range(k + 1, n)):
                return None
            continue
        keep.append((k, p))
        for i in range(k + 1, n):
            L[i][k] = M[i][k] / p
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                M[i][j] -= L[i][k] * M[k][j]
    r = len(keep)
    Lr = flint.fmpq_mat(n, r, [L[i][k] for i in range(n) for (k, _) in keep]) if r else None
    Dinv = flint.fmpq_mat(r, r, [(1 / p if a == b else flint.fmpq(0))
                                 for a, (_, p) in enumerate(keep)
                                 for b in range(r)]) if r else None
    return Lr, Dinv


# --- ball arithmetic ------------------------------------------------------------------------------
def van_loan(A, R, t):
    """(G(t), e^{At}) as arb_mat at the current precision; ``t`` an arb (a ball is fine)."""
    d = A.nrows()
    C = flint.arb_mat(2 * d, 2 * d)
    for i in range(d):
        for j in range(d):
            C[i, j] = -A[j, i]
            C[i, d + j] = R[i, j]
            C[d + i, d + j] = A[i, j]
    F = (C * t).exp()
    F12 = flint.arb_mat([[F[i, d + j] for j in range(d)] for i in range(d)])
    E = flint.arb_mat([[F[d + i, d + j] for j in range(d)] for i in range(d)])
    return E.transpose() * F12, E


def m_matrix(A, R, Lr, Dinv, t):
    """M(t) = D_r⁻¹ − L_rᵀ G(t) L_r (arb_mat, symmetrised)."""
    G, _ = van_loan(A, R, t)
    L = flint.arb_mat(Lr)
    M = flint.arb_mat(Dinv) - L.transpose() * G * L
    return (M + M.transpose()) / 2


def arb_positive_definite(M) -> bool:
    """True only if every symmetric matrix in the ball M is positive definite (arb LDLᵀ)."""
    n = M.nrows()
    W = [[M[i, j] for j in range(n)] for i in range(n)]
    for k in range(n):
        p = W[k][k]
        if not p > 0:
            return False
        for i in range(k + 1, n):
            f = W[i][k] / p
            for j in range(k + 1, n):
                W[i][j] = W[i][j] - f * W[k][j]
    return True


def m_lower(A, R, Lr, Dinv, c, a, b, GI_a=None, GR_b=None) -> tuple:
    """(N, G_I(b)): N = D_r⁻¹ − L_rᵀ(G_R(b) + c·(G_I(b) − G_I(a)))L_r (symmetrised) ⪯ M(t) for
    every t in [a, b] when R + cI ⪰ 0 (module docstring); ``GI_a`` = G_I(a), ``GR_b`` = G_R(b)
    if known."""
    I_d = eye(A.nrows())
    GI_a = van_loan(A, I_d, flint.arb(a))[0] if GI_a is None else GI_a
    GR = van_loan(A, R, flint.arb(b))[0] if GR_b is None else GR_b
    GI_b = van_loan(A, I_d, flint.arb(b))[0]
    L = flint.arb_mat(Lr)
    N = flint.arb_mat(Dinv) - L.transpose() * (GR + (GI_b - GI_a) * flint.arb(c)) * L
    return (N + N.transpose()) / 2, GI_b


def m_taylor(A, R, Lr, Dinv, a, b) -> list:
    """[N(b), N(a)] of the second-order bound M(t) ⪰ N(t) on [a, b] (module docstring)."""
    m, h = flint.arb((a + b) / 2), flint.arb((b - a) / 2)
    G, E = van_loan(A, R, m)
    L, Ra, Aa = flint.arb_mat(Lr), flint.arb_mat(R), flint.arb_mat(A)
    EL = E * L
    M, D1 = flint.arb_mat(Dinv) - L.transpose() * G * L, -(EL.transpose() * Ra * EL)
    fro = frobenius_upper
    kappa = fro(EL) ** 2 * (2 * fro(Aa) * h).exp() * fro(Aa.transpose() * Ra + Ra * Aa)
    out = [M + D1 * s - flint.arb_mat(eye(M.nrows())) * (kappa * h * h / 2) for s in (h, -h)]
    return [(N + N.transpose()) / 2 for N in out]


def m_endpoint(A, R, Lr, Dinv, a, b, at_b=None) -> list:
    """[Φ(0), Φ(h)] of the end-point bound M(t) ⪰ Φ(b − t) on [a, b] (module docstring);
    ``at_b`` = van_loan(A, R, b) if known."""
    h = flint.arb(b - a)
    G, E = van_loan(A, R, flint.arb(b)) if at_b is None else at_b
    L, Ra, Aa = flint.arb_mat(Lr), flint.arb_mat(R), flint.arb_mat(A)
    W = E * L
    M = flint.arb_mat(Dinv) - L.transpose() * G * L
    fro = frobenius_upper
    kappa = (2 * fro(Aa) * h).exp() * fro(Aa.transpose() * Ra + Ra * Aa)
    N = M + (W.transpose() * Ra * W) * h - (W.transpose() * W) * (kappa * h * h / 2)
    return [(X + X.transpose()) / 2 for X in (M, N)]


def proved_on(A, R, Lr, Dinv, c, a, b, GI_a=None) -> tuple:
    """(M(t) ≻ 0 proved on [a, b], G_I(b) or None): the end-point bound, else the second-order
    bound, else the Loewner bound with the shift c (``GI_a`` = G_I(a) if known)."""
    at_b = van_loan(A, R, flint.arb(b))
    if all(arb_positive_definite(N) for N in m_endpoint(A, R, Lr, Dinv, a, b, at_b)):
        return True, None
    if all(arb_positive_definite(N) for N in m_taylor(A, R, Lr, Dinv, a, b)):
        return True, None
    N, GI_b = m_lower(A, R, Lr, Dinv, c, a, b, GI_a, at_b[0])
    return arb_positive_definite(N), GI_b


def pieces_cost(prec: int) -> int:
    """What a sub-interval of the partition counts against MAX_PARTITION at ``prec`` bits: its
    block exponentials at exact points (G_R(b) for the end-point bound; when that fails, the
    second-order bound's at the midpoint; when that fails too, the Loewner bound's G_I(b), with
    G_R(b) shared and G_I(a) the previous piece's) cost about
    (bits/512)² times as much as at 512 bits (d = 8, all three: 15 ms at 512 bits, 0.4 s at
    4096 bits)."""
    return (-(-prec // 512)) ** 2


def gershgorin_shift(R) -> flint.fmpq:
    """c ≥ 0 with R + cI diagonally dominant with a nonnegative diagonal (R symmetric, exact),
    hence R + cI ⪰ 0."""
    d = R.nrows()
    return max([flint.fmpq(0)] + [sum((abs(R[i, j]) for j in range(d) if j != i), flint.fmpq(0))
                                  - R[i, i] for i in range(d)])


def quad_negative(M, x) -> bool:
    """True only if xᵀ M x < 0 certainly (x a list of fmpq)."""
    n = M.nrows()
    acc = flint.arb(0)
    for i in range(n):
        for j in range(n):
            acc += flint.arb(x[i]) * M[i, j] * flint.arb(x[j])
    return bool(acc < 0)


def verify_enclosure(A, R, Lr, Dinv, t_lower, t_upper, x, partition, prec: int):
    """(ok, reason): rigorous proof that T* ∈ (t_lower, t_upper] at ``prec`` bits."""
    monotone = is_psd(R)
    with flint.ctx.workprec(prec):
        if monotone:
            if not arb_positive_definite(m_matrix(A, R, Lr, Dinv, flint.arb(t_lower))):
                return False, (f"M(t_lower) = D⁻¹ − LᵀG(t_lower)L is not proved positive "
                               f"definite at {prec} bits")
            how = "R ⪰ 0 (exact), so G is Loewner-increasing and M(t_lower) ≻ 0 suffices"
        else:
            if not partition or partition[0] != 0 or partition[-1] != t_lower:
                return False, ("R is not PSD: the witness partition must run from 0 to "
                               "t_lower")
            if any(not a < b for a, b in zip(partition, partition[1:])):
                return False, "the witness partition is not strictly increasing"
            c, GI = gershgorin_shift(R), None
            for a, b in zip(partition, partition[1:]):
                ok, GI = proved_on(A, R, Lr, Dinv, c, a, b, GI)
                if not ok:
                    return False, (f"M(t) not proved positive definite on "
                                   f"[{float(a):.6g}, {float(b):.6g}] at {prec} bits")
            how = (f"R is indefinite: M(t) ≻ 0 proved on each of {len(partition) - 1} "
                   f"sub-intervals (end-point bound, else the second-order bound, else the "
                   f"Loewner bound with the shift c = {c})")
        if not quad_negative(m_matrix(A, R, Lr, Dinv, flint.arb(t_upper)), x):
            return False, f"xᵀ M(t_upper) x < 0 not proved at {prec} bits"
    return True, how


# --- the certificate ------------------------------------------------------------------------------
def statement(kind, claim, problem) -> str:
    out = ("Σ(t) exists on [0, t_lower] and ‖Σ(t)‖ → ∞ as t → T* for some T* ∈ (t_lower, "
           f"t_upper] = ({short_text(claim['t_lower'])}, {short_text(claim['t_upper'])}]")
    if "t_star" in claim:
        out += (f"; T* = {claim['t_star'][2]} to every digit shown (within half a unit of the "
                "last digit)")
    return out


def riccati_start(problem, what: str) -> tuple:
    """(R, ldl_psd(cov0)) when every V_h = v_h I (else NotProved: only ``what`` is checkable)
    and cov0 ⪰ 0 (else Invalid)."""
    R = riccati_R(problem.params)
    if R is None:
        raise NotProved(f"some V_h is not a multiple of I, and only {what} is checkable")
    f = ldl_psd(problem.cov0)
    if f is None:
        raise Invalid("problem.cov0 is not positive semidefinite")
    return R, f


def require_span(t, A, R, where: str, kind: str) -> None:
    """Invalid unless t·(‖A‖_∞ + ‖R‖_∞) ≤ MAX_SPAN (``where`` names t)."""
    if t * (norm_inf(A) + norm_inf(R)) > MAX_SPAN:
        raise Invalid(f"{where}·(‖A‖_∞ + ‖R‖_∞) is over the limit {MAX_SPAN} of kind {kind} "
                      "(the work of its block exponential)")


def check_claim(claim, problem) -> None:
    """The claim's own consistency (as kind ``blowup``) and constant parameters."""
    lo, hi = claim["t_lower"], claim["t_upper"]
    if not lo < hi:
        raise Invalid("claim: need 0 < t_lower < t_upper")
    if "t_star" in claim:
        t, half, _ = claim["t_star"]
        if not (t - half <= lo and hi <= t + half):
            raise Invalid("claim.t_star: (t_lower, t_upper] is not within half a unit of its "
                          "last digit, so not every digit shown would be proved")
    if problem.params is None:
        raise Invalid("blow-up certificates are for time-invariant parameters (no 'controls')")


def check(kind, claim, witness, problem, ctx) -> None:
    check_claim(claim, problem)
    lo, hi = claim["t_lower"], claim["t_upper"]
    p = problem.params
    R, f = riccati_start(problem, "the Riccati (V_h = v_h I) argument of this kind")
    require_span(hi, p.A, R, "claim.t_upper", kind)
    if f[0] is None:
        raise Refuted("Σ0 = 0, so Σ(t) = 0 for all time: no blow-up")
    Lr, Dinv = f
    xs = witness["x"]
    x = rationals(Lr.ncols(), Lr.ncols())(xs, "witness.x", ctx)
    if all(v == 0 for v in x):
        raise Invalid("witness.x is the zero vector")
    prec, partition = witness["prec"], witness.get("partition")
    if partition is not None and (len(partition) - 1) * pieces_cost(prec) > MAX_PARTITION:
        raise Invalid(f"witness.partition: {len(partition) - 1} sub-intervals at {prec} bits is "
                      f"over the limit (sub-intervals × ⌈bits/512⌉² ≤ {MAX_PARTITION})")
    ok, how = verify_enclosure(p.A, R, Lr, Dinv, lo, hi, x, partition, prec)
    if not ok and 2 * prec <= MAX_PREC and partition is None:
        ok, how = verify_enclosure(p.A, R, Lr, Dinv, lo, hi, x, None, 2 * prec)
    if not ok:
        raise NotProved(how)
