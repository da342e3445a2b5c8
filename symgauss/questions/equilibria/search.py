"""Equilibria of the covariance equation AΣ + ΣAᵀ + Σ_h(V_hΣB_hΣ + ΣB_hᵀΣV_hᵀ) = 0.

- V_h = v_h I (quadratic term ΣRΣ, incl. d = 1): Σ* ≻ 0 ⇔ P* = Σ*⁻¹ ≻ 0 solves the Lyapunov
  equation AᵀP + PA = −R, solved exactly over the rationals (level ``exact``).
- d = 2, general V: every equilibrium exactly by a lex Gröbner basis (rational, or algebraic with
  minimal polynomial and isolating interval), :mod:`symgauss.equilibria_exact2`; when that does
  not decide (a continuum, too large an input, no shape position) the Newton route below.
- General V: Newton in svec coordinates from several starts (floats), refined at high precision
  (mpmath), then an existence-and-uniqueness proof in a max-norm ball by exact Newton–Kantorovich
  bounds (level ``rigorous``), otherwise ``high-precision``.
- Σ = 0 is always an equilibrium (rank 0); it attracts small Σ0 when A is Hurwitz.
- Rank-deficient cov0 whose range W is invariant under A and every V_h: the flow stays in
  {U S Uᵀ} (U a basis of W), and equilibria of the reduced r×r problem are lifted.
- The mean's fixed point m* = −(A + Σ_h(V_h + V_hΣ*B_h))⁻¹ b, and the b giving a prescribed m*.

>>> from symgauss import Problem
>>> p = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 3]], V=[[-1, 0], [0, -1]],
...             B=[[1, 0], [0, 1]], b=[1, 0])
>>> e = find_equilibria(p)[0]
>>> e.cov, e.mean, e.level, e.stable
((('1', '0'), ('0', '3')), ('1', '0'), 'exact', True)
"""
from __future__ import annotations

import dataclasses

from dataclasses import dataclass, field
from fractions import Fraction

import flint
import numpy as np

from .checker.common import ldl_positive_definite, mat_text, vec_text
from .convert import require_numeric
from .errors import ProblemError, UnsupportedError
from .linearise import (exact_matrix, exact_params, linearisation_num, numeric_params,
                        quadratic_R_exact, residual_exact, residual_num, smat, svec, svec_pairs)


@dataclass(frozen=True)
class Equilibrium:
    """One equilibrium: entries as text (exact rationals when ``level == "exact"``)."""
    cov: tuple                  # rows of strings
    mean: tuple | None          # strings, or None when the mean matrix is singular
    rank: int
    level: str                  # "exact" | "rigorous" | "high-precision" | "float"
    stable: bool | None = None
    cov_exact: flint.fmpq_mat | None = field(default=None, compare=False, repr=False)
    radius: Fraction | None = None  # rigorous: max-entry distance of Σ* from ``cov``
    stability: object = field(default=None, compare=False, repr=False)  # StabilityResult
    algebraic: dict | None = field(default=None, compare=False, repr=False)  # exact, irrational

    def to_json_dict(self) -> dict:
        out = {"cov": [list(r) for r in self.cov], "mean": list(self.mean) if self.mean else None,
               "rank": self.rank, "level": self.level, "stable": self.stable}
        if self.radius is not None:
            out["radius"] = str(self.radius)
        if self.stability is not None:
            out["stability"] = self.stability.reason
        if self.algebraic is not None:
            out["algebraic"] = self.algebraic
        return out


def _eye(n):
    return flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])


def lyapunov_exact(A: flint.fmpq_mat, C: flint.fmpq_mat):
    """The symmetric P with AᵀP + PA = C, exactly; None if the operator is singular."""
    d = A.nrows()
    pairs = svec_pairs(d)
    n = len(pairs)
    cols = []
    for i, j in pairs:
        E = flint.fmpq_mat(d, d)
        E[i, j] = E[j, i] = 1
        X = A.transpose() * E + E * A
        cols.append([X[k, l] for k, l in pairs])
    K = flint.fmpq_mat(n, n, [cols[c][r] for r in range(n) for c in range(n)])
    try:
        x = K.solve(flint.fmpq_mat(n, 1, [C[k, l] for k, l in pairs]))
    except ZeroDivisionError:
        return None
    P = flint.fmpq_mat(d, d)
    for (i, j), v in zip(pairs, x.entries()):
        P[i, j] = P[j, i] = v
    return P


def mean_matrix(params, S: flint.fmpq_mat) -> flint.fmpq_mat:
    """M = A + Σ_h (V_h + V_hΣB_h): at Σ*, m' = M m + b."""
    p = exact_params(params)
    M = p.A
    for V, B in p.heads:
        M = M + V + V * S * B
    return M


def mean_fixed_point(params, S: flint.fmpq_mat):
    """m* = −M⁻¹ b (exact), or None when M is singular."""
    try:
        return -(mean_matrix(params, S).solve(exact_params(params).b))
    except ZeroDivisionError:
        return None


def bias_for_mean(params, S, m_star) -> list:
    """The bias b with M m* + b = 0, i.e. m* is the mean's fixed point at Σ* = S (exact strings).

    >>> from symgauss import Problem
    >>> p = Problem(cov0=[[1]], A=[[1]], V=[[-1]], B=[[1]])
    >>> bias_for_mean(p.params, exact_matrix([[1]]), ["2"])   # M = 1 - 1 - 1 = -1
    ['2']
    """
    m = exact_matrix([[x] for x in m_star])
    return vec_text(-(mean_matrix(params, S) * m))


# --- exact: quadratic term ΣRΣ -------------------------------------------------------------------
def _structured(problem):
    p = exact_params(problem.params)
    R = quadratic_R_exact(p)
    P = lyapunov_exact(p.A, -R)
    if P is None:
        return None  # the Lyapunov operator is singular: fall back to the general search
    if not ldl_positive_definite(P)[0]:
        return []    # the unique solution is not ≻ 0: no positive-definite equilibrium
    return [P.inv()]


# --- general: Newton + exact Newton–Kantorovich ------------------------------------------------
def _starts(problem, A, heads, rng):
    d = problem.d
    out = [np.array([[float(problem.cov0[i, j]) for j in range(d)] for i in range(d)])]
    out += [c * np.eye(d) for c in (0.1, 0.5, 1.0, 2.0, 10.0)]
    try:  # structured guess: V_h replaced by its mean eigenvalue
        import warnings
        from scipy.linalg import solve_continuous_lyapunov
        R = sum((np.trace(V) / d) * (B + B.T) for V, B in heads)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            P = solve_continuous_lyapunov(A.T, -R)
        if np.all(np.linalg.eigvalsh((P + P.T) / 2) > 0):
            out.append(np.linalg.inv((P + P.T) / 2))
    except (np.linalg.LinAlgError, ValueError):
        pass
    for _ in range(6):
        G = rng.standard_normal((d, d))
        out.append(G @ G.T + 0.1 * np.eye(d))
    return out


def _newton_float(A, heads, S, iters=60):
    d = S.shape[0]
    x = np.array(svec(S.tolist()), dtype=float)
    for _ in range(iters):
        Sm = np.array(smat(x, d, 0.0))
        F = np.array(svec(residual_num(A, heads, Sm).tolist()))
        try:
            dx = np.linalg.solve(linearisation_num(A, heads, Sm), -F)
        except np.linalg.LinAlgError:
            return None
        x = x + dx
        if not np.all(np.isfinite(x)) or np.max(np.abs(x)) > 1e12:
            return None
        if np.max(np.abs(dx)) <= 1e-14 * (1 + np.max(np.abs(x))):
            return np.array(smat(x, d, 0.0))
    return None


def _newton_mp(params, S, digits):
    """Newton refinement at high precision; None where the linearisation is singular."""
    import mpmath
    d = S.shape[0]
    with mpmath.workdps(digits + 15):
        A, heads, _ = numeric_params(params, lambda v: mpmath.mpf(int(v.p)) / int(v.q))
        x = [mpmath.mpf(v) for v in svec(S.tolist())]
        for _ in range(40):
            Sm = np.array(smat(x, d, mpmath.mpf(0)), dtype=object)
            F = mpmath.matrix(svec(residual_num(A, heads, Sm).tolist()))
            J = mpmath.matrix(linearisation_num(A, heads, Sm).tolist())
            try:
                dx = mpmath.lu_solve(J, -F)
            except ZeroDivisionError:  # singular linearisation: not an isolated equilibrium
                return None
            x = [a + b for a, b in zip(x, dx)]
            if mpmath.norm(dx, mpmath.inf) <= mpmath.mpf(10) ** (-digits - 8) * (
                    1 + mpmath.norm(mpmath.matrix(x), mpmath.inf)):
                break
        return np.array(smat(x, d, mpmath.mpf(0)), dtype=object)


def _mp_to_fmpq(x, bits) -> flint.fmpq:
    import mpmath
    with mpmath.workprec(bits + 64):
        k = int(mpmath.nint(mpmath.ldexp(x, bits)))
    return flint.fmpq(k, flint.fmpz(2) ** bits)


def _enclose(problem, Smp, digits):
    """(center, radius, Y, StabilityResult) proved by the checker, or None."""
    from .checker.stability import _enclosure, _Refuted
    from .stability import stability_of_enclosure
    d = Smp.shape[0]
    bits = int(digits * 3.33) + 8
    C = flint.fmpq_mat(d, d, [_mp_to_fmpq(v, bits) for v in Smp.ravel()])
    Jf = linearisation_num(*numeric_params(problem.params, float)[:2],
                           np.array([[float(v) for v in r] for r in Smp]))
    try:
        Yf = np.linalg.inv(Jf)
    except np.linalg.LinAlgError:
        return None
    n = Jf.shape[0]
    e = 52 - int(np.frexp(max(float(np.max(np.abs(Yf))), 1e-300))[1])
    Y = flint.fmpq_mat(n, n, [flint.fmpq(int(round(np.ldexp(v, e)))) / flint.fmpq(2) ** e
                              for v in Yf.ravel()])
    z0 = max(abs(float(v)) for v in (Y * flint.fmpq_mat(n, 1, svec(residual_exact(
        problem.params, C).tolist()))).entries())
    radius = Fraction(max(4 * z0, 2.0 ** (-bits + 2)))  # a float: an exact dyadic
    p = exact_params(problem.params)
    for _ in range(6):
        claim = {"cov_center": mat_text(C), "cov_radius": str(radius)}
        try:
            _enclosure(p, claim, {"Y": mat_text(Y)}, d, n)
        except _Refuted:
            radius *= 64
            continue
        return C, radius, stability_of_enclosure(problem, C, radius, Y)
    return None


def _general(problem, digits):
    A, heads, _ = numeric_params(problem.params, float)
    rng = np.random.default_rng(20240601)
    found = []
    for S0 in _starts(problem, A, heads, rng):
        S = _newton_float(A, heads, S0)
        if S is None or not np.all(np.linalg.eigvalsh(S) > 1e-10 * max(1, np.max(np.abs(S)))):
            continue
        if all(np.max(np.abs(S - T)) > 1e-7 * (1 + np.max(np.abs(T))) for T in found):
            found.append(S)
    refined = (_newton_mp(problem.params, S, digits) for S in found)
    return [S for S in refined if S is not None]


def _num_text(x, digits) -> str:
    import mpmath
    return mpmath.nstr(x, digits, strip_zeros=False) if not isinstance(x, float) else repr(x)


def _exact_equilibrium(problem, S, decide=True) -> Equilibrium:
    from .stability import stability_of_exact
    m = mean_fixed_point(problem.params, S)
    rank = S.rank()
    stab = stability_of_exact(problem, S) if decide and rank == problem.d else None
    return Equilibrium(tuple(tuple(r) for r in mat_text(S)),
                       tuple(vec_text(m)) if m is not None else None, rank, "exact",
                       None if stab is None else {"verified": True, "refuted": False}.get(
                           stab.status), S, None, stab)


def _zero_equilibrium(problem) -> Equilibrium:
    """Σ = 0: linearisation Δ ↦ AΔ + ΔAᵀ, stable iff A is Hurwitz (decided exactly)."""
    from .checker.stability import hurwitz_det
    d = problem.d
    A = exact_params(problem.params).A
    hur = all(hurwitz_det(A, k) > 0 for k in range(1, d + 1))
    eig = float(np.max(np.linalg.eigvals(np.array(A.tolist(), dtype=float)).real))
    stable = True if hur else (False if eig > 1e-9 else None)
    m = mean_fixed_point(problem.params, flint.fmpq_mat(d, d))
    return Equilibrium(tuple(tuple(r) for r in mat_text(flint.fmpq_mat(d, d))),
                       tuple(vec_text(m)) if m is not None else None, 0, "exact", stable,
                       flint.fmpq_mat(d, d))


def find_equilibria(problem, digits: int = 30, *, include_zero: bool = True) -> tuple:
    """All equilibria found for a time-invariant numeric problem, positive definite first.

    The positive-definite ones carry a stability decision (``stable`` True / False / None) with
    its evidence in ``.stability`` (a :class:`symgauss.stability.StabilityResult`).
    Rank-deficient cov0: see :func:`find_equilibria_in_range`.
    """
    require_numeric(problem, "equilibria")
    if not problem.is_time_invariant:
        raise UnsupportedError("equilibria: this problem has time-varying 'controls'; equilibria "
                               "are defined for constant parameters")
    if not isinstance(digits, int) or not 5 <= digits <= 2000:
        raise ProblemError(f"digits = {digits!r}: ask for an integer between 5 and 2000")
    r = exact_matrix(problem.cov0).rank()
    if r < problem.d:
        return find_equilibria_in_range(problem, digits)
    out = None
    exact = _structured(problem) if quadratic_R_exact(problem.params) is not None else None
    if exact is not None:
        out = [_exact_equilibrium(problem, S) for S in exact]
    elif problem.d == 2:  # exact polynomial-system solving; None: undecided, Newton below
        from .equilibria_exact2 import equilibria_d2
        out = equilibria_d2(problem, digits)
    if out is None:
        out = []
        for Smp in _general(problem, digits):
            S_try = _try_exact(problem, Smp)
            if S_try is not None:
                out.append(_exact_equilibrium(problem, S_try))
                continue
            enc = _enclose(problem, Smp, digits)
            mean = _mean_mp(problem, Smp, digits)
            cov = tuple(tuple(_num_text(x, digits) for x in row) for row in Smp)
            if enc is None:
                out.append(Equilibrium(cov, mean, problem.d, "high-precision", None))
                continue
            C, radius, res = enc
            out.append(Equilibrium(cov, mean, problem.d, "rigorous",
                                   True if res.status == "verified" else None, None, radius, res))
    if include_zero:
        out.append(_zero_equilibrium(problem))
    return tuple(out)


def _try_exact(problem, Smp):
    """A rational equilibrium close to the numerical one (small denominators), if any."""
    d = Smp.shape[0]
    vals = [Fraction(float(v)).limit_denominator(1000) for v in Smp.ravel()]
    S = exact_matrix([vals[i * d:(i + 1) * d] for i in range(d)])
    if all(v == 0 for v in residual_exact(problem.params, S).entries()):
        return S
    return None


def _mean_mp(problem, Smp, digits):
    import mpmath
    with mpmath.workdps(digits + 10):
        A, heads, b = numeric_params(problem.params, lambda v: mpmath.mpf(int(v.p)) / int(v.q))
        M = A + sum((V + V @ Smp @ B for V, B in heads), 0 * A)
        try:
            m = mpmath.lu_solve(mpmath.matrix(M.tolist()), -mpmath.matrix(b.tolist()))
        except ZeroDivisionError:
            return None
        return tuple(_num_text(m[i], digits) for i in range(len(m)))


def range_reduction(problem):
    """(U, reduced problem) for W = range(cov0) with basis U (d×r, columns of cov0), or None
    when cov0 = 0. The reduced r×r problem has Ã, Ṽ_h with AU = UÃ, V_hU = UṼ_h (checked
    exactly; UnsupportedError when W is not invariant), B̃_h = UᵀB_hU and cov0 = U C Uᵀ, C ≻ 0:
    Σ(t) = U S(t) Uᵀ where S solves the reduced covariance equation."""
    from .problem import Problem
    S0 = exact_matrix(problem.cov0)
    d = problem.d
    cols, rank = [], 0
    for j in range(d):  # a basis of the column space from the columns of cov0
        trial = cols + [[S0[i, j] for i in range(d)]]
        T = flint.fmpq_mat(d, len(trial), [trial[c][i] for i in range(d) for c in range(len(trial))])
        if T.rank() > rank:
            cols, rank = trial, rank + 1
    if rank == 0:
        return None
    U = flint.fmpq_mat(d, rank, [cols[c][i] for i in range(d) for c in range(rank)])
    G = U.transpose() * U
    pinv = G.inv() * U.transpose()
    p = exact_params(problem.params)

    def reduce(M, what):
        X = pinv * M * U
        if U * X != M * U:
            raise UnsupportedError(f"range(cov0) is not invariant under {what}: the flow leaves "
                                   "it, so rank-deficient equilibria are not computed here "
                                   "(rank is invariant but the range moves)")
        return X
    At = reduce(p.A, "A")
    heads = [{"V": mat_text(reduce(V, f"V[{k}]")), "B": mat_text(U.transpose() * B * U)}
             for k, (V, B) in enumerate(p.heads)]
    return U, Problem(cov0=mat_text(pinv * S0 * pinv.transpose()), A=mat_text(At), heads=heads)


def find_equilibria_in_range(problem, digits: int = 30) -> tuple:
    """Equilibria of rank r = rank(cov0) inside W = range(cov0), when W is invariant under A and
    every V_h (checked exactly): Σ = U S Uᵀ with S' = ÃS + SÃᵀ + Σ_h(ṼSB̃S + SB̃ᵀSṼᵀ),
    AU = UÃ, V_hU = UṼ_h, B̃_h = UᵀB_hU. Raises UnsupportedError when W is not invariant."""
    reduction = range_reduction(problem)
    if reduction is None:
        return (_zero_equilibrium(problem),)
    U, sub = reduction
    out = []
    for e in find_equilibria(sub, digits, include_zero=False):
        if e.cov_exact is None:
            out.append(Equilibrium(e.cov, None, e.rank, e.level, e.stable))  # reduced coords
            continue
        S = U * e.cov_exact * U.transpose()
        m = mean_fixed_point(problem.params, S)
        stab = e.stability and dataclasses.replace(
            e.stability, reason=f"in the invariant range of cov0 (rank {U.ncols()}), for the "
                                f"reduced {U.ncols()}×{U.ncols()} problem: {e.stability.reason}")
        out.append(Equilibrium(tuple(tuple(r) for r in mat_text(S)),
                               tuple(vec_text(m)) if m is not None else None, e.rank, "exact",
                               e.stable, S, None, stab))
    out.append(_zero_equilibrium(problem))
    return tuple(out)
