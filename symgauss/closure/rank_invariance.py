"""Rank invariance of the covariance flow, checked symbolically.

With M(t) = A + Σ_h V_h Σ(t) B_h and Φ' = MΦ, Φ(0) = I:

- Σ = ΦΣ0Φᵀ solves Σ' = MΣ + ΣMᵀ (= eq. 1.1's right-hand side);
- the square-root form Y' = AY + Σ_h V_h Y (YᵀB_hY) gives Σ = YYᵀ (Y is d×r, no inverses);
- Liouville: (det Φ)' = tr(M) det Φ, so det Φ = exp ∫ tr M > 0.

Hence symmetry, PSD, rank and inertia are preserved for all finite t and
range Σ(t) = Φ(t) range Σ0.

>>> r = rank_invariance(2)
>>> r.status, [name for name, _, _ in r.invariants]
('proved', ['symmetry', 'PSD', 'rank', 'range', 'det Phi > 0'])
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from symgauss.closure.gaussian import identity_check, is_zero_matrix, mm, sym_matrix, sym_symmetric
from symgauss.closure.result import Mat, Step
from symgauss.kernel.errors import ProblemError

T = sp.Symbol("t")


@dataclass(frozen=True)
class RankInvariance:
    """The symbolic rank-invariance argument: steps and the invariants it yields."""
    dim: int
    rank: int
    heads: int
    status: str
    steps: tuple
    invariants: tuple        # (name, statement, justification)
    level: str = "exact"


def _fun_matrix(name, rows, cols):
    return sp.Matrix(rows, cols, lambda i, j: sp.Function(f"{name}_{i + 1}{j + 1}")(T))


def _derivative_subs(F, rate):
    """Replace d/dt F_ij(t) by rate_ij."""
    return {sp.Derivative(F[i, j], T): rate[i, j] for i in range(F.rows) for j in range(F.cols)}


def rank_invariance(dim: int, rank: int | None = None, heads: int = 1) -> RankInvariance:
    """Prove Σ = ΦΣ0Φᵀ and Σ = YYᵀ solve the covariance equation; list the invariants.

    Parameters
    ----------
    dim : d (1..6; entrywise identities by exact expansion for small d, else at random
        rational points — each step says which).
    rank : r, the column count of the square-root factor Y (default d).
    heads : number of attention heads.

    Examples
    --------
    >>> import symgauss as sg
    >>> ri = sg.rank_invariance(2, rank=1)
    >>> ri.status, ri.level
    ('proved', 'exact')
    """
    if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= 6:
        raise ProblemError(f"dim = {dim!r}: expected an integer 1..6")
    r = dim if rank is None else rank
    if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= dim:
        raise ProblemError(f"rank = {rank!r}: expected an integer 1..dim")
    if isinstance(heads, bool) or not isinstance(heads, int) or not 1 <= heads <= 4:
        raise ProblemError(f"heads = {heads!r}: expected an integer 1..4")
    d, steps = dim, []
    A = sym_matrix("A", d)
    VB = [(sym_matrix(f"V{k}", d), sym_matrix(f"B{k}", d)) for k in range(heads)]
    S0 = sym_symmetric("S0", d)
    N = sym_matrix("N", d)                     # placeholder for M(t) = A + Σ VΣB

    # 1. Σ = ΦΣ0Φᵀ with Φ' = NΦ solves Σ' = NΣ + ΣNᵀ (for every N, so for N = A + VΣB)
    Phi = _fun_matrix("Phi", d, d)
    S = Phi * S0 * Phi.T
    dS = S.diff(T).xreplace(_derivative_subs(Phi, N * Phi))
    if not is_zero_matrix(dS - (N * S + S * N.T)):
        raise RuntimeError("rank invariance bug: transport")
    steps.append(Step("Σ = ΦΣ0Φᵀ with Φ' = MΦ solves Σ' = MΣ + ΣMᵀ",
                      sp.Eq(sp.MatrixSymbol("Sigma_dot", d, d), N * S + S * N.T, evaluate=False),
                      "d/dt by SymPy (product rule on the entries Φ_ij(t)), Φ' replaced by MΦ, "
                      "exact expansion with a placeholder M; with M = A + sum VΣB this is eq. 1.1 "
                      "(matrix-level identity in symgauss.closure.derive)"))

    # 2. square-root form
    Y = _fun_matrix("Y", d, r)
    rateY = A * Y
    for V, B in VB:
        rateY = rateY + V * Y * (Y.T * B * Y)
    SY = Y * Y.T
    dSY = SY.diff(T).xreplace(_derivative_subs(Y, rateY))
    yvals = sym_matrix("y", d, r)
    to_syms = {Y[i, j]: yvals[i, j] for i in range(d) for j in range(r)}
    lhs = Mat(dSY.xreplace(to_syms))

    def eq11_at(p):
        f = (lambda e: e.xreplace(p)) if p else (lambda e: e)
        Sv = f(Mat(mm(yvals, yvals.T)))
        out = mm(f(A), Sv) + mm(Sv, f(A).T)
        for V, B in VB:
            V, B = f(V), f(B)
            out = out + mm(V, Sv, B, Sv) + mm(Sv, B.T, Sv, V.T)
        return Mat(out)
    params = list(A) + list(yvals) + [v for V, B in VB for v in list(V) + list(B)]
    just = identity_check(lhs, eq11_at, d, params, "square-root form", expand_up_to=2)
    steps.append(Step("Square-root form: Y' = AY + VY(YᵀBY) gives Σ = YYᵀ solving eq. 1.1 "
                      f"(Y is {d}×{r}, no inverses)", sp.Eq(sp.MatrixSymbol("Y_dot", d, r),
                                                           rateY, evaluate=False),
                      "d/dt(YYᵀ) by SymPy, Y' substituted; " + just))

    # 3. Liouville / Jacobi
    detPhi = Phi.det(method="berkowitz") if d > 1 else Phi[0, 0]
    ddet = sp.diff(detPhi, T).xreplace(_derivative_subs(Phi, N * Phi))
    if sp.expand(ddet - N.trace() * detPhi) != 0:
        raise RuntimeError("rank invariance bug: Liouville")
    steps.append(Step("Liouville: (det Φ)' = tr(M) det Φ, so det Φ = exp(int tr M) > 0",
                      sp.Eq(sp.Derivative(sp.Function("det_Phi")(T), T),
                            N.trace() * sp.Function("det_Phi")(T), evaluate=False),
                      "derivative of the determinant by SymPy, Φ' = MΦ substituted, exact "
                      "expansion; det Φ(0) = 1"))
    inv = (("symmetry", "Σ(t)ᵀ = Σ(t)", "(ΦΣ0Φᵀ)ᵀ = ΦΣ0ᵀΦᵀ and Σ0 = Σ0ᵀ"),
           ("PSD", "Σ(t) ⪰ 0 and inertia of Σ0 kept",
            "xᵀΣx = (Φᵀx)ᵀΣ0(Φᵀx); Sylvester's law of inertia for the congruence by invertible Φ"),
           ("rank", "rank Σ(t) = rank Σ0 for all finite t", "Φ(t) invertible (det Φ > 0)"),
           ("range", "range Σ(t) = Φ(t) range Σ0",
            "Σ0 = LLᵀ gives Σ = (ΦL)(ΦL)ᵀ, range = range ΦL = Φ range L = Φ range Σ0"),
           ("det Phi > 0", "det Φ(t) = exp(int_0^t tr M(s) ds) > 0", "Liouville step above"))
    steps.append(Step("Invariants: symmetry, PSD, rank, range transported by Φ",
                      sp.Eq(sp.Function("rank")(sp.Symbol("Sigma(t)")),
                            sp.Function("rank")(sp.Symbol("Sigma_0")), evaluate=False),
                      "; ".join(f"{n}: {j}" for n, _, j in inv)))
    return RankInvariance(dim=d, rank=r, heads=heads, status="proved", steps=tuple(steps),
                          invariants=inv)
