"""``symgauss simulate-particles P.json --n N --t T [--steps K] [--seed S] [--ff affine|relu]
[--discrete] [--device auto|cpu|cuda] [--backend auto|numpy|torch] [--precision float32|float64]
[--no-progress] [--json] [--plot FILE]``."""
from __future__ import annotations

from symgauss.cli.common import add_json_flag, add_problem_argument, load, print_json

HELP = "simulate N tokens (finite-token Transformer) beside the moment ODE"
DESCRIPTION = ("Draw N tokens from N(mean0, cov0) and move them by softmax self-attention "
               "(streamed in tiles, stable log-sum-exp, memory O(tile + N·d)) and an affine or "
               "ReLU feed-forward, by RK4 with K steps (or K residual layers with --discrete). "
               "The empirical mean and covariance (level float: sampling) are printed beside the "
               "Gaussian moment ODE. Attention runs in float32 with float64 accumulation "
               "(within a stated error bound, see symgauss.tokens.attention) on torch when it is "
               "installed (CPU or CUDA), else numpy; --precision float64 runs the numpy float64 "
               "kernel.")


def add_arguments(p):
    add_problem_argument(p)
    p.add_argument("--n", required=True, metavar="N", help="number of tokens (>= 2)")
    p.add_argument("--t", required=True, metavar="T", help="final time (exact: 1/2, 0.5, 3)")
    p.add_argument("--steps", default="100", metavar="K",
                   help="RK4 steps over [0, T] (or residual layers with --discrete); default 100")
    p.add_argument("--seed", default="0", metavar="S", help="random seed (default 0)")
    p.add_argument("--ff", default="affine", choices=("affine", "relu"),
                   help="feed-forward: affine A x + b (default) or relu max(A x + b, 0)")
    p.add_argument("--discrete", action="store_true",
                   help="residual layers x -> x + h v(x), h = T/K, instead of RK4")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"),
                   help="where attention runs: cuda (torch and a GPU), cpu, or auto (default: "
                        "cuda when torch sees a GPU, else cpu)")
    p.add_argument("--backend", default="auto", choices=("auto", "numpy", "torch"),
                   help="attention kernels: torch, numpy, or auto (default: torch when installed "
                        "and N is large, else numpy; both compute the same float32 algorithm)")
    p.add_argument("--precision", default="float32", choices=("float32", "float64"),
                   help="attention arithmetic: float32 with float64 accumulation (default) or "
                        "float64 (numpy, CPU; ~3-6x slower)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (shown on a terminal for long runs)")
    p.add_argument("--plot", metavar="FILE",
                   help="write tr Σ(t) (log scale) to FILE (.png or .pdf)")
    add_json_flag(p)


def run(args) -> int:
    from symgauss.tokens.experiments import FINITE_TOKEN_CAVEAT, compare_particles
    from symgauss.tokens.simulate import check_positive_int
    n, seed = checked_n_seed_plot(args)
    steps = check_positive_int(args.steps, "--steps", 1)
    problem = load(args.problem)
    comp = compare_particles(problem, n, args.t, steps=steps, seed=seed, ff=args.ff,
                             discrete=args.discrete, dtype=args.precision, backend=args.backend,
                             device=args.device, progress=False if args.no_progress else None)
    if args.plot:
        _plot(comp, args.plot)
    if args.json:
        print_json(comp.to_json_dict())
        return 0
    run = comp.run
    print(f"t = {args.t}   N = {n}   level: float (sampling)   scheme: {run.scheme}, K = {steps}"
          f"   ff: {run.ff}   seed: {seed}")
    print("attention: {} on {} ({})".format(run.attention[1], run.attention[2],
                                           "float32, float64 accumulation"
                                           if run.attention[0] == "float32" else "float64"))
    ref = comp.layer_map if comp.layer_map is not None else comp.ode
    label = "Gaussian layer map" if comp.layer_map is not None else "moment ODE"
    reached = len(ref.times) == len(run.times)
    print(f"{'':8}{'tokens':>16}{label:>22}{'z = diff/SE':>14}")
    d = run.d
    for i in range(d):
        e = run.means[-1][i]
        r = f"{ref.means[-1][i]:.10g}" if reached else "—"
        z = f"{comp.z_mean[i]:.2f}" if reached else ""
        print(f"mean[{i}] {e:16.10g}{r:>22}{z:>14}")
    for i in range(d):
        for j in range(i, d):
            e = run.covs[-1][i, j]
            r = f"{ref.covs[-1][i, j]:.10g}" if reached else "—"
            z = f"{comp.z_cov[i, j]:.2f}" if reached else ""
            print(f"cov[{i}][{j}]{e:14.10g}{r:>22}{z:>14}")
    if comp.ode.blowup_time is not None:
        print(f"the moment ODE blows up at t ≈ {comp.ode.blowup_time:.6g} (float estimate); "
              + FINITE_TOKEN_CAVEAT)
    for note in comp.notes:
        if "blows up" not in note:
            print("note: " + note)
    if args.plot:
        print(f"figure: {args.plot}")
    return 0


def checked_n_seed_plot(args):
    """(n, seed) from ``--n``/``--seed`` after checking them and ``--plot``."""
    from symgauss.tokens.simulate import check_positive_int
    n = check_positive_int(args.n, "--n", 2)
    seed = check_positive_int(args.seed, "--seed", 0)
    _check_plot_path(args.plot)
    return n, seed


def _check_plot_path(path):
    from pathlib import Path

    from symgauss.kernel.errors import ProblemError
    if path is None:
        return
    if Path(path).suffix.lower() not in (".png", ".pdf"):
        raise ProblemError(f"--plot {path!r}: the file name must end in .png or .pdf")
    if not Path(path).resolve().parent.is_dir():
        raise ProblemError(f"--plot {path!r}: the folder does not exist; create it first")


def _plot(comp, path):
    from symgauss.tokens.plots import pyplot, trace_panel
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    trace_panel(ax, comp, None, f"tr Σ(t): N = {comp.run.n} tokens vs moment ODE "
                 "(level: float)")
    if comp.layer_map is not None:
        ax.semilogy(comp.layer_map.times, comp.layer_map.trace, "-.", color="C2",
                    label="Gaussian layer map")
        ax.legend(fontsize=7, loc="upper left")
    fig.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(fig)
