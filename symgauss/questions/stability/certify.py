"""Stability of equilibria, decided with evidence (untrusted search → trusted exact check).

Every positive answer comes with a witness that :mod:`symgauss.checker` re-checks exactly:

- a Lyapunov-equation solve (Bartels–Stewart, scipy) for the shifted operator L + ρI, rounded to
  dyadic rationals — the fast route; the exact LDLᵀ check then has margin ≈ I;
- an SDP (cvxpy, ``solver=cp.CLARABEL`` named explicitly, maximising the margin) where a search is
  really needed: a common Lyapunov function for several matrices (robust / switched certificates);
- instability evidence: ε > 0 and an index k whose Hurwitz determinant of charpoly(L − εI) is ≤ 0
  (so L has an eigenvalue with Re ≥ ε), exact;
- for V_h = v_h I, R ≺ 0 and spec(A) in the right half-plane: global convergence, with the Lyapunov
  function W = tr((Σ⁻¹ − P*) Z (Σ⁻¹ − P*) Z), Ẇ ≤ −4ρW, AZ + ZAᵀ ⪰ 2ρZ.

Results are three-valued (:class:`StabilityResult`: ``verified`` / ``refuted`` / ``undecided``).

>>> from symgauss import Problem
>>> p = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 3]], V=[[-1, 0], [0, -1]],
...             B=[[1, 0], [0, 1]])
>>> res = certify(p)
>>> res.status, res.level, res.certificate["claim"]["cov"]
('verified', 'exact', [['1', '0'], ['0', '3']])
>>> from symgauss.checker import check_certificate
>>> check_certificate(res.certificate).status
'verified'
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from .checker import check_certificate
from .checker.common import mat_text, text, vec_text
from .checker.stability import _decay, _Refuted, hurwitz_det
from .errors import ProblemError, UnsupportedError
from .linearise import (exact_matrix, exact_params, linearisation_exact, quadratic_R_exact,
                        structured_N, to_float_matrix)


@dataclass(frozen=True)
class StabilityResult:
    """A three-valued answer with its evidence.

    ``certificate``: the stability certificate (verified) or the instability evidence (refuted,
    kind ``unstable-equilibrium``); ``None`` when undecided.
    """
    status: str            # "verified" | "refuted" | "undecided"
    reason: str
    level: str | None = None
    certificate: dict | None = None


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


def lyapunov_witness(L: flint.fmpq_mat, rate_factor: int = 1, fraction: float = 0.9):
    """(P, ρ) with P ≻ 0 and −(LᵀP + PL) − rate_factor·ρ·P ≻ 0 checked exactly, or None.

    ``rate_factor`` is 2 for the convention of the svec operator (decay rate ρ of L itself) and 1
    for the structured d×d matrix N (where the operator Δ ↦ NΔ + ΔNᵀ then decays at rate ρ).
    Search: ρ₀ = fraction · (−max Re λ(L)), solve (L + ρ₀I)ᵀP + P(L + ρ₀I) = −I (scipy), round.
    """
    from scipy.linalg import solve_continuous_lyapunov
    Lf = to_float_matrix(L)
    n = Lf.shape[0]
    alpha = -spectral_abscissa(Lf)
    if not alpha > 0:
        return None
    for frac, bits in ((fraction, 40), (fraction / 2, 52), (fraction / 4, 80)):
        rho0 = rational_below(frac * alpha)
        a = Lf + float(rho0) * np.eye(n)
        P = solve_continuous_lyapunov(a.T, -np.eye(n))
        Pq = round_symmetric(P, bits)
        rate = 2 * rho0 / rate_factor  # −(LᵀP + PL) − 2ρ₀P ≈ I
        try:
            _decay(L, Pq, _q(2 * rho0), "L")
        except _Refuted:
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
            _decay(L, Pq, _q(2 * rate), "L")
    except _Refuted:
        return None
    return Pq, float(t.value)


def common_lyapunov_certificate(problem, matrices, rate) -> dict | None:
    """Kind ``common-lyapunov`` certificate for ``matrices`` (with ``problem`` as context)."""
    from .certificate import envelope
    found = common_lyapunov(matrices, rate)
    if found is None:
        return None
    mats = [m if isinstance(m, flint.fmpq_mat) else _rationals_to_fmpq_mat(m) for m in matrices]
    return envelope("common-lyapunov", problem,
                    {"matrices": [mat_text(M) for M in mats], "rate": text(_q(Fraction(rate)))},
                    {"P": mat_text(found[0])}, "exact",
                    notes="SDP search by cvxpy + Clarabel (margin maximised), rounded, exact check")


def robust_global_certificate(problem, box, rate=None) -> dict | None:
    """Kind ``robust-global``: global convergence for every A in a box of its entries.

    ``box`` is a list of ``{"entry": ["A", i, j], "from": lo, "to": hi}`` (exact numbers). With
    every V_h = v_h I and R ≺ 0 (fixed), a common Z ≻ 0 with AZ + ZAᵀ − 2gZ ≻ 0 at every vertex
    (an SDP solved by Clarabel, rounded, checked exactly) certifies the whole box, since the LMI
    is affine in A. ``rate`` g defaults to the best of g0, g0/2, g0/4 with g0 half the smallest
    real part of the vertices' spectra. Returns None when no certificate is found.

    >>> from symgauss import Problem
    >>> p = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 3]], V=[[-1, 0], [0, -1]],
    ...             B=[[1, 0], [0, 1]])
    >>> c = robust_global_certificate(p, [{"entry": ["A", 0, 1], "from": "-1/2", "to": "1/2"}])
    >>> c["kind"], len(c["claim"]["box"])
    ('robust-global', 1)
    """
    from .certificate import envelope
    from .checker.common import ldl_positive_definite
    from .numbers import parse_rational
    R = quadratic_R_exact(problem.params)
    if R is None or not ldl_positive_definite(-R)[0]:
        return None
    A = exact_params(problem.params).A
    sides = []
    d = problem.d
    for k, e in enumerate(box):
        i, j = e["entry"][1], e["entry"][2]
        if not (0 <= i < d and 0 <= j < d):
            raise ProblemError(f"box[{k}].entry = A[{i}][{j}] is outside the {d}×{d} matrix A")
        lo, hi = (parse_rational(e[key], f"box[{k}].{key}") for key in ("from", "to"))
        sides.append((i, j, _q(lo), _q(hi)))
    vertices = []
    for mask in range(2 ** len(sides)):
        V = A * 1
        for bit, (i, j, lo, hi) in enumerate(sides):
            V[i, j] = hi if mask >> bit & 1 else lo
        vertices.append(-V.transpose())
    if rate is None:
        g0 = min(float(np.linalg.eigvals(-to_float_matrix(L)).real.min()) for L in vertices) / 2
        if g0 <= 0:
            return None
        rates = [rational_below(g0 / 2 ** k) for k in range(3)]
    else:
        rates = [Fraction(rate)]
    for g in rates:
        found = common_lyapunov(vertices, g)
        if found is not None:
            claim = {"statement": "for every A in the box (other parameters fixed), every "
                                  "Σ0 ≻ 0 converges to the unique Σ*(A) ≻ 0 at rate ≥ 2g",
                     "box": [{"entry": ["A", i, j], "from": text(lo), "to": text(hi)}
                             for i, j, lo, hi in sides],
                     "global_rate": text(_q(g))}
            return envelope("robust-global", problem, claim, {"Z": mat_text(found[0])}, "exact",
                            notes="SDP search by cvxpy + Clarabel over the box's vertices, "
                                  "rounded, exact check at every vertex")
    return None


# --- certificates for an equilibrium ----------------------------------------------------------
def _claim_rate_and_witness(params, S, L):
    """Stability witness at an exact Σ*: structured d×d path when V_h = v_h I, else svec."""
    N = structured_N(params, S)
    if N is not None:
        found = lyapunov_witness(N, rate_factor=1)
        if found is not None:
            Q, rate = found
            return rate, {"Q": mat_text(Q)}
    found = lyapunov_witness(L, rate_factor=2)
    if found is None:
        return None
    P, rate = found
    return rate, {"P": mat_text(P)}


def _mean_part(params, S):
    """Claim/witness entries for the coupled mean: m* = −M⁻¹b, M = A + Σ_h(V_h + V_hΣ*B_h)."""
    p = exact_params(params)
    M = p.A
    for V, B in p.heads:
        M = M + V + V * S * B
    try:
        m = -(M.solve(p.b))
    except ZeroDivisionError:
        return {}, {}
    found = lyapunov_witness(M, rate_factor=2)
    if found is None:
        return {}, {}
    Pm, rate = found
    return {"mean": vec_text(m), "mean_rate": text(_q(rate))}, {"P_mean": mat_text(Pm)}


def _global_part(params):
    """Global convergence (V_h = v_h I, R ≺ 0, spec A in Re > 0): claim/witness entries."""
    from .checker.common import ldl_positive_definite
    R = quadratic_R_exact(params)
    if R is None or not ldl_positive_definite(-R)[0]:
        return {}, {}
    found = lyapunov_witness(-exact_params(params).A.transpose(), rate_factor=2)
    if found is None:
        return {}, {}
    Z, g = found
    return {"global_rate": text(_q(g))}, {"Z": mat_text(Z)}


def stability_of_exact(problem, S: flint.fmpq_mat, *, extras: bool = True) -> StabilityResult:
    """Decide the stability of the exact positive-definite equilibrium Σ* = S, with evidence."""
    from .certificate import envelope
    params = problem.params
    L = linearisation_exact(params, S)
    found = _claim_rate_and_witness(params, S, L)
    if found is not None:
        rate, witness = found
        claim = {"cov": mat_text(S), "rate": text(_q(rate))}
        if extras:
            for c, w in (_mean_part(params, S), _global_part(params)):
                claim.update(c)
                witness.update(w)
        cert = envelope("stable-equilibrium", problem, claim, witness, "exact",
                        notes="Lyapunov-equation solve (scipy), rounded to rationals, checked "
                              "exactly (LDLᵀ)")
        return _checked(cert, "exact")
    ev = instability_evidence(L)
    if ev is not None:
        eps, k = ev
        cert = envelope("unstable-equilibrium", problem,
                        {"cov": mat_text(S), "growth": text(_q(eps))}, {"hurwitz_index": k},
                        "exact", notes="exact characteristic polynomial, Routh–Hurwitz")
        v = check_certificate(cert)
        if v.ok:
            return StabilityResult("refuted", f"unstable: {v.reason}", "exact", cert)
    return StabilityResult("undecided", "the linearisation is neither certified Hurwitz nor "
                           "certified to have an eigenvalue with positive real part (an "
                           "eigenvalue on or near the imaginary axis)", None, None)


def _checked(cert, level) -> StabilityResult:
    v = check_certificate(cert)
    if not v.ok:  # the search produced something the checker rejects: say so, never claim
        return StabilityResult("undecided", f"the certificate found was rejected: {v.reason}")
    return StabilityResult("verified", v.reason, level, cert)


def stability_of_enclosure(problem, center: flint.fmpq_mat, radius: Fraction,
                           Y: flint.fmpq_mat) -> StabilityResult:
    """Stability of the unique equilibrium near ``center`` (level rigorous)."""
    from .certificate import envelope
    L = linearisation_exact(problem.params, center)
    found = lyapunov_witness(L, rate_factor=2, fraction=0.8)
    if found is None:
        return StabilityResult("undecided", "no Lyapunov witness found at the enclosure centre")
    P, rate = found
    cert = envelope("stable-equilibrium", problem,
                    {"cov_center": mat_text(center), "cov_radius": text(_q(radius)),
                     "rate": text(_q(rate))},
                    {"Y": mat_text(Y), "P": mat_text(P)}, "rigorous",
                    notes="Newton in svec coordinates at high precision; existence and "
                          "uniqueness by exact Newton–Kantorovich (radii polynomial) bounds; "
                          "Lyapunov solve with the enclosure margin; checked exactly")
    return _checked(cert, "rigorous")


def certify(problem, digits: int = 30) -> StabilityResult:
    """Certify the positive-definite equilibrium of a time-invariant problem.

    Verified: a ``stable-equilibrium`` certificate. Refuted: no positive-definite equilibrium,
    or the one(s) found are unstable (the evidence certificate is attached). Undecided otherwise.
    """
    from .equilibria import find_equilibria
    if not problem.is_time_invariant:
        raise UnsupportedError("certify: stability certificates need constant parameters; a "
                               "problem with 'controls' or a 'target' is a reachability question")
    if exact_params(problem.params).A.nrows() > exact_matrix(problem.cov0).rank():
        return _certify_in_range(problem, digits)
    eqs = [e for e in find_equilibria(problem, digits=digits) if e.rank == problem.d]
    if not eqs:
        R = quadratic_R_exact(problem.params)
        proved = R is not None and exact_lyapunov_solvable(problem)
        return StabilityResult("refuted" if proved else "undecided",
                               "no positive-definite equilibrium " + (
            "exists (proved: the unique solution P of AᵀP + PA = −R is not positive definite, "
            "and every Σ* ≻ 0 would give P = Σ*⁻¹)" if proved else
            "was found (numerical Newton search from several starts; not a proof)"),
            "exact" if proved else None)
    results = [e.stability for e in eqs if e.stability is not None]
    for r in results:
        if r.status == "verified":
            return r
    for r in results:
        if r.status == "refuted":
            return r
    return results[0] if results else StabilityResult(
        "undecided", "equilibria found only at high precision, without an existence proof")


def _certify_in_range(problem, digits) -> StabilityResult:
    """Rank-deficient cov0: certify inside the invariant range W = range(cov0) (kind
    ``stable-equilibrium-in-range``), where the equilibrium is positive definite."""
    from .certificate import envelope
    from .equilibria import range_reduction
    reduction = range_reduction(problem)
    if reduction is None:
        return StabilityResult("undecided", "cov0 = 0: the covariance stays 0 for all time (rank "
                               "invariance); there is nothing to certify")
    U, sub = reduction
    r = U.ncols()
    res = certify(sub, digits)
    where = f"in the invariant range of cov0 (rank {r}, reduced {r}×{r} problem): "
    if res.status != "verified" or res.certificate["kind"] != "stable-equilibrium" or \
            "cov" not in res.certificate["claim"]:
        return StabilityResult(res.status, where + res.reason, res.level, res.certificate)
    claim = {k: v for k, v in res.certificate["claim"].items() if k not in ("mean", "mean_rate")}
    witness = {k: v for k, v in res.certificate["witness"].items() if k != "P_mean"}
    cert = envelope("stable-equilibrium-in-range", problem,
                    {"statement": "Σ* = U S* Uᵀ is an equilibrium of rank r, locally "
                                  "exponentially stable within {U S Uᵀ : S ≻ 0}, which holds "
                                  "every Σ(t) from cov0",
                     "basis": mat_text(U), "reduced": claim}, witness, "exact",
                    notes="reduced to range(cov0) (exact), then as stable-equilibrium")
    return _checked(cert, "exact")


def exact_lyapunov_solvable(problem) -> bool:
    """True when P ↦ AᵀP + PA is invertible (so V_h = v_h I equilibria are decided exactly)."""
    from .equilibria import lyapunov_exact
    p = exact_params(problem.params)
    return lyapunov_exact(p.A, p.A * 0) is not None


# --- regimes of the paper ---------------------------------------------------------------------
def opposite_sign_regime(problem) -> StabilityResult:
    """V_h = v_h I, R ≺ 0: a stable positive-definite equilibrium ⇔ spec(A) ⊂ {Re > 0}.

    Verified (with a certificate incl. global convergence) when R ≺ 0 and every eigenvalue of A
    has positive real part; refuted when R ≺ 0 and A has an eigenvalue with Re ≤ 0 (Lyapunov's
    theorem: AᵀP + PA = −R ≻ 0 with P ≻ 0 forces Re λ(A) > 0; evidence: a Hurwitz determinant
    of charpoly(−A) ≤ 0); undecided otherwise (R not negative definite, V not a multiple of I).
    """
    from .checker.common import ldl_positive_definite
    if not problem.is_time_invariant:
        raise UnsupportedError("opposite_sign_regime needs constant parameters")
    R = quadratic_R_exact(problem.params)
    if R is None:
        return StabilityResult("undecided", "some V_h is not a multiple of I: the regime "
                               "statement does not apply")
    if not ldl_positive_definite(-R)[0]:
        return StabilityResult("undecided", "R = Σ v_h(B_h + B_hᵀ) is not negative definite "
                               "(not the opposite-sign regime)")
    A = exact_params(problem.params).A
    d = A.nrows()
    for k in range(1, d + 1):
        if hurwitz_det(-A, k) <= 0:
            return StabilityResult("refuted", f"R ≺ 0 but A has an eigenvalue with Re ≤ 0 "
                                   f"(Hurwitz determinant {k} of charpoly(−A) ≤ 0): no positive-"
                                   "definite equilibrium exists", "exact")
    res = certify(problem)
    if res.status == "verified" and "global_rate" in res.certificate["claim"]:
        return res
    if res.status == "verified":
        return StabilityResult("verified", res.reason + " (global part not certified)",
                               res.level, res.certificate)
    return res


def require_stable(problem) -> dict:
    """The stability certificate, or a :class:`ProblemError` naming the reason."""
    res = certify(problem)
    if res.status != "verified":
        raise ProblemError(f"no stability certificate: {res.reason}")
    return res.certificate
