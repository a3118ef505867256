"""Function bodies read where they are used (``parse_module_deferred``, issue 13): a large
module split between processes has each body read by the process that analyses it. A body
read later is the body the one-pass parse reads; a bad module is reported as the one-pass
parse reports it; and the parent leaves unread the bodies a worker analysed."""

from __future__ import annotations

import glob
import os

import pytest
from conftest import FIXTURES

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.ir.model import Function
from llnoalias.ir.parser import BodyMismatch, parse_module, parse_module_deferred
from llnoalias.ir.source import SourceFile

ROOT = os.path.dirname(FIXTURES)
FILES = sorted({*glob.glob(os.path.join(FIXTURES, "**", "*.ll"), recursive=True),
                *glob.glob(os.path.join(ROOT, "tests", "data", "**", "*.ll"), recursive=True)})


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def _body(fn: Function) -> tuple[object, ...]:
    return ([(i.name, i.opcode, i.start, i.end, i.opstart) for i in fn.instrs], sorted(fn.by_name),
            list(fn.blocks), list(fn.block_offsets))


def _error(text: str) -> str | None:
    try:
        parse_module(SourceFile("t.ll", text))
    except LLNoaliasError as e:
        return e.format()
    return None


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_a_body_read_later_is_the_body_read_at_once(path: str) -> None:
    """Every fixture and corpus file: the same functions, each body (read in reverse
    order, so none is read where the one-pass parse reads it) the same, and the same
    verdict on the whole module."""
    text = _read(path)
    want = _error(text)
    try:
        mod, bodies = parse_module_deferred(SourceFile(path, text))
        for fn in reversed(mod.functions):
            fn.instrs  # noqa: B018 - read the body
        bodies.check()
    except (LLNoaliasError, BodyMismatch) as e:
        # the deferred parse may stop elsewhere; it must not pass a module the one-pass
        # parse rejects, nor reject one it passes other than by a body that ends elsewhere
        assert want is not None or isinstance(e, BodyMismatch), (path, e)
        return
    assert want is None, (path, want)
    one = parse_module(SourceFile(path, text))
    assert [f.name for f in mod.functions] == [f.name for f in one.functions]
    for a, b in zip(mod.functions, one.functions, strict=True):
        assert not a.body_pending
        assert _body(a) == _body(b), (path, a.name)
