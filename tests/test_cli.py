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
