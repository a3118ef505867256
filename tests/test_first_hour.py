"""A new user's first hour (issue 24): the command line's frictions, each pinned.

Help that shows annotate's options, llc's spellings on ``compile``, errors instead of
silence for bad values, what ``--version`` says, plain text off a terminal, the report's
JSON, chained errors as one ``error:`` and ``note:`` lines, a quiet license field."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ packaging


def test_license_is_an_spdx_string_setuptools_takes_quietly() -> None:
    """setuptools >= 77 warns (a box, four times per install) about a ``license`` table;
    an SPDX string needs setuptools >= 77 at build time."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["project"]["license"] == "Apache-2.0"
    req = [r for r in data["build-system"]["requires"] if r.startswith("setuptools")]
    assert req == ["setuptools>=77"]
    assert sys.version_info >= (3, 11)


# ------------------------------------------------------------------ the report's JSON

KERNEL = """target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b, i32 %n) {
  %v = load i32, ptr addrspace(1) %a, align 4
  store i32 %v, ptr addrspace(1) %b, align 4
  ret void
}
"""


def test_report_to_json_is_text_and_as_dict_the_same_document(tmp_path: Path) -> None:
    import json

    import llnoalias
    from llnoalias.cli.entry import main

    report = llnoalias.annotate(KERNEL, path="k.ll").report
    text = report.to_json()
    assert isinstance(text, str)
    doc = report.as_dict()
    assert isinstance(doc, dict) and doc["schema"] == "llnoalias.report/1"
    assert json.loads(text) == doc and doc["summary"]["tagged"] == 2
    # --report writes exactly that text
    src = tmp_path / "k.ll"
    src.write_text(KERNEL)
    text = llnoalias.annotate(KERNEL, path=str(src)).report.to_json()
    with pytest.raises(SystemExit) as done:
        main([str(src), "--no-verify", "-o", str(tmp_path / "out.ll"), "--report", str(tmp_path / "r.json")])
    assert not done.value.code
    assert (tmp_path / "r.json").read_text() == text + "\n"
