"""Input that llvmlite's LLVM rejects is an error located in the input file
(``backends/input_error.py``, design section 6): a parse error's ``<string>:LINE:COL`` is the
input's line (the bridge keeps lines), a verifier error is found by what it prints."""

from __future__ import annotations

import pytest

from llnoalias.backends.child_result import CheckResult
from llnoalias.backends.input_error import input_error, newer_rules
from llnoalias.backends.llvmlite_backend import check_module

MISMATCH = "define i32 @f(i32 %a) {\n  %x = add i64 %a, 1\n  ret i32 %x\n}\n"
RANGE = ("define i32 @f(ptr %p) {\n  %y = load i32, ptr %p\n  %x = load i32, ptr %p, !range !0\n  ret i32 %x\n}\n"
         "!0 = !{i64 0, i64 4}\n")
CUT = "define void @f() {\n  ret void\n}\n!7 = "
CODE_OBJECT = "define i32 @f() {\n  ret i32 CODE_OBJECT_VERSION\n}\n"


@pytest.mark.parametrize(("text", "line", "col", "fragment"), [
    (MISMATCH, 2, 16, "'%a' defined with type 'i32' but expected 'i64'"),
    (CUT, 4, 6, "Expected '!' here"),
    (CODE_OBJECT, 2, 11, "expected value token"),
    (RANGE, 3, 3, "Range types must match instruction type"),
])
def test_what_llvm_rejects_is_located_in_the_input(text: str, line: int, col: int, fragment: str) -> None:
    res = check_module(text, text)
    assert res.input_rejected
    err = input_error(res, text, "in.ll")
    assert err.location is not None
    assert (err.location.path, err.location.line, err.location.col) == ("in.ll", line, col)
    assert fragment in err.message and "<string>" not in err.message
    assert err.location.source_line == text.splitlines()[line - 1]


def test_a_good_module_is_not_rejected() -> None:
    text = "define void @f() {\n  ret void\n}\n"
    assert not check_module(text, text).input_rejected


def test_what_could_not_be_checked_is_no_rejection() -> None:
    # the bridge named a construct LLVM 22 lacks, or the child died: no verdict on the input
    assert not CheckResult(stage="bridge", input_message="the module calls 'llvm.x'").input_rejected
    assert not CheckResult(crashed=True, stage="parse-input").input_rejected
    assert not CheckResult(timed_out=True, stage="parse-input").input_rejected


def test_a_column_on_a_line_the_bridge_changed_is_the_tokens_in_the_input() -> None:
    text = "define void @f() {\n  %v = fadd float f0x3F800000, bad\n  ret void\n}\n"
    bridged = "define void @f() {\n  %v = fadd float 0x3FF0000000000000, bad\n  ret void\n}\n"
    res = CheckResult(input_message="<string>:2:39: error: expected value token", stage="done",
                      input_detail="<string>:2:39: error: expected value token\n  ...\n",
                      rewrites=("float-bits-literal",))
    err = input_error(res, text, "in.ll", bridged)
    assert err.location is not None and (err.location.line, err.location.col) == (2, 32)
    assert text.splitlines()[1][31:] == "bad"
    assert any("float-bits-literal" in n for n in err.notes)


def test_a_byte_column_past_non_ascii_text_is_a_character_column() -> None:
    text = 'define void @f() {\n  call void asm "\u00e9\u00e9", ""() bad\n  ret void\n}\n'
    res = check_module(text, text)
    assert res.input_rejected
    err = input_error(res, text, "in.ll")
    assert err.location is not None and text.splitlines()[1][err.location.col - 1:].startswith("bad")


@pytest.mark.parametrize(("message", "rules"), [
    ("target-features attribute should not contain an empty string\n", ["empty-target-features"]),
    ("calling convention does not permit calls\n  call amdgpu_kernel void @callee(ptr addrspace(1) %out)\n",
     ["call-to-kernel"]),
    ("Intrinsic has incorrect argument type!\nptr @llvm.amdgcn.s.barrier.init\n"
     "Intrinsic has incorrect return type!\nptr @llvm.amdgcn.s.barrier.leave\n", ["amdgcn-named-barrier-signatures"]),
    # the same messages about anything else, or with an error no rule names, are errors of the input
    ("Intrinsic has incorrect argument type!\nptr @llvm.amdgcn.raw.buffer.load\n", None),
    ("calling convention does not permit calls\n  call amdgpu_gfx void @callee()\n", None),
    ("target-features attribute should not contain an empty string\nRange types must match instruction type!\n"
     "  %x = load i32, ptr %p, align 4, !range !0\n", None),
])
def test_only_rules_llvm19_lacks_let_a_rejected_input_go_on(message: str, rules: list[str] | None) -> None:
    res = CheckResult(input_readable=True, input_message=message.splitlines()[0], input_detail=message, stage="done")
    assert res.input_rejected
    assert newer_rules(res) == rules


def test_a_parse_error_is_never_a_newer_rule() -> None:
    res = CheckResult(input_message="<string>:1:1: error: target-features attribute should not contain an empty "
                      "string", stage="done")
    assert newer_rules(res) is None


def test_a_verifier_error_about_a_declared_function_points_at_its_declaration() -> None:
    text = "declare void @llvm.amdgcn.s.barrier.init(ptr addrspace(3), i32)\ndeclare void @g()\n"
    res = CheckResult(input_readable=True, stage="done", input_message="Intrinsic has incorrect argument type!",
                      input_detail="Intrinsic has incorrect argument type!\nptr @g\n")
    err = input_error(res, text, "in.ll")
    assert err.location is not None and err.location.line == 2
