"""Rank invariance: the identities behind it hold (exactly at random rational points, and along
integrated trajectories), a false variant is rejected, and rank is kept numerically."""
import random

import flint
import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

from symgauss import Problem
from symgauss.closure import rank_invariance as ri_module
from symgauss.closure.rank_invariance import rank_invariance
from symgauss.integrate.high_precision import solve_moments
from symgauss.kernel.errors import ProblemError


def _rat_matrix(rng, rows, cols):
    return sp.Matrix(rows, cols, lambda i, j: sp.Rational(rng.randint(-9, 9), rng.randint(1, 6)))


def _eq11(A, heads, S):
    out = A * S + S * A.T
    for V, B in heads:
        out += V * S * B * S + S * B.T * S * V.T
    return out


@pytest.mark.parametrize("d,r,heads", [(2, 1, 1), (3, 2, 2), (4, 2, 1)])
def test_square_root_form_at_random_rational_points(d, r, heads):
    """Y' = AY + Σ_h V_hY(YᵀB_hY) makes (YYᵀ)' = Y'Yᵀ + YY'ᵀ equal eq. 1.1 at Σ = YYᵀ, exactly
    — and the rate with the scalar equation's factor 2 (Y' = AY + 2VY(YᵀBY), a false
    variant) does not."""
    rng = random.Random(10 * d + r)
    for _ in range(3):
        A, Y = _rat_matrix(rng, d, d), _rat_matrix(rng, d, r)
        hs = [(_rat_matrix(rng, d, d), _rat_matrix(rng, d, d)) for _ in range(heads)]
        S = Y * Y.T
        rate = A * Y + sum((V * Y * (Y.T * B * Y) for V, B in hs), sp.zeros(d, r))
        assert rate * Y.T + Y * rate.T == _eq11(A, hs, S)
        wrong = A * Y + sum((2 * V * Y * (Y.T * B * Y) for V, B in hs), sp.zeros(d, r))
        assert wrong * Y.T + Y * wrong.T != _eq11(A, hs, S)


def test_liouville_and_transport_at_random_rational_points():
    """d/dε det(Φ + εNΦ)|₀ = tr(N) det Φ, and d/dε of (Φ + εNΦ)Σ0(Φ + εNΦ)ᵀ at 0 is
    NΣ + ΣNᵀ with Σ = ΦΣ0Φᵀ (exact polynomials in ε)."""
    rng = random.Random(3)
    eps = sp.Symbol("eps")
    for d in (2, 3, 4):
        Phi, N, L = _rat_matrix(rng, d, d), _rat_matrix(rng, d, d), _rat_matrix(rng, d, 2)
        S0 = L * L.T
        moved = Phi + eps * N * Phi
        assert sp.expand(sp.diff(moved.det(), eps).subs(eps, 0)) == N.trace() * Phi.det()
        S = Phi * S0 * Phi.T
        dS = (moved * S0 * moved.T).diff(eps).subs(eps, 0)
        assert sp.expand(dS - (N * S + S * N.T)) == sp.zeros(d, d)


def test_a_false_transport_is_rejected(monkeypatch):
    """If Φ' were NᵀΦ instead of NΦ, Σ = ΦΣ0Φᵀ would not solve Σ' = NΣ + ΣNᵀ: the symbolic
    check must raise instead of returning 'proved'."""
    real = ri_module._derivative_subs

    def transposed(F, rate):
        if F.shape[0] == F.shape[1] and str(F[0, 0]).startswith("Phi"):
            N = sp.Matrix(rate.shape[0], rate.shape[0],
                          lambda i, j: sp.Symbol(f"N_{j + 1}{i + 1}"))
            rate = N * F
        return real(F, rate)
    monkeypatch.setattr(ri_module, "_derivative_subs", transposed)
    with pytest.raises(RuntimeError, match="transport"):
        rank_invariance(2)


def test_claims_hold_along_an_integrated_trajectory():
    """Σ(t) = Φ(t)Σ0Φ(t)ᵀ with Φ' = (A + VΣB)Φ, det Φ = exp ∫ tr(A + VΣB) > 0, and rank Σ(t) =
    rank Σ0 = 2 in d = 4 (float integration of Σ, Φ and ∫ tr M together)."""
    rng = np.random.default_rng(7)
    d = 4
    A, V, B = (rng.normal(0, 0.4, (d, d)) for _ in range(3))
    L = rng.normal(0, 1, (d, 2))
    S0 = L @ L.T

    def f(_t, y):
        S, Phi = y[:d * d].reshape(d, d), y[d * d:2 * d * d].reshape(d, d)
        M = A + V @ S @ B
        return np.concatenate([(M @ S + S @ M.T).ravel(), (M @ Phi).ravel(), [np.trace(M)]])
    y0 = np.concatenate([S0.ravel(), np.eye(d).ravel(), [0.0]])
    sol = solve_ivp(f, (0, 1.0), y0, method="DOP853", rtol=1e-12, atol=1e-14)
    y = sol.y[:, -1]
    S, Phi, int_tr = y[:d * d].reshape(d, d), y[d * d:2 * d * d].reshape(d, d), y[-1]
    scale = np.abs(S).max()
    assert np.abs(S - Phi @ S0 @ Phi.T).max() <= 1e-9 * scale
    assert abs(np.linalg.det(Phi) - np.exp(int_tr)) <= 1e-9 * np.exp(int_tr)
    sv = np.linalg.svd(S, compute_uv=False)
    # each invariant the symbolic argument claims, checked on the trajectory
    U = np.linalg.svd(Phi @ L)[0][:, :2]                     # basis of Φ range Σ0
    checks = {"symmetry": np.abs(S - S.T).max() <= 1e-12 * scale,
              "PSD": np.linalg.eigvalsh((S + S.T) / 2).min() >= -1e-9 * scale,
              "rank": sv[1] > 1e-3 * sv[0] and sv[2] <= 1e-9 * sv[0],
              "range": np.abs(S - U @ U.T @ S).max() <= 1e-9 * scale,
              "det Phi > 0": np.linalg.det(Phi) > 0}
    claimed = rank_invariance(d, rank=2).invariants
    assert len(claimed) == len(checks) and all(checks[name] for name, _, _ in claimed)


@pytest.mark.parametrize("d,r,heads", [(1, 1, 1), (2, 1, 2), (3, 2, 1)])
def test_symbolic_argument_runs_and_says_how(d, r, heads):
    res = rank_invariance(d, rank=r, heads=heads)
    assert res.status == "proved" and res.level == "exact"
    assert all(st.justification for st in res.steps)


def test_bad_rank():
    with pytest.raises(ProblemError):
        rank_invariance(2, rank=3)


def test_rank_one_stays_rank_one_high_precision():
    """cov0 = uuᵀ in d = 3 with generic parameters: every 2×2 minor of Σ(t) vanishes to
    about 40 digits while Σ(t) itself is of order one."""
    p = Problem(cov0=[[1, 1, 0], [1, 1, 0], [0, 0, 0]], mean0=[1, 0, 0],
                A=[["0.3", "-0.2", "0.1"], ["0.4", "0.1", "0"], ["-0.1", "0.2", "-0.3"]],
                V=[["0.5", "0.1", "0"], ["0", "0.4", "0.2"], ["0.1", "0", "0.3"]],
                B=[["0.2", "0", "0.1"], ["0.1", "0.3", "0"], ["0", "0.1", "0.2"]],
                b=[0, "0.1", 0])
    sol = solve_moments(p, "1/2", digits=50)
    with flint.ctx.workprec(240):
        S = [[x for x in row] for row in sol.cov]
        scale = max(abs(float(x.mid())) for row in S for x in row)
        assert scale > 0.5
        minors = [S[i][k] * S[j][l] - S[i][l] * S[j][k]
                  for i in range(3) for j in range(i + 1, 3)
                  for k in range(3) for l in range(k + 1, 3)]
        worst = max(abs(float(x.mid())) for x in minors)
    assert worst < 1e-40 * scale ** 2
    # and the third row/column, orthogonal to range Σ0 = span(1, 1, 0) at t = 0, became non-zero:
    # the range is transported by Φ, not fixed
    assert abs(float(S[2][2].mid())) > 1e-6
