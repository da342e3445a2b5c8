"""Checker for kind ``"blowup-infinity"``: finite-time blow-up for any V_h, B_h, proved by
validated steps to a large Σ(t0) and a contraction region of the compactified flow around an
equilibrium at infinity (a directional compactification, as in Matsue–Takayasu).

With L(Σ) = AΣ + ΣAᵀ and Q(Σ) = Σ_h(V_hΣB_hΣ + ΣB_hᵀΣV_hᵀ) (homogeneous quadratic), on all of
R × Sym(d) let

    du/dτ = −u·g,   dY/dτ = u·L(Y) + Q(Y) − Y·g,   g = u·tr L(Y) + tr Q(Y).

If z(τ) = (u, Y) solves this with u > 0, then Σ = Y/u solves Σ' = L(Σ) + Q(Σ) in the time t with
dt/dτ = u (dΣ/dτ = L(Y) + Q(Y)/u; divide by u). Start at u0 = 1/tr Σ(t0), Y0 = u0Σ(t0). If the
region E = {‖z − z*‖_P² ≤ ρ}, z* = (0, Y*), contracts at rate λ with ‖G(z*)‖_P² < λ²ρ (then it is
forward invariant, :mod:`symgauss.kernel.flow`), z(t0) ∈ E, and on the box holding E
κ ≤ g ≤ K with κ > 0 and tr Y > 0, then z(τ) stays in E for all τ ≥ 0, u0e^{−Kτ} ≤ u(τ) ≤
u0e^{−κτ}, so t(τ) = t0 + ∫u increases to T* ∈ [t0 + u0/K, t0 + u0/κ], and tr Σ = tr Y/u → ∞.

Claim: as kind ``blowup``. Witness: ``steps``, ``order``, ``prec`` (metric I, as kind ``limit``),
``center`` Y* (d×d), ``P`` ((n+1)×(n+1), u first), ``ell`` ≤ λmin(P), ``rho``, ``rate`` λ.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import eye, require_pd
from symgauss.kernel.flow import (
    Flow,
    check_steps,
    contracts,
    p_norm,
    pairs,
    require_work,
    svec_of,
    sym_of,
    upper,
)
from symgauss.kernel.kinds.blowup import SCHEMAS as BLOWUP
from symgauss.kernel.kinds.blowup import check_claim
from symgauss.kernel.kinds.blowup import statement as blowup_statement
from symgauss.kernel.kinds.limit import MAX_D, MAX_ORDER, MAX_PREC, MIN_PREC, read_steps
from symgauss.kernel.schema import Field, Schema, integer, mat, positive, raw, sym
from symgauss.kernel.verdict import Invalid, NotProved

SCHEMAS = {"blowup-infinity": Schema(
    BLOWUP["blowup"].claim,
    {"steps": Field(raw), "order": Field(integer(2, MAX_ORDER)),
     "prec": Field(integer(MIN_PREC, MAX_PREC)), "center": Field(sym("d")), "P": Field(raw),
     "ell": Field(positive), "rho": Field(positive), "rate": Field(positive)},
    "rigorous", {"d": MAX_D})}


def statement(kind, claim, problem) -> str:
    return blowup_statement(kind, claim, problem)


def _tr(S):
    return sum((S[i, i] for i in range(S.nrows())), flint.arb(0))


class Compact:
    """The compactified field G(u, Y), g, and the Jacobian of G (svec coordinates, u first)."""

    def __init__(self, flow: Flow):
        self.f = flow

    def lin(self, Y):
        X = self.f.A * Y
        return X + X.transpose()

    def quad(self, Y, E=None):
        """Q(Y), or its derivative DQ(Y)[E]."""
        X = flint.arb_mat(self.f.d, self.f.d)
        for V, B in self.f.heads:
            X = X + (V * Y * B * Y if E is None else V * E * B * Y + V * Y * B * E)
        return X + X.transpose()

    def g(self, u, Y):
        return u * _tr(self.lin(Y)) + _tr(self.quad(Y))

    def field(self, u, Y):
        g = self.g(u, Y)
        return [-u * g] + svec_of(self.lin(Y) * u + self.quad(Y) - Y * g)

    def jacobian(self, u, Y):
        d = self.f.d
        LY, g, cols = self.lin(Y), self.g(u, Y), []
        for k in range(len(pairs(d)) + 1):
            du, E = flint.arb(int(k == 0)), flint.arb_mat(d, d)
            if k:
                i, j = pairs(d)[k - 1]
                E[i, j] = E[j, i] = 1
            LE, QE = self.lin(E), self.quad(Y, E)
            dg = du * _tr(LY) + u * _tr(LE) + _tr(QE)
            cols.append([-du * g - u * dg] + svec_of(LY * du + LE * u + QE - E * g - Y * dg))
        m = len(cols)
        return flint.arb_mat(m, m, [cols[c][r] for r in range(m) for c in range(m)])


def check_region(flow, P, ell, rho, rate, Ystar):
    """The region at infinity (module docstring): returns (Compact, the ball of g on it)."""
    d, cp, Pa = flow.d, Compact(flow), flint.arb_mat(P)
    centre = svec_of(flint.arb_mat(Ystar))
    if not p_norm(Pa, cp.field(flint.arb(0), sym_of(centre, d))) ** 2 < \
            flint.arb(rate) ** 2 * flint.arb(rho):
        raise NotProved("‖G(z*)‖_P² < rate²·rho fails: the region is not proved invariant")
    w = upper((flint.arb(rho) / flint.arb(ell)).sqrt())
    ubox, Ybox = flint.arb(0, w), sym_of(centre, d, w)
    if not contracts(Pa, cp.jacobian(ubox, Ybox), flint.arb(rate)):
        raise NotProved("the compactified flow is not proved to contract on the region")
    g = cp.g(ubox, Ybox)
    if not (g > 0 and _tr(Ybox) > 0):
        raise NotProved("g = u·tr L(Y) + tr Q(Y) > 0 and tr Y > 0 are not proved on the region")
    return g


def enclosure(P, rho, Ystar, g, end, r_end, t0):
    """(lower, upper) arb bounds of T* when Σ(t0) (within r_end of ``end``) enters the region."""
    d = Ystar.nrows()
    S = sym_of(end, d, upper(r_end))
    tr = _tr(S)
    if not tr > 0:
        raise NotProved("tr Σ(t0) > 0 is not proved")
    u0 = 1 / tr
    z = [u0] + svec_of(S * u0)
    zc = [flint.arb(0)] + svec_of(flint.arb_mat(Ystar))
    if not p_norm(flint.arb_mat(P), [a - b for a, b in zip(z, zc)]) < flint.arb(rho).sqrt():
        raise NotProved("Σ(t0), compactified, is not proved inside the region at infinity")
    lo_u, hi_u = u0.mid() - u0.rad(), u0.mid() + u0.rad()
    t = flint.arb(t0)
    return t + lo_u / (g.mid() + g.rad()), t + hi_u / (g.mid() - g.rad())


def check(kind, claim, witness, problem, ctx) -> None:
    check_claim(claim, problem)
    n = ctx.n
    steps = read_steps(witness["steps"], n)
    p = problem.params
    require_work(len(steps), witness["order"], witness["prec"], len(p.heads))
    P = mat(n + 1, n + 1)(witness["P"], "witness.P", ctx)
    if P.transpose() != P:
        raise Invalid("witness.P is not symmetric")
    require_pd(P - eye(n + 1) * witness["ell"], "witness.P − ell·I")
    t0 = sum((h for h, _, _, _ in steps), flint.fmpq(0))
    with flint.ctx.workprec(witness["prec"]):
        flow = Flow(p)
        g = check_region(flow, P, witness["ell"], witness["rho"], witness["rate"],
                         witness["center"])
        end, r_end = check_steps(flow, flint.arb_mat(eye(n)), flint.fmpq(1),
                                 svec_of(problem.cov0), steps, witness["order"])
        t_lo, t_hi = enclosure(P, witness["rho"], witness["center"], g, end, r_end, t0)
        if not (flint.arb(claim["t_lower"]) < t_lo and t_hi <= flint.arb(claim["t_upper"])):
            raise NotProved(f"the proved enclosure [{t_lo.str(10)}, {t_hi.str(10)}] of T* is not "
                            "within the claimed (t_lower, t_upper]")
