"""The layout rules of CONTRIBUTING.md, each a test that fails when the rule is broken.

The import graph is read with ``ast`` from the source (every ``import`` statement, at module
level or inside a function), so a lazy import counts like any other.
"""
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "symgauss"
SOLVERS = {"cvxpy", "scipy", "sympy", "mpmath", "numpy", "torch", "clarabel", "scs", "dask",
           "matplotlib", "transformers", "tqdm"}
MAX_LINES = 600


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


MODULES = modules()


def imports(name: str):
    """(imported module, imported names, line) for every import statement of module ``name``."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, (), node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            names = tuple(a.name for a in node.names)
            yield base, names, node.lineno
            for n in names:  # ``from symgauss.x import y`` where y is a module
                if f"{base}.{n}" in MODULES:
                    yield f"{base}.{n}", (), node.lineno


def symgauss_edges(name: str) -> set:
    """Modules of symgauss that ``name`` imports (a package's __init__ counts as itself)."""
    return {m for m, _, _ in imports(name) if m in MODULES and m != name}


def find_cycle(graph: dict):
    colour, stack = {}, []

    def visit(u):
        colour[u] = 1
        stack.append(u)
        for v in sorted(graph[u]):
            if colour.get(v) == 1:
                return stack[stack.index(v):] + [v]
            if v not in colour:
                found = visit(v)
                if found:
                    return found
        colour[u] = 2
        stack.pop()
        return None

    for u in sorted(graph):
        if u not in colour:
            found = visit(u)
            if found:
                return found
    return None


def test_the_import_reader_sees_lazy_and_relative_imports(tmp_path):
    """The rule checks below can fail: the reader finds an import inside a function."""
    cycle = find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}})
    assert cycle == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    lazy = [m for m, _, _ in imports("symgauss.cli.check")]
    assert "symgauss.kernel.checker" in lazy  # imported inside run()


def test_no_import_cycles():
    graph = {m: symgauss_edges(m) for m in MODULES}
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


def test_the_kernel_imports_only_itself_the_standard_library_and_flint():
    bad = []
    for name in MODULES:
        if not name.startswith("symgauss.kernel"):
            continue
        for mod, _, line in imports(name):
            top = mod.split(".")[0]
            if mod.startswith("symgauss") and not mod.startswith("symgauss.kernel"):
                bad.append(f"{name}:{line} imports {mod}")
            elif top in SOLVERS or (top not in sys.stdlib_module_names
                                    and top not in ("flint", "symgauss", "__future__")):
                bad.append(f"{name}:{line} imports {mod}")
    assert not bad, bad


def _package_of(name: str) -> str:
    path = MODULES[name]
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def test_no_private_names_across_packages():
    """``from symgauss.x.y import _z`` and ``y._z`` only inside the package that defines ``_z``."""
    bad = []
    for name, path in MODULES.items():
        here = _package_of(name)
        aliases = {}
        for mod, names, line in imports(name):
            if not mod.startswith("symgauss") or mod not in MODULES:
                continue
            there = _package_of(mod)
            for n in names:
                if n.startswith("_") and not n.startswith("__") and there != here:
                    bad.append(f"{name}:{line} imports {n} from {mod}")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):  # module aliases: from symgauss.kernel.kinds import stability
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("symgauss"):
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    if full in MODULES:
                        aliases[a.asname or a.name] = full
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("symgauss"):
                        aliases[a.asname or a.name] = a.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                    and not node.attr.startswith("__") and isinstance(node.value, ast.Name) \
                    and node.value.id in aliases and _package_of(aliases[node.value.id]) != here:
                bad.append(f"{name}:{node.lineno} uses {node.value.id}.{node.attr}")
    assert not bad, bad


def test_no_module_over_600_lines():
    long = {n: len(p.read_text(encoding="utf-8").splitlines()) for n, p in MODULES.items()}
    assert not {n: k for n, k in long.items() if k > MAX_LINES}


def test_no_dead_code(tmp_path):
    """vulture (dev extra) finds no unused function, class, variable or import."""
    dead = tmp_path / "dead.py"
    dead.write_text("def never_called():\n    return 1\n")
    probe = subprocess.run([sys.executable, "-m", "vulture", str(dead)], capture_output=True,
                           text=True)
    assert "never_called" in probe.stdout, probe.stdout + probe.stderr  # the tool can fail
    out = subprocess.run([sys.executable, "-m", "vulture", "symgauss", "tests", "benchmarks",
                          "--min-confidence", "60"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and not out.stdout.strip(), out.stdout + out.stderr


def test_nothing_names_a_path_outside_the_repository():
    pattern = ("/work/", "/home/", "/root/", "/tmp/", "/opt/", "C:\\")
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    bad = []
    for rel in files:
        p = ROOT / rel
        if p.name == "test_layout.py" or not p.is_file():
            continue
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        bad += [f"{rel}: {s}" for s in pattern if s in text]
    assert not bad, bad
