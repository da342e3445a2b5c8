"""Time to construct and verify reach controls at 50 digits, d = 2…10.

For each d: a random rational full-rank problem (all three methods are built, the
cheapest is chosen and verified: ``symgauss.questions.reach.controls.reach``) and a rank-⌈d/2⌉ problem
(polar). "verify" is the ball-arithmetic enclosure of the stored rational controls;
the baseline is re-integrating the same controls with the high-precision Taylor solver
(``hpsolve.solve_moments`` at 50 digits), measured in the same run; the ratio is
baseline / verify. Target: reach (construct + verify) at d = 10 under 2 s.

Run: ``python benchmarks/bench_reach.py [--dmax 10] [--seed 0]``
"""
from __future__ import annotations

import argparse
import random
import time
from fractions import Fraction

from symgauss import Problem
from symgauss.integrate.high_precision import solve_moments
from symgauss.questions.reach.controls import reach, verify

DIGITS = 50


def _cov(rng, d, r):
    L = [[Fraction(rng.randint(-5, 5), rng.randint(1, 4)) for _ in range(r)] for _ in range(d)]
    S = [[sum(L[i][k] * L[j][k] for k in range(r)) for j in range(d)] for i in range(d)]
    if r == d:
        for i in range(d):
            S[i][i] += 1
    return S


def _problem(rng, d, r):
    return Problem(cov0=_cov(rng, d, r), mean0=[rng.randint(-2, 2) for _ in range(d)],
                   target={"mean": [rng.randint(-2, 2) for _ in range(d)], "cov": _cov(rng, d, r)})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dmax", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    print(f"{'d':>3} {'rank':>4} {'method':>9} {'reach s':>8} {'verify s':>9} "
          f"{'hpsolve s':>10} {'ratio':>7} {'final_error':>11} {'level':>9}")
    for d in range(2, args.dmax + 1):
        for r in (d, (d + 1) // 2):
            p = _problem(rng, d, r)
            t0 = time.perf_counter()
            res = reach(p, digits=DIGITS)
            t_reach = time.perf_counter() - t0
            if not res.reachable:  # a random factor of deficient rank: skip
                continue
            t0 = time.perf_counter()
            verify(p, res.controls, DIGITS)
            t_verify = time.perf_counter() - t0
            q = Problem(cov0=p.cov0, mean0=p.mean0, controls=list(res.controls))
            t0 = time.perf_counter()
            solve_moments(q, "1", DIGITS)
            t_hp = time.perf_counter() - t0
            print(f"{d:>3} {r:>4} {res.method:>9} {t_reach:>8.3f} {t_verify:>9.4f} "
                  f"{t_hp:>10.3f} {t_hp / t_verify:>7.1f} "
                  f"{float(res.final_error):>11.2e} {res.level:>9}", flush=True)


if __name__ == "__main__":
    main()
