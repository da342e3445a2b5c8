"""How often does the equilibrium search miss a known positive-definite equilibrium?

Ensemble: :func:`symgauss.questions.equilibria.designed.designed_problem` with ``kind="random"``
(V, B with integer entries in [−2, 2], Σ* = GGᵀ + I, A = −VΣ*B + Σ*Ω; these problems typically
have several positive-definite equilibria, stable and unstable), seeds 0 … N−1, for each d. A
problem counts as a miss when no positive-definite equilibrium returned is Σ* (max-entry
distance below 1e-8 of the printed matrix, or equal to it when exact). Only the general-V search
is exercised (d ≥ 3: no Gröbner route). Seconds are the mean per problem, in-process.

``--before DIR``: the same ensemble through an older checkout's ``find_equilibria`` (run in a
subprocess from DIR), for the before/after figure.

Run: python benchmarks/bench_equilibria_search.py [--dims 3 4 5] [-n 40] [--before DIR]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

RUN = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from fractions import Fraction
from symgauss import Problem
from symgauss.questions.equilibria.search import find_equilibria
cases = json.loads(sys.stdin.read())
out = []
for prob, S in cases:
    p = Problem(**prob)
    t = time.perf_counter()
    eqs = find_equilibria(p, digits=20)
    dt = time.perf_counter() - t
    hit = False
    for e in eqs:
        if e.rank != len(S):
            continue
        try:
            C = [[Fraction(x) for x in r] for r in e.cov]
        except ValueError:
            continue
        hit |= max(abs(float(C[i][j] - Fraction(S[i][j]))) for i in range(len(S))
                   for j in range(len(S))) < 1e-8
    out.append([hit, dt])
print(json.dumps(out))
"""


def ensemble(d: int, n: int) -> list:
    from symgauss.questions.equilibria.designed import designed_problem
    cases = []
    for seed in range(n):
        p, S = designed_problem(d, seed=seed, kind="random")
        q = p.to_dict()
        q.pop("name", None)
        cases.append([q, [[str(x) for x in r] for r in S.tolist()]])
    return cases


def run(tree: Path, cases) -> list:
    out = subprocess.run([sys.executable, "-c", RUN, str(tree)], cwd=tree, input=json.dumps(cases),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dims", type=int, nargs="+", default=[3, 4, 5])
    ap.add_argument("-n", type=int, default=40)
    ap.add_argument("--before", default=None)
    a = ap.parse_args()
    trees = [("after", REPO)] + ([("before", Path(a.before))] if a.before else [])
    print("d | tree | missed | of | s per problem")
    for d in a.dims:
        cases = ensemble(d, a.n)
        for tag, tree in trees:
            t0 = time.perf_counter()
            res = run(tree, cases)
            missed = sum(1 for hit, _ in res if not hit)
            print(f"{d} | {tag} | {missed} | {len(res)} | "
                  f"{sum(dt for _, dt in res) / len(res):.2f}  (wall {time.perf_counter() - t0:.0f} s)",
                  flush=True)


if __name__ == "__main__":
    main()
