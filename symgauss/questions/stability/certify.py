"""Stability of equilibria, decided with evidence (untrusted search → trusted exact check).

:func:`certify` finds the positive-definite equilibrium (:mod:`symgauss.questions.equilibria`)
and decides its stability with a certificate (:mod:`.local`, witnesses from :mod:`.witness`) that
:mod:`symgauss.kernel.checker` re-checks; a rank-deficient cov0 is certified inside its invariant
range; :func:`opposite_sign_regime` is the paper's stabilising regime (V = vI, R ≺ 0).

>>> from symgauss import Problem
>>> p = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 3]], V=[[-1, 0], [0, -1]],
...             B=[[1, 0], [0, 1]])
>>> res = certify(p)
>>> res.status, res.level, res.certificate["claim"]["cov"]
('verified', 'exact', [['1', '0'], ['0', '3']])
>>> from symgauss.kernel.checker import check_certificate
>>> check_certificate(res.certificate).status
'verified'
"""
from __future__ import annotations

from symgauss.kernel.equations import hurwitz_det
from symgauss.kernel.errors import UnsupportedError
from symgauss.kernel.exact import ldl_positive_definite
from symgauss.kernel.kinds.stability import MAX_D_SVEC
from symgauss.kernel.read import mat_text
from symgauss.model.certificate import envelope
from symgauss.model.linearise import exact_matrix, exact_params, quadratic_R_exact
from symgauss.questions.stability.local import StabilityResult, checked


def certify(problem, digits: int = 30, *, structured: bool = False) -> StabilityResult:
    """Certify the positive-definite equilibrium of a time-invariant problem.

    For d > 12, or with ``structured=True``, the certificate has d×d witnesses
    (:mod:`symgauss.questions.stability.structured`); otherwise svec ones.

    Verified: a ``stable-equilibrium`` certificate (the kernel re-checked it). Refuted only with
    proof: the list of positive-definite equilibria is proved complete
    (:attr:`symgauss.questions.equilibria.result.EquilibriumSet.complete`) and none of them is
    locally exponentially stable (each proved unstable, or on a continuum, or none exists);
    the instability evidence certificate is attached when there is one. Undecided otherwise —
    e.g. after a Newton search, which is not exhaustive — saying what was found and tried.

    >>> import symgauss as sg
    >>> res = sg.certify(sg.example("stable_diag"))
    >>> res.status, res.level, res.certificate["kind"], sg.check(res.certificate).status
    ('verified', 'exact', 'stable-equilibrium', 'verified')
    """
    from symgauss.questions.equilibria.search import find_equilibria
    if not problem.is_time_invariant:
        raise UnsupportedError("certify: stability certificates need constant parameters; a "
                               "problem with 'controls' or a 'target' is a reachability question")
    if exact_params(problem.params).A.nrows() > exact_matrix(problem.cov0).rank():
        return _certify_in_range(problem, digits)
    if structured or problem.d > MAX_D_SVEC:  # svec certificates are checked for d ≤ 12
        from symgauss.questions.stability.structured import certify_structured
        return certify_structured(problem, digits)
    found = find_equilibria(problem, digits=digits)
    eqs = [e for e in found if e.rank == problem.d]
    results = [e.stability for e in eqs if e.stability is not None]
    for r in sorted(results, key=lambda r: r.certificate is None):
        if r.status == "verified":
            return r
    evidence = next((r for r in results if r.status == "refuted"), None)
    unstable = sum(1 for e in eqs if e.stability is not None and e.stability.status == "refuted")
    what = (f"{len(eqs)} positive-definite equilibri{'um' if len(eqs) == 1 else 'a'} found "
            f"({unstable} proved unstable), {len(found.families)} continu"
            f"{'um' if len(found.families) == 1 else 'a'}")
    if found.complete and unstable == len(eqs):
        if not eqs and not found.families:
            reason = f"no positive-definite equilibrium exists (proved: {found.method})"
        else:
            reason = (f"no locally exponentially stable positive-definite equilibrium exists "
                      f"(proved: the list is complete — {found.method}; {what}; points of a "
                      "continuum are not asymptotically stable)")
        if evidence is not None:
            return StabilityResult("refuted", f"{reason}; {evidence.reason}", evidence.level,
                                   evidence.certificate)
        return StabilityResult("refuted", reason, "exact")
    if found.complete:
        why = "the list is complete, but the stability of some equilibrium is undecided"
    else:
        why = "the search is not exhaustive, so another (stable) equilibrium may exist"
    return StabilityResult("undecided", f"{what}; {why} ({found.method})", None,
                           evidence.certificate if evidence is not None else None)


def _certify_in_range(problem, digits) -> StabilityResult:
    """Rank-deficient cov0: certify inside the invariant range W = range(cov0) (kind
    ``stable-equilibrium-in-range``), where the equilibrium is positive definite."""
    from symgauss.questions.equilibria.in_range import range_reduction
    reduction = range_reduction(problem)
    if reduction is None:
        return StabilityResult("undecided", "cov0 = 0: the covariance stays 0 for all time (rank "
                               "invariance); there is nothing to certify")
    U, sub = reduction
    r = U.ncols()
    res = certify(sub, digits)
    where = f"in the invariant range of cov0 (rank {r}, reduced {r}×{r} problem): "
    if res.status != "verified" or res.certificate is None:
        return StabilityResult(res.status, where + res.reason, res.level,
                               None)   # a certificate of the reduced problem is not one of this
    if res.certificate["kind"] != "stable-equilibrium":
        return StabilityResult("undecided", where + res.reason + " — proved for the reduced "
                               "problem (its certificate checks), but the kernel's "
                               "stable-equilibrium-in-range kind takes an exact reduced "
                               "equilibrium only, so no certificate of this problem is written",
                               None, None)
    claim = {k: v for k, v in res.certificate["claim"].items()
             if k not in ("mean", "mean_rate", "statement")}
    witness = {k: v for k, v in res.certificate["witness"].items() if k != "P_mean"}
    cert = envelope("stable-equilibrium-in-range", problem,
                    {"basis": mat_text(U), "reduced": claim}, witness, "exact",
                    notes="reduced to range(cov0) (exact), then as stable-equilibrium")
    return checked(cert, "exact")


# --- regimes of the paper ---------------------------------------------------------------------
def opposite_sign_regime(problem) -> StabilityResult:
    """V_h = v_h I, R ≺ 0: a stable positive-definite equilibrium ⇔ spec(A) ⊂ {Re > 0}.

    Verified (with a certificate incl. global convergence) when R ≺ 0 and every eigenvalue of A
    has positive real part; refuted when R ≺ 0 and A has an eigenvalue with Re ≤ 0 (Lyapunov's
    theorem: AᵀP + PA = −R ≻ 0 with P ≻ 0 forces Re λ(A) > 0; evidence: a Hurwitz determinant
    of charpoly(−A) ≤ 0); undecided otherwise (R not negative definite, V not a multiple of I).
    """
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


