"""Regime atlas: the regime of every point of a 1- or 2-parameter grid, in parallel.

The grid comes from a spec (:mod:`symgauss.atlas.spec`). Each cell is a pure function of (base problem, axes, point): its problem is
built afresh and handed to :func:`symgauss.questions.regime.classify.classify`. Cells run on Dask
distributed (:func:`run_atlas`); each finished cell is appended, as one JSON line
with its ``key`` — a hash of (base problem, axes, point, digits, certify,
certificates) — to the cache ``OUT/cells.jsonl`` (flushed batch by batch), so a rerun
or a resumed interrupted run skips it; a torn last line is ignored. A cell that fails
records its error and the sweep goes on (errors from the input are cached, internal
failures such as a lost worker are retried on the next run).

On an existing cluster: start ``dask scheduler`` on one machine and ``dask worker
tcp://HOST:8786`` on each of the others (every worker needs the same symgauss installed:
cells are shipped as the function :func:`compute_cells` plus a small JSON payload), then
``symgauss atlas SPEC.json --scheduler tcp://HOST:8786``. The client alone writes the
output directory, so the workers need no shared file system.
"""
from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from symgauss.atlas.spec import AtlasSpec, cell_problem
from symgauss.kernel.errors import ProblemError, SymgaussError
from symgauss.kernel.numbers import rational_text

COLUMNS = ("regime", "level", "t_star", "t_star_exact", "certificate", "error")
CONNECT_TIMEOUT = "10s"  # for --scheduler
CACHE_FILE = "cells.jsonl"


class ClusterError(SymgaussError, ConnectionError):
    """The Dask scheduler cannot be reached or the cluster cannot start."""


def compute_cells(payload: dict, points: list) -> list:
    """Classify a batch of grid points (exact strings); one record per point, never raises.

    Runs on the Dask workers: it needs only the JSON-able ``payload`` of
    :meth:`AtlasSpec.payload`, and returns certificate contents in the records (a
    worker's disk may not be the client's).
    """
    import tempfile

    from symgauss.questions.regime.classify import classify
    out = []
    for point in points:
        t0 = time.perf_counter()
        rec = {"point": list(point), "regime": None, "level": None, "t_star": None,
               "t_star_exact": None, "evidence": None, "method": None, "certificate": None,
               "error": None, "cacheable": True}
        try:
            problem = cell_problem(payload["base"], payload["targets"], point)
            if payload["certificates"]:
                with tempfile.TemporaryDirectory() as tmp:
                    r = classify(problem, digits=payload["digits"], certify=payload["certify"],
                                 certificate_dir=tmp)
                    if r.certificate:
                        rec["certificate_data"] = Path(r.certificate).read_text(encoding="utf-8")
            else:
                r = classify(problem, digits=payload["digits"], certify=payload["certify"])
            rec.update(regime=r.kind, level=r.level, t_star=r.t_star, t_star_exact=r.t_star_exact,
                       evidence=r.evidence, method=r.method, notes=list(r.notes))
        except SymgaussError as exc:  # the input at this point: deterministic, cache it
            rec["error"] = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        except Exception as exc:  # a bug or a resource failure: record it, retry on rerun
            rec["error"] = f"internal {type(exc).__name__}: {' '.join(str(exc).split())}"
            rec["cacheable"] = False
        rec["seconds"] = round(time.perf_counter() - t0, 6)
        out.append(rec)
    return out


# --- the sweep -----------------------------------------------------------------------------
@dataclass(frozen=True)
class AtlasResult:
    """All cells of a finished sweep (grid order), their summary, and the files written."""
    spec: AtlasSpec
    cells: tuple
    summary: dict
    files: dict
    computed: int
    cached: int
    seconds: float

    def to_json_dict(self) -> dict:
        return {"spec": self.spec.to_dict(), "summary": self.summary,
                "files": {k: str(v) for k, v in self.files.items()},
                "cells": [_public(c) for c in self.cells]}


def _public(rec: dict) -> dict:
    return {k: v for k, v in rec.items() if k not in ("cacheable", "certificate_data")}


def run_atlas(spec: AtlasSpec, out_dir, *, workers: int | None = None,
              scheduler: str | None = None, client=None, progress: bool = True,
              plot: bool = True) -> AtlasResult:
    """Run (or resume) a sweep and write its table, summary and heat map under ``out_dir``.

    Parameters
    ----------
    workers : processes of a new Dask LocalCluster (default: one per core);
        ``0`` runs the cells in this process, without Dask.
    scheduler : address ``tcp://HOST:PORT`` of an existing Dask scheduler.
    client : an existing ``distributed.Client`` (not closed here).
    progress : show a tqdm progress bar on stderr.
    plot : write the heat map (PNG and PDF).
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 0):
        raise ProblemError(f"workers = {workers!r}: expected an integer >= 0")
    if sum(x is not None for x in (workers, scheduler, client)) > 1:
        raise ProblemError("give at most one of workers, scheduler, client")
    t0 = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cache = out / CACHE_FILE
    points = spec.points()
    keys = [spec.cell_key(p) for p in points]
    known = _read_cache(cache)
    records = {k: known[k] for k in keys if k in known}
    cached = len(records)
    todo = [(k, [rational_text(x) for x in p]) for k, p in zip(keys, points) if k not in records]
    from tqdm import tqdm
    bar = tqdm(total=len(points), initial=cached, disable=not progress, desc="atlas",
               unit="cell", dynamic_ncols=True)
    log = _open_log(cache) if todo else None
    batches = _execute(spec.payload(), todo, workers, scheduler, client)
    try:
        for key_batch, recs in batches:
            for key, rec in zip(key_batch, recs):
                rec["key"] = key
                if rec.get("certificate_data") is not None:
                    path = out / "certificates" / f"{key}.json"
                    path.parent.mkdir(exist_ok=True)
                    path.write_text(rec["certificate_data"], encoding="utf-8")
                    rec["certificate"] = str(path.relative_to(out))
                if rec.get("cacheable", True):
                    log.write(json.dumps(_public(rec), sort_keys=True) + "\n")
                records[key] = rec
            log.flush()
            bar.update(len(recs))
    finally:  # also on Ctrl-C: what finished is on disk, the local cluster is shut down
        batches.close()
        bar.close()
        if log is not None:
            log.close()
    cells = tuple(_public(records[k]) for k in keys)
    summary = summarize(cells)
    summary.update(computed=len(todo), cached=cached,
                   seconds=round(time.perf_counter() - t0, 3))
    files = write_outputs(spec, cells, summary, out, plot=plot)
    return AtlasResult(spec, cells, summary, files, len(todo), cached,
                       time.perf_counter() - t0)


def _open_log(path: Path):
    """The cache opened for appending, after ending a torn last line."""
    torn = False
    if path.exists() and path.stat().st_size:
        with open(path, "rb") as fh:
            fh.seek(-1, os.SEEK_END)
            torn = fh.read(1) != b"\n"
    log = open(path, "a", encoding="utf-8")
    if torn:
        log.write("\n")
    return log


def _read_cache(path: Path) -> dict:
    """key -> record from the JSON-lines cache; unreadable (e.g. torn) lines are skipped."""
    out = {}
    try:
        fh = open(path, encoding="utf-8", errors="replace")
    except OSError:
        return out
    with fh:
        for line in fh:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict) and isinstance(rec.get("key"), str) and "regime" in rec:
                out[rec["key"]] = rec
    return out


def _batches(todo: list, n_workers: int) -> list:
    size = max(1, min(64, len(todo) // max(1, 8 * n_workers)))
    return [todo[i:i + size] for i in range(0, len(todo), size)]


def _execute(payload, todo, workers, scheduler, client):
    """Yield (keys, records) per finished batch."""
    if not todo:
        return
    if workers == 0:
        for batch in _batches(todo, 1):
            yield [k for k, _ in batch], compute_cells(payload, [p for _, p in batch])
        return
    if client is not None:
        yield from _on_client(client, payload, todo)
        return
    import logging

    from distributed import Client, LocalCluster
    if scheduler is not None:
        try:
            cl = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {scheduler!r} ({exc}); "
                               "start one with `dask scheduler` or omit --scheduler") from None
        with cl:
            yield from _on_client(cl, payload, todo)
        return
    n = workers or os.cpu_count() or 1
    try:
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
    except (OSError, RuntimeError, TimeoutError) as exc:
        raise ClusterError(f"cannot start a local Dask cluster of {n} processes ({exc}); when "
                           "calling run_atlas from a script, guard it with "
                           "`if __name__ == \"__main__\":`, or use workers=0") from None
    with cluster, Client(cluster) as cl:
        yield from _on_client(cl, payload, todo)


def _on_client(client, payload, todo):
    from distributed import as_completed
    n = max(1, len(client.scheduler_info(n_workers=-1).get("workers", {})))
    batches = _batches(todo, n)
    [remote] = client.scatter([payload], broadcast=True)
    futures = {client.submit(compute_cells, remote, [p for _, p in b], pure=False): b
               for b in batches}
    for fut in as_completed(futures):
        batch = futures.pop(fut)
        keys = [k for k, _ in batch]
        try:
            recs = fut.result()
        except Exception as exc:  # a lost worker, a pickling failure: these cells fail
            msg = f"internal {type(exc).__name__}: {' '.join(str(exc).split())}"
            recs = [{"point": p, "regime": None, "level": None, "t_star": None,
                     "t_star_exact": None, "evidence": None, "method": None,
                     "certificate": None, "error": msg, "cacheable": False}
                    for _, p in batch]
        fut.release()
        yield keys, recs


# --- outputs -------------------------------------------------------------------------------
def summarize(cells) -> dict:
    """Counts per regime, per level, per (level, regime), and of errors."""
    regimes = Counter(c["regime"] or "error" for c in cells)
    levels = Counter(c["level"] or "none" for c in cells)
    pairs = Counter(f"{c['level'] or 'none'}/{c['regime'] or 'error'}" for c in cells)
    return {"cells": len(cells), "regimes": dict(sorted(regimes.items())),
            "levels": dict(sorted(levels.items())), "by_level": dict(sorted(pairs.items())),
            "errors": sum(1 for c in cells if c["error"])}


def write_outputs(spec: AtlasSpec, cells, summary: dict, out: Path, *, plot: bool = True) -> dict:
    """atlas.csv, atlas.json, summary.txt and (with ``plot``) atlas.png / atlas.pdf."""
    import csv
    files = {"csv": out / "atlas.csv", "json": out / "atlas.json",
             "summary": out / "summary.txt"}
    files["summary"].write_text(format_summary(summary) + "\n", encoding="utf-8")
    labels = [a.label for a in spec.axes]
    with open(files["csv"], "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(labels + list(COLUMNS))
        for c in cells:
            w.writerow(list(c["point"]) + ["" if c[k] is None else c[k] for k in COLUMNS])
    doc = {"spec": spec.to_dict(), "summary": summary,
           "cells": [{**{lab: x for lab, x in zip(labels, c["point"])}, **c} for c in cells]}
    files["json"].write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    if plot:
        from symgauss.atlas.plot import plot_atlas
        files["png"], files["pdf"] = plot_atlas(spec, cells, out)
    return files


def format_summary(summary: dict) -> str:
    """The summary as a few lines of text."""
    lines = [f"{summary['cells']} cells ({summary.get('computed', 0)} computed, "
             f"{summary.get('cached', 0)} from the cache) in {summary.get('seconds', 0)} s"]
    lines.append("regimes: " + ", ".join(f"{k} {v}" for k, v in summary["regimes"].items()))
    lines.append("levels:  " + ", ".join(f"{k} {v}" for k, v in summary["levels"].items()))
    lines.append("by level and regime: " + ", ".join(f"{k} {v}" for k, v in
                                                      summary["by_level"].items()))
    if summary["errors"]:
        lines.append(f"errors:  {summary['errors']} cells (see the 'error' column)")
    return "\n".join(lines)
