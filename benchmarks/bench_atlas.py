"""Regime atlas throughput: cells per second on a Dask LocalCluster with 1 and 2 workers.

Baseline: the same sweep with one Dask worker, measured in the same run. Also shown: the
sweep in this process without Dask (workers=0), to see Dask's own overhead. Cluster start-up
is timed separately; the sweep time starts when the workers are up. Every run starts from an
empty output directory (no cache), without the heat map. "cell s" is the sum of the times
measured inside the cells: when it grows with the number of workers, the cores are shared
with other work (the load average is printed in the header).

    python benchmarks/bench_atlas.py [--steps 41] [--repeat 2]

Sweeps: ``scalar`` (41×41, the phase diagram of σ' = 2aσ + 2vβσ²), ``diag-d2`` (41×41, a
diagonal d = 2 problem), ``shear-d2`` (10×10, a non-diagonal d = 2 problem through
symgauss.questions.blowup.decide and symgauss.questions.stability.certify, certify=false).
"""
from __future__ import annotations

import argparse
import logging
import os
import platform
import tempfile
import time


def _spec(steps: int, which: str):
    from symgauss.atlas.spec import parse_spec
    entry = ["A", 0, 0]
    if which == "scalar":
        problem = {"A": [[0]], "V": [[1]], "B": [[1]], "cov0": [[1]]}
    elif which == "diag-d2":  # diagonal d = 2, V = vI: exact closed forms per coordinate
        problem = {"A": [[0, 0], [0, 1]], "V": [[1, 0], [0, 1]], "B": [[1, 0], [0, 2]],
                   "cov0": [[1, 0], [0, "1/2"]]}
    else:  # "shear-d2": not diagonal, decided by symgauss.questions.blowup.decide / symgauss.questions.stability.certify
        problem = {"A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]], "B": [[1, 0], [0, 2]],
                   "cov0": [[1, "1/3"], ["1/3", 1]]}
        entry = ["A", 0, 1]
    return parse_spec({"problem": problem, "digits": 30, "certify": False, "axes": [
        {"vary": entry, "grid": {"from": -2, "to": 2, "steps": steps}},
        {"vary": {"scale": "V"}, "grid": {"from": -2, "to": 2, "steps": steps}}]})


def _sweep(spec, **kw) -> tuple:
    """(wall seconds, sum of the seconds spent inside the cells)."""
    from symgauss.atlas.run import run_atlas
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        res = run_atlas(spec, tmp, progress=False, plot=False, **kw)
        dt = time.perf_counter() - t0
    assert res.computed == len(res.cells) and res.summary["errors"] == 0
    return dt, sum(c["seconds"] for c in res.cells)


def _cluster_rates(spec, workers: int, repeat: int):
    from distributed import Client, LocalCluster
    t0 = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        client.wait_for_workers(workers)
        client.run(lambda: __import__("symgauss.questions.regime.classify"))  # warm the imports on every worker
        startup = time.perf_counter() - t0
        best = min(_sweep(spec, client=client) for _ in range(repeat))
    return startup, best


def _warm(_):
    import symgauss.questions.blowup.closed_form  # noqa: F401
    import symgauss.questions.regime.classify  # noqa: F401
    return os.getpid()


def _control(spec, procs: int) -> float:
    """Wall seconds for the same cells split over ``procs`` plain processes (no Dask, no
    cache): what the machine can give right now — the ceiling for a Dask run."""
    from concurrent.futures import ProcessPoolExecutor

    from symgauss.atlas.run import compute_cells
    from symgauss.kernel.numbers import rational_text
    pts = [[rational_text(x) for x in p] for p in spec.points()]
    parts = [pts[i::procs] for i in range(procs)]
    with ProcessPoolExecutor(procs) as ex:
        list(ex.map(_warm, range(4 * procs)))
        t0 = time.perf_counter()
        list(ex.map(compute_cells, [spec.payload()] * procs, parts))
        return time.perf_counter() - t0


def _cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=41, help="grid points per axis (default 41)")
    ap.add_argument("--repeat", type=int, default=2, help="sweeps per setting, best kept")
    args = ap.parse_args()
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}  nproc={os.cpu_count()}  cpu={_cpu_model()}  "
          f"load={os.getloadavg()[0]:.2f}")
    print(f"{'sweep':<8} {'cells':>6} {'setting':<22} {'start-up s':>10} {'sweep s':>8} "
          f"{'cell s':>7} {'cells/s':>8} {'vs 1 worker':>11}")
    for which in ("scalar", "diag-d2", "shear-d2"):
        # the non-diagonal cells cost ~50-100 ms each (about 30x a scalar cell): fewer of them
        spec = _spec(args.steps if which != "shear-d2" else max(3, args.steps // 4), which)
        n = len(spec.points())
        serial = min(_sweep(spec, workers=0) for _ in range(args.repeat))
        rows = [("in-process (no Dask)", 0.0, serial)]
        for w in (1, 2):
            startup, dt = _cluster_rates(spec, w, args.repeat)
            rows.append((f"LocalCluster {w} worker" + ("s" if w > 1 else ""), startup, dt))
        rows.append(("2 plain processes*", 0.0, (_control(spec, 2), float("nan"))))
        base = n / rows[1][2][0]
        for name, startup, (dt, inside) in rows:
            rate = n / dt
            print(f"{which:<8} {n:>6} {name:<22} {startup:>10.2f} {dt:>8.2f} {inside:>7.2f} "
                  f"{rate:>8.0f} {rate / base:>10.2f}x")
    print("* control without Dask: the cells split over 2 plain processes — the ceiling for "
          "2 workers on this machine at this moment (other jobs share the cores).")


if __name__ == "__main__":
    main()
