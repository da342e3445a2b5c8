"""Checker for kind ``"growth-axis"``: Σ(t) exists for all t ≥ 0 and its entry Σ_kk grows like
e^{2a·t}, a = A_kk > 0, along a coordinate axis e_k that the quadratic term never sees.

Structure (exact): A e_k = a·e_k (column k of A is zero off the diagonal) and B_h e_k = B_hᵀe_k = 0
for every head (row and column k of every B_h are zero). Write s = Σ_kk and y for the other svec
coordinates of Σ (row k off the diagonal and the rest). The entries of Σ_hB_hΣ never contain s
(s multiplies only row or column k of B_h), and (AΣ + ΣAᵀ)_ij contains s only for i = j = k
(through A_ik = 0, i ≠ k), so exactly

    y' = G(y)   (independent of s),        s' = 2a·s + f(y),

where G and f are the components of eq. 1.1's field F at the matrix with s = 0 (:class:`Axis`).

Checks: (1) the structure and claim.rate = 2a > 0, exactly; (2) a contraction region E = {‖y − c‖_P²
≤ ρ} of y' = G(y) at rate λ (:func:`limit.check_region` on :class:`Axis`), so E is forward
invariant; (3) validated steps of y' = G(y) from y(0) (exact) in ‖·‖_P (``metric`` ``region``, the
default) or ‖·‖_2 (``identity``) end inside E at t = T — log-norm or C¹ steps (:class:`Axis` gives
eq. 1.1's tangent maps without s's row and column: y's Taylor coefficients never contain s's); on
each step's a-priori box Bx, s(t + h) ∈ e^{2ah}s(t) + f(Bx)·(e^{2ah} − 1)/(2a) (variation of
constants, exactly s0 = cov0_kk at t = 0), which gives a ball s(T); (4) with |f| ≤ F and tr over the
other diagonal entries ≤ R on E's box: claim.lower m ≤ s(T) − F/(2a), m > 0, and claim.upper M ≥
s(T) + F/(2a) + R. Then for t ≥ T, y(t) ∈ E, s(t)e^{−2a(t−T)} = s(T) + ∫_T^t e^{−2a(σ−T)}f dσ ∈ s(T)
± F/(2a), so m·e^{2a(t−T)} ≤ Σ_kk(t) and tr Σ(t) ≤ M·e^{2a(t−T)}; y stays in the compact E and s
solves a linear equation, so Σ(t) exists for all t.

Claim: ``axis`` k, ``rate`` 2a, ``t_enter`` T, ``lower`` m, ``upper`` M. Witness: ``steps``,
``order``, ``prec``, optional ``metric`` and ``metrics`` (as kind ``limit``, on the n − 1
coordinates y), ``P``
((n − 1)×(n − 1)), ``ell`` ≤ λmin(P), ``rho``, ``center`` c (n − 1), ``lam`` λ.

Kind ``growth-axis-row`` (same claim and statement): row k grows too, more slowly. If moreover
V_h e_k = v_h·e_k for every head (column k of every V_h zero off the diagonal, exact), y splits
into z (the entries Σ_ij, i, j ≠ k) and r (Σ_ik, i ≠ k), and exactly: z' = eq. 1.1 of the
reduced problem (A, V_h, B_h without row and column k: row k of Σ enters Σ_hV_hΣB_hΣ only
through V_h's column k and B_h's row k); r' = M(z)·r + g(z), linear in r (the one quadratic term
in r, (V_hΣB_hΣ)_ik ∋ V_h,ik·rᵀB_h r, vanishes); s' = 2a·s + f(z, r), f quadratic in r, so
f = f(z, 0) + f₁(z)·r + rᵀF₂(z)r exactly (f₁, F₂ by polarization in r, in ball arithmetic over
z's box). Checks: (2') a contraction region E_z = {‖z − c‖_P² ≤ ρ} of the reduced flow at rate
λ; (3') the steps of y' = G(y) in ‖·‖_2 (``metrics`` may change it, ending in ‖·‖_2) end with
z inside E_z; (4') on E_z's box, Q(D_rM) + (D_rM)ᵀQ ⪯ 2μQ (Q ≻ ℓ_Q·I, 0 < μ < a) and ‖g‖_Q ≤ G,
so ‖r(T + τ)‖_Q ≤ C·e^{μτ}, C = ‖r(T)‖_Q + G/μ; with |f| ≤ φ₀ + φ₁‖r‖_Q + φ₂‖r‖²_Q
(φ₁ = |f₁|₂/√ℓ_Q, φ₂ = ‖F₂‖_F/ℓ_Q) the forcing integral is at most F/(2a) := φ₀/(2a) +
φ₁C/(2a − μ) + φ₂C²/(2a − 2μ), and (4) holds with it and R the trace over E_z's box. Witness:
``steps``, ``order``, ``prec``, optional ``metrics``; ``P``, ``ell``, ``rho``, ``center``, ``lam``
on z ((d − 1)d/2 coordinates); ``Q`` ((d − 1)×(d − 1)), ``ell_q`` ≤ λmin(Q), ``mu``.
"""
from __future__ import annotations

import flint

from symgauss.kernel.equations import svec
from symgauss.kernel.exact import eye, norm_inf, require_pd
from symgauss.kernel.flow import Flow, contracts, p_norm, pairs, svec_of, sym_of, upper
from symgauss.kernel.kinds.limit import (
    MAX_D,
    MAX_ORDER,
    MAX_PREC,
    MIN_PREC,
    check_region,
    read_timed_steps,
    steps_in_region_metric,
)
from symgauss.kernel.read import short_text
from symgauss.kernel.schema import (
    Field,
    Schema,
    choice,
    integer,
    nonnegative,
    positive,
    raw,
    sym,
    vec,
)
from symgauss.kernel.verdict import Invalid, NotProved


def _reduced(read):
    """A reader of size n − 1 (the coordinates y)."""
    return lambda value, where, ctx: read(ctx.n - 1)(value, where, ctx)


def _size(offset):
    """A reader size: n − 1 (y), n − d (z) or d − 1 (r)."""
    return lambda read: lambda value, where, ctx: read(offset(ctx))(value, where, ctx)


_Z, _R = _size(lambda ctx: ctx.n - ctx.d), _size(lambda ctx: ctx.d - 1)
SCHEMAS = {"growth-axis": Schema(
    {"axis": Field(integer(0, "d")), "rate": Field(positive), "t_enter": Field(nonnegative),
     "lower": Field(positive), "upper": Field(positive)},
    {"steps": Field(raw), "order": Field(integer(2, MAX_ORDER)),
     "prec": Field(integer(MIN_PREC, MAX_PREC)), "metric": Field(choice("region", "identity"), False),
     "metrics": Field(raw, False),
     "P": Field(_reduced(sym)), "ell": Field(positive), "rho": Field(positive),
     "center": Field(_reduced(vec)), "lam": Field(positive)},
    "rigorous", {"d": MAX_D})}
SCHEMAS["growth-axis-row"] = Schema(
    SCHEMAS["growth-axis"].claim,
    {"steps": Field(raw), "order": Field(integer(2, MAX_ORDER)),
     "prec": Field(integer(MIN_PREC, MAX_PREC)), "metrics": Field(raw, False),
     "P": Field(_Z(sym)), "ell": Field(positive), "rho": Field(positive),
     "center": Field(_Z(vec)), "lam": Field(positive),
     "Q": Field(_R(sym)), "ell_q": Field(positive), "mu": Field(positive)},
    "rigorous", {"d": MAX_D})


def statement(kind, claim, problem) -> str:
    k, r, t0, m, M = (short_text(claim[x]) if x != "axis" else str(claim[x])
                      for x in ("axis", "rate", "t_enter", "lower", "upper"))
    return (f"Σ(t) exists for all t ≥ 0 and grows without bound along the axis e_{k}: for t ≥ "
            f"T = {t0}, {m}·e^({r}·(t − T)) ≤ Σ_{k}{k}(t) and tr Σ(t) ≤ {M}·e^({r}·(t − T))")


class Axis:
    """y' = G(y): eq. 1.1's field on the svec coordinates other than s = Σ_kk, evaluated at
    s = 0 (exact when the structure of the module docstring holds); the five methods of
    :class:`Flow` and its two tangent maps, so :func:`symgauss.kernel.steps.check_steps` steps it
    (C¹ steps too)."""
    affine = True

    def __init__(self, flow: Flow, k: int):
        self.flow, self.d = flow, flow.d
        self.skip = pairs(flow.d).index((k, k))

    def _full(self, x, fill):
        return list(x[:self.skip]) + [fill] + list(x[self.skip:])

    def box(self, x, rad=None):
        rads = self._full(rad, None) if isinstance(rad, list) else rad
        if rads is not None and not isinstance(rads, list):
            rads = self._full([rads] * len(x), None)
        return sym_of(self._full(x, 0), self.d, rads)

    def coords(self, S) -> list:
        x = svec_of(S)
        return x[:self.skip] + x[self.skip + 1:]

    def field(self, S):
        return self.flow.field(S)

    def taylor(self, S0, order: int) -> list:
        return self.flow.taylor(S0, order)

    def jacobian(self, S):
        return without_index(self.flow.jacobian(S), self.skip, flint.arb_mat)

    def tangents(self, S0, order: int, dirs) -> list:
        """Eq. 1.1's (:meth:`Flow.tangents`): s's coefficients never enter y's (the structure)."""
        return self.flow.tangents(S0, order, dirs)

    def tangent_matrices(self, S0, order: int) -> list:
        """Eq. 1.1's, without s's row and column (y's coefficients do not depend on s's)."""
        return [without_index(D, self.skip, flint.arb_mat)
                for D in self.flow.tangent_matrices(S0, order)]


def without_index(M, k: int, mat):
    """The square matrix M without row and column k, as ``mat`` (fmpq_mat or arb_mat)."""
    keep = [i for i in range(M.nrows()) if i != k]
    return mat(len(keep), len(keep), [M[i, j] for i in keep for j in keep])


def require_structure(p, k: int) -> flint.fmpq:
    """a = A_kk when A e_k = a·e_k and B_h e_k = B_hᵀe_k = 0 for every head (exact); else NotProved."""
    d = p.A.nrows()
    if any(p.A[i, k] != 0 for i in range(d) if i != k):
        raise NotProved(f"A e_{k} is not a multiple of e_{k} (column {k} of A is not zero off "
                        "the diagonal)")
    for h, (_, B) in enumerate(p.heads):
        if any(B[i, k] != 0 or B[k, i] != 0 for i in range(d)):
            raise NotProved(f"row or column {k} of B of head {h} is not zero")
    return p.A[k, k]


def require_row_structure(p, k: int) -> None:
    """V_h e_k = v_h·e_k for every head (column k of V_h zero off the diagonal), exactly."""
    for h, (V, _) in enumerate(p.heads):
        if any(V[i, k] != 0 for i in range(V.nrows()) if i != k):
            raise NotProved(f"column {k} of V of head {h} is not zero off the diagonal")


def check(kind, claim, witness, problem, ctx) -> None:
    k = claim["axis"]
    if problem.params is None:
        raise Invalid("growth-axis certificates are for time-invariant parameters (no 'controls')")
    if k >= problem.d:
        raise Invalid(f"claim.axis: expected an integer from 0 to {problem.d - 1}")
    a = require_structure(problem.params, k)
    if not (a > 0 and claim["rate"] == 2 * a):
        raise NotProved(f"claim.rate must be 2·A_{k}{k} = {short_text(2 * a)} > 0")
    if kind == "growth-axis-row":
        require_row_structure(problem.params, k)
    with flint.ctx.workprec(witness["prec"]):
        s, bound, rest = (enclose if kind == "growth-axis" else enclose_row)(
            k, claim["t_enter"], witness, problem)
        if not (flint.arb(claim["lower"]) < s - bound):
            raise NotProved(f"Σ_{k}{k}(T) − F/(2a) ≥ claim.lower is not proved (Σ_{k}{k}(T) ∈ "
                            f"{s.str(5)}, F/(2a) ≤ {bound.str(5)})")
        if not (s + bound + rest < flint.arb(claim["upper"])):
            raise NotProved(f"Σ_{k}{k}(T) + F/(2a) + (the other diagonal entries on the region) "
                            "≤ claim.upper is not proved")


def enclose(k, t_enter, witness, problem) -> tuple:
    """(s(T), F/(2a), R) as balls (module docstring, checks 2–4); the structure is checked by
    the caller. NotProved if the region or the steps fail."""
    p, n = problem.params, problem.d * (problem.d + 1) // 2
    a = p.A[k, k]
    steps = read_timed_steps(witness, n - 1, len(p.heads), t_enter, problem.d)
    P, ell, rho, c, lam = (witness[x] for x in ("P", "ell", "rho", "center", "lam"))
    c = [c[i, 0] for i in range(n - 1)]
    ax = Axis(Flow(p), k)
    F_c = flint.arb_mat(n - 1, 1, ax.coords(ax.field(ax.box(c))))
    region = check_region(ax, P, ell, rho, c, lam, F_c)
    s, end, r_end = carried(ax, k, problem, steps, witness, P, ell)
    gap = [flint.arb(x) - flint.arb(y) for x, y in zip(end, c)]
    if not p_norm(flint.arb_mat(P), gap) + r_end < flint.arb(rho).sqrt():
        raise NotProved(f"the enclosure at t = {short_text(t_enter)} (radius "
                        f"{float(r_end.mid()):.3g} in ‖·‖_P) is not proved inside the region")
    rest = sum((region[i, i] for i in range(problem.d) if i != k), flint.arb(0))
    return s, abs(ax.field(region)[k, k]) / flint.arb(2 * a), rest


def carried(ax, k, problem, steps, witness, P, ell) -> tuple:
    """(s(T), c_N, r_N): the steps of y' = G(y) from cov0 (metric P, ``metrics`` as read by
    :func:`limit.steps_in_region_metric`), with s = Σ_kk carried along their a-priori boxes Bx:
    s(t + h) ∈ e^{2ah}s(t) + f(Bx)·(e^{2ah} − 1)/(2a) (check 3 of the module docstring)."""
    two_a, s = flint.arb(2 * problem.params.A[k, k]), [flint.arb(problem.cov0[k, k])]

    def visit(H, box):
        e = (two_a * H).exp()
        s[0] = e * s[0] + ax.field(box)[k, k] * (e - 1) / two_a

    y0 = svec(problem.cov0)
    del y0[ax.skip]
    end, r_end = steps_in_region_metric(ax, P, ell, y0, steps, witness, len(y0), visit)
    return s[0], end, r_end


class Without:
    """The parameters (A, heads) without row and column k (exact)."""

    def __init__(self, p, k: int):
        def cut(M):
            return without_index(M, k, flint.fmpq_mat)
        self.A, self.heads = cut(p.A), [(cut(V), cut(B)) for V, B in p.heads]
        self.keep = [i for i in range(p.A.nrows()) if i != k]


def enclose_row(k, t_enter, witness, problem) -> tuple:
    """(s(T), F/(2a), R) as balls for kind ``growth-axis-row`` (module docstring, 2'–4')."""
    p, d = problem.params, problem.d
    n, a, two_a = d * (d + 1) // 2, p.A[k, k], flint.arb(2 * p.A[k, k])
    steps = read_timed_steps(witness, n - 1, len(p.heads), t_enter, problem.d)
    P, ell, rho, c, lam, Q, ell_q, mu = (witness[x] for x in (
        "P", "ell", "rho", "center", "lam", "Q", "ell_q", "mu"))
    if not mu < a:
        raise NotProved(f"witness.mu must be below a = A_{k}{k} (Σ_{k}{k} must outgrow row {k})")
    cut = Without(p, k)
    red, m = Flow(cut), n - d
    c = [c[i, 0] for i in range(m)]
    region = check_region(red, P, ell, rho, c, lam,
                          flint.arb_mat(m, 1, red.coords(red.field(red.box(c)))))
    ax = Axis(Flow(p), k)
    s, end, r_end = carried(ax, k, problem, steps, witness, eye(n - 1), 1)
    ys = [pq for pq in pairs(d) if pq != (k, k)]
    iz = [ys.index((cut.keep[i], cut.keep[j])) for i, j in pairs(d - 1)]
    ir = [ys.index((min(i, k), max(i, k))) for i in cut.keep]
    gap = [flint.arb(end[i]) - flint.arb(x) for i, x in zip(iz, c)]
    if not p_norm(flint.arb_mat(P), gap) + r_end * flint.arb(norm_inf(P)).sqrt() < \
            flint.arb(rho).sqrt():
        raise NotProved(f"the enclosure at t = {short_text(t_enter)} (radius "
                        f"{float(r_end.mid()):.3g} in ‖·‖_2) does not put z inside the region")
    require_pd(Q - eye(d - 1) * ell_q, "witness.Q − ell_q·I")
    Qa = flint.arb_mat(Q)

    def state(r):   # z in E_z's box, row k = r, s = 0
        S = flint.arb_mat(d, d)
        for i, gi in enumerate(cut.keep):
            S[gi, k] = S[k, gi] = r[i]
            for j, gj in enumerate(cut.keep):
                S[gi, gj] = region[i, j]
        return S
    zero = [flint.arb(0)] * (d - 1)
    J = ax.jacobian(state(zero))
    if not contracts(Qa, flint.arb_mat(d - 1, d - 1, [J[i, j] for i in ir for j in ir]),
                     -flint.arb(mu)):
        raise NotProved("Q·D_rM + (D_rM)ᵀQ ⪯ 2μQ is not proved on the region: row k is not "
                        "proved to grow at most like e^(μt)")
    g = ax.coords(ax.field(state(zero)))
    C = p_norm(Qa, [flint.arb(end[i]) for i in ir]) + r_end * flint.arb(norm_inf(Q)).sqrt() \
        + p_norm(Qa, [g[i] for i in ir]) / flint.arb(mu)

    def f(*units):      # f(z, Σ of the unit vectors e_i (±1 each)) on the box
        r = list(zero)
        for i, sign in units:
            r[i] = r[i] + sign
        return ax.field(state(r))[k, k]
    f0, q = f(), d - 1
    f1 = [(f((i, 1)) - f((i, -1))) / 2 for i in range(q)]
    F2 = [[(f((i, 1)) + f((i, -1))) / 2 - f0 if i == j else
           (f((i, 1), (j, 1)) - f((i, 1)) - f((j, 1)) + f0) / 2 for j in range(q)]
          for i in range(q)]
    phi1 = upper(sum((x * x for x in f1), flint.arb(0))).sqrt() / flint.arb(ell_q).sqrt()
    phi2 = upper(sum((x * x for row in F2 for x in row), flint.arb(0))).sqrt() / flint.arb(ell_q)
    mu_b = flint.arb(mu)
    bound = abs(f0) / two_a + phi1 * C / (two_a - mu_b) + phi2 * C * C / (two_a - 2 * mu_b)
    return s, bound, sum((region[i, i] for i in range(d - 1)), flint.arb(0))
