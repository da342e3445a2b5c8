"""Heat map of an atlas: one colour per regime, contours of the blow-up time T*.

Uses matplotlib's object API (``Figure``), never pyplot, so no global backend or
state is touched. Two axes give a map over the grid; one axis gives a strip with
T* drawn above it. Cells whose claim is only high-precision or float (no proof) are
hatched, so the map says how each colour is known.
"""
from __future__ import annotations

from pathlib import Path

COLOURS = {
    "stable-equilibrium": "#2ca02c",
    "bounded": "#1f77b4",
    "decay": "#9ecae1",
    "constant": "#8c8c8c",
    "growth": "#ff7f0e",
    "blow-up": "#d62728",
    "undecided": "#f2f2f2",
    "error": "#000000",
}
ORDER = tuple(COLOURS)


def _edges(values):
    """Cell edges around grid values (midpoints; half a step beyond the ends)."""
    import numpy as np
    v = np.asarray(values, dtype=float)
    if v.size == 1:
        return np.array([v[0] - 0.5, v[0] + 0.5])
    mid = (v[1:] + v[:-1]) / 2
    return np.concatenate([[2 * v[0] - mid[0]], mid, [2 * v[-1] - mid[-1]]])


def _tstar(cell) -> float:
    try:
        return float(cell["t_star"]) if cell["regime"] == "blow-up" and cell["t_star"] else \
            float("nan")
    except (TypeError, ValueError):
        return float("nan")


def _contour_levels(z):
    import numpy as np
    finite = z[np.isfinite(z)]
    if finite.size < 4 or finite.min() == finite.max():
        return None
    lo, hi = np.percentile(finite, [5, 95])
    if not lo < hi:
        return None
    if lo > 0 and hi / lo > 20:
        return np.unique(np.round(np.geomspace(lo, hi, 7), 12))
    return np.linspace(lo, hi, 7)


def _hatch_unproved(ax, spec, cells) -> int:
    """Hatch the cells whose claim is not exact or rigorous; returns how many."""
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle
    xe = _edges([float(v) for v in spec.axes[0].values])
    ye = _edges([float(v) for v in spec.axes[1].values]) if len(spec.axes) == 2 else [0, 1]
    ny = len(ye) - 1
    rects = []
    for k, c in enumerate(cells):
        if c["level"] in ("high-precision", "float"):
            i, j = divmod(k, ny) if len(spec.axes) == 2 else (k, 0)
            rects.append(Rectangle((xe[i], ye[j]), xe[i + 1] - xe[i], ye[j + 1] - ye[j]))
    if rects:
        ax.add_collection(PatchCollection(rects, facecolor="none", edgecolor="k", hatch="///",
                                          linewidth=0, alpha=0.5))
    return len(rects)


def plot_atlas(spec, cells, out_dir, stem: str = "atlas"):
    """Write ``stem.png`` and ``stem.pdf`` under ``out_dir``; returns the two paths."""
    import numpy as np
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    out = Path(out_dir)
    shape = spec.shape
    codes = np.array([ORDER.index(c["regime"] or "error") for c in cells]).reshape(shape)
    tstar = np.array([_tstar(c) for c in cells]).reshape(shape)
    cmap = ListedColormap([COLOURS[k] for k in ORDER])
    norm = BoundaryNorm(np.arange(len(ORDER) + 1) - 0.5, len(ORDER))
    fig = Figure(figsize=(7, 6.4) if len(shape) == 2 else (7.5, 3.6), layout="constrained")
    ax = fig.add_subplot()
    xs = [float(v) for v in spec.axes[0].values]
    has_contours = False
    if len(shape) == 2:
        ys = [float(v) for v in spec.axes[1].values]
        # first axis horizontal, second vertical: transpose to (rows = y, cols = x)
        ax.pcolormesh(_edges(xs), _edges(ys), codes.T, cmap=cmap, norm=norm, shading="flat")
        ax.set_ylabel(spec.axes[1].label)
        levels = _contour_levels(tstar)
        if levels is not None and min(shape) >= 2:
            z = np.ma.masked_invalid(tstar.T)
            cs = ax.contour(xs, ys, z, levels=levels, colors="k", linewidths=0.8)
            ax.clabel(cs, fmt="%.3g", fontsize=7)
            has_contours = True
    else:
        ax.pcolormesh(_edges(xs), [0, 1], codes[None, :], cmap=cmap, norm=norm, shading="flat")
        ax.set_yticks([])
        if np.isfinite(tstar).any():
            ax2 = ax.twinx()
            ax2.plot(xs, tstar, "k.-", lw=0.8, ms=3)
            ax2.set_ylabel("T*")
            has_contours = True
    unproved = _hatch_unproved(ax, spec, cells)
    ax.set_xlabel(spec.axes[0].label)
    present = [k for k in ORDER if (codes == ORDER.index(k)).any()]
    handles = [Patch(facecolor=COLOURS[k], edgecolor="0.5", label=f"{k} ({int((codes == ORDER.index(k)).sum())})")
               for k in present]
    if has_contours:
        handles.append(Line2D([], [], color="k", lw=0.8,
                              label="T* (blow-up time)" if len(shape) == 2 else "T*"))
    if unproved:
        handles.append(Patch(facecolor="white", edgecolor="k", hatch="///", lw=0,
                             label=f"high-precision / float, no proof ({unproved})"))
    fig.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=8,
               title="regime", title_fontsize=9)
    fig.suptitle(spec.name or "regime atlas", fontsize=10)
    png, pdf = out / f"{stem}.png", out / f"{stem}.pdf"
    fig.savefig(png, dpi=150)
    fig.savefig(pdf)
    return png, pdf
