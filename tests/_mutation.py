"""Helpers for the checker's soundness fuzzing: walk and edit the leaves of a JSON object."""


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
