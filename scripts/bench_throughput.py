#!/usr/bin/env python3
"""Throughput: annotate a large generated AMDGPU module and compare with the time
``opt -passes=verify`` takes to read the same file on this machine.

    python scripts/bench_throughput.py [--lines 240000] [--repeat 3] [--opt PATH] [--from FILE]

With ``--from FILE`` the module is real compiler output instead: FILE's function
definitions repeated (each copy renamed) until the module has ``--lines`` lines, e.g.
``--from fixtures/corpus/clang19/hip_gemm_O3.ll``.

Prints the wall time of each (best of --repeat runs) and the ratio llnoalias / opt, for
llnoalias with its compiled reader (llnoalias/ir/_cscan.c, when it was built) and with the
pure-Python one (LLNOALIAS_PURE=1). The issue's bar: a 240k-line module within 2x of
opt-19's verify.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import NamedTuple

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


def _renamed(name: str, k: int) -> str:
    return f'@"{name[1:-1]}.r{k}"' if name.startswith('"') else f"@{name}.r{k}"


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
    while count < lines:
        # the first copy keeps its names (metadata such as !nvvm.annotations names them)
        parts.append(body if k == 0 else ref.sub(lambda m, k=k: _renamed(m.group(1), k), body))
        parts.append("\n")
        count += per_copy
        k += 1
    return Replica("".join(parts), k, attachments, records)


#: the CPU time (user+sys) of the best run of the last best_of(): steadier than the wall
#: time on a machine that others share
last_cpu: list[float] = [0.0]


def best_of(cmd: list[str], repeat: int, env: dict[str, str] | None = None) -> float:
    best = float("inf")
    best_cpu = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                                cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        dt = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{cmd[0]} failed: {err.decode(errors='replace')[:2000]}")
        best = min(best, dt)
        best_cpu = min(best_cpu, usage.ru_utime + usage.ru_stime)
    last_cpu[0] = best_cpu
    return best


def find_opt(explicit: str | None) -> str | None:
    for cand in [explicit, "opt-19", "/usr/lib/llvm-19/bin/opt", "opt"]:
        if cand and (shutil.which(cand) or os.path.exists(cand)):
            return shutil.which(cand) or cand
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=240_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--opt", default=None)
    ap.add_argument("--from", dest="source", default=None, help="repeat this module's functions instead")
    args = ap.parse_args()
    if args.source:
        replica = replicate(args.source, args.lines)
        text = replica.text
        if replica.dbg_attachments or replica.dbg_records:
            print(f"debug info stripped from the repeated functions: {replica.dbg_attachments} !dbg "
                  f"attachments and {replica.dbg_records} #dbg_ records per copy")
    else:
        text = build(args.lines)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "big.ll")
        with open(path, "w") as fh:
            fh.write(text)
        n_lines = text.count("\n")
        print(f"module: {n_lines} lines, {len(text) / 1e6:.1f} MB")
        cmd = [sys.executable, "-m", "llnoalias", path, "--no-verify", "-o", os.path.join(tmp, "o.ll")]
        # bytecode as an installed copy has it (PYTHONDONTWRITEBYTECODE would recompile each run)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "LLNOALIAS_PURE")}
        compiled = subprocess.run([sys.executable, "-c", "import llnoalias.ir.native as n; print(n.cscan is not None)"],
                                  capture_output=True, text=True, env=env,
                                  cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))).stdout.strip() == "True"
        runs: dict[str, tuple[float, float] | None] = {"compiled reader": None, "pure Python reader": None}
        if compiled:
            runs["compiled reader"] = (best_of(cmd, args.repeat, env), last_cpu[0])
        runs["pure Python reader"] = (best_of(cmd, args.repeat, {**env, "LLNOALIAS_PURE": "1"}), last_cpu[0])
        for name, got in runs.items():
            print(f"llnoalias (annotate, no verify, {name}): "
                  + (f"{got[0]:.2f} s (cpu {got[1]:.2f} s)" if got is not None else "not built here"))
        opt = find_opt(args.opt)
        if opt is None:
            print("opt not found: no reference run (install llvm-19)")
            return
        ref = best_of([opt, "-passes=verify", "-disable-output", path], args.repeat)
        ref_cpu = last_cpu[0]
        print(f"{opt} -passes=verify: {ref:.2f} s (cpu {ref_cpu:.2f} s)")
        for name, got in runs.items():
            if got is not None:
                print(f"ratio llnoalias / opt ({name}): {got[0] / ref:.2f}x wall, {got[1] / ref_cpu:.2f}x cpu")


if __name__ == "__main__":
    main()
