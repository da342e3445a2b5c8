"""Running ``coqc`` on an exported file: the library compiled once into a cache, then the file.

A run is accepted only when ``coqc`` succeeds and ``Print Assumptions certificate`` lists
nothing but the documented facts: the dynamical facts of ``coq/SymGauss/Dynamics.v``
(:data:`DYNAMICAL`) and Coq's primitive 63-bit integers with their specification axioms
(``PrimInt63.*``, ``Uint63.*``; the Bignums library computes with them).
"""
from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from symgauss.export.coq import LIBRARY

LIB_DIR = Path(__file__).resolve().parents[2] / "coq" / "SymGauss"
#: the named facts of Dynamics.v (parameters naming dynamical properties, and the axioms)
DYNAMICAL = frozenset({
    "Stable", "MeanStable", "Attracts", "Unstable", "SwitchedStable", "RobustAttracts",
    "StableInRange", "AttractsInRange", "Unreachable",
    "lyapunov_svec", "lyapunov_riccati", "lyapunov_mean", "bernoulli_global",
    "inertia_instability", "common_lyapunov", "robust_vertices", "range_stable",
    "range_attracts", "rank_invariance", "Flow", "flow_nil", "flow_translation",
    "flow_bernoulli"})
PRIMITIVE = ("PrimInt63.", "Uint63.")
INSTALL = "install Coq 8.16 with the Bignums library (Debian: apt-get install coq libcoq-bignums)"


@dataclass(frozen=True)
class CoqRun:
    ok: bool
    seconds: float
    assumptions: tuple      # the names Print Assumptions listed
    message: str


def missing_reason() -> str | None:
    """Why ``coqc`` cannot check an exported file here (None when it can)."""
    if shutil.which("coqc") is None:
        return f"coqc is not installed ({INSTALL})"
    if not LIB_DIR.is_dir():
        return f"the Coq library {LIB_DIR} is missing (use a checkout of the repository)"
    return None


def _cache_root() -> Path:
    base = os.environ.get("SYMGAUSS_CACHE") or os.environ.get("XDG_CACHE_HOME") \
        or str(Path.home() / ".cache")
    return Path(base) / "symgauss" / "coq"


def _coqc(args, cwd, timeout):
    return subprocess.run(["coqc", "-q", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


@functools.lru_cache(maxsize=1)
def _coqc_version() -> str:
    return subprocess.run(["coqc", "--version"], capture_output=True, text=True).stdout


def library(timeout: float = 600) -> Path:
    """The compiled library (compiled once per source version and coqc, in a cache)."""
    digest = hashlib.sha256(_coqc_version().encode())
    for name in LIBRARY:
        digest.update((LIB_DIR / f"{name}.v").read_bytes())
    target = _cache_root() / digest.hexdigest()[:16] / "SymGauss"
    if (target / f"{LIBRARY[-1]}.vo").exists():
        return target
    target.parent.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent.parent)) / "SymGauss"
    tmp.mkdir()
    for name in LIBRARY:
        shutil.copy(LIB_DIR / f"{name}.v", tmp / f"{name}.v")
        r = _coqc(["-R", ".", "SymGauss", f"{name}.v"], tmp, timeout)
        if r.returncode:
            raise RuntimeError(f"the Coq library does not compile ({name}.v): "
                               f"{' '.join((r.stderr or r.stdout).split())[:300]}")
    try:
        tmp.parent.rename(target.parent)
    except OSError:          # compiled meanwhile by another process: use theirs if complete
        if not (target / f"{LIBRARY[-1]}.vo").exists():
            return tmp
        shutil.rmtree(tmp.parent, ignore_errors=True)
    return target


def assumptions(stdout: str) -> tuple:
    """The names listed by ``Print Assumptions`` (its unindented lines after 'Axioms:')."""
    names, on = [], False
    for line in stdout.splitlines():
        if line.startswith("Axioms:"):
            on = True
        elif on and line and not line[0].isspace():
            names.append(line.split(" :", 1)[0].strip())
    return tuple(names)


def undocumented(names) -> list:
    return [n for n in names if n not in DYNAMICAL and not n.startswith(PRIMITIVE)]


def check_text(text: str, timeout: float = 600) -> CoqRun:
    """Compile an exported file's text with coqc against the library; accept or say why not."""
    lib = library(timeout)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "Certificate.v").write_text(text, encoding="utf-8")
        t0 = time.perf_counter()
        try:
            r = _coqc(["-R", str(lib), "SymGauss", "Certificate.v"], tmp, timeout)
        except subprocess.TimeoutExpired:
            return CoqRun(False, timeout, (), f"coqc did not finish within {timeout:.0f} s")
        seconds = time.perf_counter() - t0
    if r.returncode:
        return CoqRun(False, seconds, (), "coqc rejected the file: " +
                      " ".join((r.stderr or r.stdout).split())[:400])
    names = assumptions(r.stdout)
    if "Closed under the global context" not in r.stdout and not names:
        return CoqRun(False, seconds, (), "coqc printed no assumptions list for 'certificate'")
    extra = undocumented(names)
    if extra:
        return CoqRun(False, seconds, names, "the main theorem rests on undocumented "
                      f"assumptions: {', '.join(extra)}")
    facts = sorted(n for n in names if n in DYNAMICAL)
    return CoqRun(True, seconds, names, f"checked by coqc in {seconds:.1f} s; assumptions: "
                  f"{', '.join(facts)} (Dynamics.v) and Coq's primitive integers")
