"""``symgauss check FILE...``: re-verify certificate files with the trusted kernel."""
from __future__ import annotations

import argparse

HELP = "re-verify certificate files (exact rationals / ball arithmetic only)"
DESCRIPTION = """\
Re-verify each certificate file from the problem stored in it, with exact rationals and ball
arithmetic only (the trusted kernel, symgauss/kernel). One line per file, with one verdict:

  VERIFIED    every statement the certificate claims was proved       (exit 0)
  REFUTED     the claim is false; the line gives the counter-evidence (exit 1)
  INVALID     malformed, over a limit, or not a certificate           (exit 2)
  NOT PROVED  the witness does not establish the claim; nothing is
              said about whether the claim is true                    (exit 3)

With several files the exit code is that of the worst verdict, in the order
INVALID > REFUTED > NOT PROVED > VERIFIED. Text taken from a file is escaped before it is
printed (no control characters, no bidirectional overrides)."""
WORST_FIRST = ("invalid", "refuted", "not-proved", "verified")


def add_arguments(p):
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("files", nargs="+", metavar="FILE", help="certificate JSON files")


def run(args) -> int:
    from symgauss.kernel.checker import check_file
    from symgauss.kernel.verdict import EXIT_CODES
    worst = "verified"
    for path in args.files:
        v = check_file(path)
        print(v.line(str(path)), flush=True)
        if WORST_FIRST.index(v.status) < WORST_FIRST.index(worst):
            worst = v.status
    return EXIT_CODES[worst]
