"""Shared helpers for the test suite: running the CLI in-process and finding fixtures."""

from __future__ import annotations

import glob
import importlib.util
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.ir.model import Module
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures")


def load_script(name: str) -> ModuleType:
    """``scripts/NAME.py`` imported as the module ``NAME`` (the benchmarks are scripts, not
    part of the package; their tests call their functions)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "scripts", f"{name}.py"))
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def assert_pure_mode(code: str) -> None:
    """``code`` runs without an error in a fresh interpreter with ``LLNOALIAS_PURE=1``
    (which must keep the compiled parts from being loaded at all)."""
    proc = subprocess.run([sys.executable, "-c", code], env={**os.environ, "LLNOALIAS_PURE": "1"},
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


#: every fixture and corpus file and the test data: the compiled parts are held to their
#: Python references on all of them
LL_FILES = sorted({*Path(ROOT).glob("fixtures/**/*.ll"), *Path(ROOT).glob("tests/data/**/*.ll")})


def ll_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def parse_or_none(text: str, path: str = "t.ll") -> Module | None:
    """The parsed module, or None for a file that is bad input on purpose."""
    try:
        return parse_module(SourceFile(path, text))
    except LLNoaliasError:
        return None


def all_fixtures(errors: bool = True) -> list[str]:
    """Every fixture; without ``fixtures/errors/`` (bad input on purpose, each checked by
    tests/test_error_fixtures.py) for a test that needs modules llnoalias reads."""
    paths = sorted(glob.glob(os.path.join(FIXTURES, "**", "*.ll"), recursive=True))
    if errors:
        return paths
    return [p for p in paths if os.path.relpath(p, FIXTURES).split(os.sep)[0] != "errors"]


def fixture_id(path: str) -> str:
    return os.path.relpath(path, FIXTURES)


def run_lines(path: str) -> list[list[str]]:
    """The ``; RUN: llnoalias ARGS %s`` lines of a fixture, as argument lists."""
    out: list[list[str]] = []
    with open(path, "rb") as fh:
        for raw in fh.read().decode("utf-8", "surrogateescape").splitlines():
            line = raw.strip()
            if line.startswith("; RUN:"):
                words = shlex.split(line[len("; RUN:"):])
                assert words and words[0] == "llnoalias", f"{path}: RUN lines start with 'llnoalias'"
                out.append([path if w == "%s" else w for w in words[1:]])
    return out


@dataclass
class Result:
    exit_code: int
    stdout: bytes
    stderr: str


def run_cli(args: list[str], input_bytes: bytes | None = None) -> Result:
    from llnoalias.cli import cli

    runner = CliRunner()
    res = runner.invoke(cli, args, input=input_bytes, catch_exceptions=False)
    return Result(res.exit_code, res.stdout_bytes, res.stderr)


@pytest.fixture
def cli_run():
    return run_cli
