"""Checker for kind ``"growth-schur"``: Σ(t) exists for all t ≥ 0 and Σ_jj(t) grows exponentially,
without blowing up (d = 3, one head), when Σ/tr Σ tends to vvᵀ with v on B's null cone — a
one-parameter family of directions at infinity at d = 3, so the compactified flow has a zero
eigenvalue along it and kind ``growth``'s region cannot be used. Here the time is t itself and
the problem is a singular perturbation, proved by an invariant region of Tikhonov type.

Coordinates (``axis`` j first: the problem is permuted so that j is index 0). Schur form
Σ = σ·vvᵀ + diag(0, C), v = (1, y) (σ = Σ₀₀, y = Σ₁:,₀/σ, C the Schur complement, all exact for
σ > 0). With a = Vv, w = Bᵀv, w̃ = w₁:, q = vᵀBv, ã = a₁: − y·a₀, u = 1/σ, the fast variables
η = σ·q and ξ = σ·Cw̃ (∈ R²), and γ = (Jw̃)ᵀC(Jw̃)/|w̃|² (J the quarter turn; C =
u·S(ξ) + γ·(Jw̃)(Jw̃)ᵀ/|w̃|², S(ξ) = (ξw̃ᵀ + w̃ξᵀ)/|w̃|² − (ξ·w̃)w̃w̃ᵀ/|w̃|⁴), and p = y_{1−k}
(y_k is the root, branch ``branch`` s, of the quadratic q(1, y) = u·η), eq. 1.1 becomes, exactly
(M = A + σ·awᵀ + VĈB, N = A + VĈB, K = N₁:,₁: − y·N₀,₁:):

    g = σ'/σ = 2[(Av)₀ + η·a₀ + (VĈBv)₀],   u' = −g·u,
    y' = P_y(Av + VĈBv) + η·ã + u·[a₀ξ + C((Aᵀe₀)₁: + (BᵀĈVᵀe₀)₁:)],   P_y(x) = x₁: − y·x₀,
    C' = KC + CKᵀ + ãξᵀ + ξãᵀ,   u·η' = u·g·η + ∇q·y',   u·ξ' = u·g·ξ + C'w̃ + C·(Bᵀ)₁:,₁:·y',

and γ', p' follow by the product rule. No 1/u is left: s = (p, γ) is slow, f = (η, ξ) fast
(u·f' = L·f + …, attracting when L is Hurwitz). Region R: 0 < u ≤ u_max, ‖ds‖_Ps ≤ ρ and
‖δ‖_Pf ≤ r, where ds = s − s_c(u), s_c(u) = s* + K₁u + K₂u², and δ = f − f_c(ds, u), f_c = f* +
G·ds + H·u + Q·(the monomials of degree 2 in (ds, u)). Σ(t) = Φ(t)Σ₀Φ(t)ᵀ ⪰ 0 (Φ' = (A + VΣB)Φ),
so C ⪰ 0 and γ ≥ 0 for all t: a cell of a side where γ < 0 is proved is never reached and is
skipped. R ∩ {γ ≥ 0} is forward invariant (Nagumo) when on each of its sides the outward
derivative is negative: u' = −g·u < 0 (g > 0 on R); dsᵀPs·ds' < 0 on the
slow side (angle pieces θ, ds = ρ·L⁻ᵀ(cos θ, sin θ) with Ps = LLᵀ, × u pieces; f anywhere in its
band; the mean-value form in (ds, u, δ)); δᵀPf·(u·δ') < 0 on the fast side, per box of the slow ball
and u piece, from u·δ' = F(0) + J̃δ (J̃ in the balls of ∂(u·δ')/∂δ over the band's box):
J̃ᵀPf + PfJ̃ ≼ −2·fast_rate·Pf and ‖F(0)‖_Pf < fast_rate·r, F(0) in the mean-value form in
(ds, u) — the derivatives by a small forward mode (:class:`Dual`). A cell that fails is halved
along the variable whose mean-value term is widest, at most ``depth`` times and MAX_TESTS cells
in all. The square root must be real and |w̃| > 0 on all of R (every ball finite), so the
coordinates are a chart there. Then Σ(t) stays in R for t ≥ t0 (bounded y, C), so it exists for
all t, and σ(t0)·e^{a(t−t0)} ≤ σ(t) ≤ σ(t0)·e^{b(t−t0)} with g ∈ [a, b] on R ∩ {γ ≥ 0}.

Claim: ``axis`` j, ``t_enter`` t0 (the steps' total), ``rate_lower`` a > 0, ``rate_upper`` b.
Witness: ``steps``, ``order``, ``prec`` (eq. 1.1, metric I, as kind ``limit``; optional
``metrics``), ``k``, ``branch``, ``s_star``, ``f_star``, ``G`` (3×2), ``H`` (3), ``Q`` (3×6: the
monomials ds₀², ds₀ds₁, ds₀u, ds₁², ds₁u, u²), ``K`` (2×2: rows K₁, K₂), ``Ps`` (2×2), ``rho``,
``Pf`` (3×3), ``r``, ``fast_rate``, ``u_max``, ``arcs``, ``slow_cells``, ``u_pieces``, ``depth``.
"""
from __future__ import annotations

import itertools

import flint

from symgauss.kernel.exact import eye, require_pd
from symgauss.kernel.flow import Flow, contracts, p_norm, svec_of, sym_of, upper
from symgauss.kernel.kinds.growth import cholesky_inv_t
from symgauss.kernel.kinds.limit import (
    MAX_ORDER,
    MAX_PREC,
    MIN_PREC,
    read_timed_steps,
    steps_in_region_metric,
)
from symgauss.kernel.read import short_text
from symgauss.kernel.schema import Field, Schema, integer, mat, positive, raw, sym, vec
from symgauss.kernel.verdict import Invalid, NotProved

MAX_CELLS, MAX_TESTS = 2_000, 4_000   # a test costs 2–4 ms: the region in ≤ 20 s
SCHEMAS = {"growth-schur": Schema(
    {"axis": Field(integer(0, 2)), "t_enter": Field(positive),
     "rate_lower": Field(positive), "rate_upper": Field(positive)},
    {"steps": Field(raw), "order": Field(integer(2, MAX_ORDER)),
     "prec": Field(integer(MIN_PREC, MAX_PREC)), "k": Field(integer(0, 1)),
     "branch": Field(integer(-1, 1)), "s_star": Field(vec(2)), "f_star": Field(vec(3)),
     "G": Field(mat(3, 2)), "K": Field(mat(2, 2)), "H": Field(vec(3)), "Q": Field(mat(3, 6)),
     "Ps": Field(sym(2)), "rho": Field(positive), "Pf": Field(sym(3)), "r": Field(positive),
     "fast_rate": Field(positive), "arcs": Field(integer(4, 4096)),
     "depth": Field(integer(0, 16)), "u_max": Field(positive),
     "slow_cells": Field(integer(1, 64)), "u_pieces": Field(integer(1, 64)),
     "metrics": Field(raw, False)},
    "rigorous", {"d": 3})}


def statement(kind, claim, problem) -> str:
    j, t0, a, b = claim["axis"], *(short_text(claim[k]) for k in ("t_enter", "rate_lower",
                                                                   "rate_upper"))
    s = f"Σ_{j + 1}{j + 1}"
    return (f"Σ(t) exists for all t ≥ 0 and grows without bound: for t ≥ t0 = {t0}, "
            f"{s}(t0)·e^({a}·(t − t0)) ≤ {s}(t) ≤ {s}(t0)·e^({b}·(t − t0))")


def permuted(M, j):
    """M with index j moved to the front (the others in order), as nested lists."""
    order = [j] + [i for i in range(3) if i != j]
    return [[M[a][b] for b in order] for a in order]


def _mv(M, x):
    return [sum((M[i][c] * x[c] for c in range(1, len(x))), M[i][0] * x[0]) for i in range(len(M))]


def _tmv(M, x):
    return [sum((M[c][i] * x[c] for c in range(1, len(x))), M[0][i] * x[0]) for i in range(len(M))]


def lift(B, z, k, branch, sqrt):
    """(y, C, w̃, |w̃|², Jw̃) at z = (u, p, η, γ, ξ₀, ξ₁); ``branch`` 0 when B's coefficient of
    y_k² is zero (q is then linear in y_k)."""
    u, p, eta, gam, x0, x1 = z
    K1, J1 = k + 1, 2 - k
    al, be = B[K1][K1], B[0][K1] + B[K1][0] + (B[J1][K1] + B[K1][J1]) * p
    c0 = B[0][0] + (B[0][J1] + B[J1][0]) * p + B[J1][J1] * p * p - u * eta
    yk = -c0 / be if branch == 0 else (-be + branch * sqrt(be * be - 4 * al * c0)) / (2 * al)
    y = [yk, p] if k == 0 else [p, yk]
    w = _tmv(B, [1, y[0], y[1]])
    wt = w[1:]
    n2 = wt[0] * wt[0] + wt[1] * wt[1]
    Jw = [-wt[1], wt[0]]
    xi = [x0, x1]
    xw = x0 * wt[0] + x1 * wt[1]
    C = [[u * ((xi[a] * wt[b] + wt[a] * xi[b]) / n2 - xw * wt[a] * wt[b] / (n2 * n2))
          + gam * Jw[a] * Jw[b] / n2 for b in range(2)] for a in range(2)]
    return y, C, wt, n2, Jw


def field(A, V, B, z, k, branch, sqrt):
    """(u', p', u·η', γ', u·ξ₀', u·ξ₁', g) at z (module docstring; any numbers with + − × /)."""
    u, p, eta, gam, x0, x1 = z
    y, C, wt, n2, Jw = lift(B, z, k, branch, sqrt)
    v = [1, y[0], y[1]]
    a = _mv(V, v)
    at = [a[1] - y[0] * a[0], a[2] - y[1] * a[0]]
    CB = [[C[m][0] * B[1][c] + C[m][1] * B[2][c] for c in range(3)] for m in range(2)]
    VCB = [[V[i][1] * CB[0][c] + V[i][2] * CB[1][c] for c in range(3)] for i in range(3)]
    N = [[A[i][c] + VCB[i][c] for c in range(3)] for i in range(3)]     # A + VĈB
    x = _mv(N, v)
    g = 2 * (x[0] + eta * a[0])
    CV = [C[m][0] * V[0][1] + C[m][1] * V[0][2] for m in range(2)]      # (ĈVᵀe₀)₁:
    f = [A[0][c] + B[1][c] * CV[0] + B[2][c] * CV[1] for c in (1, 2)]
    Cf = [C[i][0] * f[0] + C[i][1] * f[1] for i in range(2)]
    xi = [x0, x1]
    yd = [x[i + 1] - y[i] * x[0] + eta * at[i] + u * (a[0] * xi[i] + Cf[i]) for i in range(2)]
    K = [[N[i + 1][c + 1] - y[i] * N[0][c + 1] for c in range(2)] for i in range(2)]
    KC = [[K[i][0] * C[0][c] + K[i][1] * C[1][c] for c in range(2)] for i in range(2)]
    Cd = [[KC[i][c] + KC[c][i] + at[i] * xi[c] + xi[i] * at[c] for c in range(2)]
          for i in range(2)]
    grad = [sum((B[i + 1][c] + B[c][i + 1]) * v[c] for c in range(3)) for i in range(2)]
    ueta = u * g * eta + grad[0] * yd[0] + grad[1] * yd[1]
    wd = [B[1][i + 1] * yd[0] + B[2][i + 1] * yd[1] for i in range(2)]
    Cw = [Cd[i][0] * wt[0] + Cd[i][1] * wt[1] + C[i][0] * wd[0] + C[i][1] * wd[1]
          for i in range(2)]
    uxi = [u * g * xi[i] + Cw[i] for i in range(2)]
    Jd = [-wd[1], wd[0]]
    JCJ = sum(Jd[i] * C[i][c] * Jw[c] for i in range(2) for c in range(2))
    JCdJ = sum(Jw[i] * Cd[i][c] * Jw[c] for i in range(2) for c in range(2))
    gd = (2 * JCJ + JCdJ) / n2 - gam * 2 * (wt[0] * wd[0] + wt[1] * wd[1]) / n2
    return [-g * u, yd[1 - k], ueta, gd, uxi[0], uxi[1], g]


class Dual:
    """A value and its gradient (balls), for the mean-value form on the fast side. The gradient
    is kept as a 1×n arb_mat (one flint operation per arithmetic step, not n); ``d`` lists it."""

    def __init__(self, v, d):
        self.v, self.g = v, d if isinstance(d, flint.arb_mat) else flint.arb_mat(1, len(d), d)

    @property
    def d(self) -> list:
        return self.g.entries()

    def __add__(self, o):
        if isinstance(o, Dual):
            return Dual(self.v + o.v, self.g + o.g)
        return Dual(self.v + o, self.g)
    __radd__ = __add__

    def __neg__(self):
        return Dual(-self.v, -self.g)

    def __sub__(self, o):
        return self + (-o)

    def __rsub__(self, o):
        return (-self) + o

    def __mul__(self, o):
        if isinstance(o, Dual):
            return Dual(self.v * o.v, self.g * o.v + o.g * self.v)
        return Dual(self.v * o, self.g * o)
    __rmul__ = __mul__

    def __truediv__(self, o):
        if isinstance(o, Dual):
            return self * Dual(1 / o.v, o.g * (-1 / (o.v * o.v)))
        return Dual(self.v / o, self.g / o)

    def __rtruediv__(self, o):
        return Dual(flint.arb(o), flint.arb_mat(1, self.g.ncols())) / self

    def sqrt(self):
        r = self.v.sqrt()
        return Dual(r, self.g / (2 * r))

    def exp(self):
        e = self.v.exp()
        return Dual(e, self.g * e)

    def is_finite(self):
        return self.v.is_finite() and all(a.is_finite() for a in self.g.entries())


def _sqrt(x):
    return x.sqrt()


def _box(P, rad):
    """Half-widths of the box around {‖x‖_P ≤ rad}: rad·√((P⁻¹)_ii)."""
    Pi = flint.arb_mat(P).inv()
    return [flint.arb(rad) * Pi[i, i].sqrt() for i in range(P.nrows())]


def _cells(half, m):
    """Balls covering Π [−h_i, h_i], m pieces per axis."""
    axes = [[h * flint.arb(flint.fmpq(2 * i + 1 - m, m), flint.fmpq(1, m)) for i in range(m)]
            for h in half]
    return itertools.product(*axes)


def _span(x) -> str:
    return f"it lies in [{float(x.mid() - x.rad()):.3g}, {float(x.mid() + x.rad()):.3g}]"


def _quad(x, P, y):
    return sum((x[i] * flint.arb(P[i, c]) * y[c] for i in range(len(x)) for c in range(len(y))),
               flint.arb(0))


def _drift(out, u, K):
    """ds' = s' + (K₁ + 2K₂u)·g·u from the field's ``out``."""
    return [out[1 + 2 * i] + (K[0][i] + 2 * K[1][i] * u) * out[6] * u for i in range(2)]


def centre(cf, ds, u):
    """The fast centre f_c = f* + G·ds + H·u + Σ Q·(monomials of degree 2 in x = (ds, u)) and
    its gradients in x, per fast entry."""
    fs, G, H, Q = cf
    x = [ds[0], ds[1], u]
    mono = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
    fc, grads = [], []
    for i in range(3):
        lin = [G[i][0], G[i][1], H[i]]
        fc.append(fs[i] + sum((c * xa for c, xa in zip(lin, x)), flint.arb(0))
                  + sum((Q[i][m] * x[a] * x[b] for m, (a, b) in enumerate(mono)), flint.arb(0)))
        d = list(lin)
        for m, (a, b) in enumerate(mono):
            d[a] = d[a] + Q[i][m] * x[b]
            d[b] = d[b] + Q[i][m] * x[a]
        grads.append(d)
    return fc, grads


def _rhs(out, u, K):
    """u·δ' = u·f' − u·∂_s f_c·ds' + ∂_u f_c·g·u² (3 entries) from the field's ``out`` (its
    entry 7: the centre's gradients)."""
    dd, grads = _drift(out, u, K), out[7]
    return [x - (gr[0] * dd[0] + gr[1] * dd[1]) * u + gr[2] * out[6] * u * u
            for x, gr in zip((out[2], out[4], out[5]), grads)]


def _seeded(x):
    return [Dual(xi, [flint.arb(int(i == c)) for c in range(len(x))]) for i, xi in enumerate(x)]


def _mean_value(fn, box) -> tuple:
    """fn over the box of balls, in the mean-value form fn(c) + ∂fn(box)·(x − c), and the
    variable whose term is widest (the one to halve when a test fails)."""
    c = [flint.arb(x.mid()) for x in box]
    out, width = [], [0.0] * len(box)
    for v, d in zip(fn(c), fn(_seeded(box))):
        if isinstance(d, Dual):
            terms = [gi * (x - ci) for gi, x, ci in zip(d.d, box, c)]
            width = [max(a, float(t.rad())) for a, t in zip(width, terms)]
            v = v + sum(terms, flint.arb(0))
        out.append(v)
    return out, max(range(len(box)), key=width.__getitem__)


class Halve(NotProved):
    """A failed test that names the variable to halve."""

    def __init__(self, msg, axis):
        super().__init__(msg)
        self.axis = axis


def fast_side(at, u, ds, full_f, cf, K, Pf, kf, r):
    """On ‖δ‖_Pf = r, with s in the box ``ds`` and u in its piece: F(δ) = u·δ' (:func:`_rhs`) =
    F(0) + J̃δ with J̃ in the balls of ∂F/∂δ over the fast box (mean value), so δᵀPf·F(δ) ≤
    r·‖F(0)‖_Pf − kf·r² when J̃ᵀPf + PfJ̃ ≼ −2kf·Pf; F(0) in the mean-value form in (s, u)."""
    zero = [flint.arb(0)] * 3
    F0, ax = _mean_value(lambda x: _rhs(at(x[2], x[:2], zero), x[2], K),
                         list(ds) + [u])
    out = at(u, ds, _seeded(full_f))
    J = _rhs(out, u, K)
    Jm = flint.arb_mat(3, 3, [J[i].d[c] for i in range(3) for c in range(3)])
    if not contracts(flint.arb_mat(Pf), Jm, flint.arb(kf)):
        raise NotProved("the region is not proved invariant: on its fast side, u·f' does not "
                        "contract at the witness's fast_rate in ‖·‖_Pf")
    size = p_norm(flint.arb_mat(Pf), F0)
    if not size < flint.arb(kf) * r:
        raise Halve("the region is not proved invariant: on its fast side, the forcing "
                    f"‖F(0)‖_Pf ({_span(size)}) is not below fast_rate·r", ax)
    return out[6].v     # g over the box


def _halves(x):
    m, h = x.mid(), x.rad() / 2
    return [m - h + flint.arb(0, 1) * h, m + h + flint.arb(0, 1) * h]


def cover(test, box, depth, work) -> None:
    """test(box) on the box of balls, or else on its 2ⁿ halves, down to ``depth`` halvings;
    ``work`` = [tests left] bounds the total (NotProved when a leaf fails or work runs out)."""
    work[0] -= 1
    if work[0] < 0:
        raise NotProved("the region's checks need more cells than the work limit allows")
    try:
        test(box)
    except NotProved as exc:
        if depth == 0:
            raise
        ax = getattr(exc, "axis", None)
        for child in itertools.product(*(_halves(x) if ax in (None, i) else [x]
                                         for i, x in enumerate(box))):
            cover(test, list(child), depth - 1, work)


def slow_test(at, Lit, Pa, rho, full_f, K, unseen):
    """The slow side on an angle interval and a u interval (box = [θ/π, u]): ds = ρ·L⁻ᵀ(cos θ,
    sin θ) with Ps = LLᵀ, f anywhere in its band: dsᵀPs·ds' < 0, mean-value form in (ds, u, δ)
    — except where ``unseen`` (γ < 0, proved on the box: Σ(t) never goes there)."""
    def test(box):
        th = box[0] * flint.arb.pi()
        ds = (Lit * flint.arb_mat(2, 1, [th.cos(), th.sin()]) * rho).entries()
        if unseen(ds, box[1]):
            return

        def side(x):
            dd = _drift(at(x[2], x[:2], x[3:]), x[2], K)
            return [sum((x[a] * Pa[a, b] * dd[b] for a in range(2) for b in range(2)),
                        flint.arb(0))]
        val, ax = _mean_value(side, list(ds) + [box[1]] + full_f)
        if not val[0] < 0:
            raise Halve("the region is not proved invariant: on its slow side, "
                        f"dsᵀPs·ds' < 0 fails ({_span(val[0])})", 1 if ax == 2 else 0)
    return test


def check_region(problem, w, work=MAX_TESTS):
    """The side conditions of R (module docstring); returns (min, max) of g on R."""
    p = problem.params
    A, V, B = (permuted(M.tolist(), w["axis"]) for M in (p.A, *p.heads[0]))
    k, br = w["k"], w["branch"]
    if (br == 0) != (B[k + 1][k + 1] == 0):
        raise Invalid("witness.branch must be 0 exactly when B's coefficient of y_k² is 0")
    A, V, B = ([[flint.arb(x) for x in row] for row in M] for M in (A, V, B))
    ss, fs = [flint.arb(x) for x in w["s_star"]], [flint.arb(x) for x in w["f_star"]]
    G = [[flint.arb(w["G"][i, c]) for c in range(2)] for i in range(3)]
    K = [[flint.arb(w["K"][i, c]) for c in range(2)] for i in range(2)]
    cf = (fs, G, [flint.arb(x) for x in w["H"]],
          [[flint.arb(w["Q"][i, c]) for c in range(6)] for i in range(3)])
    Ps, Pf = w["Ps"], w["Pf"]
    rho, r, kf = flint.arb(w["rho"]), flint.arb(w["r"]), w["fast_rate"]
    m = w["u_pieces"]
    us = [flint.arb(flint.fmpq(2 * i + 1, 2 * m) * w["u_max"], flint.fmpq(1, 2 * m) * w["u_max"])
          for i in range(m)]
    fbox, sbox = _box(Pf, w["r"]), _box(Ps, w["rho"])

    def at(u, ds, df):
        fc, grads = centre(cf, ds, u)
        fv = [c + d for c, d in zip(fc, df)]
        sv = [ss[i] + (K[0][i] + K[1][i] * u) * u + ds[i] for i in range(2)]
        z = [u, sv[0], fv[0], sv[1], fv[1], fv[2]]
        out = field(A, V, B, z, k, br, _sqrt)
        if not all(x.is_finite() for x in out):
            raise NotProved("the coordinates are not proved a chart on the region (a square "
                            "root of a ball reaching below 0, or |w̃| not proved > 0)")
        return out + [grads]
    Pa = flint.arb_mat(Ps)
    Lit = cholesky_inv_t(Pa)
    full_f = [h * flint.arb(0, 1) for h in fbox]
    work, depth, bounds, rho2 = [work], w["depth"], [], flint.arb(w["rho"]) ** 2

    def unseen(ds, u):      # γ = (Jw̃)ᵀC(Jw̃)/|w̃|² ≥ 0, as C ⪰ 0 (Σ(t) = Φ(t)Σ₀Φ(t)ᵀ ⪰ 0)
        return ss[1] + (K[0][1] + K[1][1] * u) * u + ds[1] < 0

    def fast_test(box):
        ds, u = box[:2], box[2]
        q = _quad(ds, Ps, ds)
        if q.mid() - q.rad() > rho2 or unseen(ds, u):
            return      # the box misses the slow ball, or lies where γ < 0
        bounds.append(fast_side(at, u, ds, full_f, cf, K, Pf, kf, r))
    stest = slow_test(at, Lit, Pa, rho, full_f, K, unseen)
    for u in us:
        for i in range(w["arcs"]):
            th = flint.arb(flint.fmpq(2 * i + 1, w["arcs"]), flint.fmpq(1, w["arcs"]))
            cover(stest, [th, u], depth, work)
        for ds in _cells(sbox, w["slow_cells"]):
            cover(fast_test, list(ds) + [u], depth, work)
    if not bounds:
        raise NotProved("no cell of the region has γ ≥ 0")
    lo = min(g.mid() - g.rad() for g in bounds)
    hi = max(g.mid() + g.rad() for g in bounds)
    return lo, hi


def coordinates(B, S, k, branch):
    """(u, s = (p, γ), f = (η, ξ₀, ξ₁)) of the permuted Σ (an arb_mat, σ = Σ₀₀ > 0 proved),
    and the branch test: ``branch``·(2α·y_k + β) > 0 when q is quadratic in y_k."""
    sig = S[0, 0]
    if not sig > 0:
        raise NotProved("Σ_jj(t0) > 0 is not proved")
    y = [S[1, 0] / sig, S[2, 0] / sig]
    C = [[S[a + 1, b + 1] - S[a + 1, 0] * S[b + 1, 0] / sig for b in range(2)] for a in range(2)]
    v = [flint.arb(1), y[0], y[1]]
    q = sum((B[a][b] * v[a] * v[b] for a in range(3) for b in range(3)), flint.arb(0))
    wt = _tmv(B, v)[1:]
    n2 = wt[0] * wt[0] + wt[1] * wt[1]
    Jw = [-wt[1], wt[0]]
    xi = [sig * (C[a][0] * wt[0] + C[a][1] * wt[1]) for a in range(2)]
    gam = sum((Jw[a] * C[a][b] * Jw[b] for a in range(2) for b in range(2)), flint.arb(0)) / n2
    K1, J1 = k + 1, 2 - k
    if branch != 0 and not branch * (2 * B[K1][K1] * y[k] + B[0][K1] + B[K1][0]
                                     + (B[J1][K1] + B[K1][J1]) * y[1 - k]) > 0:
        raise NotProved("y_k at t0 is not proved on the witness's branch of q = u·η")
    return 1 / sig, [y[1 - k], gam], [sig * q, xi[0], xi[1]]


def entry(problem, w, end, r_end) -> None:
    """Σ within r_end (metric I) of the svec ``end`` lies in R (else NotProved)."""
    S = sym_of(end, 3, upper(r_end))
    j = w["axis"]
    S = flint.arb_mat(permuted([[S[a, b] for b in range(3)] for a in range(3)], j))
    B = [[flint.arb(x) for x in row] for row in permuted(problem.params.heads[0][1].tolist(), j)]
    u, s, f = coordinates(B, S, w["k"], w["branch"])
    K = w["K"]
    ds = [s[i] - flint.arb(w["s_star"][i]) - (flint.arb(K[0, i]) + flint.arb(K[1, i]) * u) * u
          for i in range(2)]
    cf = ([flint.arb(x) for x in w["f_star"]],
          [[flint.arb(w["G"][i, c]) for c in range(2)] for i in range(3)],
          [flint.arb(x) for x in w["H"]], [[flint.arb(w["Q"][i, c]) for c in range(6)]
                                           for i in range(3)])
    df = [a - b for a, b in zip(f, centre(cf, ds, u)[0])]
    if not (u <= flint.arb(w["u_max"]) and p_norm(flint.arb_mat(w["Ps"]), ds) < flint.arb(w["rho"])
            and p_norm(flint.arb_mat(w["Pf"]), df) < flint.arb(w["r"])):
        raise NotProved("Σ(t0) is not proved inside the region (u ≤ u_max, ‖ds‖_Ps < ρ, "
                        "‖δ‖_Pf < r)")


def check(kind, claim, witness, problem, ctx) -> None:
    p = problem.params
    if p is None or len(p.heads) != 1:
        raise Invalid("growth-schur certificates are for time-invariant parameters with one head")
    if (witness["slow_cells"] ** 2 + witness["arcs"]) * witness["u_pieces"] > MAX_CELLS:
        raise Invalid(f"over a limit: (slow_cells² + arcs) × u_pieces ≤ {MAX_CELLS}")
    steps = read_timed_steps(witness, ctx.n, 1, claim["t_enter"], problem.d)
    require_pd(witness["Ps"], "witness.Ps")
    require_pd(witness["Pf"], "witness.Pf")
    w = {**witness, "axis": claim["axis"],
         **{key: list(witness[key].entries()) for key in ("s_star", "f_star", "H")}}
    with flint.ctx.workprec(witness["prec"]):     # the cheap parts first, the region last
        end, r_end = steps_in_region_metric(Flow(p), eye(ctx.n), 1, svec_of(problem.cov0), steps,
                                            witness, ctx.n)
        entry(problem, w, end, r_end)
        g_lo, g_hi = check_region(problem, w)
        if not (flint.arb(claim["rate_lower"]) <= g_lo and g_hi <= flint.arb(claim["rate_upper"])):
            raise NotProved(f"g on the region lies in [{float(g_lo):.6g}, {float(g_hi):.6g}], "
                            "not within the claimed [rate_lower, rate_upper]")
