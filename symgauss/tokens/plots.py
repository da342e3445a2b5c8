"""Figures of the finite-token experiments (matplotlib, Agg backend; PNG and PDF).

Every function takes result objects and a path *stem* (no suffix), writes
``stem.png`` and ``stem.pdf`` and returns the two paths.
"""
from __future__ import annotations

from pathlib import Path

CAVEAT_TEXT = ("finite N: growth at most exponential (dotted bound);\n"
               "blow-up belongs to the mean-field limit — compare early times")


def pyplot():
    import matplotlib
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    return plt


def _save(fig, stem) -> tuple:
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = (stem.with_suffix(".png"), stem.with_suffix(".pdf"))
    fig.savefig(paths[0], dpi=150, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight")
    pyplot().close(fig)
    return tuple(str(p) for p in paths)


def trace_panel(ax, comp, envelope, title):
    run, ode = comp.run, comp.ode
    ax.semilogy(run.times, run.trace, "-", color="C0", label=f"tokens (N = {run.n})")
    if len(ode.times):
        ax.semilogy(ode.times, ode.trace, "--", color="C1", label="moment ODE (mean field)")
    if ode.blowup_time is not None:
        ax.axvline(ode.blowup_time, color="C3", lw=1,
                   label=f"ODE blow-up t ≈ {ode.blowup_time:.3g}")
    if envelope is not None:
        ax.semilogy(run.times, envelope, ":", color="0.4", label="finite-token exponential bound")
    ax.set_xlabel("depth t")
    ax.set_ylabel("tr Σ(t)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left")


def plot_regimes(opposite, same, env_opposite, env_same, stem) -> tuple:
    """tr Σ(t) on a log scale: opposite-sign (bounded) and same-sign (ODE blow-up) attention."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    trace_panel(axes[0], opposite, env_opposite, "V, B of opposite sign: bounded")
    trace_panel(axes[1], same, env_same, "V, B of the same sign: blow-up (mean field)")
    axes[1].text(0.98, 0.03, CAVEAT_TEXT, transform=axes[1].transAxes, ha="right", va="bottom",
                 fontsize=7, bbox=dict(fc="white", ec="0.7"))
    fig.suptitle("Prescribed attention: token system beside the Gaussian moment ODE (level: float)",
                 fontsize=10)
    return _save(fig, stem)


def _diag_panels(axes, times, series, label, style):
    axes[0].plot(times, [g.sw2 for g in series], style, label=f"{label}")
    axes[0].plot(times, [g.sw2_floor for g in series], ":", color="0.5",
                 label="noise floor (exact Gaussian sample)" if label else None)
    axes[1].plot(times, [g.mardia_skewness for g in series], style, label=label)
    axes[2].plot(times, [g.mardia_kurtosis for g in series], style, label=label)


def _finish_diag_axes(axes, r, xlabel):
    axes[2].axhline(r * (r + 2), color="0.5", ls=":", label=f"Gaussian d(d+2) = {r * (r + 2)}")
    for ax, yl in zip(axes, ("sliced W2 to moment-matched Gaussian", "Mardia skewness b1",
                             "Mardia kurtosis b2")):
        ax.set_xlabel(xlabel)
        ax.set_ylabel(yl)
        ax.legend(fontsize=7)


def plot_relu(times, relu, affine, kappa, t_fit, stem) -> tuple:
    """Sliced W2 and Mardia's skewness / kurtosis against t for ReLU and affine feed-forward."""
    import numpy as np
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    _diag_panels(axes, times, relu, "ReLU feed-forward", "o-")
    axes[0].plot(times, [g.sw2 for g in affine], "s--", label="affine (closure exact)")
    axes[1].plot(times, [g.mardia_skewness for g in affine], "s--", label="affine (closure exact)")
    axes[2].plot(times, [g.mardia_kurtosis for g in affine], "s--", label="affine (closure exact)")
    tt = np.linspace(0, t_fit, 20)
    axes[1].plot(tt, (kappa * tt) ** 2, "-", color="C3", lw=1,
                 label=f"fit sqrt(b1) = {kappa:.3g} t (t ≤ {t_fit:g})")
    _finish_diag_axes(axes, relu[0].rank, "depth t")
    fig.suptitle(f"Leaving the Gaussian family (N = {relu[0].n}, whitened; level: float)",
                 fontsize=10)
    return _save(fig, stem)


def plot_pretrained(layers, diags, model_name, stem) -> tuple:
    """Per-layer diagnostics of a pretrained encoder fed Gaussian hidden states."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    _diag_panels(axes, layers, diags, "hidden states", "o-")
    r = diags[0].rank
    _finish_diag_axes(axes, r, "layer (0 = Gaussian input)")
    fig.suptitle(f"{model_name}: Gaussian input, top-{r} principal components per layer "
                 f"(N = {diags[0].n}; level: float)", fontsize=10)
    return _save(fig, stem)
