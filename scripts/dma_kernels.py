#!/usr/bin/env python3
"""Straight-line LDS-DMA kernels, and whether their compiled code keeps every needed wait.

Generates small AMDGPU kernels (gfx942; gfx950 for its 12- and 16-byte DMAs), deterministic
from a seed: named LDS buffers (external ``[0 x i8]`` ones, each used in its own 4 KiB window
of the dynamic LDS block as a DSL carves one block by offsets, and sized static ones),
LDS-DMAs (``llvm.amdgcn.raw.ptr.buffer.load.lds``, ``llvm.amdgcn.global.load.lds``) at
constant and wave-dependent LDS pointers with immediate offsets, or at a pointer loaded from
memory (untraceable), followed by LDS loads and stores of the DMA's lane-0 bytes, other lanes'
bytes, the immediate offset's bytes, the bytes below the immediate offset or past the wave's
range, another buffer, thread-dependent addresses; addresses as ``getelementptr`` (instruction
and constant expression) and ``ptrtoint``/``add``/``inttoptr`` chains; some accesses carry a
producer's ``!alias.scope``/``!noalias`` (every DMA/access tag combination), some kernels a
barrier or a plain global load between DMA and reads. Every LDS access and DMA is fenced by
``llvm.amdgcn.sched.barrier(0)`` so the code generator keeps their order; every value read is
stored to the global output.

Beside the IR each kernel has a side table (the bytes the k-th DMA's wave writes, the bytes
the k-th LDS access may touch); ``tests/support/vmcnt_sim.py`` replays the in-order vmcnt queue over
the compiled assembly and reports every LDS access that touches bytes of a DMA still in flight.

Variants, each compiled with ``llnoalias compile`` (llvmlite's LLVM 22.1) and, for gfx942,
with ``llc-19`` when present: ``input`` (``--no-annotate``), ``defaults`` (llnoalias's
defaults), ``all`` (``--lds all --args noalias``).

    python scripts/dma_kernels.py --count 300 --seed 1 [--jobs 2] [--llnoalias PATH] [--keep DIR]

Prints the number of kernels, kernels with lost waits per variant, the shapes of the lost
waits, and the kernels where llnoalias lost a wait the input kept.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.support.vmcnt_sim import ANY, Access, AsmError, Bytes, Dma, LostWait, Result, check_asm  # noqa: E402

#: the window of the dynamic LDS block each ``[0 x i8]`` buffer is used in
WINDOW = 4096
STATIC_SIZE = 4096
VARIANTS: dict[str, list[str]] = {
    "input": ["--no-annotate"],
    "defaults": [],
    "all": ["--lds", "all", "--args", "noalias"],
}
TYPES = {1: "i8", 2: "i16", 4: "i32", 8: "i64", 16: "<4 x i32>"}


@dataclass
class Buf:
    name: str
    dynamic: bool
    base: int  # where its offsets start: its window in the dynamic block, 0 for static

    def space(self) -> str:
        return "dyn" if self.dynamic else self.name


@dataclass
class DmaOp:
    buf: Buf | None  # None: LDS pointer loaded from memory
    c: int  # constant offset from the buffer (window included)
    wave: bool  # + 256 * (tid >> 6)
    imm: int
    size: int
    intrinsic: str  # "buffer" or "global"
    form: str
    ptag: bool


@dataclass
class Kernel:
    name: str
    mcpu: str
    wg: int
    text: str
    dmas: list[Dma]
    accesses: list[Access]
    dma_ops: list[DmaOp]
    shapes: set[str] = field(default_factory=set)


def lane_stride(size: int) -> int:
    """The LDS bytes between two lanes' elements of an LDS-DMA: a dword slot for byte and
    short loads, 16 for the 12-byte one (the larger reading; ``M0 + offset + lane * stride``)."""
    stride = 4
    while stride < size:
        stride *= 2
    return stride


def term_range(term: str | None, wave: int) -> tuple[int, int]:
    """The smallest and largest value of a thread-dependent offset term over one wave."""
    first, last = 256 * wave, 256 * wave + 252  # 4 * tid over the wave's lanes
    return {None: (0, 0), "lane4": (first, last), "mask": (0, 60), "xor": (first, last),
            "wave": (first, first)}[term]


def dma_bytes(op: DmaOp, wg: int) -> Bytes:
    if op.buf is None:
        return Bytes(ANY)
    waves = []
    for w in range((wg + 63) // 64):
        lo = op.c + op.imm + (term_range("wave", w)[0] if op.wave else 0)
        waves.append((lo, lo + 64 * lane_stride(op.size)))
    return Bytes(op.buf.space(), min(w[0] for w in waves), max(w[1] for w in waves), tuple(waves))


class _Gen:
    def __init__(self, rng: random.Random, name: str, fence: bool = True):
        self.rng = rng
        self.name = name
        self.fence = fence
        self.mcpu = "gfx950" if rng.random() < 0.25 else "gfx942"
        self.wg = rng.choice([64, 64, 64, 256])
        self.lines: list[str] = []
        self.n = 0
        self.dmas: list[Dma] = []
        self.dma_ops: list[DmaOp] = []
        self.accesses: list[Access] = []
        self.reads: list[tuple[str, str]] = []  # (value, type) stored at the end
        self.shapes: set[str] = {self.mcpu, f"wg{self.wg}"}
        nbuf = rng.choice([1, 2, 2, 3])
        self.bufs: list[Buf] = []
        ndyn = 0
        for i in range(nbuf):
            dynamic = rng.random() < 0.6
            self.bufs.append(Buf(f"{name}_{'abc'[i]}", dynamic, ndyn * WINDOW if dynamic else 0))
            ndyn += dynamic
        self.producer = rng.random() < 0.35
        self.scope_ids = {b.name: 10 + i for i, b in enumerate(self.bufs)}

    def tmp(self, stem: str) -> str:
        self.n += 1
        return f"%{stem}{self.n}"

    def tags(self, buf: Buf | None, on: bool) -> str:
        if not (self.producer and on and buf is not None):
            return ""
        mine = self.scope_ids[buf.name]
        others = [s for n, s in self.scope_ids.items() if n != buf.name]
        out = f", !alias.scope !{mine + 20}"
        if others:
            out += f", !noalias !{mine + 40}"
        return out

    def pointer(self, buf: Buf, c: int, term: str | None, form: str) -> str:
        """``@buf + c + term`` in IR, as a value or constant expression."""
        g = f"@{buf.name}"
        if term is None and form == "cexpr":
            return g if c == 0 else f"getelementptr (i8, ptr addrspace(3) {g}, i32 {c})"
        off = str(c)
        if term is not None:
            t = self.term(term)
            off = self.tmp("off")
            self.lines.append(f"  {off} = add i32 {t}, {c}")
        if form == "int":
            i, a, p = self.tmp("pi"), self.tmp("ai"), self.tmp("p")
            self.lines += [f"  {i} = ptrtoint ptr addrspace(3) {g} to i32",
                           f"  {a} = add i32 {i}, {off}",
                           f"  {p} = inttoptr i32 {a} to ptr addrspace(3)"]
            return p
        if form == "gep32" and term is None and c % 4 == 0:
            p = self.tmp("p")
            self.lines.append(f"  {p} = getelementptr i32, ptr addrspace(3) {g}, i32 {c // 4}")
            return p
        p = self.tmp("p")
        self.lines.append(f"  {p} = getelementptr i8, ptr addrspace(3) {g}, i32 {off}")
        return p

    def term(self, term: str) -> str:
        t = self.tmp("t")
        expr = {"lane4": "shl i32 %tid, 2", "mask": "and i32 %tid4, 60", "xor": "xor i32 %tid4, 4",
                "wave": "and i32 %tid4, -256"}[term]
        self.lines.append(f"  {t} = {expr}")
        return t

    def fence_line(self) -> None:
        if self.fence:
            self.lines.append("  call void @llvm.amdgcn.sched.barrier(i32 0)")

    def dma(self) -> None:
        rng = self.rng
        untraceable = rng.random() < 0.12
        sizes = [4, 4, 4, 12, 16] if self.mcpu == "gfx950" else [4, 4, 4, 4, 1, 2]
        size = rng.choice(sizes)
        buf = None if untraceable else rng.choice(self.bufs)
        imm = rng.choice([0, 0, 64, 256, 4 * rng.randrange(1, 16)])
        c = (buf.base if buf else 0) + rng.choice([0, 0, 256, 512, 1024])
        wave = not untraceable and self.wg > 64 and rng.random() < 0.3
        intrinsic = "global" if rng.random() < 0.2 else "buffer"
        form = rng.choice(["cexpr", "gep8", "gep32", "int"])
        ptag = rng.random() < 0.5
        op = DmaOp(buf, c, wave, imm, size, intrinsic, form, ptag)
        if buf is None:
            p = self.tmp("lp")
            self.lines.append(f"  {p} = load ptr addrspace(3), ptr addrspace(1) %pp, align 4")
            self.shapes.add("untraceable-dma")
        else:
            p = self.pointer(buf, c, "wave" if wave else None, form)
        tags = self.tags(buf, ptag)
        if intrinsic == "global":
            g = self.tmp("g")
            self.lines.append(f"  {g} = getelementptr i8, ptr addrspace(1) %in, i32 %voff{size}")
            self.lines.append(f"  call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) {g}, "
                              f"ptr addrspace(3) {p}, i32 {size}, i32 {imm}, i32 0){tags}")
        else:
            self.lines.append(f"  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %rsrc, "
                              f"ptr addrspace(3) {p}, i32 {size}, i32 %voff{size}, i32 0, i32 {imm}, i32 0){tags}")
        self.fence_line()
        b = dma_bytes(op, self.wg)
        desc = (f"{intrinsic}.load.lds size {size} imm {imm} at "
                + ("a loaded pointer" if buf is None else f"@{buf.name}+{c}{'+wave' if wave else ''} ({form})")
                + (" tagged" if ptag and self.producer and buf else ""))
        self.dmas.append(Dma(b, desc))
        self.dma_ops.append(op)
        self.shapes.add(f"dma:{intrinsic}")
        if self.producer and buf is not None:
            self.shapes.add("ptag-dma" if ptag else "untagged-dma")

    def access(self) -> None:
        rng = self.rng
        traceable = [(k, op) for k, op in enumerate(self.dma_ops) if op.buf is not None]
        roles = ["own", "lane", "imm", "past", "other", "tid", "fresh"]
        role = rng.choice(roles) if traceable else rng.choice(["other", "fresh"])
        size = rng.choice([4, 4, 4, 4, 1, 2, 8, 16])
        term: str | None = None
        if role in ("own", "lane", "imm", "past", "tid"):
            _, op = rng.choice(traceable)
            assert op.buf is not None
            buf = op.buf
            per_lane = lane_stride(op.size)
            c = {"own": op.c + op.imm, "lane": op.c + op.imm + 4 * rng.randrange(1, 16 * per_lane),
                 "imm": op.c + (op.imm if op.imm else 4), "past": op.c + op.imm + 64 * per_lane + rng.choice([0, 4, 64]),
                 "tid": op.c + op.imm}[role]
            if role == "imm" and op.imm == 0:
                role = "lane"
            if role == "tid":
                term = rng.choice(["lane4", "mask", "xor"])
                size = 4
        else:
            cands = [b for b in self.bufs if role != "other" or all(b is not op.buf for op in self.dma_ops)]
            buf = rng.choice(cands or self.bufs)
            c = buf.base + 4 * rng.randrange(0, 700)
            if role == "other" and not cands:
                role = "fresh"
        c -= c % size
        if term is not None:
            c -= c % 4
        write = rng.random() < 0.25
        form = rng.choice(["cexpr", "gep8", "gep32", "int"])
        ptag = rng.random() < 0.6
        p = self.pointer(buf, c, term, form)
        ty = TYPES[size]
        tags = self.tags(buf, ptag)
        if write:
            self.lines.append(f"  store {ty} %val{size}, ptr addrspace(3) {p}, align {size}{tags}")
        else:
            v = self.tmp("v")
            self.lines.append(f"  {v} = load {ty}, ptr addrspace(3) {p}, align {size}{tags}")
            self.reads.append((v, ty))
        self.fence_line()
        waves = tuple((c + term_range(term, w)[0], c + term_range(term, w)[1] + size)
                      for w in range((self.wg + 63) // 64))
        desc = (f"{'store' if write else 'load'} {ty} @{buf.name}+{c}{'+' + term if term else ''} "
                f"({role}, {form}{', tagged' if ptag and self.producer else ''})")
        span = Bytes(buf.space(), min(w[0] for w in waves), max(w[1] for w in waves), waves)
        self.accesses.append(Access(span, write, len(self.dmas), desc))
        self.shapes.add(f"{'write' if write else 'read'}:{role}")
        if self.producer:
            self.shapes.add("ptag-access" if ptag else "untagged-access")

    def module(self) -> Kernel:
        rng = self.rng
        ndma = rng.choice([1, 1, 2, 3])
        for i in range(ndma):
            self.dma()
            if rng.random() < 0.2:
                g = self.tmp("gl")
                self.lines.append(f"  {g} = load i32, ptr addrspace(1) %gin, align 4")
                self.reads.append((g, "i32"))
                self.fence_line()
                self.shapes.add("global-load-after-dma")
            if i == ndma - 1 and rng.random() < 0.3:
                self.lines.append("  call void @llvm.amdgcn.s.barrier()")
                self.shapes.add("barrier")
            for _ in range(rng.choice([0, 1, 2]) if i < ndma - 1 else rng.choice([1, 2, 3, 4])):
                self.access()
        if not self.accesses:
            self.access()
        body = list(self.lines)
        for i, (v, ty) in enumerate(self.reads):
            o = self.tmp("o")
            body += [f"  {o} = getelementptr i8, ptr addrspace(1) %out, i32 {16 * i}",
                     f"  store {ty} {v}, ptr addrspace(1) {o}, align 16"]
        out = ['target triple = "amdgcn-amd-amdhsa"', ""]
        for b in self.bufs:
            if b.dynamic:
                out.append(f"@{b.name} = external addrspace(3) global [0 x i8], align 16")
            else:
                out.append(f"@{b.name} = internal addrspace(3) global [{STATIC_SIZE} x i8] poison, align 16")
                self.shapes.add("static-lds")
        if any(b.dynamic for b in self.bufs):
            self.shapes.add("dynamic-lds")
        if self.producer:
            self.shapes.add("producer-scopes")
        out += [
            "",
            f"define amdgpu_kernel void @{self.name}(ptr addrspace(8) inreg %rsrc, ptr addrspace(1) %in, "
            f"ptr addrspace(1) %out, ptr addrspace(1) %pp) #0 {{",
            "entry:",
            "  %tid = call i32 @llvm.amdgcn.workitem.id.x()",
            "  %tid4 = shl i32 %tid, 2",
            *[f"  %voff{s} = mul i32 %tid, {s}" for s in (1, 2, 4, 12, 16)],
            "  %gin = getelementptr i32, ptr addrspace(1) %in, i32 %tid",
            "  %val1 = trunc i32 %tid to i8",
            "  %val2 = trunc i32 %tid to i16",
            "  %val4 = add i32 %tid, 7",
            "  %val8 = zext i32 %tid to i64",
            "  %v16a = insertelement <4 x i32> poison, i32 %tid, i32 0",
            "  %val16 = shufflevector <4 x i32> %v16a, <4 x i32> poison, <4 x i32> zeroinitializer",
            *body,
            "  ret void",
            "}",
            "",
            "declare i32 @llvm.amdgcn.workitem.id.x()",
            "declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32 immarg, i32, i32, i32 immarg, i32 immarg)",
            "declare void @llvm.amdgcn.global.load.lds(ptr addrspace(1), ptr addrspace(3), i32 immarg, i32 immarg, i32 immarg)",
            "declare void @llvm.amdgcn.sched.barrier(i32 immarg)",
            "declare void @llvm.amdgcn.s.barrier()",
            "",
            f'attributes #0 = {{ nounwind "amdgpu-flat-work-group-size"="{self.wg},{self.wg}" "target-cpu"="{self.mcpu}" }}',
        ]
        if self.producer:
            out += ["", '!0 = distinct !{!0, !"producer.lds"}']
            for b in self.bufs:
                s = self.scope_ids[b.name]
                others = [f"!{o}" for n, o in self.scope_ids.items() if n != b.name]
                out.append(f'!{s} = distinct !{{!{s}, !0, !"{b.name}"}}')
                out.append(f"!{s + 20} = !{{!{s}}}")
                if others:
                    out.append(f"!{s + 40} = !{{{', '.join(others)}}}")
        return Kernel(self.name, self.mcpu, self.wg, "\n".join(out) + "\n", self.dmas, self.accesses,
                      self.dma_ops, self.shapes)


def generate(seed: int, index: int, fence: bool = True) -> Kernel:
    """Kernel ``index`` of the family ``seed``: the same text and side table every time."""
    return _Gen(random.Random(f"dma-kernels:{seed}:{index}"), f"dma_{seed}_{index}", fence).module()


def generate_many(seed: int, count: int, fence: bool = True) -> list[Kernel]:
    return [generate(seed, i, fence) for i in range(count)]


# -- compiling and checking ----------------------------------------------------------------


def llnoalias_command(explicit: str | None = None) -> list[str]:
    """The CLI beside the running interpreter (this checkout's ``.venv/bin/llnoalias`` when
    run with ``.venv/bin/python``), else ``.venv/bin/llnoalias``, else ``python -m llnoalias``."""
    if explicit:
        return [explicit]
    for cand in (os.path.join(os.path.dirname(sys.executable), "llnoalias"),
                 os.path.join(ROOT, ".venv", "bin", "llnoalias")):
        if os.path.exists(cand):
            return [cand]
    return [sys.executable, "-m", "llnoalias"]


def compile_kernel(k: Kernel, variant: str, workdir: str, cli: Sequence[str],
                   llc: str | None = None) -> tuple[str, bool]:
    """The assembly of ``k`` under ``variant`` (``llnoalias compile``; through ``llc`` when
    given), and whether llnoalias warned about the input (``warning:`` on its stderr)."""
    src = os.path.join(workdir, f"{k.name}.ll")
    if not os.path.exists(src):
        with open(src, "w") as fh:
            fh.write(k.text)
    tag = variant + ("-llc" if llc else "")
    out = os.path.join(workdir, f"{k.name}.{tag}.s")
    # --no-check: what is judged here is the annotate path's rules, not compile's own check
    cmd = [*cli, "compile", "--no-check", "--mcpu", k.mcpu, *VARIANTS[variant], src, "-o", out]
    if llc:
        cmd[len(cli) + 1:len(cli) + 1] = ["--llc", llc]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    with open(out) as fh:
        return fh.read(), ": warning: " in proc.stderr


@dataclass
class Outcome:
    kernel: Kernel
    variant: str
    backend: str
    result: Result | None
    error: str = ""
    warned: bool = False

    def pairs(self) -> set[tuple[int, int | None]]:
        return {(w.dma, w.access) for w in self.result.lost} if self.result else set()


def check_kernel(k: Kernel, variant: str, workdir: str, cli: Sequence[str], llc: str | None = None) -> Outcome:
    backend = os.path.basename(llc) if llc else "llvmlite"
    try:
        asm, warned = compile_kernel(k, variant, workdir, cli, llc)
        return Outcome(k, variant, backend, check_asm(asm, k.name, k.dmas, k.accesses), warned=warned)
    except (RuntimeError, AsmError) as exc:
        return Outcome(k, variant, backend, None, str(exc))


def run_all(kernels: Sequence[Kernel], variants: Sequence[str], workdir: str, jobs: int = 2,
            cli: Sequence[str] | None = None, llc: str | None = None) -> list[Outcome]:
    """Every kernel under every variant, with llvmlite's LLVM and, for gfx942, ``llc``."""
    cli = list(cli or llnoalias_command())
    tasks: list[tuple[Kernel, str, str | None]] = []
    for k in kernels:
        for v in variants:
            tasks.append((k, v, None))
            if llc and k.mcpu == "gfx942":
                tasks.append((k, v, llc))
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        return list(pool.map(lambda t: check_kernel(t[0], t[1], workdir, cli, t[2]), tasks))


def blamed(input_: Outcome, output: Outcome) -> list[LostWait]:
    """Lost waits of llnoalias's output that it must not have: every pair the input did not
    lose, and every pair of a traceable DMA the producer left unscoped (llnoalias is to scope
    such a DMA, design section 4b), unless the access itself carries the producer's scopes:
    llnoalias adds metadata and never removes it, so a producer-scoped access that alias
    analysis tells apart from the DMA's one-lane window loses its wait whatever llnoalias
    does, and where it says so on stderr the loss is not its own (the compiled input may
    still have kept that wait by accident: a register dependence that llnoalias's
    ``!invariant.load`` turned into a scalar load)."""
    if output.result is None or input_.result is None:
        return []
    before = input_.pairs()
    out = []
    for w in output.result.lost:
        op = output.kernel.dma_ops[w.dma]
        producer = "producer-scopes" in output.kernel.shapes
        acc_tagged = w.access is not None and output.kernel.accesses[w.access].desc.endswith(", tagged)")
        producer_fault = op.buf is None or (producer and (op.ptag or acc_tagged))
        exempt = (w.dma, w.access) in before and producer_fault
        if not exempt and not (producer and acc_tagged and output.warned):
            out.append(w)
    return out


def shape_of(k: Kernel, w: LostWait) -> str:
    op = k.dma_ops[w.dma]
    dma = ("loaded-ptr" if op.buf is None else ("dyn" if op.buf.dynamic else "static")) + \
        f"/{op.intrinsic}/s{op.size}/imm{'>0' if op.imm else '0'}"
    if "producer-scopes" in k.shapes and op.buf is not None:
        dma += "/tagged" if op.ptag else "/untagged"
    acc = "?" if w.access is None else k.accesses[w.access].desc.split("(", 1)[1].rstrip(")")
    return f"dma {dma} -> {acc}" + (" [reordered]" if w.reordered else "")


def summarize(outcomes: Sequence[Outcome], out: list[str], verbose: bool = False) -> dict[str, int]:
    by: dict[tuple[str, str, str], Outcome] = {(o.kernel.name, o.variant, o.backend): o for o in outcomes}
    kernels = sorted({o.kernel.name for o in outcomes})
    backends = sorted({o.backend for o in outcomes})
    counts: dict[str, int] = {"kernels": len(kernels)}
    for be in backends:
        out.append(f"== {be} ==")
        for v in VARIANTS:
            rows = [o for o in outcomes if o.backend == be and o.variant == v]
            if not rows:
                continue
            bad = [o for o in rows if o.result is not None and o.result.lost]
            errs = [o for o in rows if o.result is None]
            approx = [o for o in rows if o.result is not None and o.result.approximate]
            line = f"{v:>9}: {len(bad)} of {len(rows)} kernels lose a wait"
            if v != "input":
                blame = [o for o in bad if blamed(by[(o.kernel.name, "input", be)], o)]
                # the plain measure: a wait the same kernel had without llnoalias
                kept = [o for o in bad if o.result is not None
                        and {(w.dma, w.access) for w in o.result.lost} - by[(o.kernel.name, "input", be)].pairs()]
                line += f"; {len(kept)} lose a wait the input kept; {len(blame)} blamed on llnoalias"
                counts[f"{be}:{v}:blamed"] = len(blame)
                counts[f"{be}:{v}:new"] = len(kept)
                if verbose and kept:
                    out.append(f"  lose a wait the input kept ({be}, {v}): " + " ".join(o.kernel.name for o in kept))
            line += f"; {len(errs)} not checked; {len(approx)} mapped approximately"
            counts[f"{be}:{v}"] = len(bad)
            out.append(line)
            shapes = Counter(shape_of(o.kernel, w) for o in bad for w in o.result.lost)  # type: ignore[union-attr]
            for s, n in shapes.most_common(12):
                out.append(f"    {n:4d}  {s}")
            for o in errs[:3]:
                why = [ln for ln in o.error.splitlines()[1:] if ln.strip()][:1] or o.error.splitlines()[:1]
                out.append(f"    not checked: {o.kernel.name}: {why[0][:160] if why else ''}")
    for be in backends:
        for v in VARIANTS:
            if v == "input":
                continue
            names = []
            for name in kernels:
                oc = by.get((name, v, be))
                inp = by.get((name, "input", be))
                if oc is None or inp is None:
                    continue
                lost = blamed(inp, oc)
                if lost:
                    names.append(name)
                if verbose:
                    out += [f"  {be} {v}: {w.message}" for w in lost]
            if names:
                out.append(f"blamed ({be}, {v}): {' '.join(names)}")
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--llnoalias", default=None, help="the llnoalias CLI (default: this checkout's .venv)")
    ap.add_argument("--llc", default=shutil.which("llc-19"), help="also compile gfx942 kernels with this llc")
    ap.add_argument("--no-llc", action="store_true")
    ap.add_argument("--no-fence", action="store_true", help="no sched.barrier between accesses")
    ap.add_argument("--keep", metavar="DIR", help="keep the kernels and their assembly here")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every lost wait blamed on llnoalias")
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    args = ap.parse_args(argv)
    kernels = generate_many(args.seed, args.count, fence=not args.no_fence)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        workdir = args.keep
    else:
        workdir = tempfile.mkdtemp(prefix="dma_kernels.")
    variants = ["input", *[v for v in args.variants if v != "input"]]
    try:
        outcomes = run_all(kernels, variants, workdir, args.jobs, llnoalias_command(args.llnoalias),
                           None if args.no_llc else args.llc)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    lines: list[str] = []
    shapes = Counter(s for k in kernels for s in k.shapes)
    lines.append(f"kernels: {len(kernels)} (seed {args.seed}); shapes: "
                 + ", ".join(f"{s} {n}" for s, n in sorted(shapes.items())))
    summarize(outcomes, lines, args.verbose)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
