"""Blow-up with a hyperbolic equilibrium at infinity: the search for a ``blowup-infinity``
certificate (the mathematics is in :mod:`symgauss.kernel.kinds.blowup_infinity`).

Untrusted search: a float integration close to T*, then the float flow at infinity
(u = 0: Y' = Q(Y) − Y·tr Q(Y)), propose the blow-up direction; Newton's method (ball midpoints,
200 bits) polishes it to a rational Y*; the Jacobian J of the compactified field at z* = (0, Y*)
gives P from (J + γI)ᵀP + P(J + γI) = −I, γ = −max Re λ(J)/2; the region {‖z − z*‖_P² ≤ ρ} is
grown while the kernel's :func:`symgauss.kernel.kinds.blowup_infinity.check_region` accepts it;
validated steps (metric I) run until the compactified enclosure of Σ(t0) is inside it and u0 is
small (the enclosure of T* has width about u0·(1/κ − 1/K)). Blow-ups whose direction rotates
(no real equilibrium at infinity) or whose equilibrium at infinity is not hyperbolic (V_h = v_h I
gives a continuum of them) are left to the other methods.
"""
from __future__ import annotations

import math

import flint

from symgauss.kernel.verdict import NotProved
from symgauss.questions.regime.blowup_bound import BlowupBound, certified


def direction(problem, t_star: float):
    """Σ/tr Σ near T* (LSODA), carried on by the flow at infinity for τ ≤ 400 (floats)."""
    import numpy as np
    from scipy.integrate import solve_ivp

    from symgauss.questions.regime.reference import float_field
    d = problem.d
    f, full, y0 = float_field(problem)

    def big(_t, y):
        return np.trace(full(y)) - 1e5
    big.terminal = True
    sol = solve_ivp(f, (0, t_star * 2), y0, method="LSODA", rtol=1e-10, atol=1e-14, events=big)
    S = full(sol.y[:, -1])
    fq, _, _ = float_field(problem.replace(A=[[0] * d for _ in range(d)]))

    def g(_tau, y):
        q = fq(0, y)
        return q - y * np.trace(full(q))
    sol = solve_ivp(g, (0, 400.0), (S / np.trace(S))[np.triu_indices(d)], method="LSODA",
                    rtol=1e-11, atol=1e-14)
    return full(sol.y[:, -1])


def find_blowup_at_infinity(problem, t_ref: float) -> BlowupBound:
    """A kernel-verified ``blowup-infinity`` certificate, or why none was found."""
    import numpy as np
    from scipy.linalg import solve_continuous_lyapunov

    from symgauss.integrate.validated import integrate
    from symgauss.kernel.equations import svec
    from symgauss.kernel.exact import eye
    from symgauss.kernel.flow import Flow, sym_of
    from symgauss.kernel.kinds.blowup_infinity import Compact, check_region, enclosure
    from symgauss.kernel.read import read_problem
    from symgauss.questions.regime.basin import _down, _q, _up
    d = problem.d
    n = d * (d + 1) // 2
    data = problem.to_dict()
    data.pop("name", None)
    ep = read_problem(data)
    p = ep.params
    Y = direction(problem, t_ref)
    with flint.ctx.workprec(200):
        flow = Flow(p)
        cp, zero = Compact(flow), flint.arb(0)
        y = [flint.arb(_q(float(Y[i][j]), 15)) for i in range(d) for j in range(i, d)]
        for _ in range(10):
            S = sym_of([v.mid() for v in y], d)
            J = cp.jacobian(zero, S)
            Jm = flint.arb_mat(n, n, [J[i + 1, j + 1].mid() for i in range(n) for j in range(n)])
            dx = Jm.solve(flint.arb_mat(n, 1, [g.mid() for g in cp.field(zero, S)[1:]]))
            y = [(v - dx[i, 0]).mid() for i, v in enumerate(y)]
        ys = [_q(float(v), 15) for v in y]
        Ystar = flint.fmpq_mat(d, d)
        for k, (i, j) in enumerate((i, j) for i in range(d) for j in range(i, d)):
            Ystar[i, j] = Ystar[j, i] = ys[k]
        J = cp.jacobian(zero, sym_of(ys, d))
        Jf = np.array([[float(J[i, j].mid()) for j in range(n + 1)] for i in range(n + 1)])
    if not np.all(np.isfinite(Jf)):
        return BlowupBound(None, "Newton's method found no equilibrium at infinity")
    alpha = -max(np.linalg.eigvals(Jf).real)
    if not alpha > 1e-6:
        return BlowupBound(None, f"the equilibrium at infinity is not proved attracting "
                           f"(max Re λ ≈ {-alpha:.3g})")
    Pf = solve_continuous_lyapunov((Jf + alpha / 2 * np.eye(n + 1)).T, -np.eye(n + 1))
    Pf = (Pf + Pf.T) / 2
    Pf = Pf / np.max(np.abs(Pf))
    P = flint.fmpq_mat(n + 1, n + 1, [_q(Pf[max(i, j), min(i, j)], 10) for i in range(n + 1)
                                      for j in range(n + 1)])
    ell = _down(float(np.linalg.eigvalsh(Pf)[0]))
    found = None
    for frac in (0.8, 0.5, 0.25):
        rate, rho = _down(alpha / 2 * frac), _up(float(np.linalg.eigvalsh(Pf)[-1]))
        with flint.ctx.workprec(128):
            for _ in range(24):
                try:
                    found = (rate, rho, check_region(flow, P, ell, rho, rate, Ystar))
                    break
                except NotProved:
                    rho = _down(float(rho) / 4)
        if found:
            break
    if not found:
        return BlowupBound(None, "no contraction region at infinity was proved")
    rate, rho, g = found
    history = []

    def entered(pt, r, t0):
        try:
            with flint.ctx.workprec(128):
                e = enclosure(P, rho, Ystar, g, pt, r, t0)
        except NotProved:
            e = None
        history.append((math.inf if e is None else float(e[1].mid() - e[0].mid()),
                        len(history), e))
        best = min(history, key=lambda h: h[0])
        if best[2] is None:
            return False
        return best[0] < 1e-9 * float(best[2][1].mid()) or (
            best[0] < math.inf and history[-1][0] > 10 * best[0])

    run = integrate(p, svec(ep.cov0), eye(n), flint.fmpq(1), None, t_max=t_ref * 1.5, tol=1e-12,
                    stop_time=entered)
    width, k, e = min(history, key=lambda h: h[0])
    if e is None:
        return BlowupBound(None, f"validated integration did not enter the region at "
                           f"infinity ({run.why or 'no enclosure'})")
    return certified("blowup-infinity", problem, e, run.truncate(k),
                     {"center": [[str(Ystar[i, j]) for j in range(d)] for i in range(d)],
                      "P": [[str(P[i, j]) for j in range(n + 1)] for i in range(n + 1)],
                      "ell": str(ell), "rho": str(rho), "rate": str(rate)},
                     "validated Taylor steps, then a contraction region of the compactified "
                     "flow at infinity (symgauss.questions.regime.infinity)")
