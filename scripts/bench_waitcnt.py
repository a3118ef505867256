#!/usr/bin/env python3
"""vmcnt waits on seed-001-style gfx942 kernels: no metadata, llnoalias, ideal, static LDS.

Each generated kernel has N named dynamic LDS buffers (``@lds_i = external addrspace(3)
global [0 x i8]``, each used at its own offset ``i * CARVE``: every dynamic LDS variable starts
at the same address, so named buffers are carved apart by offset, as FlyDSL's are) and a loop in two ping-pong stages: LDS-DMA writes
(``llvm.amdgcn.raw.ptr.buffer.load.lds``) into one group of buffers interleaved with
``load <4 x i32>`` reads from the other group, then an explicit ``s_waitcnt vmcnt(0)`` and
a barrier, then the same with the groups swapped. A read never touches a buffer with a
DMA in flight, so with alias scopes LLVM's SIInsertWaitcnts needs no vmcnt wait before
the reads; without them it waits before nearly every read.

LDS addresses come in three shapes: ``gep`` (getelementptr off the global), ``int``
(``ptrtoint``/``add``/``inttoptr`` chains) and ``phi`` (loop-carried pointers advanced by
getelementptr).

Columns, per kernel, counting ``s_waitcnt`` lines that name ``vmcnt``:

- ``none``: the kernel as generated (no alias metadata);
- ``llnoalias``: after ``llnoalias.transform.pipeline.annotate_text`` (``n/a`` until the core lands);
- ``ideal``: with scopes the generator writes itself (it knows every access's buffer):
  the count perfectly annotated IR reaches;
- ``static``: the same kernel over sized static LDS globals (``[4096 x i8]``), where
  LLVM's own LDS lowering adds the scopes (the baseline seed 001 measured against).

Code comes from llvmlite's LLVM through ``llnoalias.backends.codegen.generate`` (child processes).
Prints a table; writes nothing.

    python scripts/bench_waitcnt.py [--buffers 2 3 4 5 6] [--shapes gep int phi] [--mcpu gfx942]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from llnoalias.backends.codegen import generate
from llnoalias.diagnostics import LLNoaliasError

SHAPES = ("gep", "int", "phi")
#: DMAs per target buffer and reads per source buffer in each stage.
PER_BUFFER = 2
#: Bytes one stage of one buffer advances per iteration in the ``phi`` shape.
STEP = 512
#: Where dynamic buffer i starts: i * CARVE bytes into dynamic LDS.
CARVE = 32768

_VMCNT_RE = re.compile(r"^\s*s_waitcnt\b[^\n;]*\bvmcnt\(", re.MULTILINE)


def count_vmcnt(asm: str) -> int:
    """``s_waitcnt`` instructions that name ``vmcnt`` (``s_waitcnt_vscnt`` does not)."""
    return len(_VMCNT_RE.findall(asm))


@dataclass(frozen=True)
class Kernel:
    buffers: int
    shape: str

    @property
    def name(self) -> str:
        return f"lds{self.buffers}_{self.shape}"


class _Writer:
    """Builds the kernel body; ``meta`` adds ideal scopes, ``static`` sized globals."""

    def __init__(self, k: Kernel, meta: bool, static: bool):
        self.k = k
        self.meta = meta
        self.static = static
        self.lines: list[str] = []
        self.n = 0
        self.acc = "%acc"

    def tmp(self, stem: str) -> str:
        self.n += 1
        return f"%{stem}{self.n}"

    def tags(self, buf: int) -> str:
        if not self.meta:
            return ""
        return f", !alias.scope !{10 + buf}, !noalias !{20 + buf}"

    def addr(self, buf: int, base: str, offset: str) -> str:
        """An LDS address ``base + offset`` in the kernel's shape; returns the pointer value."""
        if self.k.shape == "int":
            i = self.tmp("pi")
            a = self.tmp("ai")
            p = self.tmp("p")
            self.lines += [
                f"  {i} = ptrtoint ptr addrspace(3) {base} to i32",
                f"  {a} = add i32 {i}, {offset}",
                f"  {p} = inttoptr i32 {a} to ptr addrspace(3)",
            ]
            return p
        p = self.tmp("p")
        self.lines.append(f"  {p} = getelementptr inbounds i8, ptr addrspace(3) {base}, i32 {offset}")
        return p

    def stage(self, dma_bufs: list[int], read_bufs: list[int], stage: int) -> None:
        dmas = [(b, j) for j in range(PER_BUFFER) for b in dma_bufs]
        reads = [(b, j) for j in range(PER_BUFFER) for b in read_bufs]
        for i in range(max(len(dmas), len(reads))):
            if i < len(dmas):
                b, j = dmas[i]
                # The LDS operand of an LDS-DMA is wave-uniform (it goes to M0).
                p = self.addr(b, self.base(b, "dma"), f"{stage * 2048 + j * 256}")
                self.lines.append(
                    f"  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %rsrc, "
                    f"ptr addrspace(3) {p}, i32 4, i32 %voff, i32 %soff, i32 0, i32 0){self.tags(b)}")
            if i < len(reads):
                b, j = reads[i]
                off = self.tmp("o")
                self.lines.append(f"  {off} = add i32 %toff, {stage * 2048 + j * 1024}")
                p = self.addr(b, self.base(b, "rd"), off)
                v = self.tmp("v")
                acc = self.tmp("acc")
                self.lines += [
                    f"  {v} = load <4 x i32>, ptr addrspace(3) {p}, align 16{self.tags(b)}",
                    f"  {acc} = xor <4 x i32> {self.acc}, {v}",
                ]
                self.acc = acc
        self.lines += [
            "  call void @llvm.amdgcn.s.waitcnt(i32 0)",
            "  call void @llvm.amdgcn.s.barrier()",
        ]

    def base(self, buf: int, kind: str) -> str:
        if self.k.shape == "phi":
            return f"%{kind}{buf}"
        return self.start(buf)

    def start(self, buf: int) -> str:
        """Buffer ``buf``'s first byte: its global, carved at ``buf * CARVE`` when dynamic."""
        if self.static or buf == 0:
            return f"@lds_{buf}"
        return f"getelementptr (i8, ptr addrspace(3) @lds_{buf}, i32 {buf * CARVE})"

    def module(self) -> str:
        n = self.k.buffers
        out = ['target triple = "amdgcn-amd-amdhsa"', ""]
        for b in range(n):
            if self.static:
                out.append(f"@lds_{b} = internal addrspace(3) global [4096 x i8] poison, align 16")
            else:
                out.append(f"@lds_{b} = external addrspace(3) global [0 x i8], align 16")
        out.append("")
        g0 = [b for b in range(n) if b % 2 == 0]
        g1 = [b for b in range(n) if b % 2 == 1]
        self.acc = "%acc"
        self.lines = []
        self.stage(g0, g1, 0)
        self.stage(g1, g0, 1)
        body = self.lines
        phis: list[str] = []
        advances: list[str] = []
        if self.k.shape == "phi":
            for b in range(n):
                for kind in ("dma", "rd"):
                    phis.append(f"  %{kind}{b} = phi ptr addrspace(3) [ {self.start(b)}, %entry ], "
                                f"[ %{kind}{b}.next, %loop ]")
                    advances.append(
                        f"  %{kind}{b}.next = getelementptr inbounds i8, ptr addrspace(3) %{kind}{b}, i32 {STEP}")
        out += [
            f"define amdgpu_kernel void @{self.k.name}(ptr addrspace(8) inreg %rsrc, ptr addrspace(1) %out, i32 %n) #0 {{",
            "entry:",
            "  %tid = call i32 @llvm.amdgcn.workitem.id.x()",
            "  %voff = shl i32 %tid, 2",
            "  %toff = shl i32 %tid, 4",
            "  br label %loop",
            "",
            "loop:",
            "  %k = phi i32 [ 0, %entry ], [ %k.next, %loop ]",
            "  %acc = phi <4 x i32> [ zeroinitializer, %entry ], [ " + self.acc + ", %loop ]",
            *phis,
            "  %soff = shl i32 %k, 12",
            *body,
            *advances,
            "  %k.next = add i32 %k, 1",
            "  %done = icmp sge i32 %k.next, %n",
            "  br i1 %done, label %exit, label %loop",
            "",
            "exit:",
            "  %gep.out = getelementptr inbounds <4 x i32>, ptr addrspace(1) %out, i32 %tid",
            f"  store <4 x i32> {self.acc}, ptr addrspace(1) %gep.out, align 16",
            "  ret void",
            "}",
            "",
            "declare i32 @llvm.amdgcn.workitem.id.x()",
            "declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32 immarg, i32, i32, i32 immarg, i32 immarg)",
            "declare void @llvm.amdgcn.s.waitcnt(i32 immarg)",
            "declare void @llvm.amdgcn.s.barrier()",
            "",
            'attributes #0 = { nounwind "amdgpu-flat-work-group-size"="256,256" "target-cpu"="gfx942" }',
        ]
        if self.meta:
            out += ["", '!0 = distinct !{!0, !"bench.lds"}']
            for b in range(n):
                out.append(f'!{100 + b} = distinct !{{!{100 + b}, !0, !"lds_{b}"}}')
                out.append(f"!{10 + b} = !{{!{100 + b}}}")
                others = ", ".join(f"!{100 + o}" for o in range(n) if o != b)
                out.append(f"!{20 + b} = !{{{others}}}")
        return "\n".join(out) + "\n"


def kernel_text(k: Kernel, *, meta: bool = False, static: bool = False) -> str:
    return _Writer(k, meta, static).module()


def _annotator() -> Callable[..., Any] | None:
    """``annotate_text`` once the core works, else None."""
    try:
        from llnoalias.transform.pipeline import annotate_text

        annotate_text(kernel_text(Kernel(2, "gep")), "<bench>")
    except (ImportError, NotImplementedError):
        return None
    return annotate_text


def _vmcnt(text: str, mcpu: str | None) -> str:
    try:
        return str(count_vmcnt(generate(text, emit="asm", mcpu=mcpu, timeout=120).decode()))
    except LLNoaliasError as exc:
        print(f"bench_waitcnt: {exc.message}", file=sys.stderr)
        return "err"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--buffers", type=int, nargs="+", default=[2, 3, 4, 5, 6])
    ap.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
    ap.add_argument("--mcpu", default=None, help="override the kernels' gfx942")
    ap.add_argument("--jobs", type=int, default=4, help="code generations in parallel")
    args = ap.parse_args(argv)

    annotate = _annotator()
    kernels = [Kernel(n, s) for s in args.shapes for n in args.buffers]
    jobs: list[tuple[Kernel, str, str | None]] = []
    for k in kernels:
        plain = kernel_text(k)
        jobs.append((k, "none", plain))
        jobs.append((k, "llnoalias", annotate(plain, f"{k.name}.ll").text if annotate else None))
        jobs.append((k, "ideal", kernel_text(k, meta=True)))
        jobs.append((k, "static", kernel_text(k, static=True)))
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda j: "n/a" if j[2] is None else _vmcnt(j[2], args.mcpu), jobs))
    table: dict[str, dict[str, str]] = {}
    for (k, col, _), res in zip(jobs, results, strict=True):
        table.setdefault(k.name, {})[col] = res

    cols = ["none", "llnoalias", "ideal", "static"]
    print(f"vmcnt waits (s_waitcnt ... vmcnt(N)), {args.mcpu or 'gfx942'}, llvmlite's LLVM -O3")
    print(f"{'kernel':<14}" + "".join(f"{c:>11}" for c in cols))
    for k in kernels:
        row = table[k.name]
        print(f"{k.name:<14}" + "".join(f"{row[c]:>11}" for c in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main())
