"""Finite-token Transformer: N tokens moved by softmax self-attention and a feed-forward map.

The mean-field velocity of ``math.md`` §1 with the integral replaced by the
softmax-weighted sum over the N tokens (kernel e^{yᵀBx}, query x, key y):

    x_i' = f(x_i) + Σ_h V_h Σ_j y_j e^{y_jᵀB_h x_i} / Σ_j e^{y_jᵀB_h x_i},

with ``f(x) = A x + b`` (affine) or ``f(x) = max(A x + b, 0)`` componentwise
(``ff="relu"``, not closed). Depth is continuous time, integrated by classical
RK4 with K equal steps per unit of the horizon, or discrete residual layers
``x ↦ x + h v(x)`` with h = T/K (forward Euler = a residual stream).

Attention is :func:`symgauss.tokens.attention.attention`: streamed in tiles with a stable
log-sum-exp, memory O(tile + N·d), never an N×N matrix; float32 logits and weights with
float64 accumulation (default, within :func:`symgauss.tokens.attention.attention_error_bound`)
or the float64 numpy kernel (``dtype="float64"``); torch (CPU or CUDA) or numpy.

Everything here is sampling: the level of every result is ``"float"``.

>>> from symgauss import Problem
>>> p = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 3]], V=[[-1, 0], [0, -1]],
...             B=[[1, 0], [0, 1]])
>>> simulate(p, 200, "1/2", steps=4, seed=1, dtype="float64").tokens.shape
(200, 2)
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from symgauss.kernel.errors import ProblemError
from symgauss.kernel.numbers import rational_text
from symgauss.model.convert import as_time, require_numeric, to_float
from symgauss.tokens.attention import DTYPES, attention, resolve_backend

FF_KINDS = ("affine", "relu")

#: logits (N²·evaluations·heads) above which a run on a terminal shows a progress bar
PROGRESS_MIN_ENTRIES = 1 << 32


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


def velocity(X, fp: FloatParams, ff: str = "affine", *, block: int | None = None,
             dtype: str = "float32", backend: str = "auto", device: str = "auto",
             progress=None) -> np.ndarray:
    """v(x_i) for every token: feed-forward plus attention over the same tokens
    (attention options as in :func:`symgauss.tokens.attention.attention`)."""
    v = attention(X, fp.heads, block=block, dtype=dtype, backend=backend, device=device,
                  progress=progress)
    step = 1 << 16                                  # row slices: no second N×d temporary
    for s in range(0, X.shape[0], step):
        lin = X[s:s + step] @ fp.A.T
        lin += fp.b
        if ff == "relu":
            np.maximum(lin, 0.0, out=lin)
        v[s:s + step] += lin
    return v


def _rk4_step(X, h, vel):
    """Classical RK4 with four arrays of X's size besides X (k_i, the stage, the sum)."""
    k = vel(X)
    acc = X + (h / 6) * k
    stage = X + (h / 2) * k
    k = vel(stage)
    acc += (h / 3) * k
    np.multiply(k, h / 2, out=stage)
    stage += X
    k = vel(stage)
    acc += (h / 3) * k
    np.multiply(k, h, out=stage)
    stage += X
    k = vel(stage)
    acc += (h / 6) * k
    return acc


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
    ``snapshot_times`` when asked for; ``attention`` the kernel used (dtype, backend, device).
    Arrays are read-only.
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
    attention: tuple = ("float64", "numpy", "cpu")    # (dtype, backend, device) used
    level: str = "float"

    @property
    def trace(self) -> np.ndarray:
        return np.trace(self.covs, axis1=1, axis2=2)

    def to_json_dict(self) -> dict:
        return {"t": rational_text(self.t), "n": self.n, "d": self.d, "seed": self.seed,
                "ff": self.ff, "scheme": self.scheme, "steps": self.steps,
                "attention": dict(zip(("dtype", "backend", "device"), self.attention)),
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
             block: int | None = None, tokens0=None, dtype: str = "float32",
             backend: str = "auto", device: str = "auto",
             progress: bool | None = None) -> ParticleRun:
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
    block, dtype, backend, device : attention options
        (:func:`symgauss.tokens.attention.attention`); ``backend``/``device`` are resolved
        once for the run by :func:`symgauss.tokens.attention.resolve_backend`.
    progress : a tqdm progress bar on stderr: ``True``, ``False``, or ``None`` (default) for
        one when stderr is a terminal and the run is long (≥ ``PROGRESS_MIN_ENTRIES`` logits).

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
    if dtype not in DTYPES:
        raise ProblemError(f"dtype = {dtype!r} is unknown; use one of {', '.join(DTYPES)}")
    t_end = as_time(t)
    if tokens0 is None:
        X = sample_initial(problem, n, seed)
    else:
        X = np.array(tokens0, dtype=float)
        if X.shape != (n, problem.d):
            raise ProblemError(f"tokens0: expected shape ({n}, {problem.d}), found {X.shape}")
    sched = _schedule(problem, t_end, steps) if t_end > 0 else []
    total = sum(k for _, k, _ in sched)
    heads = max((len(fp.heads) for _, _, fp in sched), default=0)
    evals = 1 if discrete else 4
    entries = n * n * heads * evals * total                 # logits over the whole run
    if dtype == "float32":
        backend, device = resolve_backend(backend, device, entries)
    elif backend == "torch" or device == "cuda":
        raise ProblemError("dtype 'float64' is the numpy CPU kernel; use backend numpy (or "
                           "auto) and device cpu (or auto), or dtype 'float32'")
    else:
        backend, device = "numpy", "cpu"
    stride = max(1, math.ceil(total / (record if record else 400)))
    snap_t = sorted(float(as_time(s, "snapshot time")) for s in snapshots)
    times, means, covs, snaps, snap_at = [0.0], [X.mean(0)], [np.cov(X.T, ddof=1).reshape(
        problem.d, problem.d)], [], []
    if snap_t and snap_t[0] <= 0:
        while snap_t and snap_t[0] <= 0:
            snaps.append(_frozen(X))
            snap_at.append(0.0)
            snap_t.pop(0)
    bar = _progress_bar(progress, total, entries,
                        f"simulate N={n} ({backend}, {device})")
    tick = None if bar is None else (lambda f: bar.update(f / evals))
    tau, done = 0.0, 0
    try:
        for h, k, fp in sched:
            def vel(Y, fp=fp):
                return velocity(Y, fp, ff, block=block, dtype=dtype, backend=backend,
                                device=device, progress=tick)
            for _ in range(k):
                if discrete:                        # X + h v(X), in v's memory
                    v = vel(X)
                    v *= h
                    v += X
                    X = v
                else:
                    X = _rk4_step(X, h, vel)
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
    finally:
        if bar is not None:
            bar.close()
    return ParticleRun(n=n, d=problem.d, t=t_end, steps=steps, seed=seed, ff=ff,
                       scheme="residual" if discrete else "rk4",
                       times=_frozen(times), means=_frozen(means), covs=_frozen(covs),
                       tokens=_frozen(X), snapshot_times=tuple(snap_at), snapshots=tuple(snaps),
                       attention=(dtype, backend, device))


def _progress_bar(progress, steps: int, entries: int, desc: str):
    """A tqdm bar over the steps on stderr, or None (see ``simulate``'s ``progress``)."""
    import sys
    if progress is None:
        progress = sys.stderr.isatty() and entries >= PROGRESS_MIN_ENTRIES
    if not progress or steps == 0:
        return None
    from tqdm import tqdm
    return tqdm(total=steps, desc=desc, unit="step", file=sys.stderr, leave=False,
                bar_format="{l_bar}{bar}| {n:.1f}/{total} steps [{elapsed}<{remaining}]")
