"""Blow-up for general V (not every V_h a multiple of I): comparison bounds and the
desingularised (projective) system.

Rigorous: ‖Σ‖' ≤ 2‖A‖‖Σ‖ + 2Σ‖V_h‖‖B_h‖‖Σ‖² gives T* ≥ T_low (and no blow-up when every
V_hB_h term vanishes, decided exactly); for symmetric definite same-sign V_h, B_h,
(trΣ)' ≥ 2λmin(A_sym)trΣ + 2κ(trΣ)²/r gives T* ≤ T_up; opposite signs give tr(VΣBΣ) ≤ 0 and
global existence. The value of T* comes from the projective system of
:mod:`symgauss.questions.blowup.projective`, integrated twice with different weights W; it is
reported (level *high-precision*) only when both runs reach u → 0 and agree, and only to the
digits on which they agree.
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint
import mpmath

from symgauss.questions.blowup.result import BlowupResult, agree, digits_text, frac_text


def _integration_check(problem, t_star, digits: int = 20):
    """Agreement of T* with the moment ODE integrated by hpsolve up to 0.999 T*."""
    from symgauss.integrate.high_precision import solve_moments
    from symgauss.kernel.errors import BlowUpError
    with mpmath.workdps(40):
        T = mpmath.mpf(t_star)
        ts, ys = [], []
        try:
            for j in range(1, 6):
                t = Fraction(mpmath.nstr(T * (1 - mpmath.mpf(j) / 1000), 30))
                sol = solve_moments(problem, t, digits=digits)
                tr = sum(mpmath.mpf(x.mid().str(30, radius=False)) for x in
                         (sol.cov[i][i] for i in range(problem.d)))
                ts.append(mpmath.mpf(t.numerator) / t.denominator)
                ys.append(1 / tr)
        except BlowUpError as exc:
            return [("moment ODE (hpsolve) blew up before 0.999·T*: " + str(exc)[:80], 0.0)]
        # Newton form of the interpolating polynomial of y = 1/trΣ; its root near T*
        n = len(ts)
        coef = list(ys)
        for k in range(1, n):
            for i in range(n - 1, k - 1, -1):
                coef[i] = (coef[i] - coef[i - 1]) / (ts[i] - ts[i - k])

        def poly(x):
            acc = coef[-1]
            for i in range(n - 2, -1, -1):
                acc = acc * (x - ts[i]) + coef[i]
            return acc
        t_est = mpmath.findroot(poly, T)
        return [("moment ODE (Taylor, hpsolve, 20 digits) at t = T*(1 − j/1000), zero of "
                 "1/trΣ extrapolated", agree(t_est, T))]


def _exact_lower_eig(S):
    """A rational ℓ ≤ λmin(S) for symmetric rational S (checked exactly)."""
    import numpy as np

    from symgauss.kernel.exact import is_psd
    from symgauss.model.convert import to_fractions
    F = to_fractions(S)
    lam = float(np.linalg.eigvalsh(np.array(F, dtype=float))[0])
    step = 1e-9 * (1 + abs(lam))
    for _ in range(60):
        ell = Fraction(lam - step).limit_denominator(10 ** 12)
        ell = min(ell, Fraction(lam - step))
        if is_psd([[F[i][j] - (ell if i == j else 0) for j in range(len(F))]
                   for i in range(len(F))]):
            return ell
        step *= 4
    return None


def _norm_upper(M):
    """A rational upper bound of the spectral norm of M, or None.

    Exactly 0 for the zero matrix (decided exactly); otherwise √ℓ rounded up, where
    ℓ ≥ λmax(MᵀM) is proved by an exact PSD test of ℓI − MᵀM."""
    if all(x == 0 for x in M):
        return Fraction(0)
    S = -(M.T * M)
    ell = _exact_lower_eig(S)
    if ell is None:
        return None
    s = Fraction(math.isqrt(int(math.ceil(-ell * 10 ** 24))) + 1, 10 ** 12)
    return s


def _round_out(x, down: bool) -> Fraction:
    """A short rational below (``down``) or above the arb point ``x`` (which is > 0)."""
    f = Fraction(float(x.mid()))                # within 1e-16 relative of x
    f = f * (Fraction(1) - Fraction(1, 10 ** 12) if down else Fraction(1) + Fraction(1, 10 ** 12))
    k = 10 ** (15 - math.floor(math.log10(float(f))))
    return Fraction(math.floor(f * k) if down else math.ceil(f * k), k)


def _sym(M):
    return (M + M.T) / 2


def general_decision(problem, digits, certify, crosscheck):
    from symgauss.kernel.exact import rank as exact_rank
    from symgauss.model.convert import to_fractions
    p = problem.params
    S0 = problem.cov0
    r = exact_rank(to_fractions(S0))
    if r == 0:
        return BlowupResult("decay", False, None, None, False, "Σ0 = 0", "exact",
                            "Σ0 = 0 stays 0 (rank is invariant)", digits=digits, limit_rank=0)
    a_up = _norm_upper(p.A)
    norms = [(_norm_upper(h.V), _norm_upper(h.B)) for h in p.heads]
    evidence = []
    t_low = None
    if all(nv == 0 or nb == 0 for nv, nb in norms):      # exact zero tests
        from symgauss.questions.blowup.enclosure import fmpq_matrix, hurwitz
        hurwitz = hurwitz(fmpq_matrix(p.A))
        return BlowupResult("decay" if hurwitz else "global", False, None, None, False,
                            "no quadratic term", "exact",
                            "every head has V_h = 0 or B_h = 0 (exact): Σ' = AΣ + ΣAᵀ, "
                            "Σ(t) = e^{At}Σ0e^{Aᵀt} exists for all t"
                            + ("; A is Hurwitz (exact Lyapunov test): Σ → 0" if hurwitz else ""),
                            digits=digits, limit_rank=0 if hurwitz else None)
    c_up = (None if any(nv is None or nb is None for nv, nb in norms)
            else sum(nv * nb for nv, nb in norms))
    lmax = _exact_lower_eig(-S0)
    u0 = None if lmax is None else -lmax      # λmax(Σ0) upper bound
    if a_up is not None and c_up is not None and u0 is not None:
        with flint.ctx.workprec(128):
            a, c, u = (flint.arb(flint.fmpq(x.numerator, x.denominator))
                       for x in (a_up, c_up, u0))
            lo = (1 + a / (c * u)).log() / (2 * a) if a_up > 0 else 1 / (2 * c * u)
            t_low = _round_out(lo.lower(), down=True)
        evidence.append(f"‖Σ‖' ≤ 2‖A‖‖Σ‖ + 2Σ‖V_h‖‖B_h‖‖Σ‖² with ‖A‖ ≤ {float(a_up):.6g}, "
                        f"Σ‖V_h‖‖B_h‖ ≤ {float(c_up):.6g}, ‖Σ0‖ ≤ {float(u0):.6g}: "
                        f"T* ≥ {float(t_low):.10g} (rigorous)")
    # sign structure of the quadratic term: tr(VΣBΣ) = tr((YᵀVY)(YᵀBY))
    kappa, opposite = Fraction(0), True
    same = True
    for h in p.heads:
        if h.V != h.V.T and h.B != h.B.T:
            same = opposite = False
            break
        lv, lb = _exact_lower_eig(_sym(h.V)), _exact_lower_eig(_sym(h.B))
        uv, ub = _exact_lower_eig(-_sym(h.V)), _exact_lower_eig(-_sym(h.B))
        if None in (lv, lb, uv, ub):
            same = opposite = False
            break
        uv, ub = -uv, -ub
        if lv > 0 and lb > 0:
            kappa += lv * lb
        elif uv < 0 and ub < 0:
            kappa += uv * ub
        else:
            same = False
        if not ((uv <= 0 and lb >= 0) or (lv >= 0 and ub <= 0)):
            opposite = False
    a_sym_low = _exact_lower_eig(_sym(p.A))
    a_sym_up = _exact_lower_eig(-_sym(p.A))
    a_sym_up = None if a_sym_up is None else -a_sym_up
    if opposite:
        regime = "decay" if a_sym_up is not None and a_sym_up < 0 else "global"
        return BlowupResult(regime, False, None, None, False, "comparison bound on tr Σ", "exact",
                            "opposite signs (V_h ⪯ 0 ⪯ B_h or V_h ⪰ 0 ⪰ B_h, symmetric parts, "
                            "exact): tr(V_hΣB_hΣ) ≤ 0, so (trΣ)' ≤ 2λmax(A_sym)trΣ: no blow-up"
                            + (f"; λmax(A_sym) ≤ {float(a_sym_up):.6g} < 0: Σ → 0"
                               if regime == "decay" else ""),
                            digits=digits, limit_rank=0 if regime == "decay" else None)
    t_up = None
    if same and kappa > 0 and a_sym_low is not None:
        u0t = sum(S0[i, i] for i in range(problem.d))
        u0t = Fraction(int(u0t.p), int(u0t.q))
        with flint.ctx.workprec(128):
            a, k, u = (flint.arb(flint.fmpq(x.numerator, x.denominator))
                       for x in (a_sym_low, kappa, u0t))
            arg = 1 + a * r / (k * u)
            if a_sym_low == 0:
                hi = r / (2 * k * u)
            elif arg > 0:
                hi = arg.log() / (2 * a)
            else:
                hi = None
            if hi is not None and hi.is_finite():
                t_up = _round_out(hi.upper(), down=False)
        if t_up is not None:
            evidence.append(f"same signs (symmetric definite V_h, B_h): (trΣ)' ≥ "
                            f"2λmin(A_sym)trΣ + 2κ(trΣ)²/r with λmin(A_sym) ≥ "
                            f"{float(a_sym_low):.6g}, κ ≥ {float(kappa):.6g}, r = {r}: "
                            f"T* ≤ {float(t_up):.10g} (rigorous)")
    bracket = (frac_text(t_low) if t_low is not None else None,
               frac_text(t_up) if t_up is not None else None)
    # high precision: the desingularised (projective) system, two runs that must agree
    t_hp, agreement, note = _general_high_precision(problem, digits, crosscheck)
    if t_up is not None:
        return BlowupResult("blow-up", True, t_hp, None, False,
                            "comparison bounds on tr Σ and ‖Σ‖ (rigorous bracket)"
                            + (" + projective desingularisation (high-precision T*)"
                               if t_hp is not None else ""),
                            "rigorous", "; ".join(evidence + [note]) + "; the blow-up itself is "
                            "rigorous (bracket)" + ("; the digits of T* are high-precision"
                                                    if t_hp is not None else
                                                    "; T* is known only within the bracket"),
                            digits=digits, bracket=bracket, agreement=agreement)
    if t_hp is not None:
        return BlowupResult("blow-up", True, t_hp, None, False,
                            "projective desingularisation (u = 1/tr(WΣ) → 0, Taylor series, two "
                            "agreeing runs) + comparison bound", "high-precision",
                            "; ".join(evidence + [note]) + " (blow-up and value high-precision, "
                            "not proved)", digits=digits, bracket=bracket, agreement=agreement)
    return BlowupResult("undecided", None, None, None, False, "comparison bounds", None,
                        "; ".join(evidence + [note]) + "; no upper bound on T* (V_h, B_h not of "
                        "one sign)", digits=digits, bracket=bracket, agreement=agreement)


MIN_AGREED = 3      # fewer agreeing digits than this: the two projective runs do not agree


def _general_high_precision(problem, digits, crosscheck):
    """(T* text or None, agreement, note) for general V from the projective (desingularised)
    system, integrated twice with different weights W, orders and precisions.

    T* is given only when both runs reach u → 0 and agree, and then only to the digits on
    which they agree (at most ``digits``); optionally the moment ODE itself (hpsolve) too.
    """
    from symgauss.questions.blowup.projective import projective_t_star
    t0, _ = projective_t_star(problem, 12, weight=0, max_steps=120)   # cheap detection
    if t0 is None:
        return None, (), "the projective system did not reach u → 0 within 120 steps"
    t1, _ = projective_t_star(problem, digits, weight=0)
    t2, _ = projective_t_star(problem, digits + 5, weight=1)
    if t1 is None or t2 is None:
        which = "W = I" if t1 is None else "W = diag(1, 2, …)/2"
        return None, (), (f"the projective run with {which} did not reach u → 0, so there is "
                          "no second agreeing run (a single run is not evidence enough)")
    agreed = agree(t1, t2)
    agreement = [("projective system, W = I vs W = diag(1, 2, …)/2 (Taylor, arb midpoints)",
                  agreed)]
    shown = min(digits, int(agreed))
    if shown < MIN_AGREED:
        return None, tuple(agreement), (f"the two projective runs agree to {agreed:.1f} digits "
                                        "only: no value of T* is given")
    if crosscheck:
        agreement += _integration_check(problem, t1)
    with mpmath.workdps(digits + 20):
        text = digits_text(t1, shown)
    note = ("two projective runs (u = 1/tr(WΣ) → 0 in both) agree to "
            f"{agreed:.1f} digits" + (f"; T* is given to those {shown} digits only"
                                      if shown < digits else ""))
    return text, tuple(agreement), note
