"""Whole-process timings of ``symgauss equilibria`` and ``symgauss certify`` + ``symgauss check``
on general-V problems of size d, against a plain cvxpy + Clarabel LMI process of the same size.

Problems: :func:`symgauss.questions.equilibria.designed.designed_problem` (kind "stable", seed 1):
a prescribed rational Σ* ≻ 0 with A = −VΣ*B + Σ*Ω, so Σ* is an exact equilibrium ("rational");
and the same problem with A[0][1] + 1/997, whose equilibrium near Σ* is irrational and is proved
by the Newton–Kantorovich enclosure ("irrational", level rigorous). Every figure is the wall
time of a separate process (``python -m symgauss …``), best of ``--repeat`` runs.

Wall time is what a user waits; CPU time (user + system of the child) is less sensitive to the
other jobs on a shared machine, so both are printed, each as a ratio to the baseline.

Baseline, measured in the same run: a process that imports cvxpy, builds the svec linearisation
L at Σ* (n = d(d+1)/2) and solves the Lyapunov LMI P ⪰ I, LᵀP + PL ⪯ −I with Clarabel — what
a user would run to get a (float, uncertified) stability answer by SDP.

``--before DIR``: also time an older checkout (a directory holding its ``symgauss`` package).

Run: python benchmarks/bench_equilibria.py [--dims 4 8 10 16] [--repeat 3] [--before DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

LMI = """
import json, sys
import numpy as np
import cvxpy as cp
from symgauss.model.problem_file import load_problem
from symgauss.model.linearise import linearisation_num, numeric_params
p = load_problem(sys.argv[1])
S = np.array(json.loads(sys.argv[2]), dtype=float)
A, heads, _ = numeric_params(p.params, float)
L = linearisation_num(A, heads, S)
n = L.shape[0]
X = cp.Variable((n, n), symmetric=True)
prob = cp.Problem(cp.Minimize(0), [X >> np.eye(n), L.T @ X + X @ L << -np.eye(n)])
prob.solve(solver=cp.CLARABEL)
print(prob.status)
"""


def _run(args, cwd) -> tuple:
    """(wall s, CPU s of the child: user + system, completed process)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), out


def _best(args, cwd, repeat) -> tuple:
    runs = [_run(args, cwd) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[-1][2]


def problems(d: int, tmp: Path) -> list:
    from symgauss.questions.equilibria.designed import designed_problem
    p, S = designed_problem(d, seed=1)
    rational = tmp / f"d{d}-rational.json"
    rational.write_text(json.dumps(p.to_dict()))
    q = p.to_dict()
    q["A"][0][1] = str(Fraction(q["A"][0][1]) + Fraction(1, 997))
    irrational = tmp / f"d{d}-irrational.json"
    irrational.write_text(json.dumps(q))
    Sf = [[float(x) for x in row] for row in S.tolist()]
    return [("rational", rational, Sf), ("irrational", irrational, Sf)]


def measure(name, path, Sf, d, tmp, repeat, before) -> dict:
    row = {"d": d, "n": d * (d + 1) // 2, "case": name}
    cert = tmp / f"{path.stem}.cert.json"
    trees = {"after": REPO} if before is None else {"after": REPO, "before": Path(before)}
    for tag, cwd in trees.items():
        t, c, out = _best(["-m", "symgauss", "equilibria", str(path), "--json"], cwd, repeat)
        row[f"equilibria {tag}"], row[f"equilibria cpu {tag}"] = t, c
        if tag == "after":
            row["level"] = json.loads(out.stdout)["equilibria"][0]["level"]
        tc, cc, out = _best(["-m", "symgauss", "certify", str(path), "-o", str(cert)], cwd, repeat)
        tk, ck, out2 = _best(["-m", "symgauss", "check", str(cert)], cwd, repeat)
        row[f"certify+check {tag}"], row[f"cpu {tag}"] = tc + tk, cc + ck
        row[f"ok {tag}"] = out.returncode == 0 and "VERIFIED" in out2.stdout
    row["lmi"], row["lmi cpu"], out = _best(["-c", LMI, str(path), json.dumps(Sf)], REPO, repeat)
    row["lmi status"] = out.stdout.strip()
    row["ratio"] = row["certify+check after"] / row["lmi"]
    row["cpu ratio"] = row["cpu after"] / row["lmi cpu"]
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dims", type=int, nargs="+", default=[4, 8, 10, 16])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", default=None)
    a = ap.parse_args()
    cols = ["d", "n", "case", "level", "ok after", "equilibria after", "certify+check after",
            "lmi", "ratio", "equilibria cpu after", "cpu after", "lmi cpu", "cpu ratio"] + (
        ["ok before", "equilibria before", "certify+check before", "cpu before"]
        if a.before else [])
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}, load average {os.getloadavg()[0]:.1f}, "
          f"{os.cpu_count()} cores")
    print(" | ".join(cols), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for d in a.dims:
            for name, path, Sf in problems(d, tmp):
                r = measure(name, path, Sf, d, tmp, a.repeat, a.before)
                print(" | ".join(f"{r[c]:.2f}" if isinstance(r[c], float) else str(r[c])
                                 for c in cols), flush=True)


if __name__ == "__main__":
    main()
