"""Finite-token experiments beside the moment ODE (all results are level ``"float"``).

- :func:`compare_particles`: a token simulation with the moment ODE (and, for residual
  layers, the exact Gaussian layer map) at the same times, plus the sampling standard
  errors that say how close they should be.
- :func:`run_regime_experiment`: prescribed attention with V, B of opposite sign (bounded)
  and of the same sign (the moment ODE blows up; the tokens grow at most exponentially).
- :func:`run_relu_experiment`: how fast a ReLU feed-forward leaves the Gaussian family,
  with a fitted short-time rate; the affine feed-forward beside it as the control.

Caveat (``math.md`` §6): a finite-token system never blows up — attention averages stay in
the convex hull of the tokens, so max_i |x_i| grows at most like e^{(‖A‖+Σ‖V_h‖)t} — and it
under-samples the tails that drive blow-up; compare with the moment ODE at early times.

>>> from symgauss import Problem
>>> p = Problem(cov0=[[1]], A=[["1/2"]], V=[[-1]], B=[["1/2"]])
>>> c = compare_particles(p, 400, "1/2", steps=8, seed=0)
>>> c.ode.blowup_time is None, c.run.level
(True, 'float')
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from symgauss.kernel.errors import BlowUpError
from symgauss.model.convert import as_time, to_float
from symgauss.tokens.simulate import ParticleRun, check_positive_int, simulate

FINITE_TOKEN_CAVEAT = ("finite-token systems never blow up (attention averages stay in the "
                       "convex hull, growth is at most exponential); blow-up is a property of the "
                       "mean-field limit — compare at early times")


@dataclass(frozen=True)
class MomentSeries:
    """m(t), Σ(t) of the Gaussian closure at ``times`` (up to a blow-up, if any)."""
    times: np.ndarray
    means: np.ndarray
    covs: np.ndarray
    blowup_time: float | None
    method: str
    level: str = "float"

    @property
    def trace(self) -> np.ndarray:
        return np.trace(self.covs, axis1=1, axis2=2) if len(self.covs) else np.zeros(0)

    def to_json_dict(self) -> dict:
        return {"method": self.method, "level": self.level,
                "blows_up": self.blowup_time is not None,
                "blowup_time_estimate": None if self.blowup_time is None
                else repr(float(self.blowup_time)),
                "t": [repr(float(x)) for x in self.times],
                "mean": self.means.tolist(), "cov": self.covs.tolist()}


def _ro(a):
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


def ode_series(problem, times) -> MomentSeries:
    """The moment ODE at each time (scipy DOP853 via ``solve_moments_float``)."""
    from symgauss.integrate.float_solver import solve_moments_float
    ts, ms, Ss, t_star = [], [], [], None
    for t in times:
        t = as_time(t)
        try:
            sol = solve_moments_float(problem, t)
        except BlowUpError as exc:
            t_star = float(exc.t_estimate)
            break
        ts.append(float(t))
        ms.append(sol.mean)
        Ss.append(sol.cov)
    d = problem.d
    return MomentSeries(_ro(ts), _ro(np.reshape(ms, (-1, d))), _ro(np.reshape(Ss, (-1, d, d))),
                        t_star, "moment ODE, scipy solve_ivp DOP853 rtol 1e-12")


def layer_map_series(problem, t, steps: int) -> MomentSeries:
    """Exact Gaussian image of K residual layers x ↦ x + h v(x), h = t/K (``math.md`` §2)."""
    from symgauss.tokens.simulate import _schedule
    t_end = as_time(t)
    m = to_float(problem.mean0)[:, 0]
    S = to_float(problem.cov0)
    ts, ms, Ss, tau = [0.0], [m], [S], 0.0
    for h, k, fp in (_schedule(problem, t_end, steps) if t_end > 0 else []):
        for _ in range(k):
            M = fp.A + sum(V @ S @ B for V, B in fp.heads)
            G = np.eye(problem.d) + h * M
            m = G @ m + h * (sum(V for V, _ in fp.heads) @ m + fp.b)
            S = G @ S @ G.T
            tau += h
            ts.append(tau)
            ms.append(m)
            Ss.append(S)
    return MomentSeries(_ro(ts), _ro(ms), _ro(Ss), None,
                        "Gaussian layer map m ↦ (I+hM)m + h(Σ_h V_h m + b), "
                        "Σ ↦ (I+hM)Σ(I+hM)ᵀ (exact for residual layers)")


def standard_errors(mean, cov, n: int):
    """Sampling standard errors of the empirical mean and (unbiased) covariance of n draws
    from N(mean, cov): sqrt(Σ_ii/n) and sqrt((Σ_iiΣ_jj + Σ_ij²)/(n−1))."""
    S = np.asarray(cov, dtype=float)
    dg = np.diag(S)
    return np.sqrt(dg / n), np.sqrt((np.outer(dg, dg) + S ** 2) / (n - 1))


@dataclass(frozen=True)
class ParticleComparison:
    """Tokens beside the Gaussian closure; ``z_mean``/``z_cov`` = (empirical − closure)/SE."""
    run: ParticleRun
    ode: MomentSeries
    layer_map: MomentSeries | None
    se_mean: np.ndarray | None
    se_cov: np.ndarray | None
    z_mean: np.ndarray | None
    z_cov: np.ndarray | None
    notes: tuple = field(default=())

    def to_json_dict(self) -> dict:
        out = self.run.to_json_dict()
        out["moment_ode"] = self.ode.to_json_dict()
        if self.layer_map is not None:
            out["gaussian_layer_map"] = self.layer_map.to_json_dict()
        if self.se_mean is not None:
            out["standard_error"] = {"mean": self.se_mean.tolist(), "cov": self.se_cov.tolist(),
                                     "z_mean": self.z_mean.tolist(), "z_cov": self.z_cov.tolist()}
        out["notes"] = list(self.notes)
        return out


def compare_particles(problem, n: int, t, *, steps: int = 100, seed: int = 0,
                      ff: str = "affine", discrete: bool = False, record: int | None = 100,
                      dtype: str = "float32", backend: str = "auto", device: str = "auto",
                      progress: bool | None = None) -> ParticleComparison:
    """Simulate the tokens and put the Gaussian closure beside them at the recorded times
    (``dtype``, ``backend``, ``device``, ``progress``: as in :func:`simulate`)."""
    run = simulate(problem, n, t, steps=steps, seed=seed, ff=ff, discrete=discrete,
                   record=record, dtype=dtype, backend=backend, device=device,
                   progress=progress)
    ode = ode_series(problem, [_exact_time(run, k) for k in range(len(run.times))])
    lmap = layer_map_series(problem, run.t, steps) if discrete else None
    notes = ["empirical moments are level 'float' (sampling error ~ 1/sqrt(N)); covariance "
             "normalised by 1/(N-1)"]
    if ff == "relu":
        notes.append("ReLU feed-forward is not closed: the Gaussian moment ODE (affine A x + b) "
                     "is shown only for reference")
    ref = lmap if discrete else ode
    se_m = se_S = z_m = z_S = None
    if ode.blowup_time is not None:
        notes.append(f"the moment ODE blows up at t ≈ {ode.blowup_time:.6g} (before "
                     f"t = {float(run.t):.6g}); " + FINITE_TOKEN_CAVEAT)
    if len(ref.times) == len(run.times):
        se_m, se_S = standard_errors(ref.means[-1], ref.covs[-1], run.n)
        with np.errstate(divide="ignore", invalid="ignore"):
            z_m = (run.means[-1] - ref.means[-1]) / se_m
            z_S = (run.covs[-1] - ref.covs[-1]) / se_S
        se_m, se_S, z_m, z_S = map(_ro, (se_m, se_S, z_m, z_S))
    return ParticleComparison(run, ode, lmap, se_m, se_S, z_m, z_S, tuple(notes))


def _exact_time(run: ParticleRun, k: int) -> Fraction:
    """The recorded time as the exact rational it approximates (a multiple of t/K per piece)."""
    return Fraction(float(run.times[k])).limit_denominator(10 ** 9)


# --- prescribed-attention regimes ------------------------------------------------------------

def _regime_problems():
    from symgauss.model.problem import Problem
    opposite = Problem(name="opposite signs: A = I/2, V = -I, B = I/2 (Sigma* = I)",
                       cov0=[["1/4", 0], [0, "1/2"]], A=[["1/2", 0], [0, "1/2"]],
                       V=[[-1, 0], [0, -1]], B=[["1/2", 0], [0, "1/2"]])
    same = Problem(name="same sign: A = 0, V = I, B = I/2 (T* = 1)",
                   cov0=[[1, 0], [0, "1/2"]], V=[[1, 0], [0, 1]], B=[["1/2", 0], [0, "1/2"]])
    return opposite, same


def exponential_envelope(problem, run: ParticleRun) -> np.ndarray:
    """Upper bound on tr Σ̂(t) of any finite token system (convex-hull argument):
    R' ≤ L R + |b| with R = max_i |x_i|, L = ‖A‖₂ + Σ_h ‖V_h‖₂, and tr Σ̂ ≤ N/(N−1) R²."""
    A = to_float(problem.A)
    L = np.linalg.norm(A, 2) + sum(np.linalg.norm(to_float(h.V), 2) for h in problem.heads)
    bn = float(np.linalg.norm(to_float(problem.b)))
    X0 = simulate(problem, run.n, 0, seed=run.seed).tokens
    R0 = float(np.linalg.norm(X0, axis=1).max())
    t = run.times
    growth = np.exp(L * t)
    R = R0 * growth + (bn * (growth - 1) / L if L > 0 else bn * t)
    return run.n / (run.n - 1) * R ** 2


@dataclass(frozen=True)
class RegimeExperiment:
    """Opposite- vs same-sign attention: tokens beside the moment ODE."""
    opposite: ParticleComparison
    same: ParticleComparison
    envelope_opposite: np.ndarray
    envelope_same: np.ndarray
    opposite_bounded: bool
    same_sign_ode_blows_up: bool
    same_sign_blowup_time: float | None
    tokens_within_exponential_bound: bool
    figures: tuple
    summary: str
    level: str = "float"


def run_regime_experiment(out_dir=None, *, n: int = 400, t="2", steps: int = 40,
                          seed: int = 0) -> RegimeExperiment:
    """Tokens and moment ODE for V, B of opposite and of the same sign; figure tr Σ(t), log scale.

    Writes ``regimes.png`` and ``regimes.pdf`` to ``out_dir`` when given.
    """
    n = check_positive_int(n, "n (number of tokens)", 2)
    opp_p, same_p = _regime_problems()
    opp = compare_particles(opp_p, n, t, steps=steps, seed=seed)
    same = compare_particles(same_p, n, t, steps=steps, seed=seed)
    env_o, env_s = exponential_envelope(opp_p, opp.run), exponential_envelope(same_p, same.run)
    tr_o = opp.run.trace
    ode_max = float(opp.ode.trace.max()) if len(opp.ode.trace) else float(tr_o[0])
    bounded = bool(np.all(np.isfinite(tr_o)) and tr_o.max() <= 2 * max(ode_max, tr_o[0]))
    blows = same.ode.blowup_time is not None
    within = bool(np.all(same.run.trace <= env_s * (1 + 1e-9)) and
                  np.all(tr_o <= env_o * (1 + 1e-9)))
    summary = (f"N = {n} tokens, RK4 with {steps} steps to t = {t}. Opposite signs: tr Σ of the "
               f"tokens stays {'bounded' if bounded else 'NOT bounded'} (max {tr_o.max():.3g}, "
               f"moment ODE max {ode_max:.3g}). Same sign: the moment ODE "
               + (f"blows up at t ≈ {same.ode.blowup_time:.4g}" if blows else "does not blow up")
               + f" while the tokens reach tr Σ = {same.run.trace[-1]:.3g} at t = {t}, "
               + ("within" if within else "OUTSIDE") + " the exponential finite-token bound. "
               + FINITE_TOKEN_CAVEAT + ".")
    figs = ()
    if out_dir is not None:
        from symgauss.tokens.plots import plot_regimes
        figs = plot_regimes(opp, same, env_o, env_s, Path(out_dir) / "regimes")
    return RegimeExperiment(opp, same, _ro(env_o), _ro(env_s), bounded, blows,
                            same.ode.blowup_time, within, figs, summary)


# --- ReLU feed-forward -----------------------------------------------------------------------

def _relu_problem():
    from symgauss.model.problem import Problem
    return Problem(name="ReLU test: A = [[1, 1/2], [-1/2, 1]], V = -I/2, B = I/2",
                   cov0=[[1, 0], [0, 1]], A=[[1, "1/2"], ["-1/2", 1]],
                   V=[["-1/2", 0], [0, "-1/2"]], B=[["1/2", 0], [0, "1/2"]])


@dataclass(frozen=True)
class ReluExperiment:
    """Gaussianity diagnostics against t for ReLU and (control) affine feed-forward."""
    times: np.ndarray
    relu: tuple            # Gaussianity per time
    affine: tuple
    rate_sqrt_skewness: float     # fitted κ in sqrt(b₁) ≈ κ t for t ≤ t_fit
    rate_sw2: float               # fitted c in sqrt(SW2² − floor²) ≈ c t for t ≤ t_fit
    exponent_sqrt_skewness: float  # log-log slope of sqrt(b₁) on t ≤ t_fit
    t_fit: float
    figures: tuple
    summary: str
    level: str = "float"


def _fit_through_origin(t, y):
    t, y = np.asarray(t, float), np.asarray(y, float)
    return float((t @ y) / (t @ t)) if t.size and (t @ t) > 0 else float("nan")


def run_relu_experiment(out_dir=None, *, n: int = 1000, t="1", steps: int = 20, points: int = 11,
                        t_fit: float = 0.3, seed: int = 0) -> ReluExperiment:
    """How fast ``ff = relu`` leaves the Gaussian family; affine ``ff`` as the control.

    Diagnostics (:func:`symgauss.tokens.diagnostics.gaussianity`) at ``points`` times; the short-time
    rate is a least-squares fit through the origin on t ≤ ``t_fit``: sqrt(b₁) ≈ κ t (the third
    cumulant grows linearly from 0 for a smooth departure) and sqrt(SW2² − floor²) ≈ c t.
    Writes ``relu_gaussianity.png``/``.pdf`` to ``out_dir`` when given.
    """
    from symgauss.tokens.diagnostics import gaussianity
    n = check_positive_int(n, "n (number of tokens)", 2)
    points = check_positive_int(points, "points", 2)
    T = as_time(t)
    snaps = [T * k / (points - 1) for k in range(points)]
    p = _relu_problem()
    res = {}
    for ff in ("relu", "affine"):
        run = simulate(p, n, T, steps=steps, seed=seed, ff=ff, snapshots=snaps)
        res[ff] = tuple(gaussianity(X, seed=seed) for X in run.snapshots)
        times = np.array(run.snapshot_times)
    early = (times > 0) & (times <= t_fit + 1e-12)
    sk = np.sqrt([g.mardia_skewness for g in res["relu"]])
    sw = np.sqrt(np.maximum([g.sw2 ** 2 - g.sw2_floor ** 2 for g in res["relu"]], 0.0))
    kappa = _fit_through_origin(times[early], sk[early])
    c_sw = _fit_through_origin(times[early], sw[early])
    good = early & (sk > 0)
    expo = float(np.polyfit(np.log(times[good]), np.log(sk[good]), 1)[0]) if good.sum() >= 2 \
        else float("nan")
    last_r, last_a = res["relu"][-1], res["affine"][-1]
    summary = (f"N = {n} tokens, RK4 {steps} steps to t = {float(T):g}. ReLU feed-forward: "
               f"sqrt(Mardia b1) grows ≈ {kappa:.3g}·t at short times (log-log slope "
               f"{expo:.2f} on t ≤ {t_fit:g}); excess sliced W2 ≈ {c_sw:.3g}·t. At t = "
               f"{float(T):g}: SW2 = {last_r.sw2:.3g} (noise floor {last_r.sw2_floor:.3g}), "
               f"skewness p = {last_r.skewness_pvalue:.2g}. Affine control at t = {float(T):g}: "
               f"SW2 = {last_a.sw2:.3g}, skewness p = {last_a.skewness_pvalue:.2g} (the closure "
               "is exact: it stays at the noise floor).")
    figs = ()
    if out_dir is not None:
        from symgauss.tokens.plots import plot_relu
        figs = plot_relu(times, res["relu"], res["affine"], kappa, t_fit,
                         Path(out_dir) / "relu_gaussianity")
    return ReluExperiment(_ro(times), res["relu"], res["affine"], kappa, c_sw, expo, t_fit,
                          figs, summary)


def run_pretrained_experiment(out_dir=None, *, model=None, n: int = 256, seed: int = 0,
                              components: int = 8):
    """See :func:`symgauss.tokens.pretrained.run_pretrained_experiment` (needs the ``ml`` extra)."""
    from symgauss.tokens.pretrained import run_pretrained_experiment as run
    return run(out_dir, model=model, n=n, seed=seed, components=components)


__all__ = ["MomentSeries", "ParticleComparison", "RegimeExperiment", "ReluExperiment",
           "compare_particles", "ode_series", "layer_map_series", "standard_errors",
           "run_regime_experiment", "run_relu_experiment", "run_pretrained_experiment",
           "exponential_envelope", "FINITE_TOKEN_CAVEAT"]
