"""Regions (design section 2b): one root split by byte ranges. Unit tests of the scope
rules, and a property test: on random offset programs whose every address is computed by
brute force, no two accesses whose bytes can overlap are claimed noalias."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from llnoalias.analysis.provenance.lattice import Root
from llnoalias.options import AnnotateOptions
from llnoalias.transform.pipeline import annotate_text
from llnoalias.transform.scopes import Region, may_overlap, noalias_keys
from tests.support.offset_programs import Program, programs, swizzle_programs
from tests.support.regions import claimed_noalias, scopes_of

AMD = 'target triple = "amdgcn-amd-amdhsa"\n'
TID = "declare i32 @llvm.amdgcn.workitem.id.x()\n"
DMA = "declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32)\n"






# ------------------------------------------------------------------ scope rules

def test_regions_and_the_root_scope_overlap() -> None:
    r = Root("llnoalias.lds", "smem", "lds")
    other = Root("llnoalias.lds", "other", "lds")
    a, b = Region(r, 0, 16), Region(r, 16, 32)
    assert not may_overlap(a, b)
    assert may_overlap(a, r) and may_overlap(r, b)
    assert not may_overlap(a, other)
    from llnoalias.analysis.memory.accesses import RELEASED, Access
    from llnoalias.ir.model import Instruction
    from llnoalias.transform.scopes import Decision

    acc = Access(Instruction("%x", "load", 0, 1, None), "load", RELEASED, RELEASED)  # type: ignore[arg-type]
    d = Decision(acc, "llnoalias.lds", [r], [r])
    assert noalias_keys(d.keys, [a, b, r, other]) == [other]
    d2 = Decision(acc, "llnoalias.lds", [r], [a])
    assert noalias_keys(d2.keys, [a, b, r, other]) == [b, other]


def _kernel(body: str, attrs: str = '"amdgpu-flat-work-group-size"="1,256"', globs: str = "") -> str:
    return (AMD + "@smem = external addrspace(3) global [0 x i8], align 16\n" + globs +
            "define amdgpu_kernel void @k(ptr addrspace(8) %rsrc, ptr addrspace(1) %g) #0 {\n"
            "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n" + body + "\n  ret void\n}\n" + TID + DMA +
            f"attributes #0 = {{ {attrs} }}\n")


def test_unknown_range_access_aliases_every_region() -> None:
    body = ("  %p = getelementptr i32, ptr addrspace(3) @smem, i32 %t\n  %v = load i32, ptr addrspace(3) %p, align 4\n"
            "  %q = getelementptr i8, ptr addrspace(3) @smem, i32 4096\n  store i32 %v, ptr addrspace(3) %q, align 4\n"
            "  %o = load i32, ptr addrspace(1) %g, align 4\n  %u = getelementptr i8, ptr addrspace(3) @smem, i32 %o\n"
            "  store i32 1, ptr addrspace(3) %u, align 4")
    out = annotate_text(_kernel(body)).text
    sc = scopes_of(out)
    load = sc["%v = load i32, ptr addrspace(3) %p, align 4"]
    st = sc["store i32 %v, ptr addrspace(3) %q, align 4"]
    unk = sc["store i32 1, ptr addrspace(3) %u, align 4"]
    assert claimed_noalias(load, st)
    assert not claimed_noalias(load, unk) and not claimed_noalias(st, unk)
    assert unk[1] == frozenset()


def test_lds_dma_covers_a_whole_wave() -> None:
    # The DMA at byte 0 writes 64 lanes x 4 bytes: [0,256); a read at 200 overlaps it, one at 256 does not.
    for off, apart in ((200, False), (256, True)):
        body = ("  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %rsrc, ptr addrspace(3) @smem, "
                "i32 4, i32 0, i32 0, i32 0, i32 0)\n"
                f"  %q = getelementptr i8, ptr addrspace(3) @smem, i32 {off}\n  %v = load i32, ptr addrspace(3) %q, align 4\n"
                "  %w = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 8192), align 4")
        out = annotate_text(_kernel(body)).text
        sc = scopes_of(out)
        dma = next(v for k, v in sc.items() if k.startswith("call void @llvm.amdgcn.raw.ptr.buffer.load.lds"))
        load = sc["%v = load i32, ptr addrspace(3) %q, align 4"]
        assert claimed_noalias(dma, load) is apart


def test_single_region_roots_are_left_as_before() -> None:
    # (a sized static second buffer, with --lds all: a second dynamic one would start where
    # @smem does, one root with it)
    globs = "@lds_b = addrspace(3) global [1024 x i8] undef, align 16\n"
    body = ("  %p = getelementptr i32, ptr addrspace(3) @smem, i32 %t\n  %v = load i32, ptr addrspace(3) %p, align 4\n"
            "  %q = getelementptr i32, ptr addrspace(3) @lds_b, i32 %t\n  store i32 %v, ptr addrspace(3) %q, align 4")
    text = _kernel(body, globs=globs)
    with_regions = annotate_text(text, options=AnnotateOptions(lds="all")).text
    assert with_regions == annotate_text(text, options=AnnotateOptions(lds="all", regions=False)).text
    assert '!"smem"' in with_regions and "[" not in with_regions.split("!0 = ")[1]


def test_no_regions_option_keeps_one_scope() -> None:
    body = ("  %p = getelementptr i32, ptr addrspace(3) @smem, i32 %t\n  %v = load i32, ptr addrspace(3) %p, align 4\n"
            "  %q = getelementptr i8, ptr addrspace(3) @smem, i32 4096\n  store i32 %v, ptr addrspace(3) %q, align 4")
    text = _kernel(body)
    assert "!alias.scope" in annotate_text(text).text
    assert annotate_text(text, options=AnnotateOptions(regions=False)).text == text


def test_regions_span_functions_of_the_module() -> None:
    # A helper without a work-group size reads smem[tid] for tid < 1024: bytes [0,4096), which
    # overlaps the kernel's store at 2048, so they share one region.
    text = (AMD + "@smem = external addrspace(3) global [0 x i32], align 16\n"
            "define void @helper() {\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
            "  %p = getelementptr i32, ptr addrspace(3) @smem, i32 %t\n  %v = load i32, ptr addrspace(3) %p, align 4\n"
            "  ret void\n}\n"
            "define amdgpu_kernel void @k() #0 {\n"
            "  %q = getelementptr i8, ptr addrspace(3) @smem, i32 2048\n  store i32 0, ptr addrspace(3) %q, align 4\n"
            "  %r = getelementptr i8, ptr addrspace(3) @smem, i32 8192\n  store i32 0, ptr addrspace(3) %r, align 4\n"
            "  ret void\n}\n" + TID + 'attributes #0 = { "amdgpu-flat-work-group-size"="1,64" }\n')
    sc = scopes_of(annotate_text(text).text)
    load = sc["%v = load i32, ptr addrspace(3) %p, align 4"]
    st = sc["store i32 0, ptr addrspace(3) %q, align 4"]
    far = sc["store i32 0, ptr addrspace(3) %r, align 4"]
    assert load[0] == st[0] and not claimed_noalias(load, st)
    assert claimed_noalias(load, far)


def test_stats_report_names_regions_and_missing_ranges() -> None:
    body = ("  %p = getelementptr i32, ptr addrspace(3) @smem, i32 %t\n  %v = load i32, ptr addrspace(3) %p, align 4\n"
            "  %q = getelementptr i8, ptr addrspace(3) @smem, i32 4096\n  store i32 %v, ptr addrspace(3) %q, align 4\n"
            "  %o = load i32, ptr addrspace(1) %g, align 4\n  %u = getelementptr i8, ptr addrspace(3) @smem, i32 %o\n"
            "  store i32 1, ptr addrspace(3) %u, align 4")
    res = annotate_text(_kernel(body))
    kinds = {(r.name, r.kind) for r in res.report.roots}
    assert ("smem[0,1024)", "region") in kinds and ("smem[4096,4100)", "region") in kinds


# ------------------------------------------------------------------ property

def _bytes(prog: Program, j: int) -> set[int]:
    acc = prog.accesses[j]
    size = {"i8": 1, "i32": 4, "<4 x i32>": 16}[acc.size]
    out: set[int] = set()
    for tid, i in prog.executions():
        got = prog.evaluate_poison(tid, i)
        if got is None or acc.value in got[1]:
            continue  # undefined: a division by zero, an over-wide shift, an address from poison
        a = prog.address(acc, got[0])
        out.update((a + k) & 0xFFFFFFFF for k in range(size))
    return out


def _access_line(prog: Program, j: int) -> str:
    acc = prog.accesses[j]
    if acc.store:
        return f"store {acc.size} zeroinitializer, ptr addrspace(3) %p{j}, align 1"
    return f"%l{j} = load {acc.size}, ptr addrspace(3) %p{j}, align 1"


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(max_ops=5, max_accesses=4))
def test_overlapping_accesses_are_never_claimed_noalias(prog: Program) -> None:
    check_no_overlap_claimed(prog)


def check_no_overlap_claimed(prog: Program) -> None:
    text = prog.text()
    out = annotate_text(text, options=AnnotateOptions()).text
    sc = scopes_of(out)
    n = len(prog.accesses)
    byte_sets = [_bytes(prog, j) for j in range(n)]
    for j in range(n):
        for k in range(j + 1, n):
            if byte_sets[j] & byte_sets[k]:
                a = sc.get(_access_line(prog, j), (frozenset(), frozenset()))
                b = sc.get(_access_line(prog, k), (frozenset(), frozenset()))
                assert not claimed_noalias(a, b), (j, k, text, out)


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(swizzle_programs(max_ops=6, max_accesses=4))
def test_swizzled_accesses_that_overlap_are_never_claimed_noalias(prog: Program) -> None:
    """Triton-like xor swizzles and tile bases (known bits at work): two accesses that touch
    a common byte for some thread id and loop value are never claimed not to alias."""
    check_no_overlap_claimed(prog)
