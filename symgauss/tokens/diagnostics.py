"""How far is a token cloud from Gaussian? Statistics with an exact-Gaussian noise floor.

All statistics are computed on the **whitened** cloud z_i = Ŝ^{-1/2}(x_i − x̄) (Ŝ the
1/N sample covariance, restricted to its numerical range), i.e. against the
moment-matched Gaussian, so they do not depend on the scale of Σ(t):

- ``sw2``: sliced Wasserstein-2 between the cloud and its moment-matched Gaussian,
  sqrt of the mean over ``n_proj`` random unit directions θ of W2²(θᵀz, N(0, 1)).
  Each one-dimensional W2² is exact (no reference sample): with z_(k) sorted and
  u_k = k/N, ∫ (F⁻¹(u) − Φ⁻¹(u))² du = Σ_k [z_(k)²/N − 2 z_(k) ∫ Φ⁻¹ + ∫ (Φ⁻¹)²],
  ∫_a^b Φ⁻¹ = φ(Φ⁻¹(a)) − φ(Φ⁻¹(b)), ∫_a^b (Φ⁻¹)² = [Φ(s) − sφ(s)] at s = Φ⁻¹(a), Φ⁻¹(b).
- ``mmd2``: squared maximum mean discrepancy (unbiased U-statistic) between the
  cloud and N(0, I) with the Gaussian kernel k(x, y) = exp(−|x − y|²/(2ℓ²)), ℓ the
  median pairwise distance of the whitened cloud (median heuristic, on at most
  ``mmd_max`` points). The Gaussian side is exact: E k(x, Y) = (ℓ²/(ℓ²+1))^{r/2}
  exp(−|x|²/(2(ℓ²+1))) and E k(Y, Y') = (ℓ²/(ℓ²+2))^{r/2}.
- Mardia's skewness b₁ = (1/N²) Σ_ij (z_iᵀz_j)³ = Σ_abc (mean_i z_ia z_ib z_ic)² and
  kurtosis b₂ = (1/N) Σ_i |z_i|⁴. For a Gaussian sample N·b₁/6 ~ χ² with
  r(r+1)(r+2)/6 degrees of freedom and (b₂ − r(r+2))/sqrt(8r(r+2)/N) ~ N(0, 1)
  asymptotically; b₁ → 0 and b₂ → r(r+2).

The noise floor of ``sw2`` and ``mmd2`` is the same statistic for an exact Gaussian
sample of the same size and rank (drawn with a fixed seed). Level: ``"float"``.

>>> import numpy as np
>>> z = np.random.default_rng(0).standard_normal((2000, 2))
>>> g = gaussianity(z, seed=1)
>>> bool(g.sw2 < 3 * g.sw2_floor + 0.02), round(g.kurtosis_expected, 1)
(True, 8.0)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from symgauss.kernel.errors import ProblemError

RANK_TOL = 1e-10


def whiten(X) -> np.ndarray:
    """z_i = Ŝ^{-1/2}(x_i − x̄) on the numerical range of Ŝ (1/N sample covariance)."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ProblemError(f"diagnostics need an (N, d) sample with N >= 2; found shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ProblemError("diagnostics: the sample has non-finite entries (inf or nan)")
    C = X - X.mean(axis=0)
    S = C.T @ C / X.shape[0]
    w, U = np.linalg.eigh(S)
    keep = w > RANK_TOL * max(w.max(), np.finfo(float).tiny)
    if not keep.any():
        raise ProblemError("diagnostics: the sample is a single point (zero covariance)")
    return (C @ U[:, keep]) / np.sqrt(w[keep])


def _gauss_w2_sq_sorted(z_sorted: np.ndarray) -> np.ndarray:
    """Exact W2² between each sorted column's empirical law and N(0, 1)."""
    n = z_sorted.shape[0]
    u = np.arange(n + 1) / n
    s = special.ndtri(u)                                  # −inf … +inf
    with np.errstate(invalid="ignore"):
        phi = np.where(np.isfinite(s), np.exp(-s * s / 2) / np.sqrt(2 * np.pi), 0.0)
        sphi = np.where(np.isfinite(s), s * phi, 0.0)
    I1 = phi[:-1] - phi[1:]                               # ∫ Φ⁻¹ over [u_{k-1}, u_k]
    I2 = (u[1:] - sphi[1:]) - (u[:-1] - sphi[:-1])        # ∫ (Φ⁻¹)²
    return (z_sorted ** 2).sum(axis=0) / n - 2 * (I1 @ z_sorted) + I2.sum()


def sliced_w2(Z, n_proj: int = 128, seed: int = 0) -> float:
    """Sliced W2 between the (whitened) cloud Z and N(0, I), exact per direction."""
    Z = np.asarray(Z, dtype=float)
    theta = np.random.default_rng(seed).standard_normal((Z.shape[1], n_proj))
    theta /= np.linalg.norm(theta, axis=0)
    P = np.sort(Z @ theta, axis=0)
    return float(np.sqrt(max(_gauss_w2_sq_sorted(P).mean(), 0.0)))


def _sq_dists(A, B):
    return np.maximum((A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T, 0.0)


def median_bandwidth(Z) -> float:
    """Median heuristic: the median pairwise distance (i < j)."""
    D = _sq_dists(Z, Z)
    iu = np.triu_indices(Z.shape[0], 1)
    return float(np.sqrt(np.median(D[iu])))


def mmd2_to_standard_gaussian(Z, bandwidth: float) -> float:
    """Unbiased MMD² between the cloud Z (n, r) and N(0, I_r), Gaussian kernel of width ℓ."""
    n, r = Z.shape
    l2 = bandwidth ** 2
    K = np.exp(-_sq_dists(Z, Z) / (2 * l2))
    xx = (K.sum() - np.trace(K)) / (n * (n - 1))
    xy = (l2 / (l2 + 1)) ** (r / 2) * np.exp(-(Z * Z).sum(1) / (2 * (l2 + 1))).mean()
    yy = (l2 / (l2 + 2)) ** (r / 2)
    return float(xx - 2 * xy + yy)


def mardia(Z):
    """(b₁, b₂) of a whitened sample: b₁ via the third-moment tensor (O(N r³))."""
    n, r = Z.shape
    T = np.einsum("ia,ib,ic->abc", Z, Z, Z, optimize=True) / n
    b1 = float((T * T).sum())
    b2 = float(((Z * Z).sum(1) ** 2).mean())
    return b1, b2


@dataclass(frozen=True)
class Gaussianity:
    """Gaussianity statistics of one cloud, with the exact-Gaussian noise floor."""
    n: int
    rank: int
    sw2: float
    sw2_floor: float
    mmd2: float
    mmd2_floor: float
    bandwidth: float
    mardia_skewness: float
    mardia_kurtosis: float
    skewness_pvalue: float
    kurtosis_z: float
    n_proj: int
    level: str = "float"
    kernel: str = "Gaussian exp(-|x-y|^2/(2 l^2)), l = median pairwise distance (whitened)"

    @property
    def kurtosis_expected(self) -> float:
        return float(self.rank * (self.rank + 2))

    def to_json_dict(self) -> dict:
        return {k: (v if isinstance(v, (int, str)) else float(v))
                for k, v in self.__dict__.items()}


def _stats(Z, n_proj, seed, mmd_max):
    rng = np.random.default_rng(seed + 7)
    sw = sliced_w2(Z, n_proj, seed)
    Zm = Z if Z.shape[0] <= mmd_max else Z[rng.choice(Z.shape[0], mmd_max, replace=False)]
    ell = median_bandwidth(Zm)
    return sw, mmd2_to_standard_gaussian(Zm, ell), ell


def gaussianity(X, *, n_proj: int = 128, seed: int = 0, mmd_max: int = 1000) -> Gaussianity:
    """Gaussianity statistics of the sample ``X`` (N, d) against its moment-matched Gaussian.

    The same ``sw2``/``mmd2`` pipeline run on an exact Gaussian sample of the same size and
    rank (seed ``seed + 1``) gives ``sw2_floor``/``mmd2_floor``.
    """
    Z = whiten(X)
    n, r = Z.shape
    sw, mmd, ell = _stats(Z, n_proj, seed, mmd_max)
    G = np.random.default_rng(seed + 1).standard_normal((n, r))
    sw_f, mmd_f, _ = _stats(whiten(G), n_proj, seed, mmd_max)
    b1, b2 = mardia(Z)
    dof = r * (r + 1) * (r + 2) / 6
    p_skew = float(stats.chi2.sf(n * b1 / 6, dof))
    z_kurt = (b2 - r * (r + 2)) / np.sqrt(8 * r * (r + 2) / n)
    return Gaussianity(n=n, rank=r, sw2=sw, sw2_floor=sw_f, mmd2=mmd, mmd2_floor=mmd_f,
                       bandwidth=ell, mardia_skewness=b1, mardia_kurtosis=b2,
                       skewness_pvalue=p_skew, kurtosis_z=float(z_kurt), n_proj=n_proj)
