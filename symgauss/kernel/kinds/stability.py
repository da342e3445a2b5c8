"""Trusted checks of equilibrium and stability claims (exact rationals; svec = entries i ≤ j).

Kinds (each a closed schema, below):

- ``stable-equilibrium`` (exact): claim ``cov`` Σ* and ``rate`` ρ; the residual F(Σ*) is exactly
  0, Σ* ≻ 0, and the linearisation L on Sym(d) has spectrum in Re ≤ −ρ, by witness ``P``
  (−(LᵀP + PL) − 2ρP ≻ 0) or, when every V_h = v_h I, ``Q`` (N = A + Σ*R, −(NᵀQ + QN) − ρQ ≻ 0).
  Optional groups: ``mean`` + ``mean_rate`` with witness ``P_mean`` (the mean's fixed point and
  the mean block of the block-triangular coupled linearisation), and ``global_rate`` g with
  witness ``Z`` (V_h = v_h I, R ≺ 0, AZ + ZAᵀ − 2gZ ≻ 0: every Σ0 ≻ 0 converges).
- ``stable-equilibrium-enclosed`` (rigorous): claim ``cov_center`` C, ``cov_radius`` r, ``rate``:
  a unique zero of F within max-entry distance r of C (exact Newton–Kantorovich bounds with
  witness ``Y``), positive definite, and the Lyapunov witness ``P`` holds with the margin that
  covers every matrix in the ball.
- ``unstable-equilibrium`` (exact): claim ``cov`` (equilibrium, ≻ 0) and ``growth`` ε; witness
  ``P`` (n×n symmetric) with (L − εI)ᵀP + P(L − εI) ≻ 0 and P not negative definite. Then
  L − εI has an eigenvalue with positive real part (a Lyapunov/inertia argument: on an
  eigenvector with Re λ = 0 the form would vanish; were L − εI Hurwitz, V(x) = xᵀPx would
  increase along solutions that tend to 0, forcing P ≺ 0), so L has one with Re > ε.
- ``common-lyapunov`` (exact): claim ``rate`` ρ, witness ``P``: for every parameter set of the
  stored problem (its constant parameters, or each control piece), AᵀP + PA ⪯ −2ρP − margin.
- ``robust-global`` (exact): claim ``box`` (entries ``["A", i, j]`` of the stored A, each in
  [``from``, ``to``]) and ``global_rate`` g; witness ``Z``: with every V_h = v_h I and R ≺ 0,
  AZ + ZAᵀ − 2gZ ≻ 0 at every vertex of the box — an LMI affine in A, so it holds on the box.
"""
from __future__ import annotations

import flint

from symgauss.kernel.equations import linearisation, residual, riccati_R, svec, velocity_matrix
from symgauss.kernel.exact import eye, norm_inf, positive_definite, require_decay, require_pd
from symgauss.kernel.read import brief, rational, short_text
from symgauss.kernel.schema import (
    Field,
    Schema,
    integer,
    mat,
    positive,
    raw,
    read_section,
    sym,
    vec,
)
from symgauss.kernel.verdict import Invalid, NotProved, Refuted

MAX_BOX = 10          # box entries (2^10 vertices)
MAX_D_SVEC = 12       # svec witnesses: n = d(d+1)/2 ≤ 78
MAX_D_SMALL = 32      # d×d witnesses only
MAX_D_BOX = 16        # robust-global: up to 2^10 vertices, one d×d check each

STABLE_CLAIM = {"cov": Field(sym("d")), "rate": Field(positive),
                "mean": Field(vec("d"), False, "mean"), "mean_rate": Field(positive, False, "mean"),
                "global_rate": Field(positive, False)}
STABLE_WITNESS = {"P": Field(mat("n", "n"), False), "Q": Field(mat("d", "d"), False),
                  "P_mean": Field(mat("d", "d"), False), "Z": Field(mat("d", "d"), False)}
SCHEMAS = {
    "stable-equilibrium": Schema(STABLE_CLAIM, STABLE_WITNESS, "exact", {"d": MAX_D_SVEC}),
    "stable-equilibrium-enclosed": Schema(
        {"cov_center": Field(sym("d")), "cov_radius": Field(positive), "rate": Field(positive)},
        {"Y": Field(mat("n", "n")), "P": Field(mat("n", "n"))}, "rigorous", {"d": MAX_D_SVEC}),
    "unstable-equilibrium": Schema(
        {"cov": Field(sym("d")), "growth": Field(positive)},
        {"P": Field(sym("n"))}, "exact", {"d": MAX_D_SVEC}),
    "common-lyapunov": Schema({"rate": Field(positive)}, {"P": Field(mat("d", "d"))}, "exact",
                              {"d": MAX_D_SMALL}),
    "robust-global": Schema({"box": Field(raw), "global_rate": Field(positive)},
                            {"Z": Field(mat("d", "d"))}, "exact", {"d": MAX_D_BOX}),
}


# --- statements: what a verified certificate of each kind says ----------------------------------
def stable_statement(claim, who="Σ* = claim.cov", what="a positive-definite equilibrium",
                     space="Sym(d)", every="every Σ0 ≻ 0") -> str:
    out = [f"{who} is {what}, locally exponentially stable: every eigenvalue of the "
           f"linearisation on {space} has real part ≤ −{short_text(claim['rate'])}"]
    if "mean" in claim:
        out.append(f"m* = claim.mean is the mean's fixed point at Σ*, and every eigenvalue of "
                   f"the mean's matrix A + Σ_h(V_h + V_hΣ*B_h) has real part ≤ "
                   f"−{short_text(claim['mean_rate'])}, so (m*, Σ*) is locally exponentially stable")
    if "global_rate" in claim:
        out.append(f"{every} converges to Σ*, with Σ(t)⁻¹ − Σ*⁻¹ = "
                   f"O(e^(−{short_text(2 * claim['global_rate'])}·t))")
    return "; ".join(out)


def statement(kind, claim, problem) -> str:
    if kind == "stable-equilibrium":
        return stable_statement(claim)
    if kind == "stable-equilibrium-enclosed":
        return stable_statement(claim, "the unique equilibrium Σ* within max-entry distance "
                                       f"{short_text(claim['cov_radius'])} of claim.cov_center")
    if kind == "unstable-equilibrium":
        return ("Σ* = claim.cov is a positive-definite equilibrium and it is unstable: its "
                f"linearisation has an eigenvalue with real part > {short_text(claim['growth'])}")
    if kind == "common-lyapunov":
        k = len(parameter_sets(problem))
        return (f"the problem's {k} parameter set(s) share the Lyapunov function tr(PΣ), P ≻ 0 in "
                f"the witness: tr(P(AΣ + ΣAᵀ)) ≤ −{short_text(2 * claim['rate'])}·tr(PΣ) for "
                "every Σ ⪰ 0 and each set's A; so under any switching among the sets, Σ(t) → 0 "
                "from every Σ0 ⪰ 0 at that rate when no set has attention (each head has V_h = 0 "
                "or B_h = 0), and Σ = 0 is locally exponentially stable otherwise")
    return (f"for every A in the box (the other parameters fixed) every Σ0 ≻ 0 converges to "
            f"the unique Σ*(A) ≻ 0, with Σ(t)⁻¹ − Σ*(A)⁻¹ = "
            f"O(e^(−{short_text(2 * claim['global_rate'])}·t))")


# --- the checks ---------------------------------------------------------------------------------
def require_equilibrium(p, S, what="claim.cov") -> None:
    """F(S) = 0 exactly and S ≻ 0, else :class:`Refuted` with the counter-evidence."""
    F = residual(p, S)
    for i in range(F.nrows()):
        for j in range(i, F.ncols()):
            if F[i, j] != 0:
                raise Refuted(f"{what} is not an equilibrium: entry [{i}][{j}] of AΣ + ΣAᵀ + "
                              f"Σ_h(V_hΣB_hΣ + ΣB_hᵀΣV_hᵀ) is {brief(F[i, j])}, not 0")
    require_pd(S, what, Refuted)


def require_local_stability(p, S, claim, w, L=None, slack=0) -> None:
    """The Lyapunov witness (exactly one of Q, P) proves spectrum(L) ⊂ {Re ≤ −rate}."""
    if ("P" in w) == ("Q" in w):
        raise Invalid("witness: exactly one of P (svec) and Q (d×d, V_h = v_h I) is expected")
    rate = claim["rate"]
    if "Q" in w:
        R = riccati_R(p)
        if R is None or slack:
            raise NotProved("witness.Q needs every V_h = v_h I and an exact Σ*")
        require_decay(p.A + S * R, w["Q"], rate, "N = A + Σ*R")
    else:
        require_decay(linearisation(p, S) if L is None else L, w["P"], 2 * rate, "L", slack)


def require_global(p, g, Z) -> None:
    R = riccati_R(p)
    if R is None:
        raise NotProved("the global argument needs every V_h = v_h I")
    require_pd(-R, "−R (the argument needs R ≺ 0)")
    require_decay(-p.A.transpose(), Z, 2 * g, "−Aᵀ")


def check_stable(p, claim, w) -> None:
    S = claim["cov"]
    for c, k in (("mean", "P_mean"), ("global_rate", "Z")):
        if (c in claim) != (k in w):
            raise Invalid(f"claim.{c} and witness.{k} go together")
    require_equilibrium(p, S)
    require_local_stability(p, S, claim, w)
    if "mean" in claim:
        Mm = velocity_matrix(p, S, extra=True)
        r = Mm * claim["mean"] + p.b
        if any(x != 0 for x in r.entries()):
            raise Refuted("claim.mean is not the mean's fixed point: (A + Σ_h(V_h + V_hΣ*B_h))m* "
                          "+ b is not 0")
        require_decay(Mm, w["P_mean"], 2 * claim["mean_rate"], "the mean's matrix")
    if "global_rate" in claim:
        require_global(p, claim["global_rate"], w["Z"])


def enclosure(p, C, r, Y):
    """The unique zero of F within max-distance r of C: T(e) = e − Y F(C + e) maps the ball into
    itself (Z0 + Z1 r + Z2 r² ≤ r) and contracts (Z1 + 2 Z2 r < 1); it is ≻ 0 since
    C − d·r·I ≻ 0. Returns (L(C), e) with every entry of L(Σ*) − L(C) at most e in modulus."""
    d = C.nrows()
    n = d * (d + 1) // 2
    one, Qb = flint.fmpq_mat(d, d, [1] * (d * d)), flint.fmpq_mat(d, d)
    for V, B in p.heads:  # |quadratic part (V E B E + E Bᵀ E Vᵀ)_ij| ≤ Qb_ij max|E|²
        aV, aB = (flint.fmpq_mat(d, d, [abs(x) for x in X.entries()]) for X in (V, B))
        Qb = Qb + aV * one * aB * one + one * aB.transpose() * one * aV.transpose()
    q, J = max(svec(Qb)), linearisation(p, C)
    z0 = norm_inf(Y * flint.fmpq_mat(n, 1, svec(residual(p, C))))
    z1, z2 = norm_inf(eye(n) - Y * J), norm_inf(Y) * q
    if not (z0 + z1 * r + z2 * r * r <= r and z1 + 2 * z2 * r < 1):
        raise NotProved(f"the Newton–Kantorovich bounds fail: Z0 = {float(z0):.3g}, "
                        f"Z1 = {float(z1):.3g}, Z2 = {float(z2):.3g}, r = {float(r):.3g}")
    require_pd(C - eye(d) * (d * r), "cov_center − d·r·I")
    return J, 2 * q * r


def parameter_sets(problem) -> tuple:
    return (problem.params,) if problem.params is not None else tuple(
        p for _, p in problem.controls)


def _box_vertices(box, A, ctx):
    """Every vertex of the box of A-entries (the other entries as in the stored A)."""
    if not isinstance(box, list) or not 1 <= len(box) <= MAX_BOX:
        raise Invalid(f"claim.box: a list of 1..{MAX_BOX} entries")
    entry = {"entry": Field(raw), "from": Field(raw), "to": Field(raw)}
    seen, sides = set(), []
    for k, e in enumerate(box):
        e = read_section(e, entry, f"claim.box[{k}]", ctx)
        ent = e["entry"]
        if not (isinstance(ent, list) and len(ent) == 3 and ent[0] == "A"):
            raise Invalid(f"claim.box[{k}].entry: expected ['A', i, j]")
        i, j = (integer(0, ctx.d - 1)(x, f"claim.box[{k}].entry", ctx) for x in ent[1:])
        lo, hi = (rational(e[s], f"claim.box[{k}].{s}") for s in ("from", "to"))
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


def check(kind, claim, w, problem, ctx) -> None:
    """Raise Invalid / Refuted / NotProved, or return: the claim is proved."""
    if kind == "common-lyapunov":
        for k, p in enumerate(parameter_sets(problem)):
            require_decay(p.A, w["P"], 2 * claim["rate"], f"parameter set {k}: A")
        return
    p = problem.params
    if p is None:
        raise Invalid(f"{kind} claims need time-invariant parameters (no 'controls')")
    if kind == "robust-global":
        for Av in _box_vertices(claim["box"], p.A, ctx):
            require_global(type(p)(Av, p.heads, p.b), claim["global_rate"], w["Z"])
    elif kind == "stable-equilibrium":
        check_stable(p, claim, w)
    elif kind == "stable-equilibrium-enclosed":
        L, e = enclosure(p, claim["cov_center"], claim["cov_radius"], w["Y"])
        require_local_stability(p, None, claim, w, L, 2 * norm_inf(w["P"]) * ctx.n * e)
    else:  # unstable-equilibrium
        S, eps, P = claim["cov"], claim["growth"], w["P"]
        require_equilibrium(p, S)
        Le = linearisation(p, S) - eye(ctx.n) * eps
        require_pd(Le.transpose() * P + P * Le, "(L − εI)ᵀP + P(L − εI)")
        negative, why = positive_definite(-P)
        if negative is not False:
            raise NotProved("witness.P is negative definite (or not decided: " + (why or "") +
                            "): it shows nothing about instability")
