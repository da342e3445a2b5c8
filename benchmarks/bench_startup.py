"""Start-up of the ``symgauss`` command (issue 14's 0.3 s), as a whole process.

Three commands, each run ``--runs`` times as a user runs them, in the same run:
- baseline: ``python -c pass`` (the interpreter's own start-up, the floor of any command);
- ``symgauss --help``;
- ``symgauss check certificates/stable_diag.json`` (a small certificate, the kernel only).
Prints the fastest and the median wall time of each (the fastest filters out moments when the
machine is busy with something else) and their ratio to the baseline. Goal (issue 14): the
fastest of each symgauss command ≤ 0.3 s. This was a timed unit test until 2026-12-02; it
failed whenever the test machine was shared, so the goal lives here, and the tests check what
makes it hold (``--help`` and ``check`` import no search library: tests/test_cli.py,
tests/test_checker.py).

Run: python benchmarks/bench_startup.py [--runs N]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from bench_scale import ROOT, SYMGAUSS

GOAL_S = 0.3


def times(cmd, runs: int) -> list:
    """Wall seconds of ``runs`` whole-process runs of ``cmd`` (each must exit 0)."""
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        out.append(time.perf_counter() - t)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}, nproc = {os.cpu_count()}, load average "
          f"{os.getloadavg()[0]:.1f}, {args.runs} runs each")
    base = times([sys.executable, "-c", "pass"], args.runs)
    rows = [("python -c pass (baseline)", base),
            ("symgauss --help", times([SYMGAUSS, "--help"], args.runs)),
            ("symgauss check stable_diag.json",
             times([SYMGAUSS, "check", "certificates/stable_diag.json"], args.runs))]
    print(f"{'command':<34} {'fastest s':>9} {'median s':>9} {'÷ baseline':>10}  goal")
    for name, ts in rows:
        goal = "" if ts is base else ("≤ 0.3 s: met" if min(ts) <= GOAL_S else "≤ 0.3 s: MISSED")
        print(f"{name:<34} {min(ts):>9.3f} {statistics.median(ts):>9.3f} "
              f"{min(ts) / min(base):>10.1f}  {goal}")


if __name__ == "__main__":
    main()
