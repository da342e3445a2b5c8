"""Every file in certificates/ — of every kind — re-checks with the trusted checker."""
from pathlib import Path

import pytest

from symgauss.kernel.checker import check_file

FILES = sorted((Path(__file__).resolve().parents[1] / "certificates").glob("*.json"))


def test_there_are_certificates():
    assert FILES


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_certificate_verifies(path):
    v = check_file(path)
    assert v.status == "verified", f"{path.name}: {v.status}: {v.reason}"
