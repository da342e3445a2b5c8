"""The long-time regime of one time-invariant problem, decided with evidence.

:func:`classify` answers one question — what does Σ(t) do? — with one of

=====================  ==========================================================
``stable-equilibrium``  Σ(t) → Σ* ≻ 0, and Σ* is locally exponentially stable
``blow-up``             ‖Σ(t)‖ → ∞ at a finite time T* (``t_star``)
``bounded``             Σ(t) exists for all t and stays bounded (no finer claim)
``decay``               Σ(t) → 0
``singular-limit``      Σ(t) → Σ* with det Σ* = 0 (a rank-deficient limit)
``growth``              exponential growth for all t, no finite-time blow-up
``constant``            Σ(t) = Σ0 for all t (an equilibrium start)
``undecided``           no method here could decide; never reported as a "no"
=====================  ==========================================================

each with its level (``exact``, ``rigorous``, ``high-precision``, ``float``) and the
argument used. Two cases are decided here exactly, with rational arithmetic:

* d = 1 (any number of heads): σ' = 2aσ + 2cσ², c = Σ_h v_h β_h (notes §4). The
  sign pattern of (a, c) and the comparison of σ0 with the threshold −a/c decide
  everything (the case analysis is :func:`symgauss.questions.blowup.closed_form.mode`); T* =
  ln(1 + a/(cσ0))/(2a), or 1/(2cσ0) when a = 0, as a closed form and as a decimal
  from ball arithmetic at the requested digits.
* diagonal problems (A, every V_h, B_h and Σ0 diagonal): Σ(t) stays diagonal and the
  coordinates are d independent scalar problems; the transversal (off-diagonal)
  linearisation at Σ* is checked exactly before "stable-equilibrium" is claimed.

Every other problem goes to :func:`symgauss.questions.blowup.decide.decide_blowup` (closed forms, the
linear equation for P = Σ⁻¹ with certified enclosures, comparison bounds); when that
finds no blow-up and V_h = v_h I, :func:`symgauss.questions.stability.certify.opposite_sign_regime`
can prove global convergence to a stable Σ* ≻ 0. Its "exists for all time, boundedness
not decided" becomes ``undecided`` here, with the proved part in the evidence.

>>> from symgauss import Problem
>>> r = classify(Problem(cov0=[[1]], V=[[1]], B=[[1]]), digits=10)
>>> r.kind, r.level, r.t_star, r.t_star_exact
('blow-up', 'exact', '0.5000000000', '1/2')
>>> classify(Problem(cov0=[[1]], A=[[1]], V=[[-1]], B=[[1]])).kind
'stable-equilibrium'
>>> classify(Problem(cov0=[[1]], A=[[1]])).kind
'growth'
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path

from symgauss.kernel.errors import ProblemError, SymgaussError, UnsupportedError
from symgauss.kernel.numbers import rational_text
from symgauss.kernel.verdict import LEVELS
from symgauss.model.convert import require_numeric

KINDS = ("stable-equilibrium", "blow-up", "bounded", "decay", "singular-limit", "growth",
         "constant", "undecided")


@dataclass(frozen=True)
class Regime:
    """The regime of one problem, how it is known, and why.

    ``t_star`` is a decimal string with the requested significant digits (blow-up
    only); ``t_star_exact`` a closed form when one is known; ``enclosure`` a proved
    interval (lo, hi] for T*; ``equilibrium`` the limit Σ* as exact strings when it is
    known exactly, or the centre of its proved enclosure (``notes`` gives the radius);
    ``rate`` a proved exponential rate of convergence (for growth: a proved lower bound of
    the exponential growth rate of tr Σ); ``certificate`` the path of a
    certificate file when one was written; ``tried`` what was attempted (always filled
    when undecided); ``certificate_data`` the certificate itself when a method here built
    and verified one.
    """
    kind: str
    level: str | None
    evidence: str
    method: str
    t_star: str | None = None
    t_star_exact: str | None = None
    equilibrium: tuple | None = None
    certificate: str | None = None
    notes: tuple = field(default=())
    enclosure: tuple | None = None
    rate: str | None = None
    tried: tuple = field(default=())
    certificate_data: dict | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"Regime.kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.level is not None and self.level not in LEVELS:
            raise ValueError(f"Regime.level {self.level!r} is not one of {', '.join(LEVELS)}")

    def to_json_dict(self) -> dict:
        return {"kind": self.kind, "level": self.level, "t_star": self.t_star,
                "t_star_exact": self.t_star_exact,
                "enclosure": None if self.enclosure is None else list(self.enclosure),
                "equilibrium": None if self.equilibrium is None else [list(r) for r in
                                                                      self.equilibrium],
                "rate": self.rate, "certificate": self.certificate,
                "evidence": self.evidence, "tried": list(self.tried), "method": self.method,
                "notes": list(self.notes)}


def classify(problem, *, digits: int = 30, certify: bool = True,
             certificate_dir=None, certificate_file=None) -> Regime:
    """Decide the regime of a time-invariant numeric problem.

    Parameters
    ----------
    problem : Problem with constant parameters and rational entries.
    digits : significant digits of ``t_star`` (1..2000).
    certify : for problems that are neither scalar nor diagonal, ask
        :func:`symgauss.questions.blowup.decide.decide_blowup` for a certified enclosure of T* and an
        integration cross-check (level ``rigorous``; about a second per problem) —
        ``False`` gives T* at high precision without proof, far faster.
    certificate_dir : if given, a certificate file for a blow-up or a stable
        equilibrium is written there (by the certificate writers of
        :mod:`symgauss.questions.blowup.decide` / :mod:`symgauss.questions.stability.certify`) and its path reported.
    certificate_file : the same, written to this path.

    >>> from symgauss import Problem
    >>> r = classify(Problem(cov0=[[1, 0], [0, 1]], V=[[1, 0], [0, 1]], B=[[1, 0], [0, 2]]),
    ...              digits=5)
    >>> r.kind, r.t_star, r.t_star_exact          # the B = 2 coordinate blows up first
    ('blow-up', '0.25000', '1/4')
    """
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 2000:
        raise ProblemError(f"digits = {digits!r}: expected an integer in 1..2000")
    if not problem.is_time_invariant:
        raise UnsupportedError("classify needs constant parameters; this problem has "
                               "time-varying 'controls' — classify each piece's parameters, "
                               "or use symgauss solve for the trajectory")
    require_numeric(problem, "classify")
    if problem.d == 1:
        regime = _scalar_regime(*_scalar_data(problem, 0), digits)
    elif _is_diagonal(problem):
        regime = _diagonal_regime(problem, digits)
    else:
        regime = _general_regime(problem, digits, certify)
    target = certificate_file or certificate_dir
    if target is not None and regime.level in ("high-precision", "float"):
        regime = _note(regime, f"no certificate written: this answer is at level "
                       f"{regime.level}, not proved")
    elif target is not None and (regime.certificate_data is not None or regime.kind in
                                 ("blow-up", "stable-equilibrium", "decay", "singular-limit")):
        regime = _with_certificate(problem, regime, certificate_dir, certificate_file)
    return regime


# --- the scalar case -------------------------------------------------------------------
def _frac(x) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def _scalar_data(problem, i: int):
    """(a, c, σ0) of coordinate i of a diagonal problem: σ' = 2aσ + 2cσ²."""
    params = problem.params
    a = _frac(params.A[i, i])
    c = sum((_frac(h.V[i, i]) * _frac(h.B[i, i]) for h in params.heads), Fraction(0))
    return a, c, _frac(problem.cov0[i, i])


def _tstar_decimal(a: Fraction, c: Fraction, s0: Fraction, digits: int):
    """T* = ln(1 + a/(cσ0))/(2a) (1/(2cσ0) if a = 0) to ``digits`` digits, and its arb ball."""
    import flint
    prec = int(digits * 3.33) + 40
    while True:
        with flint.ctx.workprec(prec):
            if a == 0:
                t = 1 / (2 * c * s0)
                ball = flint.arb(flint.fmpq(t.numerator, t.denominator))
            else:
                x = 1 + a / (c * s0)
                ball = flint.arb(flint.fmpq(x.numerator, x.denominator)).log() / \
                    flint.arb(flint.fmpq(2 * a.numerator, a.denominator))
            if a == 0 or ball.rel_accuracy_bits() >= digits * 3.33 + 8:
                return ball.str(digits, radius=False), ball
        prec *= 2


_FATES = {"blow-up": "blow-up", "decay": "decay", "limit": "stable-equilibrium",
          "constant": "constant", "zero": "constant", "grows": "growth"}


def _scalar_regime(a: Fraction, c: Fraction, s0: Fraction, digits: int, where: str = "") -> Regime:
    """σ' = 2aσ + 2cσ², σ(0) = σ0 ≥ 0: the exact case analysis of
    :func:`symgauss.questions.blowup.closed_form.mode`, T* evaluated in ball arithmetic."""
    import sympy as sp

    from symgauss.questions.blowup.closed_form import mode
    q = lambda f: sp.Rational(f.numerator, f.denominator)  # noqa: E731
    m = mode(q(a), q(c * s0), q(s0))
    kind = _FATES[m.fate]
    sig, rt = f"σ{where}", rational_text
    head = f"a = {rt(a)}, vβ = {rt(c)}, {sig}0 = {rt(s0)}: "
    method = "scalar closed form (Bernoulli equation)"
    if m.fate == "blow-up":
        exact = sp.sstr(m.t_star)
        text, _ = _tstar_decimal(a, c, s0, digits)
        formula = "1/(2vβσ0)" if a == 0 else "ln(1 + a/(vβσ0))/(2a)"
        return Regime("blow-up", "exact", head + f"T* = {formula} = {exact}", method,
                      t_star=text, t_star_exact=exact)
    equilibrium = None if m.limit is None or kind == "decay" else ((sp.sstr(m.limit),),)
    why = {"zero": f"{sig}0 = 0 is an equilibrium, {sig}(t) = 0",
           "grows": f"vβ = 0 < a, {sig}(t) = {sig}0·e^(2at) → ∞ without blow-up",
           "decay": f"{sig}(t) → 0",
           "limit": f"vβ < 0 < a, {sig}(t) → {sig}* = −a/(vβ) = {sp.sstr(m.limit)}, "
                    f"linearisation 2a + 4vβ{sig}* = {rt(-2 * a)} < 0",
           "constant": (f"a = vβ = 0, {sig}' = 0" if c == 0 else
                        f"{sig}0 = −a/(vβ) is the (unstable) threshold equilibrium")}[m.fate]
    return Regime(kind, "exact", head + why, method, equilibrium=equilibrium)


# --- diagonal problems ------------------------------------------------------------------
def _is_diagonal(problem) -> bool:
    params = problem.params
    mats = [params.A, problem.cov0] + [M for h in params.heads for M in (h.V, h.B)]
    d = problem.d
    return all(M[i, j] == 0 for M in mats for i in range(d) for j in range(d) if i != j)


def _diagonal_regime(problem, digits: int) -> Regime:
    d = problem.d
    data = [_scalar_data(problem, i) for i in range(d)]
    parts = [_scalar_regime(*data[i], digits, where=f"_{i}") for i in range(d)]
    method = "decoupled diagonal problem: d scalar closed forms"
    evidence = "Σ0, A, V, B diagonal ⇒ Σ(t) diagonal; " + "; ".join(
        f"[{i}] {p.kind}: {p.evidence}" for i, p in enumerate(parts))
    kinds = [p.kind for p in parts]
    if "blow-up" in kinds:
        first = min((i for i in range(d) if kinds[i] == "blow-up"),
                    key=lambda i: _tstar_decimal(*data[i], digits)[1].mid())
        return Regime("blow-up", "exact", evidence, method, t_star=parts[first].t_star,
                      t_star_exact=parts[first].t_star_exact,
                      notes=(f"the first coordinate to blow up is {first}",))
    if "growth" in kinds:
        return Regime("growth", "exact", evidence, method)
    if all(k == "decay" for k in kinds):
        return Regime("decay", "exact", evidence, method)
    if all(k == "constant" for k in kinds):
        return Regime("constant", "exact", evidence, method, equilibrium=_diag(parts))
    if all(k == "stable-equilibrium" for k in kinds):
        star = [Fraction(p.equilibrium[0][0]) for p in parts]
        bad = _transversal_unstable(problem, star)
        if bad is None:
            return Regime("stable-equilibrium", "exact",
                          evidence + "; off-diagonal linearisation coefficients all < 0 (exact)",
                          method, equilibrium=_diag(parts))
        i, j, coeff = bad
        return Regime("bounded", "exact",
                      evidence + f"; Σ(t) → Σ* inside the diagonal subspace, but Σ* is unstable "
                      f"off it (coefficient of Δ[{i}][{j}] = {rational_text(coeff)} ≥ 0)", method,
                      equilibrium=_diag(parts))
    # a mixture of decay / stable / constant coordinates: a bounded, possibly rank-deficient limit
    return Regime("bounded", "exact", evidence, method)


def _diag(parts) -> tuple:
    d = len(parts)
    vals = [p.equilibrium[0][0] if p.equilibrium else None for p in parts]
    return tuple(tuple(vals[i] if i == j else "0" for j in range(d)) for i in range(d))


def _transversal_unstable(problem, star):
    """(i, j, coefficient) of the first off-diagonal direction that is not decaying, or None.

    At a diagonal Σ* = diag(σ) with diagonal A, V_h, B_h, the linearisation
    Δ ↦ AΔ + ΔA + Σ_h (V_hΔB_hΣ* + V_hΣ*B_hΔ + ΔB_hΣ*V_h + Σ*B_hΔV_h) multiplies the
    entry Δ[i][j] by a_i + a_j + Σ_h (v_i + v_j)(β_i σ_i + β_j σ_j) (v, β the diagonals
    of V_h, B_h); the diagonal entries are the scalar modes, checked already.
    """
    params = problem.params
    d = problem.d
    a = [_frac(params.A[i, i]) for i in range(d)]
    heads = [([_frac(h.V[i, i]) for i in range(d)], [_frac(h.B[i, i]) for i in range(d)])
             for h in params.heads]
    for i in range(d):
        for j in range(i + 1, d):
            coeff = a[i] + a[j] + sum((v[i] + v[j]) * (b[i] * star[i] + b[j] * star[j])
                                      for v, b in heads)
            if coeff >= 0:
                return i, j, coeff
    return None


# --- everything else: the blow-up and stability modules -----------------------------------
_BLOWUP_KINDS = {"blow-up": "blow-up", "bounded": "bounded", "decay": "decay",
                 "unbounded": "growth"}


def _general_regime(problem, digits: int, certify: bool) -> Regime:
    """:func:`symgauss.questions.blowup.decide.decide_blowup`, refined by the opposite-sign regime statement."""
    import sympy as sp

    from symgauss.questions.blowup.decide import decide_blowup
    from symgauss.questions.regime.bounded import bounded_regime, decay_regime
    from symgauss.questions.regime.limit_riccati import riccati_regime
    from symgauss.questions.regime.linear import linear_regime
    if (linear := linear_regime(problem, Regime)) is not None:
        return linear
    from symgauss.questions.regime.reference import reference_regime
    proposal = reference_regime(problem)
    tried = [f"float integration (LSODA on svec Σ): {proposal['kind']}{proposal.get('note', '')}"]
    from symgauss.kernel.kinds.limit import MAX_D
    validated = problem.d <= MAX_D
    if not validated:
        tried.append(f"validated integration: not tried, d = {problem.d} is over the limit "
                     f"d ≤ {MAX_D} of the kernel kinds 'limit' and 'blowup-trajectory'")
    if proposal["kind"] in ("decay", "stable-equilibrium", "singular-limit") and \
            _opposite_sign(problem) is None:    # the exact route (any d ≤ 12), then the validated
        limit = riccati_regime(problem, tried, Regime) or (
            _limit_regime(problem, proposal, tried) if validated else None) or (
            decay_regime(problem, tried, Regime) if proposal["kind"] == "decay" else None)
        if limit is not None:
            return limit
    if validated and (proposal["kind"] == "growth" or proposal.get("growth_seen")):
        growth = _growth_regime(problem, tried)
        if growth is not None:
            return growth
    if validated and proposal["kind"] == "blow-up" and problem.params.quadratic_R() is None:
        bound = _blowup_bound(problem, proposal, tried)
        if bound is not None:
            return bound
    # general V: the certified path of decide_blowup is the Riccati one (V = vI); without it
    # certify=True adds an integration cross-check but no proof, so skip it for speed
    general = problem.params.quadratic_R() is None and proposal["kind"] == "blow-up"
    res = decide_blowup(problem, digits, certify=certify and not general)
    method = f"symgauss.questions.blowup.decide: {res.method}"
    if res.regime == "blow-up" and res.level == "high-precision" and \
            proposal["kind"] in ("stable-equilibrium", "decay", "singular-limit"):
        # two unproved answers that contradict each other: say neither (fail closed)
        tried.append(f"symgauss.questions.blowup.decide: blow-up at T* ≈ {res.t_star} "
                     f"(high-precision, not proved: {res.evidence[:160]})")
        return Regime("undecided", None, f"the float integration converges "
                      f"({proposal['kind']}) but {method} finds a blow-up at T* ≈ "
                      f"{res.t_star} at high precision; neither is proved and they disagree",
                      method, tried=tuple(tried))
    if res.regime == "blow-up":
        exact = None if res.closed_form is None else sp.sstr(res.closed_form)
        notes = () if res.enclosure is None else (
            f"certified enclosure [{res.enclosure[0]}, {res.enclosure[1]}]",)
        return Regime("blow-up", res.level, res.evidence, method, t_star=res.t_star,
                      t_star_exact=exact, notes=notes, enclosure=res.enclosure,
                      tried=tuple(tried))
    if res.regime in ("bounded", "global") and (stable := _opposite_sign(problem)) is not None:
        return stable
    tried.append(f"symgauss.questions.blowup.decide: {res.regime} ({res.level})")
    if proposal["kind"] == "unclear" and (bounded := bounded_regime(problem, tried, Regime)):
        return bounded
    if res.regime == "undecided" and proposal["kind"] == "blow-up":
        floats = _float_blowup(problem, proposal, res, tried)
        if floats is not None:
            return floats
    if res.regime in ("global", "undecided", "bounded") and proposal["kind"] in _FLOAT_FATES:
        return _float_answer(proposal, res, method, tried)
    if res.regime == "global":
        return Regime("undecided", None, res.evidence + f"; no finite-time blow-up (proved, "
                      f"{res.level}), but boundedness and the limit are undecided", method,
                      tried=tuple(tried))
    if res.regime in _BLOWUP_KINDS:
        return Regime(_BLOWUP_KINDS[res.regime], res.level, res.evidence, method,
                      tried=tuple(tried))
    return Regime("undecided", None, res.evidence or "symgauss.questions.blowup.decide could not "
                  "decide", method, tried=tuple(tried))


_FLOAT_FATES = {"growth": "‖Σ‖ passes 1e6 at a moderate relative speed, steady since 1e4",
                "stable-equilibrium": "Σ(t) settles at a positive-definite matrix",
                "singular-limit": "Σ(t) settles at a singular matrix", "decay": "Σ(t) → 0"}


def _float_answer(proposal, res, method, tried) -> Regime:
    """The float integration's fate, labelled float: no method here proved it (``tried`` says
    what was attempted; decide_blowup's proofs stay in the evidence)."""
    from symgauss.questions.regime.reference import T_MAX
    kind = proposal["kind"]
    proved = f"{res.evidence}; " if res.regime in ("global", "bounded") else ""
    lim = proposal.get("limit") if kind != "decay" else None
    eq = None if lim is None else tuple(tuple(f"{x:.10g}" for x in r) for r in lim)
    return Regime(kind, "float", f"{proved}float integration (LSODA on svec Σ, t ≤ {T_MAX:g}): "
                  f"{_FLOAT_FATES[kind]} — evidence, not proved", method, equilibrium=eq,
                  tried=tuple(tried))


#: float T*s agree to FLOAT_AGREE; projective Taylor steps (seed-171: 534; 761 T* ≈ 19.3: 3 687)
FLOAT_AGREE, PROJECTIVE_STEPS = 1e-5, 8000


def _float_blowup(problem, proposal, res, tried):
    """blow-up at level float when two float integrations agree on T* — LSODA on svec Σ (the
    proposal) and the projective (desingularised) system in float64, which follows u = 1/tr Σ
    → 0 through the singularity — to FLOAT_AGREE relative; T* is shown to one digit fewer than
    they agree on (at most 6). None when they do not agree (e.g. a trajectory that lingers near
    a saddle at infinity fools LSODA's speed test, or the projective run never reaches u → 0)."""
    import math

    import mpmath

    from symgauss.questions.blowup.projective import projective_float
    from symgauss.questions.blowup.result import digits_text
    t_ref = proposal.get("t_star")
    t_proj, _, steps = projective_float(problem, max_steps=PROJECTIVE_STEPS)
    if t_ref is None or t_proj is None or not t_proj > 0:
        tried.append("projective system in float64: no u → 0 (no second float value of T*)")
        return None
    rel = abs(t_proj - t_ref) / t_proj
    if not rel <= FLOAT_AGREE:
        tried.append(f"projective system in float64: T* ≈ {t_proj:.8g} against LSODA's "
                     f"{t_ref:.8g} (relative distance {rel:.1e}): the float times disagree")
        return None
    shown = min(6, int(-math.log10(max(rel, 1e-16))) - 1)
    t_star = digits_text(mpmath.mpf(t_proj), shown)
    proved = f"{res.evidence}; " if res.evidence else ""
    return Regime("blow-up", "float", f"{proved}two float integrations agree on a blow-up: "
                  f"LSODA on svec Σ (‖Σ‖ passes 1e6 and 1e12 at relative speeds ~ 1/(T* − t)) "
                  f"and the projective system in float64 (u = 1/tr Σ → 0 after {steps} Taylor "
                  f"steps), T* ≈ {t_star} ({shown} digits, one fewer than they share: relative "
                  f"distance {rel:.1e}) — evidence, not proved",
                  "two float integrations: LSODA on svec Σ and the projective system "
                  "(symgauss.questions.blowup.projective.projective_float)", t_star=t_star,
                  tried=tuple(tried))


def _blowup_bound(problem, proposal, tried):
    """blow-up with a kernel-verified ``blowup-trajectory`` certificate (validated steps, then
    comparison equations: :func:`symgauss.questions.regime.blowup_bound.find_blowup`), or None."""
    from symgauss.questions.regime.blowup_bound import find_blowup
    from symgauss.questions.regime.infinity import METHODS, find_blowup_at_infinity
    res = find_blowup(problem, proposal["t_star"])
    method = ("validated integration, then comparison equations for tr Σ and ‖Σ‖_F "
              "(symgauss.questions.regime.blowup_bound)")
    if res.certificate is None:
        tried.append(f"validated integration + comparison bounds for T*: {res.why}")
        res = find_blowup_at_infinity(problem, proposal["t_star"])
        method = METHODS[res.certificate["kind"] if res.certificate else "blowup-infinity"]
    if res.certificate is None:
        tried.append(f"validated integration + a region at infinity: {res.why}")
        return None
    from symgauss.kernel.read import rational, short_text
    enclosure = tuple(short_text(rational(x, "t")) for x in res.enclosure)
    return Regime("blow-up", "rigorous", res.certificate["claim"]["statement"] +
                  " (kernel: VERIFIED)", method, t_star=res.t_star,
                  enclosure=enclosure, certificate_data=res.certificate,
                  notes=(f"certified enclosure ({enclosure[0]}, {enclosure[1]}]",))


def _growth_regime(problem, tried):
    """growth with a kernel-verified ``growth-axis`` or ``growth-axis-row`` certificate
    (:func:`symgauss.questions.regime.growth_axis.find_growth_axis`: an axis the attention never
    sees) or ``growth`` certificate (:func:`symgauss.questions.regime.growth.find_growth`), or
    None (``tried`` says why)."""
    from symgauss.questions.regime.growth import find_growth
    from symgauss.questions.regime.growth_axis import find_growth_axis, has_growth_axis
    if has_growth_axis(problem):
        res = find_growth_axis(problem)
        if res.certificate is not None:
            claim = res.certificate["claim"]
            row = ("; row k by a log-norm bound (it grows more slowly than Σ_kk)"
                   if res.certificate["kind"] == "growth-axis-row" else "")
            return Regime("growth", "rigorous", claim["statement"] + " (kernel: VERIFIED)",
                          "validated integration of the other coordinates into a contraction "
                          f"region{row}, Σ_kk by variation of constants (symgauss.questions."
                          "regime.growth_axis)", rate=claim["rate"],
                          certificate_data=res.certificate)
        tried.append(f"growth along an axis the attention never sees: {res.why}")
    res = find_growth(problem)
    if res.certificate is None:
        tried.append(f"validated integration + an invariant region at infinity: {res.why}")
        return None
    claim = res.certificate["claim"]
    return Regime("growth", res.certificate["level"], claim["statement"] + " (kernel: VERIFIED)",
                  res.certificate.get("notes", "symgauss.questions.regime.growth")[:300],
                  rate=claim.get("rate_lower", claim.get("rate")), certificate_data=res.certificate)


def _limit_regime(problem, proposal, tried):
    """stable-equilibrium / decay / singular-limit with a kernel-verified ``limit`` certificate
    (:func:`symgauss.questions.regime.basin.find_limit`), or None (``tried`` says why)."""
    from symgauss.questions.regime.basin import find_limit
    res = find_limit(problem, proposal)
    if res.certificate is None:
        tried.append(f"validated integration into a contraction region: {res.why}")
        return None
    claim = res.certificate["claim"]
    eq = None if res.regime == "decay" else tuple(tuple(r) for r in res.center)
    notes = () if res.regime == "decay" else (
        f"every entry of Σ* is within {res.radius} of the equilibrium shown",)
    return Regime(res.regime, "rigorous", claim["statement"] + " (kernel: VERIFIED)",
                  res.method, equilibrium=eq, rate=res.rate, notes=notes,
                  certificate_data=res.certificate)


def _opposite_sign(problem):
    """stable-equilibrium when V_h = v_h I, R ≺ 0, spec(A) ⊂ {Re > 0} and Σ0 ≻ 0 (global
    convergence, notes §4), from :func:`symgauss.questions.stability.certify.opposite_sign_regime`; else None."""
    from symgauss.kernel.exact import rank
    if problem.params.quadratic_R() is None or rank(_fractions(problem.cov0)) < problem.d:
        return None
    from symgauss.questions.stability.certify import opposite_sign_regime
    res = opposite_sign_regime(problem)
    if res.status != "verified" or "global_rate" not in res.certificate["claim"]:
        return None
    claim = res.certificate["claim"]
    return Regime("stable-equilibrium", res.level,
                  f"{res.reason}; global convergence from every Σ0 ≻ 0 (rate ≥ "
                  f"{claim['global_rate']})", "symgauss.questions.stability.certify.opposite_sign_regime",
                  equilibrium=tuple(tuple(r) for r in claim["cov"]))


def _fractions(M) -> list:
    return [[_frac(M[i, j]) for j in range(M.shape[1])] for i in range(M.shape[0])]


def _certificate(problem, kind: str):
    """(certificate dict, file suffix) from the blow-up / stability writers, or (None, why)."""
    if kind == "blow-up":
        from symgauss.questions.blowup.decide import make_certificate
        cert = make_certificate(problem)
        return (cert, "blowup") if cert else (None, "make_certificate gave none (not V = vI)")
    if kind in ("decay", "singular-limit"):
        return _limit_certificate(problem)
    from symgauss.questions.stability.certify import certify, opposite_sign_regime
    res = opposite_sign_regime(problem) if problem.params.quadratic_R() is not None else None
    if res is None or res.status != "verified":
        res = certify(problem)
    if res.status == "verified":
        return res.certificate, "stable"
    cert, found = _limit_certificate(problem)      # found: the kind, or why there is none
    if cert is not None:
        return cert, found
    return None, (f"symgauss.questions.stability.certify.certify: {res.status} ({res.reason}); "
                  f"validated integration: {found}")


def _limit_certificate(problem):
    """(a ``limit`` or ``limit-closed-form`` certificate, its kind) for a convergent answer found
    another way, or (None, why)."""
    from symgauss.kernel.kinds.limit import MAX_D
    from symgauss.questions.regime.basin import find_limit
    from symgauss.questions.regime.reference import reference_regime
    if problem.d > MAX_D:
        return None, f"d = {problem.d} is over the limit d ≤ {MAX_D} of kind 'limit'"
    res = find_limit(problem, reference_regime(problem))
    return ((res.certificate, res.certificate["kind"]) if res.certificate is not None
            else (None, res.why))


def _with_certificate(problem, regime: Regime, certificate_dir, certificate_file) -> Regime:
    from symgauss.model.certificate import write_certificate
    try:
        cert, suffix = ((regime.certificate_data, regime.certificate_data["kind"])
                        if regime.certificate_data is not None
                        else _certificate(problem, regime.kind))
    except SymgaussError as exc:  # a writer refusing is not a failure of the regime
        return _note(regime, f"no certificate written: {exc}")
    if cert is None:
        return _note(regime, f"no certificate written: {suffix}")
    if regime.certificate_data is None and suffix == "blowup":     # written here: check it
        from symgauss.kernel.checker import check_certificate
        if (verdict := check_certificate(cert)).status != "verified":
            return _note(replace(regime, level="high-precision", enclosure=None), "no certificate "
                         f"written: the kernel did not verify it ({verdict.reason[:200]})")
    stem = problem.hash().split(":")[1][:16]
    path = write_certificate(cert, Path(certificate_file) if certificate_file else
                             Path(certificate_dir) / f"{stem}-{suffix}.json")
    return replace(regime, certificate=str(path))


def _note(regime: Regime, note: str) -> Regime:
    return replace(regime, notes=regime.notes + (note,))
