"""Trusted checks of equilibrium / stability claims (exact rationals; svec = entries i ≤ j).

- ``stable-equilibrium``: claim ``cov`` (exact Σ*) or ``cov_center`` + ``cov_radius`` r (a unique
  equilibrium within max-entry distance r: exact Newton–Kantorovich bounds with witness ``Y``),
  ``rate`` ρ: the linearisation L on Sym(d) has spectrum in Re ≤ −ρ. Witness ``P``
  (−(LᵀP+PL) − 2ρP ≻ 0) or, when every V_h = v_h I, ``Q`` (N = A + Σ*R, −(NᵀQ+QN) − ρQ ≻ 0).
  Optional ``mean`` + ``mean_rate`` (witness ``P_mean``: the mean block of the coupled,
  block-triangular linearisation) and ``global_rate`` g (V_h = v_h I, R ≺ 0, witness ``Z`` with
  AZ + ZAᵀ − 2gZ ≻ 0: every Σ0 ≻ 0 converges, Σ⁻¹ − Σ*⁻¹ = O(e^{−2gt})).
- ``unstable-equilibrium``: claim ``cov`` (exact, ≻ 0), ``growth`` ε: L has an eigenvalue with
  Re ≥ ε, witness ``hurwitz_index`` k: Hurwitz determinant k of charpoly(L − εI) is ≤ 0.
- ``common-lyapunov``: claim ``matrices``, ``rate`` ρ; witness ``P``: decay rate ≥ ρ on the convex
  hull of the matrices (and under switching).
- ``robust-global``: claim ``box`` (entries ``["A", i, j]`` of the stored A, each in
  [``from``, ``to``]) and ``global_rate`` g; witness ``Z``. With every V_h = v_h I and R ≺ 0,
  AZ + ZAᵀ − 2gZ ≻ 0 at every vertex of the box — an LMI affine in A, so it holds on the whole
  box: for every such A, every Σ0 ≻ 0 converges to the unique Σ*(A) ≻ 0.
"""
from __future__ import annotations

import flint

from symgauss.kernel.equations import (
    hurwitz_det,
    linearisation,
    residual,
    riccati_R,
    svec,
    velocity_matrix,
)
from symgauss.kernel.exact import eye, norm_inf, require_decay, require_pd
from symgauss.kernel.read import matrix, rational, vector
from symgauss.kernel.verdict import Invalid, Refuted, Verdict

CLAIM_KEYS = {"cov", "cov_center", "cov_radius", "rate", "mean", "mean_rate", "global_rate",
              "growth", "matrices", "box", "statement"}
MAX_BOX = 10  # box entries (2^10 vertices)
WITNESS_KEYS = {"P", "Q", "Y", "P_mean", "Z", "hurwitz_index"}


def _positive(claim, key):
    x = rational(claim.get(key), f"claim.{key}")
    if x <= 0:
        raise Invalid(f"claim.{key} must be positive")
    return x


def enclosure(p, claim, w, d, n):
    """Unique zero of F within max-distance r of C: T(e) = e − Y F(C + e) maps the ball into
    itself (Z0 + Z1 r + Z2 r² ≤ r) and contracts (Z1 + 2 Z2 r < 1)."""
    C, r = matrix(claim.get("cov_center"), "claim.cov_center", d, d), _positive(claim, "cov_radius")
    if C.transpose() != C:
        raise Invalid("claim.cov_center is not symmetric")
    Y = matrix(w.get("Y"), "witness.Y", n, n)
    one, Qb = flint.fmpq_mat(d, d, [1] * (d * d)), flint.fmpq_mat(d, d)
    for V, B in p.heads:  # |quadratic part (V E B E + E Bᵀ E Vᵀ)_ij| ≤ Qb_ij max|E|²
        aV, aB = (flint.fmpq_mat(d, d, [abs(x) for x in X.entries()]) for X in (V, B))
        Qb = Qb + aV * one * aB * one + one * aB.transpose() * one * aV.transpose()
    q, J = max(svec(Qb)), linearisation(p, C)
    z0 = norm_inf(Y * flint.fmpq_mat(n, 1, svec(residual(p, C))))
    z1, z2 = norm_inf(eye(n) - Y * J), norm_inf(Y) * q
    if not (z0 + z1 * r + z2 * r * r <= r and z1 + 2 * z2 * r < 1):
        raise Refuted(f"the Newton–Kantorovich bounds fail: Z0 = {float(z0):.3g}, "
                       f"Z1 = {float(z1):.3g}, Z2 = {float(z2):.3g}, r = {float(r):.3g}")
    require_pd(C - eye(d) * (d * r), "cov_center − d·r·I")
    return C, J, 2 * q * r  # every entry of L(Σ*) − L(C) is at most 2qr


def _box_vertices(box, A, d):
    """Every vertex of the box of A-entries (the other entries as in the stored A)."""
    if not isinstance(box, list) or not 1 <= len(box) <= MAX_BOX:
        raise Invalid(f"claim.box: a list of 1..{MAX_BOX} entries")
    seen, sides = set(), []
    for k, e in enumerate(box):
        ent = e.get("entry") if isinstance(e, dict) and set(e) == {"entry", "from", "to"} else None
        if not (isinstance(ent, list) and len(ent) == 3 and ent[0] == "A"
                and all(str(x) in map(str, range(d)) for x in ent[1:])):
            raise Invalid(f"claim.box[{k}]: expected {{'entry': ['A', i, j], 'from', 'to'}}")
        i, j = int(str(ent[1])), int(str(ent[2]))
        lo, hi = rational(e["from"], f"claim.box[{k}].from"), rational(e["to"], f"claim.box[{k}].to")
        if (i, j) in seen or not lo <= A[i, j] <= hi:
            raise Invalid(f"claim.box[{k}]: a repeated entry, or an interval that does not "
                          "contain the stored problem's value")
        seen.add((i, j))
        sides.append((i, j, lo, hi))
    for mask in range(2 ** len(sides)):
        V = A * 1
        for bit, (i, j, lo, hi) in enumerate(sides):
            V[i, j] = hi if mask >> bit & 1 else lo
        yield V


def _robust_global(claim, w, p, d, kind) -> Verdict:
    g, R = _positive(claim, "global_rate"), riccati_R(p)
    if R is None:
        raise Invalid("robust-global needs V_h = v_h I for every head")
    require_pd(-R, "−R")
    Z = matrix(w.get("Z"), "witness.Z", d, d)
    n = 0
    for n, Av in enumerate(_box_vertices(claim.get("box"), p.A, d), 1):
        require_decay(-Av.transpose(), Z, 2 * g, f"vertex {n}: −Aᵀ")
    return Verdict("verified", f"for every A in the box ({n} vertices checked exactly; the LMI "
                   f"AZ + ZAᵀ − 2gZ ≻ 0 is affine in A) and R ≺ 0: every Σ0 ≻ 0 converges to "
                   f"the unique Σ*(A) ≻ 0, Σ⁻¹ − Σ*⁻¹ = O(e^(−{2 * g}·t))", kind)


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
            m, rate = len(Ls[0]), _positive(claim, "rate")
            for k, L in enumerate(Ls):
                require_decay(matrix(L, f"claim.matrices[{k}]", m, m),
                       matrix(w.get("P"), "witness.P", m, m), 2 * rate, f"matrix {k}")
            return Verdict("verified", f"common Lyapunov function: {len(Ls)} matrices of size "
                           f"{m}, decay rate ≥ {rate} on their convex hull", kind)
        p, d = problem.params, problem.d
        if p is None:
            raise Invalid("stability claims need time-invariant parameters (no 'controls')")
        if kind == "robust-global":
            return _robust_global(claim, w, p, d, kind)
        n, exact = d * (d + 1) // 2, "cov" in claim
        if exact:
            S = matrix(claim["cov"], "claim.cov", d, d)
            if S.transpose() != S:
                raise Invalid("claim.cov is not symmetric")
            if any(x != 0 for x in residual(p, S).entries()):
                raise Refuted("claim.cov is not an equilibrium: the residual AΣ + ΣAᵀ + "
                               "VΣBΣ + ΣBᵀΣVᵀ is not exactly 0")
            require_pd(S, "claim.cov")
            where, L, slack = "Σ*", linearisation(p, S), 0
        elif kind == "stable-equilibrium":
            S, L, e = enclosure(p, claim, w, d, n)
            slack = 2 * norm_inf(matrix(w.get("P"), "witness.P", n, n)) * n * e
            where = f"the equilibrium within {claim['cov_radius']} (max entry) of cov_center"
        else:
            raise Invalid("claim.cov is missing")
        if kind == "unstable-equilibrium":
            eps, k = _positive(claim, "growth"), w.get("hurwitz_index")
            k = str(k) if isinstance(k, int) and not isinstance(k, bool) else k
            if not isinstance(k, str) or not k.isdigit() or not 1 <= int(k) <= n:
                raise Invalid(f"witness.hurwitz_index: an integer in 1..{n}")
            if hurwitz_det(L - eye(n) * eps, int(k)) > 0:
                raise Refuted(f"Hurwitz determinant {k} of charpoly(L − {eps}·I) is positive")
            return Verdict("verified", f"Σ* is an equilibrium (residual exactly 0) and unstable: "
                           f"the linearisation has an eigenvalue with real part ≥ {eps} "
                           f"(Hurwitz determinant {k} ≤ 0)", kind)
        if kind != "stable-equilibrium":
            raise Invalid(f"kind {kind!r} is not checked here")
        rate, R = _positive(claim, "rate"), riccati_R(p)
        if "Q" in w and R is not None and exact:
            require_decay(p.A + S * R, matrix(w["Q"], "witness.Q", d, d), rate, "N = A + Σ*R")
            how = "d×d Lyapunov (V = vI)"
        else:
            require_decay(L, matrix(w.get("P"), "witness.P", n, n), 2 * rate, "L", slack)
            how = f"svec Lyapunov ({n}×{n})"
        out = [f"{where} is a positive-definite equilibrium, locally exponentially stable with "
               f"rate ≥ {rate} [{how}]"]
        if "mean" in claim or "mean_rate" in claim:
            if not exact:
                raise Invalid("claim.mean needs an exact 'cov'")
            m, mr, Mm = vector(claim.get("mean"), "claim.mean", d), _positive(claim, "mean_rate"), \
                velocity_matrix(p, S, extra=True)
            if any(x != 0 for x in (Mm * m + p.b).entries()):
                raise Refuted("claim.mean is not the mean's fixed point (M m* + b ≠ 0)")
            require_decay(Mm, matrix(w.get("P_mean"), "witness.P_mean", d, d), 2 * mr, "mean matrix")
            out.append(f"mean block rate ≥ {mr}, fixed point m* (coupled system stable)")
        if "global_rate" in claim:
            g = _positive(claim, "global_rate")
            if R is None or not exact:
                raise Invalid("claim.global_rate needs V_h = v_h I and an exact 'cov'")
            require_pd(-R, "−R")
            require_decay(-p.A.transpose(), matrix(w.get("Z"), "witness.Z", d, d), 2 * g, "−Aᵀ")
            out.append(f"global: every Σ0 ≻ 0 converges, Σ⁻¹ − Σ*⁻¹ = O(e^(−{2 * g}·t))")
        return Verdict("verified", "; ".join(out), kind)
    except Refuted as exc:
        return Verdict("refuted", str(exc), kind)
