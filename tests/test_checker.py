"""The trusted checker: soundness under mutation (Hypothesis), clear reasons, import hygiene.

Soundness oracle: whenever a mutated certificate is accepted, its claim is re-derived
independently (numpy eigenvalues and Fraction arithmetic on the problem read by the
*untrusted* problem loader) and must hold.
"""
from __future__ import annotations

import ast
import copy
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from _mutation import leaves, set_leaf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symgauss.kernel.checker import check_certificate
from symgauss.kernel.read import read_problem
from symgauss.model.problem_file import problem_from_dict

ROOT = Path(__file__).resolve().parents[1]
KERNEL_LINES = 1200  # lines of code of symgauss/kernel (measured: see the closing note)


def _certs():
    from symgauss.questions.stability.robust import common_lyapunov_certificate
    out = {p.stem: json.loads(p.read_text()) for p in sorted((ROOT / "certificates").glob("*.json"))
           if json.loads(p.read_text()).get("kind") in ("stable-equilibrium",
                                                        "unstable-equilibrium", "robust-global")}
    prob = problem_from_dict(out["stable_diag"]["problem"])
    out["common"] = common_lyapunov_certificate(
        prob, [[[-1, 2], [0, -1]], [[-1, 0], [1, -2]]], "1/4")
    return out


CERTS = _certs()


# --- an independent oracle -----------------------------------------------------------------------
def _F(x):
    return Fraction(str(x))


def _fm(M):
    return [[_F(x) for x in row] for row in M]


def _mul(X, Y):
    return [[sum(X[i][k] * Y[k][j] for k in range(len(Y))) for j in range(len(Y[0]))]
            for i in range(len(X))]


def _add(X, Y):
    return [[a + b for a, b in zip(r, s)] for r, s in zip(X, Y)]


def _T(X):
    return [list(c) for c in zip(*X)]


def _flt(X):
    return np.array([[float(x) for x in r] for r in X])


def _lin_float(A, heads, S):
    d = len(S)
    pairs = [(i, j) for i in range(d) for j in range(i, d)]
    cols = []
    for i, j in pairs:
        E = np.zeros((d, d))
        E[i, j] = E[j, i] = 1
        X = A @ E + E @ A.T
        for V, B in heads:
            X += V @ E @ B @ S + V @ S @ B @ E + E @ B.T @ S @ V.T + S @ B.T @ E @ V.T
        cols.append([X[k, l] for k, l in pairs])
    return np.array(cols).T


def claim_holds(cert) -> bool:
    """Re-derive the accepted claim independently (floats with tolerances, exact residuals)."""
    p = problem_from_dict(copy.deepcopy(cert["problem"]))
    c = cert["claim"]
    if cert["kind"] == "common-lyapunov":
        rate = float(_F(c["rate"]))
        return all(np.max(np.linalg.eigvals(_flt(_fm(L))).real) <= -rate + 1e-9
                   for L in c["matrices"])
    A = [[Fraction(int(x.p), int(x.q)) for x in p.A.row(i)] for i in range(p.d)]
    if cert["kind"] == "robust-global":
        # every A in the box must have spectrum in Re ≥ g (vertices and random interior points)
        R = p.params.quadratic_R()
        if R is None or np.max(np.linalg.eigvalsh(_flt(_fm(R.tolist())))) >= 0:
            return False
        g, rng = float(_F(c["global_rate"])), np.random.default_rng(0)
        box = [(int(str(e["entry"][1])), int(str(e["entry"][2])), float(_F(e["from"])),
                float(_F(e["to"]))) for e in c["box"]]
        for k in range(2 ** len(box) + 20):
            Av = _flt(A)
            for bit, (i, j, lo, hi) in enumerate(box):
                Av[i, j] = (hi if k >> bit & 1 else lo) if k < 2 ** len(box) else \
                    rng.uniform(lo, hi)
            if np.min(np.linalg.eigvals(Av).real) < g - 1e-9:
                return False
        return True
    heads = [([[Fraction(int(x.p), int(x.q)) for x in h.V.row(i)] for i in range(p.d)],
              [[Fraction(int(x.p), int(x.q)) for x in h.B.row(i)] for i in range(p.d)])
             for h in p.heads]
    S = _fm(c["cov"] if "cov" in c else c["cov_center"])
    M = A
    for V, B in heads:
        M = _add(M, _mul(_mul(V, S), B))
    F = _add(_mul(M, S), _T(_mul(M, S)))
    tol = float(_F(c.get("cov_radius", 0))) * 1e3
    if "cov" in c and any(x != 0 for r in F for x in r):
        return False
    if "cov_center" in c and np.max(np.abs(_flt(F))) > tol + 1e-25:
        return False
    L = _lin_float(_flt(A), [(_flt(V), _flt(B)) for V, B in heads], _flt(S))
    abscissa = np.max(np.linalg.eigvals(L).real)
    if cert["kind"] == "unstable-equilibrium":
        return abscissa >= float(_F(c["growth"])) - 1e-9 and np.min(np.linalg.eigvalsh(_flt(S))) > 0
    ok = abscissa <= -float(_F(c["rate"])) + 1e-9 and np.min(np.linalg.eigvalsh(_flt(S))) > 0
    if "mean" in c:
        Mm = A
        for V, B in heads:
            Mm = _add(Mm, _add(V, _mul(_mul(V, S), B)))
        m = [[_F(x)] for x in c["mean"]]
        b = [[Fraction(int(x.p), int(x.q))] for x in p.b]
        ok &= all(x[0] == 0 for x in _add(_mul(Mm, m), b))
        ok &= np.max(np.linalg.eigvals(_flt(Mm)).real) <= -float(_F(c["mean_rate"])) + 1e-9
    if "global_rate" in c:
        R = p.params.quadratic_R()
        ok &= R is not None and np.max(np.linalg.eigvalsh(_flt(_fm(R.tolist())))) < 0
        ok &= np.min(np.linalg.eigvals(_flt(A)).real) >= float(_F(c["global_rate"])) - 1e-9
    return bool(ok)


# --- mutations ----------------------------------------------------------------------------------


def _get(obj, path):
    for k in path:
        obj = obj[k]
    return obj


def _containers(obj, path=()):
    if isinstance(obj, dict):
        yield path
        for k, v in obj.items():
            yield from _containers(v, path + (k,))


EVIL = ["__import__('os').system('true')", "1/0", "nan", "inf", "1e999999", "", " ", "0x10",
        "1_000", "[1]", None, True, [], {}, "sympify", "1" * 5000, "-0", "1/-0"]


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(sorted(CERTS)))
    cert = copy.deepcopy(CERTS[name])
    op = draw(st.sampled_from(["scale", "negate", "evil", "perturb", "drop", "rename", "rate",
                               "problem", "swap"]))
    paths = [p for p in leaves(cert) if p and p[0] in ("problem", "claim", "witness")]
    path = draw(st.sampled_from(paths))
    value = _get(cert, path)
    if op in ("scale", "negate", "perturb", "problem") and not isinstance(value, (str, int)):
        op = "evil"
    try:
        x = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        x, op = None, "evil"
    if op == "scale":
        set_leaf(cert, path, str(x * Fraction(draw(st.integers(-7, 7)), draw(st.integers(1, 5)))))
    elif op == "negate":
        set_leaf(cert, path, str(-x))
    elif op == "perturb":
        eps = Fraction(draw(st.integers(-1000, 1000)), 10 ** draw(st.integers(0, 40)))
        set_leaf(cert, path, str(x + eps))
    elif op == "evil":
        set_leaf(cert, path, draw(st.sampled_from(EVIL)))
    elif op == "drop":
        cpath = draw(st.sampled_from(list(_containers(cert))))
        box = _get(cert, cpath)
        if box:
            box.pop(draw(st.sampled_from(sorted(box))))
    elif op == "rename":
        cpath = draw(st.sampled_from(list(_containers(cert))))
        box = _get(cert, cpath)
        if box:
            k = draw(st.sampled_from(sorted(box)))
            box[k + draw(st.sampled_from(["_", "s", "X"]))] = box.pop(k)
    elif op == "rate":
        for key in ("rate", "mean_rate", "global_rate", "growth"):
            if key in cert["claim"]:
                cert["claim"][key] = str(Fraction(str(cert["claim"][key])) *
                                         Fraction(draw(st.integers(11, 40)), 10))
    elif op == "problem":  # change an entry of the stored problem and re-hash it consistently
        path = draw(st.sampled_from([p for p in paths if p[0] == "problem"]))
        y = Fraction(str(_get(cert, path)))
        set_leaf(cert, path, str(y + Fraction(draw(st.integers(-5, 5)) or 1,
                                          draw(st.integers(1, 10 ** 6)))))
        try:
            cert["problem_hash"] = read_problem(cert["problem"]).hash
        except Exception:
            pass
    elif op == "swap":  # a witness from another certificate
        other = CERTS[draw(st.sampled_from(sorted(CERTS)))]
        cert["witness"] = copy.deepcopy(other["witness"])
    return name, op, cert


@settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated())
def test_mutations_never_accept_a_false_claim(case):
    name, op, cert = case
    v = check_certificate(cert)
    assert v.status in ("verified", "refuted", "invalid")
    assert isinstance(v.reason, str) and v.reason.strip()
    if v.ok:
        assert claim_holds(cert), (name, op, v.reason)


def test_originals_verify_and_are_true():
    for name, cert in CERTS.items():
        v = check_certificate(cert)
        assert v.ok, (name, v.reason)
        assert claim_holds(cert), name


@pytest.mark.parametrize("key", ["rate", "growth"])
def test_raised_rate_is_refuted(key):
    name = "stable_diag" if key == "rate" else "threshold_unstable"
    cert = copy.deepcopy(CERTS[name])
    cert["claim"][key] = str(Fraction(str(cert["claim"][key])) * 100)
    v = check_certificate(cert)
    assert v.status == "refuted" and v.reason


def test_changed_problem_breaks_the_hash():
    cert = copy.deepcopy(CERTS["stable_diag"])
    cert["problem"]["A"][0][0] = "2"
    v = check_certificate(cert)
    assert v.status == "invalid" and "problem_hash" in v.reason


def test_not_an_equilibrium_is_refuted_with_reason():
    cert = copy.deepcopy(CERTS["stable_diag"])
    cert["claim"]["cov"][1][1] = "1/3"   # the swapped P*/Σ*: not an equilibrium
    v = check_certificate(cert)
    assert v.status == "refuted" and "not an equilibrium" in v.reason


def test_code_in_number_fields_is_never_evaluated(tmp_path):
    marker = tmp_path / "pwned"
    cert = copy.deepcopy(CERTS["stable_diag"])
    cert["claim"]["rate"] = f"__import__('os').system('touch {marker}')"
    v = check_certificate(cert)
    assert v.status == "invalid" and "not an exact number" in v.reason
    assert not marker.exists()


def test_non_dict_and_garbage():
    for junk in (None, [], "x", 3, {"format": "symgauss-certificate"}):
        v = check_certificate(junk)
        assert v.status == "invalid" and v.reason


def test_checking_loads_no_forbidden_module():
    """In a fresh interpreter, checking every certificate pulls in none of the search libraries."""
    code = f"""
import sys, types, importlib.util
root = {str(ROOT)!r}
from symgauss.kernel.checker import check_file
import glob
for f in sorted(glob.glob(root + "/certificates/*.json")):
    check_file(f)
bad = sorted(m for m in sys.modules if m.split(".")[0] in ("cvxpy", "scipy", "sympy", "mpmath",
             "numpy") or m in ("symgauss.questions.stability.certify", "symgauss.questions.equilibria.search", "symgauss.model.problem"))
print(",".join(bad))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", out.stdout


def _code_lines(path) -> int:
    """Lines holding code: not blank, not comments, not docstrings."""
    import io
    import tokenize
    src = (ROOT / path).read_text()
    docs = set()
    for node in ast.walk(ast.parse(src)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(getattr(body[0], "value", None), ast.Constant) and \
                isinstance(body[0].value.value, str):
            docs.update(range(body[0].lineno, body[0].end_lineno + 1))
    lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                            tokenize.DEDENT, tokenize.ENDMARKER):
            lines.update(n for n in range(tok.start[0], tok.end[0] + 1) if n not in docs)
    return len(lines)


def test_trusted_kernel_is_small():
    # the whole trusted kernel (symgauss/kernel: number reading, exact and ball linear algebra,
    # the checker and every kind) in lines of code; docstrings and comments are not counted
    n = sum(_code_lines(p.relative_to(ROOT)) for p in (ROOT / "symgauss" / "kernel").rglob("*.py"))
    assert n < KERNEL_LINES, n


def test_symgauss_check_cli_loads_only_the_trusted_kernel():
    """The real command path (package __init__ included) imports no search library."""
    code = f"""
import glob, io, contextlib, sys
from symgauss.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    rc = main(["check"] + sorted(glob.glob({str(ROOT)!r} + "/certificates/*.json")))
bad = sorted(m for m in sys.modules if m.split(".")[0] in ("cvxpy", "scipy", "sympy", "mpmath",
             "numpy", "torch", "dask", "matplotlib"))
loaded = sorted(m for m in sys.modules if m.startswith("symgauss.")
                and not m.startswith(("symgauss.kernel.", "symgauss.cli.")))
print(rc, ",".join(bad), ",".join(loaded))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    rc, bad, loaded = (out.stdout.strip().split(" ") + ["", ""])[:3]
    assert rc == "0" and bad == ""
    assert set(filter(None, loaded.split(","))) <= {"symgauss.cli", "symgauss.kernel"}
