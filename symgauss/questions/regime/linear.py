"""Eq. 1.1 without a quadratic term: Σ(t) = e^{At}Σ0e^{Aᵀt}, its fate from A's spectrum, with a
``linear-constant``, ``linear-decay`` or ``linear-growth`` certificate (the mathematics is in
:mod:`symgauss.kernel.kinds.linear`).

Untrusted search: the rates from A's spectral abscissa in floats (rounded down to short
rationals, halved until the kernel's Hurwitz test accepts them) and the growth's lower constant
from λmin(Σ0); the kernel decides Q ≡ 0 and every Hurwitz determinant itself.
"""
from __future__ import annotations

from fractions import Fraction

import flint

from symgauss.kernel.verdict import NotProved
from symgauss.questions.regime.blowup_bound import verified

METHOD = ("linear flow: the quadratic term vanishes (Q ≡ 0 on Sym(d), exact), Σ(t) = "
          "e^{At}Σ0e^{Aᵀt}; A's spectrum by Hurwitz determinants, exact "
          "(symgauss.questions.regime.linear)")


def _fmpq(x: Fraction) -> flint.fmpq:
    return flint.fmpq(x.numerator, x.denominator)


def _rate(accepts, top: float) -> Fraction | None:
    """The first of top, 0.999·top, 0.9·top, top/2, top/4, …, top/2¹⁷ (short rationals below
    them) that ``accepts``."""
    import math
    if not top > 0:
        return None
    for frac in (1.0, 0.999, 0.9, *(2.0 ** -k for k in range(1, 18))):
        x = top * frac      # four significant digits, one unit of the last below x
        e = 3 - math.floor(math.log10(x))
        r = Fraction(math.floor(x * 10.0 ** e) - 1) / Fraction(10) ** e
        if r > 0 and accepts(_fmpq(r)):
            return r
    return None


def linear_regime(problem, Regime):
    """``constant``, ``decay`` or ``growth`` at level exact with a kernel-verified certificate
    when eq. 1.1 has no quadratic term and Σ0 ≻ 0; else None (the other methods decide)."""
    import numpy as np

    from symgauss.kernel.equations import hurwitz_stable
    from symgauss.kernel.exact import eye, is_psd, positive_definite
    from symgauss.kernel.kinds.linear import require_linear
    from symgauss.kernel.read import read_problem
    from symgauss.questions.regime.basin import _problem_data
    ep = read_problem(_problem_data(problem))
    try:
        require_linear(ep.params)
    except NotProved:
        return None
    if positive_definite(ep.cov0)[0] is not True:
        return None
    A, d = ep.params.A, problem.d
    Af = np.array([[float(A[i, j]) for j in range(d)] for i in range(d)])
    mu = float(max(np.linalg.eigvals(Af).real))
    if A == A * 0:
        kind, claim, answer = "linear-constant", {}, "constant"
    elif hurwitz_stable(A):
        r = _rate(lambda r: hurwitz_stable(A + eye(d) * (r / 2)), -2 * mu) or Fraction(0)
        kind, claim, answer = "linear-decay", {"rate": str(r)}, "decay"
    else:
        r = _rate(lambda r: not hurwitz_stable(A - eye(d) * (r / 2)), 2 * mu)
        lam = float(min(np.linalg.eigvalsh(np.array([[float(ep.cov0[i, j]) for j in range(d)]
                                                      for i in range(d)]))))
        c = _rate(lambda c: is_psd(ep.cov0 - eye(d) * c), lam)
        if r is None or c is None:
            return None
        kind, claim, answer = "linear-growth", {"rate": str(r), "lower": str(c)}, "growth"
    res = verified(kind, problem, claim, {}, METHOD, level="exact")
    if res.certificate is None:
        return None
    cert = res.certificate
    equilibrium = None if answer != "constant" else tuple(
        tuple(str(Fraction(int(ep.cov0[i, j].p), int(ep.cov0[i, j].q))) for j in range(d))
        for i in range(d))
    return Regime(answer, "exact", cert["claim"]["statement"] + " (kernel: VERIFIED)", METHOD,
                  equilibrium=equilibrium, rate=claim.get("rate"), certificate_data=cert)
