"""General V: Newton in svec coordinates, refined at high precision, enclosed exactly.

Newton from several starts in floats, refined with mpmath to the requested digits; then an
existence-and-uniqueness proof in a max-norm ball by the kernel's exact Newton–Kantorovich
bounds (level ``rigorous``); without that proof the refined point is only ``high-precision``.
"""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from symgauss.model.linearise import (
    exact_matrix,
    exact_params,
    linearisation_num,
    numeric_params,
    residual_exact,
    residual_num,
    smat,
    svec,
)


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


def enclose(problem, Smp, digits):
    """(center, radius, Y, StabilityResult) proved by the checker, or None."""
    from symgauss.kernel.kinds.stability import enclosure
    from symgauss.kernel.verdict import NotProved
    from symgauss.questions.stability.local import stability_of_enclosure
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
        try:
            enclosure(p, C, flint.fmpq(radius.numerator, radius.denominator), Y)
        except NotProved:
            radius *= 64
            continue
        return C, radius, stability_of_enclosure(problem, C, radius, Y)
    return None


def newton_candidates(problem, digits):
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


def try_rational(problem, Smp):
    """A rational equilibrium close to the numerical one (small denominators), if any."""
    d = Smp.shape[0]
    vals = [Fraction(float(v)).limit_denominator(1000) for v in Smp.ravel()]
    S = exact_matrix([vals[i * d:(i + 1) * d] for i in range(d)])
    if all(v == 0 for v in residual_exact(problem.params, S).entries()):
        return S
    return None


def mean_mp(problem, Smp, digits):
    import mpmath
    with mpmath.workdps(digits + 10):
        A, heads, b = numeric_params(problem.params, lambda v: mpmath.mpf(int(v.p)) / int(v.q))
        M = A + sum((V + V @ Smp @ B for V, B in heads), 0 * A)
        try:
            m = mpmath.lu_solve(mpmath.matrix(M.tolist()), -mpmath.matrix(b.tolist()))
        except ZeroDivisionError:
            return None
        return tuple(num_text(m[i], digits) for i in range(len(m)))


def num_text(x, digits) -> str:
    import mpmath
    return mpmath.nstr(x, digits, strip_zeros=False) if not isinstance(x, float) else repr(x)
