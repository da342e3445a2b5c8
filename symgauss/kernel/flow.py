"""The moment flow in ball arithmetic: a validated step check and a contraction-region check.

Trusted kernel: standard library, python-flint (``arb``, ``arb_mat``) and the kernel only.
Coordinates are svec (entries i ≤ j, unscaled); ‖x‖_P = √(xᵀPx) for the witness metric P ≻ 0
with λmin(P) ≥ ℓ, so ‖x‖_∞ ≤ ‖x‖_2 ≤ ‖x‖_P/√ℓ.

**Step** (:func:`step`; a list: :func:`symgauss.kernel.steps.check_steps`). Given Σ(t_k)
within ‖·‖_P-distance r_k of the rational point c_k,
and the witness's h, β, μ, c_{k+1}:

1. a-priori box. B = {x : |x_i − m_i| ≤ β_i for every i}, m = c_k + (h/2)F(c_k) rounded, β
   one radius or one per svec coordinate. The P-ball lies in the box c_k ± r_k·s, s_i =
   min(1/√ℓ, √((P⁻¹)_ii)) (max of x_i on {xᵀPx ≤ r²} is r√((P⁻¹)_ii) by Cauchy–Schwarz; the
   inverse enclosed in ball arithmetic; call that box I). If the tube Σ_{j<q} T_j(I)·[0, h]^j +
   [0, h]^q·T_q(B) lies inside B (T_j the Taylor coefficient functions, x^{(j)} = j!·T_j(x),
   T_0(I) = I; q = TUBE_ORDER), every solution from the P-ball stays in B on [0, h]: at its
   first exit time τ ≤ h, componentwise Lagrange gives x_i(τ) = Σ_{j<q} T_j(x(0))_iτ^j +
   τ^q T_q(x(ξ_i))_i with x(ξ_i) ∈ B, so x(τ) is in the tube, inside B, a contradiction; the
   solution exists there since F is polynomial. (q = 1 is the classical c + [0, h]·F(B) test;
   a larger q allows steps past h·‖DF‖ ≈ 1.) One radius per coordinate keeps B thin where
   the P-ball and the drift are thin, so DF(B) spreads less (step 2).
2. log-norm. If μP − (JᵀP + PJ)/2 ≻ 0 for every J = DF(x), x ∈ B, two solutions in the
   convex B separate at most like e^{μt} in ‖·‖_P. DF is affine in x: DF(m + δ) = DF(m) +
   Σ_k δ_k J_k, J_k = DF(E_k) − DF(0) (E_k the svec unit matrices). With M_k = J_kᵀP + PJ_k
   and s_k ≥ ‖L⁻¹M_kL⁻ᵀ‖_F ≥ max |λ(P⁻¹M_k)| (P = LLᵀ; ball arithmetic, once per metric),
   −s_kP ⪯ M_k ⪯ s_kP, so the condition holds on all of B if (μ − Σ_k β_k s_k/2)P − (J(m)ᵀP + PJ(m))/2 ≻ 0
   at the single point m (:func:`contracts_box`); this keeps the affine structure that an
   interval matrix DF(B) loses (the latter is the fallback). A field whose DF is quadratic
   (the compactified flow of :mod:`symgauss.kernel.kinds.blowup_infinity`) adds the exact
   second-order term, :func:`widening`.
3. Taylor. φ_h(c_k) = Σ_{j<p} Σ_j(c_k) h^j + h^p Σ_p(ξ) componentwise (Lagrange), ξ on the
   solution, which lies in B; the recursion Σ_{j+1} = (AΣ_j + Σ_jAᵀ + Σ_h Σ_{i≤j}(W + Wᵀ))/(j+1),
   W = V_hΣ_iB_hΣ_{j−i}, evaluated on B encloses Σ_p(ξ).
4. r_{k+1} = e^{μh} r_k + ‖φ_h(c_k) − c_{k+1}‖_P (upper bounds).

**Contraction region** (:func:`check_region`). E = {x : ‖x − C‖_P² ≤ ρ}. If for every J = DF(S),
S in the box of radii √ρ·√((P⁻¹)_ii) around C (which holds E), −(JᵀP + PJ) − 2λP ≻ 0 (the
test of step 2, :func:`contracts_box`), and
‖F(C)‖_P² < λ²ρ, then E is forward invariant (on ∂E, d/dt ‖x − C‖_P² ≤ −2λρ + 2√ρ‖F(C)‖_P < 0)
and the flow contracts ‖·‖_P at rate λ on it: E holds exactly one equilibrium Σ*, every solution
entering E converges to it like e^{−λt}, and ‖Σ* − C‖_P ≤ ‖F(C)‖_P/λ.
"""
from __future__ import annotations

import flint

from symgauss.kernel.verdict import Invalid, NotProved


def pairs(d: int) -> list:
    return [(i, j) for i in range(d) for j in range(i, d)]


def units(d: int) -> list:
    """The svec units of Sym(d), E_ij + E_ji (E_ii when i = j), exact, in :func:`pairs` order."""
    out = []
    for i, j in pairs(d):
        E = flint.fmpq_mat(d, d)
        E[i, j] = E[j, i] = 1
        out.append(E)
    return out


def sym_of(x, d: int, rad=None) -> flint.arb_mat:
    """The symmetric matrix with svec x (arb or fmpq entries), each entry widened by ``rad``
    (one radius, or a list of one per svec coordinate)."""
    S = flint.arb_mat(d, d)
    rads = rad if isinstance(rad, list) else [rad] * len(x)
    for k, (i, j) in enumerate(pairs(d)):
        S[i, j] = S[j, i] = (flint.arb(x[k]) if rads[k] is None else
                             flint.arb(x[k]) + flint.arb(0, rads[k]))
    return S


def svec_of(S) -> list:
    return [S[i, j] for i, j in pairs(S.nrows())]


class Flow:
    """Eq. 1.1's covariance field for constant (A, heads), in ball arithmetic. A state is a
    symmetric arb_mat; :meth:`box` and :meth:`coords` convert from and to svec coordinates (the
    step check sees only those, so another field with the same five methods can be stepped)."""
    affine = True   # DF is affine in the state: the slopes bound of step 2 applies

    def __init__(self, params):
        self.A = flint.arb_mat(params.A)
        self.heads = [(flint.arb_mat(V), flint.arb_mat(B)) for V, B in params.heads]
        self.d = params.A.nrows()
        self._maps = None

    def box(self, x, rad=None):
        return sym_of(x, self.d, rad)

    def coords(self, S) -> list:
        return svec_of(S)

    def field(self, S):
        X = (self.A + self.attention(S)) * S
        return X + X.transpose()

    def attention(self, S):
        """Σ_h V_h·S·B_h (S a matrix or a box): the heads' part of M(S) = A + Σ_h V_hSB_h."""
        X = None
        for V, B in self.heads:
            X = V * S * B if X is None else X + V * S * B
        return flint.arb_mat(self.d, self.d) if X is None else X

    def taylor(self, S0, order: int) -> list:
        """Taylor coefficients Σ_0..Σ_order of the solution through S0: Σ_{k+1} = (AΣ_k +
        Σ_{i≤k} W_iΣ_{k−i} + transpose)/(k + 1), W_i = Σ_h V_hΣ_iB_h (the heads summed once per
        coefficient, so the convolution costs the same for any number of heads)."""
        S, W = [S0], [self.attention(S0)]
        for k in range(order):
            acc = self.A * S[k]
            if self.heads:
                for i in range(k + 1):
                    acc = acc + W[i] * S[k - i]
            acc = acc + acc.transpose()
            S.append(acc / (k + 1))
            W.append(self.attention(S[-1]))
        return S

    def tangents(self, S0, order: int, dirs) -> list:
        """For each direction D (a symmetric matrix, exact or a box) the derivatives dΣ_0..dΣ_order
        of the Taylor coefficients through S0 along D (dΣ_0 = D): :meth:`taylor`'s recursion,
        differentiated (dΣ_{k+1} = (A·dΣ_k + Σ_{i≤k} (dW_i·Σ_{k−i} + W_i·dΣ_{k−i}) +
        transpose)/(k + 1), dW_i = Σ_h V_h·dΣ_i·B_h); for the C¹ steps
        (:func:`symgauss.kernel.steps.c1_step`)."""
        S = self.taylor(S0, order)
        W = [self.attention(Sj) for Sj in S]
        out = []
        for D in dirs:
            dS, dW = [D], [self.attention(D)]
            for k in range(order):
                acc = self.A * dS[k]
                if self.heads:
                    for i in range(k + 1):
                        acc = acc + dW[i] * S[k - i] + W[i] * dS[k - i]
                acc = acc + acc.transpose()
                dS.append(acc / (k + 1))
                dW.append(self.attention(dS[-1]))
            out.append(dS)
        return out

    def tangent_matrices(self, S0, order: int) -> list:
        """D_0..D_order: the svec matrices of the derivatives of the Taylor coefficient maps at S0
        (D_0 = I; column k is :meth:`tangents` along the k-th svec unit). The recursion is linear
        in dΣ and its part from dΣ_i depends on k − i only: dΣ_{k+1} = (𝒜(dΣ_k) + Σ_{i≤k}
        𝒩_{k−i}(dΣ_i))/(k + 1), 𝒜(X) = AX + XAᵀ, 𝒩_m(X) = Σ_h (V_hXB_hΣ_m + V_hΣ_mB_hX) +
        transpose; so the n×n matrices of 𝒜 and 𝒩_0..𝒩_{order−1} are built once and multiplied
        (the n directions in one matrix product). 𝒩_m is linear in Σ_m: its matrix is
        Σ_p (svec Σ_m)_p·𝒩^(p), 𝒩^(p) that of the p-th svec unit (:meth:`_linear_maps`)."""
        S = self.taylor(S0, order)
        n = self.d * (self.d + 1) // 2
        A_map, stack = self._linear_maps()
        maps = [A_map] + [flint.arb_mat(n, n, (stack * flint.arb_mat(n, 1, svec_of(S[m])))
                                        .entries()) for m in range(order)]
        D = [flint.arb_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])]
        for k in range(order):
            acc = maps[0] * D[k]
            for i in range(k + 1):
                acc = acc + maps[1 + k - i] * D[i]
            D.append(acc / (k + 1))
        return D

    def _linear_maps(self) -> tuple:
        """(𝒜's svec matrix, the n²×n matrix whose column p is 𝒩^(p)'s svec matrix row by
        row), built once per flow (at the precision of its first use)."""
        if self._maps is None:
            n = self.d * (self.d + 1) // 2
            units = [unit(self, n, k) for k in range(n)]

            def entries_of(f):     # f(E) + transpose, in svec, for each unit E
                cols = [svec_of(X + X.transpose()) for X in map(f, units)]
                return [cols[k][r] for r in range(n) for k in range(n)]
            per_unit = [entries_of(lambda E, U=U: self.attention(E) * U + self.attention(U) * E)
                        for U in units]
            self._maps = (flint.arb_mat(n, n, entries_of(lambda E: self.A * E)),
                          flint.arb_mat(n * n, n, [per_unit[p][i] for i in range(n * n)
                                                   for p in range(n)]))
        return self._maps

    def jacobian(self, S):
        """svec matrix of DF(S) (n×n arb_mat; S may be a box)."""
        d = self.d
        M = self.A + self.attention(S)
        cols = []
        for i, j in pairs(d):
            E = flint.arb_mat(d, d)
            E[i, j] = E[j, i] = 1
            X = M * E
            for V, B in self.heads:
                X = X + V * E * B * S
            cols.append(svec_of(X + X.transpose()))
        n = len(cols)
        return flint.arb_mat(n, n, [cols[k][r] for r in range(n) for k in range(n)])


def positive_definite_balls(M) -> bool:
    """True only if every symmetric matrix with entries in the balls of M is ≻ 0 (arb LDLᵀ)."""
    n = M.nrows()
    W = [[M[i, j] for j in range(n)] for i in range(n)]
    for k in range(n):
        if not W[k][k] > 0:
            return False
        for i in range(k + 1, n):
            f = W[i][k] / W[k][k]
            for j in range(k + 1, n):
                W[i][j] = W[i][j] - f * W[k][j]
    return True


def p_norm(P, x) -> flint.arb:
    """A ball holding an upper bound of ‖x‖_P (x a list of arb; P ≻ 0)."""
    n = len(x)
    v = flint.arb_mat(n, 1, x)
    q = (v.transpose() * P * v)[0, 0]
    top = upper(q)
    return top.sqrt() if top > 0 else flint.arb(0)


def upper(x) -> flint.arb:
    """An exact (radius-free) arb ≥ every point of the ball x."""
    return flint.arb(x.mid() + x.rad())


def contracts(P, J, rate) -> bool:
    """−(JᵀP + PJ) − 2·rate·P ≻ 0 for every J in the ball matrix (rate may be negative)."""
    return positive_definite_balls(-(J.transpose() * P + P * J) - P * (2 * rate))


def unit(flow, n, *ks):
    x = [0] * n
    for k in ks:
        x[k] += 1
    return flow.box(x)


def cholesky_inverse(P):
    """L⁻¹ for P = LLᵀ (L lower triangular), a ball matrix holding the exact one for every P in
    the balls, or None when the factorisation or the inverse fails in ball arithmetic."""
    n = P.nrows()
    L = flint.arb_mat(n, n)
    for j in range(n):
        for i in range(j, n):
            v = P[i, j] - sum((L[i, k] * L[j, k] for k in range(j)), flint.arb(0))
            if i == j:
                if not v > 0:
                    return None
                L[j, j] = v.sqrt()
            else:
                L[i, j] = v / L[j, j]
    try:
        return L.inv()
    except ZeroDivisionError:
        return None


def slopes(flow, P):
    """Step 2's constants, once per metric (P ≻ 0 an arb_mat; P = LLᵀ, L enclosed in ball
    arithmetic). Affine DF: [s_k], s_k ≥ ‖L⁻¹(J_kᵀP + PJ_k)L⁻ᵀ‖_F ≥ max |λ(P⁻¹M_k)| for each
    coordinate k (module docstring). Quadratic DF (``flow.affine`` False: DF(m + δ) = DF(m) +
    Σ_k δ_kJ_k(m) + ½Σ_kl δ_kδ_lJ_kl exactly, J_k(m) = J_k(0) + Σ_l m_lJ_kl): (X0, X, S2) with
    X0_k = vec L⁻¹(J_k(0)ᵀP + PJ_k(0))L⁻ᵀ (n²×1), X_k the n²×n matrix of the columns vec X_kl,
    X_kl the same of J_kl, S2 = (s_kl) with s_kl ≥ ‖X_kl‖_F; J_kl = DF(E_k + E_l)
    − DF(E_k) − DF(E_l) + DF(0), J_k(0) = (DF(E_k) − DF(−E_k))/2. Infinite (no bound) if the
    factorisation fails in ball arithmetic."""
    n = P.nrows()
    Li = cholesky_inverse(P)
    if Li is None:
        return [flint.arb("inf")] * n

    def rel(J):
        return Li * (J.transpose() * P + P * J) * Li.transpose()

    J = [flow.jacobian(unit(flow, n, k)) for k in range(n)]
    J0 = flow.jacobian(unit(flow, n))
    if flow.affine:
        return [_frob(rel(Jk - J0)) for Jk in J]
    X = [[rel(flow.jacobian(unit(flow, n, k, m)) - J[k] - J[m] + J0) for m in range(n)]
         for k in range(n)]
    X0 = []
    for k in range(n):
        x = [0] * n
        x[k] = -1
        X0.append(_vec(rel((J[k] - flow.jacobian(flow.box(x))) / 2)))
    stacked = []    # per k, the n²×n matrix whose column l is vec X_kl
    for row in X:
        cols = [x.entries() for x in row]
        stacked.append(flint.arb_mat(n * n, n, [c[i] for i in range(n * n) for c in cols]))
    return X0, stacked, flint.arb_mat(n, n, [_frob(x) for row in X for x in row])


def _vec(X):
    """X's entries as a column (row by row)."""
    return flint.arb_mat(X.nrows() * X.ncols(), 1, X.entries())


def frobenius_upper(M) -> flint.arb:
    """An arb holding an upper bound of ‖M‖_F (M exact or a ball matrix)."""
    total = sum((upper(abs(flint.arb(M[i, j]))) ** 2 for i in range(M.nrows())
                 for j in range(M.ncols())), flint.arb(0))
    return upper(total.sqrt())


def _frob(X) -> flint.arb:
    """An upper bound of ‖X‖_F."""
    n = X.nrows()
    return upper(sum((X[i, j] * X[i, j] for i in range(n) for j in range(n)), flint.arb(0))).sqrt()


def widening(flow, P, centre, radii, s) -> flint.arb:
    """w with (JᵀP + PJ)/2 ⪯ (J(centre)ᵀP + PJ(centre))/2 + (w/2)·P for every J = DF(x), x in the
    box centre ± radii (svec; one radius per coordinate): step 2's Σ β_ks_k, or for a quadratic
    DF Σ β_k‖X0_k + Σ_l centre_l X_kl‖_F + ½Σ β_kβ_l s_kl (:func:`slopes`). Infinite when ``s``
    holds no bound."""
    b = [flint.arb(x) for x in radii]
    if flow.affine:
        return sum((x * sk for x, sk in zip(b, s)), flint.arb(0))
    if not isinstance(s, tuple):
        return flint.arb("inf")
    X0, X, S2 = s
    n = len(b)
    bv, cv = flint.arb_mat(n, 1, b), flint.arb_mat(n, 1, [flint.arb(x) for x in centre])
    w = (bv.transpose() * S2 * bv)[0, 0] / 2
    for k in range(n):
        v = X0[k] + X[k] * cv     # vec(X0_k + Σ_l centre_l X_kl)
        w = w + b[k] * upper((v.transpose() * v)[0, 0]).sqrt()
    return w


def contracts_box(flow, P, centre, radii, rate, s) -> bool:
    """−(JᵀP + PJ) − 2·rate·P ≻ 0 for every J = DF(x), x in the box centre ± radii, by
    :func:`widening` with the slopes ``s``, or else by the interval matrix DF(box)."""
    widen = widening(flow, P, centre, radii, s)
    if widen.is_finite() and contracts(P, flow.jacobian(flow.box(centre)), rate + widen / 2):
        return True
    return contracts(P, flow.jacobian(flow.box(centre, [flint.arb(b) for b in radii])), rate)


def box_center(flow, c, h) -> list:
    """The a-priori box's centre: the midpoints of c + (h/2)·F(c) (exact rationals)."""
    F = flow.coords(flow.field(flow.box(c)))
    return [(flint.arb(x) + flint.arb(h) / 2 * f).mid() for x, f in zip(c, F)]


def spreads(P, ell) -> list:
    """s_i ≥ max{x_i : xᵀPx ≤ 1} = √((P⁻¹)_ii), capped by 1/√ℓ (module docstring, step 1)."""
    cap = flint.arb(1) / flint.arb(ell).sqrt()
    try:
        inv = P.inv()
    except ZeroDivisionError:
        return [upper(cap)] * P.nrows()
    out = []
    for i in range(P.nrows()):
        s = upper(inv[i, i]).sqrt() if inv[i, i] > 0 else cap
        out.append(upper(s) if s < cap else upper(cap))
    return out


#: the order q of the a-priori enclosure (step 1)
TUBE_ORDER = 4


def tube(flow, c, rr, H, box) -> list:
    """Per coordinate, a ball holding Σ_{j<q} T_j(c ± rr)·[0, h]^j + [0, h]^q·T_q(box) (step 1;
    T_j the Taylor coefficient functions, T_0 = identity, q = TUBE_ORDER)."""
    span = flint.arb(H / 2, H / 2)   # the interval [0, h]
    init = flow.taylor(flow.box(c, [flint.arb(x) for x in rr]), TUBE_ORDER - 1)
    E = flow.taylor(box, TUBE_ORDER)[TUBE_ORDER]
    for j in range(TUBE_ORDER - 1, -1, -1):
        E = E * span + init[j]
    return flow.coords(E)


def tube_slack(flow, c, rr, H, box, beta) -> list:
    """Per coordinate, β_i − |tube_i − centre_i| (for the search: positive means the box is
    large enough there; :func:`step` tests the containment itself)."""
    return [flint.arb(b) - abs(e - m.mid()) for e, m, b in
            zip(tube(flow, c, rr, H, box), flow.coords(box), beta)]


def step(flow, P, ell, c, r, h, beta, mu, nxt, order: int, spread=None, slope=None,
         visit=None, point=None):
    """One step check (module docstring): Σ(t + h) within the returned r' of ``nxt`` in ‖·‖_P,
    given Σ(t) within r of ``c``; β one radius or a list (one per coordinate); ``spread`` the
    s_i of :func:`spreads` (None: 1/√ℓ), ``slope`` those of :func:`slopes` (None: computed);
    ``visit(h, box)`` is called with the a-priori box once it is proved to hold the solution on
    [t, t + h]; ``point`` the Taylor coefficients at c to order − 1 when the caller (the search)
    has them (check_steps never passes it). Raises NotProved naming the failing part."""
    H = flint.arb(h)
    betas = beta if isinstance(beta, list) else [beta] * len(c)
    centre = box_center(flow, c, h)
    box = flow.box(centre, [flint.arb(b) for b in betas])
    s = spread or [upper(flint.arb(1) / flint.arb(ell).sqrt())] * len(c)
    if not all(b.contains_interior(e) for b, e in
               zip(flow.coords(box), tube(flow, c, [upper(r * si) for si in s], H, box))):
        raise NotProved(f"the a-priori box of radius β ≤ {max(float(b) for b in betas):.3g} is "
                        "not proved to hold the solution (the tube of step 1 inside the box "
                        "fails)")
    if visit is not None:
        visit(H, box)
    if not contracts_box(flow, P, centre, betas, -flint.arb(mu), slope or slopes(flow, P)):
        raise NotProved(f"μ = {float(mu):.4g} is not proved to bound the logarithmic norm of DF "
                        "on the a-priori box")
    point = point or flow.taylor(flow.box(c), order - 1)
    T = flow.taylor(box, order)[order]
    for j in range(order - 1, -1, -1):
        T = T * H + point[j]
    err = [a - flint.arb(b) for a, b in zip(flow.coords(T), nxt)]
    return upper((flint.arb(mu) * H).exp() * r + p_norm(P, err))


#: µs a step takes to check on one core of the reference machine (AMD EPYC, 2026-12-02) at order
#: ≤ 24 and 128 bits, as (fixed, per head) by d: steps of eq. 1.1 ("taylor") and of the
#: compactified flow ("compact", kind blowup-infinity). The upper ends of 30-step runs over orders
#: 4–30, 128 and 512 bits, 1 and 8 heads (benchmarks/README.md, "Twelfth attempt"), rounded up;
#: d = 1 and 2 compactified steps counted as d = 3's. C¹ steps of eq. 1.1 ("c1"): 30-step runs
#: at order 24, 128 bits, 1 and 8 heads, d = 2…5 (2026-12-03, benchmarks/README.md, "Fifteenth
#: attempt"), ×1.3 and rounded up; d = 1 counted as d = 2's. C¹ steps of the compactified flow
#: ("compact-c1"): the same runs from (0, 1/d, Σ0/d), 2026-12-03 (benchmarks/README.md,
#: "Seventeenth attempt"), ×1.5 and rounded up. Indexed by d − 1.
STEP_COST = {"taylor": [(400, 500)] * 2 + [(600, 1200), (800, 1700), (2000, 2700)],
             "compact": [(3500, 1200)] * 3 + [(10500, 3400), (30000, 6600)],
             "c1": [(2420, 900)] * 2 + [(2240, 2100), (7200, 4050), (14800, 7640)],
             "compact-c1": [(9500, 2000)] * 2 + [(18200, 1900), (28400, 3400), (46400, 7500)]}
#: the steps of one certificate may cost at most this many µs (10 s on the reference machine),
#: so that with the rest of its check a file is answered within the 20 s of
#: tests/test_kernel_limits.py
MAX_STEP_WORK = 10_000_000


def step_work(d: int, heads: int, order: int, prec: int, kind: str = "taylor") -> int:
    """µs (upper estimate, :data:`STEP_COST`) one step takes to check: a higher order costs
    (order/24)² more, more bits ⌈prec/128⌉ times more; orders below 24 cost as much as 24."""
    if not 1 <= d <= len(STEP_COST[kind]):
        raise Invalid(f"over a limit: steps are measured for d ≤ {len(STEP_COST[kind])}, "
                      f"this problem has d = {d}")
    fixed, per_head = STEP_COST[kind][d - 1]
    return -(-(fixed + per_head * heads) * max(order, 24) ** 2 * -(-prec // 128) // 576)


def require_work(d: int, heads: int, order: int, prec: int, steps=0, compact=0, c1=0,
                 compact_c1=0) -> None:
    """:class:`Invalid` when checking ``steps`` log-norm steps and ``c1`` C¹ steps of eq. 1.1 and
    ``compact`` log-norm and ``compact_c1`` C¹ compactified steps (any may count changes of metric
    and other parts in steps' worth) would pass the kernel's time budget, :data:`MAX_STEP_WORK`."""
    work = (steps * step_work(d, heads, order, prec) +
            compact * step_work(d, heads, order, prec, "compact") +
            c1 * step_work(d, heads, order, prec, "c1") +
            compact_c1 * step_work(d, heads, order, prec, "compact-c1"))
    if work > MAX_STEP_WORK:
        raise Invalid(f"over a limit: {steps} log-norm and {c1} C¹ steps of eq. 1.1 and "
                      f"{compact} log-norm and {compact_c1} C¹ compactified steps "
                      f"of order {order} at {prec} bits with {heads} heads at d = {d} is {work} "
                      f"units of work (µs on the reference machine, flow.STEP_COST); this "
                      f"checker does at most {MAX_STEP_WORK}")
