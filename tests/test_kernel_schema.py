"""The closed certificate format, tried on every kind: whatever is dropped, duplicated, retyped,
added, relabelled or re-worded, the verdict is never VERIFIED; the output is safe; four verdicts
with their exit codes.

Every test is generated from the checked-in certificates (one per kind at least), so a new kind
is covered as soon as its certificate is checked in.
"""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from _mutation import leaves, reseal, roundtrip, set_leaf
from _oracle import claim_holds

from symgauss.kernel.checker import KINDS, check_certificate, check_file
from symgauss.kernel.numbers import loads_exact

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "certificates").glob("*.json"))
CERTS = {p.stem: json.loads(p.read_text()) for p in FILES}
SECTIONS = ("claim", "witness")


def _never_verified(cert, why, resealed=True):
    twin = reseal(copy.deepcopy(cert)) if resealed else cert
    # resealing a certificate whose claim is unchanged gives the same file: checked once
    for c in (cert, twin) if twin != cert else (cert,):
        v = check_certificate(roundtrip(c))
        assert v.status != "verified", (why, v.reason)
        assert v.reason.strip(), why


def _keys(name):
    cert = CERTS[name]
    return [(s, k) for s in SECTIONS for k in cert[s] if k != "statement"]


CASES = [(n, s, k) for n in CERTS for s, k in _keys(n)]


@pytest.mark.parametrize("name,section,key", CASES)
def test_dropping_any_key_is_never_verified(name, section, key):
    cert = copy.deepcopy(CERTS[name])
    del cert[section][key]
    schema = KINDS[cert["kind"]].SCHEMAS[cert["kind"]]
    optional = not getattr(schema, section)[key].required
    # dropping an optional part is a weaker claim: it may verify once the statement says so
    _never_verified(cert, f"{name}: drop {section}.{key}", resealed=not optional)


@pytest.mark.parametrize("name,section,key", CASES)
def test_a_duplicated_key_is_invalid(name, section, key, tmp_path):
    text = json.dumps(CERTS[name])
    value = json.dumps(CERTS[name][section][key])
    # the same key twice in one object: the second copy says something else
    dup = text.replace(f'"{section}": {{', f'"{section}": {{"{key}": {json.dumps("0")}, ', 1)
    assert dup != text
    path = tmp_path / "dup.json"
    path.write_text(dup)
    v = check_file(path)
    assert v.status == "invalid" and "twice" in v.reason, (name, key, value, v.reason)


RETYPES = [None, True, "not a number", [], {}, [["1"]], ["1", "2"], "1/0", "٣", "１"]


@pytest.mark.parametrize("name,section,key", CASES)
def test_retyping_any_value_is_never_verified(name, section, key):
    for junk in RETYPES:
        cert = copy.deepcopy(CERTS[name])
        old = cert[section][key]
        if old == junk or (isinstance(old, list) and isinstance(junk, list) and
                           len(old) == len(junk) and
                           all(isinstance(r, list) == isinstance(j, list) for r, j in
                               zip(old, junk))):
            continue   # a value of the same type and shape is not a retyping
        cert[section][key] = junk
        _never_verified(cert, f"{name}: {section}.{key} = {junk!r}")


def _foreign_keys():
    """Every claim/witness key of every kind, with a value of its own kind."""
    out = {}
    for name, cert in CERTS.items():
        for s, k in _keys(name):
            out.setdefault((s, k), cert[s][k])
    return out


@pytest.mark.parametrize("name", sorted(CERTS))
def test_keys_of_other_kinds_are_invalid(name):
    cert = CERTS[name]
    schema = KINDS[cert["kind"]].SCHEMAS[cert["kind"]]
    for (section, key), value in _foreign_keys().items():
        if key in getattr(schema, section):     # this kind's own key (an optional one: read)
            continue
        c = copy.deepcopy(cert)
        c[section][key] = value
        v = check_certificate(roundtrip(reseal(c)))
        assert v.status == "invalid" and key in v.reason, (name, section, key, v.reason)


@pytest.mark.parametrize("name", sorted(CERTS))
def test_level_and_statement_must_be_what_the_checker_proves(name):
    cert = CERTS[name]
    for level in ("exact", "rigorous", "high-precision", "float", "", 42, None,
                  "proved-in-lean", "EXACT"):
        if level == cert["level"]:
            continue
        c = copy.deepcopy(cert)
        c["level"] = level
        assert check_certificate(roundtrip(c)).status == "invalid", (name, level)
    others = {c["claim"]["statement"] for c in CERTS.values()} - {cert["claim"]["statement"]}
    for text in sorted(others) + ["", "the opposite: it is false", cert["claim"]["statement"]
                                  .replace("stable", "unstable") + " ", 7, None]:
        c = copy.deepcopy(cert)
        c["claim"]["statement"] = text
        assert check_certificate(roundtrip(c)).status == "invalid", (name, text)
    c = copy.deepcopy(cert)
    del c["claim"]["statement"]
    assert check_certificate(roundtrip(c)).status == "invalid"


@pytest.mark.parametrize("name", sorted(CERTS))
def test_changing_a_claimed_number_never_verifies_a_false_claim(name):
    cert = CERTS[name]
    for path in leaves(cert["claim"]):
        if path[-1] == "statement":
            continue
        c = copy.deepcopy(cert)
        value = c["claim"]
        for k in path:
            value = value[k]
        try:
            new = str(json.loads(json.dumps(value)) * 2 + 1) if isinstance(value, int) else \
                (value + "1" if isinstance(value, str) and value[-1:].isdigit() else None)
        except TypeError:
            new = None
        if new is None or new == value:
            continue
        set_leaf(c["claim"], path, new)
        if check_certificate(roundtrip(c)).ok:   # e.g. a narrower box: a weaker, true claim
            assert claim_holds(c), (name, path)


def test_envelope_is_closed_and_numbers_are_ascii():
    cert = CERTS["stable_diag"]
    for key, value in (("extra", 1), ("notes", 5), ("generated_by", ["x"])):
        c = copy.deepcopy(cert)
        c[key] = value
        assert check_certificate(roundtrip(c)).status == "invalid", key
    for digits in ("٩/٥", "１/２", "9/5\u200b"):
        c = copy.deepcopy(cert)
        c["claim"]["rate"] = digits
        v = check_certificate(roundtrip(reseal(c)))
        assert v.status == "invalid", (digits, v.reason)


def test_every_kind_is_exercised():
    assert {c["kind"] for c in CERTS.values()} == set(KINDS)


# --- output ------------------------------------------------------------------------------------
def _run_check(*files):
    return subprocess.run([sys.executable, "-m", "symgauss", "check", *map(str, files)],
                          capture_output=True, text=True, cwd=ROOT)


def test_a_hostile_kind_cannot_draw_on_the_terminal(tmp_path):
    hostile = "x\r" + FILES[0].name + ": VERIFIED \x1b[2K\x1b[32m\u202e\u2066\ud800"
    c = copy.deepcopy(CERTS["stable_diag"])
    c["kind"] = hostile
    f = tmp_path / "hostile.json"
    f.write_text(json.dumps(c), encoding="utf-8")
    out = _run_check(f)
    assert out.returncode == 2, out
    line = out.stdout
    assert line.count("\n") == 1 and "INVALID" in line
    assert all(ch not in line for ch in "\r\x1b\u202e\u2066") and "\\r" in line
    assert out.stderr == ""


def test_exit_codes_are_the_worst_verdict(tmp_path):
    good = ROOT / "certificates" / "stable_diag.json"
    refuted = copy.deepcopy(CERTS["stable_diag"])
    refuted["claim"]["cov"][1][1] = "1/3"
    not_proved = reseal(copy.deepcopy(CERTS["threshold_unstable"]))
    not_proved["claim"]["growth"] = "1000"
    files = {}
    for name, c in (("refuted", refuted), ("not_proved", reseal(not_proved))):
        files[name] = tmp_path / f"{name}.json"
        files[name].write_text(json.dumps(c))
    files["invalid"] = tmp_path / "invalid.json"
    files["invalid"].write_text("{not json")
    assert _run_check(good).returncode == 0
    assert _run_check(good, files["not_proved"]).returncode == 3
    assert _run_check(files["not_proved"], files["refuted"]).returncode == 1
    assert _run_check(files["refuted"], files["invalid"], good).returncode == 2
    out = _run_check(files["not_proved"])
    assert "NOT-PROVED" in out.stdout or "NOT PROVED" in out.stdout.upper().replace("-", " ")


def test_help_documents_the_verdicts_and_exit_codes():
    out = subprocess.run([sys.executable, "-m", "symgauss", "check", "--help"],
                         capture_output=True, text=True, cwd=ROOT)
    for word in ("VERIFIED", "REFUTED", "INVALID", "NOT PROVED", "exit 0", "exit 1", "exit 2",
                 "exit 3"):
        assert word in out.stdout, word


def test_the_file_must_be_a_certificate(tmp_path):
    cases = {"empty.json": b"", "nul.json": b"\x00\x01", "latin1.json": "{\"a\": \"\xe9\"}"
             .encode("latin-1"), "list.json": b"[1, 2]", "deep.json": b"[" * 100000}
    for name, data in cases.items():
        f = tmp_path / name
        f.write_bytes(data)
        v = check_file(f)
        assert v.status == "invalid" and v.reason, name
    assert check_file(tmp_path / "missing.json").status == "invalid"


def test_a_file_over_the_size_limit_is_invalid(tmp_path):
    from symgauss.kernel.checker import MAX_FILE_BYTES
    c = copy.deepcopy(CERTS["stable_diag"])
    c["notes"] = "x" * 100
    f = tmp_path / "big.json"
    f.write_text(json.dumps(c) + " " * MAX_FILE_BYTES)
    v = check_file(f)
    assert v.status == "invalid" and "limit" in v.reason


def test_loads_exact_refuses_duplicates_in_problem_files_too():
    from symgauss.kernel.errors import InputFormatError
    with pytest.raises(InputFormatError, match="twice"):
        loads_exact('{"cov0": [[1]], "A": [[1]], "A": [[-1]]}')
