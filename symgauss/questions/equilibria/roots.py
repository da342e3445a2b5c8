"""The float equilibrium search as a whole: Newton from many starts (:mod:`.newton`), then
homotopies (:mod:`.homotopy`), each root classified (isolated, or on a continuum). Untrusted:
:mod:`.refine` proves or labels what is found."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from symgauss.questions.equilibria.homotopy import newton_homotopy, total_degree
from symgauss.questions.equilibria.newton import FloatSystem, newton, starts


@dataclass(frozen=True)
class FloatRoot:
    """A real root of F found in floats: ``S`` (d×d); ``continuum`` when the Jacobian there is
    numerically singular (σ_min/σ_max < 1e-10) and Newton from points displaced along its null
    direction lands on other roots (evidence of a continuum)."""
    S: np.ndarray
    continuum: bool = False


def _budget(n: int) -> tuple:
    """(random starts, deflation passes per start, Newton-homotopy paths) for svec size n."""
    if n <= 21:      # d ≤ 6
        return 6, 2, 2
    if n <= 55:      # d ≤ 10
        return 4, 2, 0
    return 2, 2, 0


def _same(x, roots, tol=1e-8):
    return any(np.max(np.abs(x - r)) <= tol * (1 + np.max(np.abs(r))) for r in roots)


def _classify(fs: FloatSystem, x) -> FloatRoot:
    from scipy.linalg import svd
    J = fs.J(x)
    S = fs.smat(x)
    if not np.all(np.linalg.eigvalsh(S) > 1e-10 * max(1.0, float(np.max(np.abs(S))))):
        return FloatRoot(S)       # not positive definite: not reported, no need to classify
    sv = svd(J, compute_uv=False, check_finite=False)
    if sv[-1] > 1e-10 * max(sv[0], 1e-300):
        return FloatRoot(S)
    v = svd(J, check_finite=False)[2][-1]
    h = 1e-3 * (1 + np.max(np.abs(x)))
    moved = 0
    for sign in (1, -1):
        y = newton(fs, x + sign * h * v, (), 30, lstsq=True)
        if y is not None and np.max(np.abs(y - x)) > 0.1 * h:
            moved += 1
    return FloatRoot(S, moved == 2)


def float_roots(problem, *, seed: int = 20240601) -> tuple:
    """(roots, method): every real root found (Σ = 0 excluded) as :class:`FloatRoot`, and a
    sentence saying what was tried. Not exhaustive: a proposal only."""
    fs = FloatSystem.of(problem)
    rng = np.random.default_rng(seed)
    nrand, passes, paths = _budget(fs.n)
    roots = [np.zeros(fs.n)]

    def add(x):
        if x is None:
            return False
        y = newton(fs, x, (), 6)   # polish without deflation
        x = x if y is None else y
        size = 1.0 + float(np.max(np.abs(x)))
        if not np.max(np.abs(fs.F(x))) <= 1e-9 * fs.coef * size * size or _same(x, roots):
            return False
        roots.append(x)
        return True
    S0s = starts(fs, [[float(problem.cov0[i, j]) for j in range(fs.d)] for i in range(fs.d)],
                 rng, nrand)
    for S0 in S0s:
        x0 = fs.svec(S0)
        for _ in range(passes):
            if not add(newton(fs, x0, roots)):
                break
    method = (f"float Newton (damped, deflated) from {len(S0s)} starts (cov0, multiples of I, "
              f"Lyapunov guesses, {nrand} seeded random)")
    if fs.n <= 6:
        for x in total_degree(fs, rng):
            add(x)
        method += f", a total-degree homotopy ({2 ** fs.n} complex paths)"
    elif paths:
        for S0 in starts(fs, S0s[0], rng, paths)[-paths:]:
            for x in newton_homotopy(fs, fs.svec(S0)):
                add(x)
        method += f", {paths} Newton-homotopy path(s)"
    return [_classify(fs, x) for x in roots[1:]], method + "; not exhaustive"
