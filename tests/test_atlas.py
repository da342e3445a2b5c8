"""Regime atlas: the scalar phase diagram cell by cell, d = 2 on a two-worker Dask cluster,
resumability, failing cells, bad specs, the CLI and the heat map."""
from __future__ import annotations

import json
import random
from fractions import Fraction
from importlib.resources import files

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symgauss import Problem
from symgauss.atlas.run import run_atlas
from symgauss.atlas.spec import AtlasSpec, load_spec, parse_spec
from symgauss.cli.main import main
from symgauss.kernel.errors import BlowUpError, ProblemError, SymgaussError
from symgauss.kernel.numbers import loads_exact
from symgauss.questions.regime.classify import classify

EXAMPLES = files("symgauss") / "examples"


# --- the analytic phase diagram of σ' = 2aσ + 2cσ² (c = vβ), written independently ---------
def phase(a: Fraction, c: Fraction, s0: Fraction) -> str:
    if c > 0 and (a >= 0 or s0 > -a / c):
        return "blow-up"
    if c < 0 < a:
        return "stable-equilibrium"          # convergence to −a/c
    if (c < 0 and a <= 0) or (c > 0 > a and s0 < -a / c) or (c == 0 > a):
        return "decay"
    if c == 0 < a:
        return "growth"
    if c == 0 and a == 0:
        return "constant"
    assert c > 0 > a and s0 == -a / c      # σ0 on the threshold: the equilibrium itself
    return "constant"


def t_star_closed_form(a: Fraction, c: Fraction, s0: Fraction, dps: int = 40):
    with mpmath.workdps(dps):
        a_, c_, s_ = (mpmath.mpf(x.numerator) / x.denominator for x in (a, c, s0))
        if a == 0:
            return 1 / (2 * c_ * s_)
        return mpmath.log(1 + a_ / (c_ * s_)) / (2 * a_)


def test_scalar_41x41_reproduces_the_phase_diagram(tmp_path):
    spec = load_spec(EXAMPLES / "atlas_scalar.json")
    assert spec.shape == (41, 41)
    s0 = Fraction(1)
    res = run_atlas(spec, tmp_path, workers=0, progress=False, plot=False)
    assert res.summary["errors"] == 0 and len(res.cells) == 41 * 41
    seen = set()
    for point, cell in zip(spec.points(), res.cells):
        a, c = point                       # V = c·[[1]], B = [[1]]: vβ = c
        assert [Fraction(x) for x in cell["point"]] == [a, c]
        want = phase(a, c, s0)
        assert cell["regime"] == want, (a, c, cell)
        assert cell["level"] == "exact"
        seen.add(want)
        if want == "blow-up":
            with mpmath.workdps(40):
                exact = t_star_closed_form(a, c, s0)
                got = mpmath.mpf(cell["t_star"])
                assert abs(got - exact) <= abs(exact) * mpmath.mpf(10) ** -29
        else:
            assert cell["t_star"] is None
    assert seen == {"blow-up", "stable-equilibrium", "decay", "growth", "constant"}
    # a rerun is served from the cache, cell for cell
    again = run_atlas(spec, tmp_path, workers=0, progress=False, plot=False)
    assert again.computed == 0 and again.cached == 41 * 41
    assert [c["regime"] for c in again.cells] == [c["regime"] for c in res.cells]


def test_classify_scalar_t_star_agrees_with_integration():
    """T* from the closed form brackets the blow-up seen by an independent float integrator."""
    rng = random.Random(8)
    for _ in range(4):
        a = Fraction(rng.randint(-6, 6), rng.randint(1, 4))
        c = Fraction(rng.randint(1, 6), rng.randint(1, 4))
        s0 = Fraction(rng.randint(1, 8), rng.randint(1, 3)) + max(Fraction(0), -a / c)
        p = Problem(cov0=[[s0]], A=[[a]], V=[[c]], B=[[1]])
        r = classify(p, digits=20)
        assert r.kind == "blow-up" and r.level == "exact"
        t = float(r.t_star)
        from symgauss.integrate.float_solver import solve_moments_float
        solve_moments_float(p, Fraction(t * (1 - 1e-4)).limit_denominator(10 ** 12))
        with pytest.raises(BlowUpError):
            solve_moments_float(p, Fraction(t * (1 + 1e-3)).limit_denominator(10 ** 12))


def test_classify_50_digits_and_multihead():
    r = classify(Problem(cov0=[[1]], A=[[1]], V=[[1]], B=[[1]]), digits=50)
    with mpmath.workdps(60):
        assert abs(mpmath.mpf(r.t_star) - mpmath.log(2) / 2) < mpmath.mpf(10) ** -50
    assert len(r.t_star.replace("0.", "", 1)) == 50 and "log(2)" in r.t_star_exact
    # two heads: vβ adds up over heads (1·1 + (−2)·1 = −1 < 0 < a = 1): stable, σ* = 1
    two = Problem(cov0=[[3]], A=[[1]], heads=[{"V": [[1]], "B": [[1]]}, {"V": [[-2]], "B": [[1]]}])
    r2 = classify(two)
    assert r2.kind == "stable-equilibrium" and r2.equilibrium == (("1",),)


def _diag_expected(a_list, c_list, s_list):
    kinds = [phase(a, c, s) for a, c, s in zip(a_list, c_list, s_list)]
    if "blow-up" in kinds:
        return "blow-up"
    if "growth" in kinds:
        return "growth"
    if len(set(kinds)) == 1 and kinds[0] in ("decay", "constant", "stable-equilibrium"):
        return kinds[0]   # V = vI: the transversal coefficients −(a_i + a_j) are < 0
    return "bounded"


def test_d2_sweep_on_a_two_worker_dask_cluster(tmp_path):
    from distributed import LocalCluster
    spec = parse_spec({
        "problem": {"A": [[0, 0], [0, 1]], "V": [[1, 0], [0, 1]], "B": [[1, 0], [0, 2]],
                    "cov0": [[1, 0], [0, "1/2"]]},
        "axes": [{"vary": ["A", 0, 0], "grid": {"from": -1, "to": 1, "steps": 3}},
                 {"vary": {"scale": "V"}, "grid": {"from": -1, "to": 1, "steps": 2}}],
        "digits": 20})
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        assert len(cluster.workers) == 2    # --scheduler ADDRESS: an existing cluster
        res = run_atlas(spec, tmp_path, scheduler=cluster.scheduler_address, progress=False,
                        plot=False)
    assert res.computed == 6 and res.summary["errors"] == 0
    for (a, v), cell in zip(spec.points(), res.cells):
        want = _diag_expected([a, Fraction(1)], [v, 2 * v], [Fraction(1), Fraction(1, 2)])
        assert cell["regime"] == want, (a, v, cell)
        if want == "blow-up":       # the first coordinate to blow up sets T*
            ts = [t_star_closed_form(x, c, s) for x, c, s in
                  ((a, v, Fraction(1)), (Fraction(1), 2 * v, Fraction(1, 2)))
                  if phase(x, c, s) == "blow-up"]
            assert float(cell["t_star"]) == pytest.approx(float(min(ts)), rel=1e-15)


def test_unreachable_scheduler_is_one_clear_error(tmp_path, monkeypatch):
    import socket

    from symgauss.atlas import run as atlas
    monkeypatch.setattr(atlas, "CONNECT_TIMEOUT", "1s")
    with socket.socket() as sock:        # a free port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    spec = parse_spec(GOOD)
    with pytest.raises(atlas.ClusterError, match="cannot reach the Dask scheduler"):
        run_atlas(spec, tmp_path, scheduler=f"tcp://127.0.0.1:{port}", progress=False)


def test_failing_cells_are_recorded_and_the_sweep_goes_on(tmp_path):
    spec = parse_spec({"problem": {"cov0": [[1]], "V": [[1]], "B": [[1]]},
                       "axes": [{"vary": {"scale": "cov0"},
                                 "grid": {"from": -1, "to": 1, "steps": 5}}]})
    res = run_atlas(spec, tmp_path, workers=0, progress=False, plot=False)
    errs = [c for c in res.cells if c["error"]]
    assert [c["point"] for c in errs] == [["-1"], ["-1/2"]]
    assert all("NotPSDError" in c["error"] and c["regime"] is None for c in errs)
    assert [c["regime"] for c in res.cells[2:]] == ["constant", "blow-up", "blow-up"]
    assert res.summary["errors"] == 2 and res.summary["regimes"]["error"] == 2
    rows = (tmp_path / "atlas.csv").read_text().splitlines()
    assert rows[0].startswith("scale of cov0,regime,level,t_star") and len(rows) == 6


def test_resume_computes_only_the_missing_cells(tmp_path):
    spec = parse_spec({"problem": {"cov0": [[1]], "V": [[1]], "B": [[1]]},
                       "axes": [{"vary": ["A", 0, 0], "grid": {"from": -2, "to": 2, "steps": 9}}]})
    first = run_atlas(spec, tmp_path, workers=0, progress=False, plot=False)
    cache = tmp_path / "cells.jsonl"
    lines = cache.read_text().splitlines()
    assert len(lines) == 9
    # an interrupted run: four cells finished, the fifth torn in the middle of its line
    cache.write_text("\n".join(lines[:4]) + "\n" + lines[4][:30])
    again = run_atlas(spec, tmp_path, workers=0, progress=False, plot=False)
    assert again.computed == 5 and again.cached == 4
    assert run_atlas(spec, tmp_path, workers=0, progress=False, plot=False).cached == 9
    def strip(cells):
        return [{k: v for k, v in c.items() if k != "seconds"} for c in cells]
    assert strip(again.cells) == strip(first.cells)
    # another digits setting is another cell
    other = AtlasSpec(spec.base, spec.axes, digits=10)
    assert run_atlas(other, tmp_path, workers=0, progress=False, plot=False).computed == 9


def test_an_interrupted_sweep_keeps_what_finished(tmp_path, monkeypatch):
    from symgauss.questions.regime import classify as regime
    spec = parse_spec({"problem": {"cov0": [[1]], "V": [[1]], "B": [[1]]},
                       "axes": [{"vary": ["A", 0, 0], "grid": {"from": -2, "to": 2, "steps": 9}}]})
    real, calls = regime.classify, []

    def stopping(problem, **kw):
        calls.append(1)
        if len(calls) == 6:
            raise KeyboardInterrupt
        return real(problem, **kw)
    monkeypatch.setattr(regime, "classify", stopping)
    with pytest.raises(KeyboardInterrupt):
        run_atlas(spec, tmp_path, workers=0, progress=False, plot=False)
    monkeypatch.setattr(regime, "classify", real)
    again = run_atlas(spec, tmp_path, workers=0, progress=False, plot=False)
    assert again.cached == 5 and again.computed == 4


# --- bad specs ------------------------------------------------------------------------------
GOOD = {"problem": {"cov0": [[1, 0], [0, 1]]},
        "axes": [{"vary": ["A", 0, 1], "grid": {"from": 0, "to": 1, "steps": 3}}]}


def _with(**changes):
    spec = json.loads(json.dumps(GOOD))
    for path, value in changes.items():
        *head, last = path.split("__")
        obj = spec
        for k in head:
            obj = obj[int(k)] if isinstance(obj, list) else obj[k]
        if isinstance(obj, list):
            obj[int(last)] = value
        else:
            obj[last] = value
    return spec


@pytest.mark.parametrize("spec, fragment", [
    (_with(colour="red"), "unknown key 'colour'"),
    (_with(axes=[]), "one or two axes"),
    (_with(axes=[GOOD["axes"][0]] * 3), "one or two axes"),
    (_with(axes__0__vary=["Q", 0, 0]), "'Q' is not a parameter"),
    (_with(axes__0__vary=["A", 0, 2]), "expected an integer in 0..1"),
    (_with(axes__0__vary=["A", "0.5", 0]), "expected an integer"),
    (_with(axes__0__vary=["A", 0]), "a matrix entry is"),
    (_with(axes__0__vary={"scale": "W"}), "'W' is not a parameter"),
    (_with(axes__0__vary={"scale": "V", "factor": 2}), "unknown key 'factor'"),
    (_with(axes__0__grid={"from": 0, "to": 1}), "'steps' is missing"),
    (_with(axes__0__grid={"from": 0, "to": 1, "steps": 0}), "expected an integer in 1.."),
    (_with(axes__0__grid={"from": 0, "to": 1, "steps": 1}), "steps = 1 but from != to"),
    (_with(axes__0__grid={"from": "__import__('os')", "to": 1, "steps": 2}), "not an exact"),
    (_with(axes__0__grid={"from": 0, "to": "1/0", "steps": 2}), "zero denominator"),
    (_with(axes__0__label=3), "label: expected a string"),
    (_with(axes__0__wobble=1), "unknown key 'wobble'"),
    (_with(digits=0), "digits"),
    (_with(certificates="yes"), "true or false"),
    (_with(problem={"cov0": [[1, 2], [2, 1]]}), "not positive semidefinite"),
    (_with(axes=[GOOD["axes"][0], GOOD["axes"][0]]), "both axes vary the same"),
    (_with(axes=[GOOD["axes"][0], {"vary": {"scale": "A"},
                                   "grid": {"from": 0, "to": 1, "steps": 2}}]), "order"),
])
def test_bad_specs_raise_clear_errors(spec, fragment):
    with pytest.raises(ProblemError) as info:
        parse_spec(loads_exact(json.dumps(spec)))
    assert fragment in str(info.value)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=6)
                    | st.floats(allow_nan=True),
                    lambda x: st.lists(x, max_size=4) | st.dictionaries(
                        st.sampled_from(["vary", "grid", "from", "to", "steps", "scale",
                                         "label", "head"]), x, max_size=4), max_leaves=10))
def test_junk_axes_never_crash(axis):
    """Junk is either a valid axis (then its grid is exact and inside its bounds) or one clear
    error naming the axis — never another exception, never a silent wrong grid."""
    try:
        spec = parse_spec({"problem": GOOD["problem"], "axes": [axis]})
    except SymgaussError as exc:
        msg = str(exc)
        assert "axes[0]" in msg and "\n" not in msg, msg
        return
    (ax,) = spec.axes
    lo, hi = (Fraction(str(axis["grid"][k])) for k in ("from", "to"))
    assert len(ax.values) == int(str(axis["grid"]["steps"]))
    assert ax.values[0] == lo and ax.values[-1] == hi
    assert all(isinstance(v, Fraction) for v in ax.values)


def test_spec_problem_from_a_file_beside_it(tmp_path):
    (tmp_path / "p.json").write_text('{"cov0": [[1]], "V": [[0.5]], "B": [[1]]}')
    (tmp_path / "s.json").write_text('{"problem": "p.json", "axes": [{"vary": ["A", 0, 0], '
                                     '"grid": {"from": "-0.1", "to": "0.1", "steps": 3}}]}')
    spec = load_spec(tmp_path / "s.json")
    assert spec.base["V"] == [["1/2"]] and [str(v) for v in spec.axes[0].values] == \
        ["-1/10", "0", "1/10"]
    (tmp_path / "bad.json").write_text('{"problem": "nowhere.json", "axes": []}')
    with pytest.raises(ProblemError, match="nowhere.json"):
        load_spec(tmp_path / "bad.json")


def test_cell_problem_targets():
    base = {"cov0": [[2, 1], [1, 2]], "A": [[1, 2], [3, 4]],
            "heads": [{"V": [[1, 0], [0, 1]], "B": [[1, 0], [0, 1]]},
                      {"V": [[2, 0], [0, 2]], "B": [[0, 1], [1, 0]]}]}
    spec = parse_spec({"problem": base, "axes": [
        {"vary": {"scale": "V", "head": 1}, "grid": {"from": 3, "to": 3, "steps": 1}},
        {"vary": ["cov0", 1, 0], "grid": {"from": "1/2", "to": "1/2", "steps": 1}}]})
    p = spec.cell_problem(spec.points()[0])
    assert p.heads[1].V[0, 0] == 6 and p.heads[0].V[0, 0] == 1
    assert p.cov0[0, 1] == p.cov0[1, 0] == Fraction(1, 2) and p.A[1, 0] == 3
    with pytest.raises(ProblemError, match="which one"):
        parse_spec({"problem": base, "axes": [{"vary": {"scale": "V"},
                                               "grid": {"from": 0, "to": 1, "steps": 2}}]})


# --- CLI and heat map ------------------------------------------------------------------------
def test_cli_writes_table_summary_and_heat_map(tmp_path, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({
        "name": "small", "problem": {"cov0": [[1]], "V": [[1]], "B": [[1]]},
        "axes": [{"vary": ["A", 0, 0], "grid": {"from": -2, "to": 2, "steps": 5}, "label": "a"},
                 {"vary": {"scale": "V"}, "grid": {"from": "-1", "to": "1", "steps": 5}}]}))
    out = tmp_path / "out"
    assert main(["atlas", str(spec), "--out", str(out), "--workers", "0", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["cells"] == 25 and doc["summary"]["levels"] == {"exact": 25}
    for name in ("atlas.csv", "atlas.json", "atlas.png", "atlas.pdf"):
        assert (out / name).stat().st_size > 500
    assert (out / "atlas.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "atlas.pdf").read_bytes()[:4] == b"%PDF"
    table = json.loads((out / "atlas.json").read_text())
    assert table["cells"][0]["a"] == "-2" and table["cells"][0]["point"] == ["-2", "-1"]
    # one axis: a strip with T* drawn above it
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"problem": {"cov0": [[1]], "V": [[1]], "B": [[1]]},
                               "axes": [{"vary": ["A", 0, 0],
                                         "grid": {"from": -2, "to": 2, "steps": 5}}]}))
    assert main(["atlas", str(one), "--out", str(tmp_path / "o1"), "--workers", "0",
                 "--no-progress"]) == 0
    assert "regimes:" in capsys.readouterr().out
    assert (tmp_path / "o1" / "atlas.pdf").exists()


def test_cli_bad_input_is_one_line(tmp_path, capsys):
    spec = tmp_path / "bad.json"
    spec.write_text('{"problem": {"cov0": [[1]]}, "axes": [{"vary": ["A", 0, 0]}]}')
    assert main(["atlas", str(spec), "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs 'vary'" in err
    assert main(["atlas", str(tmp_path / "missing.json")]) == 2
    assert main(["atlas", str(spec), "--workers", "-1"]) == 2


# --- beyond diagonal: symgauss.questions.blowup.decide and symgauss.questions.stability.certify -----------------------------------
def test_general_d2_cells_agree_with_integration_and_the_equilibrium_equation():
    from symgauss.integrate.float_solver import solve_moments_float
    base = dict(cov0=[[1, "1/3"], ["1/3", 1]], A=[[1, "1/2"], [0, 1]], B=[[1, 0], [0, 2]])
    up = Problem(V=[[1, 0], [0, 1]], **base)
    r = classify(up, digits=20, certify=False)
    assert r.kind == "blow-up" and r.level in ("high-precision", "rigorous", "exact")
    t = float(r.t_star)
    solve_moments_float(up, Fraction(t * (1 - 1e-4)).limit_denominator(10 ** 12))
    with pytest.raises(BlowUpError):
        solve_moments_float(up, Fraction(t * (1 + 1e-3)).limit_denominator(10 ** 12))
    down = Problem(V=[[-1, 0], [0, -1]], **base)
    r = classify(down, certify=False)
    assert r.kind == "stable-equilibrium" and r.level in ("exact", "rigorous")
    import sympy as sp
    S = sp.Matrix([[sp.Rational(x) for x in row] for row in r.equilibrium])
    A, V, B = down.A, down.V, down.B
    assert A * S + S * A.T + V * S * B * S + S * B.T * S * V.T == sp.zeros(2, 2)
    late = solve_moments_float(down, 30)
    assert max(abs(late.cov[i][j] - float(S[i, j])) for i in range(2) for j in range(2)) < 1e-8


def test_certificates_are_written_per_cell_and_check(tmp_path):
    from symgauss.kernel.checker import check_file
    spec = parse_spec({"problem": {"cov0": [[1]], "V": [[1]], "B": [[1]]},
                       "certificates": True,
                       "axes": [{"vary": ["A", 0, 0], "grid": {"from": -1, "to": 1, "steps": 3}},
                                {"vary": {"scale": "V"},
                                 "grid": {"from": -1, "to": 1, "steps": 2}}]})
    res = run_atlas(spec, tmp_path, workers=0, progress=False, plot=False)
    made = {c["regime"]: c["certificate"] for c in res.cells if c["certificate"]}
    # d = 1: a = −1 with V < 0 decays (kind limit, validated steps), a = 1 converges, V > 0
    assert set(made) == {"blow-up", "stable-equilibrium", "decay"}
    for cell in res.cells:
        if cell["certificate"]:
            assert check_file(tmp_path / cell["certificate"]).ok


@pytest.mark.parametrize("V, B, A, stable", [
    ([[1, 0], [0, -1]], [[-1, 0], [0, 1]], [[1, 0], [0, 1]], False),   # unstable off-diagonal
    ([[-1, 0], [0, -2]], [[1, 0], [0, 1]], [[1, 0], [0, 2]], True),
])
def test_diagonal_stability_agrees_with_the_stability_module(V, B, A, stable):
    """The exact off-diagonal test of the diagonal path against symgauss.questions.stability.certify.certify
    (the linearisation on all of Sym(2), an independent computation)."""
    from symgauss.questions.stability.certify import certify
    p = Problem(cov0=[[2, 0], [0, "1/2"]], A=A, V=V, B=B)
    r = classify(p)
    assert r.kind == ("stable-equilibrium" if stable else "bounded")
    assert certify(p).status == ("verified" if stable else "refuted")


def test_linear_flows_follow_the_spectrum_of_A():
    """No quadratic term: decay iff A is Hurwitz, exponential growth iff max Re λ(A) > 0."""
    import numpy as np
    rng = random.Random(3)
    for _ in range(12):
        A = [[Fraction(rng.randint(-4, 4), rng.randint(1, 3)) for _ in range(3)] for _ in range(3)]
        mu = max(np.linalg.eigvals(np.array(A, dtype=float)).real)
        if abs(mu) < 1e-6:
            continue
        p = Problem(cov0=[[2, 1, 0], [1, 2, 0], [0, 0, 1]], A=A, V=[[0] * 3] * 3,
                    B=[[1, 0, 0], [0, 1, 0], [0, 0, 1]])
        r = classify(p)
        assert (r.kind, r.level) == ("growth" if mu > 0 else "decay", "exact"), (A, mu, r)


def test_heat_map_of_every_kind_of_cell(tmp_path):
    """Synthetic cells (all regimes, an error, unproved levels): the map is drawn, both formats."""
    from symgauss.atlas.plot import COLOURS, plot_atlas
    spec = parse_spec({"problem": {"cov0": [[1]]},
                       "axes": [{"vary": ["A", 0, 0], "grid": {"from": 0, "to": 1, "steps": 3}},
                                {"vary": ["V", 0, 0], "grid": {"from": 0, "to": 2, "steps": 3}}]})
    kinds = list(COLOURS)
    cells = []
    for k in range(9):
        kind = kinds[k % len(kinds)]
        cells.append({"regime": None if kind == "error" else kind,
                      "level": ("exact", "rigorous", "high-precision", "float")[k % 4],
                      "t_star": str(0.1 * (k + 1)) if kind == "blow-up" else None})
    png, pdf = plot_atlas(spec, cells, tmp_path)
    assert png.read_bytes()[:4] == b"\x89PNG" and pdf.read_bytes()[:4] == b"%PDF"


def test_general_v_cells_are_decided_with_certificates(tmp_path):
    """General V (not a multiple of I): the cells are proved (validated integration, kernel
    kinds limit / blowup-trajectory) and the float integration agrees with each answer."""
    from symgauss.kernel.checker import check_file
    from symgauss.questions.regime.reference import reference_regime
    base = {"A": [[1, "1/5"], ["-1/10", "3/2"]], "V": [["-1", "1/5"], ["1/10", "-4/5"]],
            "B": [[1, 0], ["1/10", 1]], "cov0": [[1, "1/5"], ["1/5", 1]]}
    spec = parse_spec({"problem": base, "certificates": True,
                       "axes": [{"vary": {"scale": "V"},
                                 "grid": {"from": -1, "to": 1, "steps": 2}}]})
    res = run_atlas(spec, tmp_path, workers=0, progress=False, plot=False)
    kinds = sorted(c["regime"] for c in res.cells)
    assert kinds == ["blow-up", "stable-equilibrium"]
    for cell in res.cells:
        assert cell["level"] == "rigorous" and check_file(tmp_path / cell["certificate"]).ok
        s = Fraction(str(cell["point"][0]))
        p = Problem(**{**base, "V": [[str(Fraction(x) * s) for x in row] for row in base["V"]]})
        ref = reference_regime(p)
        assert ref["kind"] == cell["regime"]
        if ref["kind"] == "blow-up":
            assert abs(float(cell["t_star"]) - ref["t_star"]) < 1e-6
