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

import math
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import mpmath
import sympy as sp

from symgauss.kernel.errors import ProblemError, UnsupportedError
from symgauss.model.convert import require_numeric
from symgauss.questions.blowup.closed_form import closed_form


@dataclass(frozen=True)
class BlowupResult:
    """The blow-up decision with its evidence.

    ``regime``: "blow-up" | "bounded" (converges to a non-zero limit / stays constant) |
    "decay" (Σ → 0) | "unbounded" (exists for all t, grows without bound) | "global" (exists for
    all t, boundedness not decided) | "undecided". ``blows_up`` is True / False / None.
    ``t_star``: T* to ``digits`` significant digits (text); ``enclosure``: certified
    [T⁻, T⁺] as exact rational text; ``bracket``: a rigorous but wide [T_low, T_up] from
    comparison bounds (general V; either end may be None). ``closed_form``: SymPy expression.
    """
    regime: str
    blows_up: bool | None
    t_star: str | None
    enclosure: tuple | None
    certified: bool
    method: str
    level: str | None
    evidence: str
    closed_form: sp.Expr | None = None
    digits: int = 30
    bracket: tuple | None = None
    agreement: tuple = field(default=())     # of (method, digits agreed)
    limit_rank: int | None = None

    def to_json_dict(self) -> dict:
        out = {"blows_up": self.blows_up, "t_star": self.t_star,
               "enclosure": list(self.enclosure) if self.enclosure else None,
               "certified": self.certified, "method": self.method, "level": self.level,
               "regime": self.regime, "evidence": self.evidence, "digits": self.digits}
        if self.closed_form is not None:
            out["closed_form"] = sp.sstr(self.closed_form)
            out["closed_form_latex"] = sp.latex(self.closed_form)
        if self.bracket is not None:
            out["bracket"] = [None if x is None else x for x in self.bracket]
            out["bracket_level"] = "rigorous"
        if self.agreement:
            out["agreement"] = [{"method": m, "digits": round(float(n), 1)}
                                for m, n in self.agreement]
        if self.limit_rank is not None:
            out["limit_rank"] = self.limit_rank
        return out


# --- helpers ----------------------------------------------------------------------------------
def _validate(problem, digits):
    if not isinstance(digits, int) or isinstance(digits, bool) or not 1 <= digits <= 2000:
        raise ProblemError(f"digits = {digits!r}: ask for an integer between 1 and 2000")
    if not problem.is_time_invariant:
        raise UnsupportedError("blow-up is decided for time-invariant parameters; this problem "
                               "has 'controls' — use `symgauss solve` (it reports blow-up "
                               "within a horizon) or give constant A, V, B")
    require_numeric(problem, "blowup")


def _digits_text(x, digits: int) -> str:
    """x (mpf or SymPy number) to ``digits`` significant digits."""
    if isinstance(x, sp.Basic):
        return _sym_text(x, digits)
    with mpmath.workdps(digits + 10):
        return mpmath.nstr(x, digits, strip_zeros=False, min_fixed=-30, max_fixed=30)


def _sym_text(x, digits):
    with mpmath.workdps(digits + 20):
        v = mpmath.mpf(str(sp.N(x, digits + 15)))
        return mpmath.nstr(v, digits, strip_zeros=False, min_fixed=-30, max_fixed=30)


def _agree(a, b) -> float:
    """Significant digits on which two reals agree (capped at 100)."""
    with mpmath.workdps(120):
        a, b = mpmath.mpf(a), mpmath.mpf(b)
        if a == b:
            return 100.0
        return float(min(100, max(0, -mpmath.log10(abs(a - b) / max(abs(a), abs(b))))))


def _frac_text(f: Fraction) -> str:
    """Exact text of a rational: a finite decimal when the denominator is 2^a 5^b."""
    if f.denominator == 1:
        return str(f.numerator)
    q, k = f.denominator, 0
    while q % 10 == 0 or q % 2 == 0 or q % 5 == 0:
        if q % 10 == 0:
            q //= 10
        elif q % 2 == 0:
            q //= 2
        else:
            q //= 5
        k += 1
    if q != 1 or k > 400:
        return f"{f.numerator}/{f.denominator}"
    n = abs(f.numerator) * 10 ** k // f.denominator
    digits = str(n).rjust(k + 1, "0")
    text = (digits[:-k] + "." + digits[-k:]).rstrip("0").rstrip(".")
    return ("-" if f < 0 else "") + text


# --- exact structure for V = vI ---------------------------------------------------------------
def _lyapunov(A, Q):
    """X with AᵀX + XA = −Q exactly (fmpq), or None if the operator is singular."""
    d = A.nrows()
    n = d * d
    K = flint.fmpq_mat(n, n)
    rhs = flint.fmpq_mat(n, 1)
    for i in range(d):
        for j in range(d):
            row = i * d + j
            rhs[row, 0] = -Q[i, j]
            for k in range(d):
                K[row, k * d + j] += A[k, i]      # (AᵀX)_ij = Σ_k A_ki X_kj
                K[row, i * d + k] += A[k, j]      # (XA)_ij = Σ_k X_ik A_kj
    try:
        x = K.solve(rhs)
    except (ZeroDivisionError, ValueError):
        return None
    return flint.fmpq_mat(d, d, [x[k, 0] for k in range(n)])


def _hurwitz(A) -> bool:
    """A Hurwitz ⇔ AᵀX + XA = −I has a solution X ≻ 0 (Lyapunov), decided exactly."""
    from symgauss.kernel.exact import ldl_positive_definite
    d = A.nrows()
    I = flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    X = _lyapunov(A, I)
    return X is not None and ldl_positive_definite((X + X.transpose()) / 2)[0]


def _riccati_decision(problem, data, digits, certify, crosscheck):
    from symgauss.kernel.exact import ldl_positive_definite
    from symgauss.kernel.kinds.blowup import is_psd, ldl_psd
    from symgauss.questions.blowup.enclosure import first_root
    if data.rank == 0:
        return BlowupResult("decay", False, None, None, False, "Σ0 = 0", "exact",
                            "Σ0 = 0 is an equilibrium: Σ(t) = 0 for all t (rank is invariant)",
                            digits=digits, limit_rank=0)
    hurwitz = _hurwitz(data.A)
    base = ("V_h = v_h I: Σ' = AΣ + ΣAᵀ + ΣRΣ, R = Σ_h v_h(B_h + B_hᵀ); Σ exists exactly while "
            "M(t) = D⁻¹ − LᵀG(t)L ≻ 0 (linear equation for P = Σ⁻¹)")
    if is_psd(-data.R):
        regime = "decay" if hurwitz else "global"
        return BlowupResult(regime, False, None, None, False, "Riccati sign structure (R ⪯ 0)",
                            "exact", base + "; R ⪯ 0 (exact) so G(t) ⪯ 0, M(t) ⪰ D⁻¹ ≻ 0 for "
                            "all t: no blow-up; 0 ⪯ Σ(t) ⪯ e^{At}Σ0e^{Aᵀt}"
                            + (", and A is Hurwitz (exact Lyapunov test): Σ → 0" if hurwitz
                               else ""), digits=digits, limit_rank=0 if hurwitz else None)
    why = ""
    if hurwitz:
        Ginf = _lyapunov(data.A, data.R)
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
    root = first_root(data, digits, horizon)
    if root is None:
        return BlowupResult("undecided", None, None, None, False,
                            "Riccati: float scan of det M(t)", None,
                            base + f"; no loss of definiteness found on [0, {horizon:.3g}] "
                            "(float scan; not a proof)" + why, digits=digits)
    return _blowup_from_root(problem, data, root, digits, certify, crosscheck,
                             method="first root of det(P0 − G(t)) (Van Loan, Newton)",
                             evidence=base + why, exact_value=None)


def _blowup_from_root(problem, data, root, digits, certify, crosscheck, method, evidence,
                      exact_value, level=None):
    from symgauss.questions.blowup.enclosure import certify_root
    with mpmath.workprec(root.prec):
        t_text = _digits_text(exact_value if exact_value is not None else root.t_star, digits)
    agreement = []
    if exact_value is not None:
        with mpmath.workprec(root.prec):
            agreement.append(("Newton on det(P0 − G(t)) vs closed form",
                              _agree(sp.N(exact_value, digits + 15), root.t_star)))
    enclosure, certified, proof = None, False, ""
    if certify:
        enc = certify_root(data, root, digits)
        if enc is not None:
            enclosure = (_frac_text(enc.lower), _frac_text(enc.upper))
            certified = True
            proof = (f"; certified: T* ∈ [T⁻, T⁺] of width {float(enc.upper - enc.lower):.1e} "
                     f"({enc.proof}; xᵀM(T⁺)x < 0) in arb at {enc.prec} bits")
    if crosscheck:
        agreement += _projective_check(problem, data, root)
    lvl = level or ("exact" if exact_value is not None else
                    "rigorous" if certified else "high-precision")
    return BlowupResult("blow-up", True, t_text, enclosure, certified, method, lvl,
                        evidence + proof, closed_form=exact_value, digits=digits,
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
             _agree(t_est, root.t_star)),
            ("residue tr C of Σ ≈ C/(T* − t): predicted from the null vector of M(T*) vs the "
             "projective integration", _agree(trc_est, trC))]


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
                 "1/trΣ extrapolated", _agree(t_est, T))]


# --- general V: comparison bounds ---------------------------------------------------------------
def _exact_lower_eig(S):
    """A rational ℓ ≤ λmin(S) for symmetric rational S (checked exactly)."""
    import numpy as np

    from symgauss.kernel.exact import psd_decision
    from symgauss.model.convert import to_fractions
    F = to_fractions(S)
    lam = float(np.linalg.eigvalsh(np.array(F, dtype=float))[0])
    step = 1e-9 * (1 + abs(lam))
    for _ in range(60):
        ell = Fraction(lam - step).limit_denominator(10 ** 12)
        ell = min(ell, Fraction(lam - step))
        if psd_decision([[F[i][j] - (ell if i == j else 0) for j in range(len(F))]
                         for i in range(len(F))])[0]:
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


def _general_decision(problem, digits, certify, crosscheck):
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
        from symgauss.questions.blowup.enclosure import fmpq_matrix
        hurwitz = _hurwitz(fmpq_matrix(p.A))
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
    bracket = (_frac_text(t_low) if t_low is not None else None,
               _frac_text(t_up) if t_up is not None else None)
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
    agreed = _agree(t1, t2)
    agreement = [("projective system, W = I vs W = diag(1, 2, …)/2 (Taylor, arb midpoints)",
                  agreed)]
    shown = min(digits, int(agreed))
    if shown < MIN_AGREED:
        return None, tuple(agreement), (f"the two projective runs agree to {agreed:.1f} digits "
                                        "only: no value of T* is given")
    if crosscheck:
        agreement += _integration_check(problem, t1)
    with mpmath.workdps(digits + 20):
        text = _digits_text(t1, shown)
    note = ("two projective runs (u = 1/tr(WΣ) → 0 in both) agree to "
            f"{agreed:.1f} digits" + (f"; T* is given to those {shown} digits only"
                                      if shown < digits else ""))
    return text, tuple(agreement), note


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
            return BlowupResult("blow-up", True, _sym_text(cf.t_star, digits), None, False,
                                method, "exact", cf.statement, closed_form=cf.t_star,
                                digits=digits)
        root = first_root(data, digits, t_float=float(sp.N(cf.t_star, 20)))
        return _blowup_from_root(problem, data, root, digits, certify, crosscheck, method,
                                 cf.statement, exact_value=cf.t_star)
    if data is not None:
        return _riccati_decision(problem, data, digits, certify, crosscheck)
    return _general_decision(problem, digits, certify, crosscheck)


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
    with mpmath.workprec(root.prec):
        t_text = _digits_text(root.t_star, digits)
    claim = {"statement": "the covariance Σ(t) exists on [0, t_lower] and ‖Σ(t)‖ → ∞ at the "
                          "maximal existence time T*, with T* in (t_lower, t_upper]",
             "t_lower": _frac_text(enc.lower), "t_upper": _frac_text(enc.upper),
             "t_star": t_text}
    witness = {"method": "riccati-van-loan", "x": [_frac_text(v) for v in enc.x],
               "prec": enc.prec}
    if enc.partition is not None:
        witness["partition"] = [_frac_text(v) for v in enc.partition]
    return envelope("blowup", problem, claim, witness, "rigorous",
                    notes="M(t) = D⁻¹ − LᵀG(t)L with Σ0 = LDLᵀ (exact, no pivoting), "
                          "G(t) = ∫_0^t e^{Aᵀs}Re^{As}ds, R = Σ_h v_h(B_h + B_hᵀ)")
