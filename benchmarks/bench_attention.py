"""One self-attention layer, d = 16, N = 10^4 and 10^5: what a user runs and the kernels inside.

Rows (each measured in its own fresh process, so that its peak RSS is its own):

- ``cli float32`` — the whole ``symgauss simulate-particles P.json --n N --t 1/16 --steps 1
  --discrete --json`` process (start-up, sampling, one residual layer = one attention layer,
  moment ODE, JSON), default options (float32 kernel, backend auto);
- ``cli float64`` — the same command with ``--precision float64``: the previous behaviour
  (numpy float64 blocked kernel), the named baseline of the CLI row;
- ``attention float32 torch`` / ``numpy`` — :func:`symgauss.tokens.attention.attention`
  alone (in-process figure; wall time of the call, peak RSS of the process);
- ``attention float64 numpy`` — the previous numpy float64 blocked kernel (baseline);
- ``naive N×N`` — :func:`attention_direct` (full softmax matrix) where it fits in memory.

Ratios are baseline time / time, measured in the same run. ``max |diff|`` is against the float64
kernel, and ``diff/bound`` the largest ratio of the error to the stated bound
(:func:`attention_error_bound`; must be ≤ 1). Peak RSS is ``ru_maxrss`` of the process; CPU s
its user + system time (less sensitive than wall time to other jobs on the machine).

``--stream`` runs one layer at N = 10^6, d = 64 (float32, backend auto) for its peak RSS and
wall time: the keys are stored once as float32 [v, 1] (N·65·4 B = 260 MB), beside the float64
tokens and output (512 MB each); never an N×N matrix (4 TB). The whole layer is 10^12 logits
(about an hour on 2 cores); ``--stream-queries Q`` computes only Q query rows against all 10^6
keys while holding the full-size output, so the memory is that of the whole layer (the other
rows are further blocks of the same loop) and the time is extrapolated ×N/Q.

    python benchmarks/bench_attention.py [--sizes 10000 100000] [--d 16] [--stream]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np


def _heads(d):
    """One head V = −I, B = I/√d (the problem file holds the same B as an exact rational)."""
    return [(-np.eye(d), float(_b(d)) * np.eye(d))]


def _b(d):
    return Fraction(1 / np.sqrt(d)).limit_denominator(10 ** 6)


def _tokens(n, d):
    return np.random.default_rng(0).standard_normal((n, d))


def worker(n, d, backend, dtype, out_path, queries):
    """Run one layer in this process; print wall time and peak RSS as JSON."""
    import resource

    from symgauss.tokens.attention import attention, attention_direct
    X = _tokens(n, d)
    Q = X if queries is None else X[:queries]
    if queries is not None:                # the full N×d float64 output, as a full run holds it
        full = np.ones_like(X)
    if backend != "naive":                 # warm: imports (torch) and thread pools
        attention(X[:64], _heads(d), backend=backend, dtype=dtype)
    ru = resource.getrusage(resource.RUSAGE_SELF)
    cpu0 = ru.ru_utime + ru.ru_stime
    t = time.perf_counter()
    if backend == "naive":
        out = attention_direct(X, _heads(d))
    else:
        out = attention(Q, _heads(d), keys=X, backend=backend, dtype=dtype)
    wall = time.perf_counter() - t
    if queries is not None:
        full[:queries] = out
    if out_path:
        np.save(out_path, out)
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"wall": wall, "rss": ru.ru_maxrss * 1024,
                      "cpu": ru.ru_utime + ru.ru_stime - cpu0}))


def _in_process(n, d, backend, dtype, out_path=None, queries=None):
    cmd = [sys.executable, __file__, "--worker", str(n), str(d), backend, dtype,
           out_path or "", "" if queries is None else str(queries)]
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def _cli(problem, n, precision):
    """Wall time and peak RSS of the whole symgauss process (a wrapper reads its rusage)."""
    sg = [sys.executable, "-m", "symgauss", "simulate-particles", str(problem), "--n", str(n),
          "--t", "1/16", "--steps", "1", "--discrete", "--json", "--precision", precision]
    wrap = ("import resource, subprocess, sys, time, json; t = time.perf_counter(); "
            "r = subprocess.run(sys.argv[1:], capture_output=True); w = time.perf_counter() - t; "
            "assert r.returncode == 0, r.stderr; "
            "ru = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print(json.dumps({'wall': w, 'rss': ru.ru_maxrss * 1024, 'cpu': ru.ru_utime + "
            "ru.ru_stime, 'kernel': json.loads(r.stdout)['attention']}))")
    r = subprocess.run([sys.executable, "-c", wrap, *sg], capture_output=True, text=True,
                       check=True)
    return json.loads(r.stdout)


def _problem_file(folder, d):
    eye = [[1 if i == j else 0 for j in range(d)] for i in range(d)]
    b = str(_b(d))
    spec = {"name": f"bench d={d}", "cov0": eye, "mean0": [0] * d,
            "A": [[0] * d for _ in range(d)], "V": [[-x for x in row] for row in eye],
            "B": [[b if i == j else 0 for j in range(d)] for i in range(d)]}
    path = Path(folder) / f"bench_d{d}.json"
    path.write_text(json.dumps(spec))
    return path


def _available_bytes():
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def _header():
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")), platform.processor())
    try:
        import torch
        tv = f"torch {torch.__version__} ({torch.backends.cpu.get_cpu_capability()})"
    except ImportError:
        tv = "torch not installed"
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}  nproc={os.cpu_count()}  cpu={cpu}  "
          f"load={os.getloadavg()[0]:.1f}  numpy {np.__version__}  {tv}")


def _row(label, n, d, dtype, rec, speed="baseline", vs="", diff=""):
    print(f"{label:<26} {n:>8} {d:>3} {dtype:>8} {rec['wall']:9.2f} {rec['cpu']:8.1f} "
          f"{rec['rss'] / 1e6:8.0f} {speed:>9} {vs:<13} {diff}")


def run_sizes(sizes, d, skip_cli):
    from symgauss.tokens.attention import attention_error_bound
    have_torch = subprocess.run([sys.executable, "-c", "import torch"],
                                capture_output=True).returncode == 0
    print(f"{'row':<26} {'N':>8} {'d':>3} {'dtype':>8} {'wall s':>9} {'CPU s':>8} {'RSS MB':>8} "
          f"{'speed-up':>9} {'vs':<13} max |diff| vs float64 (diff/bound)")
    with tempfile.TemporaryDirectory() as tmp:
        problem = _problem_file(tmp, d)
        for n in sizes:
            if not skip_cli:
                c64 = _cli(problem, n, "float64")
                c32 = _cli(problem, n, "float32")
                _row("cli --precision float64", n, d, "float64", c64)
                _row(f"cli default ({c32['kernel']['backend']})", n, d, "float32", c32,
                     f"{c64['wall'] / c32['wall']:.2f}", "cli float64")
            ref_path = str(Path(tmp) / "f64.npy")
            b64 = _in_process(n, d, "numpy", "float64", ref_path)
            ref = np.load(ref_path)
            _row("attention numpy float64", n, d, "float64", b64)
            X = _tokens(n, d)
            bound = attention_error_bound(X, _heads(d))
            for backend in (["torch"] if have_torch else []) + ["numpy"]:
                path = str(Path(tmp) / f"{backend}.npy")
                rec = _in_process(n, d, backend, "float32", path)
                err = np.abs(np.load(path) - ref).max(axis=1)
                _row(f"attention {backend} float32", n, d, "float32", rec,
                     f"{b64['wall'] / rec['wall']:.2f}", "numpy float64",
                     f"{err.max():.1e} ({(err / bound).max():.4f})")
            if 3 * n * n * 8 < 0.5 * _available_bytes():
                path = str(Path(tmp) / "naive.npy")
                rec = _in_process(n, d, "naive", "float64", path)
                _row("naive N×N float64", n, d, "float64", rec,
                     f"{rec['wall'] / b64['wall']:.2f}", "(f64 / naive)",
                     f"{np.abs(np.load(path) - ref).max():.1e}")
            else:
                print(f"{'naive N×N float64':<26} {n:>8} {d:>3}  skipped: one float64 N×N "
                      f"matrix needs {n * n * 8 / 1e9:.0f} GB")


def run_stream(n, d, queries):
    rec = _in_process(n, d, "auto", "float32", None, queries)
    if queries is None:
        what = f"all {n} queries: wall {rec['wall']:.1f} s"
    else:
        what = (f"{queries} of the {n} query rows (full-size output held): wall "
                f"{rec['wall']:.1f} s, whole layer ≈ {rec['wall'] * n / queries / 60:.0f} min")
    print(f"stream: N = {n}, d = {d}, float32 (backend auto), {what}; peak RSS "
          f"{rec['rss'] / 1e9:.2f} GB, CPU {rec['cpu']:.0f} s (one float32 N×N matrix: "
          f"{n * n * 4 / 1e12:.1f} TB)")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        n, d, backend, dtype, out, q = sys.argv[2:8]
        worker(int(n), int(d), backend, dtype, out, int(q) if q else None)
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--d", type=int, default=16)
    ap.add_argument("--skip-cli", action="store_true", help="only the in-process rows")
    ap.add_argument("--stream", action="store_true", help="also N = 10^6, d = 64 (long)")
    ap.add_argument("--stream-n", type=int, default=1_000_000)
    ap.add_argument("--stream-d", type=int, default=64)
    ap.add_argument("--stream-queries", type=int, default=None)
    ap.add_argument("--only-stream", action="store_true")
    args = ap.parse_args()
    _header()
    if not args.only_stream:
        run_sizes(args.sizes, args.d, args.skip_cli)
    if args.stream or args.only_stream:
        run_stream(args.stream_n, args.stream_d, args.stream_queries)


if __name__ == "__main__":
    main()
