"""Closed forms for the blow-up time T* (time-invariant parameters), as SymPy expressions.

Three families have T* in closed form (notes §4):

* **scalar / decoupled modes.** A mode σ' = 2aσ + 2cσ² (c = Σ_h v_h β_h) with σ0 > 0 and
  k = cσ0 blows up iff k > 0 and (a ≥ 0 or 1 + a/k > 0), at

      T = ln(1 + a/k) / (2a)   (a ≠ 0),      T = 1/(2k)   (a = 0).

  A problem *decouples* when A, every V_h, B_h and Σ0 are symmetric and commute pairwise: one
  orthogonal change of basis diagonalises them all, Σ stays diagonal in it and each diagonal
  entry is such a mode. This is detected automatically (exactly, over the rationals or
  algebraic numbers); T* is the smallest mode time.
* **V_h = v_h I with A = αI (α = 0 allowed).** With R = Σ_h v_h(B_h + B_hᵀ) and λ_i the
  eigenvalues of Σ0 R (real: Σ0 R is similar to Σ0^{1/2} R Σ0^{1/2}), Σ(t) splits into modes
  with a = α, k = λ_i/2, so T* = ln(1 + 2α/λ)/(2α) (α ≠ 0) or 1/λ (α = 0), λ = λmax(Σ0 R).

Every mode also says what happens without blow-up: decay to 0, a finite non-zero limit,
constant, or growth for all time; together they give the regime and the rank of the limit.

>>> from symgauss import Problem
>>> cf = closed_form(Problem(cov0=[[1]], V=[[1]], B=[[1]]))
>>> cf.t_star, cf.regime
(1/2, 'blow-up')
>>> closed_form(Problem(cov0=[[1, 0], [0, 1]], V=[[1, 0], [0, 1]], B=[[1, 0], [0, 2]])).t_star
1/4
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import flint
import sympy as sp

from symgauss.questions.blowup import algebraic
from symgauss.questions.blowup.algebraic import RealAlgebraic


@dataclass(frozen=True)
class Mode:
    """One decoupled scalar mode σ' = 2aσ + 2cσ², written with k = cσ0."""
    a: sp.Expr
    k: sp.Expr          # c σ0 (0 when σ0 = 0 or c = 0)
    sigma0: sp.Expr
    fate: str           # "blow-up" | "decay" | "limit" | "constant" | "grows" | "zero"
    t_star: sp.Expr | None
    limit: sp.Expr | None   # lim σ(t) as t → ∞ when finite (no blow-up)
    numbers: tuple = field(default=(), compare=False, repr=False)   # exact (a, k)


@dataclass(frozen=True)
class ClosedForm:
    """T* (or no blow-up) from a closed form, with the modes it came from.

    ``level`` is "exact" when every sign and the choice of the first mode were decided
    exactly, "rigorous" when the first mode was chosen by comparing ball enclosures of the
    mode times (the signs are always exact)."""
    family: str             # "scalar" | "decoupled" | "vI-alphaI"
    t_star: sp.Expr | None  # exact SymPy expression; None when no mode blows up
    regime: str             # "blow-up" | "decay" | "bounded" | "unbounded"
    modes: tuple
    limit_rank: int | None  # rank of lim Σ(t) when bounded / decay
    statement: str
    level: str = "exact"
    first: tuple = field(default=(), compare=False, repr=False)   # the candidate first modes

    def latex(self) -> str:
        return sp.latex(self.t_star) if self.t_star is not None else r"\infty"

    def t_star_arb(self, prec: int) -> flint.arb:
        """A ball containing T* at about ``prec`` bits (min over the candidate modes)."""
        balls = [mode_time_arb(m, prec) for m in self.first]
        out = balls[0]
        for b in balls[1:]:
            lo = b.lower() if b.lower() < out.lower() else out.lower()
            hi = b.upper() if b.upper() < out.upper() else out.upper()
            out = lo.union(hi)
        return out


def _exact(x):
    """An exact number for the case analysis: Fraction, RealAlgebraic, or (other) SymPy."""
    if isinstance(x, (RealAlgebraic, Fraction)):
        return x
    if isinstance(x, int):
        return Fraction(x)
    x = sp.sympify(x)
    if x.is_Rational:
        return Fraction(int(x.p), int(x.q))
    return x


def _sign(x) -> int | None:
    """The exact sign of an algebraic number, or None (undecided).

    Rationals and :class:`~symgauss.questions.blowup.algebraic.RealAlgebraic` numbers are
    decided exactly. Another SymPy number is decided only when its minimal polynomial settles
    it (z: zero; all real roots of one sign: that sign); otherwise None — never by numerics.
    """
    if isinstance(x, (RealAlgebraic, Fraction, int)):
        return algebraic.sign(x)
    try:
        p = sp.Poly(sp.minimal_polynomial(x, algebraic.Z), algebraic.Z)
    except (NotImplementedError, ValueError, sp.PolynomialError):
        return None
    if p.degree() == 1 and p.coeffs()[-1] == 0:
        return 0
    fp = flint.fmpq_poly([flint.fmpq(int(c.p), int(c.q)) for c in reversed(p.all_coeffs())])
    signs = {algebraic.sign(r) for r in algebraic.roots(fp)}
    return signs.pop() if len(signs) == 1 else None


def _expr(x) -> sp.Expr:
    return x if isinstance(x, sp.Basic) else algebraic.expr(x)


def mode(a, k, sigma0) -> Mode:
    """Fate of σ' = 2aσ + 2cσ² with σ(0) = σ0 ≥ 0 and k = cσ0 (exact case analysis).

    a, k, σ0: rationals (int, Fraction, SymPy Rational) or exact real algebraic numbers; the
    fate is "undecided" when a sign cannot be decided exactly.
    """
    a, k, sigma0 = _exact(a), _exact(k), _exact(sigma0)
    nums = (a, k)

    def out(fate, t_star, limit):
        return Mode(_expr(a), _expr(k), _expr(sigma0), fate, t_star, limit, nums)
    s0 = _sign(sigma0)
    if s0 == 0:
        return out("zero", None, sp.Integer(0))
    sa, sk = _sign(a), _sign(k)
    if s0 is None or sa is None or sk is None:
        return out("undecided", None, None)
    if sk > 0:
        if sa == 0:
            return out("blow-up", 1 / (2 * _expr(k)), None)
        arg = 1 + a / k
        s_arg = _sign(arg)
        if s_arg is None:
            return out("undecided", None, None)
        if sa > 0 or s_arg > 0:
            return out("blow-up", sp.log(_expr(arg)) / (2 * _expr(a)), None)
        if s_arg == 0:  # σ0 sits on the threshold equilibrium −a/c
            return out("constant", None, _expr(sigma0))
        return out("decay", None, sp.Integer(0))
    if sa < 0 or (sa == 0 and sk < 0):
        return out("decay", None, sp.Integer(0))
    if sa == 0:  # k = 0
        return out("constant", None, _expr(sigma0))
    if sk < 0:  # a > 0, c < 0: converges to the equilibrium −a/c = −a σ0 / k
        return out("limit", None, _expr(-a * sigma0 / k))
    return out("grows", None, None)


def mode_time_arb(m: Mode, prec: int) -> flint.arb:
    """A ball containing the blow-up time of a mode (ln(1 + a/k)/(2a), or 1/(2k) if a = 0)."""
    a, k = m.numbers
    with flint.ctx.workprec(prec + 16):
        if algebraic.sign(a) == 0:
            return 1 / (2 * algebraic.arb(k, prec + 16))
        return algebraic.arb(1 + a / k, prec + 16).log() / (2 * algebraic.arb(a, prec + 16))


MAX_COMPARE_PREC = 4096


def _first_modes(blow):
    """(candidates for the first mode to blow up, level of the choice).

    Same a for all (exactly): the mode time is strictly decreasing in k on the blow-up
    region, so the first is the largest k (exact comparison). Otherwise ball enclosures of the
    mode times are compared at rising precision (level rigorous); modes that still overlap at
    MAX_COMPARE_PREC bits are all kept (T* = their Min, which is exact whichever is smaller).
    """
    distinct = []
    for m in blow:
        if not any(_same_numbers(m, o) for o in distinct):
            distinct.append(m)
    if len(distinct) == 1:
        return distinct, "exact"
    a0 = distinct[0].numbers[0]
    if all(algebraic.compare(m.numbers[0], a0) == 0 for m in distinct):
        best = distinct[0]
        for m in distinct[1:]:
            c = algebraic.compare(m.numbers[1], best.numbers[1])
            if c is None:
                break
            if c > 0:
                best = m
        else:
            return [best], "exact"
    prec, cands = 64, distinct
    while len(cands) > 1 and prec <= MAX_COMPARE_PREC:
        balls = [mode_time_arb(m, prec) for m in cands]
        upper = min((b.upper() for b in balls), key=float)   # an upper bound of T*
        cands = [m for m, b in zip(cands, balls) if not b.lower() > upper]
        prec *= 2
    return cands, "rigorous"


def _same_numbers(m, o) -> bool:
    return all(algebraic.compare(x, y) == 0 for x, y in zip(m.numbers, o.numbers))


def _combine(family: str, modes, basis_note: str) -> ClosedForm | None:
    if any(m.fate == "undecided" for m in modes):
        return None
    blow = [m for m in modes if m.fate == "blow-up"]
    if blow:
        first, level = _first_modes(blow)
        t_star = (first[0].t_star if len(first) == 1
                  else sp.Min(*[m.t_star for m in first], evaluate=False))
        how = ("exact comparison" if level == "exact" else
               "ball enclosures of the mode times compared" + (
                   "; the candidates could not be separated, T* is their minimum"
                   if len(first) > 1 else ""))
        return ClosedForm(family, t_star, "blow-up", tuple(modes), None,
                          f"{basis_note}: the first of {len(blow)} blowing-up mode(s) reaches "
                          "infinity at T* = min over modes of ln(1 + a/k)/(2a) (1/(2k) if a = 0); "
                          f"signs decided exactly, first mode by {how}", level, tuple(first))
    if any(m.fate == "grows" for m in modes):
        return ClosedForm(family, None, "unbounded", tuple(modes), None,
                          f"{basis_note}: no mode blows up; a mode with a > 0, c = 0 grows like "
                          "e^{2at} for all time")
    rank = sum(1 for m in modes if m.fate in ("limit", "constant"))
    regime = "decay" if rank == 0 else "bounded"
    return ClosedForm(family, None, regime, tuple(modes), rank,
                      f"{basis_note}: no mode blows up; every mode converges "
                      f"(limit of rank {rank})")


def _numeric(problem) -> bool:
    return problem.is_time_invariant and problem.is_numeric


def _fmpq(M) -> flint.fmpq_mat:
    return flint.fmpq_mat(M.shape[0], M.shape[1], [flint.fmpq(int(x.p), int(x.q)) for x in M])


def _is_diagonal(M) -> bool:
    return all(M[i, j] == 0 for i in range(M.shape[0]) for j in range(M.shape[1]) if i != j)


def _eigen_modes(X) -> list:
    """The real eigenvalues of the rational matrix X with algebraic multiplicity, exactly
    (factors of the characteristic polynomial; X must have only real eigenvalues)."""
    chi = X.charpoly()
    out = algebraic.roots(chi)
    if len(out) != chi.degree():
        raise RuntimeError("a matrix with only real eigenvalues has a non-real one")
    return out


def _in_algebra(M, X, deg):
    """p ∈ Q[z], deg p < ``deg``, with X = p(M) (exact linear algebra), or None."""
    d = M.nrows()
    powers, P = [], flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    for _ in range(deg):
        powers.append(P)
        P = P * M
    K = flint.fmpq_mat(d * d, deg, [powers[j][r // d, r % d] for r in range(d * d)
                                    for j in range(deg)])
    aug = flint.fmpq_mat(d * d, deg + 1, [v for r in range(d * d) for v in
                                          [powers[j][r // d, r % d] for j in range(deg)]
                                          + [X[r // d, r % d]]])
    if aug.rank() != K.rank():
        return None
    rref, rank = aug.rref()
    coeffs = [flint.fmpq(0)] * deg
    row = 0
    for col in range(deg):
        if row < rank and rref[row, col] != 0:
            coeffs[col] = rref[row, deg] / rref[row, col]
            row += 1
    return flint.fmpq_poly(coeffs)


def _decoupled_modes(problem, mats):
    """Modes of a problem whose A, V_h, B_h, Σ0 are symmetric and commute pairwise, exactly.

    For a generic rational combination M = Σ c_i X_i every X_i is a polynomial p_i(M) (exact
    test): then the eigenspaces of M are common eigenspaces, and on the eigenspace of a root μ
    of M's characteristic polynomial X_i acts as p_i(μ), an exact algebraic number. None when
    the matrices are not symmetric and commuting (or no tried combination separates them).
    """
    F = [_fmpq(M) for M in mats]
    if any(X != X.transpose() for X in F):
        return None
    if any(X * Y != Y * X for i, X in enumerate(F) for Y in F[i + 1:]):
        return None
    d = problem.d
    for coeffs in ((1, 3, 7, 13, 29, 53, 97, 193), (2, 5, 17, 31, 61, 127, 251, 509),
                   (3, 11, 23, 41, 73, 131, 257, 521)):
        M = flint.fmpq_mat(d, d)
        for c, X in zip(coeffs * (len(F) // len(coeffs) + 1), F):
            M = M + X * flint.fmpq(1, c)
        chi = M.charpoly()
        sqfree = chi / chi.gcd(chi.derivative())
        polys = [_in_algebra(M, X, sqfree.degree()) for X in F]
        if any(p is None for p in polys):
            continue
        pA, pS = polys[0], polys[1]
        heads = list(zip(polys[2::2], polys[2 + 1::2]))
        modes = []
        for mu in _eigen_modes(M):
            def at(p, mu=mu):
                if isinstance(mu, Fraction):
                    return _frac_of(p(flint.fmpq(mu.numerator, mu.denominator)))
                return mu.apply(p)
            a, s0 = at(pA), at(pS)
            c = sum((at(pv) * at(pb) for pv, pb in heads), Fraction(0))
            modes.append(mode(a, c * s0, s0))
        return modes
    return None


def _frac_of(x):
    return Fraction(int(x.p), int(x.q)) if isinstance(x, flint.fmpq) else x


def closed_form(problem) -> ClosedForm | None:
    """T* in closed form when the problem is scalar, decoupled or V_h = v_h I with A = αI.

    Returns None when no closed form applies (or for symbolic / time-varying problems), or
    when a sign could not be decided exactly.
    """
    if not _numeric(problem):
        return None
    params, d, S0 = problem.params, problem.d, problem.cov0
    q = lambda x: Fraction(int(x.p), int(x.q))  # noqa: E731
    if d == 1:
        c = sum((q(h.V[0, 0]) * q(h.B[0, 0]) for h in params.heads), Fraction(0))
        modes = [mode(q(params.A[0, 0]), c * q(S0[0, 0]), q(S0[0, 0]))]
        return _combine("scalar", modes, "scalar equation σ' = 2aσ + 2cσ²")
    mats = [params.A, S0] + [M for h in params.heads for M in (h.V, h.B)]
    if all(_is_diagonal(M) for M in mats):
        modes = []
        for i in range(d):
            c = sum((q(h.V[i, i]) * q(h.B[i, i]) for h in params.heads), Fraction(0))
            modes.append(mode(q(params.A[i, i]), c * q(S0[i, i]), q(S0[i, i])))
        return _combine("decoupled", modes, "diagonal data: Σ stays diagonal, d scalar modes")
    R = params.quadratic_R()
    alpha = params.A[0, 0]
    if R is not None and params.A == alpha * sp.eye(d):
        rank = _rank(S0)
        modes = []
        for lam in _eigen_modes(_fmpq(S0) * _fmpq(R)):   # real: Σ0R ~ Σ0^{1/2}RΣ0^{1/2}
            if algebraic.sign(lam) != 0:
                modes.append(mode(q(alpha), lam / 2, Fraction(1)))
        # eigenvalue 0 of Σ0R: modes e^{2αt} on range Σ0 (rank minus non-zero λ), zero on ker Σ0
        n_zero_in_range = rank - len(modes)
        modes += [mode(q(alpha), 0, 1)] * max(n_zero_in_range, 0)
        modes += [mode(q(alpha), 0, 0)] * (d - rank)
        return _combine("vI-alphaI", modes, "V_h = v_h I, A = αI: modes along the eigenvalues "
                        "λ of Σ0R (a = α, k = λ/2)")
    modes = _decoupled_modes(problem, mats)
    if modes is None:
        return None
    return _combine("decoupled", modes, "A, V, B, Σ0 symmetric and commuting: one orthogonal "
                    "basis diagonalises them, Σ stays diagonal in it")


def _rank(S) -> int:
    from symgauss.kernel.exact import rank
    return rank([[Fraction(int(x.p), int(x.q)) for x in S.row(i)] for i in range(S.shape[0])])
