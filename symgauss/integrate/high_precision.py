"""High-precision solution of the moment ODEs by a Taylor-series method.

The right-hand side is a quadratic polynomial in (m, Σ), so its Taylor
coefficients follow from Cauchy products (no numerical differentiation):

    Σ_{k+1} = (N_k + N_kᵀ)/(k+1),  N_k = AΣ_k + Σ_h V_h Σ_{j≤k} Σ_j B_h Σ_{k-j}
    m_{k+1} = ((A + Σ_h V_h) m_k + Σ_h V_h Σ_{j≤k} Σ_j B_h m_{k-j} + b δ_{k0})/(k+1)

Order and step follow Jorba–Zou (order ≈ 1.15·digits, step from the last two
coefficients). Arithmetic is python-flint ``arb_mat`` at an explicit precision
(midpoints only: the level is *high-precision*, not rigorous). The answer is
computed twice at different precisions and orders; the number of digits on
which the two agree is reported with it.

>>> from symgauss import Problem
>>> sol = solve_moments(Problem(cov0=[[1]], V=[[1]], B=[[1]]), "1/4", digits=20)
>>> sol.cov_str(20)[0][0]   # 1/(1 - 2t) at t = 1/4
'2.0000000000000000000'
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import sympy as sp

from symgauss.kernel.errors import BlowUpError, ProblemError, SolverError
from symgauss.kernel.numbers import rational_text
from symgauss.model.convert import as_time, require_numeric

BLOWUP_FACTOR = 1e15  # ‖Σ‖ beyond this multiple of its scale, with a pole before T: blow-up


@dataclass(frozen=True)
class MomentSolution:
    """m(t), Σ(t) with how they are known."""
    t: Fraction
    mean: tuple          # of flint.arb midpoints (or floats for the float path)
    cov: tuple           # tuple of row tuples
    digits: int          # requested significant digits
    digits_agreed: float  # digits on which two independent runs agree (normwise)
    level: str           # "high-precision" or "float"
    method: str
    steps: int = 0
    notes: tuple = field(default=())

    def cov_str(self, digits: int | None = None):
        n = digits or self.digits
        return [[_num_str(x, n) for x in row] for row in self.cov]

    def mean_str(self, digits: int | None = None):
        n = digits or self.digits
        return [_num_str(x, n) for x in self.mean]

    def to_json_dict(self) -> dict:
        return {"t": rational_text(self.t), "mean": self.mean_str(), "cov": self.cov_str(),
                "digits": self.digits, "digits_agreed": round(self.digits_agreed, 1),
                "level": self.level, "method": self.method}


def _num_str(x, n: int) -> str:
    if isinstance(x, float):
        return repr(x)
    with flint.ctx.workdps(n + 10):
        return x.mid().str(n, radius=False, more=True)


def arb_matrix(M, cols=None):
    return flint.arb_mat([[flint.arb(flint.fmpq(int(M[i, j].p), int(M[i, j].q)))
                           for j in range(M.shape[1])] for i in range(M.shape[0])])


def _norm(M) -> float:
    return max((abs(float(x.mid())) for x in M.entries()), default=0.0)


def _lognorm(M) -> float:
    """log of the max-abs entry (−inf for zero), safe beyond the float range."""
    best = -math.inf
    for x in M.entries():
        x = x.mid()
        if x != 0:
            best = max(best, float(abs(x).log().mid()))
    return best


class _Piece:
    """Parameters of one constant piece, as arb matrices at the working precision."""

    def __init__(self, params):
        self.A = arb_matrix(params.A)
        self.heads = [(arb_matrix(h.V), arb_matrix(h.B)) for h in params.heads]
        self.b = arb_matrix(params.b)
        Vsum = params.A * 0
        for h in params.heads:
            Vsum = Vsum + h.V
        self.AV = arb_matrix(params.A + Vsum)


def _coefficients(pc: _Piece, S0, m0, order: int):
    Sc, mc = [S0], [m0]
    W = [[B * S0] for (_, B) in pc.heads]      # B_h Σ_j
    Z = [[B * m0] for (_, B) in pc.heads]      # B_h m_j
    for k in range(order):
        N = pc.A * Sc[k]
        mk = pc.AV * mc[k]
        if k == 0:
            mk = mk + pc.b
        for h, (V, _) in enumerate(pc.heads):
            acc = Sc[0] * W[h][k]
            accm = Sc[0] * Z[h][k]
            for j in range(1, k + 1):
                acc = acc + Sc[j] * W[h][k - j]
                accm = accm + Sc[j] * Z[h][k - j]
            N = N + V * acc
            mk = mk + V * accm
        Snew = ((N + N.transpose()) / (k + 1)).mid()
        mnew = (mk / (k + 1)).mid()
        Sc.append(Snew)
        mc.append(mnew)
        for h, (_, B) in enumerate(pc.heads):
            W[h].append(B * Snew)
            Z[h].append(B * mnew)
    return Sc, mc


def _ratio(logs, k: int) -> float:
    """Ratio-test estimate |c_{k-1}| / |c_k| of the radius of convergence."""
    if logs[k] == -math.inf or logs[k - 1] == -math.inf:
        return math.inf
    return math.exp(logs[k - 1] - logs[k])


def horner(coeffs, h):
    acc = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        acc = acc * h + c
    return acc.mid()


def _integrate(problem, t_end: Fraction, dps: int, max_steps: int):
    order = int(1.15 * dps) + 4
    tol = 10.0 ** (-dps)
    steps = 0
    with flint.ctx.workdps(dps + 10):
        S = arb_matrix(problem.cov0)
        m = arb_matrix(problem.mean0)
        scale = max(1.0, _norm(S))
        for (a, e, params) in problem.pieces(sp.Rational(t_end.numerator, t_end.denominator)):
            pc = _Piece(params)
            a, e = Fraction(int(a.p), int(a.q)), Fraction(int(e.p), int(e.q))
            t = flint.arb(flint.fmpq(a.numerator, a.denominator))
            t_stop = flint.arb(flint.fmpq(e.numerator, e.denominator))
            while True:
                rem = t_stop - t
                if float(rem.mid()) <= 0:
                    break
                Sc, mc = _coefficients(pc, S, m, order)
                logs = [max(_lognorm(s), _lognorm(v)) for s, v in zip(Sc, mc)]
                ref = max(logs[0], math.log(scale))
                hs = [math.exp((math.log(tol) + ref - logs[k]) / k) for k in (order - 1, order)
                      if logs[k] > -math.inf]
                h = min(hs) if hs else math.inf
                # distance to the nearest singularity, by the ratio test at two orders; a pole
                # (blow-up) gives the same ratio at every order, an entire solution does not
                radius = _ratio(logs, order)
                pole_like = abs(radius / _ratio(logs, order // 2) - 1) < 0.2
                if logs[0] > math.log(BLOWUP_FACTOR * scale) and pole_like \
                        and radius < float(rem.mid()):
                    t_est = float(t.mid()) + radius
                    raise BlowUpError(t_end, t_est,
                                      f"the solution blows up at or before t = "
                                      f"{rational_text(t_end)}: ‖Σ‖ exceeds {math.exp(logs[0]):.3g} "
                                      f"at t ≈ {float(t.mid()):.17g}; estimated blow-up time "
                                      f"T* ≈ {t_est:.17g}")
                steps += 1
                if steps > max_steps:
                    raise SolverError(f"gave up at t ≈ {float(t.mid()):.17g} after {max_steps} "
                                      "steps (the step size collapsed); no value is reported — "
                                      "try fewer digits or the float path (--float)")
                if h >= float(rem.mid()):
                    hb = rem
                    t = t_stop
                else:
                    hb = flint.arb(h)
                    t = t + hb
                S = horner(Sc, hb)
                m = horner(mc, hb)
        return S, m, steps


def solve_moments(problem, t, digits: int = 30, *, max_steps: int = 100000) -> MomentSolution:
    """Integrate the moment ODEs to time ``t`` with ``digits`` significant digits.

    Raises :class:`symgauss.kernel.errors.BlowUpError` (with an estimate of T*) when
    the covariance blows up before ``t``.

    >>> import symgauss as sg
    >>> s = sg.solve(sg.example("scalar_blowup"), "1/4", digits=20)   # σ(t) = 1/(1 − 2t)
    >>> s.cov_str(), s.level, s.digits_agreed >= 20
    ([['2.0000000000000000000']], 'high-precision', True)
    """
    require_numeric(problem, "solve")
    if not isinstance(digits, int) or digits < 1 or digits > 2000:
        raise ProblemError(f"digits = {digits!r}: ask for an integer between 1 and 2000")
    t_end = as_time(t)
    S1, m1, steps = _integrate(problem, t_end, digits + 8, max_steps)
    S2, m2, _ = _integrate(problem, t_end, digits + 16, max_steps)
    with flint.ctx.workdps(digits + 26):
        diff = max(_norm(S1 - S2), _norm(m1 - m2))
        size = max(_norm(S2), _norm(m2), 1e-300)
    agreed = 16.0 + digits if diff == 0 else min(-math.log10(diff / size), digits + 16.0)
    return MomentSolution(
        t=t_end, mean=tuple(m2.entries()), cov=tuple(tuple(S2[i, j] for j in range(S2.ncols()))
                                                     for i in range(S2.nrows())),
        digits=digits, digits_agreed=agreed, level="high-precision",
        method=f"Taylor series (order {int(1.15 * (digits + 16)) + 4}, arb midpoints at "
               f"{digits + 26} digits), cross-checked at {digits + 8} digits",
        steps=steps)
