"""The sections of the main job: each checks one theorem on the built-in examples.

A section takes the context (``{"out_dir": Path}``) and returns a :class:`SectionOutput`: its
claims — (claim, result, level, time), ``ok`` saying whether the outcome is the one the theorem
predicts — plus Markdown and LaTeX for the document.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from symgauss.kernel.verdict import LEVELS
from symgauss.model.problem_file import load_example
from symgauss.reporting import latex as L
from symgauss.reporting import printer as P

#: the certificate files checked into the repository (re-verified by the report when present)
REPO_CERTIFICATES = Path(__file__).resolve().parents[2] / "certificates"


@dataclass(frozen=True)
class Claim:
    """One line of the summary table."""
    claim: str
    result: str          # verified / refuted / undecided / skipped / error: ...
    level: str           # exact / rigorous / high-precision / float / "-"
    seconds: float
    ok: bool = True      # the outcome is what the theorem predicts (skips are ok)
    detail: str = ""
    coq: str = "-"       # kernel-checked (Coq): "yes (t s)" when coqc ran and accepted


@dataclass
class SectionOutput:
    title: str
    claims: list = field(default_factory=list)
    md: list = field(default_factory=list)
    tex: list = field(default_factory=list)
    figures: list = field(default_factory=list)      # (path relative to out_dir, caption)
    certificates: list = field(default_factory=list)  # paths relative to out_dir


class _Clock:
    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0
        return False


def _digits(x, exact) -> float:
    """Correct significant digits of a decimal string/arb ``x`` against an mpmath value."""
    import mpmath
    with mpmath.workdps(80):
        err = abs(mpmath.mpf(str(x).split(" ")[0].strip("[]")) - exact)
        return 80.0 if err == 0 else float(-mpmath.log10(err / abs(exact)))


def _mid(x) -> str:
    """Midpoint text of a flint arb (or a float) with plenty of digits."""
    return x.mid().str(70, radius=False) if hasattr(x, "mid") else repr(float(x))


# ============================================================================ sections
def section_closure(ctx) -> SectionOutput:
    """Gaussian invariance: the closure derived from the PDE and proved exact."""
    out = SectionOutput("Gaussian closure (eq. 1.1), derived and proved exact")
    from symgauss.closure import derive
    from symgauss.model.moments import cov_rhs, mean_rhs
    shown = None
    cases = [dict(dim=d) for d in (1, 2, 3)] + [dict(dim=2, heads=2), dict(dim=2, depth="discrete"),
                                               dict(dim=2, kernel="l2")]
    for kw in cases:
        label = "closure " + ", ".join(f"{k}={v}" for k, v in kw.items())
        with _Clock() as c:
            cl = derive.derive_closure(**kw)
            ok = cl.status == "proved"
            checked = _check_against_eq11(cl, kw, cov_rhs, mean_rhs) if ok else None
        res = "proved exact" if ok else f"{cl.status}"
        if checked is not None:
            res += f"; = eq. 1.1 at {checked} random points" if checked else "; differs from eq. 1.1!"
        out.claims.append(Claim(label, res, "exact", c.seconds, ok=ok and checked != 0))
        if shown is None and kw == dict(dim=1):
            shown = cl
    refuted = []
    for kw in ({"attention": "sigmoid"}, {"attention": "unnormalised"}, {"feedforward": "relu"},
               {"data": "mixture"}):
        label = "not closed: " + ", ".join(f"{k}={v}" for k, v in kw.items())
        with _Clock() as c:
            try:
                cl = derive.derive_closure(1, **kw)
            except ImportError as exc:
                out.claims.append(Claim(label, "skipped", "-", 0.0,
                                        detail=f"refutation not available ({exc.name})"))
                continue
        good = cl.status == "refuted" and getattr(cl, "witness", None) is not None
        out.claims.append(Claim(label, "refuted with witness" if good else cl.status, "exact",
                                c.seconds, ok=good))
        refuted.append((kw, cl))
    body = L.closure_section(shown, title="Derivation for d = 1 (softmax attention)", level=2) \
        if shown is not None else ""
    for kw, cl in refuted[:1]:
        body += L.closure_section(cl, title="A refuted variant: " + ", ".join(
            f"{k} = {v}" for k, v in kw.items()), level=2)
    out.tex.append(L.section(out.title, body))
    out.md.append(f"## {out.title}\n\nThe closure was derived symbolically from the weak form "
                  "of the continuity equation for each case in the table and compared with "
                  "eq. 1.1 (as evaluated by `symgauss.model.moments`, independently of the "
                  "derivation) at random rational parameters.\n")
    return out


def _check_against_eq11(cl, kw, cov_rhs, mean_rhs, points: int = 3):
    """Random rational points where the derived RHS equals eq. 1.1 from :mod:`symgauss.model.moments`.

    Returns the number of points checked (0 on a mismatch) or None where this independent
    check does not apply (discrete depth, the L2 kernel: their own identities are in the steps).
    """
    import random
    from types import SimpleNamespace

    import sympy as sp
    if kw.get("depth", "continuous") != "continuous" or kw.get("kernel", "softmax") != "softmax":
        return None
    sy = cl.symbols
    rng = random.Random(7)
    free = set()
    for M in (sy.A, sy.b, sy.m, sy.S, *[X for hd in sy.heads for X in hd]):
        free |= M.free_symbols
    for _ in range(points):
        val = {s: sp.Rational(rng.randint(-9, 9), rng.randint(1, 5)) for s in sorted(free, key=str)}

        def sub(M):
            return sp.Matrix(M).xreplace(val)
        params = SimpleNamespace(A=sub(sy.A), b=sub(sy.b),
                                 heads=tuple(SimpleNamespace(V=sub(V), B=sub(B))
                                             for V, B in sy.heads))
        S, m = sub(sy.S), sub(sy.m)
        if sub(cl.cov_rhs) != cov_rhs(params, S) or sub(cl.mean_rhs) != mean_rhs(params, m, S):
            return 0
    return points


def moment_system_tex() -> str:
    from types import SimpleNamespace

    import sympy as sp

    from symgauss.model.moments import cov_rhs, mean_rhs
    d = 2
    A, V, B, S = (sp.MatrixSymbol(n, d, d) for n in ("A", "V", "B", "Σ"))
    m, b = sp.MatrixSymbol("m", d, 1), sp.MatrixSymbol("b", d, 1)
    p = SimpleNamespace(A=A, heads=(SimpleNamespace(V=V, B=B),), b=b)
    return ("The moment system evaluated by \\texttt{symgauss.model.moments}:\n"
            "\\begin{align*}\n\\dot m &= " + P.latex(mean_rhs(p, m, S)) + "\\\\\n\\dot\\Sigma &= "
            + P.latex(sp.expand(cov_rhs(p, S)).xreplace({S.T: S})) + "\n\\end{align*}\n")


def section_solver(ctx) -> SectionOutput:
    """High-precision moment solutions against closed forms (notes §4)."""
    import mpmath
    import sympy as sp

    from symgauss.integrate.float_solver import solve_moments_float
    from symgauss.integrate.high_precision import solve_moments
    out = SectionOutput("High-precision moment solutions against closed forms")
    rows = []
    # scalar: sigma(t) = 1/(1 - 2t), m(t) = e^t (1 - 2t)^(-1/2) at t = 1/4
    p = load_example("scalar_blowup")
    with _Clock() as c:
        sol = solve_moments(p, "1/4", 50)
        with mpmath.workdps(80):
            dig_s = _digits(_mid(sol.cov[0][0]), mpmath.mpf(2))
            dig_m = _digits(_mid(sol.mean[0]), mpmath.e ** mpmath.mpf(0.25) * mpmath.sqrt(2))
    dig = min(dig_s, dig_m)
    out.claims.append(Claim("scalar: σ(1/4) = 2, m(1/4) = √2·e^(1/4) (50 digits)",
                            f"{dig:.0f} digits correct", "high-precision", c.seconds,
                            ok=dig >= 50))
    rows.append(("\\sigma(t) = \\frac{1}{1-2t},\\ m(t) = \\frac{e^{t}}{\\sqrt{1-2t}}",
                 "t = 1/4", dig))
    # V = vI: P = Σ^{-1} solves a linear equation; A = diag(1, 3), R = -2I, P0 = I
    p = load_example("stable_diag")
    with _Clock() as c:
        sol = solve_moments(p, 1, 50)
        with mpmath.workdps(80):
            p22 = mpmath.mpf(1) / 3 + mpmath.mpf(2) / 3 * mpmath.exp(-6)
            dig11 = _digits(_mid(sol.cov[0][0]), mpmath.mpf(1))
            dig22 = _digits(_mid(sol.cov[1][1]), 1 / p22)
    dig = min(dig11, dig22)
    out.claims.append(Claim("V = −I: Σ(1)⁻¹ = linear (Bernoulli) solution, stable_diag",
                            f"{dig:.0f} digits correct", "high-precision", c.seconds,
                            ok=dig >= 50))
    rows.append(("(\\Sigma^{-1})' = -A^{\\top}\\Sigma^{-1} - \\Sigma^{-1}A - R,\\ "
                 "\\Sigma_{22}(1) = \\left(\\tfrac13 + \\tfrac23 e^{-6}\\right)^{-1}", "t = 1", dig))
    # general V, d = 3: high precision vs float
    p = load_example("general3")
    with _Clock() as c:
        hp = solve_moments(p, 1, 30)
        fl = solve_moments_float(p, 1)
        err = max(abs(float(_mid(hp.cov[i][j])) - fl.cov[i][j]) for i in range(3)
                  for j in range(3))
    out.claims.append(Claim("general V, d = 3: Taylor (30 digits) vs scipy DOP853",
                            f"agree to {err:.1e}", "float", c.seconds, ok=err < 1e-10))
    tex = ["The Taylor-series solver (python-flint, two runs cross-checked) against closed "
           "forms that follow from the Bernoulli structure (notes \\S 4):",
           "\\begin{center}\\begin{tabular}{lll}\\hline closed form & at & digits correct\\\\"
           "\\hline"]
    tex += [f"${f}$ & {a} & {d:.0f}\\\\" for f, a, d in rows]
    tex.append("\\hline\\end{tabular}\\end{center}")
    out.tex.append(L.section(out.title, "\n".join(tex)))
    out.md.append(f"## {out.title}\n\n" + "\n".join(
        f"- {c.claim}: {c.result} ({c.level})" for c in out.claims) + "\n")
    del sp
    return out


def section_trajectories(ctx) -> SectionOutput:
    """Figure: tr Σ(t) for the three regimes (float integration of eq. 1.1)."""
    import numpy as np

    from symgauss.integrate.float_solver import solve_moments_float
    from symgauss.kernel.errors import BlowUpError
    out = SectionOutput("Covariance trajectories of the built-in examples")
    fig_path = ctx["out_dir"] / "figures" / "trajectories.png"
    with _Clock() as c:
        import matplotlib
        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 3.4))
        for name, label in (("stable_diag", "opposite signs (stable)"),
                            ("threshold", "same sign, Hurwitz A, below threshold"),
                            ("blowup_diag", "same sign, A = 0 (T* = 1/4)"),
                            ("general3", "general V, d = 3")):
            p = load_example(name)
            ts, trs = [], []
            for t in np.linspace(0, 2, 41)[1:]:
                try:
                    s = solve_moments_float(p, Fraction(t).limit_denominator(1000))
                except BlowUpError:
                    break
                ts.append(t)
                trs.append(sum(s.cov[i][i] for i in range(p.d)))
            ax.semilogy([0] + ts, [float(sum(p.cov0[i, i] for i in range(p.d)))] + trs,
                        marker=".", label=label)
        ax.set_xlabel("depth t")
        ax.set_ylabel("tr Σ(t)")
        ax.set_ylim(1e-3, 1e4)
        ax.legend(fontsize=7)
        ax.set_title("Moment ODE (eq. 1.1), float integration")
        fig.tight_layout()
        fig_path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(fig_path, dpi=120)
        plt.close(fig)
    out.figures.append(("figures/trajectories.png", "tr Σ(t) of the built-in examples "
                        "(float level; the same-sign example leaves the plot at its blow-up)"))
    out.claims.append(Claim("figure: tr Σ(t) for the regimes", "written", "float", c.seconds))
    return out


def coq_cell(certs) -> tuple:
    """(cell, ok) of the column "kernel-checked (Coq)" for verified certificates: each one of an
    exported kind compiled by coqc (``symgauss export-coq``); "-" when none is."""
    from symgauss.export.coq import export, exportable
    from symgauss.export.coqc import check_text, missing_reason
    exact = [c for c in certs if exportable(c)]
    if not exact:
        return "-", True
    if (reason := missing_reason()) is not None:
        return f"not run: {reason.split(' (')[0]}", True
    runs = [check_text(export(c)) for c in exact]
    bad = [r.message for r in runs if not r.ok]
    if bad:
        return f"FAILED: {bad[0][:80]}", False
    slowest = max(r.seconds for r in runs)
    return (f"yes ({slowest:.1f} s)" if len(runs) == 1 else
            f"yes, {len(runs)} of {len(certs)} (slowest {slowest:.1f} s)"), True


def _save_and_check(ctx, out: SectionOutput, cert: dict, name: str):
    """Write a certificate into ``out_dir/certificates`` and re-check it with the trusted checker."""
    from symgauss.kernel.checker import check_file
    from symgauss.model.certificate import write_certificate
    rel = f"certificates/{name}.json"
    path = write_certificate(cert, ctx["out_dir"] / rel)
    out.certificates.append(rel)
    return check_file(path)


# expected outcome of the stability theorems on the built-in examples (None: no prediction)
STABILITY_EXPECTED = (("stable_diag", "verified"), ("multihead", "verified"),
                      ("threshold", "refuted"), ("general3", None))


def section_certificates(ctx) -> SectionOutput:
    """Equilibria, stability certificates, and their re-check by the trusted checker."""
    out = SectionOutput("Equilibria and stability certificates")
    from symgauss.questions.equilibria.search import find_equilibria
    from symgauss.questions.stability.certify import certify
    tex = []
    for name, expected in STABILITY_EXPECTED:
        p = load_example(name)
        with _Clock() as c:
            eqs = find_equilibria(p, digits=30)
        levels = sorted({e.level for e in eqs}, key=lambda lv: LEVELS.index(lv)
                        if lv in LEVELS else 9)
        out.claims.append(Claim(f"{name}: equilibria", f"{len(eqs)} found",
                                levels[-1] if levels else "-", c.seconds))
        tex.append(L.equilibria_section([e.to_json_dict() for e in eqs],
                                        title=f"{p.name or name}", level=2))
        with _Clock() as c:
            res = certify(p, digits=30)
            verdict = None
            if res.certificate is not None:
                verdict = _save_and_check(ctx, out, res.certificate,
                                          f"{name}-{res.certificate.get('kind', 'cert')}")
        result = {"verified": "stable (certificate)", "refuted": "not stable (evidence)",
                  "undecided": "undecided"}[res.status]
        if verdict is not None:
            result += f"; checker: {verdict.status}"
        ok = (expected is None or res.status == expected) and \
            (verdict is None or verdict.status == "verified")
        coq, coq_ok = coq_cell([res.certificate] if verdict is not None and verdict.ok else [])
        out.claims.append(Claim(f"{name}: stability certified and re-checked", result,
                                res.level or "-", c.seconds, ok=ok and coq_ok, detail=res.reason,
                                coq=coq))
        tex.append(P.escape_text(res.reason))
        if res.certificate is not None:
            tex.append(L.certificate_section(res.certificate, verdict,
                                             title=f"Certificate for {name}"))
    # the certificates shipped in the repository
    if REPO_CERTIFICATES.is_dir():
        from symgauss.kernel.checker import check_file, load_certificate
        files = sorted(REPO_CERTIFICATES.glob("*.json"))
        if files:
            with _Clock() as c:
                bad = [f"{f.name}: {v.status}" for f in files
                       if not (v := check_file(f)).ok]
            coq, coq_ok = coq_cell([load_certificate(f) for f in files]) if not bad \
                else ("-", True)
            out.claims.append(Claim(f"certificates/ ({len(files)} files) re-checked",
                                    "all verified" if not bad else "; ".join(bad)[:120],
                                    "exact", c.seconds, ok=not bad and coq_ok, coq=coq))
    out.tex.append(L.section(out.title, "\n".join(tex)))
    out.md.append(f"## {out.title}\n\n" + "\n".join(
        f"- {c.claim}: {c.result} ({c.level})" + (f" — {c.detail}" if c.detail else "")
        for c in out.claims) + "\n")
    return out


def section_reach(ctx) -> SectionOutput:
    """Reachability: constructive controls, verified independently."""
    out = SectionOutput("Reachability")
    import mpmath

    from symgauss.integrate.high_precision import solve_moments
    from symgauss.model.certificate import envelope
    from symgauss.model.problem import Problem
    from symgauss.questions.reach.controls import certificate_from_result, reach
    mismatch = Problem(cov0=[[1, 0], [0, 1]], target={"mean": [0, 0], "cov": [[1, 1], [1, 1]]},
                       name="rank 2 to rank 1 (unreachable)")
    tex = []
    for name, p in (("reach_geodesic", load_example("reach_geodesic")),
                    ("rank1_d3", load_example("rank1_d3")), ("rank_mismatch", mismatch)):
        with _Clock() as c:
            res = reach(p, T=1, digits=50)
            cert = certificate_from_result(p, res, envelope)
            verdict = _save_and_check(ctx, out, cert, f"{name}-{cert['kind']}")
            indep = None
            if res.reachable:  # feed the controls back through the Taylor solver
                sol = solve_moments(res.controlled_problem(p), 1, 50)
                with mpmath.workdps(60):
                    err = max([abs(mpmath.mpf(_mid(sol.cov[i][j])) -
                                   mpmath.mpf(p.target.cov[i, j].p) / p.target.cov[i, j].q)
                               for i in range(p.d) for j in range(p.d)] +
                              [abs(mpmath.mpf(_mid(sol.mean[i])) -
                                   mpmath.mpf(p.target.mean[i, 0].p) / p.target.mean[i, 0].q)
                               for i in range(p.d)])
                    indep = float(err)
        expected_reachable = name != "rank_mismatch"
        result = (f"reached ({res.method}), error ≤ {float(res.final_error or 0):.1e}"
                  if res.reachable else "unreachable (rank invariant)")
        if indep is not None:
            result += f"; solve: {indep:.0e}"
        result += f"; checker: {verdict.status}"
        ok = res.reachable == expected_reachable and verdict.ok and \
            (indep is None or indep < 1e-30)
        out.claims.append(Claim(f"{name}: reach at T = 1", result, res.level, c.seconds, ok=ok,
                                detail=res.reason))
        sec = L.reach_section(res, title=p.name or name)
        tex.append(sec)
    out.tex.append(L.section(out.title, "Controls are piecewise constant; the reached state "
                             "is recomputed independently of the construction (ball arithmetic "
                             "or the Taylor solver at 50 digits), and each answer is written as "
                             "a certificate and re-checked by the trusted checker.\n\n"
                             + "\n".join(tex)))
    out.md.append(f"## {out.title}\n\n" + "\n".join(
        f"- {c.claim}: {c.result} ({c.level})" for c in out.claims) + "\n")
    return out


def section_blowup(ctx) -> SectionOutput:
    """Finite-time blow-up: decisions, 50-digit T*, certified enclosures."""
    out = SectionOutput("Finite-time blow-up")
    import mpmath

    from symgauss.kernel.numbers import parse_rational
    from symgauss.model.problem import Problem
    from symgauss.questions.blowup.decide import decide_blowup, make_certificate
    riccati = Problem(A=[["1/2", 1], [0, "1/4"]], V=[[1, 0], [0, 1]], B=[[1, "1/2"], [0, 1]],
                      cov0=[[1, 0], [0, 1]], name="V = I, A and B not diagonal (no closed form)")
    cases = (("scalar_blowup", load_example("scalar_blowup"), Fraction(1, 2)),
             ("blowup_diag", load_example("blowup_diag"), Fraction(1, 4)),
             ("riccati_2x2", riccati, True),
             ("threshold", load_example("threshold"), False),
             ("stable_diag", load_example("stable_diag"), False))
    tex = []
    for name, p, expected in cases:
        with _Clock() as c:
            res = decide_blowup(p, digits=50)
            # "undecided" is an honest answer where only a comparison bound applies; a wrong
            # verdict is not
            ok = res.blows_up == (expected is not False) or (expected is True and
                                                             res.blows_up is None)
            detail = res.evidence
            result = "no blow-up" if res.blows_up is False else (
                "undecided" if res.blows_up is None else f"T* ≈ {str(res.t_star)[:14]}…")
            if isinstance(expected, Fraction) and res.t_star:
                with mpmath.workdps(70):
                    dig = _digits(res.t_star, mpmath.mpf(expected.numerator) / expected.denominator)
                result += f" ({min(dig, 50):.0f} digits)"
                ok = ok and dig >= 49
            if res.enclosure:
                lo, hi = (parse_rational(x, "enclosure") for x in res.enclosure)
                result += f", enclosure width {float(hi - lo):.0e}"
                ok = ok and hi - lo <= Fraction(1, 10 ** 30) and (
                    not isinstance(expected, Fraction) or lo <= expected <= hi)
            verdict = None
            if res.blows_up:
                cert = make_certificate(p, digits=30)
                if cert is not None:
                    verdict = _save_and_check(ctx, out, cert, f"{name}-blowup")
                    result += f"; checker: {verdict.status}"
                    ok = ok and verdict.ok
        out.claims.append(Claim(f"{name}: blow-up decided", result, res.level or "-", c.seconds,
                                ok=ok, detail=detail))
        tex.append(L.blowup_section(res, title=p.name or name))
        tex.append(P.escape_text(res.evidence))
    out.tex.append(L.section(out.title, "Blow-up belongs to the mean-field limit: a "
                             "finite-token system never blows up in finite time.\n\n"
                             + "\n".join(tex)))
    out.md.append(f"## {out.title}\n\n" + "\n".join(
        f"- {c.claim}: {c.result} ({c.level}) — {c.detail}" for c in out.claims) + "\n")
    return out


def section_experiments(ctx) -> SectionOutput:
    """Finite-token experiments (and the pretrained one when the ml extra is installed)."""
    out = SectionOutput("Finite-token and pretrained experiments")
    from symgauss.tokens import experiments as X
    figdir = ctx["out_dir"] / "figures"
    tex = [P.escape_text("Caveat: " + X.FINITE_TOKEN_CAVEAT + ".")]
    with _Clock() as c:
        reg = X.run_regime_experiment(figdir)
    ok = reg.opposite_bounded and reg.same_sign_ode_blows_up and \
        reg.tokens_within_exponential_bound
    out.claims.append(Claim("regimes: opposite signs bounded, same sign ODE blows up, tokens "
                            "≤ exponential bound", "as predicted" if ok else "not as predicted",
                            "float", c.seconds, ok=ok, detail=reg.summary))
    tex.append(P.escape_text(reg.summary))
    _add_figures(ctx, out, reg.figures, "Prescribed attention: tokens beside the moment ODE")
    with _Clock() as c:
        relu = X.run_relu_experiment(figdir)
    out.claims.append(Claim("ReLU feed-forward leaves the Gaussian family (fitted rate)",
                            f"√b₁ ≈ {relu.rate_sqrt_skewness:.2f}·t", "float", c.seconds,
                            ok=relu.rate_sqrt_skewness > 0, detail=relu.summary))
    tex.append(P.escape_text(relu.summary))
    _add_figures(ctx, out, relu.figures, "Gaussianity diagnostics, ReLU vs affine feed-forward")
    why = _ml_missing()
    if why:
        out.claims.append(Claim("pretrained Transformer keeps Gaussian statistics (early "
                                "layers)", "skipped", "-", 0.0, detail=why))
        tex.append(P.escape_text(f"Pretrained experiment skipped: {why}."))
    else:
        with _Clock() as c:
            pre = X.run_pretrained_experiment(figdir)
        summary = getattr(pre, "summary", "")
        out.claims.append(Claim("pretrained Transformer: per-layer Gaussianity", "measured",
                                getattr(pre, "level", "float"), c.seconds, detail=summary))
        tex.append(P.escape_text(summary))
        _add_figures(ctx, out, getattr(pre, "figures", ()), "Pretrained model, per layer")
    out.tex.append(L.section(out.title, "\n\n".join(tex)))
    out.md.append(f"## {out.title}\n\n" + "\n".join(
        f"- {c.claim}: {c.result} ({c.level}) — {c.detail}" for c in out.claims) + "\n")
    return out


def _ml_missing() -> str | None:
    """None when the ``ml`` extra (torch, transformers, the MiniLM package) and
    :mod:`symgauss.tokens.pretrained` are installed, else why not."""
    import importlib.util
    for mod, what in (("torch", "the ml extra (torch)"), ("transformers", "the ml extra "
                      "(transformers)"), ("symgauss.tokens.pretrained", "symgauss.tokens.pretrained")):
        try:
            if importlib.util.find_spec(mod) is None:
                raise ModuleNotFoundError(mod)
        except ModuleNotFoundError:
            return f"{what} is not installed (pip install -e '.[ml]')" if "ml" in what else \
                f"{what} is not built yet"
    return None


def _add_figures(ctx, out: SectionOutput, figures, caption: str) -> None:
    """Register PNG figures written into ``out_dir`` (PDF twins are left as files)."""
    for f in figures or ():
        f = Path(f)
        if f.suffix.lower() != ".png":
            continue
        try:
            rel = f.resolve().relative_to(ctx["out_dir"].resolve()).as_posix()
        except ValueError:
            continue
        out.figures.append((rel, caption))
