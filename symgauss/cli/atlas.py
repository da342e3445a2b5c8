"""``symgauss atlas SPEC.json [--out DIR] [--workers N | --scheduler ADDRESS] [--json]``."""
from __future__ import annotations

from pathlib import Path

from symgauss.cli.common import add_json_flag, print_json

HELP = "regime atlas: classify every point of a 1- or 2-parameter grid (Dask, resumable)"
DESCRIPTION = (
    "Sweep one or two parameters of a base problem over a grid of exact rationals and decide "
    "the regime of every cell (stable equilibrium / blow-up with T* / bounded / decay / growth / "
    "constant / undecided) with its evidence level. Writes OUT/atlas.csv, OUT/atlas.json, "
    "OUT/atlas.png and OUT/atlas.pdf; finished cells are cached in OUT/cells, so a rerun "
    "resumes. Runs on a local Dask cluster (one process per core) unless --scheduler is given.")


def add_arguments(p):
    p.add_argument("spec", metavar="SPEC.json",
                   help="atlas spec: base problem, one or two axes, grid (see symgauss.atlas.run)")
    p.add_argument("--out", metavar="DIR",
                   help="output directory (default: ./atlas-<spec name>)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--workers", metavar="N",
                       help="processes of the local Dask cluster (default: one per core; "
                            "0 = run in this process without Dask)")
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="address of an existing Dask scheduler, e.g. tcp://10.0.0.1:8786")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_json_flag(p)


def _workers(text):
    from symgauss.cli.common import bounded_int
    return None if text is None else bounded_int(text, "--workers", 0, 4096)


def run(args) -> int:
    from symgauss.atlas.run import format_summary, run_atlas
    from symgauss.atlas.spec import load_spec
    workers = _workers(args.workers)
    spec = load_spec(args.spec)
    out = Path(args.out) if args.out else Path(f"atlas-{Path(args.spec).stem}")
    result = run_atlas(spec, out, workers=workers, scheduler=args.scheduler,
                       progress=not args.no_progress and not args.json)
    if args.json:
        print_json(result.to_json_dict())
        return 0
    print(format_summary(result.summary))
    for kind, path in result.files.items():
        print(f"{kind}: {path}")
    return 0
