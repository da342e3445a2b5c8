"""Helpers for the checker's soundness fuzzing: walk and edit the leaves of a JSON object, read
a checked-in certificate."""


def leaves(obj, path=()):
    """Paths (tuples of keys / indices) to every non-container value in ``obj``."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from leaves(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from leaves(v, path + (i,))
    else:
        yield path


def pattern(path) -> tuple:
    """A leaf's field: its path with every list index written as '*' (all the steps' ``h`` are
    one field)."""
    return tuple("*" if isinstance(k, int) else k for k in path)


def by_field(paths) -> dict:
    """The paths grouped by :func:`pattern`, fields in sorted order, paths in document order."""
    out = {}
    for path in paths:
        out.setdefault(pattern(path), []).append(path)
    return dict(sorted(out.items()))


def set_leaf(obj, path, value):
    """Replace the value at ``path`` in place."""
    for k in path[:-1]:
        obj = obj[k]
    obj[path[-1]] = value


def roundtrip(cert):
    """As the checker sees a file: JSON text read back with every number kept exact."""
    import json

    from symgauss.kernel.numbers import loads_exact
    return loads_exact(json.dumps(cert))


def reseal(cert):
    """Give a (mutated) certificate the statement the checker produces for its numbers, as a
    forger would, so that the mutation reaches the mathematics. Unchanged when the claim does
    not read at all (the certificate is then invalid anyway)."""
    from symgauss.kernel.checker import statement_of
    from symgauss.kernel.verdict import Invalid
    try:
        cert["claim"]["statement"] = statement_of(roundtrip(cert))
    except (Invalid, KeyError, TypeError, AttributeError):
        pass
    return cert


def checked_in(stem: str) -> dict:
    """The checked-in certificate ``certificates/<stem>.json``, as plain JSON."""
    import json
    from pathlib import Path
    return json.loads((Path(__file__).resolve().parents[1] / "certificates" / f"{stem}.json")
                      .read_text())


def rehash(cert):
    """The problem_hash of the (edited) stored problem, so that only the edit itself is wrong."""
    from symgauss.kernel.read import read_problem
    cert["problem_hash"] = read_problem(roundtrip(cert)["problem"]).hash
    return cert


def padded_to_d3(cert):
    """The d = 2 problem as d = 3 (a decoupled third coordinate, Σ0₃₃ = 1), rehashed: a kind
    for d = 2 must refuse it whatever else is right."""
    p = cert["problem"]
    for key in ("A", "V", "B", "cov0"):
        if key in p:
            p[key] = [r + ["0"] for r in p[key]] + [["0", "0", "1" if key == "cov0" else "0"]]
    for key in ("b", "mean0"):
        if key in p:
            p[key] = p[key] + ["0"]
    return rehash(cert)


def shrunk_to_d1(cert):
    """The problem cut to its first coordinate (d = 1), rehashed: a kind for d = 2 must refuse
    it by name, not through a shape error."""
    p = cert["problem"]
    for key in ("A", "V", "B", "cov0"):
        p[key] = [[p[key][0][0]]]
    for key in ("b", "mean0"):
        p[key] = p[key][:1]
    return rehash(cert)


def assert_refused(cert):
    """The checker says NOT PROVED or INVALID, and for the edit, not for a stale hash or
    statement (which reseal and rehash keep right)."""
    from symgauss.kernel.checker import check_certificate
    v = check_certificate(cert)
    assert v.status in ("not-proved", "invalid"), v
    assert "problem_hash" not in v.reason and "statement" not in v.reason, v.reason
