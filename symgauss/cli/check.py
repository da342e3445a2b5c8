"""``symgauss check FILE...``: re-verify certificate files with the trusted checker."""
from __future__ import annotations

import sys

HELP = "re-verify certificate files (exact rationals / ball arithmetic only)"
DESCRIPTION = ("Re-verify each certificate file from the problem stored in it. One verdict line "
               "per file. Exit 0 only if all verify, 1 if any is refuted or invalid, 2 if a file "
               "is unreadable.")


def add_arguments(p):
    p.add_argument("files", nargs="+", metavar="FILE", help="certificate JSON files")


def run(args) -> int:
    from symgauss.kernel.checker import Unreadable, check_file
    worst = 0
    for path in args.files:
        try:
            v = check_file(path)
        except Unreadable as exc:
            print(f"{path}: UNREADABLE: {exc}")
            worst = 2
            continue
        label = {"verified": "VERIFIED", "refuted": "REFUTED", "invalid": "INVALID"}[v.status]
        print(f"{path}: {label} [{v.kind}]: {v.reason}")
        if v.status != "verified" and worst < 1:
            worst = 1
    sys.stdout.flush()
    return worst
