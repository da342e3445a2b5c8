"""LaTeX documents of symgauss results, and compiling them with pdflatex.

The documents load only ``amsmath``, ``amssymb`` and ``graphicx`` (:data:`PACKAGES`), so they
compile with ``texlive-latex-base`` alone; formulas and text go through
:mod:`symgauss.reporting.printer`.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import sympy as sp

from symgauss.reporting.printer import (
    PACKAGES,
    LatexError,
    _entry_expr,
    _expr,
    escape_text,
    latex,
    level_tag,
    number,
    problem_block,
)


# ----------------------------------------------------------------------------- documents
def document(title: str, body: str, author: str = "symgauss") -> str:
    """A complete LaTeX document around ``body`` (packages: :data:`PACKAGES` only)."""
    pk = "\n".join(f"\\usepackage{{{p}}}" for p in PACKAGES)
    return (f"\\documentclass[10pt]{{article}}\n{pk}\n"
            "\\setlength{\\textwidth}{6.5in}\\setlength{\\oddsidemargin}{0in}\n"
            "\\setlength{\\textheight}{9in}\\setlength{\\topmargin}{-0.5in}\n"
            "\\setlength{\\parindent}{0pt}\\setlength{\\parskip}{4pt}\n"
            "\\allowdisplaybreaks\n"
            "\\begin{document}\n\\begin{center}{\\Large\\bfseries " + escape_text(title) +
            "}\\\\[2pt]{\\small " + escape_text(author) + "}\\end{center}\n" + body +
            "\n\\end{document}\n")


def section(title: str, body: str, level: int = 1) -> str:
    cmd = {1: "section", 2: "subsection", 3: "subsubsection"}[level]
    return f"\\{cmd}*{{{escape_text(title)}}}\n{body}\n"


def display(expr_latex: str) -> str:
    return "\\[\n" + expr_latex + "\n\\]\n"


def closure_section(closure, title: str | None = None, level: int = 1) -> str:
    """The closure derivation step by step, each step with its justification.

    ``closure`` is what :func:`symgauss.derive_closure` returns: ``.steps`` (each with
    ``statement``, ``expr``, ``justification``), ``.status``, ``.mean_rhs``, ``.cov_rhs``,
    and ``.witness`` for a refutation.
    """
    status = str(getattr(closure, "status", "unknown"))
    claim_level = getattr(closure, "level", "exact")
    lines = [f"Status: \\textbf{{{escape_text(status)}}} {level_tag(claim_level)}\n"]
    lines.append("\\begin{enumerate}")
    for st in getattr(closure, "steps", ()):
        statement = getattr(st, "statement", st[0] if isinstance(st, tuple) else str(st))
        expr = getattr(st, "expr", st[1] if isinstance(st, tuple) and len(st) > 1 else None)
        just = getattr(st, "justification", st[2] if isinstance(st, tuple) and len(st) > 2
                       else "")
        item = f"\\item {escape_text(statement)}"
        e = _expr(expr)
        if e:
            item += "\n" + display(e)
        if just:
            item += f"\\emph{{Justification:}} {escape_text(just)}\n"
        lines.append(item)
    lines.append("\\end{enumerate}")
    mr, cr = getattr(closure, "mean_rhs", None), getattr(closure, "cov_rhs", None)
    if status == "proved" and mr is not None and cr is not None:
        lines.append("Result (the closed moment system):")
        lines.append("\\begin{align*}\n\\dot m &= " + _expr(mr) + "\\\\\n\\dot\\Sigma &= "
                     + _expr(cr) + "\n\\end{align*}")
    w = getattr(closure, "witness", None)
    if w is not None:
        lines.append("Witness: " + (display(_expr(w)) if not isinstance(w, dict) else
                                    _dict_block(w)))
    return section(title or "Gaussian closure", "\n".join(lines), level=level)


def _dict_block(d: dict) -> str:
    rows = []
    for k, v in d.items():
        if isinstance(v, (list, tuple, sp.Basic)) or _entry_expr(v) is not None:
            try:
                rows.append(f"\\text{{{escape_text(k)}}} &= {_value(v)}")
                continue
            except Exception:
                pass
        rows.append(f"\\text{{{escape_text(k)}}} &: \\text{{{escape_text(v)}}}")
    if not rows:
        return ""
    return "\\begin{align*}\n" + "\\\\\n".join(rows) + "\n\\end{align*}\n"


def _value(v) -> str:
    if isinstance(v, dict):
        raise TypeError("nested dict")
    if isinstance(v, (list, tuple)) and v and all(isinstance(r, (list, tuple)) for r in v):
        return latex(v)
    if isinstance(v, (list, tuple)):
        return latex([[x] for x in v]) if v else "()"
    return latex(v) if not isinstance(v, str) else number(v)


def equilibria_section(equilibria, title: str = "Equilibria", level: int = 1) -> str:
    """Equilibria: each covariance (and mean), rank, stability and level."""
    items = []
    for k, e in enumerate(equilibria):
        d = e if isinstance(e, dict) else (e.to_json_dict() if hasattr(e, "to_json_dict")
                                           else vars(e))
        cov, mean = d.get("cov"), d.get("mean")
        s = f"\\Sigma^*_{{{k + 1}}} = {_value(cov)}" if cov is not None else ""
        if mean is not None:
            s += f",\\quad m^*_{{{k + 1}}} = {_value(mean)}"
        stable = d.get("stable")
        st = {True: "stable", False: "unstable", None: "stability undecided"}.get(stable,
                                                                                  str(stable))
        within = f", each entry within {escape_text(d['radius'])}" if d.get("radius") else ""
        items.append(f"\\item {display(s) if s else ''}rank {escape_text(d.get('rank', '?'))}"
                     f"{within}, {st} {level_tag(d.get('level'))}")
    if not items:
        return section(title, "No equilibrium found.", level)
    return section(title, "\\begin{enumerate}\n" + "\n".join(items) + "\n\\end{enumerate}",
                   level)


def certificate_section(cert: dict, verdict=None, title: str | None = None) -> str:
    """A certificate file and what the trusted checker says of it.

    Only a VERIFIED verdict's own statement is presented as proved; the file's claim and
    witness follow as data. Without a verified verdict the claim is shown as a claim, with the
    verdict (or "not re-checked here").
    """
    status = getattr(verdict, "status", None)
    body = [f"Kind: \\texttt{{{escape_text(cert.get('kind'))}}}"]
    if status == "verified":
        body.append(f"Proved by the trusted checker {level_tag(verdict.level)}: "
                    f"{escape_text(verdict.reason)}")
        label = "The claim's numbers (read and checked by the kernel):"
    else:
        why = (f"the trusted checker says \\textbf{{{escape_text(status)}}}: "
               f"{escape_text(getattr(verdict, 'reason', ''))}" if verdict is not None
               else "not re-checked here")
        body.append(f"Not verified ({why}).")
        label = "Claimed in the file (unverified):"
    claim = cert.get("claim", {})
    if isinstance(claim, dict):
        rest = {k: v for k, v in claim.items() if k != "statement"}
        if rest:
            body += [label, _safe_block(rest)]
    witness = cert.get("witness", {})
    if isinstance(witness, dict) and witness:
        body += ["Witness (exact):", _safe_block(witness)]
    body.append(f"Problem hash: \\texttt{{{escape_text(str(cert.get('problem_hash', ''))[:23])}"
                "\\ldots}")
    return section(title or f"Certificate: {cert.get('kind')}", "\n\n".join(body), level=2)


def _safe_block(d: dict) -> str:
    flat = {}
    for k, v in d.items():
        if isinstance(v, dict):
            for k2, v2 in v.items():
                flat[f"{k}.{k2}"] = v2
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            flat[k] = f"{len(v)} items"
        else:
            flat[k] = v
    return _dict_block(flat)


def blowup_section(result, title: str = "Blow-up") -> str:
    """A blow-up decision: the verdict, T* with its digits and enclosure, method, level."""
    d = result if isinstance(result, dict) else result.to_json_dict()
    verdict = {True: "blows up", False: "no blow-up", None: "undecided"}.get(
        d.get("blows_up"), str(d.get("blows_up")))
    body = [f"Verdict: \\textbf{{{verdict}}} {level_tag(d.get('level'))}; method: "
            f"{escape_text(d.get('method', ''))}"]
    eqs = []
    cf = getattr(result, "closed_form", None)
    if cf is not None:
        eqs.append(f"T^* &= {latex(cf)}")
    if d.get("t_star"):
        eqs.append(f"T^* &\\approx {number(d['t_star'], digits=50)}")
    enc = d.get("enclosure")
    if enc:
        eqs.append(f"T^* &\\in [{number(enc[0], 32)},\\ {number(enc[1], 32)}]"
                   + ("\\quad\\text{(certified)}" if d.get("certified") else ""))
    if eqs:
        body.append("\\begin{align*}\n" + "\\\\\n".join(eqs) + "\n\\end{align*}")
    return section(title, "\n".join(body), level=2)


def reach_section(result, title: str = "Reachability") -> str:
    """A reachability answer: the reason, the piecewise-constant controls, the final error."""
    d = result if isinstance(result, dict) else result.to_json_dict()
    body = [f"Reachable: \\textbf{{{escape_text(d.get('reachable'))}}} "
            f"{level_tag(d.get('level'))}. {escape_text(d.get('reason', ''))}"]
    for k, pc in enumerate(d.get("controls") or ()):
        parts = [f"\\text{{piece {k + 1}:}}\\ \\tau = {number(pc.get('duration', '?'))}"]
        for key in ("A", "V", "B", "b"):
            if key in pc and any(_entry_expr(x) != 0 for x in _flatten(pc[key])):
                parts.append(f"{key} = {_value(pc[key])}")
        body.append(display(",\\quad ".join(parts)))
    if d.get("final_error") is not None:
        body.append(f"Final error (independent verification): "
                    f"${number(d['final_error'], 4)}$")
    return section(title, "\n".join(body), level=2)


def _flatten(v):
    if isinstance(v, (list, tuple)):
        for x in v:
            yield from _flatten(x)
    else:
        yield v


def summary_table(rows, chunk: int = 18) -> str:
    """``rows`` of (claim, result, level, seconds[, kernel-checked (Coq)]) as tabulars of
    ``chunk`` rows each (a tabular cannot break across pages; short ones let the first page
    fill up)."""
    rows = [tuple(r) + ("-",) * (5 - len(r)) for r in rows]
    head = ["\\begin{center}\\footnotesize", "\\begin{tabular}{p{2.4in}p{1.5in}lrp{1.0in}}",
            "\\hline", "\\textbf{claim} & \\textbf{result} & \\textbf{level} & "
            "\\textbf{time (s)} & \\textbf{kernel-checked (Coq)}\\\\", "\\hline"]
    out = []
    for k in range(0, max(len(rows), 1), chunk):
        out += head
        for claim, result, level, seconds, coq in rows[k:k + chunk]:
            t = f"{seconds:.2f}" if isinstance(seconds, (int, float)) else escape_text(seconds)
            out.append(f"{escape_text(claim)} & {escape_text(result)} & {escape_text(level)} & "
                       f"{t} & {escape_text(coq)}\\\\")
        out += ["\\hline", "\\end{tabular}", "\\end{center}"]
    return "\n".join(out) + "\n"


def figure(path, caption: str, width: str = "0.7\\textwidth") -> str:
    return ("\\begin{figure}[ht]\\centering\n"
            f"\\includegraphics[width={width}]{{{Path(path).as_posix()}}}\n"
            f"\\caption{{{escape_text(caption)}}}\n\\end{{figure}}\n")


def used_packages(tex: str) -> set:
    """The packages a LaTeX source loads (``\\usepackage[..]{a,b}``)."""
    out = set()
    for m in re.finditer(r"\\(?:usepackage|RequirePackage)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}", tex):
        out.update(p.strip() for p in m.group(1).split(",") if p.strip())
    return out


# ----------------------------------------------------------------------------- compiling
def pdflatex_unavailable_reason() -> str | None:
    """None when pdflatex can be run, otherwise why not."""
    if shutil.which("pdflatex") is None:
        return ("pdflatex is not installed (install texlive-latex-base, e.g. "
                "`apt-get install texlive-latex-base`)")
    return None


def compile_pdf(tex_path, timeout: float = 120) -> Path | None:
    """Compile ``tex_path`` with pdflatex (nonstopmode, in a temporary directory).

    Returns the PDF path next to the ``.tex`` file; returns None, with a warning
    stating why, when pdflatex is absent. Figures are found relative to the
    ``.tex`` file's directory. Raises :class:`LatexError` with the first error
    line of the log when pdflatex fails.
    """
    import warnings
    tex_path = Path(tex_path).resolve()
    if not tex_path.is_file():
        raise LatexError(f"{tex_path}: no such LaTeX file; write it first")
    reason = pdflatex_unavailable_reason()
    if reason:
        warnings.warn(f"no PDF for {tex_path.name}: {reason}", stacklevel=2)
        return None
    with tempfile.TemporaryDirectory(prefix="symgauss-tex-") as tmp:
        env = dict(os.environ, TEXINPUTS=f"{tex_path.parent}{os.pathsep}{os.pathsep}")
        cmd = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
               f"-output-directory={tmp}", tex_path.name]
        try:
            proc = subprocess.run(cmd, cwd=tex_path.parent, env=env, capture_output=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise LatexError(f"pdflatex did not finish {tex_path.name} within {timeout} s") \
                from None
        log_path = Path(tmp) / (tex_path.stem + ".log")
        log = log_path.read_text(errors="replace") if log_path.exists() else \
            proc.stdout.decode(errors="replace")
        pdf = Path(tmp) / (tex_path.stem + ".pdf")
        if proc.returncode != 0 or not pdf.exists():
            raise LatexError(f"pdflatex failed on {tex_path.name}: {first_error(log)}")
        out = tex_path.with_suffix(".pdf")
        shutil.copyfile(pdf, out)
    return out


def first_error(log: str) -> str:
    """The first ``! …`` error of a pdflatex log, with its ``l.N`` line."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("!"):
            where = next((x.strip() for x in lines[i + 1:i + 12] if re.match(r"l\.\d+", x)), "")
            return (line[1:].strip() + (f" (at {where})" if where else "")).strip()
    return "no error line in the log (see the .log file); exit status non-zero"


def write_document(path, title: str, body: str, compile: bool = True):
    """Write ``document(title, body)`` to ``path`` and compile it; returns (tex, pdf|None)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document(title, body), encoding="utf-8")
    return path, (compile_pdf(path) if compile else None)


def _write_and_compile(path, title: str, body: str) -> str:
    """Write the document and compile it when pdflatex is present; a one-line note."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document(title, body), encoding="utf-8")
    reason = pdflatex_unavailable_reason()
    if reason:
        return f"wrote {path} (no PDF: {reason})"
    return f"wrote {path} and {compile_pdf(path)}"


def write_closure_document(closure, path) -> str:
    """``symgauss derive --latex FILE``: the derivation, step by step, as a document."""
    what = ", ".join(f"{k} = {getattr(closure, k)}" for k in ("dim", "heads", "depth", "kernel")
                     if hasattr(closure, k))
    return _write_and_compile(path, f"Gaussian closure ({what})",
                              closure_section(closure, title="Derivation"))


def write_certificate_document(cert: dict, path, verdict=None) -> str:
    """``symgauss certify --latex FILE``: the problem, claim, exact witnesses and verdict."""
    from symgauss.model.problem_file import problem_from_dict
    try:
        head = problem_block(problem_from_dict(cert["problem"]))
    except Exception:  # a problem this printer cannot lay out: the certificate is still shown
        head = ""
    return _write_and_compile(path, f"symgauss certificate: {cert.get('kind')}",
                              section("Problem", head) + certificate_section(
                                  cert, verdict, title="Claim and witness"))
