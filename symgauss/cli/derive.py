"""``symgauss derive --dim D [--heads H] [--discrete] [--kernel l2] [--feedforward relu]
[--attention unnormalised|sigmoid] [--data mixture] [--json]``."""
from __future__ import annotations

from symgauss.cli.common import add_json_flag, print_json

HELP = "derive the Gaussian closure from the PDE and prove it exact (or refute it)"


def add_arguments(p):
    p.add_argument("--dim", required=True, metavar="D", help="token dimension d (1..12)")
    p.add_argument("--heads", default="1", metavar="H", help="number of attention heads")
    p.add_argument("--discrete", action="store_true",
                   help="one residual layer of step h instead of continuous depth")
    p.add_argument("--kernel", default="softmax", metavar="K",
                   help="softmax (e^{yᵀBx}, default) or l2 (e^{-|Qx-Ky|²/2})")
    p.add_argument("--feedforward", default="affine", metavar="F", help="affine (default) or relu")
    p.add_argument("--attention", default="normalised", metavar="ATT",
                   help="normalised (default), unnormalised or sigmoid")
    p.add_argument("--latex", metavar="FILE",
                   help="also write the derivation as a LaTeX document (and its PDF)")
    p.add_argument("--data", default="gaussian", metavar="DATA",
                   help="gaussian (default) or mixture")
    add_json_flag(p)
    # later: p.add_argument("--latex", metavar="FILE") — export via symgauss.reporting.latex.closure_section


def _int(text, name):
    from symgauss.kernel.errors import ProblemError
    try:
        return int(text)
    except ValueError:
        raise ProblemError(f"--{name} {text!r} is not an integer; pass e.g. --{name} 2") from None


def closure_from_args(args):
    """The :class:`~symgauss.closure.derive.Closure` the arguments ask for (shared with exporters)."""
    from symgauss.closure.derive import derive_closure
    return derive_closure(_int(args.dim, "dim"), heads=_int(args.heads, "heads"),
                          depth="discrete" if args.discrete else "continuous", kernel=args.kernel,
                          feedforward=args.feedforward, attention=args.attention, data=args.data)


def run(args) -> int:
    closure = closure_from_args(args)
    if getattr(args, "latex", None):
        from symgauss.reporting.latex import write_closure_document
        note = write_closure_document(closure, args.latex)
        if not args.json:
            print(note)
    if args.json:
        print_json(closure.to_json_dict())
        return 0
    print(human_text(closure))
    return 0


def human_text(closure) -> str:
    import sympy as sp
    variant = ", ".join(f"{k}={getattr(closure, k)}" for k in
                        ("heads", "depth", "kernel", "feedforward", "attention", "data"))
    out = [f"Gaussian closure, d = {closure.dim} ({variant})",
           f"status: {closure.status}   level: {closure.level}", ""]
    if closure.status == "proved":
        lhs = ("m_next", "Σ_next") if closure.depth == "discrete" else ("m'", "Σ'")
        out.append(f"{lhs[0]} =")
        out += ["  " + sp.sstr(v) for v in closure.mean_rhs]
        out.append(f"{lhs[1]} =  (row by row)")
        for i in range(closure.cov_rhs.shape[0]):
            out.append("  [" + ", ".join(sp.sstr(v) for v in closure.cov_rhs.row(i)) + "]")
        if closure.symbols.relations:
            out.append("where G = (I + Σ KᵀK)⁻¹ for each head (the symbols G_ij; exact "
                       "relations in Closure.symbols.relations)")
        out.append("")
    out.append("derivation:")
    for k, st in enumerate(closure.steps, 1):
        out.append(f"  {k}. {st.statement}")
        out.append(f"     [{st.justification}]")
    if closure.witness is not None:
        out.append("")
        out.append("witness:")
        for k, v in closure.witness.items():
            out.append(f"  {k}: {v if isinstance(v, str) else sp.sstr(v)}")
    return "\n".join(out)
