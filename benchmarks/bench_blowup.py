"""Certified 30-digit blow-up time vs scipy solve_ivp (DOP853, event at ‖Σ‖ = 1e8).

For V = I, random A, B (B + Bᵀ ⪰ 0) and Σ0 ≻ 0 in d = 2, 4, 8 (fixed seed), times

  * the whole process ``symgauss blowup P.json --digits 30`` (certified enclosure + the
    projective cross-check, the default), via subprocess, and the same with
    ``--no-crosscheck``;
  * the baseline process: ``python bench_blowup.py --scipy P.json`` — json + numpy + scipy
    only: solve_ivp DOP853 (rtol 1e-12, atol 1e-14) on the moment ODE with a terminal event at
    max |Σ_ij| = 1e8 (the float estimate of T*);
  * in-process: ``decide_blowup(p, 30)`` against the scipy solve alone;

each the best of several runs, all in the same run, and prints the ratios (ours / scipy) and
the digits each obtains (scipy's against the certified enclosure).

Run: python benchmarks/bench_blowup.py
"""
from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np


def problem_dict(d: int, rng) -> dict:
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
    return {"A": A, "V": np.eye(d, dtype=int).tolist(), "B": B, "cov0": cov0,
            "mean0": [0] * d}


def scipy_estimate(obj: dict) -> float:
    """The baseline: T* from solve_ivp DOP853 with a terminal event (floats only)."""
    from scipy.integrate import solve_ivp

    def f(M):
        return np.array([[float(Fraction(str(x))) for x in row] for row in M])
    A, B, S0 = f(obj["A"]), f(obj["B"]), f(obj["cov0"])
    d = S0.shape[0]

    def rhs(_t, y):
        S = y.reshape(d, d)
        M = A + S @ B
        MS = M @ S
        return (MS + MS.T).ravel()

    def event(_t, y):
        return np.max(np.abs(y)) - 1e8
    event.terminal = True
    sol = solve_ivp(rhs, (0.0, 1e3), S0.ravel(), method="DOP853", rtol=1e-12, atol=1e-14,
                    events=event)
    return float(sol.t_events[0][0]) if sol.t_events[0].size else math.nan


def best_time(fn, repeats):
    out, best = None, math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def run_process(args):
    res = subprocess.run(args, capture_output=True, text=True, check=True)
    return res.stdout


def main():
    from symgauss import load_problem
    from symgauss.questions.blowup.decide import decide_blowup
    exe = shutil.which("symgauss") or str(Path(sys.executable).parent / "symgauss")
    rng = np.random.default_rng(20261129)
    tmp = Path(tempfile.mkdtemp())
    print(f"{'d':>3} {'T* (certified, 30 digits)':>34} {'proc s':>7} {'no-xchk s':>9} "
          f"{'scipy proc s':>12} {'ratio':>6} {'in-proc s':>9} {'scipy s':>8} {'ratio':>6} "
          f"{'scipy digits':>12}")
    for d in (2, 4, 8):
        obj = problem_dict(d, rng)
        path = tmp / f"blowup_d{d}.json"
        path.write_text(json.dumps(obj))
        p = load_problem(path)
        decide_blowup(p, 30), scipy_estimate(obj)             # warm-up (imports, caches)
        res, t_in = best_time(lambda: decide_blowup(p, 30), 5)
        est, t_sp = best_time(lambda: scipy_estimate(obj), 5)
        _, t_proc = best_time(lambda: run_process([exe, "blowup", str(path), "--digits", "30"]),
                              3)
        _, t_proc_nx = best_time(lambda: run_process([exe, "blowup", str(path), "--digits",
                                                      "30", "--no-crosscheck"]), 3)
        _, t_sp_proc = best_time(lambda: run_process([sys.executable, __file__, "--scipy",
                                                      str(path)]), 3)
        lo, hi = (Fraction(x) for x in res.enclosure)
        mid = (lo + hi) / 2
        dig_sp = -math.log10(abs(est - float(mid)) / float(mid)) if est == est else math.nan
        print(f"{d:>3} {res.t_star:>34} {t_proc:>7.3f} {t_proc_nx:>9.3f} {t_sp_proc:>12.3f} "
              f"{t_proc / t_sp_proc:>6.2f} {t_in:>9.4f} {t_sp:>8.4f} {t_in / t_sp:>6.2f} "
              f"{dig_sp:>12.1f}")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--scipy":
        print(repr(scipy_estimate(json.loads(Path(sys.argv[2]).read_text()))))
    else:
        main()
