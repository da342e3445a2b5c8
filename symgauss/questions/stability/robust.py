"""Certificates for many linearisations at once: a common Lyapunov function (kind
``common-lyapunov``) and global convergence for a whole box of feed-forward matrices A (kind
``robust-global``), both found by an SDP (cvxpy + Clarabel) and checked exactly."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from symgauss.kernel.errors import ProblemError
from symgauss.kernel.exact import ldl_positive_definite
from symgauss.kernel.numbers import parse_rational
from symgauss.kernel.read import mat_text, text
from symgauss.model.certificate import envelope
from symgauss.model.linearise import exact_params, quadratic_R_exact, to_float_matrix
from symgauss.questions.stability.witness import _q, common_lyapunov, rational_below


def common_lyapunov_certificate(problem, rate=None) -> dict | None:
    """Kind ``common-lyapunov``: one P ≻ 0 with AᵀP + PA ≺ −2ρP for every parameter set of
    the problem (its constant parameters, or each piece of its ``controls``), found by an SDP
    (Clarabel) and checked exactly: tr(PΣ) decays under any switching among the sets (globally
    without attention, locally with it). ``rate`` ρ defaults to the best of g0, g0/2, g0/4 with g0
    the smallest decay rate of the sets' A. Returns None when no certificate is found.

    >>> import symgauss as sg
    >>> p = sg.Problem(cov0=[[1, 0], [0, 1]], controls=[
    ...     {"duration": 1, "A": [[-1, 1], [0, -1]]}, {"duration": 1, "A": [[-1, 0], [1, -1]]}])
    >>> c = common_lyapunov_certificate(p)
    >>> c["kind"], sg.check(c).status
    ('common-lyapunov', 'verified')
    """
    from symgauss.model.linearise import exact_matrix
    sets = [problem.params] if problem.is_time_invariant else [pc.params for pc in
                                                               problem.controls]
    mats = [exact_matrix(ps.A) for ps in sets]
    if rate is None:
        g0 = min(-float(np.linalg.eigvals(to_float_matrix(A)).real.max()) for A in mats)
        if not g0 > 0:
            return None
        rates = [rational_below(g0 / 2 ** k) for k in range(3)]
    else:
        rates = [Fraction(rate)]
    for g in rates:
        found = common_lyapunov(mats, g)
        if found is not None:
            return envelope("common-lyapunov", problem, {"rate": text(_q(g))},
                            {"P": mat_text(found[0])}, "exact",
                            notes="SDP search by cvxpy + Clarabel (margin maximised), rounded, "
                                  "exact check for every parameter set")
    return None


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
            claim = {"box": [{"entry": ["A", i, j], "from": text(lo), "to": text(hi)}
                             for i, j, lo, hi in sides],
                     "global_rate": text(_q(g))}
            return envelope("robust-global", problem, claim, {"Z": mat_text(found[0])}, "exact",
                            notes="SDP search by cvxpy + Clarabel over the box's vertices, "
                                  "rounded, exact check at every vertex")
    return None
