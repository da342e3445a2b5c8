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
from symgauss.questions.stability.witness import (
    _q,
    instability_witness,
    lyapunov_candidates,
    lyapunov_witness,
)


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
    """Stability witness candidates at an exact Σ*: the structured d×d one when V_h = v_h I
    (checked here, cheap), else up to three svec ones, left to the kernel's single check."""
    N = structured_N(params, S)
    if N is not None:
        found = lyapunov_witness(N, rate_factor=1)
        if found is not None:
            Q, rate = found
            yield rate, {"Q": mat_text(Q)}
            return
    for k, (P, rate) in enumerate(lyapunov_candidates(L, rate_factor=2)):
        if k == 3:
            return
        yield rate, {"P": mat_text(P)}


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


def certifiable(kind: str, d: int) -> bool:
    """Whether the kernel checks certificates of ``kind`` at dimension d (its size limits)."""
    from symgauss.kernel.kinds.stability import SCHEMAS
    limit = SCHEMAS[kind].limits.get("d")
    return limit is None or d <= limit


def _uncertified(how: str, status: str, level: str) -> StabilityResult:
    return StabilityResult(status, f"{how} — decided with the kernel's exact functions, but no "
                           "certificate: the kernel checks this kind only up to its size limit",
                           level, None)


def stability_of_exact(problem, S: flint.fmpq_mat, *, extras: bool = True) -> StabilityResult:
    """Decide the stability of the exact positive-definite equilibrium Σ* = S, with evidence
    (a certificate the kernel accepted, or — beyond the kernel's size limit — the same exact
    check without a certificate)."""
    params = problem.params
    L = linearisation_exact(params, S)
    if not certifiable("stable-equilibrium", S.nrows()):
        N = structured_N(params, S)
        if (N is not None and lyapunov_witness(N, rate_factor=1) is not None) or \
                lyapunov_witness(L, rate_factor=2) is not None:
            return _uncertified("locally exponentially stable (a Lyapunov witness, exact LDLᵀ)",
                                "verified", "exact")
        if instability_witness(L) is not None:
            return _uncertified("unstable (an inertia witness for L − εI, exact LDLᵀ)",
                                "refuted", "exact")
        return StabilityResult("undecided", "no stability or instability witness found")
    extra = None
    for rate, witness in _claim_rate_and_witness(params, S, L):
        claim = {"cov": mat_text(S), "rate": text(_q(rate))}
        if extras:
            extra = extra or (_mean_part(params, S), _global_part(params))
            for c, w in extra:
                claim.update(c)
                witness.update(w)
        cert = envelope("stable-equilibrium", problem, claim, witness, "exact",
                        notes="Lyapunov-equation solve (scipy), rounded to rationals, checked "
                              "exactly (LDLᵀ)")
        res = checked(cert, "exact")
        if res.status == "verified":
            return res
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
                           Y: flint.fmpq_mat, L: flint.fmpq_mat | None = None,
                           spread=None) -> StabilityResult:
    """Stability of the unique equilibrium Σ* within ``radius`` of ``center`` (level rigorous).

    Stable: a ``stable-equilibrium-enclosed`` certificate (witness candidates from
    :func:`symgauss.questions.stability.witness.lyapunov_candidates`, each sent straight to the
    kernel, which checks the enclosure and the decay with the margin for the ball). Unstable
    (no certificate kind; decided exactly here): a symmetric P with LᵀP + PL − s·I ≻ 0 at the
    centre, s covering |L(Σ*) − L(C)| ≤ ``spread`` entrywise, and xᵀPx > 0 for some x; then
    LᵀP + PL ≻ 0 at Σ* and, by the Ostrowski–Schneider inertia theorem, L(Σ*) has as many
    eigenvalues with Re > 0 as P has positive ones — at least one.
    """
    if L is None:
        L = linearisation_exact(problem.params, center)
    if not certifiable("stable-equilibrium-enclosed", center.nrows()) and spread is not None:
        from symgauss.kernel.exact import norm_inf, require_decay
        from symgauss.kernel.verdict import NotProved, Refuted
        for P, rate in lyapunov_candidates(L, rate_factor=2, fraction=0.8):
            try:   # the kernel's own check, with its margin for the ball
                require_decay(L, P, _q(2 * rate), "L", 2 * norm_inf(P) * L.nrows() *
                              _q(Fraction(spread)))
            except (NotProved, Refuted):
                continue
            return _uncertified("locally exponentially stable (a Lyapunov witness with the "
                                "margin for the enclosure, exact LDLᵀ)", "verified", "rigorous")
    for k, (P, rate) in enumerate(lyapunov_candidates(L, rate_factor=2, fraction=0.8)):
        if not certifiable("stable-equilibrium-enclosed", center.nrows()):
            break
        cert = envelope("stable-equilibrium-enclosed", problem,
                        {"cov_center": mat_text(center), "cov_radius": text(_q(radius)),
                         "rate": text(_q(rate))},
                        {"Y": mat_text(Y), "P": mat_text(P)}, "rigorous",
                        notes="float Newton, exact-residual refinement; existence and "
                              "uniqueness by exact Newton–Kantorovich (radii polynomial) bounds; "
                              "Lyapunov solve with the enclosure margin; checked exactly")
        res = checked(cert, "rigorous")
        if res.status == "verified" or k >= 2:
            return res
    if spread is not None:
        found = instability_of_ball(L, spread)
        if found is not None:
            return StabilityResult("refuted", found, "rigorous")
    return StabilityResult("undecided", "no Lyapunov witness found at the enclosure centre, "
                           "and no instability proof (an eigenvalue on or near the imaginary "
                           "axis?)")


def instability_of_ball(L: flint.fmpq_mat, spread) -> str | None:
    """A proof that every matrix within ``spread`` (entrywise) of L has an eigenvalue with
    positive real part (see :func:`stability_of_enclosure`), as text; or None."""
    import numpy as np
    from scipy.linalg import solve_continuous_lyapunov

    from symgauss.kernel.exact import eye, norm_inf, positive_definite
    from symgauss.model.linearise import to_float_matrix
    from symgauss.questions.stability.witness import round_symmetric
    Lf = to_float_matrix(L)
    ev = np.linalg.eigvals(Lf)
    if not np.max(ev.real) > 0:
        return None
    n = Lf.shape[0]
    Pf = solve_continuous_lyapunov(Lf.T, np.eye(n))      # LᵀP + PL = I
    w, U = np.linalg.eigh((Pf + Pf.T) / 2)
    for bits in (24, 40, 64):
        P = round_symmetric(Pf, bits)
        x = flint.fmpq_mat(n, 1, [_q(Fraction(float(v)).limit_denominator(10 ** 6))
                                  for v in U[:, -1]])
        if not (x.transpose() * P * x)[0, 0] > 0:
            continue
        s = 2 * norm_inf(P) * n * _q(Fraction(spread))
        if positive_definite(L.transpose() * P + P * L - eye(n) * s)[0] is True:
            return ("unstable: a symmetric P with LᵀP + PL ≻ 0 on the whole enclosure (exact "
                    "LDLᵀ with the margin for the ball) and xᵀPx > 0: by the inertia theorem "
                    "the linearisation at Σ* has an eigenvalue with positive real part")
    return None
