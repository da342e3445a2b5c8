import mpmath
import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _global_state_unchanged():
    """Tests (and the code they call) must leave global numeric state as they found it."""
    import flint
    before = (mpmath.mp.prec, flint.ctx.prec, repr(np.get_printoptions()))
    yield
    after = (mpmath.mp.prec, flint.ctx.prec, repr(np.get_printoptions()))
    assert after == before, f"global state changed: {before} -> {after}"


# CI runs are reproducible (the same examples every run); local runs explore new ones.
import os  # noqa: E402

from hypothesis import settings  # noqa: E402

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

collect_ignore = ["vulture_whitelist.py"]  # a list of names for vulture, not Python to run


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):  # noqa: ARG001 (pytest passes both by name)
    """Under CI every check runs: a skip (a missing tool or extra) is a failure there, so a
    skipped check is never passed off as done. Locally a skip says what is missing."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI") and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"skipped under CI, where every check must run: {reason}"


def pytest_collection_modifyitems(items):
    """The slow checks first (a stable sort, so the order is otherwise the files'): pytest's
    workers then finish on short tests, rather than one of them on a check of 30–80 s while
    the other has nothing left."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
