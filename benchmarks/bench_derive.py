"""derive_closure with fully symbolic parameters, d = 1..8, beside the naive route.

Naive route (the baseline): ask SymPy to integrate the Gaussian attention integral
∫ y_1 e^{yᵀw} N(y; m, Σ) dy over R^d directly (one coordinate of the numerator,
symbolic w, m and diagonal Σ — already easier than the general case), in a subprocess
with a time limit per d.

Usage: python benchmarks/bench_derive.py [--max-dim 8] [--naive-timeout 60]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import time


def _naive(d, queue):
    import sympy as sp
    y = sp.symbols(f"y1:{d + 1}", real=True)
    w = sp.symbols(f"w1:{d + 1}", real=True)
    m = sp.symbols(f"m1:{d + 1}", real=True)
    s = sp.symbols(f"s1:{d + 1}", positive=True)
    dens = sp.Mul(*[sp.exp(-(y[i] - m[i]) ** 2 / (2 * s[i])) / sp.sqrt(2 * sp.pi * s[i])
                    for i in range(d)])
    expr = y[0] * sp.exp(sum(w[i] * y[i] for i in range(d))) * dens
    for i in range(d):
        expr = sp.integrate(expr, (y[i], -sp.oo, sp.oo))
    queue.put(str(expr)[:60])


def naive_time(d, timeout):
    q = mp.Queue()
    p = mp.Process(target=_naive, args=(d, q))
    t0 = time.perf_counter()
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.terminate()
        p.join()
        return None
    return time.perf_counter() - t0 if p.exitcode == 0 else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-dim", type=int, default=8)
    ap.add_argument("--naive-timeout", type=float, default=60.0)
    ap.add_argument("--naive-max-dim", type=int, default=4,
                    help="stop the naive route after the first timeout or at this d")
    args = ap.parse_args()
    from symgauss.closure.derive import derive_closure
    derive_closure(1)  # warm caches / imports
    print(f"{'d':>2} {'derive (s)':>11} {'discrete (s)':>13} {'naive integrate (s)':>20} "
          f"{'ratio naive/derive':>19}")
    naive_alive = True
    for d in range(1, args.max_dim + 1):
        t0 = time.perf_counter()
        c = derive_closure(d)
        t_derive = time.perf_counter() - t0
        assert c.status == "proved"
        t0 = time.perf_counter()
        derive_closure(d, depth="discrete")
        t_disc = time.perf_counter() - t0
        naive = None
        if naive_alive and d <= args.naive_max_dim:
            naive = naive_time(d, args.naive_timeout)
            naive_alive = naive is not None
            naive_txt = f"> {args.naive_timeout:.0f} (timeout)" if naive is None else f"{naive:.2f}"
        else:
            naive_txt = "not run"
        ratio = f"{naive / t_derive:.1f}" if naive else (
            f"> {args.naive_timeout / t_derive:.1f}" if naive_txt.startswith(">") else "-")
        print(f"{d:>2} {t_derive:>11.2f} {t_disc:>13.2f} {naive_txt:>20} {ratio:>19}", flush=True)


if __name__ == "__main__":
    main()
