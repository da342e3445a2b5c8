"""The moment flow in ball arithmetic: a validated step check and a contraction-region check.

Trusted kernel: standard library, python-flint (``arb``, ``arb_mat``) and the kernel only.
Coordinates are svec (entries i ≤ j, unscaled); ‖x‖_P = √(xᵀPx) for the witness metric P ≻ 0
with λmin(P) ≥ ℓ, so ‖x‖_∞ ≤ ‖x‖_2 ≤ ‖x‖_P/√ℓ.

**Step** (:func:`check_steps`). Given Σ(t_k) within ‖·‖_P-distance r_k of the rational point c_k,
and the witness's h, β, μ, c_{k+1}:

1. a-priori box. B = {x : ‖x − m‖_∞ ≤ β}, m = c_k + (h/2)F(c_k) rounded. If the P-ball's
   ∞-norm box c_k ± r_k/√ℓ plus [0, h]·F(B) lies inside B, every solution from the P-ball stays
   in B on [0, h] (at its first exit x(τ) − x(0) ∈ τ·hull F(B), a contradiction); it exists
   there since F is polynomial.
2. log-norm. DF is affine in Σ, so DF(B) in ball arithmetic holds every Jacobian on B; if
   μP − (JᵀP + PJ)/2 ≻ 0 for all of them, two solutions in the convex B separate at most like
   e^{μt} in ‖·‖_P.
3. Taylor. φ_h(c_k) = Σ_{j<p} Σ_j(c_k) h^j + h^p Σ_p(ξ) componentwise (Lagrange), ξ on the
   solution, which lies in B; the recursion Σ_{j+1} = (AΣ_j + Σ_jAᵀ + Σ_h Σ_{i≤j}(W + Wᵀ))/(j+1),
   W = V_hΣ_iB_hΣ_{j−i}, evaluated on B encloses Σ_p(ξ).
4. r_{k+1} = e^{μh} r_k + ‖φ_h(c_k) − c_{k+1}‖_P (upper bounds).

**Contraction region** (:func:`check_region`). E = {x : ‖x − C‖_P² ≤ ρ}. If for every J = DF(S),
S in the box of radius √(ρ/ℓ) around C (which holds E), −(JᵀP + PJ) − 2λP ≻ 0, and
‖F(C)‖_P² < λ²ρ, then E is forward invariant (on ∂E, d/dt ‖x − C‖_P² ≤ −2λρ + 2√ρ‖F(C)‖_P < 0)
and the flow contracts ‖·‖_P at rate λ on it: E holds exactly one equilibrium Σ*, every solution
entering E converges to it like e^{−λt}, and ‖Σ* − C‖_P ≤ ‖F(C)‖_P/λ.
"""
from __future__ import annotations

import flint

from symgauss.kernel.verdict import Invalid, NotProved


def pairs(d: int) -> list:
    return [(i, j) for i in range(d) for j in range(i, d)]


def sym_of(x, d: int, rad=None) -> flint.arb_mat:
    """The symmetric matrix with svec x (arb or fmpq entries), each entry widened by ``rad``."""
    S = flint.arb_mat(d, d)
    for k, (i, j) in enumerate(pairs(d)):
        S[i, j] = S[j, i] = flint.arb(x[k]) if rad is None else flint.arb(x[k]) + flint.arb(0, rad)
    return S


def svec_of(S) -> list:
    return [S[i, j] for i, j in pairs(S.nrows())]


class Flow:
    """Eq. 1.1's covariance field for constant (A, heads), in ball arithmetic."""

    def __init__(self, params):
        self.A = flint.arb_mat(params.A)
        self.heads = [(flint.arb_mat(V), flint.arb_mat(B)) for V, B in params.heads]
        self.d = params.A.nrows()

    def field(self, S):
        M = self.A
        for V, B in self.heads:
            M = M + V * S * B
        X = M * S
        return X + X.transpose()

    def taylor(self, S0, order: int) -> list:
        """Taylor coefficients Σ_0..Σ_order of the solution through S0."""
        S, U = [S0], [[V * S0 * B for V, B in self.heads]]
        for k in range(order):
            acc = self.A * S[k]
            for h in range(len(self.heads)):
                for i in range(k + 1):
                    acc = acc + U[i][h] * S[k - i]
            acc = acc + acc.transpose()
            S.append(acc / (k + 1))
            U.append([V * S[-1] * B for V, B in self.heads])
        return S

    def jacobian(self, S):
        """svec matrix of DF(S) (n×n arb_mat; S may be a box)."""
        d = self.d
        M = self.A
        for V, B in self.heads:
            M = M + V * S * B
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


def box_center(flow, c, h) -> list:
    """The a-priori box's centre: the midpoints of c + (h/2)·F(c) (exact rationals)."""
    F = svec_of(flow.field(sym_of(c, flow.d)))
    return [(flint.arb(x) + flint.arb(h) / 2 * f).mid() for x, f in zip(c, F)]


def tube_slack(flow, c, r, H, box, beta):
    """min over coordinates of β − |c + [0, h]·F(box) − centre| − r (for the search: positive
    means the box is large enough; :func:`step` tests the containment itself)."""
    span = flint.arb(H / 2, H / 2)   # the interval [0, h]
    out = []
    for x, f, m in zip(c, svec_of(flow.field(box)), svec_of(box)):
        dev = abs(flint.arb(x) + span * f - m.mid())
        out.append(flint.arb(beta) - dev - r)
    return min(out, key=lambda v: v.mid() - v.rad())


def step(flow, P, ell, c, r, h, beta, mu, nxt, order: int):
    """One step check (module docstring): Σ(t + h) within the returned r' of ``nxt`` in ‖·‖_P,
    given Σ(t) within r of ``c``. Raises NotProved naming the failing part."""
    d, H = flow.d, flint.arb(h)
    box = sym_of(box_center(flow, c, h), d, flint.arb(beta))
    span, rr = flint.arb(H / 2, H / 2), flint.arb(0, upper(r / flint.arb(ell).sqrt()))
    if not all(b.contains_interior(flint.arb(x) + span * f + rr) for x, f, b in
               zip(c, svec_of(flow.field(box)), svec_of(box))):
        raise NotProved(f"the a-priori box of radius β = {float(beta):.3g} is not proved to hold "
                        "the solution (c + [0, h]·F(box) ± r/√ℓ inside the box fails)")
    if not contracts(P, flow.jacobian(box), -flint.arb(mu)):
        raise NotProved(f"μ = {float(mu):.4g} is not proved to bound the logarithmic norm of DF "
                        "on the a-priori box")
    point = flow.taylor(sym_of(c, d), order - 1)
    T = flow.taylor(box, order)[order]
    for j in range(order - 1, -1, -1):
        T = T * H + point[j]
    err = [a - flint.arb(b) for a, b in zip(svec_of(T), nxt)]
    return upper((flint.arb(mu) * H).exp() * r + p_norm(P, err))


#: steps × order² × (heads + 1) × ⌈prec/128⌉ — about 4 µs each on one core (d = 5)
MAX_STEP_WORK = 2_500_000


def require_work(n_steps: int, order: int, prec: int, heads: int) -> None:
    """:class:`Invalid` when checking the steps would pass the kernel's time budget."""
    work = n_steps * order * order * (heads + 1) * -(-prec // 128)
    if work > MAX_STEP_WORK:
        raise Invalid(f"over a limit: {n_steps} steps of order {order} at {prec} bits with "
                      f"{heads} heads is {work} units of work; this checker does at most "
                      f"{MAX_STEP_WORK} (steps × order² × (heads + 1) × ⌈prec/128⌉)")


def check_steps(flow, P, ell, start, steps, order: int) -> tuple:
    """Run :func:`step` over ``steps`` = [(h, β, μ, c_next)] from the exact svec ``start``.

    Returns (c_N, r_N): Σ(Σh) is within ‖·‖_P-distance r_N (arb upper bound) of c_N.
    """
    c, r = start, flint.arb(0)
    for k, (h, beta, mu, nxt) in enumerate(steps):
        try:
            r = step(flow, P, ell, c, r, h, beta, mu, nxt, order)
        except NotProved as exc:
            raise NotProved(f"step {k}: {exc}") from None
        c = nxt
    return c, r
