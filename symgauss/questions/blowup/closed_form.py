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

from dataclasses import dataclass

import sympy as sp

ZERO_TOL_DIGITS = 60


@dataclass(frozen=True)
class Mode:
    """One decoupled scalar mode σ' = 2aσ + 2cσ², written with k = cσ0."""
    a: sp.Expr
    k: sp.Expr          # c σ0 (0 when σ0 = 0 or c = 0)
    sigma0: sp.Expr
    fate: str           # "blow-up" | "decay" | "limit" | "constant" | "grows" | "zero"
    t_star: sp.Expr | None
    limit: sp.Expr | None   # lim σ(t) as t → ∞ when finite (no blow-up)


@dataclass(frozen=True)
class ClosedForm:
    """T* (or no blow-up) from a closed form, with the modes it came from."""
    family: str             # "scalar" | "decoupled" | "vI-alphaI"
    t_star: sp.Expr | None  # exact SymPy expression; None when no mode blows up
    regime: str             # "blow-up" | "decay" | "bounded" | "unbounded"
    modes: tuple
    limit_rank: int | None  # rank of lim Σ(t) when bounded / decay
    statement: str

    def latex(self) -> str:
        return sp.latex(self.t_star) if self.t_star is not None else r"\infty"


def _sign(x) -> int:
    """Exact sign of a real algebraic expression (numeric test backed by simplification)."""
    x = sp.nsimplify(x) if isinstance(x, float) else x
    if x.is_Rational:
        return int(bool(x > 0)) - int(bool(x < 0))
    v = sp.N(x, ZERO_TOL_DIGITS)
    if v != 0 and bool(abs(v) > sp.Float(10) ** (-ZERO_TOL_DIGITS // 2)):
        return 1 if bool(v > 0) else -1
    if sp.simplify(x) == 0 or sp.minimal_polynomial(x, sp.Symbol("z")).is_Symbol:
        return 0
    return 1 if bool(sp.N(x, 4 * ZERO_TOL_DIGITS) > 0) else -1


def mode(a, k, sigma0) -> Mode:
    """Fate of σ' = 2aσ + 2cσ² with σ(0) = σ0 ≥ 0 and k = cσ0 (exact case analysis)."""
    a, k, sigma0 = sp.sympify(a), sp.sympify(k), sp.sympify(sigma0)
    if _sign(sigma0) == 0:
        return Mode(a, k, sigma0, "zero", None, sp.Integer(0))
    sa, sk = _sign(a), _sign(k)
    if sk > 0:
        if sa == 0:
            return Mode(a, k, sigma0, "blow-up", 1 / (2 * k), None)
        arg = 1 + a / k
        s_arg = _sign(arg)
        if sa > 0 or s_arg > 0:
            return Mode(a, k, sigma0, "blow-up", sp.log(arg) / (2 * a), None)
        if s_arg == 0:  # σ0 sits on the threshold equilibrium −a/c
            return Mode(a, k, sigma0, "constant", None, sigma0)
        return Mode(a, k, sigma0, "decay", None, sp.Integer(0))
    if sa < 0 or (sa == 0 and sk < 0):
        return Mode(a, k, sigma0, "decay", None, sp.Integer(0))
    if sa == 0:  # k = 0
        return Mode(a, k, sigma0, "constant", None, sigma0)
    if sk < 0:  # a > 0, c < 0: converges to the equilibrium −a/c = −a σ0 / k
        return Mode(a, k, sigma0, "limit", None, -a * sigma0 / k)
    return Mode(a, k, sigma0, "grows", None, None)


def _combine(family: str, modes, basis_note: str) -> ClosedForm:
    blow = [m for m in modes if m.fate == "blow-up"]
    if blow:
        vals = [(sp.N(m.t_star, 40), m.t_star) for m in blow]
        best = min(vals, key=lambda x: x[0])[1]
        best = sp.nsimplify(best) if best.is_Float else best
        return ClosedForm(family, best, "blow-up", tuple(modes), None,
                          f"{basis_note}: the first of {len(blow)} blowing-up mode(s) reaches "
                          "infinity at T* = min over modes of ln(1 + a/k)/(2a) (1/(2k) if a = 0)")
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


def _scalar_c(params, i: int, Q=None):
    c = sp.Integer(0)
    for h in params.heads:
        if Q is None:
            c += h.V[i, i] * h.B[i, i]
        else:
            q = Q[i]
            c += _rayleigh(h.V, q) * _rayleigh(h.B, q)
    return c


def _rayleigh(X, q):
    return sp.simplify((q.T * X * q)[0, 0] / (q.T * q)[0, 0])


def _is_diagonal(M) -> bool:
    return all(M[i, j] == 0 for i in range(M.shape[0]) for j in range(M.shape[1]) if i != j)


def _decoupling_basis(mats):
    """An orthogonal common eigenbasis (list of column vectors) of the symmetric commuting
    matrices ``mats``, or None if they are not simultaneously orthogonally diagonalisable."""
    d = mats[0].shape[0]
    if any(M != M.T for M in mats):
        return None
    for i, X in enumerate(mats):
        for Y in mats[i + 1:]:
            if X * Y != Y * X:
                return None
    for coeffs in ((1, 3, 7, 13, 29, 53, 97, 193), (2, 5, 17, 31, 61, 127, 251, 509)):
        M = sp.zeros(d, d)
        for c, X in zip(coeffs * (len(mats) // len(coeffs) + 1), mats):
            M += sp.Rational(1, c) * X
        basis = []
        for _, _, vecs in M.eigenvects():
            basis.extend(sp.Matrix(v) for v in vecs)
        if len(basis) == d and all(sp.simplify(X * q - _rayleigh(X, q) * q) == sp.zeros(d, 1)
                                   for q in basis for X in mats):
            return basis
    return None


def closed_form(problem) -> ClosedForm | None:
    """T* in closed form when the problem is scalar, decoupled or V_h = v_h I with A = αI.

    Returns None when no closed form applies (or for symbolic / time-varying problems).
    """
    if not _numeric(problem):
        return None
    params, d, S0 = problem.params, problem.d, problem.cov0
    if d == 1:
        modes = [mode(params.A[0, 0], _scalar_c(params, 0) * S0[0, 0], S0[0, 0])]
        return _combine("scalar", modes, "scalar equation σ' = 2aσ + 2cσ²")
    mats = [params.A, S0] + [M for h in params.heads for M in (h.V, h.B)]
    if all(_is_diagonal(M) for M in mats):
        modes = [mode(params.A[i, i], _scalar_c(params, i) * S0[i, i], S0[i, i])
                 for i in range(d)]
        return _combine("decoupled", modes, "diagonal data: Σ stays diagonal, d scalar modes")
    R = params.quadratic_R()
    alpha = params.A[0, 0]
    if R is not None and params.A == alpha * sp.eye(d):
        lams = (S0 * R).eigenvals()
        modes = []
        rank = _rank(S0)
        for lam, mult in lams.items():
            lam = sp.re(lam) if not lam.is_real else lam
            if _sign(lam) == 0:
                continue
            modes += [mode(alpha, lam / 2, sp.Integer(1))] * mult
        # eigenvalue 0 of Σ0R: modes e^{2αt} on range Σ0 (rank minus non-zero λ), zero on ker Σ0
        n_zero_in_range = rank - len(modes)
        modes += [mode(alpha, 0, sp.Integer(1))] * max(n_zero_in_range, 0)
        modes += [mode(alpha, 0, sp.Integer(0))] * (d - rank)
        return _combine("vI-alphaI", modes, "V_h = v_h I, A = αI: modes along the eigenvalues "
                        "λ of Σ0R (a = α, k = λ/2)")
    basis = _decoupling_basis(mats)
    if basis is None:
        return None
    modes = []
    for q in basis:
        s0 = _rayleigh(S0, q)
        c = sp.Integer(0)
        for h in params.heads:
            c += _rayleigh(h.V, q) * _rayleigh(h.B, q)
        modes.append(mode(_rayleigh(params.A, q), sp.simplify(c * s0), s0))
    return _combine("decoupled", modes, "A, V, B, Σ0 symmetric and commuting: one orthogonal "
                    "basis diagonalises them, Σ stays diagonal in it")


def _rank(S) -> int:
    from fractions import Fraction

    from symgauss.kernel.exact import rank
    return rank([[Fraction(int(x.p), int(x.q)) for x in S.row(i)] for i in range(S.shape[0])])


