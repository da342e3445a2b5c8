"""Exponential growth along a double null direction of the quadratic term at d = 2 (any number of
heads): the search for a ``growth-quasi`` certificate (the mathematics is in
:mod:`symgauss.kernel.kinds.growth_quasi`).

Untrusted search (indices from 0 here, as in the kernel; the messages count from 1). With e_j
the axis (row and column j of every B_h zero) the fast point at v = 0 is exact: w* = −a₁₀/W₁₀ =
p*², p* of the sign that makes 2W₁₀p* < 0 (attracting); the slow manifold's first two orders
c₁, c₂ solve J₀c_i = −(the order-v^i part of the exact defect H), J₀ = 2W₁₀p*·I (rounded).
P = I. Then sizes (v_max, ρ, λ) are tried from large to small with the kernel's own region
check, and validated steps of eq. 1.1 (metric I) run until Σ(t) is inside the region.
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint

from symgauss.kernel.verdict import NotProved
from symgauss.questions.regime.blowup_bound import BlowupBound, verified

#: (v_max, pieces) tried in order, and the shares of ρ's ceiling and of the fast rate
SIZES = ((0.3, 64), (0.2, 64), (0.1, 64), (0.05, 32), (0.02, 32))
RHO_TRIES, RATE_SHARE = 10, 0.5


def axes(problem) -> list:
    """The axes j with row and column j of every B_h zero (d = 2, time-invariant only)."""
    if problem.d != 2 or not problem.is_time_invariant:
        return []
    from symgauss.kernel.kinds.growth_quasi import structure
    from symgauss.kernel.read import read_problem
    data = problem.to_dict()
    data.pop("name", None)
    ep = read_problem(data)
    out = []
    for j in range(2):
        try:
            structure(ep.params, j)
            out.append(j)
        except NotProved:
            pass
    return out


def _q(x: float, den: int = 10 ** 15) -> flint.fmpq:
    f = Fraction(round(x * den), den)
    return flint.fmpq(f.numerator, f.denominator)


def _manifold(aq, Wq, c0, mu) -> list:
    """[c₀, c₁, c₂] (exact) of the slow manifold through c₀ = (p*, w*) rounded: at order v^i
    the defect H of :func:`~symgauss.kernel.kinds.growth_quasi.manifold_defect` is J₀c_i plus
    what the lower orders give (c'(v)·dv/dτ starts at v³), so c_i = −(that coefficient)/μ."""
    from symgauss.kernel.kinds.growth_quasi import manifold_defect
    c = [c0, [flint.fmpq(0)] * 2, [flint.fmpq(0)] * 2]
    for order in (1, 2):
        H = manifold_defect(aq, Wq, c)
        c[order] = [-_q(float(co[order]) / mu if len(co) > order else 0.0) for co in H]
    return c


def find_growth_quasi(problem, j: int) -> BlowupBound:
    """A kernel-verified ``growth-quasi`` certificate along axis j, or why none was found."""
    from symgauss.kernel.exact import eye
    from symgauss.kernel.kinds.growth_quasi import check_region, entry, structure
    from symgauss.kernel.read import read_problem
    from symgauss.questions.regime.growth_schur import steps_into
    data = problem.to_dict()
    data.pop("name", None)
    ep = read_problem(data)
    try:
        aq, Wq = structure(ep.params, j)
    except NotProved as e:
        return BlowupBound(None, str(e))
    a = [[float(x) for x in row] for row in aq]
    W = [[float(x) for x in row] for row in Wq]
    if W[1][0] == 0 or not -a[1][0] / W[1][0] > 0:
        return BlowupBound(None, "no fast point at infinity: w* = −a₂₁/W₂₁ is not positive "
                           "(A and W = Σ_h b_h V_h with the axis first)")
    ws = -a[1][0] / W[1][0]
    ps = -math.copysign(math.sqrt(ws), W[1][0])      # 2W₁₀p* < 0
    mu = 2 * W[1][0] * ps
    g_star = 2 * (a[0][0] + W[0][0] * ws)
    if not g_star > 0:
        return BlowupBound(None, f"the growth rate at infinity 2(a₁₁ + W₁₁w*) ≈ {g_star:.3g} is "
                           "not positive (A and W with the axis first)")
    manifold = _manifold(aq, Wq, [_q(ps), _q(ws)], mu)
    lam = _q(abs(mu) * RATE_SHARE, 10 ** 6)
    prec, found, last = 128, None, "no size tried"
    for v_max, pieces in SIZES:
        rho = (abs(mu) * v_max) ** 2
        for _ in range(RHO_TRIES):
            witness = {"manifold": flint.fmpq_mat(manifold), "P": eye(2),
                       "rho": _q(rho, 10 ** 12), "rate": lam, "v_max": _q(v_max, 100),
                       "v_pieces": pieces}
            if witness["rho"] <= 0:
                break
            try:
                with flint.ctx.workprec(prec):
                    g = check_region(ep.params, j, witness)
                found = (witness, g)
                break
            except NotProved as e:
                last = str(e)
                rho /= 4
        if found:
            break
    if found is None:
        return BlowupBound(None, f"no invariant region of the quasi-homogeneous coordinates was "
                           f"proved ({last})")
    witness, (g_lo, g_hi) = found
    a_lo = flint.fmpq(math.floor(float(g_lo.mid() - g_lo.rad()) * (1 - 1e-6) * 10 ** 6), 10 ** 6)
    b_hi = flint.fmpq(math.ceil(float(g_hi.mid() + g_hi.rad()) * (1 + 1e-6) * 10 ** 6), 10 ** 6)
    if not a_lo > 0:
        return BlowupBound(None, "the growth rate is not proved positive on the region")
    run = steps_into(ep, lambda c_, r: entry(ep.params, j, witness, c_, r), prec)
    if not run.stopped:
        return BlowupBound(None, f"validated steps did not enter the region ({run.why})")
    claim = {"axis": j, "t_enter": str(run.t), "rate_lower": str(a_lo),
             "rate_upper": str(b_hi)}
    M = witness["manifold"]
    keys = {"manifold": [[str(M[r, i]) for i in range(2)] for r in range(3)],
            "P": [["1", "0"], ["0", "1"]], "rho": str(witness["rho"]),
            "rate": str(witness["rate"]), "v_max": str(witness["v_max"]),
            "v_pieces": witness["v_pieces"]}
    return verified("growth-quasi", problem, claim,
                    {"steps": run.witness_steps(), "order": 24, "prec": prec, **keys,
                     **({"metrics": run.witness_metrics()} if run.switches else {})},
                    "validated Taylor steps, then an invariant region of the quasi-homogeneous "
                    "coordinates v = Σ_jj^(−1/2), p = Σ_jk·v, w = Σ_kk "
                    "(symgauss.questions.regime.growth_quasi)")
