"""Finite-token Transformer: N tokens moved by softmax self-attention and a feed-forward map.

The mean-field velocity of ``math.md`` §1 with the integral replaced by the
softmax-weighted sum over the N tokens (kernel e^{yᵀBx}, query x, key y):

    x_i' = f(x_i) + Σ_h V_h Σ_j y_j e^{y_jᵀB_h x_i} / Σ_j e^{y_jᵀB_h x_i},

with ``f(x) = A x + b`` (affine) or ``f(x) = max(A x + b, 0)`` componentwise
(``ff="relu"``, not closed). Depth is continuous time, integrated by classical
RK4 with K equal steps per unit of the horizon, or discrete residual layers
``x ↦ x + h v(x)`` with h = T/K (forward Euler = a residual stream).

Attention is computed in blocks of queries against all keys with a stable
log-sum-exp (row maximum subtracted before ``exp``), so the memory is
O(block·N + N·d), never an N×N matrix; :func:`attention_direct` is the
N×N reference used by the tests and the benchmark.

Everything here is sampling: the level of every result is ``"float"``.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.standard_normal((50, 2))
>>> heads = [(np.eye(2), np.eye(2))]
>>> bool(np.allclose(attention(X, heads, block=7), attention_direct(X, heads), atol=1e-12))
True
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from symgauss.kernel.errors import ProblemError
from symgauss.kernel.numbers import rational_text
from symgauss.model.convert import as_time, require_numeric, to_float

#: entries of one logits block (float64): 2**22 × 8 B = 32 MB
BLOCK_ENTRIES = 1 << 22

FF_KINDS = ("affine", "relu")


def _block_size(n_queries: int, n_keys: int, block: int | None) -> int:
    if block is not None:
        if int(block) < 1:
            raise ProblemError(f"block = {block} must be a positive integer")
        return int(block)
    return max(1, min(n_queries, BLOCK_ENTRIES // max(n_keys, 1)))


def _single_threaded_blas():
    """BLAS limited to one thread while our own threads share the blocks (threadpoolctl,
    when installed; otherwise a no-op). Skinny GEMMs gain nothing from BLAS threads and
    lose much when the machine is busy."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover
        import contextlib
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def attention(X, heads, *, keys=None, block: int | None = None, workers: int | None = None,
              dtype: str = "float64") -> np.ndarray:
    """Σ_h V_h (softmax-weighted average of the keys) for every query row of ``X``.

    Parameters
    ----------
    X : (n, d) array of queries.
    heads : sequence of (V, B) float d×d arrays.
    keys : (N, d) array of keys/values (default: ``X`` itself, self-attention).
    block : queries per block (default: as many as fit in ``BLOCK_ENTRIES`` logits).
    workers : threads working on blocks in parallel (default: the number of CPUs; numpy
        releases the GIL inside ``exp`` and ``matmul``); BLAS itself runs single-threaded.
    dtype : ``"float64"`` (default; equal to the N×N computation to ~1e-15) or
        ``"float32"`` for the logits and weights (about 3× faster, relative error ~1e-6).

    Returns
    -------
    (n, d) float64 array. Memory O(workers·block·N + N·d): each block of queries forms
    its block×N logits, subtracts the row maximum (stable log-sum-exp), exponentiates
    in place and contracts with [keys | 1], which gives the weighted sum and the
    normaliser in one product.
    """
    if dtype not in ("float64", "float32"):
        raise ProblemError(f"dtype = {dtype!r} is unknown; use 'float64' or 'float32'")
    X = np.asarray(X, dtype=float)
    Y = X if keys is None else np.asarray(keys, dtype=float)
    n, N = X.shape[0], Y.shape[0]
    workers = max(1, int(workers or os.cpu_count() or 1))
    nb = _block_size(n, N, block)
    if block is None and workers > 1:
        nb = max(1, min(nb, -(-n // workers)))
    workers = min(workers, -(-n // nb))
    ft = np.float64 if dtype == "float64" else np.float32
    YT = np.ascontiguousarray(Y.T, dtype=ft)                  # (d, N): fast contiguous GEMM
    Y1 = np.ascontiguousarray(np.hstack([Y, np.ones((N, 1))]), dtype=ft)
    out = np.zeros_like(X)
    for V, B in heads:
        V = np.asarray(V, dtype=float)
        if not V.any():
            continue
        Q = (X @ np.asarray(B, dtype=float).T).astype(ft)    # rows B x_i: logit_ij = (B x_i)·y_j
        avg = np.empty((n, Y.shape[1]))

        def work(starts, Q=Q, avg=avg):
            buf = np.empty((min(nb, n), N), dtype=ft)
            for s in starts:
                q = Q[s:s + nb]
                L = buf[:q.shape[0]]
                np.matmul(q, YT, out=L)
                L -= L.max(axis=1, keepdims=True)
                np.exp(L, out=L)
                S = (L @ Y1).astype(np.float64)
                avg[s:s + nb] = S[:, :-1] / S[:, -1:]

        starts = list(range(0, n, nb))
        with _single_threaded_blas():
            if workers == 1:
                work(starts)
            else:
                from concurrent.futures import ThreadPoolExecutor
                with ThreadPoolExecutor(workers) as pool:
                    list(pool.map(work, [starts[i::workers] for i in range(workers)]))
        out += avg @ V.T
    return out


def attention_direct(X, heads) -> np.ndarray:
    """The same as :func:`attention` with the full N×N softmax matrix (reference only)."""
    X = np.asarray(X, dtype=float)
    out = np.zeros_like(X)
    for V, B in heads:
        L = X @ np.asarray(B, dtype=float).T @ X.T
        W = np.exp(L - L.max(axis=1, keepdims=True))
        W /= W.sum(axis=1, keepdims=True)
        out += W @ X @ np.asarray(V, dtype=float).T
    return out


@dataclass(frozen=True)
class FloatParams:
    """Float copies of one set of parameters (A, b, heads)."""
    A: np.ndarray
    b: np.ndarray
    heads: tuple

    @classmethod
    def from_params(cls, params) -> "FloatParams":
        return cls(to_float(params.A), to_float(params.b)[:, 0],
                   tuple((to_float(h.V), to_float(h.B)) for h in params.heads))


def velocity(X, fp: FloatParams, ff: str = "affine", *, block: int | None = None) -> np.ndarray:
    """v(x_i) for every token: feed-forward plus attention over the same tokens."""
    lin = X @ fp.A.T + fp.b
    if ff == "relu":
        lin = np.maximum(lin, 0.0)
    return lin + attention(X, fp.heads, block=block)


def _rk4_step(X, h, fp, ff, block):
    k1 = velocity(X, fp, ff, block=block)
    k2 = velocity(X + (h / 2) * k1, fp, ff, block=block)
    k3 = velocity(X + (h / 2) * k2, fp, ff, block=block)
    k4 = velocity(X + h * k3, fp, ff, block=block)
    return X + (h / 6) * (k1 + 2 * k2 + 2 * k3 + k4)


def _frozen(a) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


@dataclass(frozen=True)
class ParticleRun:
    """Empirical moments of the token cloud along depth (level ``"float"``: sampling).

    ``scheme`` is ``"rk4"`` (classical RK4, K equal steps) or ``"residual"`` (layers
    x ↦ x + h v(x), h = t/K). ``times[k]``, ``means[k]`` (d,), ``covs[k]`` (d, d) with the
    unbiased 1/(N−1) normalisation; ``tokens`` is the final (N, d) cloud; ``snapshots`` the clouds at
    ``snapshot_times`` when asked for. Arrays are read-only.
    """
    n: int
    d: int
    t: Fraction
    steps: int
    seed: int
    ff: str
    scheme: str
    times: np.ndarray
    means: np.ndarray
    covs: np.ndarray
    tokens: np.ndarray
    snapshot_times: tuple = ()
    snapshots: tuple = ()
    level: str = "float"

    @property
    def trace(self) -> np.ndarray:
        return np.trace(self.covs, axis1=1, axis2=2)

    def to_json_dict(self) -> dict:
        return {"t": rational_text(self.t), "n": self.n, "d": self.d, "seed": self.seed,
                "ff": self.ff, "scheme": self.scheme, "steps": self.steps,
                "level": self.level,
                "mean": [repr(float(x)) for x in self.means[-1]],
                "cov": [[repr(float(x)) for x in row] for row in self.covs[-1]],
                "series": {"t": [repr(float(x)) for x in self.times],
                           "mean": self.means.tolist(), "cov": self.covs.tolist()}}


def check_positive_int(value, name: str, minimum: int = 1) -> int:
    """An integer ≥ ``minimum`` (int or decimal text) or a ProblemError naming ``name``."""
    k = None
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        k = int(value)
    elif isinstance(value, str) and re.fullmatch(r"\s*\+?\d{1,12}\s*", value):
        k = int(value)
    if k is None:
        raise ProblemError(f"{name} = {value!r} is not an integer; give an integer >= {minimum}")
    if k < minimum:
        raise ProblemError(f"{name} = {k} is too small; give an integer >= {minimum}")
    return k


def sample_initial(problem, n: int, seed: int) -> np.ndarray:
    """n tokens from N(mean0, cov0) (cov0 may be singular: drawn via its eigen-square-root)."""
    m0 = to_float(problem.mean0)[:, 0]
    S0 = to_float(problem.cov0)
    w, U = np.linalg.eigh(S0)
    L = U * np.sqrt(np.clip(w, 0.0, None))
    rng = np.random.default_rng(seed)
    return m0 + rng.standard_normal((n, problem.d)) @ L.T


def _schedule(problem, t_end: Fraction, steps: int):
    """(h, count, FloatParams) per constant piece; ``steps`` steps per unit of ``t_end``."""
    out = []
    for a, e, params in problem.pieces(t_end):
        dur = Fraction(e) - Fraction(a)
        if dur <= 0:
            continue
        k = max(1, math.ceil(steps * dur / t_end)) if t_end > 0 else 0
        out.append((float(dur) / k, k, FloatParams.from_params(params)))
    return out


def simulate(problem, n: int, t, *, steps: int = 100, seed: int = 0, ff: str = "affine",
             discrete: bool = False, record: int | None = None, snapshots=(),
             block: int | None = None, tokens0=None) -> ParticleRun:
    """Move n tokens from N(mean0, cov0) to depth ``t``; empirical moments along the way.

    Parameters
    ----------
    problem : a numeric :class:`symgauss.Problem` (constant or piecewise-constant controls).
    n : number of tokens (≥ 2).
    t : final time (exact text or number).
    steps : K; RK4 steps (or residual layers) over [0, t], split over control pieces.
    ff : ``"affine"`` (A x + b) or ``"relu"`` (max(A x + b, 0) componentwise).
    discrete : residual layers x ↦ x + h v(x) (h = t/K) instead of RK4.
    record : keep moments at about this many evenly spaced steps (default: every step,
        at most 400).
    snapshots : times at which to keep the whole cloud (nearest step at or after).
    tokens0 : optional (n, d) initial cloud (replaces the sample).

    Examples
    --------
    >>> from symgauss import Problem
    >>> p = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 3]], V=[[-1, 0], [0, -1]],
    ...             B=[[1, 0], [0, 1]])
    >>> run = simulate(p, 200, "1/2", steps=10, seed=1)
    >>> run.level, run.scheme, run.covs.shape
    ('float', 'rk4', (11, 2, 2))
    """
    require_numeric(problem, "simulate-particles")
    n = check_positive_int(n, "n (number of tokens)", 2)
    steps = check_positive_int(steps, "steps", 1)
    seed = check_positive_int(seed, "seed", 0)
    if ff not in FF_KINDS:
        raise ProblemError(f"ff = {ff!r} is unknown; use one of {', '.join(FF_KINDS)}")
    t_end = as_time(t)
    if tokens0 is None:
        X = sample_initial(problem, n, seed)
    else:
        X = np.array(tokens0, dtype=float)
        if X.shape != (n, problem.d):
            raise ProblemError(f"tokens0: expected shape ({n}, {problem.d}), found {X.shape}")
    sched = _schedule(problem, t_end, steps) if t_end > 0 else []
    total = sum(k for _, k, _ in sched)
    stride = max(1, math.ceil(total / (record if record else 400)))
    snap_t = sorted(float(as_time(s, "snapshot time")) for s in snapshots)
    times, means, covs, snaps, snap_at = [0.0], [X.mean(0)], [np.cov(X.T, ddof=1).reshape(
        problem.d, problem.d)], [], []
    if snap_t and snap_t[0] <= 0:
        while snap_t and snap_t[0] <= 0:
            snaps.append(_frozen(X))
            snap_at.append(0.0)
            snap_t.pop(0)
    tau, done = 0.0, 0
    for h, k, fp in sched:
        for _ in range(k):
            if discrete:
                X = X + h * velocity(X, fp, ff, block=block)
            else:
                X = _rk4_step(X, h, fp, ff, block)
            tau += h
            done += 1
            if done % stride == 0 or done == total:
                times.append(tau)
                means.append(X.mean(0))
                covs.append(np.cov(X.T, ddof=1).reshape(problem.d, problem.d))
            while snap_t and snap_t[0] <= tau + 1e-12:
                snaps.append(_frozen(X))
                snap_at.append(tau)
                snap_t.pop(0)
    return ParticleRun(n=n, d=problem.d, t=t_end, steps=steps, seed=seed, ff=ff,
                       scheme="residual" if discrete else "rk4",
                       times=_frozen(times), means=_frozen(means), covs=_frozen(covs),
                       tokens=_frozen(X), snapshot_times=tuple(snap_at), snapshots=tuple(snaps))
