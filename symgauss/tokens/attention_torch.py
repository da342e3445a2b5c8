"""The float32 tiled attention kernel on torch (CPU or CUDA); torch is imported inside.

The algorithm and its error bound are those of :mod:`symgauss.tokens.attention` (which
calls :func:`tiled_torch`); this module holds only the torch loop, so that the numpy side
never imports torch.
"""
from __future__ import annotations

import numpy as np

from symgauss.kernel.errors import ProblemError


def overflow_error(what: str) -> ProblemError:
    """The error for float32 logits or sums that overflow even after re-anchoring."""
    return ProblemError(f"attention: float32 {what} overflow (token coordinates or B too large "
                        "for float32); use dtype='float64' (--precision float64)")


def tiled_torch(X, Y32, ybar, heads, out, *, block: int, chunk: int, workers: int,
                device: str, progress=None) -> None:
    """Add Σ_h V_h·(softmax mean of the keys) to ``out`` (n, d) float64, in place.

    ``Y32`` is [y_j − ȳ, 1] in float32 (N, d+1); ``ybar`` the float64 key mean. On the CPU,
    ``workers`` Python threads share the query blocks with torch held to one intra-op
    thread (restored afterwards); on CUDA one thread drives the GPU.
    """
    from concurrent.futures import ThreadPoolExecutor

    import torch
    if torch.get_float32_matmul_precision() != "highest":
        raise ProblemError("torch's float32 matmul precision is set to "
                           f"{torch.get_float32_matmul_precision()!r} (TF32/bfloat16 GEMMs), "
                           "which voids the attention error bound; call "
                           "torch.set_float32_matmul_precision('highest') or use backend numpy")
    n, d = X.shape
    N = Y32.shape[0]
    dev = torch.device(device)
    Yt = torch.from_numpy(Y32).to(dev)
    total = len(heads) * n
    threads = torch.get_num_threads()
    if dev.type == "cpu":
        torch.set_num_threads(1)
    try:
        for V, B in heads:
            BT = np.ascontiguousarray(B.T)
            VT = np.ascontiguousarray(V.T)

            def work(starts, BT=BT, VT=VT):
                L = torch.empty(block, min(chunk, N), dtype=torch.float32, device=dev)
                S = torch.empty(block, d + 1, dtype=torch.float32, device=dev)
                for s in starts:
                    qa = torch.zeros(min(block, n - s), d + 1, dtype=torch.float32, device=dev)
                    qa[:, :d] = torch.from_numpy(X[s:s + block] @ BT).to(dev)
                    m = qa.shape[0]
                    qa[:, d] = -(qa @ Yt[:chunk].T).amax(1)     # anchor: chunk 0's maximum
                    acc = _sums(torch, qa, Yt, L[:m], S[:m], chunk)
                    bad = ~torch.isfinite(acc.sum(1))
                    if bool(bad.any()):
                        _reanchor(torch, qa, acc, bad, Yt, L, S, chunk)
                    avg = (acc[:, :d] / acc[:, d:]).cpu().numpy()
                    out[s:s + m] += (avg + ybar) @ VT
                    if progress is not None:
                        progress(m / total)

            starts = list(range(0, n, block))
            nw = min(workers, len(starts))
            if nw == 1:
                work(starts)
            else:
                with ThreadPoolExecutor(nw) as pool:
                    list(pool.map(work, [starts[i::nw] for i in range(nw)]))
    finally:
        if dev.type == "cpu":
            torch.set_num_threads(threads)


def _sums(torch, qa, Yt, L, S, chunk):
    """float64 Σ_j e^{q·v_j − a}·[v_j, 1] over all keys, float32 within each chunk."""
    d = qa.shape[1] - 1
    acc = torch.zeros(qa.shape[0], d + 1, dtype=torch.float64, device=qa.device)
    for k in range(0, Yt.shape[0], chunk):
        Yk = Yt[k:k + chunk]
        Lt = L[:, :Yk.shape[0]]
        torch.mm(qa, Yk.T, out=Lt)
        Lt.exp_()
        torch.mm(Lt, Yk[:, :d], out=S[:, :d])      # d columns: faster GEMM than d + 1
        torch.sum(Lt, 1, out=S[:, d])
        acc += S
    return acc


def _reanchor(torch, qa, acc, bad, Yt, L, S, chunk):
    """Rows ``bad`` overflowed float32: set their anchor to their largest logit over all keys
    and recompute their sums (in place); an overflow then is an error."""
    rows = torch.nonzero(bad).flatten()
    q = qa[rows]
    top = torch.stack([(q @ Yt[k:k + chunk].T).amax(1)
                       for k in range(0, Yt.shape[0], chunk)]).amax(0)
    if not bool(torch.isfinite(top).all()):
        raise overflow_error("logits")
    q[:, -1] = q[:, -1] - top                     # anchor + top, rounded to float32 once
    m = q.shape[0]
    res = _sums(torch, q, Yt, L[:m], S[:m], chunk)
    if not bool(torch.isfinite(res).all()):
        raise overflow_error("sums")
    qa[rows] = q
    acc[rows] = res
