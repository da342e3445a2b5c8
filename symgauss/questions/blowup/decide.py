"""Finite-time blow-up of the covariance: the decision, T* to D digits, certified enclosures.

For time-invariant parameters, :func:`decide_blowup` answers *blows up / stays bounded / decays
/ exists for all time / undecided* with the argument used and its level:

1. **closed form** (:mod:`symgauss.questions.blowup.closed_form`): scalar, decoupled (A, V_h, B_h, Σ0
   simultaneously orthogonally diagonalisable — detected exactly), V_h = v_h I with A = αI.
   Level *exact*; T* as a SymPy expression (``result.closed_form``) and to D digits.
2. **V_h = v_h I, any A** — the linear equation for P = Σ⁻¹ (notes §4): Σ exists exactly while
   M(t) = D_r⁻¹ − L_rᵀ G(t) L_r ≻ 0 (Σ0 = L_r D_r L_rᵀ, G from one Van Loan exponential).
   Exact arguments first: R ⪯ 0 ⇒ no blow-up; A Hurwitz and R ⪰ 0 ⇒ compare with
   G∞ (AᵀG∞ + G∞A = −R): M∞ ≻ 0 ⇒ decay, M∞ not PSD ⇒ blow-up. Then T* = first root of
   det M(t) by Newton's method at D digits, and a certified enclosure [T⁻, T⁺] (width
   ≤ 2·10^-(max(D,30)+2)) proved in ball arithmetic by the trusted checker's code.
3. **general V** — comparison bounds (notes §4), rigorous: ‖Σ‖' ≤ 2‖A‖‖Σ‖ + 2Σ‖V_h‖‖B_h‖‖Σ‖²
   gives T* ≥ T_low (and no blow-up when every V_hB_h term vanishes); for symmetric definite
   same-sign V_h, B_h, (trΣ)' ≥ 2λmin(A_sym)trΣ + 2κ(trΣ)²/r gives T* ≤ T_up; opposite signs give
   tr(VΣBΣ) ≤ 0 and global existence. The value of T* comes from the desingularised projective
   system of :mod:`symgauss.questions.blowup.projective` (u = 1/tr(WΣ) → 0 as a regular limit), integrated
   twice with different weights W (level *high-precision*, agreement digits stated).

Cross-verification (``crosscheck=True``, the default with ``certify=True``): every reported T*
is compared with the moment ODE itself, integrated by an independent route. For V_h = v_h I
(and the closed forms): the projective form of the moment ODE (u = 1/trΣ → 0, see
:func:`symgauss.questions.blowup.projective.projective_float`) in float64, which also gives
the residue tr C of Σ ≈ C/(T* − t), compared with C predicted from the null vector of M(T*).
For general V (whose T* already comes from the projective system):
:func:`symgauss.integrate.high_precision.solve_moments` at t_j = T*(1 − j/1000), j = 1..5,
1/trΣ(t_j) extrapolated to zero. ``result.agreement`` lists which methods agreed and to how
many digits. The cross-check is never part of a proof: the enclosure is certified by the
checker's own code, whether or not the cross-check ran.

Limits. Blow-up is a property of the mean-field (continuum) limit: a finite-token system
never blows up in finite time (attention averages stay in the convex hull of the tokens, so
growth is at most exponential), and particle simulations under-sample the tails that drive
blow-up — compare them with the moment ODE at early times only. Time-varying controls are
not handled here.

>>> from symgauss import Problem
>>> r = decide_blowup(Problem(cov0=[[1]], V=[[1]], B=[[1]]), digits=10, certify=False)
>>> r.regime, r.t_star, r.closed_form, r.level
('blow-up', '0.5000000000', 1/2, 'exact')
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp

from symgauss.kernel.errors import ProblemError, UnsupportedError
from symgauss.model.convert import require_numeric
from symgauss.questions.blowup.closed_form import closed_form
from symgauss.questions.blowup.result import BlowupResult, agree, digits_text, frac_text


# --- helpers ----------------------------------------------------------------------------------
def _validate(problem, digits):
    if not isinstance(digits, int) or isinstance(digits, bool) or not 1 <= digits <= 2000:
        raise ProblemError(f"digits = {digits!r}: ask for an integer between 1 and 2000")
    if not problem.is_time_invariant:
        raise UnsupportedError("blow-up is decided for time-invariant parameters; this problem "
                               "has 'controls' — use `symgauss solve` (it reports blow-up "
                               "within a horizon) or give constant A, V, B")
    require_numeric(problem, "blowup")


def _closed_form_value(cf, digits: int) -> mpmath.mpf:
    """T* of a closed form from a ball enclosure whose radius is below 10^-(digits + 5)·T*."""
    prec = int(3.33 * digits) + 40
    while True:
        ball = cf.t_star_arb(prec)
        if ball.rel_accuracy_bits() >= 3.33 * digits + 16:
            m, e = ball.mid().man_exp()
            return mpmath.mpf((int(m), int(e)))
        prec *= 2


# --- exact structure for V = vI ---------------------------------------------------------------
def _riccati_decision(problem, data, digits, certify, crosscheck):
    from symgauss.kernel.exact import ldl_positive_definite
    from symgauss.kernel.exact import is_psd
    from symgauss.kernel.kinds.blowup import ldl_psd
    from symgauss.questions.blowup.enclosure import first_root, hurwitz, lyapunov
    if data.rank == 0:
        return BlowupResult("decay", False, None, None, False, "Σ0 = 0", "exact",
                            "Σ0 = 0 is an equilibrium: Σ(t) = 0 for all t (rank is invariant)",
                            digits=digits, limit_rank=0)
    is_hurwitz = hurwitz(data.A)
    base = ("V_h = v_h I: Σ' = AΣ + ΣAᵀ + ΣRΣ, R = Σ_h v_h(B_h + B_hᵀ); Σ exists exactly while "
            "M(t) = D⁻¹ − LᵀG(t)L ≻ 0 (linear equation for P = Σ⁻¹)")
    if is_psd(-data.R):
        regime = "decay" if is_hurwitz else "global"
        return BlowupResult(regime, False, None, None, False, "Riccati sign structure (R ⪯ 0)",
                            "exact", base + "; R ⪯ 0 (exact) so G(t) ⪯ 0, M(t) ⪰ D⁻¹ ≻ 0 for "
                            "all t: no blow-up; 0 ⪯ Σ(t) ⪯ e^{At}Σ0e^{Aᵀt}"
                            + (", and A is Hurwitz (exact Lyapunov test): Σ → 0" if is_hurwitz
                               else ""), digits=digits, limit_rank=0 if is_hurwitz else None)
    why = ""
    if is_hurwitz:
        Ginf = lyapunov(data.A, data.R)
        Minf = data.Dinv - data.Lr.transpose() * Ginf * data.Lr
        if data.monotone and ldl_positive_definite(Minf)[0]:
            return BlowupResult("decay", False, None, None, False,
                                "Riccati + Lyapunov limit G∞", "exact",
                                base + "; A Hurwitz (exact), R ⪰ 0: G(t) ↑ G∞ with AᵀG∞ + G∞A = "
                                "−R, and M∞ = D⁻¹ − LᵀG∞L ≻ 0 (exact LDLᵀ), so M(t) ⪰ M∞ ≻ 0 "
                                "for all t: no blow-up, and Σ(t) → 0 (below the threshold)",
                                digits=digits, limit_rank=0)
        if ldl_psd(Minf) is None:
            why = ("; A Hurwitz and M∞ = D⁻¹ − LᵀG∞L is not PSD (exact): M(t) → M∞ must leave "
                   "the PD cone, so Σ blows up (above the threshold)")
        elif data.monotone and ldl_positive_definite(data.R)[0]:
            return BlowupResult("global", False, None, None, False,
                                "Riccati + Lyapunov limit G∞", "exact",
                                base + "; A Hurwitz, R ≻ 0, M∞ ⪰ 0 singular (on the "
                                "threshold): M(t) ≻ M∞ ⪰ 0 for all t, no blow-up",
                                digits=digits)
    scale = float(abs(data.Rf).sum() / max(min(data.Dinvf.diagonal()), 1e-300)
                  + abs(data.Af).sum()) + 1e-12
    horizon = 400.0 / scale
    # the certified enclosure has max(digits, 30) + 2 digits: the root must have them too
    root = first_root(data, max(digits, 30) if certify else digits, horizon)
    if root is None and why:          # blow-up proved exactly; its time not located
        return BlowupResult("blow-up", True, None, None, False, "Riccati + Lyapunov limit G∞",
                            "exact", base + why + f"; T* not located on [0, {horizon:.3g}] by "
                            "the float scan", digits=digits)
    if root is None:
        return BlowupResult("undecided", None, None, None, False,
                            "Riccati: float scan of det M(t)", None,
                            base + f"; no loss of definiteness found on [0, {horizon:.3g}] "
                            "(float scan; not a proof)" + why, digits=digits)
    return _blowup_from_root(problem, data, root, digits, certify, crosscheck,
                             method="first root of det(P0 − G(t)) (Van Loan, Newton)",
                             evidence=base + why)


#: digits on which the projective integration must confirm an uncertified T*
MIN_AGREEMENT = 3


def _blowup_from_root(problem, data, root, digits, certify, crosscheck, method, evidence,
                      cf=None):
    from symgauss.questions.blowup.enclosure import certify_root
    agreement = []
    if cf is not None:
        with mpmath.workprec(int(3.33 * digits) + 60):
            exact = _closed_form_value(cf, digits + 5)
            t_text = digits_text(exact, digits)
            if root is not None:
                agreement.append(("Newton on det(P0 − G(t)) vs closed form",
                                  agree(exact, root.t_star)))
    else:
        with mpmath.workprec(root.prec):
            t_text = digits_text(root.t_star, digits)
    enclosure, certified, proof = None, False, ""
    if certify:
        enc = certify_root(data, root, digits)
        if enc is not None:
            enclosure = (frac_text(enc.lower), frac_text(enc.upper))
            certified = True
            proof = (f"; certified: T* ∈ [T⁻, T⁺] of width {float(enc.upper - enc.lower):.1e} "
                     f"({enc.proof}; xᵀM(T⁺)x < 0) in arb at {enc.prec} bits")
    if crosscheck:
        agreement += _projective_check(problem, data, root)
        if cf is None and not certified and not any(
                name.endswith("T*") and digits_agreed >= MIN_AGREEMENT
                for name, digits_agreed in agreement):
            # one unproved method, contradicted (or not confirmed) by the other: fail closed
            return BlowupResult("undecided", None, None, None, False, method, None,
                                evidence + f"; a root of det M(t) near t ≈ {t_text[:12]} was "
                                "found in high precision but neither certified nor confirmed "
                                f"by integrating the moment ODE ({agreement[-1][0]}): no answer",
                                digits=digits, agreement=tuple(agreement))
    lvl = (cf.level if cf is not None else "rigorous" if certified else "high-precision")
    return BlowupResult("blow-up", True, t_text, enclosure, certified, method, lvl,
                        evidence + proof, closed_form=None if cf is None else cf.t_star,
                        digits=digits,
                        agreement=tuple(agreement))


# --- cross-verification by integrating the moment ODE ------------------------------------------
def _projective_check(problem, data, root):
    """Agreement of T* and of the residue tr C (Σ ≈ C/(T* − t)) with the moment ODE itself,
    integrated through the blow-up in its desingularised (projective) form in float64."""
    from symgauss.questions.blowup.enclosure import predicted_residue
    from symgauss.questions.blowup.projective import projective_float
    t_est, trc_est, _ = projective_float(problem)
    if t_est is None:
        return [("moment ODE, projective form (float64 Taylor): no blow-up seen", 0.0)]
    trC = predicted_residue(data, root)
    return [("moment ODE, projective form u = 1/trΣ → 0 (float64 Taylor): T*",
             agree(t_est, root.t_star)),
            ("residue tr C of Σ ≈ C/(T* − t): predicted from the null vector of M(T*) vs the "
             "projective integration", agree(trc_est, trC))]


# --- the public entry points ------------------------------------------------------------------
def decide_blowup(problem, digits: int = 30, *, certify: bool = True,
                  crosscheck: bool | None = None) -> BlowupResult:
    """Decide whether Σ(t) blows up in finite time; T* to ``digits`` digits when it does.

    Parameters
    ----------
    problem : time-invariant numeric :class:`symgauss.Problem`.
    digits : significant digits of T* (1..2000; default 30).
    certify : prove an enclosure of T* in ball arithmetic (V_h = v_h I only).
    crosscheck : compare T* with high-precision integration of the moment ODE
        (default: same as ``certify``). ``certify=False`` with small ``digits`` is cheap;
        scalar and diagonal problems are decided exactly from the closed form.

    Finite-token systems never blow up in finite time: this is a statement about the
    mean-field limit.

    >>> import symgauss as sg
    >>> r = sg.blowup(sg.example("blowup_diag"), digits=20)   # A = 0, V = I, B = diag(1, 2)
    >>> r.regime, r.t_star, r.level, r.certified
    ('blow-up', '0.25000000000000000000', 'exact', True)
    """
    _validate(problem, digits)
    if crosscheck is None:
        crosscheck = certify
    from symgauss.questions.blowup.enclosure import first_root, riccati_data
    cf = closed_form(problem)
    data = riccati_data(problem)
    if cf is not None and cf.regime != "blow-up":
        return BlowupResult(cf.regime, False, None, None, False, f"closed form ({cf.family})",
                            "exact", cf.statement, digits=digits, limit_rank=cf.limit_rank)
    if cf is not None:
        method = f"closed form ({cf.family}): T* = {sp.sstr(cf.t_star)}"
        if data is None or not (certify or crosscheck):
            with mpmath.workprec(int(3.33 * digits) + 60):
                text = digits_text(_closed_form_value(cf, digits + 5), digits)
            return BlowupResult("blow-up", True, text, None, False, method, cf.level,
                                cf.statement, closed_form=cf.t_star, digits=digits)
        root = first_root(data, digits, t_float=float(cf.t_star_arb(64).mid()))
        if root is None:                   # the closed form stands; no enclosure
            return _blowup_from_root(problem, data, None, digits, False, False, method,
                                     cf.statement, cf)
        return _blowup_from_root(problem, data, root, digits, certify, crosscheck, method,
                                 cf.statement, cf)
    if data is not None:
        return _riccati_decision(problem, data, digits, certify, crosscheck)
    from symgauss.questions.blowup.general import general_decision
    return general_decision(problem, digits, certify, crosscheck)


def decimal_inside(lo: Fraction, hi: Fraction, digits: int) -> str | None:
    """T* as decimal text with at most ``digits`` significant digits such that every point of
    [lo, hi] is within half a unit of its last digit (so each printed digit is right), or None.

    >>> decimal_inside(Fraction(1, 4), Fraction(1, 4) + Fraction(1, 10 ** 40), 30)
    '0.250000000000000000000000000000'
    """
    from symgauss.kernel.numbers import decimal_text
    for k in range(digits, 0, -1):
        text, half = decimal_text((lo + hi) / 2, k)
        t = Fraction(text)
        if t - half <= lo and hi <= t + half:
            return text
    return None


def make_certificate(problem, digits: int = 30) -> dict | None:
    """A rigorous blow-up certificate (kind "blowup") when Σ provably blows up, else None.

    Claim: the maximal existence time T* of Σ lies in (t_lower, t_upper]; witness: the
    vector x with xᵀM(t_upper)x < 0 and, when R is not PSD, a partition of [0, t_lower]
    (see :mod:`symgauss.kernel.kinds.blowup`).
    """
    from symgauss.model.certificate import envelope
    from symgauss.questions.blowup.enclosure import certify_root, first_root, riccati_data
    _validate(problem, digits)
    data = riccati_data(problem)
    if data is None or data.rank == 0:
        return None
    res = decide_blowup(problem, digits=min(digits, 30), certify=False, crosscheck=False)
    if res.regime != "blow-up":
        return None
    t_float = float(res.t_star) if res.t_star else None
    root = first_root(data, digits, t_float=t_float)
    if root is None:
        return None
    enc = certify_root(data, root, digits)
    if enc is None:
        return None
    claim = {"t_lower": frac_text(enc.lower), "t_upper": frac_text(enc.upper)}
    t_text = decimal_inside(enc.lower, enc.upper, digits)
    if t_text is not None:
        claim["t_star"] = t_text
    witness = {"method": "riccati-van-loan", "x": [frac_text(v) for v in enc.x],
               "prec": enc.prec}
    if enc.partition is not None:
        witness["partition"] = [frac_text(v) for v in enc.partition]
    return envelope("blowup", problem, claim, witness, "rigorous",
                    notes="M(t) = D⁻¹ − LᵀG(t)L with Σ0 = LDLᵀ (exact, no pivoting), "
                          "G(t) = ∫_0^t e^{Aᵀs}Re^{As}ds, R = Σ_h v_h(B_h + B_hᵀ)")
