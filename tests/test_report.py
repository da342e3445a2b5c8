"""`symgauss report --out DIR` end to end (run once per module): files, PDF, first page."""
import json
import re
import shutil
import subprocess
import sys

import pytest

from symgauss.kernel.verdict import LEVELS
from symgauss.reporting.latex import PACKAGES, used_packages

#: one pytest worker runs this module, so that its fixture (the whole report, over a minute) is
#: made once: workers each set up a module-scoped fixture for the tests they get (pyproject's
#: ``--dist loadgroup``; pytest is held below 9.2, where that grouping stops, pytest-xdist#1386)
pytestmark = pytest.mark.xdist_group("report")

needs_pdflatex = pytest.mark.skipif(
    shutil.which("pdflatex") is None,
    reason="pdflatex not installed (apt-get install texlive-latex-base; CI installs it)")
needs_pdftoppm = pytest.mark.skipif(
    shutil.which("pdftoppm") is None,
    reason="pdftoppm not installed (apt-get install poppler-utils; CI installs it)")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    proc = subprocess.run([sys.executable, "-m", "symgauss", "report", "--out", str(out),
                           "--no-progress"], capture_output=True, text=True, timeout=600)
    return out, proc


def test_report_exits_zero_and_prints_the_table(report):
    out, proc = report
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert re.match(r"claim\s+result\s+level\s+time \(s\)\s+kernel-checked \(Coq\)", lines[0])
    assert "claims checked as predicted" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_every_claim_states_its_level(report):
    out, proc = report
    md = (out / "report.md").read_text()
    rows = [r for r in md.splitlines() if r.startswith("| ") and not r.startswith("| claim")]
    assert rows
    for r in rows:
        cells = [c.strip() for c in r.strip("|").split("|")]
        assert cells[2] in LEVELS + ("-",), r
        if cells[1].startswith("skipped"):
            assert cells[2] == "-" and "(" in cells[1], f"a skip must say why: {r}"


@pytest.mark.skipif(shutil.which("coqc") is None,
                    reason="coqc not installed (apt-get install coq libcoq-bignums; CI installs it)")
def test_coq_column(report):
    """The exact certificates (the report's own and those in certificates/) went through coqc."""
    out, proc = report
    md = (out / "report.md").read_text()
    rows = {r.split("|")[1].strip(): [c.strip() for c in r.strip("|").split("|")]
            for r in md.splitlines() if r.startswith("| ")}
    assert rows["claim"][4] == "kernel-checked (Coq)"
    for name in ("stable_diag", "multihead"):
        assert rows[f"{name}: stability certified and re-checked"][4].startswith("yes (")
    repo = next(v for k, v in rows.items() if k.startswith("certificates/ ("))
    assert re.match(r"yes, 9 of \d+ \(slowest \d+\.\d s\)", repo[4]), repo
    assert rows["general3: stability certified and re-checked"][4] == "-"   # rigorous


def test_files_written(report):
    out, _ = report
    for name in ("report.md", "report.tex", "figures/trajectories.png"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    assert (out / "certificates").is_dir()


def test_tex_uses_only_base_packages(report):
    out, _ = report
    tex = (out / "report.tex").read_text()
    assert used_packages(tex) <= set(PACKAGES)
    assert tex.isascii()


def test_certificates_recheck(report):
    out, _ = report
    files = sorted((out / "certificates").glob("*.json"))
    kinds = {json.loads(f.read_text())["kind"] for f in files}
    assert {"stable-equilibrium", "unstable-equilibrium", "blowup", "reach",
            "unreachable"} <= kinds, kinds
    proc = subprocess.run([sys.executable, "-m", "symgauss", "check", *map(str, files)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for f in files:
        assert json.loads(f.read_text())["format"] == "symgauss-certificate"


@needs_pdflatex
def test_pdf_compiled(report):
    out, proc = report
    pdf = out / "report.pdf"
    assert pdf.is_file(), proc.stdout
    assert pdf.read_bytes()[:5] == b"%PDF-"


@needs_pdflatex
@needs_pdftoppm
def test_first_page_is_not_blank(report, tmp_path):
    import matplotlib.image as mpimg
    out, _ = report
    subprocess.run(["pdftoppm", "-png", "-r", "72", "-f", "1", "-l", "1", "-singlefile",
                    str(out / "report.pdf"), str(tmp_path / "page")], check=True)
    img = mpimg.imread(tmp_path / "page.png")
    gray = img[..., :3].mean(axis=2) if img.ndim == 3 else img
    dark = float((gray < 0.75).mean())
    # a page of text and tables: a few per cent of inked pixels; blank is 0
    assert 0.005 < dark < 0.5, f"dark-pixel fraction {dark:.4f}"
    # text spread over the page, not a single line: dark pixels in most row bands
    bands = gray.shape[0] // 10
    rows_with_ink = sum((gray[k * bands:(k + 1) * bands] < 0.75).any() for k in range(10))
    assert rows_with_ink >= 7
