"""The editor keeps appended lines joined ``PACK`` at a time: the output must be what
one string per line gave, the text's own line ending between them, at every count around
the packing bound, with and without the compiled splice."""

from __future__ import annotations

import pytest

from llnoalias.ir import editor
from llnoalias.ir.editor import Editor
from llnoalias.ir.source import SourceFile

TEXTS = ["define void @f() {\n  ret void\n}\n", "no final newline", "a\r\nb\r\n", "a\r\nno final", ""]


def _expected(text: str, lines: list[str], nl: str) -> str:
    out = text[:2] + "X" + text[2:] if text else "X"
    if not lines:
        return out
    return out + (nl if text and not text.endswith("\n") else "") + nl.join(lines) + nl


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("count", [0, 1, 2, 3, 4, 6, 7, 10])
def test_around_the_bound(text: str, count: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(editor, "PACK", 3)
    src = SourceFile("t.ll", text)
    ed = Editor(src)
    ed.insert(min(2, len(text)), "X")
    lines = [f"!{i} = !{{}}" for i in range(count)]
    for line in lines:
        ed.append_line(line)
    want = _expected(text, lines, src.newline)
    assert ed.render() == want
    assert "".join(ed.chunks()) == want
    data = ed.encoded()
    assert data is None or data == want.encode("ascii")


@pytest.mark.parametrize("count", [editor.PACK - 1, editor.PACK, editor.PACK + 1, 2 * editor.PACK + 5])
def test_real_bound(count: int) -> None:
    text = "; m\r\n"
    ed = Editor(SourceFile("t.ll", text))
    lines = [f'!{i} = distinct !{{!{i}, !"k{i}"}}' for i in range(count)]
    for line in lines:
        ed.append_line(line)
    assert ed.changed
    assert len(ed.appended) == count % editor.PACK
    want = text + "\r\n".join(lines) + "\r\n"
    assert ed.render() == want == "".join(ed.chunks())


def test_only_appended_lines_change_it() -> None:
    """No edits, packed lines only (none pending): still changed, still written."""
    ed = Editor(SourceFile("t.ll", "x\n"))
    assert not ed.changed and ed.render() == "x\n"
    for i in range(editor.PACK):
        ed.append_line(f"!{i} = !{{}}")
    assert ed.appended == [] and ed.changed
    assert ed.render().endswith(f"\n!{editor.PACK - 1} = !{{}}\n")


def test_non_ascii_line_takes_the_python_way() -> None:
    ed = Editor(SourceFile("t.ll", "x\n"))
    for i in range(editor.PACK + 1):
        ed.append_line(f'!{i} = !{{!"\u00e9{i}"}}')
    assert ed.encoded() is None
    assert ed.render().count("\u00e9") == editor.PACK + 1


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("sizes", [[0], [1], [2, 1], [3], [4], [1, 5, 2], [2, 2, 2, 2], [7, 0, 3]])
def test_append_lines_is_append_line_each(text: str, sizes: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """``append_lines`` (a block at once) gives what ``append_line`` for each line gives,
    across the packing bound."""
    monkeypatch.setattr(editor, "PACK", 3)
    src = SourceFile("t.ll", text)
    blocks, n = [], 0
    for size in sizes:
        blocks.append([f"!{n + i} = !{{}}" for i in range(size)])
        n += size
    one, many = Editor(src), Editor(src)
    for block in blocks:
        for line in block:
            one.append_line(line)
        many.append_lines(block)
    want = "".join(one.chunks())
    assert many.render() == want == one.render()
    assert len(many.appended) < 3 + max(sizes)  # packed as it went
    assert many.changed == bool(n)
