"""Softmax self-attention over N tokens, streamed in tiles: memory O(tile + N·d), never N×N.

For every query x_i and keys y_j (j = 1..N) one head (V, B) gives
V · Σ_j y_j e^{(B x_i)·y_j} / Σ_j e^{(B x_i)·y_j}; :func:`attention` sums the heads.

Two algorithms (``dtype``):

- ``"float32"`` (default): the keys are centred (v_j = y_j − ȳ, which leaves the softmax
  unchanged) and stored once in float32 as rows [v_j, 1] (N·(d+1)·4 bytes). Queries go in
  blocks, keys in chunks of ``chunk`` (default :data:`KEY_CHUNK`); per tile one float32 GEMM
  gives the logits minus a per-row anchor a_i (the anchor enters the GEMM as the extra
  column), one vectorised ``exp``, and one float32 GEMM with [v_j, 1] (torch: a GEMM with
  v_j and a row sum) gives the chunk's weighted sum and normaliser, which are accumulated in
  **float64** across chunks. The
  anchor is the row's largest logit in the first chunk (so the normaliser is ≥ 1); rows whose
  float32 sums overflow (a later logit more than ~88 above it) are recomputed with the anchor
  at their largest logit over all keys (stable log-sum-exp, streamed). Backends: torch
  (vectorised ``exp``, oneDNN/MKL GEMMs, CPU or CUDA) or numpy, the same algorithm.
- ``"float64"``: numpy, the earlier blocked kernel (row maximum subtracted, one float64
  GEMM with [keys | 1] over all N keys), kept as the named baseline of
  ``benchmarks/bench_attention.py``; it agrees with :func:`attention_direct` to ~1e-15
  relative.

Tolerance of the float32 kernel (:func:`attention_error_bound`; tested against
:func:`attention_direct` and between the backends): with u = 2⁻²⁴, c the key chunk and, per
head, q_i = B x_i, R = max_j ‖v_j‖∞, M = max_j ‖v_j‖₂,

    ‖computed_i − exact_i‖∞ ≤ Σ_h ‖V_h‖∞ · [2R(e^{2η_i} − e^{η_i}) + (2c + 1)·u·R + f64 terms],
    η_i = (2d + 4)·u·‖q_i‖₂·M + 4u.

Derivation (standard rounding-error bounds, first order in u for each sum): the logit dot
product of length d + 1 (with the rounding of q and v to float32, and the anchor
|a_i| ≤ ‖q_i‖₂M) is off by at most (2d + 4)u‖q_i‖₂M; ``exp`` adds a relative 4u (measured
here: torch 1.04u, numpy 3.6u); so every weight is within a factor e^{±η_i}, which moves the
weighted mean by at most 2R(e^{2η} − e^{η}). The float32 chunk sums of c terms add
(2c + 1)uR; weights that underflow change them by less than N·2⁻¹⁴⁹. The float64 terms are
(N/c + d + 4)·2⁻⁵³·(‖ȳ‖∞ + R). It is a worst-case bound: rounding errors mostly cancel, and
the measured errors are typically several hundred times smaller. On torch the bound needs
full float32 GEMMs: a float32 matmul precision other than ``"highest"`` (TF32, bfloat16) is
refused.

Everything here is sampling input: the level of every result is ``"float"``.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.standard_normal((50, 2))
>>> heads = [(np.eye(2), np.eye(2))]
>>> ref = attention_direct(X, heads)
>>> bool(np.allclose(attention(X, heads, block=7, dtype="float64"), ref, atol=1e-12))
True
>>> err = np.abs(attention(X, heads, backend="numpy", chunk=16) - ref).max(axis=1)
>>> bool(np.all(err <= attention_error_bound(X, heads, chunk=16)))
True
"""
from __future__ import annotations

import os

import numpy as np

from symgauss.kernel.errors import ProblemError, UnsupportedError
from symgauss.tokens.attention_torch import overflow_error

#: entries of one float64 logits block of the numpy float64 kernel: 2**22 × 8 B = 32 MB
BLOCK_ENTRIES = 1 << 22
#: keys per chunk of the float32 kernel (the length of its float32 sums; enters the bound)
KEY_CHUNK = 256
#: queries per block of the float32 kernel on the CPU (tile 1024 × 256 float32 = 1 MB)
QUERY_BLOCK = 1024
#: below this many logits (n·N·heads, over a whole run) "auto" stays on numpy: importing torch
#: (2–3 s here) costs more than its faster kernel saves (~1 ns per logit on 2 cores)
TORCH_MIN_ENTRIES = 1 << 31
#: relative error of float32 ``exp`` assumed by the bound, in units of u = 2⁻²⁴ (measured over
#: 2·10⁷ points in [−87, 60]: torch 1.04, numpy 3.6)
EXP_ERROR_U = 4.0

BACKENDS = ("auto", "numpy", "torch")
DEVICES = ("auto", "cpu", "cuda")
DTYPES = ("float32", "float64")


def _torch_or_none():
    try:
        import torch
    except ImportError:
        return None
    return torch


def resolve_backend(backend: str = "auto", device: str = "auto", entries: int | None = None):
    """(backend, device) actually used for ``backend`` / ``device`` and a problem size.

    ``device="auto"`` is ``"cuda"`` when torch is installed and sees a GPU, else ``"cpu"``.
    ``backend="auto"`` is torch when installed (it is needed for CUDA), numpy otherwise; for
    small problems (fewer than :data:`TORCH_MIN_ENTRIES` logits in the whole run,
    ``entries``) ``auto`` stays on numpy and the CPU without importing torch, whose import
    costs more than its faster kernel saves there. Both backends compute the same float32 algorithm with the same
    error bound. Asking for ``cuda`` without a GPU, or for torch without torch, is an
    :class:`UnsupportedError` naming the fix.

    >>> resolve_backend("numpy", "cpu")
    ('numpy', 'cpu')
    """
    if backend not in BACKENDS:
        raise ProblemError(f"backend = {backend!r} is unknown; use one of {', '.join(BACKENDS)}")
    if device not in DEVICES:
        raise ProblemError(f"device = {device!r} is unknown; use one of {', '.join(DEVICES)}")
    small = entries is not None and entries < TORCH_MIN_ENTRIES
    if backend == "numpy" or (backend == "auto" and device == "auto" and small):
        if device == "cuda":
            raise ProblemError("backend 'numpy' runs on the CPU only; use --backend torch (or "
                               "auto) with --device cuda")
        return "numpy", "cpu"
    torch = _torch_or_none()
    if device == "cuda":
        if torch is None:
            raise UnsupportedError("device 'cuda' needs torch (the 'ml' extra), which is not "
                                   "installed; use --device cpu")
        if not torch.cuda.is_available():
            raise UnsupportedError("device 'cuda' was asked for but torch sees no CUDA GPU on "
                                   "this machine; use --device cpu (or auto)")
        return "torch", "cuda"
    if torch is None:
        if backend == "torch":
            raise UnsupportedError("backend 'torch' needs torch (the 'ml' extra), which is not "
                                   "installed; use --backend numpy (or auto)")
        return "numpy", "cpu"
    if device == "auto" and torch.cuda.is_available():
        return "torch", "cuda"
    return ("numpy" if backend == "auto" and small else "torch"), "cpu"


def _check_inputs(X, heads, keys):
    X = np.asarray(X, dtype=float)
    Y = X if keys is None else np.asarray(keys, dtype=float)
    if X.ndim != 2 or Y.ndim != 2 or X.shape[1] != Y.shape[1]:
        raise ProblemError(f"attention: queries {X.shape} and keys {Y.shape} must be 2-D "
                           "arrays (n, d) and (N, d) with the same d")
    if Y.shape[0] < 1:
        raise ProblemError("attention: there must be at least one key")
    if not (np.isfinite(X).all() and np.isfinite(Y).all()):
        raise ProblemError("attention: the tokens contain NaN or inf (did the simulation "
                           "overflow? use fewer steps or a shorter time)")
    d = X.shape[1]
    heads = [(np.asarray(V, dtype=float), np.asarray(B, dtype=float)) for V, B in heads]
    for V, B in heads:
        if V.shape != (d, d) or B.shape != (d, d):
            raise ProblemError(f"attention: head matrices V {V.shape}, B {B.shape} must be "
                               f"{d}×{d}")
    return X, Y, heads


def _positive(value, name):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < 1:
        raise ProblemError(f"{name} = {value!r} must be a positive integer")
    return int(value)


def attention(X, heads, *, keys=None, block: int | None = None, chunk: int | None = None,
              workers: int | None = None, dtype: str = "float32", backend: str = "auto",
              device: str = "auto", progress=None) -> np.ndarray:
    """Σ_h V_h (softmax-weighted mean of the keys) for every query row of ``X``.

    Parameters
    ----------
    X : (n, d) array of queries.
    heads : sequence of (V, B) float d×d arrays.
    keys : (N, d) array of keys/values (default: ``X`` itself, self-attention).
    block : queries per block (default :data:`QUERY_BLOCK`; float64: as many as fit in
        :data:`BLOCK_ENTRIES` logits).
    chunk : keys per chunk of the float32 kernel (default :data:`KEY_CHUNK`).
    workers : CPU threads sharing the query blocks (default: the number of CPUs); BLAS and
        torch run one thread each meanwhile (restored afterwards).
    dtype : ``"float32"`` (default: float32 logits, weights and chunk sums, float64
        accumulation; error within :func:`attention_error_bound`) or ``"float64"`` (the numpy
        float64 baseline, ~1e-15 relative).
    backend : ``"auto"`` (see :func:`resolve_backend`), ``"torch"`` or ``"numpy"``.
    device : ``"auto"``, ``"cpu"`` or ``"cuda"`` (torch only).
    progress : optional callable, called with the fraction of the work done by each finished
        query block (for a progress bar).

    Returns
    -------
    (n, d) float64 array.
    """
    if dtype not in DTYPES:
        raise ProblemError(f"dtype = {dtype!r} is unknown; use 'float32' or 'float64'")
    X, Y, heads = _check_inputs(X, heads, keys)
    block, chunk, workers = (_positive(block, "block"), _positive(chunk, "chunk"),
                             _positive(workers, "workers"))
    heads = [(V, B) for V, B in heads if V.any()]
    n, N = X.shape[0], Y.shape[0]
    if dtype == "float64":
        if backend == "torch" or device == "cuda":
            raise ProblemError("dtype 'float64' is the numpy baseline kernel; use "
                               "backend 'numpy' on the CPU, or dtype 'float32'")
        resolve_backend("numpy", device)
        return _blocked_float64(X, Y, heads, block, workers, progress)
    backend, device = resolve_backend(backend, device, n * N * max(len(heads), 1))
    out = np.zeros_like(X)
    if not heads or n == 0:
        return out
    chunk = chunk or KEY_CHUNK
    Y32, ybar = _centred_keys(Y)
    if backend == "torch":
        from symgauss.tokens.attention_torch import tiled_torch
        tiled_torch(X, Y32, ybar, heads, out, block=block or QUERY_BLOCK, chunk=chunk,
                    workers=_workers(workers, device), device=device, progress=progress)
    else:
        _tiled_numpy(X, Y32, ybar, heads, out, block=block or QUERY_BLOCK, chunk=chunk,
                     workers=_workers(workers, device), progress=progress)
    return out


def _workers(workers, device):
    if device == "cuda":
        return 1
    return max(1, workers or os.cpu_count() or 1)


def _centred_keys(Y):
    """([Y − ȳ, 1] as float32 (N, d+1), ȳ float64), built in row slices (no N×d float64 copy)."""
    N, d = Y.shape
    ybar = Y.mean(axis=0)
    Y32 = np.empty((N, d + 1), dtype=np.float32)
    step = 1 << 16
    for s in range(0, N, step):
        Y32[s:s + step, :d] = Y[s:s + step] - ybar
    Y32[:, d] = 1.0
    return Y32, ybar


def _tiled_numpy(X, Y32, ybar, heads, out, *, block, chunk, workers, progress):
    """The float32 tiled kernel in numpy (see the module docstring)."""
    from concurrent.futures import ThreadPoolExecutor
    n, d = X.shape
    total = len(heads) * n
    for V, B in heads:
        BT, VT = np.ascontiguousarray(B.T), np.ascontiguousarray(V.T)

        def work(starts, BT=BT, VT=VT):
            L = np.empty((block, min(chunk, Y32.shape[0])), dtype=np.float32)
            S = np.empty((block, d + 1), dtype=np.float32)
            for s in starts:
                qa = np.zeros((min(block, n - s), d + 1), dtype=np.float32)
                qa[:, :d] = X[s:s + block] @ BT
                m = qa.shape[0]
                with np.errstate(over="ignore", invalid="ignore"):
                    qa[:, d] = -(qa @ Y32[:chunk].T).max(axis=1)   # anchor: chunk 0 maximum
                acc = _sums_numpy(qa, Y32, L[:m], S[:m], chunk)
                bad = ~np.isfinite(acc).all(axis=1)
                if bad.any():
                    _reanchor_numpy(qa, acc, bad, Y32, L, S, chunk)
                out[s:s + m] += (acc[:, :d] / acc[:, d:] + ybar) @ VT
                if progress is not None:
                    progress(m / total)

        _run_blocks(work, n, block, workers, ThreadPoolExecutor)


def _sums_numpy(qa, Y32, L, S, chunk):
    """float64 Σ_j e^{q·v_j − a}·[v_j, 1] over all keys, float32 within each chunk."""
    acc = np.zeros(qa.shape)
    with np.errstate(over="ignore", invalid="ignore"):      # overflow is caught by the caller
        for k in range(0, Y32.shape[0], chunk):
            Yk = Y32[k:k + chunk]
            Lt = L[:, :Yk.shape[0]]
            np.matmul(qa, Yk.T, out=Lt)
            np.exp(Lt, out=Lt)
            np.matmul(Lt, Yk, out=S)
            acc += S
    return acc


def _reanchor_numpy(qa, acc, bad, Y32, L, S, chunk):
    """Rows ``bad`` overflowed float32: set their anchor to their largest logit over all keys
    and recompute their sums (in place); an overflow then is an error."""
    rows = np.flatnonzero(bad)
    q = qa[rows]
    with np.errstate(over="ignore", invalid="ignore"):
        top = np.max([(q @ Y32[k:k + chunk].T).max(axis=1)
                      for k in range(0, Y32.shape[0], chunk)], axis=0)
    if not np.isfinite(top).all():
        raise overflow_error("logits")
    q[:, -1] -= top                               # anchor + top, rounded to float32 once
    m = q.shape[0]
    res = _sums_numpy(q, Y32, L[:m], S[:m], chunk)
    if not np.isfinite(res).all():
        raise overflow_error("sums")
    qa[rows] = q
    acc[rows] = res


def _run_blocks(work, n, block, workers, pool_cls):
    """Split the query blocks over ``workers`` threads (BLAS single-threaded meanwhile)."""
    starts = list(range(0, n, block))
    workers = min(workers, len(starts))
    with _single_threaded_blas():
        if workers == 1:
            work(starts)
        else:
            with pool_cls(workers) as pool:
                list(pool.map(work, [starts[i::workers] for i in range(workers)]))


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


def _block_size(n_queries: int, n_keys: int, block: int | None) -> int:
    if block is not None:
        return block
    return max(1, min(n_queries, BLOCK_ENTRIES // max(n_keys, 1)))


def _blocked_float64(X, Y, heads, block, workers, progress):
    """The numpy float64 baseline: blocks of queries against all keys, row maximum
    subtracted before ``exp``, one GEMM with [keys | 1] for the weighted sum and normaliser."""
    from concurrent.futures import ThreadPoolExecutor
    n, N = X.shape[0], Y.shape[0]
    workers = max(1, workers or os.cpu_count() or 1)
    nb = _block_size(n, N, block)
    if block is None and workers > 1:
        nb = max(1, min(nb, -(-n // workers)))
    YT = np.ascontiguousarray(Y.T)                        # (d, N): fast contiguous GEMM
    Y1 = np.hstack([Y, np.ones((N, 1))])
    out = np.zeros_like(X)
    total = max(len(heads), 1) * max(n, 1)
    for V, B in heads:
        Q = X @ B.T                                       # rows B x_i: logit_ij = (B x_i)·y_j
        avg = np.empty((n, Y.shape[1]))

        def work(starts, Q=Q, avg=avg):
            buf = np.empty((min(nb, n), N))
            for s in starts:
                q = Q[s:s + nb]
                L = buf[:q.shape[0]]
                np.matmul(q, YT, out=L)
                L -= L.max(axis=1, keepdims=True)
                np.exp(L, out=L)
                S = L @ Y1
                avg[s:s + nb] = S[:, :-1] / S[:, -1:]
                if progress is not None:
                    progress(q.shape[0] / total)

        _run_blocks(work, n, nb, workers, ThreadPoolExecutor)
        out += avg @ V.T
    return out


def attention_direct(X, heads) -> np.ndarray:
    """The same as :func:`attention` with the full N×N float64 softmax (reference only)."""
    X = np.asarray(X, dtype=float)
    out = np.zeros_like(X)
    for V, B in heads:
        L = X @ np.asarray(B, dtype=float).T @ X.T
        W = np.exp(L - L.max(axis=1, keepdims=True))
        W /= W.sum(axis=1, keepdims=True)
        out += W @ X @ np.asarray(V, dtype=float).T
    return out


def attention_error_bound(X, heads, *, keys=None, chunk: int | None = None) -> np.ndarray:
    """Per query row, the bound of the module docstring on ‖attention(X, …) − exact‖∞ for the
    float32 kernel (either backend, any block size, key chunk ``chunk``)."""
    X, Y, heads = _check_inputs(X, heads, keys)
    u, u64 = 2.0 ** -24, 2.0 ** -53
    N, d = Y.shape
    c = min(_positive(chunk, "chunk") or KEY_CHUNK, N)
    ybar = Y.mean(axis=0)
    v = Y - ybar
    R = float(np.abs(v).max())
    M = float(np.linalg.norm(v, axis=1).max())
    f64 = (N / c + d + 4) * u64 * (float(np.abs(ybar).max()) + R)
    tol = np.zeros(X.shape[0])
    for V, B in heads:
        if not V.any():
            continue
        eta = (2 * d + 4) * u * np.linalg.norm(X @ B.T, axis=1) * M + EXP_ERROR_U * u
        tol += float(np.abs(V).sum(axis=1).max()) * (
            2 * R * (np.exp(2 * eta) - np.exp(eta)) + (2 * c + 1) * u * R + f64)
    return tol
