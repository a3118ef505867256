#!/usr/bin/env python3
"""Peak memory of llnoalias on a large module, next to ``opt -passes=verify`` on it.

    python scripts/bench_memory.py                 # 1.2M lines
    python scripts/bench_memory.py --lines 200000 --keep /tmp/big.ll
    python scripts/bench_memory.py --tracemalloc   # where llnoalias's memory goes

The module is AMDGPU IR shaped like real kernels: many kernels, each with dynamic LDS
roots reached through getelementptr, ptrtoint/add/inttoptr round trips and a
loop-carried pointer phi, global loads and stores through its arguments, atomics, and
``!dbg`` locations. Peak RSS of each child is read from ``wait4``'s rusage.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

LDS = 8  # dynamic LDS roots in the module


def kernel(k: int, dbg0: int) -> tuple[list[str], int]:
    """One kernel (about 60 lines) and the next free !dbg id."""
    a, b = f"@lds{k % LDS}", f"@lds{(k + 1) % LDS}"
    d = dbg0
    lines = [
        f"define amdgpu_kernel void @kernel_{k}(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %in, i32 %n) #0 {{",
        "entry:",
        "  %tid = tail call i32 @llvm.amdgcn.workitem.id.x()",
        "  %wg = tail call i32 @llvm.amdgcn.workgroup.id.x()",
        "  %base = shl i32 %wg, 8",
        "  %gid = add i32 %base, %tid",
        "  %gid64 = zext i32 %gid to i64",
        "  %off = shl i32 %tid, 2",
        f"  %pa = getelementptr inbounds i8, ptr addrspace(3) {a}, i32 %off",
        f"  %ib = ptrtoint ptr addrspace(3) {b} to i32",
        "  %ib2 = add i32 %ib, %off",
        "  %pb = inttoptr i32 %ib2 to ptr addrspace(3)",
        "  %gin = getelementptr inbounds float, ptr addrspace(1) %in, i64 %gid64",
        f"  %x = load float, ptr addrspace(1) %gin, align 4, !dbg !{d}",
        f"  store float %x, ptr addrspace(3) %pa, align 4, !dbg !{d + 1}",
        "  fence syncscope(\"workgroup\") release",
        "  tail call void @llvm.amdgcn.s.barrier()",
        "  fence syncscope(\"workgroup\") acquire",
        "  %cmp0 = icmp sgt i32 %n, 0",
        "  br i1 %cmp0, label %loop, label %exit",
        "",
        "loop:                                             ; preds = %entry, %loop",
        "  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]",
        "  %p = phi ptr addrspace(3) [ %pa, %entry ], [ %p.next, %loop ]",
        "  %acc = phi float [ 0.000000e+00, %entry ], [ %acc.next, %loop ]",
        f"  %v = load float, ptr addrspace(3) %p, align 4, !dbg !{d + 2}",
        "  %q.off = shl i32 %i, 2",
        "  %q = getelementptr inbounds i8, ptr addrspace(3) %pb, i32 %q.off",
        f"  %w = load float, ptr addrspace(3) %q, align 4, !dbg !{d + 3}",
        "  %m = fmul contract float %v, %w",
        "  %acc.next = fadd contract float %acc, %m",
        f"  store float %acc.next, ptr addrspace(3) %q, align 4, !dbg !{d + 4}",
        "  %p.next = getelementptr inbounds i8, ptr addrspace(3) %p, i32 4",
        "  %i.next = add nuw nsw i32 %i, 1",
        "  %c = icmp slt i32 %i.next, %n",
        "  br i1 %c, label %loop, label %exit, !llvm.loop !1",
        "",
        "exit:                                             ; preds = %loop, %entry",
        "  %r = phi float [ 0.000000e+00, %entry ], [ %acc.next, %loop ]",
        f"  %old = atomicrmw fadd ptr addrspace(3) {a}, float %r syncscope(\"workgroup\") monotonic, align 4",
        "  %gout = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid64",
        f"  store float %r, ptr addrspace(1) %gout, align 4, !dbg !{d + 5}",
        "  ret void",
        "}",
        "",
    ]
    return lines, d + 6


def generate(n_lines: int) -> str:
    head = ['; ModuleID = "bench"', 'source_filename = "bench.hip"',
            'target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32'
            '-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512'
            '-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"',
            'target triple = "amdgcn-amd-amdhsa"', ""]
    head += [f"@lds{i} = external addrspace(3) global [0 x i8], align 16" for i in range(LDS)]
    head.append("")
    body: list[str] = []
    dbg: list[str] = []
    d = 10
    k = 0
    # each kernel is ~45 lines of code and 6 lines of metadata
    while len(head) + len(body) + len(dbg) + 20 < n_lines:
        sp = d
        lines, d2 = kernel(k, d + 1)
        body += lines
        dbg.append(f"!{sp} = distinct !DISubprogram(name: \"kernel_{k}\", scope: !3, file: !3, line: {k + 1}, "
                   "unit: !2, spFlags: DISPFlagDefinition)")
        for j in range(d + 1, d2):
            dbg.append(f"!{j} = !DILocation(line: {k + 1}, column: {j - d}, scope: !{sp})")
        d = d2
        k += 1
    tail = ["declare i32 @llvm.amdgcn.workitem.id.x()", "declare i32 @llvm.amdgcn.workgroup.id.x()",
            "declare void @llvm.amdgcn.s.barrier()", "",
            'attributes #0 = { "amdgpu-flat-work-group-size"="1,256" "target-cpu"="gfx942" }', "",
            "!llvm.dbg.cu = !{!2}", "!llvm.module.flags = !{!4}",
            "!1 = distinct !{!1}",
            '!2 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !3, emissionKind: LineTablesOnly)',
            '!3 = !DIFile(filename: "bench.hip", directory: ".")',
            '!4 = !{i32 2, !"Debug Info Version", i32 3}']
    return "\n".join(head + body + tail + dbg) + "\n"


def peak_rss(cmd: list[str]) -> tuple[int, float, int]:
    """(peak RSS in bytes, wall seconds, exit status) of ``cmd``."""
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(cmd, stdout=null, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read() if proc.stderr else b""
    if proc.returncode != 0:
        sys.stderr.write(err.decode("utf-8", "replace")[-2000:])
    return usage.ru_maxrss * 1024, time.perf_counter() - t0, proc.returncode


def find_opt() -> str | None:
    for cand in ("opt-19", "/usr/lib/llvm-19/bin/opt", "opt"):
        path = shutil.which(cand) or (cand if os.path.exists(cand) else None)
        if path:
            return path
    return None


def mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


def tracemalloc_report(path: str, top: int = 15) -> None:
    import tracemalloc

    from llnoalias.fileio import read_input
    from llnoalias.options import AnnotateOptions
    from llnoalias.transform.pipeline import annotate_text

    tracemalloc.start(8)
    text = read_input(path)
    snap0 = tracemalloc.take_snapshot()
    res = annotate_text(text, path, AnnotateOptions())
    cur, peak = tracemalloc.get_traced_memory()
    snap = tracemalloc.take_snapshot()
    print(f"tracemalloc: current {mib(cur)}, peak {mib(peak)} (text itself {mib(sys.getsizeof(text))})")
    print(f"top {top} allocation sites alive after annotate_text (by line):")
    for stat in snap.compare_to(snap0, "lineno")[:top]:
        print("  ", stat)
    del res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=1_200_000)
    ap.add_argument("--keep", metavar="PATH", help="write the module here and keep it")
    ap.add_argument("--tracemalloc", action="store_true", help="also show where llnoalias's memory goes")
    ap.add_argument("--no-opt", action="store_true", help="do not run opt")
    args = ap.parse_args()

    # The baseline first: a child's peak RSS counts what it inherited from this process
    # at fork time, so it is measured before the module exists here.
    base_peak, _, _ = peak_rss([sys.executable, "-c", "import llnoalias.cli"])
    t0 = time.perf_counter()
    text = generate(args.lines)
    path = args.keep or os.path.join(tempfile.mkdtemp(prefix="llnoalias-bench-"), "big.ll")
    with open(path, "w") as fh:
        fh.write(text)
    size = os.path.getsize(path)
    n_lines = text.count("\n")
    del text
    print(f"module: {path}: {n_lines} lines, {mib(size)} (generated in {time.perf_counter() - t0:.1f} s)")

    ll_peak, ll_wall, rc = peak_rss([sys.executable, "-m", "llnoalias.cli", "--no-verify", path, "-o", os.devnull])
    print(f"llnoalias --no-verify: peak RSS {mib(ll_peak)}, {ll_wall:.1f} s, exit {rc}")
    print(f"  (python + llnoalias imported, no input: {mib(base_peak)})")
    print(f"  llnoalias peak / file size: {ll_peak / size:.2f}x "
          f"(without the interpreter baseline: {(ll_peak - base_peak) / size:.2f}x)")
    opt = None if args.no_opt else find_opt()
    if opt:
        opt_peak, opt_wall, orc = peak_rss([opt, "-passes=verify", "-disable-output", path])
        print(f"{os.path.basename(opt)} -passes=verify -disable-output: peak RSS {mib(opt_peak)}, "
              f"{opt_wall:.1f} s, exit {orc}")
        print(f"  opt peak / file size: {opt_peak / size:.2f}x")
        print(f"  llnoalias / opt: {ll_peak / opt_peak:.2f}x")
    else:
        print("opt not found (apt-get install llvm-19); skipped")
    if args.tracemalloc:
        tracemalloc_report(path)
    if not args.keep:
        os.unlink(path)
        os.rmdir(os.path.dirname(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
