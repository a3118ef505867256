"""Bad input: a clear ``FILE:LINE:COL: error:`` message, exit status 2, no output touched."""

from __future__ import annotations

import pytest
from conftest import run_cli

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.transform.pipeline import annotate_text

GOOD_HEAD = "target triple = \"amdgcn-amd-amdhsa\"\n@lds_a = external addrspace(3) global [0 x i8]\n"

CASES = [
    # (name, text, line, col, message fragment)
    ("not_ir", "hello world\n", 1, 1, "expected a top-level entity"),
    ("unclosed_body", GOOD_HEAD + "define void @f() {\n  ret void\n", 3, 1, "expected '}'"),
    ("stray_brace", GOOD_HEAD + "}\n", 3, 1, "unexpected '}'"),
    ("instruction_outside", GOOD_HEAD + "  %x = add i32 1, 2\n", 3, 3, "instruction outside of a function"),
    ("store_outside", GOOD_HEAD + "store i32 1, ptr null\n", 3, 1, "instruction outside of a function"),
    ("undefined_local", GOOD_HEAD + "define void @f() {\n  %x = add i32 %y, 1\n  ret void\n}\n", 4, 16,
     "use of undefined value '%y'"),
    ("undefined_global", GOOD_HEAD + "define void @f() {\n  store i8 0, ptr addrspace(3) @nope\n  ret void\n}\n",
     4, 32, "use of undefined value '@nope'"),
    ("redefined_value", GOOD_HEAD + "define void @f() {\n  %x = add i32 1, 1\n  %x = add i32 2, 2\n  ret void\n}\n",
     5, 3, "redefinition of value '%x'"),
    ("define_in_define", GOOD_HEAD + "define void @f() {\n  ret void\ndefine void @g() {\n  ret void\n}\n", 3, 1,
     "expected '}'"),
    ("undefined_global_after_comment", GOOD_HEAD + "define void @f() {\n  ret void ; not a use: @nope\n}\n"
     "define void @g() {\n  store i8 0, ptr addrspace(3) @nope\n  ret void\n}\n", 7, 32,
     "use of undefined value '@nope'"),
    ("redefined_label", GOOD_HEAD + "define void @f() {\nbb:\n  br label %bb\nbb:\n  ret void\n}\n", 6, 1,
     "redefinition of label '%bb'"),
    ("nul_byte", GOOD_HEAD + "define void @f() {\x00\n}\n", 3, 19, "NUL byte"),
]


@pytest.mark.parametrize("name,text,line,col,fragment", CASES, ids=[c[0] for c in CASES])
def test_error_position(name: str, text: str, line: int, col: int, fragment: str) -> None:
    with pytest.raises(LLNoaliasError) as info:
        annotate_text(text, "in.ll")
    err = info.value
    assert err.location is not None
    assert (err.location.line, err.location.col) == (line, col), err.format()
    assert fragment in err.message
    shown = err.format()
    assert shown.startswith(f"llnoalias: in.ll:{line}:{col}: error: ")
    assert shown.rstrip("\n").endswith("^")


@pytest.mark.parametrize("name,text,line,col,fragment", CASES, ids=[c[0] for c in CASES])
def test_cli_exit_2_and_output_untouched(tmp_path, name: str, text: str, line: int, col: int, fragment: str) -> None:
    src = tmp_path / "in.ll"
    src.write_bytes(text.encode("utf-8"))
    out = tmp_path / "out.ll"
    out.write_bytes(b"precious\n")
    res = run_cli([str(src), "-o", str(out)])
    assert res.exit_code == 2
    assert f"{src}:{line}:{col}: error:" in res.stderr
    assert out.read_bytes() == b"precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.ll", "out.ll"]


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
