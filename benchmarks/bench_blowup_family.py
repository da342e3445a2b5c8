"""Time decide_blowup (30 digits, certified, the default cross-check) on a seeded random family.

The family (issue 13): V_h = v_h I, one or two heads of the same sign of v_h, d = 2…4; A random,
in half the problems shifted to be Hurwitz; Σ0 = s(LLᵀ/d + I/20) with s from 10^-2 to 10^2
(small and large); B either with B + Bᵀ of the sign of v (R ⪰ 0) or fully random (R
indefinite). ``--same-sign`` keeps only the first kind (the first variant of the family).
Each problem runs in its own process with a timeout, as `regime.classify` would call it; the
script prints one line per problem and the distribution of times.

Run: python benchmarks/bench_blowup_family.py [--same-sign] [FIRST_SEED LAST_SEED [TIMEOUT]]
(defaults: seeds 100..149, timeout 60 s).
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

CODE = ("import sys, time; from symgauss import load_problem; "
        "from symgauss.questions.blowup.decide import decide_blowup; p = load_problem(sys.argv[1]); "
        "t0 = time.perf_counter(); r = decide_blowup(p, 30); "
        "print(round(time.perf_counter() - t0, 3), r.regime, r.level, r.t_star and r.t_star[:14])")


def rat(x, den=8):
    return str(Fraction(round(x * den), den))


def generate(seed: int, same_sign: bool = False) -> dict:
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 5))
    heads = int(rng.integers(1, 3))
    hurwitz = rng.random() < 0.5
    A = rng.normal(0, 0.7, (d, d))
    if hurwitz:
        A = A - (np.linalg.eigvals(A).real.max() + rng.uniform(0.1, 1.0)) * np.eye(d)
    sign = 1 if rng.random() < 0.5 else -1
    hs = []
    for _ in range(heads):
        v = sign * Fraction(int(rng.integers(1, 9)), 4)
        G = rng.normal(0, 1, (d, d))
        K = rng.normal(0, 0.5, (d, d))
        if same_sign or rng.integers(0, 3) == 0:
            B = (G @ G.T / d + 0.1 * np.eye(d)) * sign + K - K.T     # R ⪰ 0
        else:
            B = rng.normal(0, 1, (d, d))                              # R indefinite
        hs.append({"V": [[rat(float(v) if i == j else 0) for j in range(d)] for i in range(d)],
                   "B": [[rat(B[i, j]) for j in range(d)] for i in range(d)]})
    top = 1.5 if same_sign else 2
    scale = Fraction(10 ** rng.uniform(-2, top)).limit_denominator(1000)
    L = [[Fraction(int(rng.integers(-8, 9)), 8) for _ in range(d)] for _ in range(d)]
    cov0 = [[str(scale * (sum(L[i][k] * L[j][k] for k in range(d)) / d
                          + (Fraction(1, 20) if i == j else 0))) for j in range(d)]
            for i in range(d)]
    obj = {"A": [[rat(A[i, j]) for j in range(d)] for i in range(d)], "cov0": cov0,
           "mean0": ["0"] * d}
    if heads == 1:
        obj.update(hs[0])
    else:
        obj["heads"] = hs
    return obj


def main(argv):
    same_sign = "--same-sign" in argv
    args = [a for a in argv if a != "--same-sign"]
    first, last = (int(args[0]), int(args[1])) if len(args) >= 2 else (100, 149)
    timeout = float(args[2]) if len(args) >= 3 else 60.0
    tmp = Path(tempfile.mkdtemp())
    times = []
    for seed in range(first, last + 1):
        path = tmp / f"family_{seed}.json"
        path.write_text(json.dumps(generate(seed, same_sign)))
        t0 = time.perf_counter()
        try:
            res = subprocess.run([sys.executable, "-c", CODE, str(path)], capture_output=True,
                                 text=True, timeout=timeout)
            line = res.stdout.strip() or "ERROR " + res.stderr.strip().splitlines()[-1]
            times.append(float(line.split()[0]) if res.stdout.strip() else timeout)
        except subprocess.TimeoutExpired:
            line = f"TIMEOUT after {timeout:.0f} s ({time.perf_counter() - t0:.0f} s)"
            times.append(timeout)
        print(seed, line, flush=True)
    t = np.sort(np.array(times))
    print(f"n = {len(t)}: median {np.median(t):.3f} s, 90th percentile "
          f"{t[int(0.9 * (len(t) - 1))]:.3f} s, max {t[-1]:.3f} s, "
          f"timeouts {int(np.sum(t >= timeout))}")


if __name__ == "__main__":
    main(sys.argv[1:])
