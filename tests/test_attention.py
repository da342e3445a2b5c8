"""Streamed attention kernels: the float32 kernel within its stated error bound of the N×N
float64 reference, on both backends; the float64 baseline; re-anchoring; memory; bad input."""
import importlib.util
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symgauss.kernel.errors import ProblemError, UnsupportedError
from symgauss.tokens import attention as att
from symgauss.tokens.attention import (
    attention,
    attention_direct,
    attention_error_bound,
    resolve_backend,
)

HAVE_TORCH = importlib.util.find_spec("torch") is not None
BACKENDS = ["numpy", pytest.param("torch", marks=pytest.mark.skipif(
    not HAVE_TORCH, reason="torch (the 'ml' extra) is not installed"))]


def _reference_slack(ref):
    """The float64 N×N reference's own error: it agrees with the float64 kernel to 1e-12
    (test_float64_baseline_equals_direct), negligible beside the float32 bound (≥ 1e-7·R)."""
    return 1e-12 * max(1.0, float(np.abs(ref).max()))


def _heads(rng, d, k, scale):
    return [(rng.standard_normal((d, d)), scale * rng.standard_normal((d, d))) for _ in range(k)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chunk,block", [(3, 5), (7, 13), (64, 50), (None, None)])
@pytest.mark.parametrize("scale", [0.3, 1.0, 4.0])
def test_float32_kernel_is_within_its_bound_of_the_direct_softmax(backend, chunk, block, scale):
    rng = np.random.default_rng(int(10 * scale) + (chunk or 0))
    n, d = 300, 3
    X = rng.standard_normal((n, d)) * 1.5 + rng.standard_normal(d)
    heads = _heads(rng, d, 2, scale)                 # logits up to ~|B||x|² ≈ 100 at scale 4
    ref = attention_direct(X, heads)
    out = attention(X, heads, backend=backend, chunk=chunk, block=block)
    bound = attention_error_bound(X, heads, chunk=chunk)
    err = np.abs(out - ref).max(axis=1)
    assert out.dtype == np.float64 and np.all(err <= bound + _reference_slack(ref))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 40), N=st.integers(1, 90), d=st.integers(1, 5),
       scale=st.floats(0.01, 6.0), chunk=st.integers(1, 40), block=st.integers(1, 50),
       seed=st.integers(0, 2 ** 32 - 1))
def test_bound_holds_for_random_shapes_and_separate_keys(n, N, d, scale, chunk, block, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * 2
    Y = rng.standard_normal((N, d)) * 2 + 1
    heads = _heads(rng, d, 1, scale)
    V, B = heads[0]
    L = X @ B.T @ Y.T
    W = np.exp(L - L.max(axis=1, keepdims=True))
    ref = (W / W.sum(axis=1, keepdims=True)) @ Y @ V.T
    bound = attention_error_bound(X, heads, keys=Y, chunk=chunk)
    for backend in ["numpy"] + (["torch"] if HAVE_TORCH else []):
        out = attention(X, heads, keys=Y, backend=backend, chunk=chunk, block=block, workers=2)
        assert np.all(np.abs(out - ref).max(axis=1) <= bound + _reference_slack(ref))


@pytest.mark.skipif(not HAVE_TORCH, reason="torch (the 'ml' extra) is not installed")
def test_torch_and_numpy_backends_agree_within_the_two_bounds():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((700, 4))
    heads = _heads(rng, 4, 3, 1.0)
    a = attention(X, heads, backend="torch", device="cpu")
    b = attention(X, heads, backend="numpy")
    bound = attention_error_bound(X, heads)
    assert np.all(np.abs(a - b).max(axis=1) <= 2 * bound)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("block", [1, 7, 64, None])
def test_float64_baseline_equals_direct(seed, block):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((150, 3)) * 1.5
    heads = _heads(rng, 3, 2, 1.0)
    ref = attention_direct(X, heads)
    for workers in (1, 2):
        out = attention(X, heads, block=block, workers=workers, dtype="float64")
        assert np.max(np.abs(out - ref)) <= 1e-12 * max(1, np.abs(ref).max())


@pytest.mark.parametrize("backend", BACKENDS)
def test_rows_whose_float32_sums_overflow_are_re_anchored(backend, monkeypatch):
    """The first key chunk holds small keys, a later one a key whose logit is ~200 above
    their maximum: e^200 overflows float32, so the row must be re-anchored (counted)."""
    rng = np.random.default_rng(3)
    d = 2
    Y = np.vstack([0.01 * rng.standard_normal((40, d)), [[100.0, 100.0]],
                   rng.standard_normal((30, d))])
    X = np.array([[1.0, 1.0], [-1.0, 0.5], [0.0, 0.0]])
    heads = [(np.eye(d), np.eye(d))]
    mod = att if backend == "numpy" else pytest.importorskip(
        "symgauss.tokens.attention_torch")
    name = "_reanchor_numpy" if backend == "numpy" else "_reanchor"
    calls = []
    real = getattr(mod, name)
    monkeypatch.setattr(mod, name, lambda *a: calls.append(1) or real(*a))
    out = attention(X, heads, keys=Y, backend=backend, chunk=16)
    L = X @ Y.T
    W = np.exp(L - L.max(axis=1, keepdims=True))
    ref = (W / W.sum(axis=1, keepdims=True)) @ Y
    assert calls
    assert np.all(np.abs(out - ref).max(axis=1) <= attention_error_bound(X, heads, keys=Y,
                                                                         chunk=16))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_attention_is_stable_for_huge_logits(dtype):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((40, 2)) * 100     # logits ~ 1e4: naive exp overflows
    out = attention(X, [(np.eye(2), np.eye(2))], block=5, chunk=8, dtype=dtype)
    assert np.all(np.isfinite(out))
    # each output is a convex combination of the tokens (up to the bound)
    tol = attention_error_bound(X, [(np.eye(2), np.eye(2))], chunk=8).max() + 1e-9
    assert np.all((out >= X.min(axis=0) - tol) & (out <= X.max(axis=0) + tol))


def test_float32_overflow_of_the_logits_is_an_error_naming_float64():
    X = np.array([[1e20, 0.0], [-1e20, 1.0], [0.0, 3.0]])
    heads = [(np.eye(2), np.eye(2))]
    with pytest.raises(ProblemError, match="float64"):
        attention(X, heads, backend="numpy")
    assert np.all(np.isfinite(attention(X, heads, dtype="float64")))


def test_B_zero_gives_the_token_mean():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((300, 4))
    heads = [(rng.standard_normal((4, 4)), np.zeros((4, 4)))]
    out = attention(X, heads, block=13, chunk=10)
    exact = np.tile(X.mean(0) @ heads[0][0].T, (300, 1))
    assert np.all(np.abs(out - exact).max(axis=1) <= attention_error_bound(X, heads, chunk=10))


def test_float32_memory_is_bounded_by_the_tile_never_n_by_n():
    """numpy backend, N = 10⁴: the traced peak is the tokens and [v, 1] in float32 plus the
    tiles, far below one float32 N×N matrix (400 MB)."""
    N, d = 10_000, 4
    X = np.random.default_rng(0).standard_normal((N, d))
    tracemalloc.start()
    attention(X, [(np.eye(d), np.eye(d) / 2)], backend="numpy")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20e6


@pytest.mark.skipif(HAVE_TORCH and __import__("torch").cuda.is_available(),
                    reason="this machine has a CUDA GPU")
def test_cuda_without_a_gpu_is_an_error_naming_the_fix():
    with pytest.raises(UnsupportedError, match="--device cpu"):
        resolve_backend("auto", "cuda")
    with pytest.raises(UnsupportedError):
        attention(np.zeros((3, 2)), [(np.eye(2), np.eye(2))], device="cuda")


def test_backend_choice(monkeypatch):
    assert resolve_backend("numpy", "auto") == ("numpy", "cpu")
    assert resolve_backend("auto", "cpu", entries=10) == ("numpy", "cpu")      # small: numpy
    big = att.TORCH_MIN_ENTRIES
    assert resolve_backend("auto", "cpu", entries=big)[0] == ("torch" if HAVE_TORCH else "numpy")
    monkeypatch.setattr(att, "_torch_or_none", lambda: None)                   # no torch
    assert resolve_backend("auto", "auto", entries=big) == ("numpy", "cpu")
    with pytest.raises(UnsupportedError, match="torch"):
        resolve_backend("torch", "cpu")
    with pytest.raises(UnsupportedError, match="torch"):
        resolve_backend("auto", "cuda")


@pytest.mark.parametrize("kwargs,needle", [
    ({"backend": "jax"}, "backend"), ({"device": "tpu"}, "device"),
    ({"dtype": "float16"}, "dtype"), ({"block": 0}, "block"), ({"chunk": -1}, "chunk"),
    ({"workers": 1.5}, "workers"), ({"dtype": "float64", "backend": "torch"}, "float64"),
    ({"backend": "numpy", "device": "cuda"}, "cuda"),
])
def test_bad_options_are_one_clear_error(kwargs, needle):
    with pytest.raises((ProblemError, UnsupportedError), match=needle):
        attention(np.zeros((3, 2)), [(np.eye(2), np.eye(2))], **kwargs)


@pytest.mark.parametrize("X", [np.array([[np.nan, 0.0], [1.0, 1.0]]), np.zeros((3,)),
                               np.zeros((0, 2))])
def test_bad_tokens_are_rejected(X):
    if X.ndim == 2 and X.shape[0] == 0:
        with pytest.raises(ProblemError, match="at least one key"):
            attention(X, [(np.eye(2), np.eye(2))])
        return
    with pytest.raises(ProblemError):
        attention(X, [(np.eye(2), np.eye(2))])


@pytest.mark.parametrize("backend,dtype", [("numpy", "float32"), ("numpy", "float64"),
                                           pytest.param("torch", "float32", marks=pytest.mark.skipif(
                                               not HAVE_TORCH, reason="torch is not installed"))])
def test_progress_callback_adds_up_to_the_whole_work(backend, dtype):
    rng = np.random.default_rng(8)
    X = rng.standard_normal((100, 3))
    done = []
    attention(X, _heads(rng, 3, 2, 1.0), block=9, backend=backend, dtype=dtype,
              progress=done.append)
    assert len(done) >= 2 * 12 and abs(sum(done) - 1) < 1e-12


@pytest.mark.skipif(not HAVE_TORCH, reason="torch (the 'ml' extra) is not installed")
def test_torch_refuses_reduced_precision_float32_matmuls():
    import torch
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("medium")
    try:
        with pytest.raises(ProblemError, match="highest"):
            attention(np.ones((4, 2)), [(np.eye(2), np.eye(2))], backend="torch", device="cpu")
    finally:
        torch.set_float32_matmul_precision(before)


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_exp_is_as_accurate_as_the_bound_assumes(backend):
    """The bound takes |fl(exp x) − e^x| ≤ EXP_ERROR_U·2⁻²⁴·e^x on float32 arguments."""
    x = np.random.default_rng(0).uniform(-87, 80, 2_000_000).astype(np.float32)
    if backend == "torch":
        import torch
        y = torch.exp(torch.from_numpy(x)).numpy()
    else:
        y = np.exp(x)
    exact = np.exp(x.astype(np.float64))
    assert np.max(np.abs(y - exact) / exact) <= att.EXP_ERROR_U * 2.0 ** -24
