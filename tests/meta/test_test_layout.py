"""The tests are laid out like the package: each folder of ``tests/`` (but ``meta``, ``scripts``
and ``support``) names a folder of ``llnoalias/``, each is a package, and a test imports what
it shares from ``tests/support/``, never from another test."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from tests.support.files import ROOT

TESTS = ROOT / "tests"
#: folders that test no package folder: the project itself, scripts/, and what tests share
OWN = {"meta", "scripts", "support"}


def _folders() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*") if p.is_dir() and "__pycache__" not in p.parts
                  and not p.relative_to(TESTS).parts[0].startswith(".")
                  and not (p.relative_to(TESTS).parts[0] == "support" and len(p.relative_to(TESTS).parts) > 1))


def test_each_folder_mirrors_a_package_folder() -> None:
    folders = _folders()
    assert len(folders) >= 10
    for d in folders:
        rel = d.relative_to(TESTS)
        assert (d / "__init__.py").is_file(), f"tests/{rel} is not a package"
        if rel.parts[0] not in OWN:
            assert (ROOT / "llnoalias" / rel / "__init__.py").is_file(), f"tests/{rel} names no llnoalias/{rel}"


@functools.cache
def _trees() -> list[tuple[Path, list[ast.AST]]]:
    """Every module of tests/ with the nodes of its syntax tree."""
    return [(p, list(ast.walk(ast.parse(p.read_text())))) for p in sorted(TESTS.rglob("*.py"))]


def test_no_test_imports_another_test() -> None:
    bad = []
    for path, nodes in _trees():
        for node in nodes:
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                if name.rpartition(".")[2].startswith("test_") or name == "conftest":
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert not bad, "import it from tests/support/ instead:\n" + "\n".join(bad)


def test_support_holds_no_tests() -> None:
    assert not list((TESTS / "support").rglob("test_*.py"))


def test_paths_come_from_support_files() -> None:
    """A path built from a test's own place breaks when the test moves: ``ROOT``,
    ``FIXTURES`` and ``DATA`` come from ``tests/support/files.py``, the one file that may."""
    users = [p.relative_to(ROOT).as_posix() for p, nodes in _trees()
             if p != TESTS / "support" / "files.py" and any(isinstance(n, ast.Name) and n.id == "__file__" for n in nodes)]
    assert not users, users
