"""docs/ci.md and .pre-commit-hooks.yaml agree with the code: the hook runs the gate as
written, and every llnoalias command line in the CI snippets takes the options it is given."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.files import DATA, ROOT

DATA = DATA / "asm"
CMD = [sys.executable, "-m", "llnoalias.cli"]


def _hooks() -> list[dict[str, object]]:
    """.pre-commit-hooks.yaml read as the flat list of mappings it is (no YAML package in CI):
    ``key: value`` scalars and ``[a, b]`` flow lists."""
    hooks: list[dict[str, object]] = []
    for line in (ROOT / ".pre-commit-hooks.yaml").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.fullmatch(r"(- |  )(\w+): (.*)", line)
        assert m, f"not read: {line!r}"
        if m.group(1) == "- ":
            hooks.append({})
        value: object = m.group(3)
        if isinstance(value, str) and value.startswith("["):
            value = [v.strip() for v in value.strip("[]").split(",")]
        elif value in ("true", "false"):
            value = value == "true"
        hooks[-1][m.group(2)] = value
    return hooks


@pytest.mark.slow
def test_the_gate_hook_runs_the_gate_as_pre_commit_would(tmp_path: Path) -> None:
    (hook,) = _hooks()
    assert hook["id"] == "llnoalias-gate" and hook["language"] == "python"
    assert hook["pass_filenames"] is True and hook["require_serial"] is True
    files = re.compile(str(hook["files"]))
    assert files.search("out/k.s") and files.search("k.ptx") and not files.search("k.ll")
    entry = shlex.split(str(hook["entry"]))
    assert entry[0] == "llnoalias"
    args = list(hook["args"])  # type: ignore[call-overload]
    assert args[0] == "--baseline"
    shutil.copy(DATA / "gate_annotated.s", tmp_path / "k.s")
    run = [*CMD, *entry[1:], *args]
    first = subprocess.run([*run, "--update", "k.s"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    assert (tmp_path / args[1]).exists()
    assert subprocess.run([*run, "k.s"], cwd=tmp_path, capture_output=True, timeout=300).returncode == 0
    shutil.copy(DATA / "gate_plain.s", tmp_path / "k.s")  # more waits: the commit is refused
    assert subprocess.run([*run, "k.s"], cwd=tmp_path, capture_output=True, timeout=300).returncode == 1


def _help_options(words: list[str]) -> set[str]:
    out = subprocess.run([*CMD, *words, "--help"], capture_output=True, text=True, timeout=300).stdout
    return set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", out))


@pytest.mark.slow
def test_every_command_line_in_docs_ci_takes_its_options() -> None:
    text = (ROOT / "docs" / "ci.md").read_text()
    lines = [ln for ln in re.findall(r"llnoalias (?:compile|gate|stats|explain|\"\$ll\")[^\n]*", text)]
    assert len(lines) >= 5
    known = {cmd: _help_options([cmd]) for cmd in ("compile", "gate")}
    known["annotate"] = _help_options(["annotate"])
    for line in lines:
        line = line.split("#")[0].split(";")[0]
        words = line.split()
        cmd = words[1] if words[1] in known else "annotate"
        for word in words[2:]:
            if word.startswith("-") and word != "-":
                assert word.split("=")[0] in known[cmd], f"docs/ci.md: {cmd} has no {word}: {line}"
