#!/usr/bin/env python3
"""What the Triton hook changes in real Triton kernels: the "Triton" numbers of docs/performance.md.

Compiles two kernels ahead of time (no GPU needed) for AMDGPU targets, once without and once
with ``llnoalias.triton.enable(args="noalias")``, each into a fresh Triton cache:

- ``matmul``: a tiled fp16 ``tl.dot`` matmul (tiles staged through LDS), two tile shapes;
- ``chain``: a loop that stores one buffer and then loads another, the shape where LLVM must
  otherwise assume the load reads what the store wrote.

For each it prints the report's tagged/total accesses (plus ``!invariant.load``s) and the
``s_waitcnt`` counts of the generated assembly (``llnoalias.stats.counters``, what
``llnoalias stats`` counts), plain -> hooked. Needs Triton (``pip install triton``).

    python scripts/bench_triton.py [--arch gfx942 gfx950]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
from typing import Any

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

try:
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
except ImportError:
    sys.exit("bench_triton: needs Triton (pip install triton)")

import llnoalias
import llnoalias.triton as hook
from llnoalias.stats import counters

# The matmul is the one the hook's tests compile (tests/support/_triton_kernels.py), loaded from its file:
# triton.jit reads a kernel's source, so it must live at a module's top level.
_spec = importlib.util.spec_from_file_location(
    "_triton_kernels", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                                    "support", "_triton_kernels.py"))
assert _spec is not None and _spec.loader is not None
_kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_kernels)
matmul = _kernels.matmul


@triton.jit
def chain(x_ptr, y_ptr, z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    off = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, 8):
        x = tl.load(x_ptr + off + i * n)
        tl.store(out_ptr + off + i * n, x * 2)
        acc += tl.load(y_ptr + off + i * n)
    tl.store(z_ptr + off, acc)


MATMUL_SIG = _kernels.MATMUL_SIGNATURE
CHAIN_SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "out_ptr": "*fp32",
             "n": "i32", "BLOCK": "constexpr"}

CASES: list[tuple[str, Any, dict[str, str], dict[str, int], dict[str, int]]] = [
    ("matmul 64x64x32", matmul, MATMUL_SIG, {"BM": 64, "BN": 64, "BK": 32}, {}),
    ("matmul 128x128x64 w8 s2", matmul, MATMUL_SIG, {"BM": 128, "BN": 128, "BK": 64},
     {"num_warps": 8, "num_stages": 2}),
    ("chain", chain, CHAIN_SIG, {"BLOCK": 256}, {}),
]
WAIT_KEYS = ("waits", "vmcnt", "vmcnt_zero", "lgkmcnt", "lgkmcnt_zero")


def compile_once(fn: Any, sig: dict[str, str], cx: dict[str, int], opts: dict[str, int],
                 arch: str) -> Any:
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench_triton_")
    src = triton.compiler.ASTSource(fn=fn, signature=sig, constexprs=cx)
    return triton.compile(src, target=GPUTarget("hip", arch, 64), options=opts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", nargs="+", default=["gfx942", "gfx950"])
    ns = ap.parse_args()
    print(f"triton {triton.__version__}, llnoalias {llnoalias.__version__}, options args=noalias")
    print(f"{'arch':8} {'kernel':26} {'tagged/total':>12} {'inv.load':>8}  "
          + "  ".join(f"{k:>12}" for k in WAIT_KEYS))
    for arch in ns.arch:
        for name, fn, sig, cx, opts in CASES:
            hook.disable()
            plain = compile_once(fn, sig, cx, opts, arch)
            hook.enable(args="noalias")
            hooked = compile_once(fn, sig, cx, opts, arch)
            hook.disable()
            summary = llnoalias.annotate(plain.asm["llir"], args="noalias").report.as_dict()["summary"]
            total = summary["tagged"] + summary["untagged"]
            a = counters.collect(plain.asm["amdgcn"], "plain").total
            b = counters.collect(hooked.asm["amdgcn"], "hooked").total
            waits = "  ".join(f"{f'{a.get(k, 0)} -> {b.get(k, 0)}':>12}" for k in WAIT_KEYS)
            tagged = f"{summary['tagged']}/{total}"
            print(f"{arch:8} {name:26} {tagged:>12} "
                  f"{summary['invariant_loads']:>8}  {waits}")


if __name__ == "__main__":
    main()
