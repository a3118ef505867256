"""Where things are: the repository, the fixtures, the tests' own data, and the fixture lists
that tests are parametrized over."""

from __future__ import annotations

import glob
import os
import shlex
from pathlib import Path

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.ir.model import Module
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile

#: the repository (the folder that holds ``llnoalias/``, ``tests/``, ``fixtures/``)
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = os.path.join(ROOT, "fixtures")
#: the tests' own inputs: assembly (``asm/``) and modules no fixture has
DATA = ROOT / "tests" / "support" / "data"
#: mutants that once failed a fuzz test, replayed by ``tests/transform/test_fuzz.py``
FUZZ_CORPUS = ROOT / "tests" / "support" / "fuzz_corpus"

#: every fixture and corpus file and the test data: the compiled parts are held to their
#: Python references on all of them
LL_FILES = sorted({*ROOT.glob("fixtures/**/*.ll"), *DATA.glob("**/*.ll")})


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
    tests/ir/test_error_fixtures.py) for a test that needs modules llnoalias reads."""
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
