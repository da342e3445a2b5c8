"""The installed ``symgauss`` command, run as a user runs it (a separate process)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(sys.executable).parent / "symgauss"


def test_the_console_script_and_python_m_start():
    for cmd in ([str(SCRIPT), "--help"], [sys.executable, "-m", "symgauss", "--help"]):
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        assert out.returncode == 0, out.stderr
        assert "check" in out.stdout and "certify" in out.stdout


def test_help_loads_no_search_library():
    """What keeps `symgauss --help` fast (issue 14's 0.3 s, measured by
    benchmarks/bench_startup.py): the real command path imports none of the search libraries
    and no subcommand's implementation, only their argument parsers."""
    code = """
import contextlib, io, sys
from symgauss.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(["--help"])
    except SystemExit as e:
        assert e.code == 0, e.code
bad = sorted(m for m in sys.modules if m.split(".")[0] in ("cvxpy", "scipy", "sympy", "mpmath",
             "numpy", "torch", "dask", "matplotlib", "flint"))
loaded = sorted(m for m in sys.modules if m.startswith("symgauss.")
                and not m.startswith(("symgauss.cli.", "symgauss.kernel.errors")))
print(",".join(bad) + "|" + ",".join(loaded))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    bad, loaded = out.stdout.strip().split("|")
    assert bad == "", bad
    assert set(filter(None, loaded.split(","))) <= {"symgauss.cli", "symgauss.kernel"}, loaded
