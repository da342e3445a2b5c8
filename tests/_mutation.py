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
