"""Witness search for stability claims (untrusted: the kernel re-checks every witness).

- a Lyapunov-equation solve (Bartels–Stewart, scipy) for the shifted operator L + ρI, rounded to
  dyadic rationals — the fast route; the exact LDLᵀ check then has margin ≈ I;
- an SDP (cvxpy, ``solver=cp.CLARABEL`` named explicitly, maximising the margin) where a search is
  really needed: a common Lyapunov function for several matrices (robust / switched certificates);
- instability evidence: ε > 0 and an index k whose Hurwitz determinant of charpoly(L − εI) is ≤ 0
  (so L has an eigenvalue with Re ≥ ε), exact.
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np

from symgauss.kernel.equations import hurwitz_det
from symgauss.kernel.exact import ldl_positive_definite, require_decay
from symgauss.kernel.verdict import NotProved, Refuted
from symgauss.model.linearise import to_float_matrix


# --- rational rounding ------------------------------------------------------------------------
def rational_below(x: float, digits: int = 4) -> Fraction:
    """A short decimal rational in (0, x] (x > 0), ``digits`` significant digits."""
    e = digits - 1 - math.floor(math.log10(x))
    f = Fraction(math.floor(x * 10.0 ** e)) / Fraction(10) ** e
    return f if 0 < f <= x else Fraction(x)


def round_symmetric(X: np.ndarray, bits: int = 40) -> flint.fmpq_mat:
    """Dyadic rational rounding of (X + Xᵀ)/2 with ``bits`` bits relative to max |X|."""
    X = (np.asarray(X, dtype=float) + np.asarray(X, dtype=float).T) / 2
    scale = max(float(np.max(np.abs(X))), 1e-300)
    e = bits - math.frexp(scale)[1]
    n = X.shape[0]
    den = flint.fmpz(2) ** e if e >= 0 else None
    vals = []
    for x in X.ravel():
        k = int(round(math.ldexp(float(x), e)))
        vals.append(flint.fmpq(k, den) if den is not None else flint.fmpq(k * 2 ** (-e)))
    return flint.fmpq_mat(n, n, vals)


def _q(f: Fraction) -> flint.fmpq:
    return flint.fmpq(f.numerator, f.denominator)


def _rationals_to_fmpq_mat(rows) -> flint.fmpq_mat:
    return flint.fmpq_mat(len(rows), len(rows[0]), [_q(Fraction(x)) for r in rows for x in r])


# --- witnesses --------------------------------------------------------------------------------
def spectral_abscissa(L: np.ndarray) -> float:
    return float(np.max(np.linalg.eigvals(L).real))


def lyapunov_candidates(L: flint.fmpq_mat, rate_factor: int = 1, fraction: float = 0.9):
    """Candidate witnesses (P, ρ), unchecked: ρ₀ = fraction · (−max Re λ(L)), P from
    (L + ρ₀I)ᵀP + P(L + ρ₀I) = −I (scipy) rounded to dyadics — with few bits first (the exact
    check's cost grows fast with the size of P's entries), then more, then smaller ρ₀."""
    from scipy.linalg import solve_continuous_lyapunov
    Lf = to_float_matrix(L)
    n = Lf.shape[0]
    alpha = -spectral_abscissa(Lf)
    if not alpha > 0:
        return
    P, last = None, None
    for frac, bits in ((fraction, 12), (fraction, 24), (fraction, 40), (fraction / 2, 52),
                       (fraction / 4, 80)):
        rho0 = rational_below(frac * alpha)
        if rho0 != last:
            a = Lf + float(rho0) * np.eye(n)
            P, last = solve_continuous_lyapunov(a.T, -np.eye(n)), rho0
        yield round_symmetric(P, bits), 2 * rho0 / rate_factor   # −(LᵀP + PL) − 2ρ₀P ≈ I


def lyapunov_witness(L: flint.fmpq_mat, rate_factor: int = 1, fraction: float = 0.9):
    """(P, ρ) with P ≻ 0 and −(LᵀP + PL) − rate_factor·ρ·P ≻ 0 checked exactly, or None.

    ``rate_factor`` is 2 for the convention of the svec operator (decay rate ρ of L itself) and 1
    for the structured d×d matrix N (where the operator Δ ↦ NΔ + ΔNᵀ then decays at rate ρ).
    Candidates from :func:`lyapunov_candidates`.
    """
    for Pq, rate in lyapunov_candidates(L, rate_factor, fraction):
        try:
            require_decay(L, Pq, _q(rate * rate_factor), "L")
        except (NotProved, Refuted):
            continue
        return Pq, rate
    return None


def instability_evidence(L: flint.fmpq_mat):
    """(ε, k): the k-th Hurwitz determinant of charpoly(L − εI) is ≤ 0, so L has an eigenvalue
    with Re ≥ ε > 0 (exact); or None when no eigenvalue has a clearly positive real part."""
    mu = spectral_abscissa(to_float_matrix(L))
    if not mu > 0:
        return None
    n = L.nrows()
    eye = flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
    for frac in (0.5, 0.1, 0.01):
        eps = rational_below(frac * mu)
        M = L - eye * _q(eps)
        for k in range(1, n + 1):
            if hurwitz_det(M, k) <= 0:
                return eps, k
    return None


def instability_witness(L: flint.fmpq_mat):
    """(ε, P): (L − εI)ᵀP + P(L − εI) ≻ 0 with P not negative definite, checked exactly — so L
    has an eigenvalue with Re > ε > 0 (the kernel's ``unstable-equilibrium`` witness); or None.

    Search: ε = a fraction of the spectral abscissa, P from the Lyapunov equation
    (L − εI)ᵀP + P(L − εI) = I (scipy), rounded to dyadic rationals.
    """
    from scipy.linalg import solve_continuous_lyapunov
    mu = spectral_abscissa(to_float_matrix(L))
    if not mu > 0:
        return None
    n = L.nrows()
    eye = flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
    for frac in (0.5, 0.1, 0.01):
        eps = rational_below(frac * mu)
        M = L - eye * _q(eps)
        Mf = to_float_matrix(M)
        try:
            P = solve_continuous_lyapunov(Mf.T, np.eye(n))
        except (np.linalg.LinAlgError, ValueError):
            continue
        if not np.all(np.isfinite(P)):
            continue
        for bits in (40, 60):
            Pq = round_symmetric(P, bits)
            if ldl_positive_definite(M.transpose() * Pq + Pq * M)[0] and \
                    not ldl_positive_definite(-Pq)[0]:
                return eps, Pq
    return None


def common_lyapunov(matrices, rate, *, cap: float = 1e4):
    """A common Lyapunov matrix for several square matrices by SDP (Clarabel), or None.

    Maximises t subject to I ⪯ P ⪯ cap·I and −(LᵢᵀP + PLᵢ) − 2ρP ⪰ tI for every i, rounds P
    to rationals and checks each inequality exactly. The LMIs are affine in Lᵢ, so the result
    holds on the whole convex hull of the matrices (robust certificate for a polytope of
    linearisations) and for arbitrary switching among them. Returns (P, t) or None.
    """
    import cvxpy as cp
    mats = [m if isinstance(m, flint.fmpq_mat) else _rationals_to_fmpq_mat(m) for m in matrices]
    m = mats[0].nrows()
    rate = Fraction(rate)
    P = cp.Variable((m, m), symmetric=True)
    t = cp.Variable()
    eye = np.eye(m)
    cons = [P >> eye, P << cap * eye]
    for L in mats:
        Lf = to_float_matrix(L)
        cons.append(-(Lf.T @ P + P @ Lf) - 2 * float(rate) * P >> t * eye)
    prob = cp.Problem(cp.Maximize(t), cons)
    try:
        prob.solve(solver=cp.CLARABEL)
    except cp.error.SolverError:
        return None
    if P.value is None or t.value is None or not t.value > 0:
        return None
    Pq = round_symmetric(P.value, 40)
    try:
        for L in mats:
            require_decay(L, Pq, _q(2 * rate), "L")
    except (NotProved, Refuted):
        return None
    return Pq, float(t.value)
