"""One self-attention layer at N = 10^4 and 10^5, d = 16: blocked (symgauss.tokens.simulate.attention)
beside the naive N×N numpy version (baseline, measured in the same run where it fits in memory).

Prints wall time, peak traced memory (tracemalloc: numpy buffers are traced) and the ratio to
the baseline. The naive version is skipped where its float64 N×N matrix would not fit (it needs
N²·8 bytes for the logits alone: 80 GB at N = 10^5), and the table says what it would need.

    python benchmarks/bench_attention.py [--sizes 10000 100000] [--d 16] [--dtype float64]
"""
from __future__ import annotations

import argparse
import os
import platform
import time
import tracemalloc

import numpy as np

from symgauss.tokens.simulate import attention, attention_direct


def _measure(f):
    tracemalloc.start()
    t = time.perf_counter()
    out = f()
    wall = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, wall, peak


def _available_bytes():
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 4 << 30


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--d", type=int, default=16)
    ap.add_argument("--dtype", default="float64", choices=("float64", "float32"))
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")), platform.processor())
    print(f"# {time.strftime('%Y-%m-%d')}  nproc={os.cpu_count()}  cpu={cpu}  "
          f"load={os.getloadavg()[0]:.1f}  numpy={np.__version__}  dtype={args.dtype}")
    print(f"{'N':>7} {'d':>3} {'blocked s':>10} {'blocked MB':>10} {'naive s':>9} "
          f"{'naive MB':>9} {'time ratio':>10} {'max |diff|':>10}")
    rng = np.random.default_rng(0)
    d = args.d
    heads = [(-np.eye(d), np.eye(d) / np.sqrt(d))]
    for n in args.sizes:
        X = rng.standard_normal((n, d))
        out, wall, peak = _measure(lambda: attention(X, heads, dtype=args.dtype,
                                                     workers=args.workers))
        need = 3 * n * n * 8                       # logits, weights and a temporary
        if need < 0.5 * _available_bytes():
            ref, wall0, peak0 = _measure(lambda: attention_direct(X, heads))
            diff = float(np.abs(out - ref).max())
            print(f"{n:>7} {d:>3} {wall:10.2f} {peak / 1e6:10.1f} {wall0:9.2f} "
                  f"{peak0 / 1e6:9.1f} {wall / wall0:10.2f} {diff:10.1e}")
        else:
            print(f"{n:>7} {d:>3} {wall:10.2f} {peak / 1e6:10.1f} {'skipped':>9} "
                  f"{'~' + format(n * n * 8 / 1e9, '.0f') + ' GB':>9} {'—':>10} {'—':>10}"
                  f"   (naive needs {n * n * 8 / 1e9:.0f} GB for one float64 N×N matrix)")


if __name__ == "__main__":
    main()
