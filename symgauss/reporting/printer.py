"""LaTeX for symgauss objects: a SymPy printer subclass, numbers and text.

Everything here produces LaTeX that compiles with ``texlive-latex-base`` alone:
the documents load only ``amsmath``, ``amssymb`` and ``graphicx``
(:data:`PACKAGES`). Unicode in names and statements (Σ, ᵀ, ≻, …) is turned
into LaTeX commands, so pdflatex never sees a raw non-ASCII character.

>>> import sympy as sp
>>> S, A = sp.MatrixSymbol("Σ", 2, 2), sp.MatrixSymbol("A", 2, 2)
>>> latex(A * S + S * A.T)
'A \\\\Sigma + \\\\Sigma A^{\\\\top}'
>>> latex(sp.Matrix([[1, sp.Rational(-1, 3)], [0, 2]]))
'\\\\begin{pmatrix}1 & -\\\\tfrac{1}{3}\\\\\\\\0 & 2\\\\end{pmatrix}'
>>> latex([["1/2", "0.25"], [0, 1]])
'\\\\begin{pmatrix}\\\\tfrac{1}{2} & \\\\tfrac{1}{4}\\\\\\\\0 & 1\\\\end{pmatrix}'
>>> escape_text("Σ ≻ 0 & 50% done")
'$\\\\Sigma$ $\\\\succ$ 0 \\\\& 50\\\\% done'
"""
from __future__ import annotations

import re
from fractions import Fraction

import sympy as sp
from sympy.printing.latex import LatexPrinter

from symgauss.kernel.errors import SymgaussError

#: the only LaTeX packages a symgauss document loads (all in texlive-latex-base)
PACKAGES = ("amsmath", "amssymb", "graphicx")


# Unicode that appears in names, statements and justifications -> LaTeX math.
_GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta",
          "η": "eta", "θ": "theta", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu",
          "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "φ": "phi", "χ": "chi",
          "ψ": "psi", "ω": "omega", "Γ": "Gamma", "Δ": "Delta", "Θ": "Theta", "Λ": "Lambda",
          "Ξ": "Xi", "Π": "Pi", "Σ": "Sigma", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega"}
_MATH = {"ᵀ": "^{\\top}", "≻": "\\succ", "≺": "\\prec", "⪰": "\\succeq", "⪯": "\\preceq",
         "≥": "\\geq", "≤": "\\leq", "≠": "\\neq", "≈": "\\approx", "∈": "\\in", "∉": "\\notin",
         "∀": "\\forall", "∃": "\\exists", "∫": "\\int", "∑": "\\sum", "∂": "\\partial",
         "∇": "\\nabla", "√": "\\surd", "∞": "\\infty", "→": "\\to", "↦": "\\mapsto",
         "⇒": "\\Rightarrow", "⇔": "\\Leftrightarrow", "×": "\\times", "·": "\\cdot",
         "⊗": "\\otimes", "∘": "\\circ", "±": "\\pm", "∓": "\\mp", "−": "-", "‖": "\\|",
         "⁻¹": "^{-1}", "²": "^{2}", "³": "^{3}", "′": "'", "⊤": "\\top", "∅": "\\emptyset",
         "ℝ": "\\mathbb{R}", "≡": "\\equiv", "⟨": "\\langle", "⟩": "\\rangle", "∝": "\\propto",
         "…": "\\ldots", "⋯": "\\cdots", "∧": "\\wedge", "∨": "\\vee", "≔": ":="}
_TEXT = {"–": "--", "—": "---", "‘": "`", "’": "'", "“": "``", "”": "''", "\u00a0": "~",
         "é": "\\'e", "ö": '\\"o', "ü": '\\"u', "ä": '\\"a', "°": "$^\\circ$"}
_SUB = str.maketrans("₀₁₂₃₄₅₆₇₈₉ᵢⱼₖₕₜ", "0123456789ijkht")
_SUP = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹ᵀ⁺⁻", "0123456789T+-")
_TEXT_SPECIAL = {"\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#",
                 "_": "\\_", "{": "\\{", "}": "\\}", "~": "\\textasciitilde{}",
                 "^": "\\textasciicircum{}", "<": "$<$", ">": "$>$", "|": "$|$"}


class LatexError(SymgaussError, RuntimeError):
    """pdflatex rejected a document (the message carries the log's first error line)."""


def _math_unicode(s: str) -> str:
    """Unicode in a *math-mode* string -> LaTeX commands (greek, ᵀ, ≻, sub/superscripts)."""
    s = s.replace("⁻¹", "^{-1}")
    out = []
    for ch in s:
        if ch in _GREEK:
            out.append("\\" + _GREEK[ch] + " ")
        elif ch in _MATH:
            out.append(_MATH[ch] + " ")
        elif ch in "₀₁₂₃₄₅₆₇₈₉ᵢⱼₖₕₜ":
            out.append("_{" + ch.translate(_SUB) + "}")
        elif ch in "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻":
            out.append("^{" + ch.translate(_SUP) + "}")
        elif ord(ch) < 128:
            out.append(ch)
        else:
            out.append("?")
    return re.sub(r" +([}^_ ,.)\]])", r"\1", "".join(out)).rstrip()


class SymgaussLatexPrinter(LatexPrinter):
    """SymPy's LaTeX printer with symgauss conventions.

    Σ and other greek letters given as Unicode print as LaTeX commands; transposes
    print as ``A^{\\top}``; matrices as ``pmatrix`` with ``\\tfrac`` for rationals.
    """
    printmethod = "_symgauss_latex"
    _default_settings = {**LatexPrinter._default_settings, "mat_str": "pmatrix",
                         "mat_delim": ""}

    def __init__(self, settings=None):
        super().__init__(settings)
        self._in_matrix = 0

    def _deal_with_super_sub(self, string, style="plain"):
        for uni, word in _GREEK.items():
            string = string.replace(uni, word)
        string = string.replace("ᵀ", "^T")
        if all(ord(c) < 128 for c in string):
            return super()._deal_with_super_sub(string, style)
        return _math_unicode(string)

    def _print_Transpose(self, expr):
        arg = expr.arg
        if isinstance(arg, (sp.MatrixSymbol, sp.Symbol)):
            return f"{self._print(arg)}^{{\\top}}"
        return f"\\left({self._print(arg)}\\right)^{{\\top}}"

    def _print_Rational(self, expr):
        if self._in_matrix and expr.q != 1:
            sign = "-" if expr.p < 0 else ""
            return f"{sign}\\tfrac{{{abs(expr.p)}}}{{{expr.q}}}"
        return super()._print_Rational(expr)

    def _print_MatrixBase(self, expr):
        self._in_matrix += 1
        try:
            return super()._print_MatrixBase(expr)
        finally:
            self._in_matrix -= 1

    _print_ImmutableMatrix = _print_Matrix = _print_MatrixBase
    _print_ImmutableDenseMatrix = _print_MutableDenseMatrix = _print_MatrixBase


def _entry_expr(x):
    """A matrix entry from exact text / numbers; decimals that are not rationals stay text."""
    if isinstance(x, sp.Basic):
        return x
    if isinstance(x, Fraction):
        return sp.Rational(x.numerator, x.denominator)
    from symgauss.kernel.numbers import parse_rational
    try:
        f = parse_rational(x, "entry")
    except (ValueError, TypeError):
        return None
    return sp.Rational(f.numerator, f.denominator)


LONG = 12  # rationals with longer numerators/denominators display as shortened decimals


def _decimal_text(x, digits: int = 10) -> str:
    """A long exact rational as decimal text with ``digits + 2`` significant digits."""
    import decimal
    with decimal.localcontext() as ctx:
        ctx.prec = digits + 2
        return str(decimal.Decimal(int(x.p)) / decimal.Decimal(int(x.q)))


def number(x, digits: int = 12) -> str:
    """A number for display: exact rationals as ``\\tfrac``, long decimals cut to ``digits``.

    >>> number("1/3"), number("0.5"), number("2.50000000000000000000000001e-3", digits=4)
    ('\\\\tfrac{1}{3}', '\\\\tfrac{1}{2}', '2.500\\\\ldots \\\\times 10^{-3}')
    """
    s = str(x).strip()
    m = re.fullmatch(r"([+-]?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?", s)
    if m and len((m.group(2) or "") + (m.group(3) or "")) > digits:
        sign, ip, fp, ex = m.group(1), m.group(2), m.group(3) or "", m.group(4)
        mant = (ip + "." + fp) if fp else ip
        shown = mant[: digits + 1] + "\\ldots"
        out = ("-" if sign == "-" else "") + shown
        if ex and int(ex) != 0:
            out += f" \\times 10^{{{int(ex)}}}"
        return out
    if m and m.group(4):
        sign, ip, fp, ex = m.group(1), m.group(2), m.group(3), int(m.group(4))
        mant = ip + ("." + fp if fp else "")
        return ("-" if sign == "-" else "") + mant + (f" \\times 10^{{{ex}}}" if ex else "")
    e = _entry_expr(x)
    if e is None:
        return "\\text{" + escape_text(s) + "}"
    if e.is_Rational and (len(str(abs(e.p))) > LONG or len(str(e.q)) > LONG):
        return number(_decimal_text(e), digits=10)
    p = SymgaussLatexPrinter()
    p._in_matrix = 1
    return p.doprint(e)


def latex(obj, **settings) -> str:
    """LaTeX (math mode) of a SymPy object, a nested list of exact numbers, or a number.

    Nested lists whose entries are exact text (``"1/3"``, ``0.25``) print as rational
    matrices; long decimal strings (high-precision results) are shortened by :func:`number`.
    """
    if isinstance(obj, (list, tuple)) and obj and not isinstance(obj, str):
        rows = [r if isinstance(r, (list, tuple)) else [r] for r in obj]
        if all(all(_entry_expr(x) is not None for x in r) for r in rows) and \
                all(len(r) == len(rows[0]) for r in rows):
            M = sp.Matrix([[_entry_expr(x) for x in r] for r in rows])
            if any(len(str(abs(x.p))) > LONG or len(str(x.q)) > LONG for x in M):
                rows = [[_decimal_text(x) for x in M.row(i)] for i in range(M.rows)]
            else:
                return latex(M, **settings)
        body = "\\\\".join(" & ".join(number(x) for x in r) for r in rows)
        return "\\begin{pmatrix}" + body + "\\end{pmatrix}"
    if isinstance(obj, (str, int, float, Fraction)) and not isinstance(obj, bool):
        return number(obj)
    if isinstance(obj, sp.MatrixBase) or isinstance(obj, sp.Basic):
        return SymgaussLatexPrinter(settings).doprint(obj)
    if hasattr(obj, "_symgauss_latex"):
        return obj._symgauss_latex(SymgaussLatexPrinter(settings))
    return SymgaussLatexPrinter(settings).doprint(sp.sympify(obj, strict=True))


def repr_latex(obj) -> str:
    """What a ``_repr_latex_`` method returns: ``$$ … $$`` around :func:`latex`.

    >>> repr_latex(sp.Symbol("σ"))
    '$$\\\\sigma$$'
    """
    if hasattr(obj, "to_latex"):
        return "$$" + obj.to_latex() + "$$"
    return "$$" + latex(obj) + "$$"


def escape_text(s) -> str:
    """Plain text -> LaTeX text mode: specials escaped, Unicode math put in ``$…$``."""
    out, math = [], []

    def flush():
        if math:
            out.append("$" + _math_unicode("".join(math)) + "$")
            math.clear()
    for ch in str(s):
        if ch in _GREEK or ch in _MATH or ch in "₀₁₂₃₄₅₆₇₈₉ᵢⱼₖₕₜ⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻":
            math.append(ch)
            continue
        if math and ch in "ᵀ":
            math.append(ch)
            continue
        flush()
        if ch in _TEXT_SPECIAL:
            out.append(_TEXT_SPECIAL[ch])
        elif ch in _TEXT:
            out.append(_TEXT[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:
            out.append("?")
    flush()
    return "".join(out)


def level_tag(level) -> str:
    """The level of a claim, boxed: ``\\fbox{\\textsf{exact}}`` (or 'unknown')."""
    lv = str(level) if level else "unknown"
    return "\\fbox{\\textsf{\\small " + escape_text(lv) + "}}"


def _expr(x) -> str:
    if x is None:
        return ""
    if isinstance(x, str):
        try:
            return latex(x) if _entry_expr(x) is not None else _math_unicode(x)
        except Exception:
            return _math_unicode(x)
    return latex(x)


def problem_block(problem) -> str:
    """The data of a :class:`~symgauss.model.problem.Problem` as displayed equations."""
    parts = [f"\\Sigma_0 = {latex(problem.cov0)}", f"m_0 = {latex(problem.mean0.T)}^{{\\top}}"]
    if problem.is_time_invariant:
        parts.insert(0, f"A = {latex(problem.A)}")
        for k, h in enumerate(problem.heads):
            sub = f"_{{{k + 1}}}" if len(problem.heads) > 1 else ""
            parts.insert(1 + 2 * k, f"V{sub} = {latex(h.V)}")
            parts.insert(2 + 2 * k, f"B{sub} = {latex(h.B)}")
        parts.append(f"b = {latex(problem.b.T)}^{{\\top}}")
    else:
        parts.append(f"\\text{{{len(problem.controls)} control pieces}}")
    lines = ",\\quad ".join(parts)
    return "\\begin{gather*}\n" + lines.replace(",\\quad \\Sigma_0", ",\\\\ \\Sigma_0") + \
        "\n\\end{gather*}\n"
