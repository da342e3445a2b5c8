"""solve at 30 and 50 digits for d = 3 beside scipy solve_ivp (rtol 1e-12), in one run.

Digits obtained = −log10 of the normwise relative error against a 90-digit reference
solve. Run: python benchmarks/bench_solve.py
"""
import math
import time
from importlib.resources import files

import mpmath
import numpy as np
from scipy.integrate import solve_ivp

from symgauss import load_problem
from symgauss.integrate.high_precision import solve_moments


def _flat(sol, n):
    """All entries as decimal strings with n significant digits."""
    return sol.mean_str(n) + [x for r in sol.cov_str(n) for x in r]


def digits(values, ref):
    with mpmath.workdps(100):
        err = max(abs(mpmath.mpf(v) - r) for v, r in zip(values, ref))
        size = max(abs(r) for r in ref)
        return float(-mpmath.log10(err / size)) if err else math.inf


def main():
    p = load_problem(files("symgauss") / "examples" / "general3.json")
    T = 1
    with mpmath.workdps(100):
        ref = [mpmath.mpf(x) for x in _flat(solve_moments(p, T, digits=90), 95)]
    rows = []
    f = lambda M: np.array(M.tolist(), dtype=float)  # noqa: E731
    A, V, B, b = f(p.A), f(p.V), f(p.B), f(p.b)[:, 0]
    d = p.d

    def rhs(_t, y):
        m, S = y[:d], y[d:].reshape(d, d)
        M = A + V @ S @ B
        return np.concatenate([M @ m + V @ m + b, (M @ S + S @ M.T).ravel()])
    y0 = np.concatenate([f(p.mean0)[:, 0], f(p.cov0).ravel()])
    reps = 5
    t0 = time.perf_counter()
    for _ in range(reps):
        sol = solve_ivp(rhs, (0, T), y0, method="DOP853", rtol=1e-12, atol=1e-14)
    t_scipy = (time.perf_counter() - t0) / reps
    rows.append(("scipy solve_ivp DOP853 rtol=1e-12 (baseline)", t_scipy,
                 digits([repr(float(x)) for x in sol.y[:, -1]], ref)))
    for D in (30, 50):
        t0 = time.perf_counter()
        s = solve_moments(p, T, digits=D)
        dt = time.perf_counter() - t0
        rows.append((f"symgauss solve --digits {D} (two runs, cross-checked)", dt,
                     digits(_flat(s, D + 5), ref)))
    print(f"d = 3 (examples/general3.json), t = {T}")
    print(f"{'method':52s} {'wall s':>9s} {'digits':>7s} {'time / scipy':>13s}")
    for name, dt, dg in rows:
        print(f"{name:52s} {dt:9.4f} {dg:7.1f} {dt / t_scipy:13.1f}")


if __name__ == "__main__":
    main()
