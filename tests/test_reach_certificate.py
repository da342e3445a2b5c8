"""Reach / unreachable certificates: accepted when true, rejected when mutated, never a crash."""
from __future__ import annotations

import copy
import json
from importlib import resources
from pathlib import Path

import pytest
from _mutation import leaves, reseal, set_leaf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symgauss import Problem
from symgauss.kernel.checker import check_certificate, check_file
from symgauss.kernel.read import read_problem
from symgauss.questions.reach.controls import make_certificate

CERTS = Path(__file__).resolve().parent.parent / "certificates"


def _example(name):
    from symgauss.model.problem_file import load_problem
    return load_problem(resources.files("symgauss") / "examples" / name)


@pytest.fixture(scope="module")
def geodesic_cert():
    return make_certificate(_example("reach_geodesic.json"), method="geodesic")


@pytest.fixture(scope="module")
def attention_cert():
    return make_certificate(_example("reach_geodesic.json"), method="attention")


@pytest.fixture(scope="module")
def unreachable_cert():
    return make_certificate(Problem(cov0=[[1, 0], [0, 1]],
                                    target={"mean": [0, 0], "cov": [[1, 1], [1, 1]]}))


def _rehash(cert):
    cert["problem_hash"] = read_problem(cert["problem"]).hash
    return cert


def _roundtrip(cert):
    from symgauss.kernel.numbers import loads_exact
    return loads_exact(json.dumps(cert))


def test_examples_verify(geodesic_cert, attention_cert, unreachable_cert):
    rank1 = make_certificate(_example("rank1_d3.json"))
    for c, kind in ((geodesic_cert, "reach"), (attention_cert, "reach"), (rank1, "reach"),
                    (unreachable_cert, "unreachable")):
        v = check_certificate(_roundtrip(c))
        assert c["kind"] == kind and v.ok, v.reason
    assert attention_cert["level"] == "exact" and attention_cert["claim"]["epsilon"] == "0"
    assert geodesic_cert["level"] == "rigorous"


@pytest.mark.parametrize("path", sorted(CERTS.glob("reach_*.json")), ids=lambda p: p.name)
def test_stored_certificates_verify(path):
    v = check_file(path)
    assert v.ok, v.reason


def test_changed_target_is_refuted(geodesic_cert, attention_cert):
    for base in (geodesic_cert, attention_cert):
        c = copy.deepcopy(base)
        c["problem"]["target"]["cov"][0][0] = "91/10"
        assert check_certificate(c).status == "invalid"          # hash no longer matches
        assert check_certificate(_rehash(c)).status == "refuted"
        c = copy.deepcopy(base)
        c["problem"]["target"]["mean"][1] = "-1.0000000001"
        assert check_certificate(_rehash(c)).status == "refuted"


def test_perturbed_controls_are_refuted(geodesic_cert, attention_cert):
    c = copy.deepcopy(geodesic_cert)
    a = c["witness"]["controls"][0]["A"][0][0]
    c["witness"]["controls"][0]["A"][0][0] = a[:-3] + ("1" if a[-3] != "1" else "2") + a[-2:]
    assert check_certificate(c).status == "refuted"
    c = copy.deepcopy(attention_cert)
    pc = next(p for p in c["witness"]["controls"] if "V" in p)
    pc["B"][0][0] = pc["B"][0][0] + "1"                      # a changed numerator
    assert check_certificate(c).status != "verified"
    c = copy.deepcopy(geodesic_cert)
    c["claim"]["epsilon"] = "1e-80"
    assert check_certificate(c).status == "invalid"       # the statement names the old epsilon
    assert check_certificate(reseal(c)).status == "refuted"


def test_durations_must_add_up(geodesic_cert):
    c = copy.deepcopy(geodesic_cert)
    c["witness"]["controls"][0]["duration"] = "1/2"
    v = check_certificate(c)
    assert v.status == "invalid" and "add up" in v.reason


def test_nonlinear_pieces_are_not_accepted(geodesic_cert):
    c = copy.deepcopy(geodesic_cert)
    c["witness"]["controls"][0]["V"] = [["1", "2"], ["0", "1"]]
    c["witness"]["controls"][0]["B"] = [["1", "0"], ["0", "1"]]
    v = check_certificate(c)
    assert v.status == "invalid" and "nonlinear" in v.reason


def test_unreachable_mutations(unreachable_cert):
    c = copy.deepcopy(unreachable_cert)
    c["claim"]["rank_cov0"] = 0
    assert check_certificate(c).status == "invalid"        # the statement names the old ranks
    assert check_certificate(reseal(c)).status == "refuted"
    c["claim"]["rank_cov0"] = 1                            # 1 ≠ 1 is no obstruction
    assert check_certificate(reseal(c)).status == "invalid"
    c = copy.deepcopy(unreachable_cert)
    c["problem"]["target"]["cov"] = [["1", "0"], ["0", "2"]]   # now rank 2 = rank cov0
    assert check_certificate(_rehash(c)).status == "refuted"
    c = copy.deepcopy(unreachable_cert)
    del c["problem"]["target"]
    assert check_certificate(_rehash(c)).status == "invalid"


GARBAGE = st.one_of(st.text(max_size=8), st.none(), st.booleans(), st.integers(-10, 10),
                    st.lists(st.text(max_size=3), max_size=3),
                    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
                    st.sampled_from(["nan", "1/0", "1e99999", "-1", "0", "1e-5000", "inf"]))




@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_garbage_never_crashes(geodesic_cert, attention_cert, unreachable_cert, data):
    base = data.draw(st.sampled_from([geodesic_cert, attention_cert, unreachable_cert]))
    c = copy.deepcopy(base)
    paths = [p for p in leaves(c) if p[0] in ("problem", "claim", "witness", "problem_hash")]
    path = data.draw(st.sampled_from(paths))
    value = data.draw(GARBAGE)
    set_leaf(c, path, value)
    if data.draw(st.booleans()):
        try:
            _rehash(c)
        except Exception:
            pass
    if data.draw(st.booleans()):
        reseal(c)
    v = check_certificate(c)
    assert v.status in ("verified", "refuted", "not-proved", "invalid")
    # changes that make the claim false or unprovable (epsilon may grow, precision hints and
    # the unused constant parameters of the stored problem may change; with a fresh hash)
    # (an unreachable claim depends on the ranks only, so its problem may change harmlessly)
    numeric = (path[0] == "problem" and path[1] in ("cov0", "mean0", "target")
               and base["kind"] == "reach") or \
        (path[0] == "claim" and path[1] in ("T", "rank_cov0", "rank_target_cov")) or \
        path[:2] == ("witness", "controls")
    old = base
    for k in path:
        old = old[k]
    if numeric and not _same_number(value, old):
        assert not v.ok, (path, value, v.reason)


def _same_number(a, b) -> bool:
    """A mutation that writes the same number in other words ("00" for "0") changes nothing."""
    from symgauss.kernel.numbers import parse_rational
    try:
        return parse_rational(a, "a") == parse_rational(b, "b")
    except (ValueError, TypeError):
        return str(a) == str(b)
