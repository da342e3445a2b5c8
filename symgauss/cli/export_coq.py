"""``symgauss export-coq CERT.json -o CERT.v``: an exact certificate as a Coq file, checked by coqc."""
from __future__ import annotations

import sys
from pathlib import Path

HELP = "export an exact certificate as a Coq file and re-check it with coqc"
DESCRIPTION = """\
Write CERT.json (a certificate that `symgauss check` VERIFIES, of a kind listed below) as a
Coq file whose theorems state, over the rationals, the algebraic facts the certificate rests on
(F(Σ*) = 0 entry by entry, positive-definite matrices, invariance and rank factorisations),
each proved by computation against the library in coq/SymGauss, and whose main theorem derives
the claim from the named dynamical facts of coq/SymGauss/Dynamics.v. Then run coqc on it
(unless --no-coqc):

  exit 0  written, and coqc accepted it with only the documented assumptions
          (or coqc is not installed: the file is written and one line says so)
  exit 1  coqc rejected it, or its main theorem rests on an undocumented assumption
  exit 2  not exportable: not a verified certificate, or a kind that needs ball arithmetic

Exported kinds: stable-equilibrium, stable-equilibrium-in-range, unstable-equilibrium,
common-lyapunov, robust-global, unreachable, reach when it is exact (translation and
Bernoulli-attention pieces), and stable-equilibrium-structured (rational inequalities at rational
points, checked exactly by Coq although symgauss check uses ball arithmetic)."""


def add_arguments(p):
    import argparse
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("certificate", metavar="CERT.json", help="a certificate file")
    p.add_argument("-o", "--output", metavar="CERT.v",
                   help="the Coq file to write (default: CERT.v beside CERT.json)")
    p.add_argument("--no-coqc", action="store_true", help="write the file only")


def run(args) -> int:
    from symgauss.export.coq import ExportError, export
    from symgauss.export.coqc import check_text, missing_reason
    from symgauss.kernel.checker import load_certificate
    from symgauss.kernel.verdict import Invalid
    src = Path(args.certificate)
    try:
        cert = load_certificate(src)
    except Invalid as exc:
        raise ExportError(f"{src}: {exc}") from None
    text = export(cert, src.name)
    out = Path(args.output) if args.output else src.with_suffix(".v")
    out.write_text(text, encoding="utf-8")
    if args.no_coqc:
        print(f"{out}: written (not checked: --no-coqc)")
        return 0
    reason = missing_reason()
    if reason:
        print(f"{out}: written; not checked: {reason}")
        return 0
    result = check_text(text)
    if not result.ok:
        sys.stderr.write(f"symgauss export-coq: {out}: {result.message}\n")
        return 1
    print(f"{out}: {result.message}")
    return 0
