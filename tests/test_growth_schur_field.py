"""WORK IN PROGRESS (branch wip/growth-schur): the Schur-coordinate field of kind growth-schur
agrees with eq. 1.1 (central differences of the coordinates along Σ' = MΣ + ΣMᵀ)."""
import math

import numpy as np
import pytest

from symgauss.kernel.kinds.growth_schur import field, lift


def _coords(S, B, k):
    s = S[0, 0]
    y = S[1:, 0] / s
    C = S[1:, 1:] - s * np.outer(y, y)
    v = np.r_[1, y]
    wt = (B.T @ v)[1:]
    Jw = np.array([-wt[1], wt[0]])
    return np.array([1 / s, y[1 - k], s * (v @ B @ v), Jw @ C @ Jw / (wt @ wt), *(s * C @ wt)]), y


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", (0, 1))
def test_field_is_eq_1_1_in_schur_coordinates(seed, k):
    rng = np.random.default_rng(seed)
    A, V, B = (rng.normal(0, 1, (3, 3)) for _ in range(3))
    H = rng.normal(0, 1, (3, 3))
    S = 3 * (H @ H.T + 0.5 * np.eye(3))

    def F(S):
        M = A + V @ S @ B
        return M @ S + S @ M.T
    z, y = _coords(S, B, k)
    K1, J1 = k + 1, 2 - k
    be = B[0, K1] + B[K1, 0] + (B[J1, K1] + B[K1, J1]) * y[1 - k]
    br = 1 if 2 * B[K1, K1] * y[k] + be > 0 else -1
    assert np.allclose(lift(B.tolist(), list(z), k, br, math.sqrt)[0], y, rtol=1e-10)
    h = 1e-6
    dz = (_coords(S + h * F(S), B, k)[0] - _coords(S - h * F(S), B, k)[0]) / (2 * h)
    out = field(A.tolist(), V.tolist(), B.tolist(), list(z), k, br, math.sqrt)
    u = z[0]
    got = np.array([out[0], out[1], out[2] / u, out[3], out[4] / u, out[5] / u])
    assert np.allclose(got, dz, rtol=1e-6, atol=1e-6 * np.abs(dz).max())
    assert out[6] == pytest.approx(F(S)[0, 0] / S[0, 0], rel=1e-12)
