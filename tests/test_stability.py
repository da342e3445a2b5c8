"""Stability decisions: linearisation identities, certificates vs eigenvalues, SDP, regimes, CLI."""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import flint
import numpy as np
import pytest
from _mutation import reseal
from hypothesis import given, settings
from hypothesis import strategies as st

from symgauss import Problem
from symgauss.cli.main import main
from symgauss.kernel.checker import check_certificate, check_file
from symgauss.kernel.read import read_problem
from symgauss.model.linearise import (
    exact_matrix,
    linearisation_exact,
    linearisation_num,
    numeric_params,
    residual_exact,
    structured_N,
    svec,
    to_float_matrix,
)
from symgauss.model.problem_file import load_problem
from symgauss.questions.stability.certify import certify, opposite_sign_regime
from symgauss.questions.stability.robust import common_lyapunov_certificate
from symgauss.questions.stability.witness import (
    common_lyapunov,
    instability_evidence,
    instability_witness,
    lyapunov_witness,
)

EX = Path(__file__).resolve().parents[1] / "symgauss" / "examples"
small = st.integers(-3, 3)


def _mat(draw, d):
    return [[Fraction(draw(small), draw(st.integers(1, 3))) for _ in range(d)] for _ in range(d)]


@st.composite
def problems(draw, heads=1):
    d = draw(st.integers(1, 3))
    hs = [{"V": [[str(x) for x in r] for r in _mat(draw, d)],
           "B": [[str(x) for x in r] for r in _mat(draw, d)]} for _ in range(heads)]
    S = _mat(draw, d)
    S = [[sum(S[i][k] * S[j][k] for k in range(d)) + (i == j) for j in range(d)] for i in range(d)]
    p = Problem(cov0=[[int(i == j) for j in range(d)] for i in range(d)],
                A=[[str(x) for x in r] for r in _mat(draw, d)], heads=hs)
    return p, exact_matrix(S)


@settings(max_examples=40, deadline=None)
@given(problems(heads=2), st.data())
def test_linearisation_is_the_exact_central_difference(case, data):
    """F is quadratic, so (F(S + tE) − F(S − tE))/(2t) = DF(S)[E] exactly."""
    p, S = case
    d = S.nrows()
    E = exact_matrix(_mat(data.draw, d))
    E = (E + E.transpose()) * flint.fmpq(1, 2)
    t = flint.fmpq(data.draw(st.integers(1, 5)), data.draw(st.integers(1, 7)))
    diff = (residual_exact(p.params, S + E * t) - residual_exact(p.params, S - E * t)) * (1 / (2 * t))
    L = linearisation_exact(p.params, S)
    lhs = L * flint.fmpq_mat(len(svec(E.tolist())), 1, svec(E.tolist()))
    assert lhs.entries() == svec(diff.tolist())
    # the float/object-array implementation agrees
    A, heads, _ = numeric_params(p.params, float)
    Lf = linearisation_num(A, heads, to_float_matrix(S))
    assert np.allclose(Lf, to_float_matrix(L))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3), st.data())
def test_structured_spectrum_is_sums_of_pairs(d, data):
    """V = vI: spec(L) = {λ_i(N) + λ_j(N) : i ≤ j}."""
    v = Fraction(data.draw(small), data.draw(st.integers(1, 3)))
    B = _mat(data.draw, d)
    p = Problem(cov0=np.eye(d).astype(int).tolist(), A=[[str(x) for x in r] for r in
                                                        _mat(data.draw, d)],
                V=(v * np.eye(d, dtype=object)).tolist(), B=[[str(x) for x in r] for r in B])
    S = exact_matrix(np.eye(d, dtype=int).tolist())
    N = to_float_matrix(structured_N(p.params, S))
    lam = np.linalg.eigvals(N)
    pairs = sorted((lam[i] + lam[j]) for i in range(d) for j in range(i, d))
    got = np.linalg.eigvals(to_float_matrix(linearisation_exact(p.params, S)))
    # (defective N: eigenvalues are only accurate to about sqrt(machine eps))
    assert all(np.min(np.abs(got - x)) < 1e-6 for x in pairs)
    assert all(np.min(np.abs(np.array(pairs) - y)) < 1e-6 for y in got)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.data())
def test_lyapunov_witness_agrees_with_eigenvalues(n, data):
    L = exact_matrix([[Fraction(data.draw(st.integers(-9, 9)), 4) for _ in range(n)]
                      for _ in range(n)])
    mu = np.max(np.linalg.eigvals(to_float_matrix(L)).real)
    w = lyapunov_witness(L, rate_factor=2)
    if w is not None:
        assert float(w[1]) <= -mu + 1e-12     # the certified rate is a true lower bound
    elif mu < -1e-6:
        pytest.fail(f"stable matrix (abscissa {mu}) without a witness")
    ev = instability_evidence(L)
    if ev is not None:
        assert mu >= float(ev[0]) - 1e-12
    elif mu > 1e-6:
        pytest.fail(f"unstable matrix (abscissa {mu}) without evidence")
    wit = instability_witness(L)
    if wit is not None:
        assert mu > float(wit[0])   # the certified growth is a true lower bound
    elif mu > 1e-6:
        pytest.fail(f"unstable matrix (abscissa {mu}) without an instability witness")


def test_stable_diag_certificate_checks_and_claims_are_true():
    res = certify(load_problem(EX / "stable_diag.json"))
    assert res.status == "verified" and res.level == "exact"
    c = res.certificate["claim"]
    assert c["cov"] == [["1", "0"], ["0", "3"]]
    # true rate of L is 2 (eigenvalues −2, −4, −6); mean matrix −I; A has spectrum {1, 3}
    assert 0 < Fraction(c["rate"]) <= 2 and 0 < Fraction(c["mean_rate"]) <= 1
    assert 0 < Fraction(c["global_rate"]) <= 1
    assert check_certificate(json.loads(json.dumps(res.certificate))).ok


def test_threshold_refused_with_evidence(tmp_path, capsys):
    out, ev = tmp_path / "c.json", tmp_path / "ev.json"
    assert main(["certify", str(EX / "threshold.json"), "-o", str(out), "--evidence",
                 str(ev)]) == 1
    err = capsys.readouterr().err
    assert "unstable" in err and "real part" in err
    assert not out.exists()
    v = check_file(ev)
    assert v.ok and v.kind == "unstable-equilibrium"


def test_certify_cli_writes_a_checked_file(tmp_path, capsys):
    out = tmp_path / "c.json"
    assert main(["certify", str(EX / "stable_diag.json"), "-o", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["certified"] is True
    assert main(["check", str(out)]) == 0


def test_no_equilibrium_is_refused_with_a_proof(tmp_path, capsys):
    # R = −2I ≺ 0 but A = −I has no eigenvalue with Re > 0: no positive-definite equilibrium
    p = tmp_path / "p.json"
    p.write_text('{"cov0": [[1, 0], [0, 1]], "A": [[-1, 0], [0, -1]], "V": [[-1, 0], [0, -1]],'
                 ' "B": [[1, 0], [0, 1]]}')
    assert main(["certify", str(p), "-o", str(tmp_path / "c.json")]) == 1
    assert "no positive-definite equilibrium exists" in capsys.readouterr().err
    assert opposite_sign_regime(load_problem(p)).status == "refuted"


def test_singular_lyapunov_operator_gives_a_clear_message(tmp_path, capsys):
    # A = 0: P ↦ AᵀP + PA is singular; the covariance decays like 1/t, no equilibrium ≻ 0
    p = tmp_path / "p.json"
    p.write_text('{"cov0": [[1]], "A": [[0]], "V": [[-1]], "B": [[1]]}')
    assert main(["certify", str(p), "-o", str(tmp_path / "c.json")]) == 1
    assert "no positive-definite equilibrium" in capsys.readouterr().err


def test_regimes():
    assert opposite_sign_regime(load_problem(EX / "stable_diag.json")).status == "verified"
    assert opposite_sign_regime(load_problem(EX / "general3.json")).status == "undecided"
    assert opposite_sign_regime(load_problem(EX / "threshold.json")).status == "undecided"


def test_general3_certificate_is_rigorous():
    res = certify(load_problem(EX / "general3.json"))
    assert res.status == "verified" and res.level == "rigorous"
    assert "cov_center" in res.certificate["claim"]


def test_common_lyapunov_sdp():
    L1, L2 = [[-1, 2], [0, -1]], [[-1, 0], [1, -2]]
    found = common_lyapunov([L1, L2], Fraction(1, 4))
    assert found is not None and found[1] > 0
    switched = Problem(cov0=[[1, 0], [0, 1]], controls=[{"duration": 1, "A": L1},
                                                        {"duration": "1/2", "A": L2}])
    cert = common_lyapunov_certificate(switched, "1/4")
    assert check_certificate(cert).ok
    # the same P does not work for a third, unstable parameter set: not proved, not refuted
    bad = switched.to_dict()
    bad["controls"].append({"duration": "1", "A": [["1", "0"], ["0", "-1"]]})
    forged = dict(cert, problem={k: v for k, v in bad.items() if k != "name"})
    forged["problem_hash"] = read_problem(forged["problem"]).hash
    assert check_certificate(reseal(forged)).status == "not-proved"
    # the convex hull contains an unstable matrix → no common Lyapunov function
    assert common_lyapunov([[[-1, 10], [0, -1]], [[-1, 0], [10, -1]]], Fraction(1, 10)) is None
    assert common_lyapunov([[[1, 0], [0, -1]]], Fraction(1, 10)) is None


def test_multihead_equals_single_head_structure():
    res = certify(load_problem(EX / "multihead.json"))
    assert res.status == "verified" and "Q" in res.certificate["witness"]


# --- robust certificate for a box of parameters ---------------------------------------------

def _robust_problem():
    from importlib.resources import files

    from symgauss import load_problem
    return load_problem(files("symgauss") / "examples" / "stable_diag.json")


ROBUST_BOX = [{"entry": ["A", 0, 1], "from": "-1/2", "to": "1/2"},
              {"entry": ["A", 1, 1], "from": "2", "to": "4"}]


def test_robust_global_certificate_checks_and_holds_inside_the_box():
    import json

    import numpy as np

    from symgauss.kernel.checker import check_certificate
    from symgauss.kernel.numbers import loads_exact
    from symgauss.questions.stability.robust import robust_global_certificate
    cert = robust_global_certificate(_robust_problem(), ROBUST_BOX)
    assert check_certificate(loads_exact(json.dumps(cert))).ok
    # independent float check at random interior points: AZ + ZAᵀ − 2gZ ≻ 0
    from fractions import Fraction
    Z = np.array([[float(Fraction(x)) for x in r] for r in cert["witness"]["Z"]])
    g = float(Fraction(cert["claim"]["global_rate"]))
    rng = np.random.default_rng(1)
    for _ in range(50):
        A = np.array([[1.0, rng.uniform(-0.5, 0.5)], [0.0, rng.uniform(2, 4)]])
        assert np.linalg.eigvalsh(A @ Z + Z @ A.T - 2 * g * Z).min() > 0


@pytest.mark.parametrize("edit", [
    lambda c: c["claim"]["box"][1].__setitem__("from", "-1"),   # a box too wide: not proved
    lambda c: c["claim"].__setitem__("global_rate", "5"),       # rate too high: not proved
    lambda c: c["claim"]["box"][0].__setitem__("from", "1/4"),  # excludes the stored A: invalid
    lambda c: c["claim"]["box"].append(c["claim"]["box"][0]),   # repeated entry: invalid
    lambda c: c["claim"]["box"][0].__setitem__("entry", ["A", 0, 7]),
    lambda c: c["claim"]["box"][0].__setitem__("entry", ["B", 0, 1]),
    lambda c: c["witness"].__setitem__("Z", [["1", "0"], ["0", "__import__('os')"]]),
])
def test_robust_global_mutations_are_not_accepted(edit):
    import copy
    import json

    from symgauss.kernel.checker import check_certificate
    from symgauss.kernel.numbers import loads_exact
    from symgauss.questions.stability.robust import robust_global_certificate
    cert = copy.deepcopy(robust_global_certificate(_robust_problem(), ROBUST_BOX))
    edit(cert)
    assert check_certificate(loads_exact(json.dumps(cert))).status != "verified"
    v = check_certificate(loads_exact(json.dumps(reseal(cert))))    # as a forger would
    assert v.status in ("not-proved", "invalid") and v.reason


def test_certify_cli_with_a_box(tmp_path):
    import contextlib
    import io
    import json
    from importlib.resources import files

    from symgauss.cli.main import main
    box = tmp_path / "box.json"
    box.write_text(json.dumps(ROBUST_BOX))
    out = tmp_path / "robust.json"
    p = str(files("symgauss") / "examples" / "stable_diag.json")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["certify", p, "-o", str(out), "--box", str(box)]) == 0
        assert main(["check", str(out)]) == 0
    box.write_text('[{"entry": ["A", "1/2", 0], "from": 0, "to": 1}]')
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["certify", p, "-o", str(out), "--box", str(box)]) == 2
    assert "integers" in err.getvalue() and err.getvalue().count("\n") == 1
    # same-sign problem: R is not ≺ 0, so no robust certificate (refused, exit 1)
    box.write_text(json.dumps([{"entry": ["A", 0, 0], "from": "-2", "to": "0"}]))
    q = str(files("symgauss") / "examples" / "threshold.json")
    with contextlib.redirect_stderr(io.StringIO()):
        assert main(["certify", q, "-o", str(out), "--box", str(box)]) == 1


# --- rank-deficient cov0: certified inside the invariant range ---------------------------------

def _in_range_cert():
    from importlib.resources import files

    from symgauss import load_problem
    from symgauss.questions.stability.certify import certify
    res = certify(load_problem(files("symgauss") / "examples" / "rank_deficient.json"))
    assert res.status == "verified", res.reason
    return res.certificate


def test_rank_deficient_cov0_is_certified_in_its_invariant_range():
    import json
    from fractions import Fraction

    import numpy as np

    from symgauss.kernel.checker import check_certificate
    from symgauss.kernel.numbers import loads_exact
    cert = _in_range_cert()
    assert cert["kind"] == "stable-equilibrium-in-range"
    assert check_certificate(loads_exact(json.dumps(cert))).ok
    # independently: Σ* = U S* Uᵀ solves the full d×d equation exactly, and the flow from cov0
    # (float integration) approaches it
    U = np.array([[float(Fraction(x)) for x in r] for r in cert["claim"]["basis"]])
    S = np.array([[float(Fraction(x)) for x in r] for r in cert["claim"]["reduced"]["cov"]])
    Sigma = U @ S @ U.T
    from importlib.resources import files

    from symgauss import load_problem
    from symgauss import solve_float as solve_moments_float
    p = load_problem(files("symgauss") / "examples" / "rank_deficient.json")
    A, V, B = (np.array(M.tolist(), dtype=float) for M in (p.A, p.V, p.B))
    F = A @ Sigma + Sigma @ A.T + V @ Sigma @ B @ Sigma + Sigma @ B.T @ Sigma @ V.T
    assert np.abs(F).max() == 0
    late = np.array(solve_moments_float(p, 10).cov)
    assert np.abs(late - Sigma).max() < 1e-8


@pytest.mark.parametrize("edit,status", [
    (lambda c: c["claim"].__setitem__("basis", [["0"], ["1"], ["0"]]), "refuted"),  # wrong range
    (lambda c: c["claim"].__setitem__("basis", [["1"], ["1"], ["0"]]), "refuted"),  # not invariant
    (lambda c: c["claim"]["reduced"].__setitem__("cov", [["3"]]), "refuted"),       # not an eq.
    (lambda c: c["claim"]["reduced"].__setitem__("rate", "100"), "not-proved"),
    (lambda c: c["claim"]["reduced"].__setitem__("mean", ["0"]), "invalid"),
    (lambda c: c["claim"].__setitem__("basis", [["1", "0"], ["0", "1"], ["0", "0"]]), "invalid"),
    (lambda c: c["claim"].__setitem__("basis", "__import__('os')"), "invalid"),
])
def test_in_range_mutations_are_not_accepted(edit, status):
    import copy
    import json

    from symgauss.kernel.checker import check_certificate
    from symgauss.kernel.numbers import loads_exact
    cert = copy.deepcopy(_in_range_cert())
    edit(cert)
    v = check_certificate(loads_exact(json.dumps(reseal(cert))))    # as a forger would
    assert v.status == status, v.reason


# --- "refuted" only with proof (issue 12, A.5) -------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1])
def test_unstable_equilibria_after_a_search_are_not_a_refutation(seed):
    """General V, d = 3: the Newton search is not exhaustive, so finding only unstable
    equilibria is *undecided*, with the instability evidence attached (it checks)."""
    from symgauss.questions.equilibria.designed import designed_problem
    p, _ = designed_problem(3, seed=seed, kind="random")
    res = certify(p, digits=20)
    assert res.status == "undecided" and "not exhaustive" in res.reason
    assert res.certificate["kind"] == "unstable-equilibrium"
    assert check_certificate(res.certificate).status == "verified"


def test_certify_cli_refuses_undecided_with_exit_1(tmp_path, capsys):
    from symgauss.questions.equilibria.designed import designed_problem
    p, _ = designed_problem(3, seed=0, kind="random")
    f = tmp_path / "p.json"
    f.write_text(json.dumps(p.to_dict()))
    assert main(["certify", str(f), "-o", str(tmp_path / "c.json"), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["status"] == "undecided"
    assert not (tmp_path / "c.json").exists()


def test_refutation_with_a_complete_list():
    """V = vI (complete by the Lyapunov route): the threshold equilibrium is unstable and the
    only one, so "refuted" is proved."""
    res = certify(load_problem(EX / "threshold.json"))
    assert res.status == "refuted" and "complete" in res.reason
    assert check_certificate(res.certificate).status == "verified"


# --- exact spectral decisions ---------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.data())
def test_abscissa_sign_agrees_with_eigenvalues_away_from_the_axis(n, data):
    from symgauss.questions.stability.spectrum import abscissa
    A = exact_matrix(_mat(data.draw, n))
    mu = float(np.max(np.linalg.eigvals(to_float_matrix(A)).real))
    sign = abscissa(A).sign
    if mu > 1e-6:
        assert sign == 1
    elif mu < -1e-6:
        assert sign == -1


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(-2, 2), st.integers(1, 3), st.integers(-3, 3), st.data())
def test_abscissa_is_exact_on_the_axis(w, shift, scale, a, data):
    """T·blockdiag([[0, w], [−w, 0]], c)·T⁻¹ has eigenvalues ±iw exactly: sign 0 when c < 0
    (semisimple), sign 1 when c > 0; and a Jordan block at 0 is not semisimple."""
    from symgauss.questions.stability.spectrum import abscissa
    T = exact_matrix([[1, a, 0], [0, 1, shift], [scale, 0, 1]])
    if T.det() == 0:
        return
    for c, sign in ((-scale, 0), (scale, 1)):
        D = exact_matrix([[0, w, 0], [-w, 0, 0], [0, 0, c]])
        ab = abscissa(T * D * T.inv())
        assert ab.sign == sign
        if sign == 0:
            assert ab.semisimple is True
    J = T * exact_matrix([[0, 1, 0], [0, 0, 0], [0, 0, -1]]) * T.inv()
    assert abscissa(J).sign == 0 and abscissa(J).semisimple is False


def test_rigorous_instability_by_inertia():
    """An irrational unstable equilibrium (d = 3 general V, Newton route): its instability is
    proved over the whole enclosure, and the linearisation's eigenvalues agree."""
    from symgauss.questions.equilibria.designed import designed_problem
    from symgauss.questions.equilibria.search import find_equilibria
    p, _ = designed_problem(3, seed=2, kind="random")
    q = p.replace(A=[[str(x) for x in r] for r in (exact_matrix(p.params.A) + exact_matrix(
        [[0, "1/997", 0], [0, 0, 0], [0, 0, 0]])).tolist()])
    rig = [e for e in find_equilibria(q, digits=20) if e.level == "rigorous"]
    assert any(e.stable is False for e in rig)
    A, heads, _ = numeric_params(q.params, float)
    for e in rig:
        S = np.array([[float(x) for x in r] for r in e.cov])
        mu = np.max(np.linalg.eigvals(linearisation_num(A, heads, S)).real)
        assert e.stable is (False if mu > 0 else True)
        if e.stable is False:
            assert e.stability.level == "rigorous" and "inertia" in e.stability.reason


@pytest.mark.slow
def test_beyond_the_kernel_size_limit_no_svec_certificate_is_claimed():
    """d = 13 > the kernel's limit for svec certificates: the equilibrium search decides
    stability but writes no svec certificate (it says so), and certify takes the d×d route,
    whose certificate the kernel verifies."""
    from symgauss.kernel.checker import check_certificate
    from symgauss.questions.equilibria.designed import designed_problem
    from symgauss.questions.equilibria.search import find_equilibria
    from symgauss.questions.stability.local import certifiable
    assert not certifiable("stable-equilibrium", 13) and certifiable("stable-equilibrium", 12)
    p, S = designed_problem(13, seed=1)
    found = [e for e in find_equilibria(p, digits=20) if e.rank == 13]
    assert found and all(e.stability.certificate is None and "size limit" in e.stability.reason
                         for e in found if e.stability is not None)
    res = certify(p)
    L = to_float_matrix(linearisation_exact(p.params, S))
    assert np.max(np.linalg.eigvals(L).real) < 0  # the designed Σ* is stable
    assert res.status == "verified", res.reason
    assert res.certificate["kind"].startswith("stable-equilibrium-structured")
    assert check_certificate(res.certificate).status == "verified"
