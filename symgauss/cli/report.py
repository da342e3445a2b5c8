"""``symgauss report [--out DIR]``: the main job — every theorem check on the built-in examples."""
from __future__ import annotations

HELP = "run every theorem check on the built-in examples; write report.md/.tex/.pdf"
DESCRIPTION = ("Run every theorem check on the built-in examples (closure, high-precision "
               "solutions, equilibria and certificates, blow-up, reachability, experiments), "
               "regenerate and re-check the certificates, and write report.md, report.tex, "
               "report.pdf (when pdflatex is installed), the figures and the certificate files "
               "into DIR. Prints a summary table. Exit 0 when every claim came out as its "
               "theorem predicts, 1 otherwise.")


def add_arguments(p):
    p.add_argument("--out", default="symgauss-report", metavar="DIR",
                   help="output directory (default ./symgauss-report)")
    p.add_argument("--no-pdf", action="store_true", help="write report.tex but do not compile it")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args) -> int:
    from symgauss.reporting.job import run_report, status_line
    rep = run_report(args.out, progress=not args.no_progress, pdf=not args.no_pdf)
    print(rep.table())
    print()
    print(status_line(rep) + f"; wall time {rep.seconds:.1f} s")
    for c in rep.claims:
        if c.result == "skipped" and c.detail:
            print(f"skipped: {c.claim}: {c.detail}")
    print(rep.pdf_note)
    print(f"written: {rep.out_dir}/report.md, {rep.out_dir}/report.tex"
          + (f", {rep.pdf}" if rep.pdf else ""))
    return 0 if rep.ok else 1
