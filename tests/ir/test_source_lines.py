"""Line numbers the short way: ``SourceFile.line_of`` and ``Instruction.line`` bisect the
line starts themselves (one call, not ``Function.line_of`` -> ``line_col``); both must give
the line that counting newlines gives, on every fixture and at every offset of odd texts."""

from __future__ import annotations

from array import array

import pytest

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.fileio import decode
from llnoalias.ir.lines import Lines
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from tests.support.files import all_fixtures, fixture_id

PATHS = all_fixtures()

TEXTS = ["", "\n", "a", "a\n", "\n\n", "ab\ncd", "ab\ncd\n", "ab\r\ncd\r\n\r\nx", "\ufeffx\ny\n\n\nlast"]


def _counted(text: str, offset: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


@pytest.mark.parametrize("adopted", [False, True])
@pytest.mark.parametrize("text", TEXTS)
def test_every_offset(text: str, adopted: bool) -> None:
    src = SourceFile("t.ll", text)
    if adopted:  # the parser's array of starts, as ``parse_module`` hands it over
        src.adopt_line_starts(Lines(text).starts)
        assert isinstance(src.line_starts, array)
    for offset in range(len(text) + 1):
        want = _counted(text, offset)
        assert src.line_col(offset) == want
        assert src.line_of(offset) == want[0]


def test_line_of_before_any_other_use() -> None:
    """``line_of`` builds the starts itself when nothing asked for them first."""
    src = SourceFile("t.ll", "a\nb\nc")
    assert src.line_of(4) == 3
    assert list(src.line_starts) == [0, 2, 4]


@pytest.mark.parametrize("path", PATHS, ids=[fixture_id(p) for p in PATHS])
def test_instruction_lines(path: str) -> None:
    text = decode(open(path, "rb").read())
    try:
        mod = parse_module(SourceFile("in.ll", text))
    except LLNoaliasError:
        return
    for fn in mod.functions:
        for inst in fn.instrs:
            line = text.count("\n", 0, inst.start) + 1
            assert inst.line == line == fn.line_of(inst.start) == mod.source.line_col(inst.start)[0]


def test_instruction_without_source() -> None:
    src = SourceFile("t.ll", "define void @f() {\n  ret void\n}\n")
    fn = parse_module(src).functions[0]
    fn.source = None
    assert [i.line for i in fn.instrs] == [0]
    assert fn.line_of(5) == 0
