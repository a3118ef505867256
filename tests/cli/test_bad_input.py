"""Bad input: a clear ``FILE:LINE:COL: error:`` message, exit status 2, no output touched.

Where each error must be reported is written in the error fixtures (``fixtures/errors/``,
checked by tests/ir/test_error_fixtures.py); this file holds what is not one file's one
error: inputs that are no text, near misses that are not errors, the shown source line."""

from __future__ import annotations

from llnoalias.transform.pipeline import annotate_text
from tests.support.run import run_cli

GOOD_HEAD = "target triple = \"amdgcn-amd-amdhsa\"\n@lds_a = external addrspace(3) global [0 x i8]\n"

def test_missing_input_file(tmp_path) -> None:
    res = run_cli([str(tmp_path / "nope.ll"), "-o", str(tmp_path / "o.ll")])
    assert res.exit_code == 2
    assert "llnoalias: error: cannot open" in res.stderr
    assert not (tmp_path / "o.ll").exists()


def test_bitcode_is_refused(tmp_path) -> None:
    src = tmp_path / "k.bc"
    src.write_bytes(b"BC\xc0\xde\x35\x14\x00\x00")
    res = run_cli([str(src)])
    assert res.exit_code == 2
    assert "bitcode" in res.stderr


def test_unknown_instructions_and_attributes_are_not_errors() -> None:
    text = GOOD_HEAD + (
        "define void @f(ptr addrspace(3) %p) #0 {\n"
        "  %x = frobnicate i32 7, !weird !{}\n"
        "  %y = load i8, ptr addrspace(3) %p, align 1, !mystery !0\n"
        "  ret void\n}\n"
        "attributes #0 = { \"whatever\"=\"1\" newattr(3) }\n!0 = !{}\n")
    res = annotate_text(text, "in.ll")
    assert res.text == text


def test_names_in_comments_and_strings_are_not_uses() -> None:
    text = GOOD_HEAD + (
        "define void @f() {\n"
        "entry:                ; preds = %nowhere, uses @nothing\n"
        "  call void asm sideeffect \"s_nop 0 ; @asm_text %asm_text\", \"\"()\n"
        "  ret void ; @nope %nope\n}\n")
    assert annotate_text(text, "in.ll").text == text


def test_a_long_source_line_is_shown_around_its_column() -> None:
    from llnoalias.diagnostics import SHOWN_WIDTH, Location, format_diagnostic

    line = "x" * 5000 + "BAD" + "y" * 5000
    text = format_diagnostic("error", "here", Location("f.ll", 1, 5001, line))
    _head, src, caret, _ = text.split("\n")
    assert len(src) <= SHOWN_WIDTH + 6 and src.startswith("...") and src.endswith("...")
    assert src[caret.index("^"):].startswith("BAD")
    # a short line is shown whole, the caret under its column
    text = format_diagnostic("error", "here", Location("f.ll", 1, 3, "abcdef"))
    assert text.split("\n")[1:3] == ["abcdef", "  ^"]
    # the end of a long line: cut on the left only
    text = format_diagnostic("error", "here", Location("f.ll", 1, 10000, "z" * 9999 + "Q"))
    _head, src, caret, _ = text.split("\n")
    assert src.startswith("...") and not src.endswith("...") and src[caret.index("^")] == "Q"
