"""A module whose claims race and its input, for the tests of ``compile``'s self-check
(``tests/check/test_check_compile.py``) and of the Triton hook."""

from __future__ import annotations

from .files import ROOT

CHECK = ROOT / "fixtures" / "check"


#: a second kernel that has no DMA: its claims must stay when the first loses its own
OTHER = """
define amdgpu_kernel void @other(ptr addrspace(1) %o, i32 %v) #0 {
  %x = load i32, ptr addrspace(3) @A, align 4, !tbaa !0
  store i32 %x, ptr addrspace(1) %o, align 4
  ret void
}
"""


def racing_pair() -> tuple[str, str]:
    """An input whose read waits for the DMA, and an "annotated" module whose metadata on the
    read makes LLVM 22 drop the wait (clang's !tbaa beside an unscoped DMA), with a second
    kernel after it."""
    racing = (CHECK / "tbaa_unscoped_dma_races.ll").read_text()
    anchor = "\ndeclare void @llvm.amdgcn.raw.ptr.buffer.load.lds"
    racing = racing.replace(anchor, OTHER + anchor)
    original = racing.replace("align 4, !tbaa !0\n  store i32 %x, ptr addrspace(1) %o, align 4\n  ret void\n}\n\n"
                              "define amdgpu_kernel void @other",
                              "align 4\n  store i32 %x, ptr addrspace(1) %o, align 4\n  ret void\n}\n\n"
                              "define amdgpu_kernel void @other")
    assert original != racing and original.count("!tbaa !0") == racing.count("!tbaa !0") - 1
    return racing, original

