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
