"""The ``symgauss`` command line.

Each sub-command lives in ``symgauss/commands/<name>.py`` and provides ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``. Every library error becomes
exactly one line on stderr and exit code 2; no traceback reaches the user
(set ``SYMGAUSS_DEBUG=1`` to see one).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from symgauss.kernel.errors import SymgaussError

COMMANDS = ("report", "derive", "solve", "equilibria", "certify", "check", "blowup", "regime",
            "reach", "simulate-particles", "pretrained", "atlas", "export-coq")

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        sys.exit(EXIT_USAGE)


def _modules():
    for name in COMMANDS:
        try:
            yield name, importlib.import_module(f"symgauss.cli.{name.replace('-', '_')}")
        except ModuleNotFoundError as exc:
            if exc.name != f"symgauss.cli.{name.replace('-', '_')}":
                raise


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="symgauss",
                     description="Symbolic-numeric proofs for the Gaussian dynamics of "
                                 "Transformers: closure, certificates, blow-up, reachability.")
    from symgauss import __version__
    parser.add_argument("--version", action="version", version=f"symgauss {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, mod in _modules():
        p = sub.add_parser(name, help=mod.HELP, description=getattr(mod, "DESCRIPTION", mod.HELP))
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args._run(args) or 0)
    except SymgaussError as exc:
        if os.environ.get("SYMGAUSS_DEBUG"):
            raise
        sys.stderr.write(f"symgauss {args.command}: error: {_one_line(exc)}\n")
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `symgauss ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("symgauss: interrupted\n")
        return 130
    except Exception as exc:  # a bug in symgauss, not the user's input
        if os.environ.get("SYMGAUSS_DEBUG"):
            raise
        sys.stderr.write(f"symgauss {args.command}: internal error: {type(exc).__name__}: "
                         f"{_one_line(exc)} (a bug; rerun with SYMGAUSS_DEBUG=1 and report it)\n")
        return 70


def _one_line(exc) -> str:
    return " ".join(str(exc).split())


def entry_point():  # console script
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
