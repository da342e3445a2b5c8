"""Finite-token simulator: agreement with the moment ODE and the Gaussian layer map, sampling
errors, devices and progress, CLI input checks (the attention kernels: test_attention.py)."""
import importlib.util
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from symgauss import Problem
from symgauss.cli.main import main
from symgauss.kernel.errors import ProblemError
from symgauss.tokens.attention import attention, attention_error_bound
from symgauss.tokens.experiments import (
    compare_particles,
    layer_map_series,
    run_regime_experiment,
    run_relu_experiment,
    standard_errors,
)
from symgauss.tokens.simulate import FloatParams, simulate, velocity

EXAMPLES = Path(__file__).resolve().parents[1] / "symgauss" / "examples"

# moderate parameters: ‖Σ^{1/2} B Σ^{1/2}‖ stays small, so N tokens sample the attention tilt well
MODERATE = Problem(A=[["1/2", "1/5"], [0, "1/4"]], V=[[-1, 0], ["1/4", "-1/2"]],
                   B=[["1/2", "1/10"], [0, "2/5"]], b=["1/10", 0],
                   cov0=[["1/2", "1/10"], ["1/10", "1/4"]], mean0=["1/5", "-1/10"])


def test_relu_equals_affine_where_the_preactivation_is_positive():
    p = Problem(cov0=[["1/10", 0], [0, "1/10"]], A=[["1/10", 0], [0, "1/5"]], b=[5, 5],
                V=[[-1, 0], [0, -1]], B=[[1, 0], [0, 1]])
    fp = FloatParams.from_params(p.params)
    X = np.random.default_rng(0).standard_normal((100, 2)) * 0.3
    np.testing.assert_array_equal(velocity(X, fp, "relu"), velocity(X, fp, "affine"))
    X2 = X - 100.0                              # now A x + b < 0: relu kills the feed-forward
    np.testing.assert_array_equal(velocity(X2, fp, "relu"), attention(X2, fp.heads))


def test_acceptance_moments_at_t1_agree_with_the_ode_within_sampling_error():
    """d = 2, N = 3000, t = 1: |empirical − ODE| ≤ 5 SE componentwise.

    SE: for N draws from N(m, Σ), sd(x̄_i) = sqrt(Σ_ii/N) and sd(Ŝ_ij) = sqrt((Σ_iiΣ_jj + Σ_ij²)/(N−1))
    (Isserlis). At t = 1 the token cloud is (to first order) the image of the initial sample under
    the flow, whose moments are those of N(m(1), Σ(1)); with these parameters the flow contracts
    the initial fluctuations, so the formula is conservative (12 seeds at N = 1000 gave rms
    z ≤ 0.9). 5 SE leaves the test false-alarm rate ~1e-5 per component.
    RK4 with K = 10 steps: the time-discretisation error, estimated below by K vs 2K on the same
    cloud (float64 attention, so that rounding does not enter), is < 1e-6, far below SE ≈ 0.01.
    The SE formula itself is checked by simulation in
    test_standard_errors_are_the_sampling_deviations_of_gaussian_moments.
    """
    n = 3000
    comp = compare_particles(MODERATE, n, 1, steps=10, seed=20240601)
    assert comp.ode.blowup_time is None
    se_m, se_S = standard_errors(comp.ode.means[-1], comp.ode.covs[-1], n)
    assert np.all(np.abs(comp.run.means[-1] - comp.ode.means[-1]) <= 5 * se_m)
    assert np.all(np.abs(comp.run.covs[-1] - comp.ode.covs[-1]) <= 5 * se_S)
    # the ODE beside the tokens at every recorded time (early times agree even better)
    assert len(comp.ode.times) == len(comp.run.times)
    np.testing.assert_allclose(comp.ode.times, comp.run.times, atol=1e-12)
    # time-discretisation error of RK4, K = 10 vs 20 on the same initial cloud (smaller N)
    a = simulate(MODERATE, 400, 1, steps=10, seed=3, dtype="float64")
    b = simulate(MODERATE, 400, 1, steps=20, seed=3, dtype="float64")
    disc = max(np.abs(a.means[-1] - b.means[-1]).max(), np.abs(a.covs[-1] - b.covs[-1]).max())
    assert disc < 1e-3 * se_S.min()


def test_standard_errors_are_the_sampling_deviations_of_gaussian_moments():
    """Var(x̄_i) = Σ_ii/n and Var(Ŝ_ij) = (Σ_iiΣ_jj + Σ_ij²)/(n − 1) (Isserlis; Ŝ unbiased), by
    simulation: R = 40000 samples of n = 5 draws from a strongly correlated Gaussian. Each
    empirical variance is compared with the formula within 5 of its own standard errors
    sqrt((m4 − var²)/R) (m4: the empirical fourth central moment). At n = 5 a wrong
    normalisation (n for n − 1) moves the variance by 25 %, a missing Σ_ij² term by up to
    40 %; 5 standard errors are about 4 %."""
    rng = np.random.default_rng(11)
    Sigma = np.array([[2.0, 1.1, -0.5], [1.1, 1.0, -0.1], [-0.5, -0.1, 0.5]])
    m = np.array([1.0, -2.0, 0.5])
    R, n = 40_000, 5
    Z = m + rng.standard_normal((R, n, 3)) @ np.linalg.cholesky(Sigma).T
    xbar = Z.mean(axis=1)
    C = Z - xbar[:, None, :]
    S = np.einsum("rki,rkj->rij", C, C) / (n - 1)
    se_m, se_S = standard_errors(m, Sigma, n)
    stats = [(xbar[:, i], se_m[i] ** 2) for i in range(3)]
    stats += [(S[:, i, j], se_S[i, j] ** 2) for i in range(3) for j in range(i, 3)]
    for T, var in stats:
        dev = T - T.mean()
        v, m4 = np.mean(dev ** 2), np.mean(dev ** 4)
        assert abs(v - var) <= 5 * np.sqrt((m4 - v ** 2) / R)


def test_residual_layers_agree_with_the_gaussian_layer_map():
    n, K = 2000, 5
    comp = compare_particles(MODERATE, n, 1, steps=K, seed=7, discrete=True)
    lm = layer_map_series(MODERATE, 1, K)
    assert comp.run.scheme == "residual" and len(lm.times) == K + 1
    se_m, se_S = standard_errors(lm.means[-1], lm.covs[-1], n)
    assert np.all(np.abs(comp.run.means[-1] - lm.means[-1]) <= 5 * se_m)
    assert np.all(np.abs(comp.run.covs[-1] - lm.covs[-1]) <= 5 * se_S)


def test_initial_moments_match_the_problem_and_rank_is_respected():
    p = Problem(cov0=[[1, 1], [1, 1]], mean0=[2, -1])   # rank 1
    r = simulate(p, 5000, 0, seed=0)
    assert abs(np.linalg.det(r.covs[0])) < 1e-12
    np.testing.assert_allclose(r.means[0], [2, -1], atol=5 * np.sqrt(1 / 5000))


def test_regime_experiment_bounded_vs_blowup(tmp_path):
    exp = run_regime_experiment(tmp_path, n=120, t="3/2", steps=15, seed=1)
    assert exp.opposite_bounded
    assert exp.same_sign_ode_blows_up
    # closed form (math.md §4, A = 0): T* = 1/λmax(Σ0^{1/2} R Σ0^{1/2}), R = v(B + Bᵀ) = I, Σ0 = diag(1, 1/2)
    assert abs(exp.same_sign_blowup_time - 1.0) < 1e-3
    assert exp.tokens_within_exponential_bound
    assert np.all(np.isfinite(exp.same.run.trace))
    for f in exp.figures:
        assert Path(f).stat().st_size > 1000
    assert {Path(f).suffix for f in exp.figures} == {".png", ".pdf"}
    assert "never blow up" in exp.summary


def test_relu_leaves_the_gaussian_family_and_affine_does_not(tmp_path):
    exp = run_relu_experiment(tmp_path, n=600, t="1", steps=8, points=5, t_fit=0.5, seed=0)
    last_r, last_a = exp.relu[-1], exp.affine[-1]
    assert last_r.skewness_pvalue < 1e-6 and last_r.sw2 > 2 * last_r.sw2_floor
    assert last_a.skewness_pvalue > 1e-4
    assert exp.rate_sqrt_skewness > 0 and len(exp.figures) == 2


@pytest.mark.parametrize("argv,needle", [
    (["--n", "1", "--t", "1"], "--n"),
    (["--n", "abc", "--t", "1"], "--n"),
    (["--n", "10", "--t", "1", "--steps", "0"], "--steps"),
    (["--n", "10", "--t", "1", "--seed", "-3"], "--seed"),
    (["--n", "10", "--t", "-1"], "negative"),
    (["--n", "10", "--t", "x"], "t"),
    (["--n", "10", "--t", "1", "--plot", "/no/such/dir/f.png"], "--plot"),
    (["--n", "10", "--t", "1", "--plot", "f.txt"], "--plot"),
])
def test_bad_input_gives_one_line_and_exit_2(argv, needle, capsys):
    rc = main(["simulate-particles", str(EXAMPLES / "stable_diag.json"), *argv])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and needle in err


def test_bad_ff_is_rejected_by_the_parser():
    r = subprocess.run([sys.executable, "-m", "symgauss", "simulate-particles",
                        str(EXAMPLES / "stable_diag.json"), "--n", "5", "--t", "1", "--ff", "gelu"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1


def test_library_rejects_bad_arguments():
    with pytest.raises(ProblemError):
        simulate(MODERATE, 10, 1, ff="tanh")
    with pytest.raises(ProblemError):
        simulate(MODERATE, True, 1)
    with pytest.raises(ProblemError):
        attention(np.zeros((3, 2)), [(np.eye(2), np.eye(2))], block=0)


def test_cli_json_reports_tokens_and_ode_and_plot(tmp_path, capsys):
    fig = tmp_path / "tr.png"
    rc = main(["simulate-particles", str(EXAMPLES / "blowup_diag.json"), "--n", "60", "--t", "1/2",
               "--steps", "6", "--json", "--plot", str(fig)])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and fig.stat().st_size > 1000
    assert out["t"] == "1/2" and out["level"] == "float" and len(out["cov"]) == 2
    assert out["moment_ode"]["blows_up"] is True            # T* = 1/4 < 1/2
    assert abs(float(out["moment_ode"]["blowup_time_estimate"]) - 0.25) < 1e-3
    assert len(out["series"]["t"]) == 7
    assert any("never blow up" in n for n in out["notes"])


def _has_gpu():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


@pytest.mark.skipif(_has_gpu(), reason="this machine has a CUDA GPU")
@pytest.mark.parametrize("extra,needle", [
    (["--device", "cuda"], "no CUDA GPU" if importlib.util.find_spec("torch") else "needs torch"),
    (["--backend", "numpy", "--device", "cuda"], "CPU only"),
    (["--precision", "float64", "--backend", "torch"], "float64"),
])
def test_device_and_backend_errors_are_one_line_and_exit_2(extra, needle):
    r = subprocess.run([sys.executable, "-m", "symgauss", "simulate-particles",
                        str(EXAMPLES / "stable_diag.json"), "--n", "20", "--t", "1", *extra],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and needle in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_cli_reports_the_kernel_and_keeps_stderr_clean():
    r = subprocess.run([sys.executable, "-m", "symgauss", "simulate-particles",
                        str(EXAMPLES / "stable_diag.json"), "--n", "50", "--t", "1/2", "--steps",
                        "3", "--device", "cpu", "--backend", "numpy", "--json"],
                       capture_output=True, text=True)
    out = json.loads(r.stdout)
    assert r.returncode == 0 and r.stderr == ""
    assert out["attention"] == {"dtype": "float32", "backend": "numpy", "device": "cpu"}


@pytest.mark.parametrize("backend", ["numpy", pytest.param("torch", marks=pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason="torch (the 'ml' extra) is not installed"))])
def test_float32_run_stays_within_the_attention_bound_of_the_float64_run(backend):
    """One residual layer from the same cloud: the float32 and float64 kernels give tokens that
    differ by at most h·(bound of the float32 attention + 1e-12 for the float64 kernel)."""
    X0 = simulate(MODERATE, 500, 0, seed=4).tokens
    a = simulate(MODERATE, 500, "1/2", steps=1, discrete=True, tokens0=X0, backend=backend,
                 device="cpu")
    b = simulate(MODERATE, 500, "1/2", steps=1, discrete=True, tokens0=X0, dtype="float64")
    assert a.attention == ("float32", backend, "cpu") and b.attention[0] == "float64"
    heads = FloatParams.from_params(MODERATE.params).heads
    tol = 0.5 * (attention_error_bound(X0, heads) + 1e-12 * np.abs(X0).max())
    assert np.all(np.abs(a.tokens - b.tokens).max(axis=1) <= tol)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal_for_long_runs_or_when_asked(monkeypatch, capsys):
    import symgauss.tokens.simulate as sim
    simulate(MODERATE, 40, 1, steps=3)                           # not a terminal: no bar
    simulate(MODERATE, 40, 1, steps=3, progress=True)             # asked for: a bar
    assert capsys.readouterr().err.count("steps") >= 1
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    simulate(MODERATE, 40, 1, steps=3)                           # a terminal, but a short run
    assert term.getvalue() == ""
    monkeypatch.setattr(sim, "PROGRESS_MIN_ENTRIES", 0)
    simulate(MODERATE, 40, 1, steps=3, progress=False)            # asked not to
    assert term.getvalue() == ""
    simulate(MODERATE, 40, 1, steps=3)                           # a terminal and a long run
    assert "simulate N=40 (numpy, cpu)" in term.getvalue() and "/3 steps" in term.getvalue()
