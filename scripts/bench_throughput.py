#!/usr/bin/env python3
"""Throughput: annotate a large generated AMDGPU module and compare with the time
``opt -passes=verify`` takes to read the same file on this machine.

    python scripts/bench_throughput.py [--lines 240000] [--repeat 3] [--opt PATH]
                                       [--from FILE | --small N | --suite] [-j N] [--opts=OPTIONS] [--verify]
                                       [--against CHECKOUT]

With ``--from FILE`` the module is real compiler output instead: FILE's function
definitions repeated (each copy renamed) until the module has ``--lines`` lines, e.g.
``--from fixtures/corpus/clang19/hip_gemm_O3.ll``. A subprogram belongs to one function,
so the repeated functions lose their debug info (``!dbg`` attachments, ``#dbg_*``
records); the metadata nodes stay, unreferenced.

opt-19 cannot read newer LLVMs' syntax (Triton 3.9 writes LLVM 22's). When the module
uses it, opt reads a copy rewritten to LLVM 19's syntax (llnoalias/backends/bridge.py's
rewrites that LLVM 19 needs too, and the ones written here); llnoalias always reads the
module itself. The rewrites the copy needed are printed; when opt cannot read even the
copy, its first error line is, and no ratio.

With ``--small N`` the module is N small kernels instead, each one load and one store
through two ``noalias`` arguments (6 lines a kernel): what a fixed cost per function
costs. The bar: 20,000 of them within 3x opt-19's time and 2x its peak memory. With
``--varied`` as well, no two kernels are spelled alike (types, names, two to four
arguments, one or two loads vary): what memos of spellings seen before gain on the
identical ones, they do not gain there. With ``--rich`` instead, N distinct kernels of the
shape a translation unit's instantiations have (``rich_kernel``: a tiled loop through LDS
between barriers, about 40 lines each, its types, inputs, tile, trip count and guard varying).

Prints the wall time of each (best of --repeat runs, with its CPU time and its peak
resident memory, the largest ``ru_maxrss`` that ``wait4`` reports for the process and the
children it waited for) and the ratio llnoalias / opt, for llnoalias with its compiled parts (llnoalias/compiled.py's TWINS, when they were
built) and in pure Python
(LLNOALIAS_PURE=1). The three commands run round-robin (llnoalias compiled, pure, opt,
then again), so that a machine others share slows all of them alike. ``--suite`` does so
for the generated module and the corpus modules in SUITE, each repeated to ``--lines``, in
one markdown table. llnoalias runs ``--no-verify`` with its default options; ``--opts``
adds options (one string: ``--opts='--lds all'``), ``--verify`` checks the output as a
plain run does (the checking child's time is then in the wall and CPU times), ``-j`` is
its ``-j``. The bar: a 240k-line module within 2x of opt-19's verify.

``--against CHECKOUT`` times another checkout's llnoalias (the code before a change: ``git
worktree add ../before REV`` and ``make install`` there) in the same round-robin, as the
row or column "before", so that a change is measured against what it changed in one sitting.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import NamedTuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HEADER = """target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@lds_a = external addrspace(3) global [0 x i8], align 16
@lds_b = external addrspace(3) global [0 x i8], align 16
@lds_c = external addrspace(3) global [0 x i8], align 16

declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32)
declare void @llvm.amdgcn.s.barrier()
"""

KERNEL = """
; kernel {k}: DMA into one buffer while another is read, in a pipelined loop
define amdgpu_kernel void @kernel_{k}(ptr addrspace(8) %rsrc, ptr addrspace(1) %out, i32 %n) #0 {{
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %off = shl i32 %tid, 4
  %a = ptrtoint ptr addrspace(3) @lds_a to i32
  %b = ptrtoint ptr addrspace(3) @lds_b to i32
  br label %loop

loop:                                             ; preds = %loop, %entry
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi <4 x i32> [ zeroinitializer, %entry ], [ %acc.next, %loop ]
  %pc = phi ptr addrspace(3) [ @lds_c, %entry ], [ %pc.next, %loop ]
{body}
  %pc.next = getelementptr inbounds i8, ptr addrspace(3) %pc, i32 16
  %i.next = add nuw nsw i32 %i, 1
  %cond = icmp ult i32 %i.next, %n
  br i1 %cond, label %loop, label %exit

exit:                                             ; preds = %loop
  %o = getelementptr inbounds <4 x i32>, ptr addrspace(1) %out, i32 %tid
  store <4 x i32> %acc.next, ptr addrspace(1) %o, align 16
  ret void
}}
"""

STEP = """  %s{j}.x = mul i32 %i, {stride}
  %s{j}.o = add i32 %off, %s{j}.x
  %s{j}.ai = add i32 %a, %s{j}.o
  %s{j}.pa = inttoptr i32 %s{j}.ai to ptr addrspace(3)
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %rsrc, ptr addrspace(3) %s{j}.pa, i32 16, i32 %s{j}.o, i32 0, i32 0, i32 0)
  %s{j}.bi = add i32 %b, %s{j}.o
  %s{j}.pb = inttoptr i32 %s{j}.bi to ptr addrspace(3)
  %s{j}.v = load <4 x i32>, ptr addrspace(3) %s{j}.pb, align 16
  %s{j}.w = load <4 x i32>, ptr addrspace(3) %pc, align 16
  %s{j}.t = add <4 x i32> %s{j}.v, %s{j}.w
  call void @llvm.amdgcn.s.barrier()"""


SMALL_KERNEL = """
define amdgpu_kernel void @k{k}(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b) {{
  %x = load i32, ptr addrspace(1) %a, align 4
  store i32 %x, ptr addrspace(1) %b, align 4
  ret void
}}
"""


#: the element types of ``--varied`` small kernels, with their alignment
VARIED_TYPES = (("i32", 4), ("float", 4), ("i64", 8), ("half", 2), ("<4 x float>", 16), ("i8", 1), ("double", 8))
#: the argument names of ``--varied`` small kernels
VARIED_NAMES = ("a", "src", "in", "x", "p", "dst", "out", "y", "q", "buf")


def varied_kernel(k: int) -> str:
    """Small kernel ``k`` of ``--varied``: like ``SMALL_KERNEL`` (loads from one ``noalias``
    argument, stored to the others; nothing but loads, stores and ``ret``), but no two
    neighbours spelled alike: the element type and alignment, the argument names, the number
    of arguments (two to four), the number of loads and the kernel's name all vary with
    ``k``, so that a memo of spellings (a header, a body, an instruction seen before)
    gains nothing on them."""
    ty, align = VARIED_TYPES[k % len(VARIED_TYPES)]
    nargs = 2 + k % 3
    # (a suffix of period 1009, prime to the other periods: no two kernels of a 20,000-kernel
    # module are spelled alike, but for their names)
    names = [f"{VARIED_NAMES[(k // 3 + i) % len(VARIED_NAMES)]}{k % 1009}_{i}" for i in range(nargs)]
    params = ", ".join(f"ptr addrspace(1) noalias %{n}" for n in names)
    body = []
    loads = 1 + k % 2
    for j in range(loads):
        body.append(f"  %v{j} = load {ty}, ptr addrspace(1) %{names[0]}, align {align}")
    for i, n in enumerate(names[1:]):
        body.append(f"  store {ty} %v{i % loads}, ptr addrspace(1) %{n}, align {align}")
    return (f"\ndefine amdgpu_kernel void @{VARIED_NAMES[k % len(VARIED_NAMES)]}_kernel_{k}({params}) {{\n"
            + "\n".join(body) + "\n  ret void\n}\n")


#: the scalar element types of ``--varied --rich`` kernels: (type, alignment, add, zero)
RICH_TYPES = (("i32", 4, "add", "0"), ("float", 4, "fadd", "0.0"), ("i64", 8, "add", "0"),
              ("double", 8, "fadd", "0.0"), ("i16", 2, "add", "0"), ("half", 2, "fadd", "0xH0000"))


def rich_kernel(k: int) -> tuple[str, str]:
    """Kernel ``k`` of ``--varied --rich`` and its LDS global: a kernel of the kind a
    translation unit's instantiations make (a tiled loop that stages a global tile in LDS
    between barriers, sums it, and stores the sum), whose shape varies with ``k``: the element
    type, the number of inputs (one to three, each ``noalias`` or not), the tile's size and
    stride, whether the loop's trip count is an argument or a constant, whether the read of
    LDS is a neighbour's, whether the store is guarded by a branch, and the names."""
    ty, align, add, zero = RICH_TYPES[k % len(RICH_TYPES)]
    ins = 1 + k % 3
    tile = 64 << (k % 3)
    stride = (k % 5) + 1
    lds = f"@tile{k}"
    names = [f"in{i}_{k % 1013}" for i in range(ins)]
    params = [f"ptr addrspace(1) {'noalias ' if (k >> i) % 2 == 0 else ''}%{n}" for i, n in enumerate(names)]
    params.append(f"ptr addrspace(1) noalias %out{k % 997}")
    constant_trip = k % 4 == 0
    if not constant_trip:
        params.append("i32 %n")
    trip = str(4 + k % 13) if constant_trip else "%n"
    body = ["entry:",
            "  %tid = call i32 @llvm.amdgcn.workitem.id.x()",
            f"  %lane = and i32 %tid, {tile - 1}",
            "  br label %loop", "",
            "loop:",
            "  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]",
            f"  %acc = phi {ty} [ {zero}, %entry ], [ %acc.next, %latch ]",
            f"  %row = mul i32 %i, {tile * stride}",
            "  %col = add i32 %row, %lane"]
    loaded = []
    for j, n in enumerate(names):
        body += [f"  %p{j} = getelementptr inbounds {ty}, ptr addrspace(1) %{n}, i32 %col",
                 f"  %v{j} = load {ty}, ptr addrspace(1) %p{j}, align {align}"]
        loaded.append(f"%v{j}")
    value = loaded[0]
    for j, v in enumerate(loaded[1:]):
        body.append(f"  %s{j} = {add} {ty} {value}, {v}")
        value = f"%s{j}"
    read = "%lane"
    if k % 2:
        body += ["  %nb = add i32 %lane, 1", f"  %nbw = and i32 %nb, {tile - 1}"]
        read = "%nbw"
    body += [f"  %lw = getelementptr inbounds [{tile} x {ty}], ptr addrspace(3) {lds}, i32 0, i32 %lane",
             f"  store {ty} {value}, ptr addrspace(3) %lw, align {align}",
             "  call void @llvm.amdgcn.s.barrier()",
             f"  %lr = getelementptr inbounds [{tile} x {ty}], ptr addrspace(3) {lds}, i32 0, i32 {read}",
             f"  %t = load {ty}, ptr addrspace(3) %lr, align {align}",
             "  call void @llvm.amdgcn.s.barrier()",
             "  br label %latch", "",
             "latch:",
             f"  %acc.next = {add} {ty} %acc, %t",
             "  %i.next = add nuw nsw i32 %i, 1",
             f"  %more = icmp slt i32 %i.next, {trip}",
             "  br i1 %more, label %loop, label %exit", "",
             "exit:",
             f"  %po = getelementptr inbounds {ty}, ptr addrspace(1) %out{k % 997}, i32 %tid"]
    if k % 3 == 1:
        body += [f"  %inside = icmp ult i32 %tid, {tile}", "  br i1 %inside, label %write, label %done", "",
                 "write:", f"  store {ty} %acc.next, ptr addrspace(1) %po, align {align}", "  br label %done", "",
                 "done:", "  ret void"]
    else:
        body += [f"  store {ty} %acc.next, ptr addrspace(1) %po, align {align}", "  ret void"]
    kernel = (f"\ndefine amdgpu_kernel void @{VARIED_NAMES[k % len(VARIED_NAMES)]}_tile_{k}({', '.join(params)}) "
              "#0 {\n" + "\n".join(body) + "\n}\n")
    return kernel, f"{lds} = internal addrspace(3) global [{tile} x {ty}] undef, align 16\n"


def build_rich(kernels: int) -> str:
    """``kernels`` kernels of ``rich_kernel``, after their LDS globals."""
    made = [rich_kernel(k) for k in range(kernels)]
    return ('target triple = "amdgcn-amd-amdhsa"\n\n' + "".join(g for _, g in made)
            + "\ndeclare i32 @llvm.amdgcn.workitem.id.x()\ndeclare void @llvm.amdgcn.s.barrier()\n"
            + "".join(kernel for kernel, _ in made)
            + '\nattributes #0 = { "amdgpu-flat-work-group-size"="1,256" }\n')


def build_small(kernels: int, varied: bool = False) -> str:
    """``kernels`` kernels of one load and one store through two noalias arguments; with
    ``varied``, distinct small kernels instead (``varied_kernel``)."""
    if varied:
        return 'target triple = "amdgcn-amd-amdhsa"\n' + "".join(varied_kernel(k) for k in range(kernels))
    return 'target triple = "amdgcn-amd-amdhsa"\n' + "".join(SMALL_KERNEL.format(k=k) for k in range(kernels))


def build(lines: int) -> str:
    parts = [HEADER]
    count = HEADER.count("\n")
    k = 0
    steps = 24
    while count < lines:
        body = []
        prev = "%acc"
        for j in range(steps):
            body.append(STEP.format(j=j, stride=16 * (j + 1)))
            body.append(f"  %acc{j} = add <4 x i32> {prev}, %s{j}.t")
            prev = f"%acc{j}"
        body.append(f"  %acc.next = add <4 x i32> {prev}, zeroinitializer")
        text = KERNEL.format(k=k, body="\n".join(body))
        parts.append(text)
        count += text.count("\n")
        k += 1
    parts.append('\nattributes #0 = { "amdgpu-flat-work-group-size"="1,256" "target-cpu"="gfx942" }\n')
    return "".join(parts)


_DEFINE_RE = re.compile(r'^define [^\n]*?@("[^"]*"|[-a-zA-Z$._0-9]+)\(', re.M)

#: a debug record line (LLVM 19+ prints them in place of llvm.dbg.* calls), and the older
#: form, a call of a debug intrinsic
_DBG_RECORD_RE = re.compile(r"^[ \t]*#dbg_(?:value|declare|assign|label)\(.*\r?\n", re.M)
_DBG_CALL_RE = re.compile(
    r"^[ \t]*(?:(?:tail|notail)[ \t]+)?call[ \t]+void[ \t]+@llvm\.dbg\.(?:value|declare|assign|label)\(.*\r?\n",
    re.M)
#: ``, !dbg !12`` after an instruction, `` !dbg !4`` on a define line, and the
#: ``!DIAssignID`` attachments that only #dbg_assign records refer to
_DBG_ATTACH_RE = re.compile(r"(?:,[ \t]*|[ \t]+)!(?:dbg|DIAssignID)[ \t]+!\d+(?![0-9])")


def strip_debug(body: str) -> tuple[str, int, int]:
    """``body`` (function definitions) without debug info: every ``!dbg !N`` attachment
    and every ``#dbg_*`` record (or ``llvm.dbg.*`` call) line dropped. The metadata nodes
    they named stay in the module, unreferenced, which the verifier accepts. Returns the
    text, the number of attachments and the number of record lines dropped."""
    body, records = _DBG_RECORD_RE.subn("", body)
    body, calls = _DBG_CALL_RE.subn("", body)
    body, attachments = _DBG_ATTACH_RE.subn("", body)
    return body, attachments, records + calls


def _renamed(m: re.Match[str], suffix: str) -> str:
    name = m.group(1)
    return f'@"{name[1:-1]}{suffix}"' if name.startswith('"') else f"@{name}{suffix}"


class Replica(NamedTuple):
    text: str
    #: how many copies of the functions the module holds
    copies: int
    #: ``!dbg`` attachments and ``#dbg_*`` records dropped from one copy
    dbg_attachments: int
    dbg_records: int


def replicate(path: str, lines: int) -> Replica:
    """``path``'s function definitions repeated, renamed ``@f.rN``, up to ``lines`` lines
    (everything else in the module is kept once). A subprogram belongs to one function
    only, so the functions lose their debug info first (:func:`strip_debug`)."""
    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        text = fh.read()
    bodies: list[str] = []
    rest: list[str] = []
    pos = 0
    for m in _DEFINE_RE.finditer(text):
        end = text.find("\n}\n", m.start())
        if m.start() < pos or end < 0:
            sys.exit(f"{path}: a function body that does not end with a '}}' line")
        rest.append(text[pos:m.start()])
        bodies.append(text[m.start():end + 3])
        pos = end + 3
    rest.append(text[pos:])
    if not bodies:
        sys.exit(f"{path}: no function definitions to repeat")
    body, attachments, records = strip_debug("".join(bodies))
    names = [m.group(1) for m in _DEFINE_RE.finditer(body)]
    ref = re.compile("@(" + "|".join(re.escape(n) for n in names) + r")(?![-a-zA-Z$._0-9])")
    head = "".join(rest)
    parts = [head]
    count = head.count("\n")
    per_copy = body.count("\n") + 1
    k = 0
    while k == 0 or count < lines:  # one copy at least
        # the first copy keeps its names (metadata such as !nvvm.annotations names them)
        parts.append(body if k == 0 else ref.sub(functools.partial(_renamed, suffix=f".r{k}"), body))
        parts.append("\n")
        count += per_copy
        k += 1
    return Replica("".join(parts), k, attachments, records)


# --------------------------------------------------------------------------- the reference copy
#
# opt-19 cannot read what newer LLVMs write (Triton 3.9 writes LLVM 22+ syntax). The
# reference reader then gets a copy rewritten to LLVM 19's syntax; llnoalias always reads
# the module as built. The copy only has to be read and verified by opt-19 (it is never
# compiled), but each rewrite keeps the meaning anyway where LLVM 19 can say it.

#: the rewrites of llnoalias/backends/bridge.py (written for llvmlite's LLVM 22) that
#: LLVM 19 needs as well: it lacks these spellings too
BRIDGE_REWRITES = ("amdgpu-versioned-triple", "float-bits-literal", "float-special-literal",
                   "amdgcn-async-lds-load", "amdgcn-asyncmark")

_CAPTURES_RE = re.compile(r"\bcaptures\(([^()]*)\)")
_NOCREATEUNDEF_RE = re.compile(r"\bnocreateundeforpoison\b")
_SAMESIGN_RE = re.compile(r"\bicmp[ \t]+samesign\b")


def _captures(text: str) -> tuple[str, int]:
    # LLVM 21's captures(none) is LLVM 19's nocapture; the partial forms (captures(address),
    # captures(ret: ...)) have no LLVM 19 spelling: without one, the argument may be captured
    return _CAPTURES_RE.subn(lambda m: "nocapture" if m.group(1).strip() == "none" else "", text)


def _nocreateundeforpoison(text: str) -> tuple[str, int]:
    # LLVM 22's "the result is never undef/poison from defined operands": dropping a
    # promise only makes the function less known
    return _NOCREATEUNDEF_RE.subn("", text)


def _samesign(text: str) -> tuple[str, int]:
    # LLVM 20's "both operands have the same sign": without it the compare is the same
    return _SAMESIGN_RE.subn("icmp", text)


#: (name, a substring without which there is nothing to do, rewrite) written here for the
#: syntax that LLVM 22 reads (so bridge.py has no rewrite for it) and LLVM 19 does not.
#: GEP nuw/nusw flags need none: opt-19 reads them.
SCRIPT_REWRITES: tuple[tuple[str, str, Callable[[str], tuple[str, int]]], ...] = (
    ("captures-attribute", "captures(", _captures),
    ("nocreateundeforpoison", "nocreateundeforpoison", _nocreateundeforpoison),
    ("icmp-samesign", "samesign", _samesign),
)


def reference_rewrites() -> list[tuple[str, str, Callable[[str], tuple[str, int]]]]:
    """The rewrites to LLVM 19 syntax, bridge.py's first (imported from this checkout)."""
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    from llnoalias.backends import bridge

    table = {r.name: r for r in bridge.REWRITES}
    missing = [name for name in BRIDGE_REWRITES if name not in table]
    if missing:
        sys.exit(f"llnoalias/backends/bridge.py has no rewrite {', '.join(missing)} any more: update BRIDGE_REWRITES")
    return [(n, table[n].needle, table[n].apply) for n in BRIDGE_REWRITES] + list(SCRIPT_REWRITES)


def reference_copy(text: str) -> tuple[str, list[tuple[str, int]]]:
    """``text`` in LLVM 19's syntax, for the reference reader only, and the rewrites it
    needed with the number of places each rewrote (empty when opt-19 reads it as it is)."""
    rewrites = reference_rewrites()  # (puts this checkout's llnoalias on the path)
    from llnoalias.backends.bridge import apply_rewrites

    return apply_rewrites(text, rewrites)


class Files(NamedTuple):
    #: the module as built: what llnoalias reads
    module: str
    #: what opt reads: the module itself, or its copy in LLVM 19's syntax
    reference: str
    #: the rewrites the copy needed (empty: no copy)
    rewrites: list[tuple[str, int]]


def write_module(text: str, tmp: str, name: str = "big") -> Files:
    path = os.path.join(tmp, f"{name}.ll")
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as fh:
        fh.write(text)
    ref_text, rewrites = reference_copy(text)
    ref = path
    if rewrites:
        ref = os.path.join(tmp, f"{name}.llvm19.ll")
        with open(ref, "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.write(ref_text)
    return Files(path, ref, rewrites)


def llnoalias_cmd(files: Files, out: str, jobs: int | None = None, opts: str = "", verify: bool = False) -> list[str]:
    """The timed command: llnoalias reads the module as built, never the reference copy.
    ``jobs``: its ``-j`` (None: its default, one process per CPU for a large module);
    ``opts``: more options, one string as a shell splits it; ``verify``: check the output
    (the default of a plain run) instead of ``--no-verify``."""
    cmd = [sys.executable, "-m", "llnoalias", files.module, *shlex.split(opts),
           *([] if verify else ["--no-verify"]), "-o", out]
    return cmd if jobs is None else [*cmd, "-j", str(jobs)]


def describe_rewrites(rewrites: list[tuple[str, int]]) -> str:
    return ", ".join(f"{name} ({n}x)" for name, n in rewrites) or "none"


def opt_error(opt: str, path: str) -> str | None:
    """None when ``opt -passes=verify`` accepts ``path``, else its first error line."""
    proc = subprocess.run([opt, "-passes=verify", "-disable-output", path], capture_output=True, text=True)
    if proc.returncode == 0:
        return None
    lines = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip()]
    # a parse error names itself "error:"; a verifier failure is its first line
    first = next((ln for ln in lines if "error:" in ln), lines[0] if lines else f"exit status {proc.returncode}")
    return first.replace(path, os.path.basename(path))


# --------------------------------------------------------------------------- timing

class Timing(NamedTuple):
    wall: float
    #: user+sys: steadier than the wall time on a machine that others share
    cpu: float
    #: peak resident set size in bytes (``ru_maxrss`` from ``wait4``: the largest of the
    #: process and the children it waited for; workers that share pages count once each)
    rss: int = 0


def run_once(cmd: list[str], env: dict[str, str] | None = None) -> Timing:
    """One run of ``cmd``: its wall time and user+sys CPU (children included)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{cmd[0]} failed: {err.decode(errors='replace')[:2000]}")
    return Timing(dt, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)


def round_robin(cmds: dict[str, tuple[list[str], dict[str, str] | None]], repeat: int) -> dict[str, Timing]:
    """Each command ``repeat`` times, in turn (one run of each, then again), and the best
    wall time and the best CPU time of each: a machine that others share slows a round of
    all of them alike, where runs one command after the other would each meet another
    load."""
    best = {name: Timing(float("inf"), float("inf"), 0) for name in cmds}
    for _ in range(repeat):
        for name, (cmd, env) in cmds.items():
            got = run_once(cmd, env)
            # the peak memory does not depend on the load: the largest seen
            best[name] = Timing(min(best[name].wall, got.wall), min(best[name].cpu, got.cpu),
                                max(best[name].rss, got.rss))
    return best


def find_opt(explicit: str | None) -> str | None:
    for cand in [explicit, "opt-19", "/usr/lib/llvm-19/bin/opt", "opt"]:
        if cand and (shutil.which(cand) or os.path.exists(cand)):
            return shutil.which(cand) or cand
    return None


READERS = ("compiled", "pure Python")
#: the row of ``--against``'s checkout
BEFORE = "before"


class Measured(NamedTuple):
    lines: int
    megabytes: float
    #: per reader: the best of --repeat runs, None when the compiled reader is not built
    runs: dict[str, Timing | None]
    #: alias.scope attachments in llnoalias's output (0: it annotated nothing)
    annotated: int
    files: Files
    #: the reference run, None with the reason in no_reference
    ref: Timing | None
    no_reference: str | None


def llnoalias_env() -> dict[str, str]:
    # bytecode as an installed copy has it (PYTHONDONTWRITEBYTECODE would recompile each run)
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "LLNOALIAS_PURE")}


def compiled_reader_built(env: dict[str, str]) -> bool:
    return subprocess.run([sys.executable, "-c", "from llnoalias import compiled; print(compiled.load('body_reader') is not None)"],
                          capture_output=True, text=True, env=env, cwd=ROOT).stdout.strip() == "True"


def against_cmd(checkout: str, cmd: list[str]) -> list[str]:
    """``cmd`` (an ``llnoalias_cmd``) run by another checkout's llnoalias: the console
    script of its own virtual environment (``make install``), which imports that
    checkout's code whatever the working directory."""
    script = os.path.join(checkout, ".venv", "bin", "llnoalias")
    if not os.path.exists(script):
        sys.exit(f"--against {checkout}: no {script} (run `make install` there)")
    assert cmd[1:3] == ["-m", "llnoalias"], cmd
    return [script, *cmd[3:]]


def measure(text: str, tmp: str, repeat: int, opt: str | None, compiled: bool, name: str = "big",
            jobs: int | None = None, opts: str = "", verify: bool = False, against: str | None = None) -> Measured:
    """llnoalias (compiled when built, and pure Python) and ``opt -passes=verify`` on
    ``text``, round-robin, best of ``repeat``; with ``against`` (another checkout), that
    checkout's llnoalias too, as the row "before"."""
    files = write_module(text, tmp, name)
    out = os.path.join(tmp, f"{name}.out.ll")
    cmd = llnoalias_cmd(files, out, jobs, opts, verify)
    env = llnoalias_env()
    cmds: dict[str, tuple[list[str], dict[str, str] | None]] = {}
    if against is not None:
        cmds[BEFORE] = (against_cmd(against, llnoalias_cmd(files, out + ".before", jobs, opts, verify)), env)
    if compiled:
        cmds["compiled"] = (cmd, env)
    cmds["pure Python"] = (cmd, {**env, "LLNOALIAS_PURE": "1"})
    why: str | None = None
    if opt is None:
        why = "opt not found: no reference run (install llvm-19)"
    else:
        err = opt_error(opt, files.reference)
        if err is not None:
            why = f"{opt} cannot read the module: {err}"
        else:
            cmds["opt"] = ([opt, "-passes=verify", "-disable-output", files.reference], None)
    best = round_robin(cmds, repeat)
    runs: dict[str, Timing | None] = {reader: best.get(reader) for reader in READERS}
    if against is not None:
        runs[BEFORE] = best[BEFORE]
    with open(out, encoding="utf-8", errors="surrogateescape") as fh:
        annotated = fh.read().count("!alias.scope !")
    return Measured(text.count("\n"), len(text) / 1e6, runs, annotated, files, best.get("opt"), why)


def report(m: Measured, opt: str | None, opts: str = "", verify: bool = False) -> None:
    """The lines of the single-module run (the output before --suite existed, plus the
    reference copy's rewrites when it needed any)."""
    how = ("verified" if verify else "no verify") + (f", {opts}" if opts else "")
    for name, got in m.runs.items():
        print(f"llnoalias (annotate, {how}, {name}): "
              + (f"{got.wall:.2f} s (cpu {got.cpu:.2f} s), peak {_mb(got)}" if got is not None else "not built here"))
    if m.files.rewrites:
        print(f"reference copy for opt (LLVM 19 syntax; llnoalias reads the original): "
              f"{describe_rewrites(m.files.rewrites)}")
    if m.ref is None:
        print(m.no_reference if opt is None else f"{m.no_reference}\nno reference")
        return
    print(f"{opt} -passes=verify: {m.ref.wall:.2f} s (cpu {m.ref.cpu:.2f} s), peak {_mb(m.ref)}")
    for name, got in m.runs.items():
        if got is not None:
            print(f"ratio llnoalias / opt ({name}): {got.wall / m.ref.wall:.2f}x wall, {got.cpu / m.ref.cpu:.2f}x cpu, "
                  f"{got.rss / m.ref.rss:.2f}x peak memory")
    print(f"load average {os.getloadavg()[0]:.2f}")


#: the --suite modules: None is the generated LDS-dense module, the others are repeated
#: (debug info stripped) up to --lines; the table has SMALL_KERNELS small kernels
#: (``--small``), alike and then distinct (``--varied``), after the generated module
SUITE: tuple[str | None, ...] = (
    None,
    "fixtures/corpus/clang19/hip_gemm_O3.ll",
    "fixtures/corpus/clang19/cuda_gemm_O3.ll",
    "fixtures/corpus/triton39/matmul_128x128x64_w8s2_gfx942.ll",
    "fixtures/corpus/triton39/attn_fwd_gfx942.ll",
)


def _mb(t: Timing) -> str:
    return f"{t.rss / 2**20:.0f} MiB"


def _cell(t: Timing | None) -> str:
    return "not built" if t is None else f"{t.wall:.2f} (cpu {t.cpu:.2f}, {_mb(t)})"


def _ratio(t: Timing | None, ref: Timing | None) -> str:
    if t is None:
        return "not built"
    if ref is None:
        return "no reference"
    return f"{t.wall / ref.wall:.2f}x (cpu {t.cpu / ref.cpu:.2f}x, memory {t.rss / ref.rss:.2f}x)"


#: the --suite's many small kernels
SMALL_KERNELS = 20_000


def suite(lines: int, repeat: int, opt: str | None, jobs: int | None = None, opts: str = "",
          verify: bool = False, against: str | None = None) -> None:
    """One markdown table for the SUITE modules; progress goes to stderr."""
    from llnoalias.transform.workers import usable_cpus  # what llnoalias's -j 0 counts

    compiled = compiled_reader_built(llnoalias_env())
    rows: list[str] = []
    notes: list[str] = []
    for source in (SUITE[0], "small", "varied", *SUITE[1:]):
        label = ("generated LDS-dense" if source is None else f"{SMALL_KERNELS} small kernels" if source == "small"
                 else f"{SMALL_KERNELS} distinct small kernels" if source == "varied"
                 else source.replace("fixtures/corpus/", ""))
        print(f"{label} ...", file=sys.stderr, flush=True)
        if source is None:
            text = build(lines)
        elif source in ("small", "varied"):
            text = build_small(SMALL_KERNELS, varied=source == "varied")
        else:
            replica = replicate(os.path.join(ROOT, source), lines)
            text = replica.text
            if replica.dbg_attachments or replica.dbg_records:
                notes.append(f"{label}: debug info stripped ({replica.dbg_attachments} !dbg attachments, "
                             f"{replica.dbg_records} #dbg_ records per copy; {replica.copies} copies)")
        with tempfile.TemporaryDirectory() as tmp:
            m = measure(text, tmp, repeat, opt, compiled, jobs=jobs, opts=opts, verify=verify, against=against)
        if m.files.rewrites:
            notes.append(f"{label}: opt read a copy in LLVM 19 syntax: {describe_rewrites(m.files.rewrites)}")
        if m.no_reference is not None:
            notes.append(f"{label}: no reference: {m.no_reference}")
        c, p = m.runs["compiled"], m.runs["pure Python"]
        before = "" if against is None else f" {_cell(m.runs[BEFORE])} | {_ratio(m.runs[BEFORE], m.ref)} |"
        rows.append(f"| {label} | {m.lines} |{before} {_cell(c)} | {_cell(p)} "
                    f"| {_cell(m.ref) if m.ref else 'no reference'} "
                    f"| {_ratio(c, m.ref)} | {_ratio(p, m.ref)} | {m.annotated} |")
    print(f"best of {repeat}, round-robin; opt: {opt or 'not found'} -passes=verify -disable-output; "
          f"llnoalias: annotate {opts + ' ' if opts else ''}{'(verified)' if verify else '--no-verify'} "
          f"{_jobs_words(jobs)}; times in s (wall, cpu = user+sys, workers and checking child included); "
          f"{usable_cpus()} CPUs, load average {os.getloadavg()[0]:.2f}; "
          f"peak memory: RSS from wait4\n")
    if against is not None:
        print(f"before: {against}'s llnoalias, round-robin with the others\n")
    before = "" if against is None else " before (s) | before / opt |"
    print(f"| module | lines |{before} llnoalias, compiled (s) | llnoalias, pure Python (s) | opt (s) "
          "| compiled / opt | pure / opt | !alias.scope written |")
    print("|---|---:|" + ("---:|---:|" if against is not None else "") + "---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    if notes:
        print()
        print("\n".join(f"- {n}" for n in notes))


def _jobs_words(jobs: int | None) -> str:
    return "(-j default: one process per CPU)" if jobs is None else f"-j {jobs}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=240_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--opt", default=None)
    ap.add_argument("--from", dest="source", default=None, help="repeat this module's functions instead")
    ap.add_argument("--jobs", "-j", type=int, default=None,
                    help="llnoalias's -j (default: its own, one process per CPU for a large module)")
    ap.add_argument("--opts", default="", metavar="OPTIONS",
                    help="more llnoalias options, one string (--opts='--lds all')")
    ap.add_argument("--verify", action="store_true",
                    help="check the output as a plain run does (default: --no-verify)")
    ap.add_argument("--small", type=int, default=None, metavar="N",
                    help="N small kernels (one load, one store, noalias arguments) instead")
    ap.add_argument("--varied", action="store_true",
                    help="with --small: distinct small kernels (types, names, arguments, loads vary), "
                         "not N copies of one")
    ap.add_argument("--rich", action="store_true",
                    help="with --small: N distinct tiled kernels instead (rich_kernel: a loop, LDS between "
                         "barriers, one to three inputs, a guarded store; about 40 lines each)")
    ap.add_argument("--suite", action="store_true",
                    help="time the generated module and the SUITE corpus modules, one markdown table")
    ap.add_argument("--against", default=None, metavar="CHECKOUT",
                    help="another checkout of llnoalias (with its own .venv from `make install`, e.g. "
                         "`git worktree add ../before REV`): its llnoalias runs round-robin beside this "
                         "one's, as the row 'before'")
    args = ap.parse_args()
    opt = find_opt(args.opt)
    if args.suite:
        if args.source or args.small:
            ap.error("--suite excludes --from and --small")
        suite(args.lines, args.repeat, opt, args.jobs, args.opts, args.verify, args.against)
        return
    if args.source and args.small:
        ap.error("--from and --small exclude each other")
    if (args.varied or args.rich) and not args.small:
        ap.error("--varied and --rich need --small N")
    if args.rich:
        text = build_rich(args.small)
    elif args.small:
        text = build_small(args.small, args.varied)
    elif args.source:
        replica = replicate(args.source, args.lines)
        text = replica.text
        if replica.dbg_attachments or replica.dbg_records:
            print(f"debug info stripped from the repeated functions: {replica.dbg_attachments} !dbg "
                  f"attachments and {replica.dbg_records} #dbg_ records per copy")
    else:
        text = build(args.lines)
    with tempfile.TemporaryDirectory() as tmp:
        print(f"module: {text.count(chr(10))} lines, {len(text) / 1e6:.1f} MB")
        m = measure(text, tmp, args.repeat, opt, compiled_reader_built(llnoalias_env()), jobs=args.jobs,
                    opts=args.opts, verify=args.verify, against=args.against)
        report(m, opt, args.opts, args.verify)


if __name__ == "__main__":
    main()
