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

Then (witness ``compact_steps``, ``compact_P`` ((n+2)×(n+2)), ``compact_ell`` ≤ λmin, optional
``compact_metrics``: changes of metric along the steps, as ``metrics`` of kind ``limit``): from the
enclosure of Σ(t0) (z0 = (w = 0, u0, Y0) in ball arithmetic, its midpoint the exact start, the
‖·‖_P-distance to it the start radius) validated steps of the compactified field with the elapsed
time w (dw/dτ = u, :class:`CompactFlow`; the step check of :mod:`symgauss.kernel.flow`, which
needs no more than a polynomial field, or C¹ steps, key ``nu``, :mod:`symgauss.kernel.steps`, with
:meth:`CompactFlow.tangent_matrices`) carry z to τ_N, where it must lie in E; then T* ∈
t0 + w(τ_N) + [u(τ_N)/K, u(τ_N)/κ]. Σ = Y/u exists on [t0, t0 + w(τ_N)] since u > 0 there
(u' = −ug keeps its sign). Near T* the compactified flow contracts, so these steps keep their
accuracy where steps of eq. 1.1 lose it (errors there grow with ‖Σ‖). No compactified steps:
z(t0) itself must lie in E.

Claim: as kind ``blowup``. Witness: ``steps``, ``order``, ``prec`` (from metric I, optional
``metrics``: its changes of metric, as kind ``limit``; Σ(t0)'s box is read in the last one),
``center`` Y* (d×d), ``P`` ((n+1)×(n+1), u first), ``ell`` ≤ λmin(P), ``rho``, ``rate`` λ,
and the three ``compact_*`` keys above.
"""
from __future__ import annotations

import flint

from symgauss.kernel.exact import eye, require_pd
from symgauss.kernel.flow import (
    Flow,
    contracts_box,
    p_norm,
    pairs,
    require_work,
    slopes,
    spreads,
    svec_of,
    sym_of,
    upper,
)
from symgauss.kernel.kinds.blowup import SCHEMAS as BLOWUP
from symgauss.kernel.kinds.blowup import check_claim
from symgauss.kernel.kinds.blowup import statement as blowup_statement
from symgauss.kernel.kinds.limit import (
    MAX_D,
    MAX_ORDER,
    MAX_PREC,
    MIN_PREC,
    read_steps,
    read_switches,
    step_counts,
)
from symgauss.kernel.schema import Field, Schema, integer, mat, positive, raw, sym
from symgauss.kernel.steps import check_steps
from symgauss.kernel.verdict import Invalid, NotProved

#: a change of metric of the compactified steps, in compactified steps (0.49 s at d = 5, 8 heads,
#: 512 bits, where a compactified step at order 30 takes about 0.25 s)
SWITCH_WORK = 4
SCHEMAS = {"blowup-infinity": Schema(
    BLOWUP["blowup"].claim,
    {"steps": Field(raw), "order": Field(integer(2, MAX_ORDER)),
     "prec": Field(integer(MIN_PREC, MAX_PREC)), "center": Field(sym("d")), "P": Field(raw),
     "ell": Field(positive), "rho": Field(positive), "rate": Field(positive),
     "compact_steps": Field(raw), "compact_P": Field(raw), "compact_ell": Field(positive),
     "compact_metrics": Field(raw, False), "metrics": Field(raw, False)},
    "rigorous", {"d": MAX_D})}


def statement(kind, claim, problem) -> str:
    return blowup_statement(kind, claim, problem)


def trace(S):
    """tr S of an arb_mat, a ball (flint's sum of the diagonal)."""
    return S.trace()


class Compact:
    """The compactified field G(u, Y), g, and the Jacobian of G (svec coordinates, u first)."""

    def __init__(self, flow: Flow):
        self.f = flow

    def lin(self, Y):
        X = self.f.A * Y
        return X + X.transpose()

    def quad(self, Y, E=None, WY=None):
        """Q(Y), or its derivative DQ(Y)[E] (W(Y) = Σ_h V_hYB_h: Q(Y) = W(Y)Y + transpose);
        ``WY``: W(Y) when the caller has it."""
        at = self.f.attention
        WY = at(Y) if WY is None else WY
        X = WY * Y if E is None else at(E) * Y + WY * E
        return X + X.transpose()

    def g(self, u, Y):
        return u * trace(self.lin(Y)) + trace(self.quad(Y))

    def field(self, u, Y):
        g = self.g(u, Y)
        return [-u * g] + svec_of(self.lin(Y) * u + self.quad(Y) - Y * g)

    def jacobian(self, u, Y):
        """DG at (u, Y): column 0 along u, then along each svec unit E (DQ(Y)[E] = W(E)Y + W(Y)E
        + transpose, W(Y) once)."""
        d, at = self.f.d, self.f.attention
        LY, WY, g = self.lin(Y), at(Y), self.g(u, Y)
        trLY = trace(LY)
        cols = [[-g - u * trLY] + svec_of(LY - Y * trLY)]      # along u: dg = tr L(Y)
        for i, j in pairs(d):
            E = flint.arb_mat(d, d)
            E[i, j] = E[j, i] = 1
            LE, QE = self.lin(E), self.quad(Y, E, WY)
            dg = u * trace(LE) + trace(QE)
            cols.append([-u * dg] + svec_of(LE * u + QE - E * g - Y * dg))
        m = len(cols)
        return flint.arb_mat(m, m, [cols[c][r] for r in range(m) for c in range(m)])


class CompactFlow:
    """G as a field to step (:func:`symgauss.kernel.steps.check_steps` sees only these five
    methods): state z = (u, svec Y), or with ``elapsed`` z = (w, u, svec Y) with the elapsed time
    w (dw/dτ = u, so t = t0 + w), an arb_mat column. G is cubic, so DG is quadratic: the
    second-order bound of :func:`symgauss.kernel.flow.widening`."""
    affine = False

    def __init__(self, flow: Flow, elapsed: bool = True):
        self.c, self.d, self.w = Compact(flow), flow.d, int(elapsed)
        self.m = len(pairs(flow.d)) + 1 + self.w

    def box(self, x, rad=None):
        rads = rad if isinstance(rad, list) else [rad] * len(x)
        return flint.arb_mat(self.m, 1, [flint.arb(v) if r is None else flint.arb(v) +
                                         flint.arb(0, r) for v, r in zip(x, rads)])

    def coords(self, z) -> list:
        return [z[i, 0] for i in range(self.m)]

    def _split(self, z):
        return z[self.w, 0], sym_of(self.coords(z)[self.w + 1:], self.d)

    def field(self, z):
        u, Y = self._split(z)
        return flint.arb_mat(self.m, 1, [u] * self.w + self.c.field(u, Y))

    def jacobian(self, z):
        u, Y = self._split(z)
        Jc = self.c.jacobian(u, Y)
        if not self.w:
            return Jc
        J = flint.arb_mat(self.m, self.m)
        J[0, 1] = 1
        for i in range(self.m - 1):
            for j in range(self.m - 1):
                J[i + 1, j + 1] = Jc[i, j]
        return J

    def _series(self, z0, order: int) -> tuple:
        """(w, u, Y, g, W): the coefficient lists of :meth:`taylor` (g to order − 1; W_i =
        Σ_h V_hY_iB_h, once per coefficient). With N_i = u_iA + W_i (once per coefficient),
        L_k + Q_k = Z_k + Z_kᵀ for Z_k = Σ_{i≤k} N_iY_{k−i}: one matrix product per term."""
        u0, Y0 = self._split(z0)
        w, u, Y, g = [z0[0, 0] if self.w else 0], [u0], [Y0], []
        A, at = self.c.f.A, self.c.f.attention
        W, N = [at(Y0)], []
        for k in range(order):
            N.append(A * u[k] + W[k])
            Z = sum((N[i] * Y[k - i] for i in range(1, k + 1)), N[0] * Y[k])
            LQ = Z + Z.transpose()
            g.append(trace(LQ))
            w.append(u[k] / (k + 1))
            u.append(-sum((u[i] * g[k - i] for i in range(k + 1)), flint.arb(0)) / (k + 1))
            Y.append((LQ - sum((Y[i] * g[k - i] for i in range(1, k + 1)), Y[0] * g[k]))
                     / (k + 1))
            W.append(at(Y[-1]))
        return w, u, Y, g, W

    def _column(self, w, u, Y):
        return flint.arb_mat(self.m, 1, [w] * self.w + [u] + svec_of(Y))

    def taylor(self, z0, order: int) -> list:
        """Taylor coefficients z_0..z_order: g_k = tr(L_k + Q_k) with L_k = L(Σ_i u_iY_{k−i}),
        Q_k = Σ_i W_iY_{k−i} + transpose (W_i = Σ_h V_hY_iB_h), then u_{k+1} =
        −Σ_i u_ig_{k−i}/(k+1), Y_{k+1} = (L_k + Q_k − Σ_i Y_ig_{k−i})/(k+1), w_{k+1} = u_k/(k+1)."""
        w, u, Y, _, _ = self._series(z0, order)
        return [self._column(w[k], u[k], Y[k]) for k in range(order + 1)]

    def tangents(self, z0, order: int, dirs) -> list:
        """For each direction D (an m×1 column, exact or a box) the derivatives dz_0..dz_order of
        the Taylor coefficients through z0 along D (dz_0 = D): :meth:`taylor`'s recursion,
        differentiated by the product rule (dL_k = L(Σ_i (du_i·Y_{k−i} + u_i·dY_{k−i})), dQ_k =
        Σ_i (dW_i·Y_{k−i} + W_i·dY_{k−i}) + transpose with dW_i = Σ_h V_h·dY_i·B_h, dg_k = tr(dL_k + dQ_k), du_{k+1} = −Σ_i (du_i·
        g_{k−i} + u_i·dg_{k−i})/(k+1), dY_{k+1} = (dL_k + dQ_k − Σ_i (dY_i·g_{k−i} + Y_i·
        dg_{k−i}))/(k+1), dw_{k+1} = du_k/(k+1)); for the C¹ steps
        (:func:`symgauss.kernel.steps.c1_step`)."""
        _, u, Y, g, W = self._series(z0, order)
        at, out = self.c.f.attention, []
        for D in dirs:
            du0, dY0 = self._split(D)
            dw, du, dY, dg = [D[0, 0] if self.w else 0], [du0], [dY0], []
            dW = [at(dY0)]
            for k in range(order):
                dL = self.c.lin(sum((dY[k - i] * u[i] + Y[k - i] * du[i] for i in range(k + 1)),
                                    flint.arb_mat(self.d, self.d)))
                dQ = sum((dW[i] * Y[k - i] + W[i] * dY[k - i] for i in range(k + 1)),
                         flint.arb_mat(self.d, self.d))
                dQ = dQ + dQ.transpose()
                dg.append(trace(dL) + trace(dQ))
                dw.append(du[k] / (k + 1))
                du.append(-sum((du[i] * g[k - i] + u[i] * dg[k - i] for i in range(k + 1)),
                               flint.arb(0)) / (k + 1))
                dY.append((dL + dQ - sum((dY[i] * g[k - i] + Y[i] * dg[k - i]
                                          for i in range(k + 1)),
                                         flint.arb_mat(self.d, self.d))) / (k + 1))
                dW.append(at(dY[-1]))
            out.append([self._column(dw[k], du[k], dY[k]) for k in range(order + 1)])
        return out

    def tangent_matrices(self, z0, order: int) -> list:
        """D_0..D_order: the m×m matrices of the derivatives of the Taylor coefficient maps at z0
        (column j is :meth:`tangents` along the j-th unit), all directions at once. The terms of
        :meth:`tangents`' recursion that pair dz_j with a coefficient of index k − j make a map
        𝒩_{k−j} (m×m); dg_k = Σ_j ℓ_{k−j}·dz_j with rows ℓ; so R_k = Σ_j ℓ_{k−j}·D_j and
        D_{k+1} = (Σ_j 𝒩_{k−j}·D_j − Σ_i c_i·R_{k−i})/(k+1), c_i = (0, u_i, svec Y_i)."""
        _, u, Y, g, _ = self._series(z0, order)
        m, w = self.m, self.w
        # the units (du, dY) and L(dY), the same for every k
        units = [self._split(flint.arb_mat(m, 1, [int(i == j) for i in range(m)]))
                 for j in range(m)]
        units = [(du, dY, self.c.lin(dY)) for du, dY in units]
        maps, rows = [], []
        for k in range(order):
            LY = self.c.lin(Y[k])
            Wk = self.c.f.attention(Y[k])
            cols, ell = [], []
            for du, dY, LdY in units:
                N = self.c.quad(Y[k], dY, Wk)
                dL = LdY * u[k] + LY * du
                ell.append(trace(dL) + trace(N))
                dw = du if (w and k == 0) else flint.arb(0)
                cols.append([dw] * w + [-g[k] * du] + svec_of(dL + N - dY * g[k]))
            maps.append(flint.arb_mat(m, m, [cols[c][r] for r in range(m) for c in range(m)]))
            rows.append(flint.arb_mat(1, m, ell))
        cs = [flint.arb_mat(m, 1, [0] * w + [u[i]] + svec_of(Y[i])) for i in range(order)]
        D, R = [flint.arb_mat(m, m, [int(i == j) for i in range(m) for j in range(m)])], []
        for k in range(order):
            R.append(sum((rows[k - j] * D[j] for j in range(1, k + 1)), rows[k] * D[0]))
            acc = maps[0] * D[k]
            for j in range(k):
                acc = acc + maps[k - j] * D[j]
            for i in range(k + 1):
                acc = acc - cs[i] * R[k - i]
            D.append(acc / (k + 1))
        return D


def check_region(flow, P, ell, rho, rate, Ystar):
    """The region at infinity (module docstring): returns the ball of g on it."""
    d, cf, Pa = flow.d, CompactFlow(flow, elapsed=False), flint.arb_mat(P)
    cp = cf.c
    centre = svec_of(flint.arb_mat(Ystar))
    if not p_norm(Pa, cp.field(flint.arb(0), sym_of(centre, d))) ** 2 < \
            flint.arb(rate) ** 2 * flint.arb(rho):
        raise NotProved("‖G(z*)‖_P² < rate²·rho fails: the region is not proved invariant")
    # E lies in the box z* ± √ρ·s_i (s_i from flow.spreads); DG on it by flow.widening
    radii = [upper(flint.arb(rho).sqrt() * s) for s in spreads(Pa, ell)]
    if not contracts_box(cf, Pa, [0] + centre, radii, flint.arb(rate), slopes(cf, Pa)):
        raise NotProved("the compactified flow is not proved to contract on the region")
    ubox, Ybox = flint.arb(0, radii[0]), sym_of(centre, d, radii[1:])
    g = cp.g(ubox, Ybox)
    if not (g > 0 and trace(Ybox) > 0):
        raise NotProved("g = u·tr L(Y) + tr Q(Y) > 0 and tr Y > 0 are not proved on the region")
    return g


def enclosure_at(P, rho, Ystar, g, u0, Y0, t):
    """(lower, upper) arb bounds of T* when z = (u0, Y0) (balls; the true u0 > 0) at time t (a
    ball) is in the region: T* ∈ t + [u0/K, u0/κ]."""
    z = [u0] + svec_of(Y0)
    zc = [flint.arb(0)] + svec_of(flint.arb_mat(Ystar))
    if not p_norm(flint.arb_mat(P), [a - b for a, b in zip(z, zc)]) < flint.arb(rho).sqrt():
        raise NotProved("Σ(t0), compactified, is not proved inside the region at infinity")
    lo_u, hi_u = u0.mid() - u0.rad(), u0.mid() + u0.rad()
    return (t.mid() - t.rad()) + lo_u / (g.mid() + g.rad()), \
        (t.mid() + t.rad()) + hi_u / (g.mid() - g.rad())


def compact_start(flow, end, r_end, P2, spread=None):
    """(c0, r0): z(t0) = (0, 1/tr Σ, Σ/tr Σ) is within ‖·‖_P2-distance r0 of the exact c0, for
    Σ(t0) within r_end of the svec ``end`` in the metric whose :func:`spreads` are ``spread``
    (default: metric I)."""
    S = sym_of(end, flow.d, [upper(r_end * s) for s in spread] if spread else upper(r_end))
    tr = trace(S)
    if not tr > 0:
        raise NotProved("tr Σ(t0) > 0 is not proved")
    z0 = [flint.arb(0), 1 / tr] + svec_of(S / tr)
    c0 = [x.mid() for x in z0]
    return c0, p_norm(P2, [x - c for x, c in zip(z0, c0)])


def to_infinity(flow, problem, witness, legs) -> tuple:
    """(t, u, Y) as balls holding the state at the end of both legs (module docstring; ``legs``
    from :func:`read_compact`): the steps of eq. 1.1 from Σ0 in metric I (changing metric as
    ``metrics`` says), then the compactified steps from Σ(t0)'s box in the metric they end in."""
    steps, first, compact, P2, switches = legs
    n = len(svec_of(problem.cov0))
    end, r_end = check_steps(flow, flint.arb_mat(eye(n)), flint.fmpq(1), svec_of(problem.cov0),
                             steps, witness["order"], switches=first)
    P1, ell1, _ = first[max(first)] if first else (eye(n), flint.fmpq(1), None)
    c0, r0 = compact_start(flow, end, r_end, flint.arb_mat(P2), spreads(flint.arb_mat(P1), ell1))
    Pc, ellc = flint.arb_mat(P2), witness["compact_ell"]
    c, r = check_steps(CompactFlow(flow), Pc, ellc, c0, compact, witness["order"], r0,
                       switches=switches)
    if switches:
        Pc, ellc, _ = switches[max(switches)]
        Pc = flint.arb_mat(Pc)
    z = [flint.arb(x) + flint.arb(0, upper(r * s)) for x, s in zip(c, spreads(Pc, ellc))]
    t0 = sum((h for h, _, _, _ in steps), flint.fmpq(0))
    return flint.arb(t0) + z[0], z[1], sym_of(z[2:], flow.d)


def read_compact(witness, ctx, extra_work: int = 0) -> tuple:
    """(steps, their changes of metric, compact_steps, compact_P, theirs) read and checked (work
    budget with ``extra_work`` more steps' worth of eq. 1.1, compact_P − compact_ell·I ≻ 0, the
    changes of metric). A compactified step costs what :data:`symgauss.kernel.flow.STEP_COST`
    says (the products u·g and Y·g, the second-order log-norm bound), a change of metric of the
    compactified steps (its second-order slopes, (n + 2)² Jacobians) SWITCH_WORK of them, one of
    eq. 1.1's (DF is affine) about one step, as in kind ``limit``."""
    n = ctx.n
    steps = read_steps(witness["steps"], n)
    compact = read_steps(witness["compact_steps"], n + 2, "witness.compact_steps")
    metrics = witness.get("compact_metrics", [])
    first = witness.get("metrics", [])
    n_switches = len(metrics) if isinstance(metrics, list) else 0
    plain, c1 = step_counts(steps)
    compact_plain, compact_c1 = step_counts(compact)
    require_work(ctx.problem.d, len(ctx.problem.params.heads), witness["order"], witness["prec"],
                 plain + extra_work + (len(first) if isinstance(first, list) else 0),
                 compact_plain + SWITCH_WORK * n_switches, c1=c1, compact_c1=compact_c1)
    P2 = mat(n + 2, n + 2)(witness["compact_P"], "witness.compact_P", ctx)
    if P2.transpose() != P2:
        raise Invalid("witness.compact_P is not symmetric")
    require_pd(P2 - eye(n + 2) * witness["compact_ell"], "witness.compact_P − compact_ell·I")
    first, _ = read_switches(first, n, eye(n), len(steps), "witness.metrics")
    switches, _ = read_switches(metrics, n + 2, P2, len(compact), "witness.compact_metrics")
    return steps, first, compact, P2, switches


def check(kind, claim, witness, problem, ctx) -> None:
    check_claim(claim, problem)
    n = ctx.n
    legs = read_compact(witness, ctx)
    P = mat(n + 1, n + 1)(witness["P"], "witness.P", ctx)
    if P.transpose() != P:
        raise Invalid("witness.P is not symmetric")
    require_pd(P - eye(n + 1) * witness["ell"], "witness.P − ell·I")
    with flint.ctx.workprec(witness["prec"]):
        flow = Flow(problem.params)
        t, u, Y = to_infinity(flow, problem, witness, legs)
        g = check_region(flow, P, witness["ell"], witness["rho"], witness["rate"],
                         witness["center"])
        t_lo, t_hi = enclosure_at(P, witness["rho"], witness["center"], g, u, Y, t)
        if not (flint.arb(claim["t_lower"]) < t_lo and t_hi <= flint.arb(claim["t_upper"])):
            raise NotProved(f"the proved enclosure [{t_lo.str(10)}, {t_hi.str(10)}] of T* is not "
                            "within the claimed (t_lower, t_upper]")
