"""Blow-up for any V_h, B_h with a proved T* enclosure: validated steps until Σ is large, then
two comparison equations (the mathematics is in :mod:`symgauss.kernel.kinds.blowup_trajectory`).

Untrusted search for a kernel ``blowup-trajectory`` certificate: a ≤ λmin((A + Aᵀ)/2) and
c = 2/(tᵀK⁻¹t) (the largest c with K − (c/2)ttᵀ ⪰ 0 when K ≻ 0), both rounded down to three
digits and checked exactly by the kernel's :func:`require_rates`; then validated steps
(:mod:`symgauss.integrate.validated`, metric I) until the two comparison times agree to about
eight digits, or the step budget ends (the enclosure is then wider, still proved). The method
needs the quadratic part to be positive on Sym(d) (tr Q(Σ) ≥ c(tr Σ)² for all Σ): same-sign
problems; blow-ups driven by an indefinite quadratic part are left undecided here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint

from symgauss.kernel.verdict import NotProved


@dataclass(frozen=True)
class BlowupBound:
    certificate: dict | None
    why: str
    enclosure: tuple | None = None    # (lo, hi) exact text
    t_star: str | None = None


def _decimal_inside(lo: Fraction, hi: Fraction):
    """The decimal with the most digits (≤ 15) whose half-unit interval holds [lo, hi]."""
    for k in range(15, 0, -1):
        text = f"{float((lo + hi) / 2):.{k}f}"
        t = Fraction(text)
        half = Fraction(1, 2 * 10 ** k)
        if t - half <= lo and hi <= t + half:
            return text
    return None


def _frac(x: float, up: bool) -> Fraction:
    """A short rational beyond the float x (one unit of the 14th digit of margin)."""
    e = math.floor(math.log10(abs(x))) - 13
    m = math.ceil(x / 10 ** e) + 1 if up else math.floor(x / 10 ** e) - 1
    return Fraction(m) * Fraction(10) ** e


def find_blowup(problem, t_ref: float) -> BlowupBound:
    """A kernel-verified ``blowup-trajectory`` certificate, or why none was found."""
    import numpy as np

    from symgauss.integrate.validated import integrate
    from symgauss.kernel.equations import svec
    from symgauss.kernel.exact import eye
    from symgauss.kernel.kinds.blowup_trajectory import (
        bounds,
        quadratic_form,
        require_rates,
        trace_vector,
    )
    from symgauss.kernel.read import read_problem
    from symgauss.questions.regime.basin import _down
    d = problem.d
    n = d * (d + 1) // 2
    data = problem.to_dict()
    data.pop("name", None)
    ep = read_problem(data)
    p = ep.params
    Af = np.array([[float(p.A[i, j]) for j in range(d)] for i in range(d)])
    lam = float(np.linalg.eigvalsh((Af + Af.T) / 2)[0])
    a = -_up_abs(-lam) if lam < 0 else (_down(lam) if lam > 0 else flint.fmpq(0))
    K = quadratic_form(p)
    Kf = np.array([[float(K[i, j]) for j in range(n)] for i in range(n)])
    if not np.linalg.eigvalsh(Kf)[0] > 0:
        return BlowupBound(None, "the quadratic part is not positive on Sym(d) (tr Q(Σ) ≥ "
                           "c(tr Σ)² fails), so the comparison argument does not apply")
    t = np.array([float(x) for x in trace_vector(d).entries()])
    c = _down(2 / float(t @ np.linalg.solve(Kf, t)))
    try:
        require_rates(p, a, c)
    except NotProved as exc:
        return BlowupBound(None, f"comparison rates not proved: {exc}")

    def enclosure(pt, r, t0):
        try:
            with flint.ctx.workprec(128):
                return bounds(p, a, c, pt, r, t0)
        except NotProved:
            return None

    history = []   # (width, steps taken, enclosure) after each step

    def narrow(pt, r, t0):
        e = enclosure(pt, r, t0)
        k = len(history)
        history.append((math.inf if e is None else float(e[1].mid() - e[0].mid()), k, e))
        best = min(history, key=lambda h: h[0])
        if best[2] is None:
            return False
        return best[0] < 1e-8 * float(best[2][1].mid()) or (
            best[0] < math.inf and history[-1][0] > 100 * best[0])

    run = integrate(p, svec(ep.cov0), eye(n), flint.fmpq(1), None, t_max=t_ref * 1.5,
                    tol=1e-12, stop_time=narrow)
    width, k, e = min(history, key=lambda h: h[0])
    if e is None:
        return BlowupBound(None, f"validated integration did not reach a Σ large enough for "
                           f"the comparison ({run.why or 'no enclosure'})")
    return certified("blowup-trajectory", problem, e, run.truncate(k),
                     {"a": str(a), "c": str(c)},
                     "validated Taylor steps, then comparison equations for tr Σ and ‖Σ‖_F "
                     "(symgauss.questions.regime.blowup_bound)")


def certified(kind: str, problem, e, run, extra: dict, note: str, prec: int = 128) -> BlowupBound:
    """The ``kind`` certificate (validated steps of ``run`` at order 24, ``prec`` bits, then the
    witness keys ``extra``) for the T* bounds ``e``, kept only when the kernel verifies it."""
    claim = claim_of(e)
    res = verified(kind, problem, claim,
                   {"steps": run.witness_steps(), "order": 24, "prec": prec, **extra}, note)
    if res.certificate is None:
        return res
    return BlowupBound(res.certificate, res.why, (claim["t_lower"], claim["t_upper"]),
                       claim.get("t_star"))


def verified(kind: str, problem, claim: dict, witness: dict, note: str,
             level: str = "rigorous") -> BlowupBound:
    """The ``kind`` certificate (at ``level``) with this claim and witness, kept only when the
    kernel verifies it (else why not)."""
    from symgauss.kernel.checker import check
    from symgauss.model.certificate import envelope
    cert = envelope(kind, problem, claim, witness, level, note)
    verdict = check(cert)
    if verdict.status != "verified":
        return BlowupBound(None, f"the kernel did not verify the certificate: "
                           f"{verdict.status} ({verdict.reason[:200]})")
    return BlowupBound(cert, verdict.reason)


def claim_of(e) -> dict:
    """The claim (t_lower, t_upper, t_star when a digit is proved) from two arb bounds of T*."""
    lo = _frac(float(e[0].mid() - e[0].rad()), False)
    hi = _frac(float(e[1].mid() + e[1].rad()), True)
    claim = {"t_lower": f"{lo.numerator}/{lo.denominator}",
             "t_upper": f"{hi.numerator}/{hi.denominator}"}
    star = _decimal_inside(lo, hi)
    if star is not None:
        claim["t_star"] = star
    return claim


def _up_abs(x: float) -> flint.fmpq:
    """A rational ≥ x > 0 with three significant digits."""
    e = math.floor(math.log10(x)) - 2
    m = math.ceil(x * 1.001 / 10 ** e)
    return flint.fmpq(m * 10 ** e) if e >= 0 else flint.fmpq(m, 10 ** (-e))
