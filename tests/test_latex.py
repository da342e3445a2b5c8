"""LaTeX output: exact strings for small objects; whole documents compiled with pdflatex."""
import shutil
import warnings

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from symgauss import Problem
from symgauss.kernel.verdict import Verdict
from symgauss.reporting import latex as L
from symgauss.reporting import printer as P

needs_pdflatex = pytest.mark.skipif(
    shutil.which("pdflatex") is None,
    reason="pdflatex not installed (apt-get install texlive-latex-base; CI installs it)")

A, S, V, B = (sp.MatrixSymbol(n, 2, 2) for n in ("A", "Σ", "V", "B"))


def test_covariance_rhs_prints_sigma_and_top():
    assert P.latex(A * S + S * A.T + V * S * B * S + S * B.T * S * V.T) == \
        "A \\Sigma + V \\Sigma B \\Sigma + \\Sigma A^{\\top} + \\Sigma B^{\\top} \\Sigma V^{\\top}"


def test_transpose_of_a_product_gets_parentheses():
    assert P.latex(sp.Transpose(A * S)) == "\\left(A \\Sigma\\right)^{\\top}"
    assert P.latex(sp.Transpose(sp.MatAdd(A, S, evaluate=False))) == \
        "\\left(A + \\Sigma\\right)^{\\top}"


def test_rational_matrix_uses_tfrac_and_pmatrix():
    M = sp.Matrix([[1, sp.Rational(-1, 3)], [sp.Rational(5, 2), 0]])
    assert P.latex(M) == "\\begin{pmatrix}1 & -\\tfrac{1}{3}\\\\\\tfrac{5}{2} & 0\\end{pmatrix}"


def test_rational_outside_matrix_is_frac():
    assert P.latex(sp.Rational(1, 3)) == "\\frac{1}{3}"


def test_exact_text_matrix_is_read_exactly():
    assert P.latex([["0.3", "1/3"], [-2, "1e-2"]]) == \
        "\\begin{pmatrix}\\tfrac{3}{10} & \\tfrac{1}{3}\\\\-2 & \\tfrac{1}{100}\\end{pmatrix}"


def test_unicode_symbol_names():
    assert P.latex(sp.Symbol("σ")) == "\\sigma"
    assert P.latex(sp.Symbol("Σ_0")) == "\\Sigma_{0}"
    assert P.latex(sp.Symbol("λ") * sp.Symbol("β")) == "\\beta \\lambda"


def test_long_decimals_are_shortened_with_exponent():
    assert P.number("0.25000000000000000000000000000001", digits=6) == "0.25000\\ldots"
    assert P.number("1.5e-40") == "1.5 \\times 10^{-40}"
    assert P.number("-7") == "-7"


def test_escape_text_specials_and_math():
    assert P.escape_text("a_b & 50% #1 {x}") == "a\\_b \\& 50\\% \\#1 \\{x\\}"
    assert P.escape_text("P ≻ 0, Σᵀ = Σ") == "P $\\succ$ 0, $\\Sigma^{\\top}$ = $\\Sigma$"
    assert P.escape_text("A₁") == "A$_{1}$"


@given(st.text(max_size=40))
@settings(max_examples=200, deadline=None)
def test_escape_text_is_ascii_with_no_bare_specials(s):
    out = P.escape_text(s)
    assert out.isascii()
    stripped = out.replace("\\&", "").replace("\\%", "").replace("\\#", "")
    assert "&" not in stripped and "%" not in stripped and "#" not in stripped


def test_level_tag():
    assert P.level_tag("exact") == "\\fbox{\\textsf{\\small exact}}"
    assert P.level_tag(None) == "\\fbox{\\textsf{\\small unknown}}"


def test_repr_latex_delegates_to_printer():
    assert P.repr_latex(sp.Symbol("σ")) == "$$\\sigma$$"


def test_problem_block():
    p = Problem(cov0=[[1, 0], [0, "1/2"]], A=[[1, 0], [0, 3]], V=[[-1, 0], [0, -1]],
                B=[[1, 0], [0, 1]])
    tex = P.problem_block(p)
    assert "A = \\begin{pmatrix}1 & 0\\\\0 & 3\\end{pmatrix}" in tex
    assert "\\Sigma_0 = \\begin{pmatrix}1 & 0\\\\0 & \\tfrac{1}{2}\\end{pmatrix}" in tex


def test_document_loads_only_the_three_packages():
    tex = L.document("t", "x")
    assert L.used_packages(tex) == {"amsmath", "amssymb", "graphicx"}
    assert L.used_packages("\\usepackage[a4paper]{geometry,booktabs}") == {"geometry",
                                                                           "booktabs"}


class _Step:
    def __init__(self, statement, expr, justification):
        self.statement, self.expr, self.justification = statement, expr, justification


class _Closure:
    status, level = "proved", "exact"
    steps = (_Step("Weak form for φ = xᵢ", A * S, "d/dt ∫φ dμ = ∫∇φ·v[μ] dμ"),
             _Step("Affinity: ∂²v/∂x² = 0", sp.Integer(0), "the averaged field is affine"))
    mean_rhs = A * sp.MatrixSymbol("m", 2, 1)
    cov_rhs = A * S + S * A.T
    witness = None


def _all_builders():
    p = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 3]], V=[[-1, 0], [0, -1]],
                B=[[1, 0], [0, 1]])
    cert = {"kind": "stable-equilibrium", "level": "exact", "problem_hash": "sha256:" + "ab" * 32,
            "claim": {"statement": "Σ* is locally exponentially stable, rate ≥ 1/2",
                      "rate": "1/2", "cov": [["1", "0"], ["0", "1/3"]]},
            "witness": {"P": [["1/2", "0"], ["0", "1/6"]], "pivots": ["1/2", "1/6"]}}
    return "\n".join([
        P.problem_block(p),
        L.closure_section(_Closure()),
        L.equilibria_section([{"cov": [["1", "0"], ["0", "1/3"]], "mean": ["-1", "0"],
                               "rank": 2, "level": "exact", "stable": True}]),
        L.certificate_section(cert, verdict=Verdict("verified", "Σ* is stable, rate ≥ 1/2",
                                                     "stable-equilibrium", "exact")),
        L.blowup_section({"blows_up": True, "t_star": "0.25" + "0" * 48, "enclosure":
                          ["0.2499999999999999999999999999999999",
                           "0.2500000000000000000000000000000001"], "certified": True,
                          "method": "det(P0 - G(t))", "level": "rigorous"}),
        L.reach_section({"reachable": True, "reason": "rank Σ0 = rank Σ1 = 2", "T": "1",
                         "controls": [{"duration": "1", "A": [["1.0986", "0"], ["0", "-1.0986"]],
                                       "b": ["2", "-1"]}],
                         "final_error": "3.1e-48", "level": "rigorous"}),
        L.summary_table([("closure d = 1", "proved exact", "exact", 0.12),
                         ("T* = 1/4 & enclosure", "verified", "rigorous", 1.5)]),
    ])


def test_builders_produce_ascii_latex():
    body = _all_builders()
    assert body.isascii()
    assert "\\succ" not in body or "$" in body
    assert "\\textbf{blows up}" in body


@needs_pdflatex
def test_all_builders_compile(tmp_path):
    tex, pdf = L.write_document(tmp_path / "doc.tex", "All builders — Σ ≻ 0", _all_builders())
    assert pdf is not None and pdf.stat().st_size > 1000
    assert pdf.read_bytes().startswith(b"%PDF")


@needs_pdflatex
def test_compile_error_names_first_error_line(tmp_path):
    path = tmp_path / "bad.tex"
    path.write_text(L.document("bad", "\\nosuchcommand{x}"))
    with pytest.raises(P.LatexError, match="Undefined control sequence"):
        L.compile_pdf(path)


def test_missing_pdflatex_returns_none_with_reason(tmp_path, monkeypatch):
    path = tmp_path / "doc.tex"
    path.write_text(L.document("t", "x"))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert "texlive-latex-base" in L.pdflatex_unavailable_reason()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert L.compile_pdf(path) is None
    assert any("pdflatex is not installed" in str(x.message) for x in w)


def test_compile_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(P.LatexError, match="no such LaTeX file"):
        L.compile_pdf(tmp_path / "nope.tex")


def test_jupyter_reprs_delegate_to_the_printer():
    from symgauss import Problem, derive_closure
    p = Problem(cov0=[["1/2"]], A=[[3]])
    assert p._repr_latex_() == (
        "\\begin{gather*}\nA = \\begin{pmatrix}3\\end{pmatrix},\\quad V = \\begin{pmatrix}0"
        "\\end{pmatrix},\\quad B = \\begin{pmatrix}0\\end{pmatrix},\\\\ \\Sigma_0 = "
        "\\begin{pmatrix}\\tfrac{1}{2}\\end{pmatrix},\\quad m_0 = \\begin{pmatrix}0\\end{pmatrix}"
        "^{\\top},\\quad b = \\begin{pmatrix}0\\end{pmatrix}^{\\top}\n\\end{gather*}\n")
    c = derive_closure(1)
    assert c._repr_latex_().startswith("$$\\begin{aligned}\\dot m &= ")
    assert "refuted" in derive_closure(1, feedforward="relu")._repr_latex_()


def test_a_certificate_is_called_proved_only_with_a_verified_verdict():
    cert = {"kind": "blowup", "claim": {"statement": "T* ∈ (1, 2]", "t_lower": "1"},
            "witness": {}, "problem_hash": "sha256:00"}
    proved = L.certificate_section(cert, Verdict("verified", "T* ∈ (1, 2]", "blowup", "rigorous"))
    assert "Proved by the trusted checker" in proved and "rigorous" in proved
    for verdict in (None, Verdict("not-proved", "the witness fails", "blowup"),
                    Verdict("refuted", "Σ0 = 0", "blowup")):
        text = L.certificate_section(cert, verdict)
        assert "Proved" not in text and "unverified" in text
