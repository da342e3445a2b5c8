"""Local stability of one equilibrium, decided with a certificate the kernel re-checks.

Results are three-valued (:class:`StabilityResult`: ``verified`` / ``refuted`` / ``undecided``).
For V_h = v_h I, R ≺ 0 and spec(A) in the right half-plane the certificate adds global
convergence, with the Lyapunov function W = tr((Σ⁻¹ − P*) Z (Σ⁻¹ − P*) Z), Ẇ ≤ −4ρW,
AZ + ZAᵀ ⪰ 2ρZ.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint

from symgauss.kernel.checker import check_certificate
from symgauss.kernel.exact import ldl_positive_definite
from symgauss.kernel.read import mat_text, text, vec_text
from symgauss.model.certificate import envelope
from symgauss.model.linearise import (
    exact_params,
    linearisation_exact,
    quadratic_R_exact,
    structured_N,
)
from symgauss.questions.stability.witness import _q, instability_witness, lyapunov_witness


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
        return checked(cert, "exact")
    ev = instability_witness(L)
    if ev is not None:
        eps, P = ev
        cert = envelope("unstable-equilibrium", problem,
                        {"cov": mat_text(S), "growth": text(_q(eps))}, {"P": mat_text(P)},
                        "exact", notes="Lyapunov-equation solve (scipy) for L − εI, rounded; "
                                       "inertia argument checked exactly (LDLᵀ)")
        v = check_certificate(cert)
        if v.ok:
            return StabilityResult("refuted", f"unstable: {v.reason}", "exact", cert)
    return StabilityResult("undecided", "the linearisation is neither certified Hurwitz nor "
                           "certified to have an eigenvalue with positive real part (an "
                           "eigenvalue on or near the imaginary axis)", None, None)


def checked(cert, level) -> StabilityResult:
    v = check_certificate(cert)
    if not v.ok:  # the search produced something the checker rejects: say so, never claim
        return StabilityResult("undecided", f"the certificate found was rejected: {v.reason}")
    return StabilityResult("verified", v.reason, level, cert)


def stability_of_enclosure(problem, center: flint.fmpq_mat, radius: Fraction,
                           Y: flint.fmpq_mat) -> StabilityResult:
    """Stability of the unique equilibrium near ``center`` (level rigorous)."""
    L = linearisation_exact(problem.params, center)
    found = lyapunov_witness(L, rate_factor=2, fraction=0.8)
    if found is None:
        return StabilityResult("undecided", "no Lyapunov witness found at the enclosure centre")
    P, rate = found
    cert = envelope("stable-equilibrium-enclosed", problem,
                    {"cov_center": mat_text(center), "cov_radius": text(_q(radius)),
                     "rate": text(_q(rate))},
                    {"Y": mat_text(Y), "P": mat_text(P)}, "rigorous",
                    notes="Newton in svec coordinates at high precision; existence and "
                          "uniqueness by exact Newton–Kantorovich (radii polynomial) bounds; "
                          "Lyapunov solve with the enclosure margin; checked exactly")
    return checked(cert, "rigorous")
