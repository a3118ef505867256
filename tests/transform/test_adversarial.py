"""Adversarial shapes: each test names the claim llnoalias must not make. The failing
ones found by review are FileCheck fixtures (fixtures/lds/gep_index_unread.ll,
hidden_address_writes.ll, scope_name_collision.ll, attachment_no_blank.ll,
fixtures/args/pointer_data_escapes.ll, scope_name_collision.ll); these keep the attacks
that held."""

from __future__ import annotations

import re

import pytest

from llnoalias.options import AnnotateOptions
from llnoalias.transform.pipeline import annotate_text

# two sized static buffers, run with --lds all: two dynamic (external zero-sized) ones would
# start at one address, and the stores that check a kernel tags at all would share bytes
LDS_HEAD = """target triple = "amdgcn-amd-amdhsa"

@lds_a = addrspace(3) global [4096 x i8] undef, align 16
@lds_b = addrspace(3) global [4096 x i8] undef, align 16
"""


def _line(text: str, needle: str) -> str:
    return next(line for line in text.splitlines() if needle in line)


def _tagged(text: str, needle: str) -> bool:
    return "!alias.scope" in _line(text, needle)


def _run(src: str, **opts: object) -> str:
    opts.setdefault("lds", "all")
    out = annotate_text(src, options=AnnotateOptions(**opts)).text  # type: ignore[arg-type]
    assert annotate_text(out, options=AnnotateOptions(**opts)).text == out  # type: ignore[arg-type]
    return out


UNKNOWN_SHAPES = {
    "constexpr_sub": "%p = inttoptr i32 sub (i32 ptrtoint (ptr addrspace(3) @lds_b to i32), "
                     "i32 ptrtoint (ptr addrspace(3) @lds_a to i32)) to ptr addrspace(3)",
    "add_chain": "%t = add i32 %ia, 0\n  %u = add i32 %t, %n\n  %w = add i32 %u, %ib\n"
                 "  %p = inttoptr i32 %w to ptr addrspace(3)",
    "inline_asm": "%r = call i32 asm \"v_mov_b32 $0, 0\", \"=v\"()\n  %s = add i32 %ia, %r\n"
                  "  %p = inttoptr i32 %s to ptr addrspace(3)",
    "defined_call": "%r = call i32 @dev(i32 0)\n  %s = add i32 %ia, %r\n  %p = inttoptr i32 %s to ptr addrspace(3)",
    "ptrmask_address_mask": "%p = call ptr addrspace(3) @llvm.ptrmask.p3.i32(ptr addrspace(3) @lds_a, i32 %ib)",
    "readfirstlane_two": "%w = add i32 %ia, %ib\n  %rf = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %w)\n"
                         "  %p = inttoptr i32 %rf to ptr addrspace(3)",
    "select_root_int": "%sel = select i1 %c, i32 %ia, i32 64\n  %p = inttoptr i32 %sel to ptr addrspace(3)",
    "vector_extract": "%v0 = insertelement <2 x ptr addrspace(3)> undef, ptr addrspace(3) @lds_a, i32 0\n"
                      "  %p = extractelement <2 x ptr addrspace(3)> %v0, i32 %n",
    "narrow_then_add": "%t9 = ptrtoint ptr addrspace(3) @lds_b to i16\n  %z9 = zext i16 %t9 to i32\n"
                       "  %a9 = add i32 %z9, %ia\n  %p = inttoptr i32 %a9 to ptr addrspace(3)",
    # lane intrinsics that may hand back a value no lane held
    "bpermute_address": "%q = call i32 @llvm.amdgcn.ds.bpermute(i32 0, i32 %ia)\n  %p = inttoptr i32 %q to ptr addrspace(3)",
    "permute_address": "%q = call i32 @llvm.amdgcn.ds.permute(i32 0, i32 %ia)\n  %p = inttoptr i32 %q to ptr addrspace(3)",
    "swizzle_address": "%q = call i32 @llvm.amdgcn.ds.swizzle(i32 %ia, i32 31)\n  %p = inttoptr i32 %q to ptr addrspace(3)",
    "readlane_address": "%q = call i32 @llvm.amdgcn.readlane.i32(i32 %ia, i32 %n)\n  %p = inttoptr i32 %q to ptr addrspace(3)",
    "mov_dpp_address": "%q = call i32 @llvm.amdgcn.mov.dpp.i32(i32 %ia, i32 273, i32 15, i32 15, i1 false)\n"
                       "  %p = inttoptr i32 %q to ptr addrspace(3)",
    "update_dpp_bound_ctrl": "%q = call i32 @llvm.amdgcn.update.dpp.i32(i32 %ia, i32 %ia, i32 273, i32 15, i32 15, i1 true)\n"
                             "  %p = inttoptr i32 %q to ptr addrspace(3)",
    "update_dpp_unknown_bound_ctrl": "%q = call i32 @llvm.amdgcn.update.dpp.i32(i32 %ia, i32 %ia, i32 273, i32 15, "
                                     "i32 15, i1 %c)\n  %p = inttoptr i32 %q to ptr addrspace(3)",
    "update_dpp_old_other_root": "%q = call i32 @llvm.amdgcn.update.dpp.i32(i32 %ib, i32 %ia, i32 273, i32 15, i32 15, "
                                 "i1 false)\n  %p = inttoptr i32 %q to ptr addrspace(3)",
    "permlane16_fetch_inactive": "%q = call i32 @llvm.amdgcn.permlane16.i32(i32 %ia, i32 %ia, i32 0, i32 0, i1 true, "
                                 "i1 false)\n  %p = inttoptr i32 %q to ptr addrspace(3)",
    "permlane64_address": "%q = call i32 @llvm.amdgcn.permlane64.i32(i32 %ia)\n  %p = inttoptr i32 %q to ptr addrspace(3)",
    "writelane_two_roots": "%q = call i32 @llvm.amdgcn.writelane.i32(i32 %ia, i32 0, i32 %ib)\n"
                           "  %p = inttoptr i32 %q to ptr addrspace(3)",
    "set_inactive_raw_int": "%q = call i32 @llvm.amdgcn.set.inactive.i32(i32 %ia, i32 64)\n"
                            "  %p = inttoptr i32 %q to ptr addrspace(3)",
    "shfl_partial_mask": "%q = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 %n, i32 %ia, i32 0, i32 31)\n"
                         "  %p = inttoptr i32 %q to ptr addrspace(3)",
    "writelane_lane_operand_address": "%q = call i32 @llvm.amdgcn.writelane.i32(i32 %ia, i32 %ib, i32 %ia)\n"
                                  "  %p = inttoptr i32 %q to ptr addrspace(3)",
    # loaded integers
    "dispatch_variable_offset": "store i32 %ib, ptr addrspace(1) null, align 4\n"
                                "  %dp = call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()\n"
                                "  %g = getelementptr i8, ptr addrspace(4) %dp, i32 %n\n"
                                "  %v = load i32, ptr addrspace(4) %g, align 4\n  %s = add i32 %ia, %v\n"
                                "  %p = inttoptr i32 %s to ptr addrspace(3)",
    "slot_read_back": "%sl = alloca i32, align 4, addrspace(5)\n  store i32 %ib, ptr addrspace(5) %sl, align 4\n"
                      "  %g = getelementptr i8, ptr addrspace(5) %sl, i32 %n\n"
                      "  %v = load i32, ptr addrspace(5) %g, align 4\n  %s = add i32 %ia, %v\n"
                      "  %p = inttoptr i32 %s to ptr addrspace(3)",
    "slot_escapes_by_call": "%sl = alloca i32, align 4, addrspace(5)\n  store i32 %ib, ptr addrspace(5) %sl, align 4\n"
                            "  call void @ext(ptr addrspace(5) %sl)\n  %v = load i32, ptr addrspace(1) null, align 4\n"
                            "  %s = add i32 %ia, %v\n  %p = inttoptr i32 %s to ptr addrspace(3)",
    "slot_escapes_by_phi": "%sl = alloca i32, align 4, addrspace(5)\n  %s2 = alloca i32, align 4, addrspace(5)\n"
                           "  %sel = select i1 %c, ptr addrspace(5) %sl, ptr addrspace(5) %s2\n"
                           "  store i32 %ib, ptr addrspace(5) %sl, align 4\n"
                           "  %v = load i32, ptr addrspace(5) %sel, align 4\n"
                           "  %s = add i32 %ia, %v\n  %p = inttoptr i32 %s to ptr addrspace(3)",
    "slot_escapes_by_ptrtoint": "%sl = alloca i32, align 4, addrspace(5)\n  store i32 %ib, ptr addrspace(5) %sl, align 4\n"
                                "  %si = ptrtoint ptr addrspace(5) %sl to i32\n"
                                "  %sp = inttoptr i32 %si to ptr addrspace(5)\n"
                                "  %v = load i32, ptr addrspace(5) %sp, align 4\n"
                                "  %s = add i32 %ia, %v\n  %p = inttoptr i32 %s to ptr addrspace(3)",
    "slot_two_types": "%sl = alloca i64, align 8, addrspace(5)\n  store i32 %ib, ptr addrspace(5) %sl, align 4\n"
                      "  %w = load i64, ptr addrspace(5) %sl, align 8\n  %v = trunc i64 %w to i32\n"
                      "  %s = add i32 %ia, %v\n  %p = inttoptr i32 %s to ptr addrspace(3)",
    "slot_lds_pointer_as_flat": "%sl = alloca ptr, align 8, addrspace(5)\n"
                                "  store ptr addrspace(3) @lds_a, ptr addrspace(5) %sl, align 4\n"
                                "  %f = load ptr, ptr addrspace(5) %sl, align 8\n"
                                "  %p = addrspacecast ptr %f to ptr addrspace(3)",
    "slot_two_roots": "%sl = alloca i32, align 4, addrspace(5)\n  store i32 %ia, ptr addrspace(5) %sl, align 4\n"
                      "  br i1 %c, label %t2, label %j2\nt2:\n  store i32 %ib, ptr addrspace(5) %sl, align 4\n"
                      "  br label %j2\nj2:\n  %v = load i32, ptr addrspace(5) %sl, align 4\n"
                      "  %p = inttoptr i32 %v to ptr addrspace(3)",
    "struct_overwritten_field": "%s0 = insertvalue { i32, i32 } undef, i32 %ia, 0\n"
                                "  %s1 = insertvalue { i32, i32 } %s0, i32 %n, 0\n"
                                "  %f0 = extractvalue { i32, i32 } %s1, 0\n  %p = inttoptr i32 %f0 to ptr addrspace(3)",
}


@pytest.mark.parametrize("regions", [True, False])
@pytest.mark.parametrize("shape", sorted(UNKNOWN_SHAPES))
def test_unknown_shapes_stay_untagged(shape: str, regions: bool) -> None:
    src = LDS_HEAD + f"""
define i32 @dev(i32 %x) {{
  ret i32 %x
}}

define amdgpu_kernel void @k(i1 %c, i32 %n) {{
  %ia = ptrtoint ptr addrspace(3) @lds_a to i32
  %ib = ptrtoint ptr addrspace(3) @lds_b to i32
  {UNKNOWN_SHAPES[shape]}
  store i32 1, ptr addrspace(3) %p, align 4
  store i32 2, ptr addrspace(3) @lds_a, align 4
  store i32 3, ptr addrspace(3) @lds_b, align 4
  ret void
}}
declare ptr addrspace(3) @llvm.ptrmask.p3.i32(ptr addrspace(3), i32)
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare void @ext(ptr addrspace(5))
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i32 @llvm.amdgcn.ds.permute(i32, i32)
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32)
declare i32 @llvm.amdgcn.readlane.i32(i32, i32)
declare i32 @llvm.amdgcn.writelane.i32(i32, i32, i32)
declare i32 @llvm.amdgcn.set.inactive.i32(i32, i32)
declare i32 @llvm.amdgcn.mov.dpp.i32(i32, i32, i32, i32, i1)
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)
declare i32 @llvm.amdgcn.permlane16.i32(i32, i32, i32, i32, i1, i1)
declare i32 @llvm.amdgcn.permlane64.i32(i32)
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)
declare ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
"""
    out = _run(src, regions=regions)
    assert _tagged(out, "store i32 2,") and _tagged(out, "store i32 3,")
    assert not _tagged(out, "store i32 1, ptr addrspace(3) %p")


def test_ordered_and_volatile_accesses_are_never_tagged() -> None:
    src = LDS_HEAD + """
define amdgpu_kernel void @k(ptr addrspace(8) %rsrc) {
  %l1 = load atomic volatile i32, ptr addrspace(3) @lds_a monotonic, align 4
  %l2 = load atomic i32, ptr addrspace(3) @lds_a syncscope("agent-one-as") seq_cst, align 4
  %l3 = load atomic i32, ptr addrspace(3) @lds_a syncscope("workgroup") unordered, align 4
  %x1 = cmpxchg weak volatile ptr addrspace(3) @lds_a, i32 0, i32 1 monotonic monotonic, align 4
  %x2 = cmpxchg ptr addrspace(3) @lds_a, i32 0, i32 1 monotonic acquire, align 4
  %x3 = cmpxchg weak ptr addrspace(3) @lds_a, i32 0, i32 1 syncscope("wavefront") monotonic monotonic, align 4
  %r1 = atomicrmw volatile add ptr addrspace(3) @lds_a, i32 1 monotonic, align 4
  %r2 = atomicrmw fadd ptr addrspace(3) @lds_a, float 1.0 syncscope("agent") acq_rel, align 4
  call void @llvm.memcpy.p3.p3.i32(ptr addrspace(3) @lds_a, ptr addrspace(3) @lds_b, i32 16, i1 true)
  call void @llvm.memcpy.p3.p3.i32(ptr addrspace(3) @lds_a, ptr addrspace(3) @lds_b, i32 16, i1 false)
  store i32 0, ptr addrspace(3) @lds_b, align 4
  ret void
}
; a volatile LDS-DMA stays untagged, and so (design section 4b) would every LDS access of its function:
; it has a kernel of its own here
define amdgpu_kernel void @k2(ptr addrspace(8) %rsrc) {
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %rsrc, ptr addrspace(3) @lds_a, i32 4, i32 0, i32 0, i32 0, i32 -2147483648)
  ret void
}
declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32)
declare void @llvm.memcpy.p3.p3.i32(ptr addrspace(3), ptr addrspace(3), i32, i1)
"""
    out = _run(src)
    for name in ("%l1", "%l2", "%x1", "%x2", "%r1", "%r2", "i32 -2147483648)", "i1 true)"):
        assert not _tagged(out, name), name
    for name in ("%l3", "%x3", "store i32 0"):
        assert _tagged(out, name), name
    # a call reaching two roots claims both and excludes neither
    both = _line(out, "i1 false)")
    assert "!alias.scope" in both and "!noalias" not in both


def test_argument_effects_through_derived_pointers() -> None:
    src = """target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, ptr addrspace(1) %d, ptr addrspace(1) %e, ptr addrspace(1) %f, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = phi ptr addrspace(1) [ %a, %entry ], [ %p.next, %loop ]
  %v = load float, ptr addrspace(1) %p, align 4
  %p.next = getelementptr float, ptr addrspace(1) %p, i64 1
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %ai = ptrtoint ptr addrspace(1) %a to i64
  %agg = insertvalue { i64, i64 } undef, i64 %ai, 1
  %x = extractvalue { i64, i64 } %agg, 1
  %q = inttoptr i64 %x to ptr addrspace(1)
  store float %v, ptr addrspace(1) %q, align 4
  %bi = ptrtoint ptr addrspace(1) %b to i64
  store i64 %bi, ptr addrspace(1) %f, align 8
  %vb = load float, ptr addrspace(1) %b, align 4
  %cg = getelementptr i32, ptr addrspace(1) %c, i64 4
  %r = cmpxchg weak ptr addrspace(1) %cg, i32 0, i32 1 syncscope("agent-one-as") monotonic monotonic
  %dg = addrspacecast ptr addrspace(1) %d to ptr
  call void @llvm.memcpy.p0.p1.i64(ptr %dg, ptr addrspace(1) %e, i64 16, i1 false)
  %vd = load float, ptr addrspace(1) %d, align 4
  %ve = load float, ptr addrspace(1) %e, align 4
  ret void
}
declare void @llvm.memcpy.p0.p1.i64(ptr, ptr addrspace(1), i64, i1)
"""
    out = _run(src, args="noalias")
    define = _line(out, "define ptx_kernel")
    attrs = {m.group(2): m.group(1).split() for m in re.finditer(r"ptr addrspace\(1\) ([a-z ]*)%(\w+)", define)}
    assert attrs == {"a": ["noalias"], "b": ["noalias"], "c": ["noalias"], "d": ["noalias"],
                     "e": ["noalias", "readonly"], "f": ["noalias", "writeonly"]}
    invariant = [line for line in out.splitlines() if "!invariant.load" in line]
    assert len(invariant) == 1 and "%ve = load" in invariant[0]


def test_may_alias_group_gets_no_noalias_and_no_invariant_load() -> None:
    src = """target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c) {
  %va = load float, ptr addrspace(1) %a, align 4
  %vb = load float, ptr addrspace(1) %b, align 4
  store float %va, ptr addrspace(1) %c, align 4
  ret void
}
"""
    out = _run(src, args="noalias", may_alias=((0, 2),))
    define = _line(out, "define ptx_kernel")
    assert "readonly %a" in define and "noalias readonly %a" not in define
    assert "noalias readonly %b" in define
    assert "noalias %c" not in define
    assert "!invariant.load" in _line(out, "%vb = load") and "!invariant.load" not in _line(out, "%va = load")
