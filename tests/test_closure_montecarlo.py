"""Monte Carlo checks of the derived closure (numpy, fixed seeds).

Tolerances are 5 standard errors, the standard error estimated by batch means over
independent batches (so it includes every source of sampling noise).
"""
import numpy as np
import sympy as sp

from symgauss.closure.derive import derive_closure
from symgauss.closure.gaussian import gaussian_log_mgf, sym_vector, tilted_mean

N_SIGMAS = 5
RATS = lambda rows: sp.Matrix([[sp.Rational(v) for v in r] for r in rows])  # noqa: E731
S3 = RATS([["1", "3/10", "-1/5"], ["3/10", "4/5", "1/10"], ["-1/5", "1/10", "1/2"]])
M3 = RATS([["1/2"], ["-1"], ["1/4"]])


def _f(M):
    return np.array(M.tolist(), dtype=float)


def _batch_check(estimates, predicted):
    est = np.asarray(estimates)
    mean, se = est.mean(axis=0), est.std(axis=0, ddof=1) / np.sqrt(len(est))
    err = np.abs(mean - predicted)
    assert np.all(err <= N_SIGMAS * se + 1e-12), (mean, predicted, se)
    return se


def test_tilting_identity_monte_carlo():
    """Self-normalised importance average of y e^{wᵀy} over 2·10⁵ samples = derived m + Σw."""
    d = 3
    w = sym_vector("w", d)
    K = gaussian_log_mgf(d, M3, S3, w)
    wval = np.array([0.4, -0.3, 0.5])
    derived = _f(tilted_mean(K, w).xreplace(dict(zip(w, sp.Matrix([sp.Rational(2, 5),
                                                                    sp.Rational(-3, 10),
                                                                    sp.Rational(1, 2)]))))).ravel()
    rng = np.random.default_rng(1)
    ests = []
    for _ in range(20):
        y = rng.multivariate_normal(_f(M3).ravel(), _f(S3), size=10_000)
        wt = np.exp(y @ wval)
        ests.append((wt[:, None] * y).sum(0) / wt.sum())
    se = _batch_check(ests, derived)
    # power: the untilted mean is far outside the tolerance
    assert np.all(np.abs(_f(M3).ravel() - np.mean(ests, 0))[[0, 2]] > 10 * se[[0, 2]])


def _point(c, seed):
    rng = np.random.default_rng(seed)
    s = c.symbols
    pt = {}
    for M in [s.A, s.b] + [X for hd in s.heads for X in hd[:3]]:
        for v in M:
            pt[v] = sp.Rational(int(rng.integers(-4, 5)), 8)
    pt.update({s.S[i, j]: S3[i, j] for i in range(3) for j in range(3)})
    pt.update({s.m[i]: M3[i] for i in range(3)})
    return pt


def test_averaged_velocity_softmax_monte_carlo():
    c = derive_closure(3)
    pt = _point(c, 2)
    s = c.symbols
    V, B = (_f(X.xreplace(pt)) for X in c.symbols.heads[0])
    A, b = _f(s.A.xreplace(pt)), _f(s.b.xreplace(pt)).ravel()
    x = np.array([0.7, -0.4, 0.2])
    predicted = _f(c.velocity.xreplace(pt).xreplace(dict(zip(s.x, [sp.Rational(7, 10),
                                                                    sp.Rational(-2, 5),
                                                                    sp.Rational(1, 5)])))).ravel()
    rng = np.random.default_rng(3)
    ests = []
    for _ in range(20):
        y = rng.multivariate_normal(_f(M3).ravel(), _f(S3), size=10_000)
        wt = np.exp(y @ (B @ x))                 # softmax weights e^{yᵀBx}
        ests.append(A @ x + b + V @ ((wt[:, None] * y).sum(0) / wt.sum()))
    _batch_check(ests, predicted)


def test_averaged_velocity_l2_monte_carlo():
    c = derive_closure(3, kernel="l2")
    pt = _point(c, 4)
    s = c.symbols
    V, Q, K, G = s.heads[0]
    Sr = S3
    Gr = (sp.eye(3) + Sr * K.xreplace(pt).T * K.xreplace(pt)).inv()
    pt.update({G[i, j]: Gr[i, j] for i in range(3) for j in range(3)})
    xr = [sp.Rational(1, 2), sp.Rational(1, 5), sp.Rational(-3, 5)]
    predicted = _f(c.velocity.xreplace(pt).xreplace(dict(zip(s.x, xr)))).ravel()
    Vn, Qn, Kn = (_f(X.xreplace(pt)) for X in (V, Q, K))
    A, b, x = _f(s.A.xreplace(pt)), _f(s.b.xreplace(pt)).ravel(), np.array(xr, dtype=float)
    rng = np.random.default_rng(5)
    ests = []
    for _ in range(20):
        y = rng.multivariate_normal(_f(M3).ravel(), _f(S3), size=10_000)
        r = Qn @ x - y @ Kn.T
        wt = np.exp(-0.5 * (r ** 2).sum(1))       # L2 kernel e^{-|Qx - Ky|²/2}
        ests.append(A @ x + b + Vn @ ((wt[:, None] * y).sum(0) / wt.sum()))
    _batch_check(ests, predicted)


def test_discrete_layer_exact_with_population_softmax():
    """Push N(m, Σ) through one residual layer whose attention is the softmax average over
    an independent population sample (5 000 keys per batch, 10 000 queries per batch,
    10 batches = 10⁵ pushed tokens). The pushed sample's mean and covariance match
    N((I + hM)m + h(Vm + b), (I + hM)Σ(I + hM)ᵀ) within 5 batch standard errors; the
    Euler-only covariance Σ + hΣ' is rejected."""
    d = 2
    c = derive_closure(d, depth="discrete")
    s = c.symbols
    S2, m2 = RATS([["1", "2/5"], ["2/5", "1/2"]]), RATS([["1/2"], ["-1/2"]])
    vals = {s.A: RATS([["1/4", "-1/2"], ["1/2", "0"]]), s.heads[0][0]: RATS([["1/2", "0"],
                                                                             ["1/4", "1/2"]]),
            s.heads[0][1]: RATS([["1/2", "1/4"], ["0", "1/2"]]), s.b: RATS([["1/5"], ["0"]]),
            s.S: S2, s.m: m2}
    pt = {sym: M[i, j] for X, M in vals.items() for i in range(X.rows) for j in range(X.cols)
          for sym in [X[i, j]]}
    pt[s.h] = sp.Rational(1, 2)
    mean_pred, cov_pred = _f(c.mean_rhs.xreplace(pt)).ravel(), _f(c.cov_rhs.xreplace(pt))
    A, V, B, b = (_f(vals[k]) for k in (s.A, s.heads[0][0], s.heads[0][1], s.b))
    b = b.ravel()
    rng = np.random.default_rng(7)
    means, covs = [], []
    for _ in range(10):
        keys = rng.multivariate_normal(_f(m2).ravel(), _f(S2), size=5_000)
        x = rng.multivariate_normal(_f(m2).ravel(), _f(S2), size=10_000)
        logits = (x @ B.T) @ keys.T                       # (Bx)ᵀy for each query/key
        logits -= logits.max(1, keepdims=True)
        wt = np.exp(logits)
        attn = (wt @ keys) / wt.sum(1, keepdims=True)
        x_next = x + 0.5 * (x @ A.T + b + attn @ V.T)
        means.append(x_next.mean(0))
        covs.append(np.cov(x_next.T).ravel())
    _batch_check(means, mean_pred)
    se = _batch_check(covs, cov_pred.ravel())
    M = _f((c.velocity_matrix).xreplace(pt))
    euler = _f(S2) + 0.5 * (M @ _f(S2) + _f(S2) @ M.T)
    assert np.max(np.abs(np.mean(covs, 0) - euler.ravel()) / se) > 10
