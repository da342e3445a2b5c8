"""Rank invariance: symbolic argument, and a rank-1 covariance staying rank 1 numerically."""
import flint
import pytest

from symgauss import Problem
from symgauss.closure.rank_invariance import rank_invariance
from symgauss.integrate.high_precision import solve_moments
from symgauss.kernel.errors import ProblemError


@pytest.mark.parametrize("d,r", [(1, 1), (2, 1), (3, 2)])
def test_symbolic_rank_invariance(d, r):
    res = rank_invariance(d, rank=r)
    assert res.status == "proved" and res.level == "exact"
    assert {n for n, _, _ in res.invariants} >= {"symmetry", "PSD", "rank", "range"}


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
