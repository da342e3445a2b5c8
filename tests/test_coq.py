"""`symgauss export-coq`: every exact certificate re-checked by Coq's kernel; tampering fails.

The exported files are compiled with the real ``coqc`` against the library in ``coq/SymGauss``
(CI installs Coq 8.16 and Bignums from Debian). A file must compile, and ``Print Assumptions``
of its main theorem must list only the documented facts of ``Dynamics.v`` and Coq's primitive
integers; a changed claim or problem number, a proof replaced by ``Admitted`` or an extra
axiom must each make the check fail.
"""
from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import flint
import pytest

from symgauss.export.coq import KINDS, ExportError, export, exportable
from symgauss.export.coq_witness import HintError, _passes, not_nd_hint, pd_hint, rank_hint
from symgauss.export.coqc import assumptions, check_text, undocumented
from symgauss.kernel.checker import load_certificate

ROOT = Path(__file__).resolve().parents[1]
CERTS = sorted(p for p in (ROOT / "certificates").glob("*.json")
               if exportable(json.loads(p.read_text())))
needs_coqc = pytest.mark.skipif(
    shutil.which("coqc") is None,
    reason="coqc not installed (apt-get install coq libcoq-bignums; CI installs it)")
#: the dynamical facts each kind's main theorem must rest on (and no others of Dynamics.v)
EXPECTED = {
    "stable_diag": {"lyapunov_riccati", "lyapunov_mean", "bernoulli_global"},
    "multihead": {"lyapunov_riccati", "lyapunov_mean", "bernoulli_global"},
    "in_range_rank_deficient": {"lyapunov_riccati", "bernoulli_global", "range_stable",
                                "range_attracts"},
    "threshold_unstable": {"inertia_instability"},
    "switched_common_lyapunov": {"common_lyapunov"},
    "robust_global_stable_diag": {"robust_vertices"},
    "unreachable_rank_mismatch": {"rank_invariance"},
    "reach_geodesic_attention": {"flow_nil", "flow_translation", "flow_bernoulli"},
    "structured_multihead": {"lyapunov_svec"},
}
AXIOMS = {"lyapunov_svec", "lyapunov_riccati", "lyapunov_mean", "bernoulli_global",
          "inertia_instability", "common_lyapunov", "robust_vertices", "range_stable",
          "range_attracts", "rank_invariance", "flow_nil", "flow_translation", "flow_bernoulli"}


def test_every_exported_kind_has_a_certificate_here():
    kinds = {json.loads(p.read_text())["kind"] for p in CERTS}
    assert kinds == set(KINDS)
    assert {p.stem for p in CERTS} == set(EXPECTED)


@pytest.fixture(scope="module")
def exported():
    return {p.stem: export(load_certificate(p), p.name) for p in CERTS}


@needs_coqc
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_exported_certificate_checks_in_coq(exported, name):
    run = check_text(exported[name])
    assert run.ok, run.message
    axioms = set(run.assumptions) & AXIOMS
    assert axioms == EXPECTED[name], axioms
    assert not undocumented(run.assumptions)


def _bump_first_entry(text: str, definition: str, factor: int = 1, add: int = 0) -> str:
    """Change the first integer of ``Definition <definition>`` (k ↦ factor·k + add)."""
    start = text.index(f"Definition {definition} :")
    m = re.compile(r"\((-?\d+)\)%bigZ").search(text, text.index(":=", start))
    if definition.endswith("rate"):          # a rational (a, b): change a
        pass
    elif text[start:m.start()].count("SM") == 1:  # skip the denominator of SM (D) [...]
        m = re.compile(r"\((-?\d+)\)%bigZ").search(text, m.end())
    k = int(m.group(1))
    return text[:m.start()] + f"({factor * k + add})%bigZ" + text[m.end():]


#: per certificate, the definition whose first number is changed and how
TAMPER = {
    "stable_diag": ("cov", 1, 1),
    "multihead": ("cov", 1, 1),
    "in_range_rank_deficient": ("r_cov", 1, 1),
    "threshold_unstable": ("cov", 1, 1),
    "switched_common_lyapunov": ("rate", 10 ** 6, 0),
    "robust_global_stable_diag": ("global_rate", 10 ** 6, 0),
    "unreachable_rank_mismatch": ("target", 1, 1),
    "reach_geodesic_attention": ("target_cov", 1, 1),
    "structured_multihead": ("cov", 1, 1),
}


@needs_coqc
@pytest.mark.parametrize("name", sorted(TAMPER))
def test_tampered_number_fails_in_coq(exported, name):
    definition, factor, add = TAMPER[name]
    text = _bump_first_entry(exported[name], definition, factor, add)
    assert text != exported[name]
    run = check_text(text)
    assert not run.ok and "rejected" in run.message, run.message


@needs_coqc
def test_admitted_or_extra_axiom_is_refused(exported):
    text = exported["stable_diag"]
    admitted = re.sub(r"(Theorem certificate :[^\n]*\n)Proof\. exact \(.*\)\. Qed\.",
                      r"\1Admitted.", text, flags=re.S)
    assert admitted != text
    run = check_text(admitted)
    assert not run.ok and "undocumented" in run.message and "certificate" in run.message
    cheat = text.replace("Theorem certificate :", "Axiom cheat : False.\nTheorem certificate :")
    cheat = re.sub(r"Proof\. exact \(.*\)\. Qed\.\n\nPrint", "Proof. destruct cheat. Qed.\n\nPrint",
                   cheat, flags=re.S)
    run = check_text(cheat)
    assert not run.ok and "cheat" in run.message, run.message


@needs_coqc
def test_statement_mentions_claim_numbers(exported):
    """The theorem is about the claimed Σ*: its definition carries the certificate's numbers."""
    cert = json.loads((ROOT / "certificates" / "multihead.json").read_text())
    text = exported["multihead"]
    cov = text[text.index("Definition cov :"):].split("\n", 1)[0]
    # Σ* = [[24/35, -4/35], [-4/35, 24/35]]: over the denominator 35
    assert cov.startswith("Definition cov : smat := (SM (35)%bigZ [[(24)%bigZ; (-4)%bigZ]")
    assert cert["claim"]["cov"][0] == ["24/35", "-4/35"]
    assert "Theorem certificate : Stable prob cov rate /\\ MeanStable" in text


def test_not_exported_when_not_verified_or_not_exact():
    cert = load_certificate(ROOT / "certificates" / "stable_diag.json")
    cert["claim"]["rate"] = "100"
    with pytest.raises(ExportError, match="not a verified certificate"):
        export(cert)
    for name in ("general3", "reach_geodesic", "limit_general3", "blowup_diag"):
        with pytest.raises(ExportError, match="not exported to Coq"):
            export(load_certificate(ROOT / "certificates" / f"{name}.json"))


def test_pd_hint_passes_exactly_and_refuses_indefinite():
    rng = random.Random(7)
    for n in (1, 3, 8, 20):
        G = flint.fmpq_mat(n, n, [flint.fmpq(rng.randint(-9, 9), rng.randint(1, 5))
                                  for _ in range(n * n)])
        M = G * G.transpose() + flint.fmpq_mat(n, n, [flint.fmpq(1, 100) if i == j else 0
                                                       for i in range(n) for j in range(n)])
        R, T, s = pd_hint(M)
        assert _passes(M, R, T, s)
        if n > 1:   # the test can fail: without the factor R the remainder is too large
            assert not _passes(M, [[0] * n for _ in range(n)], T, s)
    with pytest.raises(HintError):
        pd_hint(flint.fmpq_mat([[1, 2], [2, 1]]))
    H = flint.fmpq_mat(12, 12, [flint.fmpq(1, i + j + 1) for i in range(12) for j in range(12)])
    assert _passes(H, *pd_hint(H))             # condition number ≈ 1.7e16: high precision


def test_rank_and_not_nd_hints_are_exact():
    M = flint.fmpq_mat([[1, 2, 3], [2, 4, 6], [1, 0, 1]])
    r, X, Y, Lam, Rho = rank_hint(M)
    assert r == 2 and X * Y.transpose() == M
    assert Lam * M * Rho == flint.fmpq_mat(2, 2, [1, 0, 0, 1])
    P = flint.fmpq_mat([[-1, 3], [3, -2]])
    x = not_nd_hint(P)
    xq = flint.fmpq_mat(2, 1, x)
    assert any(x) and (xq.transpose() * P * xq)[0, 0] >= 0


def test_assumptions_parser():
    out = ("Axioms:\nlyapunov_svec\n  : forall p, ...\nStable : problem -> smat -> rat -> Prop\n"
           "Uint63.add_spec\n  : forall x y, ...\n")
    assert assumptions(out) == ("lyapunov_svec", "Stable", "Uint63.add_spec")
    assert undocumented(("Stable", "PrimInt63.add", "cheat")) == ["cheat"]


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "symgauss", "export-coq", *args],
                          capture_output=True, text=True, env=env, cwd=ROOT)


@needs_coqc
def test_cli_writes_and_checks(tmp_path):
    out = tmp_path / "multihead.v"
    r = _cli("certificates/multihead.json", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "checked by coqc" in r.stdout and out.read_text().startswith("(* Generated")


def test_cli_without_coqc_writes_one_line_exit_0(tmp_path):
    out = tmp_path / "x.v"
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path)}   # no coqc on this PATH
    r = _cli("certificates/stable_diag.json", "-o", str(out), env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("\n") == 1 and "coqc is not installed" in r.stdout
    assert "Theorem certificate" in out.read_text()


def test_cli_bad_input_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    for args in (["certificates/general3.json", "-o", str(tmp_path / "g.v")], [str(bad)]):
        r = _cli(*args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def _designed_certificate(d: int, seed: int):
    """An exact general-V stable-equilibrium certificate (svec witness P) from certify."""
    from symgauss.questions.equilibria.designed import designed_problem
    from symgauss.questions.stability.certify import certify
    for s in range(seed, seed + 20):
        p, _ = designed_problem(d, seed=s)
        res = certify(p, digits=30)
        if res.certificate is not None and res.certificate["kind"] == "stable-equilibrium" \
                and "P" in res.certificate["witness"]:
            return res.certificate
    raise AssertionError("no exact general-V certificate among 20 designed problems")


@needs_coqc
def test_general_v_svec_certificate_checks_in_coq():
    """The svec route (lyapunov_svec: Coq computes the d(d+1)/2 linearisation itself)."""
    cert = _designed_certificate(3, 0)
    text = export(cert)
    run = check_text(text)
    assert run.ok, run.message
    assert set(run.assumptions) & AXIOMS >= {"lyapunov_svec"}
    run = check_text(_bump_first_entry(text, "cov", 1, 1))
    assert not run.ok and "rejected" in run.message


@pytest.mark.slow
@needs_coqc
def test_d10_exact_certificate_checks_in_coq():
    """The issue's size: d = 10, n = 55 (benchmarks/bench_coq.py times it)."""
    run = check_text(export(_designed_certificate(10, 1)))
    assert run.ok, run.message


@needs_coqc
def test_coq_definitions_agree_with_the_python_kernel():
    """Coq's F(Σ), linearisation, mean matrix, R and decay form equal the kernel's on random
    rational data (two heads, scalar V for R): the two independent definitions agree."""
    from symgauss.export.coq import _problem_text, decay, mat
    from symgauss.kernel.equations import linearisation, residual, riccati_R, velocity_matrix
    from symgauss.kernel.read import ExactParams
    rng = random.Random(11)

    def rnd(r, c):
        return flint.fmpq_mat(r, c, [flint.fmpq(rng.randint(-9, 9), rng.randint(1, 7))
                                     for _ in range(r * c)])
    d, n = 3, 6
    eye = flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    p = ExactParams(rnd(d, d), ((eye * flint.fmpq(-3, 2), rnd(d, d)), (eye * 2, rnd(d, d))),
                    rnd(d, 1))
    S, P = rnd(d, d), rnd(n, n)
    facts = {"residual prob S": (d, d, residual(p, S)),
             "linearisation prob S": (n, n, linearisation(p, S)),
             "mean_matrix prob S": (d, d, velocity_matrix(p, S, extra=True)),
             "riccati_R prob": (d, d, riccati_R(p)),
             "decay (linearisation prob S) P ((7)%bigZ, (3)%bigZ)":
                 (n, n, decay(linearisation(p, S), P, flint.fmpq(7, 3)))}
    lines = ["From Coq Require Import ZArith List.", "From Bignums Require Import BigZ.",
             "From SymGauss Require Import Sums Matrix PosDef Moments Dynamics.",
             "Import ListNotations.", f"Definition prob : problem := {_problem_text(p)}.",
             f"Definition S : smat := {mat(S)}.", f"Definition P : smat := {mat(P)}.",
             "Lemma scalar : scalar_heads prob = true. Proof. by_computation. Qed."]
    for k, (expr, (r, c, M)) in enumerate(facts.items()):
        lines.append(f"Lemma agree{k} : MatEq {r} {c} ({expr}) {mat(M)}.\n"
                     "Proof. by_computation. Qed.")
    text = "\n".join(lines) + "\nTheorem certificate : True. Proof. exact I. Qed.\n" \
        "Print Assumptions certificate.\n"
    run = check_text(text)
    assert run.ok, run.message
    wrong = text.replace(mat(residual(p, S)), mat(residual(p, S) * 2), 1)
    assert not check_text(wrong).ok
