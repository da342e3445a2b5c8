"""Convergence with a proof: a contraction region around the limit, reached by validated steps.

Untrusted search for a kernel ``limit`` certificate (:mod:`symgauss.kernel.kinds.limit`):

1. a float integration (:func:`symgauss.questions.regime.reference.reference_regime`) proposes
   the fate — decay, a positive-definite or a singular limit — and the limit;
2. Newton's method in ball arithmetic (midpoints, 200 bits) polishes the limit to a rational
   centre C (C = 0 for decay);
3. L = DF(C) on Sym(d) (svec): with α = −max Re λ(L) > 0 and γ = α/2, P solves
   (L + γI)ᵀP + P(L + γI) = −I, so −(LᵀP + PL) − 2λP = I + 2(γ − λ)P ≻ 0 at C for λ < γ; the
   region {‖x − C‖_P² ≤ ρ} is grown (ρ scanned down by factors of 4) as long as the kernel's
   own :func:`symgauss.kernel.kinds.limit.check_region` accepts it;
4. validated integration (:mod:`symgauss.integrate.validated`) from Σ0 in the metric P until
   the enclosure lies in the region.

Every step is checked by the kernel's functions while it is built, and the finished certificate
is checked again by :func:`symgauss.kernel.checker.check` before anyone is told "proved".
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import flint

from symgauss.kernel.verdict import NotProved


@dataclass(frozen=True)
class LimitResult:
    """A verified ``limit`` certificate (``certificate``) or why none was found (``why``)."""
    regime: str | None
    certificate: dict | None
    why: str
    center: list | None = None
    rate: str | None = None
    radius: str | None = None


def _q(x: float, digits: int = 12) -> flint.fmpq:
    """x rounded to ``digits`` significant digits, as an exact rational."""
    if x == 0 or not math.isfinite(x):
        return flint.fmpq(0)
    e = math.floor(math.log10(abs(x))) - digits + 1
    m = round(x / 10 ** e)
    return flint.fmpq(m * 10 ** e) if e >= 0 else flint.fmpq(m, 10 ** (-e))


def _down(x: float) -> flint.fmpq:
    """A rational in (0.99x, x] with 3 significant digits (x > 0)."""
    e = math.floor(math.log10(x)) - 2
    m = math.floor(x * 0.995 / 10 ** e)
    return flint.fmpq(m * 10 ** e) if e >= 0 else flint.fmpq(m, 10 ** (-e))


def _up(x: float) -> flint.fmpq:
    e = math.floor(math.log10(x)) - 2
    m = math.ceil(x * 1.005 / 10 ** e)
    return flint.fmpq(m * 10 ** e) if e >= 0 else flint.fmpq(m, 10 ** (-e))


def _text(x: flint.fmpq) -> str:
    from symgauss.kernel.read import short_text
    return short_text(x)


def newton_center(params, S, d: int, prec: int = 200):
    """A rational svec near a zero of F, from the float matrix S (Newton in arb midpoints)."""
    from symgauss.kernel.flow import Flow, svec_of, sym_of
    with flint.ctx.workprec(prec):
        flow = Flow(params)
        x = [flint.arb(_q(float(S[i][j]), 15)) for i in range(d) for j in range(i, d)]
        n = len(x)
        for _ in range(8):
            X = sym_of([v.mid() for v in x], d)
            F = svec_of(flow.field(X))
            J = flow.jacobian(X)
            Jm = flint.arb_mat(n, n, [J[i, j].mid() for i in range(n) for j in range(n)])
            dx = Jm.solve(flint.arb_mat(n, 1, [f.mid() for f in F]))
            x = [(v - dx[i, 0]).mid() for i, v in enumerate(x)]
        return [_q(float(v), 15) for v in x]


def _lyapunov(L, gamma):
    import numpy as np
    from scipy.linalg import solve_continuous_lyapunov
    n = L.shape[0]
    P = solve_continuous_lyapunov((L + gamma * np.eye(n)).T, -np.eye(n))
    return (P + P.T) / 2


def find_limit(problem, proposal: dict, *, t_max: float = 200.0) -> LimitResult:
    """A kernel-verified ``limit`` certificate for ``problem`` following the float
    ``proposal`` (:func:`reference_regime`'s dict), or a LimitResult saying why not."""
    import numpy as np

    from symgauss.integrate.validated import integrate
    from symgauss.kernel.checker import check
    from symgauss.kernel.equations import residual, svec
    from symgauss.kernel.flow import MAX_STEP_WORK, Flow, p_norm, sym_of
    from symgauss.kernel.kinds.limit import MAX_STEPS, check_region
    from symgauss.kernel.read import read_problem
    from symgauss.model.certificate import envelope
    kind = proposal["kind"]
    if kind not in ("decay", "stable-equilibrium", "singular-limit"):
        return LimitResult(None, None, f"the float integration does not converge ({kind})")
    ep = read_problem(_problem_data(problem))
    p, d = ep.params, problem.d
    n = d * (d + 1) // 2
    if kind == "decay":
        c = [flint.fmpq(0)] * n
    else:
        c = newton_center(p, proposal["limit"], d)
    C = flint.fmpq_mat(d, d)
    for k, (i, j) in enumerate((i, j) for i in range(d) for j in range(i, d)):
        C[i, j] = C[j, i] = c[k]
    with flint.ctx.workprec(128):
        flow = Flow(p)
        J = flow.jacobian(sym_of(c, d))
        L = np.array([[float(J[i, j].mid()) for j in range(n)] for i in range(n)])
    alpha = -max(np.linalg.eigvals(L).real)
    if not alpha > 1e-6:
        return LimitResult(None, None, f"the linearisation at the limit is not proved stable "
                           f"(max Re λ ≈ {-alpha:.3g}): no contraction region")
    gamma = alpha / 2
    Pf = _lyapunov(L, gamma)
    Pf = Pf / np.max(np.abs(Pf))
    P = flint.fmpq_mat(n, n, [_q(Pf[i, j], 10) for i in range(n) for j in range(n)])
    for i in range(n):
        for j in range(i):
            P[i, j] = P[j, i]
    ell = _down(float(np.linalg.eigvalsh(Pf)[0]))
    F_C = flint.fmpq_mat(n, 1, svec(residual(p, C)))
    q = float((F_C.transpose() * P * F_C)[0, 0])
    rate = ell * 0
    region = None
    for frac in (0.8, 0.5, 0.25):
        rate = _down(gamma * frac)
        scale = max(float(np.max(np.abs(np.array(c, dtype=float)))), 1e-3)
        rho = _up(scale ** 2 * float(np.linalg.eigvalsh(Pf)[-1]))
        with flint.ctx.workprec(128):
            for _ in range(40):
                try:
                    check_region(flow, P, ell, rho, C, rate, F_C)
                    region = rho
                    break
                except NotProved:
                    rho = _down(float(rho) / 4)
        if region is not None:
            break
    if region is None:
        return LimitResult(None, None, "no contraction region around the limit was proved")
    rho = region
    radius = flint.fmpq(0) if q == 0 else _up(math.sqrt(q / (float(rate) ** 2 * float(ell))))
    if kind == "stable-equilibrium" and not _pd(C - flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)]) * (radius * 3 / 2)):
        return LimitResult(None, None, "the limit is too close to singular for its enclosure")
    target = math.sqrt(float(rho)) * 0.9

    def inside(pt, r):
        gap = [flint.arb(a) - flint.arb(b) for a, b in zip(pt, c)]
        return float(p_norm(flint.arb_mat(P), gap).mid()) + float(r.mid()) < target

    steps = min(MAX_STEPS, MAX_STEP_WORK // (24 * 24 * (len(p.heads) + 1)))
    run = integrate(p, svec(ep.cov0), P, ell, inside, t_max=t_max, shrink_box=True,
                    max_steps=steps)
    metric = "region"
    if not run.stopped:     # an ill-conditioned P can make the steps stall: measure in ‖·‖_2
        from symgauss.kernel.exact import eye, norm_inf
        scale = math.sqrt(float(norm_inf(P)))

        def inside_2(pt, r):
            return inside(pt, r * scale)
        run = integrate(p, svec(ep.cov0), eye(n), flint.fmpq(1), inside_2, t_max=t_max,
                        max_steps=steps)
        metric = "identity"
    if not run.stopped:
        return LimitResult(None, None, f"validated integration did not reach the contraction "
                           f"region ({run.why})")
    claim = {"regime": kind, "center": [[str(C[i, j]) for j in range(d)] for i in range(d)],
             "radius": str(radius), "rate": str(rate), "t_enter": str(run.t)}
    witness = {"P": [[str(P[i, j]) for j in range(n)] for i in range(n)], "ell": str(ell),
               "rho": str(rho), "order": 24, "prec": 128, "steps": run.witness_steps(),
               **({"metric": metric} if metric != "region" else {})}
    cert = envelope("limit", problem, claim, witness, "rigorous",
                    "validated Taylor steps into a contraction region (symgauss.questions."
                    "regime.basin)")
    verdict = check(cert)
    if verdict.status != "verified":
        return LimitResult(None, None, f"the kernel did not verify the certificate: "
                           f"{verdict.status} ({verdict.reason[:200]})")
    return LimitResult(kind, cert, verdict.reason,
                       [[_text(C[i, j]) for j in range(d)] for i in range(d)],
                       _text(rate), _text(radius))


def _pd(M) -> bool:
    from symgauss.kernel.exact import positive_definite
    return positive_definite(M)[0] is True


def _problem_data(problem) -> dict:
    data = problem.to_dict()
    data.pop("name", None)
    return data
