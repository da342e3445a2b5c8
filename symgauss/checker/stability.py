"""Trusted checks of equilibrium / stability claims (exact rationals only).

Kinds (claim / witness, all numbers exact rational strings; svec = entries i ≤ j, row-major):

- ``stable-equilibrium``: claim ``cov`` (Σ*, exact) or ``cov_center`` + ``cov_radius`` (a unique
  equilibrium within max-entry distance r, level rigorous), ``rate`` ρ > 0: every eigenvalue of the
  linearisation on Sym(d) has Re ≤ −ρ. Optional ``mean`` + ``mean_rate`` (coupled mean fixed point)
  and ``global_rate`` (V_h = v_h I, R ≺ 0: every Σ0 ≻ 0 converges; ‖Σ⁻¹ − Σ*⁻¹‖ = O(e^{−2ρ t})).
  Witness ``P`` (svec Lyapunov, −(LᵀP+PL) − 2ρP ≻ 0) or ``Q`` (V_h = v_h I: N = A + Σ*R,
  −(NᵀQ+QN) − ρQ ≻ 0), ``Y`` (approximate inverse Jacobian, enclosures), ``P_mean``, ``Z``.
- ``unstable-equilibrium``: claim ``cov`` (exact, ≻ 0) and ``growth`` ε > 0: the linearisation has
  an eigenvalue with Re ≥ ε. Witness ``hurwitz_index`` k: the k-th Hurwitz determinant of
  charpoly(L − εI) is ≤ 0, so that polynomial is not Hurwitz (Routh–Hurwitz criterion).
- ``common-lyapunov``: claim ``matrices`` L_1..L_k and ``rate`` ρ: every matrix in their convex hull
  (and every switching between them) has decay rate ≥ ρ. Witness ``P``.
"""
from __future__ import annotations

import flint

from .common import Invalid, Verdict, ldl_positive_definite, matrix, rational, vector

Q0 = flint.fmpq(0)
CLAIM_KEYS = {"cov", "cov_center", "cov_radius", "rate", "mean", "mean_rate", "global_rate",
              "growth", "matrices"}
WITNESS_KEYS = {"P", "Q", "Y", "P_mean", "Z", "hurwitz_index"}


def _eye(n):
    return flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])


def _pairs(d):
    return [(i, j) for i in range(d) for j in range(i, d)]


def _svec(M, d):
    return flint.fmpq_mat(d * (d + 1) // 2, 1, [M[i, j] for i, j in _pairs(d)])


def _unit(d, i, j):
    E = flint.fmpq_mat(d, d)
    E[i, j] = E[j, i] = 1
    return E


def residual(p, S):
    """F(Σ) = MΣ + ΣMᵀ with M = A + Σ_h V_hΣB_h (eq. 1.1)."""
    M = p.A
    for V, B in p.heads:
        M = M + V * S * B
    return M * S + S * M.transpose()


def linearisation(p, S, with_A=True):
    """Matrix of Δ ↦ DF(Σ)[Δ] in svec coordinates (without A: the part linear in Σ)."""
    d = S.nrows()
    M = p.A if with_A else flint.fmpq_mat(d, d)
    for V, B in p.heads:
        M = M + V * S * B
    cols = []
    for i, j in _pairs(d):
        E = _unit(d, i, j)
        W = flint.fmpq_mat(d, d)
        for V, B in p.heads:
            W = W + V * E * B
        X = M * E + W * S
        cols.append(_svec(X + X.transpose(), d))
    n = len(cols)
    return flint.fmpq_mat(n, n, [cols[k][r, 0] for r in range(n) for k in range(n)])


def hurwitz_det(L, k):
    """k-th Hurwitz determinant of charpoly(L) (monic: all positive ⇔ L Hurwitz)."""
    a, n = L.charpoly().coeffs()[::-1], L.nrows()  # a[0] = 1
    return flint.fmpq_mat(k, k, [a[2 * j - i] if 0 <= 2 * j - i <= n else 0
                                 for i in range(1, k + 1) for j in range(1, k + 1)]).det()


def _pd(M, what):
    if M.transpose() != M:
        raise Invalid(f"{what} is not symmetric")
    ok, piv = ldl_positive_definite(M)
    if not ok:
        raise _Refuted(f"{what} is not positive definite (LDLᵀ pivot {len(piv)} = {piv[-1]})")


def _decay(L, P, rate, what):
    """P ≻ 0 and −(LᵀP + PL) − rate·P ≻ 0, decided exactly."""
    _pd(P, f"{what}: P")
    _pd(-(L.transpose() * P + P * L) - P * rate, f"{what}: −(LᵀP + PL) − {rate}·P")


class _Refuted(Exception):
    pass


def _abs(M):
    return flint.fmpq_mat(M.nrows(), M.ncols(), [abs(x) for x in M.entries()])


def _norm_inf(M):
    return max((sum((abs(M[i, j]) for j in range(M.ncols())), Q0) for i in range(M.nrows())),
               default=Q0)


def _positive(claim, key):
    x = rational(claim.get(key), f"claim.{key}")
    if x <= 0:
        raise Invalid(f"claim.{key} must be positive")
    return x


def _R(p):
    """R with Σ_h(V_hΣB_hΣ + ΣB_hᵀΣV_hᵀ) = ΣRΣ, when every V_h = v_h I; else None."""
    R = flint.fmpq_mat(p.A.nrows(), p.A.nrows())
    for V, B in p.heads:
        if V != _eye(V.nrows()) * V[0, 0]:
            return None
        R = R + (B + B.transpose()) * V[0, 0]
    return R


def _enclosure(p, claim, w, d, n):
    """Unique zero of F within max-distance r of the centre (exact radii-polynomial bounds)."""
    C = matrix(claim["cov_center"], "claim.cov_center", d, d)
    r = _positive(claim, "cov_radius")
    if C.transpose() != C:
        raise Invalid("claim.cov_center is not symmetric")
    Y = matrix(w.get("Y"), "witness.Y", n, n)
    one = flint.fmpq_mat(d, d, [1] * (d * d))
    Qb = flint.fmpq_mat(d, d)
    for V, B in p.heads:
        Qb = Qb + _abs(V) * one * _abs(B) * one + one * _abs(B).transpose() * one * _abs(V).transpose()
    q = max(Qb[i, j] for i, j in _pairs(d))
    J = linearisation(p, C)
    z0, z1, z2 = _norm_inf(Y * _svec(residual(p, C), d)), _norm_inf(_eye(n) - Y * J), _norm_inf(Y) * q
    if not (z0 + z1 * r + z2 * r * r <= r and z1 + 2 * z2 * r < 1):
        raise _Refuted(f"the Newton–Kantorovich bounds fail: Z0 = {float(z0):.3g}, "
                       f"Z1 = {float(z1):.3g}, Z2 = {float(z2):.3g}, r = {float(r):.3g}")
    _pd(C - _eye(d) * (d * r), "cov_center − d·r·I")
    return C, J, 2 * q * r  # bound on every entry of L(Σ*) − L(C)


def check(cert, problem) -> Verdict:
    kind = cert["kind"]
    try:
        claim, w = cert["claim"], cert["witness"]
        if not isinstance(claim, dict) or not isinstance(w, dict):
            raise Invalid("claim and witness must be JSON objects")
        for key in set(claim) - CLAIM_KEYS | set(w) - WITNESS_KEYS:
            raise Invalid(f"unknown claim or witness key {key!r}")
        if kind == "common-lyapunov":
            Ls = claim.get("matrices")
            if not isinstance(Ls, list) or not Ls or not isinstance(Ls[0], list):
                raise Invalid("claim.matrices: expected a non-empty list of square matrices")
            m = len(Ls[0])
            rate, P = _positive(claim, "rate"), matrix(w.get("P"), "witness.P", m, m)
            for k, L in enumerate(Ls):
                _decay(matrix(L, f"claim.matrices[{k}]", m, m), P, 2 * rate, f"matrix {k}")
            return Verdict("verified", f"common Lyapunov function: {len(Ls)} matrices of size {m}, "
                           f"decay rate ≥ {rate} on their convex hull", kind)
        p = problem.params
        if p is None:
            raise Invalid("stability claims need time-invariant parameters (no 'controls')")
        d = problem.d
        n = d * (d + 1) // 2
        if "cov" in claim:
            S = matrix(claim["cov"], "claim.cov", d, d)
            if S.transpose() != S:
                raise Invalid("claim.cov is not symmetric")
            F = residual(p, S)
            if any(x != 0 for x in F.entries()):
                raise _Refuted("claim.cov is not an equilibrium: the residual AΣ + ΣAᵀ + "
                               "VΣBΣ + ΣBᵀΣVᵀ is not exactly 0")
            _pd(S, "claim.cov")
            where, slack = "Σ*", Q0
        elif "cov_center" in claim and kind == "stable-equilibrium":
            S, L, e = _enclosure(p, claim, w, d, n)
            slack = 2 * _norm_inf(matrix(w.get("P"), "witness.P", n, n)) * n * e
            where = f"the equilibrium within {claim['cov_radius']} of the centre"
        else:
            raise Invalid("claim: give 'cov' (exact) or 'cov_center' and 'cov_radius'")
        if kind == "unstable-equilibrium":
            eps = _positive(claim, "growth")
            k = w.get("hurwitz_index")
            k = str(k) if isinstance(k, int) and not isinstance(k, bool) else k
            if not isinstance(k, str) or not k.isdigit() or not 1 <= int(k) <= n:
                raise Invalid(f"witness.hurwitz_index: an integer in 1..{n}")
            k = int(k)
            H = hurwitz_det(linearisation(p, S) - _eye(n) * eps, k)
            if H > 0:
                raise _Refuted(f"Hurwitz determinant {k} of charpoly(L − {eps}·I) is positive")
            return Verdict("verified", f"Σ* is an equilibrium (residual exactly 0) and unstable: "
                           f"the linearisation has an eigenvalue with real part ≥ {eps} "
                           f"(Hurwitz determinant {k} ≤ 0)", kind)
        if kind != "stable-equilibrium":
            raise Invalid(f"kind {kind!r} is not checked here")
        rate, R = _positive(claim, "rate"), _R(p)
        if "Q" in w and R is not None and slack == 0:
            _decay(p.A + S * R, matrix(w["Q"], "witness.Q", d, d), rate, "N = A + Σ*R")
            how = "d×d Lyapunov (V = vI)"
        else:
            L = linearisation(p, S) if slack == 0 else L
            P = matrix(w.get("P"), "witness.P", n, n)
            _decay(L, P, 2 * rate, "svec linearisation")
            if slack:
                _pd(-(L.transpose() * P + P * L) - P * (2 * rate) - _eye(n) * slack,
                    "Lyapunov matrix with the enclosure margin")
            how = f"svec Lyapunov ({n}×{n})"
        out = [f"{where} is a positive-definite equilibrium, locally exponentially stable with "
               f"rate ≥ {rate} [{how}]"]
        if "mean" in claim or "mean_rate" in claim:
            if slack:
                raise Invalid("claim.mean needs an exact 'cov'")
            m, mr = vector(claim.get("mean"), "claim.mean", d), _positive(claim, "mean_rate")
            Mm = p.A
            for V, B in p.heads:
                Mm = Mm + V + V * S * B
            if any(x != 0 for x in (Mm * m + p.b).entries()):
                raise _Refuted("claim.mean is not the mean's fixed point (M m* + b ≠ 0)")
            _decay(Mm, matrix(w.get("P_mean"), "witness.P_mean", d, d), 2 * mr, "mean matrix")
            out.append(f"mean → m* with rate ≥ {mr}")
        if "global_rate" in claim:
            g = _positive(claim, "global_rate")
            if R is None or slack:
                raise Invalid("claim.global_rate needs V_h = v_h I and an exact 'cov'")
            _pd(-R, "−R")
            _decay(-p.A.transpose(), matrix(w.get("Z"), "witness.Z", d, d), 2 * g, "−Aᵀ")
            out.append(f"global: every Σ0 ≻ 0 converges, Σ⁻¹ − Σ*⁻¹ = O(e^(−{2 * g}·t))")
        return Verdict("verified", "; ".join(out), kind)
    except _Refuted as exc:
        return Verdict("refuted", str(exc), kind)
