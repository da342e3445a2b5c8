"""Gaussianity diagnostics on known cases and against their definitions."""
import numpy as np
import pytest
from scipy import integrate, special

from symgauss.kernel.errors import ProblemError
from symgauss.tokens.diagnostics import (
    _gauss_w2_sq_sorted,
    gaussianity,
    mardia,
    mmd2_to_standard_gaussian,
    whiten,
)

N = 2000


@pytest.mark.parametrize("d", [1, 2, 3])
def test_exact_gaussian_sample_has_small_statistics(d):
    rng = np.random.default_rng(10 + d)
    L = np.tril(rng.standard_normal((d, d))) + 2 * np.eye(d)
    X = rng.standard_normal((N, d)) @ L.T + 3.0
    g = gaussianity(X, seed=d)
    assert g.rank == d
    # Mardia: b1 → 0 with N·b1/6 ~ χ²; b2 → d(d+2) with sd sqrt(8d(d+2)/N)
    assert g.mardia_skewness < 10 * d * (d + 1) * (d + 2) / N
    assert abs(g.mardia_kurtosis - d * (d + 2)) < 4 * np.sqrt(8 * d * (d + 2) / N)
    assert g.skewness_pvalue > 1e-4 and abs(g.kurtosis_z) < 4
    assert g.sw2 < 2.5 * g.sw2_floor
    assert abs(g.mmd2) < 5e-3 and abs(g.mmd2_floor) < 5e-3


@pytest.mark.parametrize("kind", ["uniform", "mixture", "exponential"])
def test_non_gaussian_samples_are_detected(kind):
    rng = np.random.default_rng(5)
    if kind == "uniform":
        X = rng.random((N, 2))
    elif kind == "mixture":
        X = np.r_[rng.standard_normal((N // 2, 2)) + 2.5, rng.standard_normal((N // 2, 2)) - 2.5]
    else:
        X = rng.exponential(size=(N, 2))
    g = gaussianity(X, seed=0)
    assert g.sw2 > 3 * g.sw2_floor
    assert g.mmd2 > 5 * abs(g.mmd2_floor) + 1e-4
    assert g.skewness_pvalue < 1e-6 or abs(g.kurtosis_z) > 6


def test_mardia_equals_its_pairwise_definition_and_is_affine_invariant():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((300, 3)) ** 3 @ rng.standard_normal((3, 3))
    Z = whiten(X)
    b1, b2 = mardia(Z)
    G = Z @ Z.T
    assert b1 == pytest.approx((G ** 3).sum() / 300 ** 2, rel=1e-10)
    assert b2 == pytest.approx(np.mean(np.diag(G) ** 2), rel=1e-12)
    # the 1/N-covariance-whitened sample has b2 = mean |z|^4 and Σ|z|² = N·rank
    assert (Z * Z).sum() == pytest.approx(300 * 3, rel=1e-10)
    M = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    b1m, b2m = mardia(whiten(X @ M.T - 7))
    assert (b1m, b2m) == pytest.approx((b1, b2), rel=1e-9)


def test_one_dimensional_w2_to_the_gaussian_is_exact():
    z = np.sort(np.random.default_rng(4).standard_normal(200) * 1.3 + 0.2)
    n = z.size
    num = sum(integrate.quad(lambda u, k=k: (z[k] - special.ndtri(u)) ** 2, k / n, (k + 1) / n,
                             epsabs=1e-13)[0] for k in range(n))
    assert _gauss_w2_sq_sorted(z[:, None])[0] == pytest.approx(num, rel=1e-7)


def test_mmd_gaussian_side_matches_monte_carlo():
    """MMD² with the closed-form Gaussian terms equals the U-statistic against a big sample."""
    rng = np.random.default_rng(6)
    Z = rng.standard_normal((200, 2)) * [1.5, 0.7]
    Y = rng.standard_normal((4000, 2))
    ell = 1.3
    k = lambda A, B: np.exp(-((A[:, None, :] - B[None]) ** 2).sum(-1) / (2 * ell ** 2))
    Kzz = k(Z, Z)
    xx = (Kzz.sum() - np.trace(Kzz)) / (200 * 199)
    xy = k(Z, Y).mean()
    yy = (ell ** 2 / (ell ** 2 + 2))
    mc = xx - 2 * xy + yy
    assert mmd2_to_standard_gaussian(Z, ell) == pytest.approx(mc, abs=3e-3)


def test_singular_samples_use_the_range():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((500, 1))
    X = np.hstack([x, 2 * x, -x])                      # rank 1 in R^3
    g = gaussianity(X, seed=0)
    assert g.rank == 1 and g.kurtosis_expected == 3.0


@pytest.mark.parametrize("bad", [np.zeros((1, 2)), np.array([[0.0, np.nan], [1, 2]]),
                                 np.ones((5, 2)), np.zeros(4)])
def test_bad_samples_raise_problem_error(bad):
    with pytest.raises(ProblemError):
        gaussianity(bad)
