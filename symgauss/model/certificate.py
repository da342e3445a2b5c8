"""Writing certificate files (the untrusted side; :mod:`symgauss.kernel.checker` reads them).

The claim's ``statement`` is not written by the search: it is the statement the trusted checker
produces from the claim's numbers (:func:`symgauss.kernel.checker.statement_of`), so a file can
only say what the checker proves.

>>> import symgauss as sg
>>> c = envelope("unreachable", sg.Problem(cov0=[[1, 0], [0, 1]],
...              target={"cov": [[1, 0], [0, 0]]}), {"rank_cov0": 2, "rank_target_cov": 1}, {},
...              "exact")
>>> c["format"], c["version"], c["claim"]["statement"][:33]
('symgauss-certificate', 2, 'rank cov0 = 2 ≠ 1 = rank target.c')
>>> sg.check(c).status
'verified'
"""
from __future__ import annotations

import json
from pathlib import Path

from symgauss.kernel.checker import statement_of
from symgauss.kernel.read import FORMAT, VERSION
from symgauss.kernel.verdict import Invalid


def envelope(kind: str, problem, claim: dict, witness: dict, level: str, notes: str = "",
             *, dynamics: bool = True) -> dict:
    """The certificate around a kind's claim and witness, with the checker's statement.

    ``dynamics=False`` stores only cov0, mean0 and the target (a reach certificate's dynamics
    are its witness controls).
    """
    from symgauss import __version__
    if "statement" in claim:
        raise ValueError("the claim's statement is produced by the checker; do not pass one")
    data = problem.to_dict()
    data.pop("name", None)
    if not dynamics:
        data = {k: v for k, v in data.items() if k in ("cov0", "mean0", "target")}
    h = problem.hash() if dynamics else _hash_of(data)
    out = {"format": FORMAT, "version": VERSION, "kind": kind, "problem": data,
           "problem_hash": h, "claim": {"statement": "", **claim}, "witness": witness,
           "level": level, "generated_by": f"symgauss {__version__}"}
    if notes:
        out["notes"] = notes
    try:
        out["claim"]["statement"] = statement_of(out)
    except Invalid as exc:  # a bug in the writer, not the user's input
        raise RuntimeError(f"the {kind} certificate written is malformed: {exc}") from None
    return out


def _hash_of(data: dict) -> str:
    from symgauss.kernel.read import read_problem
    return read_problem(data).hash


def write_certificate(cert: dict, path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cert, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
