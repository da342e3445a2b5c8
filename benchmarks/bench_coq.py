"""`symgauss export-coq` on every exported certificate in certificates/ and at d = 10 (issue 15).

For each certificate, two whole processes in the same run, each as a user runs it:
- baseline: ``symgauss check C.json`` (the Python kernel: exact rationals / ball arithmetic);
- ``symgauss export-coq C.json -o C.v``: the export, then coqc on the file (the library is
  compiled once beforehand, as after a first use), with the coqc time it reports.
Ratio = export-coq process / check process. Then d = 10: a general-V problem with a
prescribed rational equilibrium (``questions.equilibria.designed``), certified with svec
witnesses (a 55×55 Lyapunov matrix), exported and checked the same way. Goal: d = 10 in
under a minute.

Run: python benchmarks/bench_coq.py
"""
from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from bench_scale import ROOT, SYMGAUSS, run_process


def row(name: str, cert: Path, tmp: Path) -> dict:
    check, _, rc1, _ = run_process([SYMGAUSS, "check", str(cert)])
    exp, mb, rc2, out = run_process([SYMGAUSS, "export-coq", str(cert), "-o",
                                     str(tmp / f"{name}.v")])
    m = re.search(r"checked by coqc in ([0-9.]+) s", out)
    return {"name": name, "check": check, "export_coq": exp, "coqc": float(m.group(1)) if m
            else float("nan"), "ok": rc1 == 0 and rc2 == 0 and m is not None, "mb": mb}


def main() -> None:
    from symgauss.export.coq import exportable
    from symgauss.export.coqc import library
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}, nproc = {os.cpu_count()}, load average "
          f"{os.getloadavg()[0]:.1f}")
    library()
    certs = sorted(p for p in (ROOT / "certificates").glob("*.json")
                   if exportable(json.loads(p.read_text())))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for p in certs:
            rows.append(row(p.stem, p, tmp))
        sys.path.insert(0, str(ROOT / "tests"))
        from test_coq import _designed_certificate
        from symgauss.model.certificate import write_certificate
        for d in (5, 10):
            path = write_certificate(_designed_certificate(d, 1), tmp / f"designed_d{d}.json")
            rows.append(row(f"designed d = {d} (svec, n = {d * (d + 1) // 2})", path, tmp))
    print(f"{'certificate':38s} {'check (s)':>10s} {'export-coq (s)':>15s} {'coqc (s)':>9s} "
          f"{'ratio':>6s} ok")
    for r in rows:
        print(f"{r['name']:38s} {r['check']:10.2f} {r['export_coq']:15.2f} {r['coqc']:9.2f} "
              f"{r['export_coq'] / r['check']:6.1f} {r['ok']}")
    slow = max(rows[:len(certs)], key=lambda r: r["export_coq"])
    print(f"slowest in certificates/: {slow['name']} ({slow['export_coq']:.2f} s whole process, "
          f"coqc {slow['coqc']:.2f} s); all ok: {all(r['ok'] for r in rows)}")


if __name__ == "__main__":
    main()
