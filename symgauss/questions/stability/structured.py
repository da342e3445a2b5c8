"""Stability certificates at large d with d×d witnesses (kinds ``stable-equilibrium-structured``
and ``stable-equilibrium-structured-enclosed``, :mod:`symgauss.kernel.kinds.structured`).

The svec certificates (a general n×n Lyapunov matrix, n = d(d+1)/2) are checked for d ≤ 12;
this route serves larger d, up to the checker's d ≤ 32 (untrusted search, trusted check):

1. Σ* in floats by Newton–Krylov on d×d matrices (:func:`.kronecker.newton_krylov`) from
   several starts;
2. refinement with exact residuals: C ← C + δ with J_C δ = −F(C), F(C) exact (python-flint),
   δ in floats, until ‖F(C)‖ ≈ 10^-digits; Σ* is taken as exact when rounding C's entries to
   denominators ≤ 10⁶ makes F exactly 0 (level exact), else the certificate encloses the unique
   equilibrium near C (Newton–Kantorovich with the Q-norm, level rigorous);
3. a Lyapunov function tr(QΔQΔ) whose margin m(Q) (:func:`.kronecker.margin`) is positive,
   from Σ*⁻¹ or Lyapunov solutions, improved by :func:`.kronecker.improve_q`; the claimed rate
   is 9/10 of the margin of the rounded Q.

It decides when such a Q exists — when the attention terms V_hΔB_hΣ* are close enough to a
Kronecker sum (V_h near a multiple of I, or B_hΣ* near one) against the decay of that part —
and answers undecided otherwise: then only an svec certificate (d ≤ 12) could decide.

>>> from symgauss import Problem
>>> p = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 3]], V=[[-1, 0], [0, -1]],
...             B=[[1, 0], [0, 1]])
>>> res = certify_structured(p)
>>> res.status, res.level, res.certificate["kind"], res.certificate["claim"]["cov"]
('verified', 'rigorous', 'stable-equilibrium-structured', [['1', '0'], ['0', '3']])
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from symgauss.kernel.exact import positive_definite
from symgauss.kernel.numbers import rational_text as text
from symgauss.kernel.read import MAX_D, mat_text
from symgauss.model.certificate import envelope
from symgauss.model.linearise import (
    exact_matrix,
    exact_params,
    numeric_params,
    residual_exact,
    to_float_matrix,
)
from symgauss.questions.stability.kronecker import (
    improve_q,
    margin,
    newton_krylov,
    q_candidates,
    solve_linearised,
    spectral_abscissa,
)
from symgauss.questions.stability.local import StabilityResult, checked
from symgauss.questions.stability.witness import rational_below, round_symmetric

MAX_DENOMINATOR = 10 ** 6   # Σ* is tried as exact with entries of at most this denominator


def rational_above(x: float, digits: int = 4) -> Fraction:
    """A short decimal rational ≥ x > 0 with ``digits`` significant digits."""
    e = digits - 1 - math.floor(math.log10(x))
    f = Fraction(math.ceil(x * 10.0 ** e)) / Fraction(10) ** e
    return f if f >= x else Fraction(x) + Fraction(x) / 10 ** 12


def _starts(problem, A, heads, rng):
    d = problem.d
    out = []
    try:  # V_h replaced by its mean eigenvalue: a Lyapunov equation for Σ⁻¹
        from scipy.linalg import solve_continuous_lyapunov
        R = sum((np.trace(V) / d) * (B + B.T) for V, B in heads)
        P = solve_continuous_lyapunov(A.T, -R)
        if np.all(np.isfinite(P)) and np.all(np.linalg.eigvalsh((P + P.T) / 2) > 0):
            out.append(np.linalg.inv((P + P.T) / 2))
    except (np.linalg.LinAlgError, ValueError):
        pass
    out.append(to_float_matrix(exact_matrix(problem.cov0)))
    out += [c * np.eye(d) for c in (1.0, 2.0, 5.0, 10.0, 0.5, 0.1)]
    for _ in range(4):
        G = rng.standard_normal((d, d))
        out.append(G @ G.T / d + 0.1 * np.eye(d))
    return out


def equilibria_float(problem):
    """Distinct positive-definite zeros of F found by Newton–Krylov, in order of discovery."""
    A, heads, _ = numeric_params(problem.params, float)
    found = []
    for S0 in _starts(problem, A, heads, np.random.default_rng(20240601)):
        S = newton_krylov(A, heads, S0)
        if S is None or not np.all(np.linalg.eigvalsh(S) > 1e-10 * max(1, np.max(np.abs(S)))):
            continue
        if all(np.max(np.abs(S - T)) > 1e-7 * (1 + np.max(np.abs(T))) for T in found):
            found.append(S)
            yield S


def refine(problem, S: np.ndarray, digits: int):
    """An exact symmetric C near the zero of F close to S, with ‖F(C)‖ about 10^-digits·scale:
    exact residuals, float corrections (each step gains about 12 digits)."""
    A, heads, _ = numeric_params(problem.params, float)
    p = exact_params(problem.params)
    C = round_symmetric(S, 52)
    scale = (1 + float(np.max(np.abs(S)))) * (1 + float(np.max(np.abs(A))))
    for _ in range(digits // 10 + 3):
        F = to_float_matrix(residual_exact(p, C))
        if float(np.max(np.abs(F))) <= 10.0 ** (-digits - 3) * scale:
            break
        step = solve_linearised(A, heads, to_float_matrix(C), -F)
        if step is None:
            break
        C = C + round_symmetric(step, 52)
    return C


def rational_equilibrium(problem, C):
    """Σ* exactly, when C's entries rounded to denominators ≤ 10⁶ give F(Σ*) = 0 and Σ* ≻ 0."""
    d = C.nrows()
    rows = [[Fraction(int(C[i, j].p), int(C[i, j].q)).limit_denominator(MAX_DENOMINATOR)
             for j in range(d)] for i in range(d)]
    S = exact_matrix(rows)
    if any(x != 0 for x in residual_exact(exact_params(problem.params), S).entries()):
        return None
    return S if positive_definite(S)[0] else None


def _lyapunov_q(A, heads, Sf):
    """(m, rounded Q): the best margin found, for the rounded (dyadic) Q."""
    m, Q = max(((margin(A, heads, Sf, Q)[0], Q) for Q in q_candidates(A, heads, Sf)),
               key=lambda t: t[0])
    m, Q = improve_q(A, heads, Sf, Q, steps=30 if m <= 0 else 8)
    Qr = round_symmetric(Q, 40)
    return margin(A, heads, Sf, to_float_matrix(Qr))[0], Qr


def _enclosure_witness(problem, C, Qr, rate: Fraction, digits: int):
    """(radius, Q_range, head_bounds) for the enclosed kind (see the kernel's docstring)."""
    from scipy.linalg import eigh
    A, heads, _ = numeric_params(problem.params, float)
    Q = to_float_matrix(Qr)
    ev = np.linalg.eigvalsh(Q)
    lo, hi = rational_below(0.999 * ev[0]), rational_above(1.001 * ev[-1])
    bounds, q = [], Fraction(0)
    for V, B in heads:
        v = math.sqrt(max(eigh(V.T @ Q @ V, Q, eigvals_only=True)[-1], 0.0))
        b = math.sqrt(max(eigh(B.T @ np.linalg.solve(Q, B), Q, eigvals_only=True)[-1], 0.0))
        v, b = rational_above(1.001 * v + 1e-12), rational_above(1.001 * b + 1e-12)
        bounds += [v, b]
        q += v * b
    F = to_float_matrix(residual_exact(exact_params(problem.params), C))
    f = math.sqrt(max(float(np.trace(Q @ F @ Q @ F)), 0.0)) * 1.01
    rho = max(2.2 * f / float(rate), 10.0 ** (-digits - 5))
    radius = rational_above(rho / float(lo))
    return radius, [lo, hi], bounds


def _certify_at(problem, S: np.ndarray, digits: int) -> StabilityResult:
    A, heads, _ = numeric_params(problem.params, float)
    C = refine(problem, S, digits)
    exact = rational_equilibrium(problem, C)
    Sf = to_float_matrix(exact if exact is not None else C)
    m, Qr = _lyapunov_q(A, heads, Sf)
    if not m > 0:
        alpha = spectral_abscissa(A, heads, Sf)
        what = (f"it is unstable in floats (an eigenvalue with real part ≈ {alpha:.3g}; not "
                "proved: instability certificates are svec-sized, d ≤ 12)" if alpha > 0 else
                f"in floats every eigenvalue has real part ≤ {alpha:.3g}, but no Lyapunov "
                f"function tr(QΔQΔ) was found that proves it (best margin {m:.3g}); only a "
                "general svec certificate (d ≤ 12) could")
        return StabilityResult("undecided", f"the equilibrium near {_brief(Sf)}: {what}")
    rate = rational_below(0.9 * m)
    if exact is not None:
        cert = envelope("stable-equilibrium-structured", problem,
                        {"cov": mat_text(exact), "rate": text(rate)}, {"Q": mat_text(Qr)},
                        "rigorous", notes="Newton–Krylov (floats) + exact residual; Q by Lyapunov "
                                       "solves and margin ascent (floats); checked in ball "
                                       "arithmetic (Cholesky residual)")
        return checked(cert, "rigorous")
    radius, q_range, bounds = _enclosure_witness(problem, C, Qr, rate, digits)
    cert = envelope("stable-equilibrium-structured-enclosed", problem,
                    {"cov_center": mat_text(C), "cov_radius": text(radius), "rate": text(rate)},
                    {"Q": mat_text(Qr), "Q_range": [text(x) for x in q_range],
                     "head_bounds": [text(x) for x in bounds]}, "rigorous",
                    notes="Newton–Krylov (floats), refined with exact residuals; Newton–"
                          "Kantorovich in the Q-norm; checked in ball arithmetic")
    return checked(cert, "rigorous")


def _brief(S) -> str:
    return f"a d×d Σ with trace {float(np.trace(S)):.6g}"


def certify_structured(problem, digits: int = 30) -> StabilityResult:
    """Certify a positive-definite equilibrium with d×d witnesses (see the module docstring).

    Verified: the first equilibrium found (Newton–Krylov from several starts) whose certificate
    the kernel accepts; undecided otherwise, with the reasons (never refuted: instability is
    not certified on this route).
    """
    if problem.d > MAX_D:
        return StabilityResult("undecided", f"d = {problem.d}: certificates are checked for "
                                            f"d ≤ {MAX_D}")
    reasons = []
    for S in equilibria_float(problem):
        res = _certify_at(problem, S, digits)
        if res.status == "verified":
            return res
        reasons.append(res.reason)
    if not reasons:
        return StabilityResult("undecided", "no positive-definite equilibrium was found "
                                            "(Newton–Krylov from several starts; not a proof)")
    return StabilityResult("undecided", "; ".join(reasons))
