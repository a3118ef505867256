"""FileCheck fixtures: every ``fixtures/**/*.ll`` with ``; CHECK`` lines is annotated with
the options of its ``; RUN:`` line and checked with the ``filecheck`` package.

Comment lines are dropped from the output before checking, so a ``; CHECK`` line (which
llnoalias keeps, like every comment) can never match itself.

A ``; RUN:`` line with ``--print-after STAGE`` checks the stage's printout instead of the
module (``fixtures/stages``): what stderr holds, as LLVM's ``-print-after`` tests check it.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.support.files import all_fixtures, fixture_id, run_lines
from tests.support.run import run_cli

CHECKED = [p for p in all_fixtures() if re.search(r"^\s*; CHECK", open(p, "rb").read().decode("utf-8", "replace"), re.M)]


def strip_comment_lines(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(";")) + "\n"


@pytest.mark.parametrize("path", CHECKED, ids=[fixture_id(p) for p in CHECKED])
def test_filecheck(path: str, tmp_path) -> None:
    runs = run_lines(path) or [[path]]
    for args in runs:
        res = run_cli([*args, "--no-verify"])
        assert res.exit_code == 0, res.stderr
        out = tmp_path / "out.ll"
        if any(a == "--print-after" or a.startswith("--print-after=") for a in args):
            checked = res.stderr
            assert checked.startswith("*** after "), f"no stage printout for {args}:\n{checked}"
        else:
            checked = strip_comment_lines(res.stdout.decode("utf-8", "surrogateescape"))
        out.write_bytes(checked.encode("utf-8", "surrogateescape"))
        proc = subprocess.run([sys.executable, "-m", "filecheck", path, "--input-file", str(out)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, f"FileCheck failed for {args}:\n{proc.stdout}{proc.stderr}"


def test_there_are_fixtures() -> None:
    assert len(CHECKED) >= 20
