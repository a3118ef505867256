"""LLVM 24-style modules with explicit LDS-DMA waits (``asyncmark`` / ``wait.asyncmark``), the
way Triton 3.9 writes them for gfx950, for the tests of the code generator a verdict uses
(design section 7): llvmlite's LLVM (22) reads them only through bridge rewrites that change
their synchronization."""

from __future__ import annotations

_HEAD = """; {what}
target triple = "amdgcn-amd-amdhsa"

@lds = external addrspace(3) global [0 x i8], align 16

define amdgpu_kernel void @k(ptr addrspace(8) %rsrc, ptr addrspace(1) %out) #0 {{
"""
_TAIL = """  %v = load i32, ptr addrspace(3) @lds, align 4
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}}

declare void @llvm.amdgcn.raw.ptr.buffer.load.{dma}lds(ptr addrspace(8) readonly captures(none), ptr addrspace(3) writeonly captures(none), i32 immarg, i32, i32, i32 immarg, i32 immarg)
declare void @llvm.amdgcn.asyncmark()
declare void @llvm.amdgcn.wait.asyncmark(i16 immarg)

attributes #0 = {{ "amdgpu-flat-work-group-size"="1,64" "target-cpu"="gfx950" }}
"""

#: the asynchronous load's line and column (1-based), and the read's line
ASYNC_LOAD_AT = (7, 18)
READ_LINE = 10


def async_waited(wait: bool = True) -> str:
    """An asynchronous LDS-DMA load (LLVM 24: the code generator does not wait for it), marked
    and retired by ``wait.asyncmark(0)`` before the read of its bytes; ``wait=False``: the wait
    is gone (an empty line in its place, so the lines stay), and the read races."""
    body = ("  tail call void @llvm.amdgcn.raw.ptr.buffer.load.async.lds(ptr addrspace(8) %rsrc, "
            "ptr addrspace(3) @lds, i32 4, i32 0, i32 0, i32 0, i32 0)\n"
            "  tail call void @llvm.amdgcn.asyncmark()\n"
            + ("  tail call void @llvm.amdgcn.wait.asyncmark(i16 0)\n" if wait else "\n"))
    what = ("An asynchronous LDS-DMA load retired by its explicit wait before the read." if wait else
            "An asynchronous LDS-DMA load whose explicit wait is gone: the read races.")
    return _HEAD.format(what=what) + body + _TAIL.format(dma="async.")


#: the mark's line and column in :func:`marked_plain`
MARK_AT = (8, 13)


def marked_plain() -> str:
    """A plain LDS-DMA load with a mark and a wait after it (the bridge deletes both)."""
    body = ("  tail call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %rsrc, "
            "ptr addrspace(3) @lds, i32 4, i32 0, i32 0, i32 0, i32 0)\n"
            "  call void @llvm.amdgcn.wait.asyncmark(i16 0)\n\n")
    return _HEAD.format(what="A plain LDS-DMA load followed by an explicit wait.") + body + _TAIL.format(dma="")
