"""A list of validated steps of eq. 1.1, checked in order: log-norm steps
(:func:`symgauss.kernel.flow.step`, whose mathematics is in :mod:`symgauss.kernel.flow`) and C¹
steps, with changes of metric between them.

Trusted kernel: standard library, python-flint (``arb``, ``arb_mat``) and the kernel only.

**C¹ step** (a step with ``nu`` in place of ``mu``; :func:`c1_step`): the mean-value form, with
the enclosure's shape carried along (Lohner's idea). The set is the ellipsoid
{x : ‖x − c_k‖_{Q⁻¹} ≤ r_k}, Q ≻ 0 exact (‖x‖_{Q⁻¹} = √(xᵀQ⁻¹x)). Entering from ‖·‖_P: Q = the
midpoints of P⁻¹ and r ← κr with κ²Q − P⁻¹ ⪰ 0; leaving (before a log-norm step, a change of
metric, or after the last step): r ← κr with κ²P⁻¹ − Q ⪰ 0 (:func:`enter_shape`,
:func:`leave_shape`; matrices in balls hold the exact P⁻¹). One step:

1. the a-priori box B as in step 1 of :mod:`symgauss.kernel.flow`, for the box
   I = c_k ± r_k·√Q_ii of the set (max x_i on the ellipsoid is r√Q_ii);
2. the derivative. Dφ_h(y) = Σ_{j<q} h^j·DT_j(y) + R with DT_j the derivatives of the Taylor
   coefficient maps (:meth:`Flow.tangent_matrices`, q = C1_ORDER), evaluated on I; componentwise
   Lagrange, R's entries are those of h^q·DT_q(x(ξ))·V(ξ), x(ξ) ∈ B and V(ξ) = Dφ_ξ(y) with
   ‖V(ξ)‖_∞ ≤ E = e^{h·‖DF(B)‖_∞} (V' = DF·V), so each column of V(ξ) lies in [−E, E]^n and one
   tangent recursion from that box bounds R's rows. [Φ] = the sum, a ball matrix holding
   Dφ_h(y) for every y in I; by the mean-value theorem φ_h(x) − φ_h(c_k) = Φ̄(x − c_k) with Φ̄
   in [Φ] (the set is convex);
3. the next shape Q' = the rounded midpoints of (G·Q·Gᵀ + THIN·tr·I)/tr (G the midpoints of
   [Φ]) — any Q' ≻ 0 is sound. With Q = LLᵀ and Q' = L'L'ᵀ (Cholesky in balls, which also
   proves both ≻ 0), ‖Φx‖_{Q'⁻¹} = ‖L'⁻¹ΦLu‖ for x = Lu, so ν²I − KᵀK ≻ 0 for every K in the
   balls of L'⁻¹·[Φ]·L gives ‖Φx‖_{Q'⁻¹} ≤ ν‖x‖_{Q⁻¹} (this form widens [Φ]'s radii by
   √cond(Q') where ν²Q' − ΦQΦᵀ would by cond(Q'));
4. r_{k+1} = ν·r_k + ‖L'⁻¹(φ_h(c_k) − c_{k+1})‖ (φ_h(c_k) enclosed as in step 3 of
   :mod:`symgauss.kernel.flow`).

Where the log-norm of one metric over a step overstates how the flow separates solutions (a
rotation, or DF far from normal), ν stays near the true growth along the solution.
"""
from __future__ import annotations

import flint

from symgauss.kernel.flow import (
    box_center,
    cholesky_inverse,
    positive_definite_balls,
    slopes,
    spreads,
    step,
    tube,
    upper,
)
from symgauss.kernel.verdict import Invalid, NotProved


class Nu:
    """The bound of a C¹ step (its witness key ``nu``, in place of a log-norm step's ``mu``):
    ‖Dφ_h(y)·x‖_{Q'⁻¹} ≤ ν‖x‖_{Q⁻¹} for every y in the step's start set (:func:`c1_step`)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


#: the order q of the flow map's derivative in a C¹ step, and how far the next shape's thinnest
#: axes are raised (Q' ⪰ THIN·tr(Q')·I, so that its condition number stays ≤ 1/THIN)
C1_ORDER, THIN = 16, flint.fmpq(1, 10 ** 8)


def mid_fmpq(x) -> flint.fmpq:
    """The midpoint of the ball x as an exact rational."""
    man, exp = flint.arb(x).mid().man_exp()
    if exp >= 0:
        return flint.fmpq(int(man) * 2 ** int(exp))
    return flint.fmpq(int(man), 2 ** -int(exp))


def _sym_fmpq(M) -> flint.fmpq_mat:
    """The symmetric rational matrix of M's midpoints (upper triangle mirrored)."""
    n = M.nrows()
    X = flint.fmpq_mat(n, n)
    for i in range(n):
        for j in range(i, n):
            X[i, j] = X[j, i] = mid_fmpq(M[i, j])
    return X


def c1_derivative(flow, Q, c, r, h, beta) -> tuple:
    """([Φ], box): an n×n ball matrix holding Dφ_h(y) for every y in the set {x : (x − c)ᵀQ⁻¹(x −
    c) ≤ r²} (module docstring, C¹ steps), and the a-priori box for the step; NotProved when the
    box is not proved to hold the solution."""
    n, H = len(c), flint.arb(h)
    betas = beta if isinstance(beta, list) else [beta] * n
    box = flow.box(box_center(flow, c, h), [flint.arb(b) for b in betas])
    rr = [upper(r * upper(flint.arb(Q[i, i])).sqrt()) for i in range(n)]
    if not all(b.contains_interior(e) for b, e in zip(flow.coords(box), tube(flow, c, rr, H, box))):
        raise NotProved(f"the a-priori box of radius β ≤ {max(float(b) for b in betas):.3g} is "
                        "not proved to hold the solution (the tube of step 1 inside the box "
                        "fails)")
    D = flow.tangent_matrices(flow.box(c, rr), C1_ORDER - 1)
    Phi = D[-1]
    for j in range(C1_ORDER - 2, -1, -1):
        Phi = Phi * H + D[j]
    J = flow.jacobian(box)
    rows = max(upper(sum((abs(J[i, j]) for j in range(n)), flint.arb(0))) for i in range(n))
    E = upper((H * rows).exp())
    W = flow.box([0] * n, [E] * n)
    tail = flow.coords(flow.tangents(box, C1_ORDER, [W])[0][C1_ORDER])
    Hq = H ** C1_ORDER
    for i in range(n):
        rad = upper(abs(tail[i]) * Hq)
        for k in range(n):
            Phi[i, k] = Phi[i, k] + flint.arb(0, rad)
    return Phi, box


def next_shape(Phi, Q) -> flint.fmpq_mat:
    """The next step's shape: G·Q·Gᵀ (G the midpoints of [Φ]) with THIN·tr added on the
    diagonal, divided by its trace, rounded to rationals (any Q' ≻ 0 is sound; this one keeps
    ν near 1)."""
    n = Q.nrows()
    G = flint.arb_mat(n, n, [Phi[i, j].mid() for i in range(n) for j in range(n)])
    M = G * flint.arb_mat(Q) * G.transpose()
    tr = sum((M[i, i] for i in range(n)), flint.arb(0))
    if not tr > 0:
        raise NotProved("the next shape of a C¹ step is not proved positive definite")
    M = (M + flint.arb_mat(n, n, [tr * THIN if i == j else 0 for i in range(n)
                                  for j in range(n)])) / tr
    return _sym_fmpq(M)


def _factor(Q):
    """(L, L⁻¹) with Q = LLᵀ (balls); NotProved when Q is not proved positive definite."""
    Li = cholesky_inverse(flint.arb_mat(Q))
    if Li is None:
        raise NotProved("a C¹ step's shape is not proved positive definite (its Cholesky "
                        "factor fails in ball arithmetic)")
    return Li.inv(), Li


def shape_map(Phi, Q) -> tuple:
    """(Q', K, L'⁻¹): the next shape (:func:`next_shape`) and the balls of K = L'⁻¹·[Φ]·L
    (Q = LLᵀ, Q' = L'L'ᵀ; module docstring, step 3)."""
    Q2 = next_shape(Phi, Q)
    L, _ = _factor(Q)
    _, L2i = _factor(Q2)
    return Q2, L2i * Phi * L, L2i


def nu_bounds(K, nu) -> bool:
    """ν²I − KᵀK ≻ 0 for every K in the balls, so ‖Φx‖_{Q'⁻¹} ≤ ν‖x‖_{Q⁻¹} (step 3)."""
    n = K.nrows()
    eye = flint.arb_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
    return positive_definite_balls(eye * flint.arb(nu) ** 2 - K.transpose() * K)


def c1_step(flow, Q, c, r, h, beta, nu, nxt, order: int, visit=None, derivative=None,
            point=None) -> tuple:
    """One C¹ step (module docstring): (r', Q') with Σ(t + h) in {x : ‖x − nxt‖_{Q'⁻¹} ≤ r'},
    given Σ(t) in {x : ‖x − c‖_{Q⁻¹} ≤ r}. Raises NotProved naming the failing part.
    ``derivative``: :func:`c1_derivative`'s answer for these arguments, when the caller (the
    search) has it already, and ``point`` the Taylor coefficients at c to order − 1 (the same);
    :func:`check_steps` passes neither."""
    if not hasattr(flow, "tangent_matrices"):
        raise Invalid("C¹ steps (key nu) are for eq. 1.1's flow and the compactified flow only")
    Phi, box = derivative or c1_derivative(flow, Q, c, r, h, beta)
    if visit is not None:
        visit(flint.arb(h), box)
    Q2, K, L2i = shape_map(Phi, Q)
    if not nu_bounds(K, nu):
        raise NotProved(f"ν = {float(nu):.6g} is not proved to bound the flow map's derivative "
                        "from the step's start shape to its end shape")
    point = point or flow.taylor(flow.box(c), order - 1)
    T = flow.taylor(box, order)[order]
    for j in range(order - 1, -1, -1):
        T = T * flint.arb(h) + point[j]
    err = [a - flint.arb(b) for a, b in zip(flow.coords(T), nxt)]
    e = L2i * flint.arb_mat(len(err), 1, err)
    size = upper(sum((e[i, 0] * e[i, 0] for i in range(len(err))), flint.arb(0))).sqrt()
    return upper(flint.arb(nu) * r + size), Q2


def _inverse(P):
    try:
        return P.inv()
    except ZeroDivisionError:
        raise NotProved("a metric is too ill-conditioned to invert in ball arithmetic") from None


def enter_shape(P, r) -> tuple:
    """(Q, r'): the ball ‖x − c‖_P ≤ r lies in {‖x − c‖_{Q⁻¹} ≤ r'}, Q the midpoints of P⁻¹ (κ²Q
    − P⁻¹ ⪰ 0 proved in balls, r' = κr)."""
    Pi = _inverse(P)
    Q = _sym_fmpq(Pi)
    for slack in (flint.fmpq(1, 10 ** 12), flint.fmpq(1, 10 ** 6), flint.fmpq(1, 10 ** 3)):
        if positive_definite_balls(flint.arb_mat(Q) * flint.arb(1 + slack) ** 2 - Pi):
            return Q, upper(r * (1 + slack))
    raise NotProved("the change to a C¹ step's shape is not proved")


def leave_shape(P, Q, r) -> flint.arb:
    """r' with ‖x − c‖_P ≤ r' whenever ‖x − c‖_{Q⁻¹} ≤ r: κ²P⁻¹ − Q ⪰ 0 proved in balls for κ²
    a little above λmax(PQ) (estimated by power iteration on midpoints), r' = κr."""
    Pi, Qa = _inverse(P), flint.arb_mat(Q)
    n = Q.nrows()
    M = flint.arb_mat(n, n, [x.mid() for x in (P * Qa).entries()])
    v, est = flint.arb_mat(n, 1, [1] * n), flint.arb(1)
    for _ in range(60):
        w = M * v
        est = max(abs(w[i, 0].mid()) for i in range(n))
        if not est > 0:
            break
        v = flint.arb_mat(n, 1, [(w[i, 0] / est).mid() for i in range(n)])
    for grow in (flint.fmpq(1001, 1000), flint.fmpq(11, 10), flint.fmpq(2), flint.fmpq(16)):
        k2 = upper(flint.arb(est) * grow) if est > 0 else flint.arb(1)
        if positive_definite_balls(Pi * k2 - Qa):
            return upper(r * k2.sqrt())
    raise NotProved("the change back from a C¹ step's shape to the metric is not proved")


def check_steps(flow, P, ell, start, steps, order: int, radius=None, visit=None,
                switches=None) -> tuple:
    """Run :func:`step` over ``steps`` = [(h, β, μ, c_next)] from the exact svec ``start`` (or
    from within ‖·‖_P-distance ``radius`` of it); ``visit`` as in :func:`step`. ``switches``
    {k: (P', ell', κ)}: before step k (k = len(steps): after the last) distances change to
    ‖·‖_P' (λmin(P') ≥ ell') and r to κ·r — the caller has proved ‖x‖_P' ≤ κ‖x‖_P exactly
    (:func:`symgauss.kernel.kinds.limit.read_switches`); a metric that follows the solution
    keeps the log-norm bound near the local rate of the flow.

    A step whose third entry is :class:`Nu` is a C¹ step (:func:`c1_step`): the first of a run
    of them enters a shape from the metric in force, and the run leaves it back to that metric
    before a log-norm step, a change of metric, or the end.

    Returns (c_N, r_N): Σ(Σh) is within ‖·‖_P-distance r_N (arb upper bound) of c_N.
    """
    # entering and leaving a C¹ shape is not charged in the work limit: each needs a C¹ step
    # and costs at most ~6 % of one's charge at the same d and bits (5.3 ms at n = 15, 512 bits)
    switches = switches or {}
    c, spread, slope, Q = start, None, None, None
    r = flint.arb(0) if radius is None else upper(radius)
    for k, (h, beta, mu, nxt) in enumerate(steps):
        c1 = isinstance(mu, Nu)
        try:
            if Q is not None and (not c1 or k in switches):
                r, Q = leave_shape(P, Q, r), None
            if k in switches:
                P, ell, kappa = switches[k]
                P = flint.arb_mat(P)
                r, slope = upper(r * flint.arb(kappa)), None
            if c1:
                if Q is None:
                    Q, r = enter_shape(P, r)
                r, Q = c1_step(flow, Q, c, r, h, beta, mu.value, nxt, order, visit)
            else:
                if slope is None:
                    spread, slope = spreads(P, ell), slopes(flow, P)
                r = step(flow, P, ell, c, r, h, beta, mu, nxt, order, spread, slope, visit)
        except NotProved as exc:
            raise NotProved(f"step {k}: {exc}") from None
        c = nxt
    if Q is not None:
        try:
            r = leave_shape(P, Q, r)
        except NotProved as exc:
            raise NotProved(f"after the last step: {exc}") from None
    if len(steps) in switches:
        r = upper(r * flint.arb(switches[len(steps)][2]))
    return c, r
