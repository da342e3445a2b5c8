"""Exact equilibria for d = 2 with general heads (V_h, B_h): polynomial-system solving.

Unknowns s11, s12, s22 of Σ = [[s11, s12], [s12, s22]]; the three equations are the svec entries
of eq. 1.1's right-hand side (built by :func:`symgauss.model.moments.cov_rhs`, never retyped). They are
quadratic, so a zero-dimensional system has at most 2³ = 8 complex solutions (Bézout), Σ = 0
among them. The pipeline:

1. a lex Gröbner basis (SymPy) of the equations together with w − ℓ(Σ) for a linear form ℓ
   (first ℓ = s22 itself, then s22 + c·s12 + c²·s11 for a few c) — variables s11 > s12 > s22 > w.
   Not zero-dimensional ⇒ a continuum of complex solutions; then the non-singular ones are
   solved for (Rabinowitsch: add u·det Σ − 1, so every Σ ≻ 0 is still found) and, if that is
   not zero-dimensional either, status ``"not-isolated"`` (no guessing; Newton decides).
   If no form puts the basis in *shape position* {s11 − f(w), s12 − g(w), s22 − h(w), p(w)}
   (a multiple solution), the radical is taken (Seidenberg: add the square-free parts of the
   univariate elimination polynomials) and the forms tried again; otherwise ``"not-shape"``.
2. p is factored over ℚ; each irreducible factor q has its real roots α isolated exactly
   (rational isolating intervals, ``Poly.intervals``); every entry of Σ is f(α) mod q ∈ ℚ(α).
3. Signs in ℚ(α) are decided exactly: e(α) = 0 ⇔ q | e (polynomial remainder, q irreducible);
   otherwise e(α) ≠ 0 and its sign is read off a ball-arithmetic (python-flint arb) evaluation
   of e on a rational isolating interval of α refined until the ball excludes 0 — this
   terminates and is a proof. Σ ⪰ 0 ⇔ s11 ≥ 0, s22 ≥ 0, det ≥ 0 (2×2); rank from the same signs.
4. Each non-rational entry gets its own minimal polynomial (square-free part of the resultant
   res_w(q(w), X − e(w)), which is a power of it) and an isolating interval of that polynomial
   containing the entry (matched by ball arithmetic against all its isolated real roots).
5. Stability: rational Σ* ≻ 0 → :func:`symgauss.questions.stability.certify.stability_of_exact` (exact
   certificates). Algebraic Σ* ≻ 0 → the 3×3 linearisation evaluated in arb, its characteristic
   polynomial's Hurwitz determinants decided by ball arithmetic at increasing precision
   (stable: all > 0; unstable: some Hurwitz determinant of charpoly(L − εI) < 0 for a rational
   ε > 0), level ``"rigorous"``; a checkable certificate is added through the Newton–Kantorovich
   enclosure route of :mod:`symgauss.questions.equilibria.search` when it succeeds.

>>> from symgauss import Problem
>>> p = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 2]], V=[[-1, 1], [0, -1]],
...             B=[[1, 0], [0, 1]])
>>> res = solve_d2(p)
>>> res.status, sorted(s.rank for s in res.solutions if s.psd)
('solved', [0, 1, 1, 2])
>>> s = res.solutions[0]          # Σ* ≻ 0: entries in ℚ(α), α³ − 3α² − 4α − 12 = 0
>>> s.is_rational, s.field.minpoly, s.entries[1].minpoly, s.entries[1].decimal[:8]
(False, (1, -3, -4, -12), (4, 12, 5, -12), '0.743669')
>>> [s.cov_text() for s in res.solutions if s.rank == 1]
[(('1', '0'), ('0', '0')), (('8/5', '4/5'), ('4/5', '2/5'))]
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
import sympy as sp

from symgauss.kernel.errors import ProblemError

#: coefficients of the input (numerators and denominators) larger than this many bits are not
#: attempted exactly (the Gröbner basis coefficients grow fast); the Newton route takes over.
MAX_INPUT_BITS = 64
#: precisions (bits) tried for sign decisions that are not exact zeros
PRECISIONS = (64, 128, 256, 512, 1024, 2048, 4096)
_SEPARATING = (0, 1, -2, 3, 5, -7)


@dataclass(frozen=True)
class AlgebraicNumber:
    """A real algebraic number: the root of ``minpoly`` (integer coefficients, highest degree
    first, irreducible over ℚ) inside the rational isolating interval ``interval``."""
    minpoly: tuple       # ints, highest degree first
    interval: tuple      # (Fraction, Fraction); the only real root of minpoly in [lo, hi]
    decimal: str

    def to_json_dict(self) -> dict:
        x = sp.Symbol("x")
        return {"minpoly": str(sp.Poly(list(self.minpoly), x).as_expr()),
                "interval": [_qtext(self.interval[0]), _qtext(self.interval[1])],
                "value": self.decimal}


@dataclass(frozen=True)
class RealSolution:
    """One real solution Σ of the equilibrium equations.

    ``entries``: (s11, s12, s22), each a ``Fraction`` or an :class:`AlgebraicNumber`.
    ``field``: None (all rational) or the generator α of ℚ(α) (an :class:`AlgebraicNumber`),
    with ``field_coeffs`` the entries as polynomials in α (rational coefficients, highest first).
    """
    entries: tuple
    psd: bool
    rank: int
    field: AlgebraicNumber | None = None
    field_coeffs: tuple | None = None

    @property
    def is_rational(self) -> bool:
        return self.field is None

    def cov_exact(self) -> flint.fmpq_mat | None:
        if not self.is_rational:
            return None
        a, b, c = (flint.fmpq(x.numerator, x.denominator) for x in self.entries)
        return flint.fmpq_mat(2, 2, [a, b, b, c])

    def cov_text(self) -> tuple:
        a, b, c = (_qtext(x) if isinstance(x, Fraction) else x.decimal for x in self.entries)
        return ((a, b), (b, c))

    def algebraic_json(self) -> dict | None:
        """The algebraic description (None when every entry is rational)."""
        if self.is_rational:
            return None
        names = ("s11", "s12", "s22")
        x = sp.Symbol("alpha")
        return {
            "field": {"generator": "alpha", **self.field.to_json_dict()},
            "entries": {n: (_qtext(e) if isinstance(e, Fraction) else e.to_json_dict())
                        for n, e in zip(names, self.entries)},
            "in_field": {n: str(sp.Poly([sp.Rational(c.numerator, c.denominator) for c in cs],
                                        x).as_expr())
                         for n, cs in zip(names, self.field_coeffs)},
        }


@dataclass(frozen=True)
class ExactSolveResult:
    """``status``: ``"solved"`` (every real solution listed, exactly), ``"not-isolated"`` (a
    continuum of equilibria), ``"not-shape"`` or ``"too-large"`` (not attempted / not handled:
    use the Newton route); ``reason`` says which. With ``nonsingular_only`` the listed solutions
    are every real one with det Σ ≠ 0 (the singular ones form a continuum in ℂ³)."""
    status: str
    reason: str
    solutions: tuple = ()
    univariate_degree: int | None = None
    nonsingular_only: bool = False   # the singular solutions (det Σ = 0) form a continuum


def _qtext(x: Fraction) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _fr(r) -> Fraction:
    r = sp.Rational(r)
    return Fraction(int(r.p), int(r.q))


# --- ball arithmetic in ℚ(α) --------------------------------------------------------------------
class _Root:
    """A real root α of the irreducible q ∈ ℚ[w], with an exact rational isolating interval that
    is refined on demand (``Poly.refine_root`` keeps it isolating)."""

    def __init__(self, q: sp.Poly, interval):
        self.q = q
        self.lo, self.hi = (sp.Rational(v) for v in interval)

    def ball(self, prec: int) -> flint.arb:
        eps = sp.Rational(1, 2 ** prec)
        if self.hi - self.lo > eps:
            self.lo, self.hi = self.q.refine_root(self.lo, self.hi, eps=eps)
        mid, rad = (self.lo + self.hi) / 2, (self.hi - self.lo) / 2
        return flint.arb(flint.fmpq(int(mid.p), int(mid.q)), flint.fmpq(int(rad.p), int(rad.q)))

    def interval(self) -> tuple:
        return _fr(self.lo), _fr(self.hi)


def _horner(coeffs, a: flint.arb) -> flint.arb:
    out = flint.arb(0)
    for c in coeffs:
        out = out * a + flint.arb(flint.fmpq(c.numerator, c.denominator))
    return out


def _coeffs(e: sp.Poly) -> list:
    return [_fr(c) for c in e.all_coeffs()]


def _sign(e: sp.Poly, root: _Root) -> int:
    """The sign of e(α), decided: 0 iff q | e; otherwise ball arithmetic until the ball excludes
    0 (guaranteed to terminate since e(α) ≠ 0; bounded by PRECISIONS, then an error)."""
    r = e.rem(root.q)
    if r.is_zero:
        return 0
    cs = _coeffs(r)
    for prec in PRECISIONS:
        with flint.ctx.workprec(prec + 32):
            v = _horner(cs, root.ball(prec))
            if v > 0:
                return 1
            if v < 0:
                return -1
    raise ArithmeticError("sign of a non-zero algebraic number not separated at 4096 bits")


def _minimal_polynomial(e: sp.Poly, root: _Root, digits: int) -> AlgebraicNumber:
    """e(α) as an algebraic number: minimal polynomial and isolating interval."""
    w, X = e.gen, sp.Dummy("X")
    res = sp.resultant(root.q.as_expr(), X - e.as_expr(), w)
    m = sp.Poly(sp.sqf_part(res), X)
    m = sp.Poly(sp.Poly(m.primitive()[1], X), X)
    if m.LC() < 0:
        m = -m
    cs = _coeffs(e.rem(root.q))
    for prec in PRECISIONS:
        with flint.ctx.workprec(prec + 32):
            lo, hi = _arb_bounds(_horner(cs, root.ball(prec)))
        eps = sp.Rational(1, 2 ** (prec // 2))
        hits = [(a, b) for (a, b), _ in m.intervals(eps=eps)
                if Fraction(a) <= hi and lo <= Fraction(b)]
        if len(hits) == 1:
            a, b = hits[0]
            return AlgebraicNumber(tuple(int(c) for c in m.all_coeffs()), (_fr(a), _fr(b)),
                                   _decimal(cs, root, digits))
    raise ArithmeticError("could not match an algebraic number to an isolating interval")


def _arb_bounds(v: flint.arb) -> tuple:
    """Rational lower and upper bounds of the ball v (exact: arb endpoints are dyadic)."""
    m, r = _arf_fraction(v.mid()), _arf_fraction(v.rad())
    return m - r, m + r


def _arf_fraction(a: flint.arb) -> Fraction:
    m, e = a.man_exp()   # an exact point (midpoint or radius): m·2^e
    m, e = int(m), int(e)
    return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** -e)


def _decimal(cs, root: _Root, digits: int) -> str:
    prec = int(digits * 3.33) + 20
    with flint.ctx.workprec(prec + 32):
        v = _horner(cs, root.ball(prec))
        return v.mid().str(digits, radius=False)


# --- the polynomial system ----------------------------------------------------------------------
def _check_size(problem):
    p = problem.params
    mats = [p.A] + [M for h in p.heads for M in (h.V, h.B)]
    for M in mats:
        for x in M:
            x = sp.Rational(x)
            if max(int(x.p).bit_length(), int(x.q).bit_length()) > MAX_INPUT_BITS:
                return (f"an entry {x} has more than {MAX_INPUT_BITS} bits: exact Gröbner "
                        "solving not attempted")
    return None


def equations(problem):
    """The three polynomial equations (svec of eq. 1.1 at Σ = [[s11, s12], [s12, s22]]) and the
    symbols (s11, s12, s22)."""
    from symgauss.model.moments import cov_rhs
    s = sp.symbols("s11 s12 s22")
    S = sp.ImmutableMatrix([[s[0], s[1]], [s[1], s[2]]])
    F = cov_rhs(problem.params, S)
    return [sp.expand(F[0, 0]), sp.expand(F[0, 1]), sp.expand(F[1, 1])], s


def _shape(G, s, w):
    """{v: f_v(w)} and p(w) if G is in shape position w.r.t. w, else None."""
    fs, p = {}, None
    for g in G.exprs:
        P = sp.Poly(g, *s, w)
        degs = P.degree_list()
        lead = [i for i in range(len(s)) if degs[i] > 0]
        if not lead:
            p = sp.Poly(g, w)
            continue
        if len(lead) != 1 or degs[lead[0]] != 1:
            return None
        v = s[lead[0]]
        c = sp.Poly(g, v).all_coeffs()
        if len(c) != 2 or not c[0].is_number:
            return None
        fs[v] = sp.Poly(sp.expand(-c[1] / c[0]), w)
    if p is None or len(fs) != len(s):
        return None
    return fs, p


def _radical(eqs, s):
    """Seidenberg: I + (square-free parts of the univariate elimination polynomials)."""
    extra = []
    for k in range(len(s)):
        order = [v for v in s if v is not s[k]] + [s[k]]
        G = sp.groebner(eqs, *order, order="lex")
        uni = [g for g in G.exprs if g.free_symbols <= {s[k]}]
        if uni:
            extra.append(sp.sqf_part(uni[0]))
    return eqs + extra


def _shape_basis(eqs, s, aux=()):
    """(status, reason, fs, p): try separating forms, then the radical. ``aux``: further
    variables (eliminated first, e.g. u of the Rabinowitsch trick) solved for as well."""
    vs = (*aux, *s)
    w = sp.Symbol("w")
    for system in (eqs, None):
        if system is None:
            system = _radical(eqs, vs)
        for c in _SEPARATING:
            form = s[2] + c * s[1] + c * c * s[0]
            G = sp.groebner(system + [w - form], *vs, w, order="lex")
            if list(G.exprs) == [1]:
                return "solved", "no complex solution", None, None
            if not G.is_zero_dimensional:
                return ("not-isolated", "the equilibrium equations have a continuum of solutions "
                        "(the Gröbner basis is not zero-dimensional): equilibria are not isolated",
                        None, None)
            found = _shape(G, vs, w)
            if found is not None:
                return "solved", "", found[0], found[1]
    return ("not-shape", "no tried separating linear form puts the (radical) Gröbner basis in "
            "shape position", None, None)


def solve_d2(problem, *, digits: int = 30) -> ExactSolveResult:
    """Every real solution of the d = 2 equilibrium equations, exactly, with its PSD decision.

    Needs a time-invariant problem with d = 2 and rational entries. Returns an
    :class:`ExactSolveResult`; ``solutions`` lists all real solutions (PSD or not, Σ = 0 incl.).
    """
    if problem.d != 2 or not problem.is_time_invariant:
        raise ProblemError("solve_d2: needs a time-invariant problem with d = 2")
    too_big = _check_size(problem)
    if too_big:
        return ExactSolveResult("too-large", too_big)
    eqs, s = equations(problem)
    if all(e == 0 for e in eqs):
        return ExactSolveResult("not-isolated", "the equilibrium equations vanish identically "
                                "(every Σ is an equilibrium)")
    status, reason, fs, p = _shape_basis(eqs, s)
    scope = "all real solutions, exactly"
    if status == "not-isolated":
        # a continuum in ℂ³; the non-singular solutions (where every Σ ≻ 0 lies) may still be
        # isolated: saturate by det Σ (Rabinowitsch, u·det Σ = 1)
        u = sp.Symbol("u")
        status2, reason2, fs, p = _shape_basis(eqs + [u * (s[0] * s[2] - s[1] ** 2) - 1], s, (u,))
        if status2 != "solved":
            return ExactSolveResult(status, reason)
        if fs is None:  # no non-singular complex solution at all
            return ExactSolveResult("solved", reason2 + " with det Σ ≠ 0", (), None, True)
        reason = ("every real solution with det Σ ≠ 0, exactly (the singular solutions form a "
                  "continuum in ℂ³)")
        status, scope = status2, reason
    if status != "solved" or fs is None:
        return ExactSolveResult(status, reason)
    sols = real_solutions(fs, p, s, digits)
    return ExactSolveResult("solved", scope, tuple(sols), p.degree(),
                            scope != "all real solutions, exactly")


def real_solutions(fs, p, s, digits) -> list:
    """Every real solution of the shape-position system {v − f_v(w), p(w)}, exactly, as
    :class:`RealSolution` (positive definite and highest rank first)."""
    from symgauss.kernel.exact import is_psd, rank
    sols = []
    for q, _ in sp.factor_list(p)[1]:
        q = sp.Poly(q, p.gen)
        if q.degree() == 1:
            a, b = q.all_coeffs()
            r = -b / a
            entries = tuple(_fr(fs[v].eval(r)) for v in s)
            S = [[entries[0], entries[1]], [entries[1], entries[2]]]
            sols.append(RealSolution(entries, is_psd(S), rank(S)))
            continue
        for interval, _ in q.intervals():
            sols.append(_algebraic_solution(q, interval, [fs[v] for v in s], digits))
    sols.sort(key=lambda t: (-t.rank, not t.psd))
    return sols


def _algebraic_solution(q, interval, fs, digits) -> RealSolution:
    root = _Root(q, interval)
    es = [f.rem(q) for f in fs]
    det = (es[0] * es[2] - es[1] ** 2).rem(q)
    sx, sz, sd = _sign(es[0], root), _sign(es[2], root), _sign(det, root)
    psd = sx >= 0 and sz >= 0 and sd >= 0
    zero = all(e.is_zero for e in es)
    rank = 0 if zero else (2 if sd != 0 else 1)
    entries = []
    for e in es:
        if e.degree() <= 0:
            entries.append(_fr(e.as_expr()))
        else:
            entries.append(_minimal_polynomial(e, root, digits))
    gen = _minimal_polynomial(sp.Poly(q.gen, q.gen), root, digits)
    coeffs = tuple(tuple(_coeffs(e)) for e in es)
    return RealSolution(tuple(entries), psd, rank, gen, coeffs)


# --- stability and the Equilibrium objects ------------------------------------------------------
def _root_of(sol: RealSolution) -> _Root:
    w = sp.Symbol("w")
    return _Root(sp.Poly(list(sol.field.minpoly), w), sol.field.interval)


def _arb_cov(sol: RealSolution, root: _Root, prec: int):
    import numpy as np
    a, b, c = (_horner(cs, root.ball(prec)) for cs in sol.field_coeffs)
    return np.array([[a, b], [b, c]], dtype=object)


def _hurwitz_arb(L: flint.arb_mat, k: int) -> flint.arb:
    """k-th Hurwitz determinant of charpoly(L) (as :func:`symgauss.kernel.kinds.stability.hurwitz_det`),
    in ball arithmetic."""
    a, n = L.charpoly().coeffs()[::-1], L.nrows()
    return flint.arb_mat([[a[2 * j - i] if 0 <= 2 * j - i <= n else 0 for j in range(1, k + 1)]
                          for i in range(1, k + 1)]).det()


def stability_algebraic(problem, sol: RealSolution):
    """(True | False | None, reason): local stability of the algebraic equilibrium ``sol``,
    decided rigorously by ball arithmetic (never from a float answer).

    Stable: every Hurwitz determinant of charpoly(L) encloses only positive numbers (L is the
    linearisation on Sym(2) evaluated on a ball containing Σ*). Unstable: for a rational ε > 0
    some Hurwitz determinant of charpoly(L − εI) is < 0, so L has an eigenvalue with Re ≥ ε.
    None when no precision in PRECISIONS[:5] separates.
    """
    import numpy as np

    from symgauss.model.linearise import linearisation_num, numeric_params
    from symgauss.questions.stability.witness import rational_below
    root = _root_of(sol)
    for prec in PRECISIONS[:5]:
        with flint.ctx.workprec(prec + 32):
            A, heads, _ = numeric_params(problem.params,
                                         lambda v: flint.arb(flint.fmpq(int(v.p), int(v.q))))
            L = flint.arb_mat(linearisation_num(A, heads, _arb_cov(sol, root, prec)).tolist())
            n = L.nrows()
            dets = [_hurwitz_arb(L, k) for k in range(1, n + 1)]
            if all(x > 0 for x in dets):
                return True, (f"Hurwitz determinants of the linearisation's characteristic "
                              f"polynomial enclosed positive (ball arithmetic, {prec} bits): "
                              "every eigenvalue has negative real part")
            Lf = np.array([[float(L[i, j].mid()) for j in range(n)] for i in range(n)])
            mu = float(np.max(np.linalg.eigvals(Lf).real))
            if mu > 0:
                for frac in (0.5, 0.1, 0.01):
                    eps = rational_below(frac * mu)
                    M = L - flint.arb_mat([[flint.fmpq(eps.numerator, eps.denominator)
                                            if i == j else 0 for j in range(n)]
                                           for i in range(n)])
                    for k in range(1, n + 1):
                        if _hurwitz_arb(M, k) < 0:
                            return False, (f"unstable: Hurwitz determinant {k} of "
                                           f"charpoly(L − {eps}·I) enclosed negative (ball "
                                           f"arithmetic, {prec} bits): an eigenvalue has "
                                           f"Re ≥ {eps}")
    return None, "the linearisation's eigenvalues are not separated from the imaginary axis"


def _algebraic_equilibrium(problem, sol: RealSolution, digits: int):
    import numpy as np

    from symgauss.questions.equilibria.refine import bits_for, equilibrium_from_root, mean_ball
    from symgauss.questions.equilibria.result import Equilibrium, arb_ball, fraction_of
    from symgauss.questions.stability.local import StabilityResult
    stable, reason = stability_algebraic(problem, sol)
    root, prec = _root_of(sol), bits_for(digits) + 20
    with flint.ctx.workprec(prec + 32):
        balls = [_horner(cs, root.ball(prec)) for cs in sol.field_coeffs]
    (a, b, c), radius = arb_ball(balls, digits)
    mid = [fraction_of(x.mid()) for x in balls]
    C = flint.fmpq_mat(2, 2, [flint.fmpq(mid[k].numerator, mid[k].denominator)
                              for k in (0, 1, 1, 2)])
    mean, mrad = mean_ball(problem.params, C, max(fraction_of(x.rad()) for x in balls), digits)
    res = StabilityResult("undecided", reason)
    if stable is True:
        enc = equilibrium_from_root(problem, np.array([[float(mid[0]), float(mid[1])],
                                                       [float(mid[1]), float(mid[2])]]), digits)
        if enc.level == "rigorous" and enc.stability.status == "verified":
            res = enc.stability   # the same decision, with a certificate the checker re-verifies
        else:
            res = StabilityResult("verified", reason + " (no checkable certificate found)",
                                  "rigorous")
    elif stable is False:
        res = StabilityResult("refuted", reason, "rigorous")
    return Equilibrium(((a, b), (b, c)), None if mean is None else tuple(mean), 2, "exact",
                       stable, radius=radius, stability=res, algebraic=sol.algebraic_json(),
                       mean_radius=mrad)


def equilibria_of_solutions(problem, sols, digits) -> list:
    """The positive-definite ones among exact real solutions, as Equilibrium objects."""
    from symgauss.questions.equilibria.exact import exact_equilibrium
    out = []
    for sol in sols:
        if not (sol.psd and sol.rank == 2):
            continue
        if sol.is_rational:
            out.append(exact_equilibrium(problem, sol.cov_exact()))
        else:
            out.append(_algebraic_equilibrium(problem, sol, digits))
    return out
