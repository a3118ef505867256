"""Lines LDS loads may be folded into (``check.footprints._folded``): an instruction of the
assembly at such a line stands for one of those loads. (A function's accesses are read only
where it has an LDS-DMA: each kernel here has one.)"""

from __future__ import annotations

from llnoalias.check.footprints import FOLD_DEPTH, module_footprints
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile

HEAD = """target triple = "amdgcn-amd-amdhsa"
@lds = external addrspace(3) global [0 x i8], align 16

define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %src) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %base = getelementptr i8, ptr addrspace(3) @lds, i32 %tid
  call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) %src, ptr addrspace(3) @lds, i32 4, i32 0, i32 0)
"""
TAIL = """  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.global.load.lds(ptr addrspace(1), ptr addrspace(3), i32, i32, i32)
"""


def _bytes_shuffled(n: int) -> str:
    """``n`` one-byte loads built into an ``<8 x i8>`` by a chain of shuffles (as Triton's fp8
    tiles are), the vector stored: the shuffle chain's last line is the one LLVM gives them."""
    body = []
    for k in range(n):
        body.append(f"  %p{k} = getelementptr i8, ptr addrspace(3) %base, i32 {128 * k}")
        body.append(f"  %l{k} = load <1 x i8>, ptr addrspace(3) %p{k}, align 1")
        body.append(f"  %w{k} = shufflevector <1 x i8> %l{k}, <1 x i8> poison, <8 x i32> "
                    "<i32 0, i32 poison, i32 poison, i32 poison, i32 poison, i32 poison, i32 poison, i32 poison>")
    prev = "%w0"
    for k in range(1, n):
        mask = ", ".join(f"i32 {j}" if j < k else (f"i32 {8}" if j == k else "i32 poison") for j in range(8))
        body.append(f"  %v{k} = shufflevector <8 x i8> {prev}, <8 x i8> %w{k}, <8 x i32> <{mask}>")
        prev = f"%v{k}"
    body.append(f"  store <8 x i8> {prev}, ptr addrspace(1) %out, align 8")
    return HEAD + "\n".join(body) + "\n" + TAIL


def _lines(text: str, prefix: str) -> list[int]:
    return [n for n, line in enumerate(text.splitlines(), 1) if line.lstrip().startswith(prefix)]


def test_a_shuffle_chain_stands_for_every_byte_load_it_builds() -> None:
    text = _bytes_shuffled(8)
    accs = module_footprints(parse_module(SourceFile("f.ll", text)))
    last = _lines(text, "%v7 =")[0]
    loads = _lines(text, "%l")
    assert accs[last].kind == "folded"
    assert accs[last].sources == tuple(loads)  # all eight, far more than FOLD_DEPTH back


def test_other_instructions_are_traced_only_fold_depth_back() -> None:
    """The twin: a chain of adds is not a vector being built; past ``FOLD_DEPTH`` adds the load
    is not among the line's sources."""
    body = ["  %l = load i8, ptr addrspace(3) %base, align 1", "  %x0 = zext i8 %l to i32"]
    for k in range(1, FOLD_DEPTH + 3):
        body.append(f"  %x{k} = add i32 %x{k - 1}, {k}")
    body.append(f"  store i32 %x{FOLD_DEPTH + 2}, ptr addrspace(1) %out, align 4")
    text = HEAD + "\n".join(body) + "\n" + TAIL
    accs = module_footprints(parse_module(SourceFile("f.ll", text)))
    near, far = _lines(text, "%x1 =")[0], _lines(text, f"%x{FOLD_DEPTH + 2} =")[0]
    assert accs[near].kind == "folded" and accs[near].sources == (_lines(text, "%l =")[0],)
    assert far not in accs
