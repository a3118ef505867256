"""LDS-DMA kernels written by hand for the tests of design section 4b (``tests/transform/
test_dma_waits.py``, ``test_dma_shapes.py``): a kernel around a body, a DMA into ``@A``, a
read, and the patterns of straight-line assembly that the tests read."""

from __future__ import annotations

import re

HEAD = """target triple = "amdgcn-amd-amdhsa"
@A = external addrspace(3) global [0 x i8], align 1024
@B = external addrspace(3) global [0 x i8], align 1024
declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32)
declare i32 @llvm.amdgcn.workitem.id.x()
"""


#: a producer's own scopes (another domain than llnoalias's) and clang's TBAA
TAIL = """
!0 = distinct !{!0, !"producer"}
!1 = distinct !{!1, !0, !"A"}
!2 = distinct !{!2, !0, !"B"}
!3 = !{!1}
!4 = !{!2}
!5 = !{!6, !6, i64 0}
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C++ TBAA"}
"""


PRODUCER_A = ", !alias.scope !3, !noalias !4"


VMEM_RE = re.compile(r"^(buffer_|global_|flat_|scratch_)")


DMA_RE = re.compile(r"^(buffer_load_\w+ .*\blds\b|global_load_lds_\w+)")


WAIT_RE = re.compile(r"^s_waitcnt\b.*\bvmcnt\((\d+)\)|^s_wait_loadcnt\s+(?:0x)?(\w+)")


DS_RE = re.compile(r"^ds_(read|write|load|store)\w*")


#: a second kernel reading @B at 65536: the LDS domain then has two scopes, so claims are
#: made in @k, where every LDS access after the DMA touches the DMA's bytes (all dynamic LDS
#: variables start at one address, so @A and @B are one root, told apart by bytes only: a
#: read of @B at offset 0, in @k or here, would share them too, and give no second scope)
OTHER = """define amdgpu_kernel void @other(ptr addrspace(1) %o) {
  %b = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @B, i32 65536), align 4
  store i32 %b, ptr addrspace(1) %o, align 4
  ret void
}
"""


def kernel(body: str) -> str:
    return (HEAD + "define amdgpu_kernel void @k(ptr addrspace(8) %r, ptr addrspace(1) %o, "
            "ptr addrspace(1) %q, i32 %v, i32 %base) {\n" + body + "  ret void\n}\n" + OTHER + TAIL)


def dma(ptr: str = "@A", imm: int = 0, md: str = "") -> str:
    return (f"  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) {ptr}, "
            f"i32 4, i32 %v, i32 0, i32 {imm}, i32 0){md}\n")


def read(name: str, ptr: str, md: str = "") -> str:
    return f"  %{name} = load i32, ptr addrspace(3) {ptr}, align 4{md}\n  store i32 %{name}, ptr addrspace(1) %o, align 4\n"


LOWERED = """target triple = "amdgcn-amd-amdhsa"
@b = internal addrspace(3) global [4096 x i8] poison, align 16
@c = internal addrspace(3) global [4096 x i8] poison, align 16
declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32)
declare void @llvm.amdgcn.sched.barrier(i32)
define amdgpu_kernel void @k(ptr addrspace(8) inreg %r, ptr addrspace(1) %o, i32 %v) #0 {
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @b, i32 1024), i32 4, i32 %v, i32 0, i32 256, i32 0)
  call void @llvm.amdgcn.sched.barrier(i32 0)
  %pi = ptrtoint ptr addrspace(3) @c to i32
  %ai = add i32 %pi, 684
  %p3 = inttoptr i32 %ai to ptr addrspace(3)
  %x = load i32, ptr addrspace(3) %p3, align 4
  call void @llvm.amdgcn.sched.barrier(i32 0)
  %p5 = getelementptr i8, ptr addrspace(3) @b, i32 OFFSET
  %y = load <4 x i32>, ptr addrspace(3) %p5, align 16
  call void @llvm.amdgcn.sched.barrier(i32 0)
  store i32 %x, ptr addrspace(1) %o, align 4
  %o2 = getelementptr i8, ptr addrspace(1) %o, i32 16
  store <4 x i32> %y, ptr addrspace(1) %o2, align 16
  ret void
}
attributes #0 = { nounwind "amdgpu-flat-work-group-size"="64,64" "target-cpu"="gfx942" }
"""

