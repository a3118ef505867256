"""``Editor.insert_many``: one text at many places is what ``insert`` at each gives, in
order among the edits at one place (lower orders first, then the earlier made), with and
without the compiled splice."""

from __future__ import annotations

from llnoalias.ir.editor import Editor
from llnoalias.ir.source import SourceFile

TEXT = "abc\ndef\nghi\n"


def _outputs(ed: Editor) -> list[str]:
    got = ["".join(ed.chunks()), ed.render()]
    data = ed.encoded()
    if data is not None:
        got.append(data.decode("ascii"))
    return got


def test_as_insert_at_each_place() -> None:
    one, many = Editor(SourceFile("t.ll", TEXT)), Editor(SourceFile("t.ll", TEXT))
    for ed in (one, many):
        ed.insert(7, "[first]", order=1)  # made before: stays first among those of order 1
    for at in (3, 7, 11, 7):
        one.insert(at, "!", order=1)
    many.insert_many([3, 7, 11, 7], "!", order=1)
    for ed in (one, many):
        ed.insert(7, "<0>")  # order 0: before the others at 7 though made after them
    assert many.edits == one.edits
    want = "abc!\ndef<0>[first]!!\nghi!\n"
    assert _outputs(many) == [want] * len(_outputs(many))
    assert _outputs(one) == _outputs(many)


def test_no_places_no_edit() -> None:
    ed = Editor(SourceFile("t.ll", TEXT))
    ed.insert_many([], "x")
    ed.insert_many(iter(()), "y", order=1)
    assert not ed.changed and ed.render() == TEXT


def test_the_default_order_is_insert_s() -> None:
    ed = Editor(SourceFile("t.ll", TEXT))
    ed.insert_many(range(0, 12, 4), "#")
    assert ed.edits == [(0, 0, 0, "#"), (4, 4, 0, "#"), (8, 8, 0, "#")]
    assert ed.render() == "#abc\n#def\n#ghi\n"
