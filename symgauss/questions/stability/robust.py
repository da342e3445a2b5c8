"""Certificates for many linearisations at once: a common Lyapunov function (kind
``common-lyapunov``) and global convergence for a whole box of feed-forward matrices A (kind
``robust-global``), both found by an SDP (cvxpy + Clarabel) and checked exactly."""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from symgauss.kernel.errors import ProblemError
from symgauss.kernel.exact import ldl_positive_definite
from symgauss.kernel.numbers import parse_rational
from symgauss.kernel.read import mat_text, text
from symgauss.model.certificate import envelope
from symgauss.model.linearise import exact_params, quadratic_R_exact, to_float_matrix
from symgauss.questions.stability.witness import (
    _q,
    _rationals_to_fmpq_mat,
    common_lyapunov,
    rational_below,
)


def common_lyapunov_certificate(problem, matrices, rate) -> dict | None:
    """Kind ``common-lyapunov`` certificate for ``matrices`` (with ``problem`` as context)."""
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
