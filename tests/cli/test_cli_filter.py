"""llnoalias as a filter: with no arguments and IR on a pipe it annotates stdin to stdout,
as `clang ... -o - | llnoalias | llc` expects."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support.files import FIXTURES


def _run(args: list[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "llnoalias", *args], input=data, capture_output=True, timeout=60)


def test_no_arguments_reads_the_pipe() -> None:
    data = open(os.path.join(FIXTURES, "lds", "two_bases_int.ll"), "rb").read()
    res = _run([], data)
    assert res.returncode == 0, res.stderr
    assert b"!alias.scope" in res.stdout
    assert res.stdout.startswith(data.split(b"\n  %tid")[0])


def test_empty_input_is_an_empty_module() -> None:
    res = _run(["--no-verify"], b"")
    assert res.returncode == 0, res.stderr
    assert res.stdout == b""


def test_dash_is_stdin() -> None:
    res = _run(["-", "--no-verify"], b"define void @f() {\n  ret void\n}\n")
    assert res.returncode == 0
    assert res.stdout == b"define void @f() {\n  ret void\n}\n"
