"""Running llnoalias from a test: the command line in-process, a script of ``scripts/`` as a
module, and a snippet in a fresh interpreter without the compiled parts."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass
from types import ModuleType

from click.testing import CliRunner

from .files import ROOT


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
