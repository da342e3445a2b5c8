"""Symbolic building blocks of the closure: symbol matrices, Gaussian moments and MGF, and
exact identity checks.

>>> s, mu = sp.symbols("s mu")
>>> sp.expand(gaussian_moment((0, 0), sp.Matrix([mu]), sp.Matrix([[s]])))
mu**2 + s
"""
from __future__ import annotations

import itertools
import random
from functools import reduce

import sympy as sp

from symgauss.closure.result import Mat, Step

EXPAND_UP_TO = 4   # entrywise identities with the full parameters: exact expansion for d <= this


# --- symbols ------------------------------------------------------------------------------
def _sep(d):
    return "" if d < 10 else "_"


def sym_matrix(name: str, d: int, cols: int | None = None) -> Mat:
    """A d×cols matrix of plain commutative symbols ``name_ij`` (1-based)."""
    s = _sep(max(d, cols or d))
    return Mat(d, cols or d, lambda i, j: sp.Symbol(f"{name}_{i + 1}{s}{j + 1}"))


def sym_symmetric(name: str, d: int) -> Mat:
    s = _sep(d)
    return Mat(d, d, lambda i, j: sp.Symbol(f"{name}_{min(i, j) + 1}{s}{max(i, j) + 1}"))


def sym_vector(name: str, d: int) -> Mat:
    return Mat(d, 1, lambda i, j: sp.Symbol(f"{name}_{i + 1}"))


def mm(*factors) -> Mat:
    """Matrix product without SymPy's per-entry simplification (several times faster)."""
    def two(X, Y):
        n, k = X.shape
        return Mat(n, Y.shape[1], lambda i, j: sp.Add(*[X[i, l] * Y[l, j] for l in range(k)]))
    return reduce(two, factors)


def is_zero_matrix(M) -> bool:
    return all(sp.expand(v) == 0 for v in M)


def identity_check(lhs, rhs, d: int, subs_syms, what: str, seed: int = 0, expand_up_to=None):
    """Check lhs == rhs(sub) entrywise: exact expansion for small d, else at 2 random rational points.

    ``rhs`` is a function of a substitution dict (the empty dict for the symbolic form), so
    that at a rational point it is evaluated from rational matrices. Returns the
    justification text; raises RuntimeError (a bug) when the identity fails.
    """
    limit = EXPAND_UP_TO if expand_up_to is None else expand_up_to
    if d <= limit:
        if not is_zero_matrix(sp.Matrix(lhs) - sp.Matrix(rhs({}))):
            raise RuntimeError(f"derivation bug: {what} fails")
        return "exact expansion of every entry (lhs - rhs expands to 0)"
    rng = random.Random(seed)
    syms = sorted(set().union(*[v.free_symbols for v in lhs]) | set(subs_syms), key=str)
    for _ in range(2):
        pt = {s: sp.Rational(rng.randint(-9, 9), rng.randint(1, 7)) for s in syms}
        if lhs.xreplace(pt) != rhs(pt):
            raise RuntimeError(f"derivation bug: {what} fails at a rational point")
    return ("checked exactly at 2 random rational points (Schwartz-Zippel: a non-zero "
            f"polynomial vanishes at both with tiny probability); full expansion skipped for d > {limit}")


# --- Gaussian moments ---------------------------------------------------------------------
def _isserlis(idx: tuple, S) -> sp.Expr:
    """E[z_{i1}…z_{ik}] for z ~ N(0, S): the sum over perfect matchings (Isserlis / Wick)."""
    if not idx:
        return sp.Integer(1)
    if len(idx) % 2:
        return sp.Integer(0)
    first, rest = idx[0], idx[1:]
    return sp.Add(*[S[first, rest[k]] * _isserlis(rest[:k] + rest[k + 1:], S)
                    for k in range(len(rest))])


def gaussian_moment(idx: tuple, m, S) -> sp.Expr:
    """E[x_{i1}…x_{ik}] for x ~ N(m, S), with x = m + z and Isserlis for the z-part.

    >>> s, mu = sp.symbols("s mu")
    >>> sp.expand(gaussian_moment((0, 0, 0, 0), sp.Matrix([mu]), sp.Matrix([[s]])))
    mu**4 + 6*mu**2*s + 3*s**2
    """
    total = []
    n = len(idx)
    for r in range(n + 1):
        for chosen in itertools.combinations(range(n), r):
            rest = [idx[k] for k in range(n) if k not in chosen]
            total.append(sp.Mul(*[m[i] for i in rest]) * _isserlis(tuple(idx[k] for k in chosen), S))
    return sp.Add(*total)


def gaussian_expectation(expr, x, m, S) -> sp.Expr:
    """E[p(x)] for a polynomial p in the entries of x (coefficients may be any symbols)."""
    xs = list(x)
    poly = sp.Poly(sp.expand(expr), *xs)
    out = []
    for mono, coeff in poly.terms():
        idx = tuple(i for i, e in enumerate(mono) for _ in range(e))
        out.append(coeff * gaussian_moment(idx, m, S))
    return sp.Add(*out)


def gaussian_log_mgf(d: int, m, S, w, steps: list | None = None) -> sp.Expr:
    """log E e^{wᵀX} for X ~ N(m, S), derived by completing the square.

    X = m + LZ with Σ = LLᵀ (L any square root, so Σ may be singular) and Z ~ N(0, I).
    """
    z, u = sym_vector("z", d), sym_vector("u", d)
    lhs = -(z.T * z)[0] / 2 + (u.T * z)[0]
    rhs = -((z - u).T * (z - u))[0] / 2 + (u.T * u)[0] / 2
    if sp.expand(lhs - rhs) != 0:
        raise RuntimeError("derivation bug: completing the square fails")
    if steps is not None:
        steps.append(Step("Completing the square in the standard normal exponent",
                          sp.Eq(lhs, rhs, evaluate=False),
                          "polynomial identity, exact expansion"))
    # E e^{uᵀZ} = e^{|u|²/2} ∫ φ(z - u) dz = e^{|u|²/2}  (translation invariance, ∫φ = 1)
    log_mgf_Z = (u.T * u)[0] / 2
    L = sym_matrix("L", d)
    via_L = (w.T * m)[0] + log_mgf_Z.xreplace(dict(zip(u, L.T * w)))
    just = identity_check(Mat([via_L]), lambda p: Mat([(
        (w.T * m)[0] + (w.T * mm(L, L.T) * w)[0] / 2).xreplace(p)]), d, [],
        "(Lᵀw)ᵀ(Lᵀw) = wᵀLLᵀw")
    K = (w.T * m)[0] + (w.T * S * w)[0] / 2
    if steps is not None:
        steps.append(Step("Gaussian log-MGF: X = m + LZ, Σ = LLᵀ, log E exp(wᵀX) = K(w)",
                          sp.Eq(sp.Symbol("K(w)"), K, evaluate=False),
                          "E exp(uᵀZ) = exp(|u|²/2) by the shift z -> z + u (Lebesgue measure "
                          "is translation invariant); u = Lᵀw; |Lᵀw|² = wᵀLLᵀw: " + just +
                          "; valid for singular Σ"))
    return K


def tilted_mean(K, w) -> Mat:
    """∇_w K(w): the mean of the measure tilted by e^{wᵀy} (differentiation under ∫)."""
    return Mat([sp.diff(K, wi) for wi in w])
