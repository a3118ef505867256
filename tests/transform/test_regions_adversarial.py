"""Regions (design section 2b) under attack: IR shaped to make a too-small byte range, so
that two accesses whose bytes can overlap would be claimed noalias. Each test names the
two overlapping accesses and checks that no claim is made between them; the last ones
keep attacks that llnoalias already withstood."""

from __future__ import annotations

import pytest

from llnoalias.options import AnnotateOptions
from llnoalias.transform.pipeline import annotate_text
from tests.support.regions import claimed_noalias, scopes_of

AMD = 'target triple = "amdgcn-amd-amdhsa"\n'
FAR = "  %far = getelementptr i8, ptr addrspace(3) @smem, i32 60000\n  store i8 2, ptr addrspace(3) %far, align 1\n"


def _kernel(body: str, head: str = "", params: str = "i32 %n", attrs: str = "", tail: str = "") -> str:
    """``body`` runs with ``%t`` the thread id; a store far away gives the root a second
    region, so that any split of the buffer is claimed."""
    return (head + AMD + "@smem = external addrspace(3) global [0 x i8], align 16\n"
            f"define amdgpu_kernel void @k({params}) {attrs} {{\nentry:\n"
            "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n" + body + "\n" + FAR + "  ret void\n}\n"
            "declare i32 @llvm.amdgcn.workitem.id.x()\ndeclare i32 @llvm.amdgcn.workitem.id.y()\n" + tail)


def _claimed(text: str, a: str, b: str, **opts: object) -> bool:
    sc = scopes_of(annotate_text(text, options=AnnotateOptions(**opts)).text)  # type: ignore[arg-type]

    def one(s: str) -> tuple[frozenset[str], frozenset[str]]:
        keys = [k for k in sc if s in k]
        assert len(keys) == 1, (s, keys)
        return sc[keys[0]]

    return claimed_noalias(one(a), one(b))


def _with_store_at(body: str, at: int) -> str:
    return body + f"\n  %q = getelementptr i8, ptr addrspace(3) @smem, i32 {at}\n  store i8 1, ptr addrspace(3) %q, align 1"


# ------------------------------------------------------------------ unsound before

@pytest.mark.parametrize("layout", ["e-p3:16:16", "e-p3:32:32:32:16"])
def test_offsets_wrap_at_a_narrow_pointer_or_index_width(layout: str) -> None:
    # smem + 16384 * 4 = smem + 65536: the same byte as smem when the LDS pointer (or the
    # index added to its low bits) is 16 bits wide.
    body = ("  %p = getelementptr i32, ptr addrspace(3) @smem, i16 16384\n  %v = load i32, ptr addrspace(3) %p, align 4\n"
            "  store i32 %v, ptr addrspace(3) @smem, align 4")
    text = _kernel(body, head=f'target datalayout = "{layout}"\n')
    assert not _claimed(text, "%v = load", "store i32 %v")


def test_string_attribute_of_a_parameter_does_not_bound_the_thread_id() -> None:
    body = ("  %p = getelementptr i32, ptr addrspace(3) @smem, i32 %t\n  %v = load i32, ptr addrspace(3) %p, align 4\n"
            "  %q = getelementptr i8, ptr addrspace(3) @smem, i32 64\n  store i32 %v, ptr addrspace(3) %q, align 4")
    text = _kernel(body, params='i32 %n, ptr "amdgpu-flat-work-group-size"="1,4" %x')
    assert not _claimed(text, "%v = load", "store i32 %v")


def test_quoted_result_name_is_not_a_range_attribute() -> None:
    body = ('  %"range(i32 0, 4)" = call i32 @llvm.amdgcn.workitem.id.y()\n'
            '  %p = getelementptr i8, ptr addrspace(3) @smem, i32 %"range(i32 0, 4)"\n'
            "  %v = load i8, ptr addrspace(3) %p, align 1\n"
            "  %q = getelementptr i8, ptr addrspace(3) @smem, i32 100\n  store i8 %v, ptr addrspace(3) %q, align 1")
    assert not _claimed(_kernel(body), "%v = load", "store i8 %v")


@pytest.mark.parametrize("make", [
    # !range is broken by a call returning 100: poison, and freeze makes it any value
    "  %r = call i32 @llvm.amdgcn.workitem.id.y(), !range !0\n  %f = freeze i32 %r",
    # not disjoint for %t = 1: poison, frozen to any value
    "  %o = or disjoint i32 %t, 1\n  %f = freeze i32 %o",
    # undef is skipped by the phi's join, but the frozen undef is a real value
    "  br i1 true, label %a, label %b\na:\n  br label %b\nb:\n  %u = phi i32 [ undef, %a ], [ 0, %entry ]\n"
    "  %f = freeze i32 %u",
])
def test_freeze_of_a_value_that_may_be_poison_has_no_range(make: str) -> None:
    body = (make + "\n  %p = getelementptr i32, ptr addrspace(3) @smem, i32 %f\n  %v = load i32, ptr addrspace(3) %p, align 4\n"
            "  %q = getelementptr i8, ptr addrspace(3) @smem, i32 8192\n  store i32 %v, ptr addrspace(3) %q, align 4")
    text = _kernel(body, tail="!0 = !{i32 0, i32 4}\n")
    assert not _claimed(text, "%v = load", "store i32 %v")


def test_freeze_of_plain_arithmetic_keeps_its_range() -> None:
    body = ("  %a = and i32 %t, 255\n  %f = freeze i32 %a\n  %p = getelementptr i8, ptr addrspace(3) @smem, i32 %f\n"
            "  %v = load i8, ptr addrspace(3) %p, align 1\n"
            "  %q = getelementptr i8, ptr addrspace(3) @smem, i32 4096\n  store i8 %v, ptr addrspace(3) %q, align 1")
    assert _claimed(_kernel(body), "%v = load", "store i8 %v")


@pytest.mark.parametrize("body", [
    "  %v = load <vscale x 4 x i32>, ptr addrspace(3) @smem, align 4",
    "  %p = getelementptr <vscale x 1 x i32>, ptr addrspace(3) @smem, i32 1\n  %v = load i32, ptr addrspace(3) %p, align 4",
])
def test_scalable_vectors_have_no_known_size(body: str) -> None:
    text = _kernel(_with_store_at(body, 16))
    assert not _claimed(text, "%v = load", "store i8 1")


def test_wide_integers_without_a_data_layout_are_not_laid_out() -> None:
    # The target layout of a newer LLVM may align i128 to 16: field 1 then lies at [16, 32).
    body = ("  %p = getelementptr {i8, i128}, ptr addrspace(3) @smem, i32 0, i32 1\n"
            "  %v = load i128, ptr addrspace(3) %p, align 8")
    text = _kernel(_with_store_at(body, 24))
    assert not _claimed(text, "%v = load", "store i8 1")


# ------------------------------------------------------------------ attacks that held

@pytest.mark.parametrize("index, at", [
    ("i32 add (i32 2147483647, i32 2147483647)", 98),  # -2 once wrapped
    ("i32 u0x10", 116),  # a hex literal llnoalias does not read
    ("i64 4294967295", 99),  # -1 once truncated to the 32-bit index width
    ("i16 -1", 99),
])
def test_constant_indices_that_wrap_or_are_not_read(index: str, at: int) -> None:
    body = (f"  %b = getelementptr i8, ptr addrspace(3) @smem, i32 100\n  %p = getelementptr i8, ptr addrspace(3) %b, {index}\n"
            "  %v = load i8, ptr addrspace(3) %p, align 1")
    assert not _claimed(_kernel(_with_store_at(body, at)), "%v = load", "store i8 1")


def test_loop_exits_that_do_not_bound_the_phi() -> None:
    # 'ne' with a step that jumps over the bound, and a second latch stepping by 7
    for step, bound, latch2 in ((3, 10, ""), (1, 10, "7")):
        if latch2:
            loop = ("  %i = phi i32 [ 0, %entry ], [ %i.next, %l1 ], [ %j, %l2 ]\n"
                    "  %p = getelementptr i32, ptr addrspace(3) @smem, i32 %i\n  store i32 0, ptr addrspace(3) %p, align 4\n"
                    "  %i.next = add i32 %i, 1\n  %c0 = icmp ult i32 %i, 5\n  br i1 %c0, label %l1, label %l2\n"
                    "l1:\n  %c1 = icmp ult i32 %i.next, 10\n  br i1 %c1, label %loop, label %exit\n"
                    f"l2:\n  %j = add i32 %i, {latch2}\n  %c2 = icmp ult i32 %i.next, 10\n  br i1 %c2, label %loop, label %exit\n")
            at = 56  # i reaches 12
        else:
            loop = ("  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]\n"
                    "  %p = getelementptr i32, ptr addrspace(3) @smem, i32 %i\n  store i32 0, ptr addrspace(3) %p, align 4\n"
                    f"  %i.next = add i32 %i, {step}\n  %c = icmp ne i32 %i.next, {bound}\n"
                    "  br i1 %c, label %loop, label %exit\n")
            at = 48  # i passes 10 and runs on
        body = ("  br label %loop\nloop:\n" + loop + "exit:\n"
                f"  %q = getelementptr i8, ptr addrspace(3) @smem, i32 {at}\n  store i32 1, ptr addrspace(3) %q, align 4")
        assert not _claimed(_kernel(body), "store i32 0", "store i32 1")


def test_lds_dma_with_a_negative_offset_and_a_12_byte_element() -> None:
    tail = "declare void @llvm.amdgcn.global.load.lds(ptr addrspace(1), ptr addrspace(3), i32, i32, i32)\n"
    # the bytes the wave writes: base + offset + lane * size, for 64 lanes
    for size, imm, at in ((4, -512, 512), (12, 0, 1024 + 64 * 12 - 1), (1, 0, 1024 + 63)):
        body = ("  %b = getelementptr i8, ptr addrspace(3) @smem, i32 1024\n"
                f"  call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) %g, ptr addrspace(3) %b, i32 {size}, i32 {imm}, i32 0)")
        text = _kernel(_with_store_at(body, at), params="ptr addrspace(1) %g", tail=tail)
        assert not _claimed(text, "call void @llvm.amdgcn.global.load.lds", "store i8 1")


def test_running_twice_over_foreign_scopes_changes_nothing() -> None:
    body = ("  %p = getelementptr i32, ptr addrspace(3) @smem, i32 %t\n"
            "  %v = load i32, ptr addrspace(3) %p, align 4, !alias.scope !10, !noalias !11\n"
            "  %q = getelementptr i8, ptr addrspace(3) @smem, i32 8192\n  store i32 %v, ptr addrspace(3) %q, align 4")
    text = _kernel(body, tail="!10 = !{!12}\n!11 = !{!13}\n!12 = distinct !{!12, !14}\n!13 = distinct !{!13, !14}\n"
                              "!14 = distinct !{!14}\n")
    once = annotate_text(text).text
    assert annotate_text(once).text == once
    assert _claimed(text, "%v = load", "store i32 %v")
