"""The README's two set-up commands are the ones CI runs."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands():
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```bash\n(.+?)\n```", text, flags=re.S)[:2]


def test_readme_has_install_and_test_commands_at_the_top():
    main_job, tests = _readme_commands()
    assert "pip install" in main_job and main_job.strip().endswith("symgauss report")
    assert "pip install" in tests and "pytest" in tests
    head = (ROOT / "README.md").read_text().split("\n## ")[0]
    assert main_job in head and tests in head


def test_ci_runs_the_readme_test_command_word_for_word():
    _, tests = _readme_commands()
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests.strip() in ci
    assert '"$rc" -eq 5' in ci  # pytest's "no tests collected" is a failure


def test_readme_python_session_runs_and_says_what_it_claims():
    """The README's Python session runs, and each commented result is what it prints."""
    block = re.search(r"```python\n(.+?)\n```", (ROOT / "README.md").read_text(), flags=re.S)
    assert block, "the README has no Python session"
    namespace = {}
    exec(compile(block.group(1), "README.md", "exec"), namespace)  # noqa: S102 (our own README)
    sg = namespace["sg"]
    assert sg.equilibria(namespace["p"])[0].cov == (("1", "0"), ("0", "3"))
    assert sg.check(namespace["cert"]).status == "verified"
