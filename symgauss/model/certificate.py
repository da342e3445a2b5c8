"""Writing certificate files (the untrusted side; :mod:`symgauss.kernel.checker` reads them).

>>> from symgauss import Problem
>>> c = envelope("stable-equilibrium", Problem(cov0=[[1]]), {"statement": "…"}, {}, "exact")
>>> c["format"], c["version"], c["problem_hash"].startswith("sha256:")
('symgauss-certificate', 1, True)
"""
from __future__ import annotations

import json
from pathlib import Path

from symgauss.kernel.read import FORMAT, VERSION


def envelope(kind: str, problem, claim: dict, witness: dict, level: str, notes: str = "") -> dict:
    """The common certificate envelope around a kind-specific claim and witness."""
    from symgauss import __version__
    data = problem.to_dict()
    data.pop("name", None)
    out = {"format": FORMAT, "version": VERSION, "kind": kind, "problem": data,
           "problem_hash": problem.hash(), "claim": claim, "witness": witness, "level": level,
           "generated_by": f"symgauss {__version__}"}
    if notes:
        out["notes"] = notes
    return out


def write_certificate(cert: dict, path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cert, indent=1) + "\n", encoding="utf-8")
    return path
