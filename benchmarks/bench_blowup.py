"""Certified 30-digit blow-up time vs scipy solve_ivp (DOP853, event at ‖Σ‖ = 1e8).

For V = I, random A, B (B + Bᵀ ⪰ 0) and Σ0 ≻ 0 in d = 2, 4, 8 (fixed seed), times
  * ours: locate + Newton (30 digits) + certified enclosure [T⁻, T⁺] of width 2e-32 (arb proof),
  * scipy: solve_ivp DOP853 (rtol 1e-12, atol 1e-14) on the moment ODE with a terminal event at
    max |Σ_ij| = 1e8 — the float estimate of T*,
each the best of several runs, and prints the digits each obtains (scipy's against the
certified enclosure) and the time ratio ours / scipy.

Run: python benchmarks/bench_blowup.py
"""
from __future__ import annotations

import math
import time
from fractions import Fraction

import mpmath
import numpy as np
from scipy.integrate import solve_ivp

from symgauss import Problem
from symgauss.questions.blowup.enclosure import certify_root, first_root, riccati_data


def problem(d: int, rng) -> Problem:
    def rat(x):
        return str(Fraction(round(x * 8), 8))
    A = [[rat(rng.normal(0, 0.5)) for _ in range(d)] for _ in range(d)]
    G = rng.normal(0, 1, (d, d))
    Bs = G @ G.T / d + 0.2 * np.eye(d)
    K = rng.normal(0, 0.3, (d, d))
    B = [[rat(Bs[i, j] + K[i, j] - K[j, i]) for j in range(d)] for i in range(d)]
    H = rng.normal(0, 1, (d, d))
    S = np.round((H @ H.T / d + np.eye(d)) * 8)
    cov0 = [[str(Fraction(int(S[i, j]), 8)) for j in range(d)] for i in range(d)]
    return Problem(cov0=cov0, A=A, V=np.eye(d, dtype=int).tolist(), B=B)


def ours(p):
    data = riccati_data(p)
    root = first_root(data, digits=30)
    enc = certify_root(data, root, digits=30)
    return enc


def scipy_estimate(p):
    d = p.d
    A = np.array(p.A.tolist(), dtype=float)
    B = np.array(p.B.tolist(), dtype=float)
    S0 = np.array(p.cov0.tolist(), dtype=float)

    def f(_t, y):
        S = y.reshape(d, d)
        M = A + S @ B
        MS = M @ S
        return (MS + MS.T).ravel()

    def event(_t, y):
        return np.max(np.abs(y)) - 1e8
    event.terminal = True
    sol = solve_ivp(f, (0.0, 1e3), S0.ravel(), method="DOP853", rtol=1e-12, atol=1e-14,
                    events=event)
    return float(sol.t_events[0][0]) if sol.t_events[0].size else math.nan


def best_time(fn, repeats):
    out, best = None, math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def main():
    rng = np.random.default_rng(20261129)
    print(f"{'d':>3} {'T* (certified, 30 digits)':>36} {'ours s':>9} {'ours digits':>11} "
          f"{'scipy s':>9} {'scipy digits':>12} {'ratio':>7}")
    for d in (2, 4, 8):
        p = problem(d, rng)
        ours(p), scipy_estimate(p)           # warm-up (imports, caches)
        enc, t_ours = best_time(lambda: ours(p), 5)
        est, t_sp = best_time(lambda: scipy_estimate(p), 5)
        mid = (enc.lower + enc.upper) / 2
        width = float(enc.upper - enc.lower)
        dig_ours = -math.log10(width / float(mid))
        dig_sp = -math.log10(abs(est - float(mid)) / float(mid)) if est == est else float("nan")
        with mpmath.workdps(40):
            mid_text = mpmath.nstr(mpmath.mpf(mid.numerator) / mid.denominator, 30)
        print(f"{d:>3} {mid_text:>36} {t_ours:>9.4f} {dig_ours:>11.1f} {t_sp:>9.4f} "
              f"{dig_sp:>12.1f} {t_ours / t_sp:>7.2f}")


if __name__ == "__main__":
    main()
