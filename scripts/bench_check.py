#!/usr/bin/env python3
"""What the check costs: ``llnoalias check`` and a checked ``compile`` against ``compile
--no-check`` on one module, round-robin in one sitting.

    python scripts/bench_check.py [--runs 5] [--file FILE(.ll|.ll.gz)] [--mcpu CPU] [--codegen triton]

The bar: ``check`` on FlyDSL's K=4096 GEMM (the default file) within 1.3x of
``compile`` on it; on a real pipelined kernel (Triton's gfx950 matmul, ``--codegen triton``),
within 2x. Prints the median wall and CPU time of each command and the ratios to
``compile --no-check``. The code generator is llvmlite's LLVM in a child process; the check
finds the footprints while it runs, so a free second core shows in the wall column.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_latency import timed  # noqa: E402

DEFAULT = os.path.join(ROOT, "fixtures", "corpus", "flydsl", "fp8_gemm_4wave_gfx950_k4096.ll.gz")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--file", default=DEFAULT)
    ap.add_argument("--mcpu", default=None)
    ap.add_argument("--codegen", default=None, help="llvmlite or triton (a Triton module's explicit waits need triton)")
    args = ap.parse_args(argv)
    exe = os.path.join(os.path.dirname(sys.executable), "llnoalias")
    cli = [exe] if os.path.exists(exe) else [sys.executable, "-m", "llnoalias"]
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        src = args.file
        if src.endswith(".gz"):
            src = os.path.join(tmp, os.path.basename(src)[:-3])
            with gzip.open(args.file, "rt") as fh, open(src, "w") as out:
                out.write(fh.read())
        cpu = (["--mcpu", args.mcpu] if args.mcpu else []) + (["--codegen", args.codegen] if args.codegen else [])
        out_s = os.path.join(tmp, "out.s")
        cmds = {
            "compile --no-check": [*cli, "compile", *cpu, "--no-check", src, "-o", out_s],
            "compile (checked)": [*cli, "compile", *cpu, src, "-o", out_s],
            "check": [*cli, "check", *cpu, src],
        }
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in cmds}
        for cmd in cmds.values():  # warm-up: bytecode, page cache
            timed(cmd, env)
        for _ in range(args.runs):
            for name, cmd in cmds.items():
                times[name].append(timed(cmd, env))
    base_w = statistics.median(w for w, _ in times["compile --no-check"])
    base_c = statistics.median(c for _, c in times["compile --no-check"])
    print(f"{os.path.relpath(args.file, ROOT)}, {args.runs} runs, load average {os.getloadavg()[0]:.2f}")
    print(f"{'command':22} {'wall s':>8} {'cpu s':>8} {'wall x':>7} {'cpu x':>7}")
    for name, ts in times.items():
        w = statistics.median(t[0] for t in ts)
        c = statistics.median(t[1] for t in ts)
        print(f"{name:22} {w:8.2f} {c:8.2f} {w / base_w:7.2f} {c / base_c:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
