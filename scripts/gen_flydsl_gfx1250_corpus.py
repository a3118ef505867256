#!/usr/bin/env python3
"""Regenerate FlyDSL's gfx1250 modules of the corpus: fixtures/corpus/flydsl/*gfx1250*.ll.gz.

FlyDSL's gfx1250 GEMMs (``kernels/gemm/gemm_a8w8_gfx1250.py``, ``gemm_a8w4_mxscale_gfx1250.py``,
``kernels/moe/moe_a8w4_mxscale_gfx1250.py`` of https://github.com/ROCm/FlyDSL) copy their tiles
with the tensor data mover, one wave per tile (``if wave == W_A: copy A``), and wait with
``tensor_wait(N)`` (``s.wait.tensorcnt``) before a barrier. They need FlyDSL 0.5.0 (PyPI; 0.4.2
lacks the gfx1250 ops); the repository's kernels import ``check_smem_capacity`` from
``flydsl.utils.smem_allocator``, which 0.5.0 moved to ``flydsl.runtime.device``: the child binds
it back under the old name (the kernel sources are not touched). As ``gen_flydsl_corpus.py``
does, each module compiles in a fresh child with ``COMPILE_ONLY=1``, ``ARCH`` and
``FLYDSL_GPU_ARCH=gfx1250``, and the LLVM IR FlyDSL hands to code generation
(``jit_function._extract_llvm_ir``) is written unchanged, gzip-compressed; the final ``ld.lld``
step fails here and is caught. The modules name no ``target-cpu``: ``check`` infers gfx1250
from the tensor data mover.

    python3 -m venv /work/venvs/fly5
    /work/venvs/fly5/bin/pip install flydsl==0.5.0 torch==2.13.0 numpy
    /work/venvs/fly5/bin/python scripts/gen_flydsl_gfx1250_corpus.py --flydsl-src DIR

Shapes (the FlyDSL tests' own cases): ``gemm_a8w8_ptpc_gfx1250_k512`` M=N=256, K=512, tiles
256x256x128, 2x2 waves, 4 buffers; ``gemm_a8w4_mxscale_gfx1250_k512`` M=128, N=256, K=512,
tiles 128x256x128, 2 buffers; ``..._k1024_nb3`` M=N=K=1024, 3 buffers;
``moe_a8w4_mxscale_gfx1250_k1024`` 4 experts, N=512, K=1024, tiles 64x256x256, 1x4 waves, 3
buffers; and five shapes more of the tests' cases (``JOBS``). Not run by the suite (FlyDSL and torch are not installed in CI).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from gen_flydsl_corpus import (  # the same capture, compile, gzip
    capture_llvm_ir,
    compile_and_write,
    write_gzip,
)

ROOT = Path(__file__).resolve().parent.parent
#: stem -> (kernel, its parameters): the FlyDSL tests' own cases
#: (tests/kernels/test_gemm_fp8fp4_gfx1250.py, test_moe_a8w4_mxscale_gfx1250.py)
JOBS: dict[str, tuple[str, dict[str, object]]] = {
    "gemm_a8w8_ptpc_gfx1250_k512": ("a8w8", dict(m=256, n=256, k=512, tile=(256, 256, 128), warps=(2, 2), nb=4)),
    "gemm_a8w4_mxscale_gfx1250_k512": ("mx", dict(m=128, n=256, k=512, tile=(128, 256, 128), warps=(2, 2), nb=2)),
    "gemm_a8w4_mxscale_gfx1250_k1024_nb3": ("mx", dict(m=1024, n=1024, k=1024, tile=(128, 256, 128), warps=(2, 2),
                                                       nb=3)),
    "moe_a8w4_mxscale_gfx1250_k1024": ("moe", dict(e=4, cm=256, n=512, k=1024, tile=(64, 256, 256), warps=(1, 4),
                                                   nb=3)),
    # shapes whose code tests the check otherwise: one copying wave per operand (1x2 waves, 2
    # buffers); flag blocks tested through scc (tile_k 256, 3 buffers); a 2x2 cluster (multicast
    # masks, cluster barriers signalled by one wave); MoE's cluster of 2 and its K loop (K=2048)
    "gemm_a8w8_ptpc_gfx1250_k512_w1x2": ("a8w8", dict(m=128, n=128, k=512, tile=(128, 128, 128), warps=(1, 2), nb=2)),
    "gemm_a8w8_ptpc_gfx1250_k1024_t256_nb3": ("a8w8", dict(m=128, n=128, k=1024, tile=(128, 128, 256), warps=(2, 2),
                                                           nb=3)),
    "gemm_a8w8_ptpc_gfx1250_k512_cluster2x2": ("a8w8", dict(m=384, n=256, k=512, tile=(128, 128, 128), warps=(2, 2),
                                                            nb=4, cluster=(2, 2))),
    "moe_a8w4_mxscale_gfx1250_k1024_cluster2": ("moe", dict(e=4, cm=256, n=512, k=1024, tile=(64, 256, 256),
                                                            warps=(1, 4), nb=3, cluster=(1, 2))),
    "moe_a8w4_mxscale_gfx1250_k2048": ("moe", dict(e=8, cm=256, n=512, k=2048, tile=(64, 256, 256), warps=(1, 4),
                                                   nb=3)),
}


def _child(spec: str, src: str, out: str) -> int:
    sys.path.insert(0, src)
    import flydsl.compiler as flyc
    import flydsl.compiler.jit_function as jf
    import flydsl.expr as fx
    import flydsl.runtime.device as dv
    import flydsl.utils.smem_allocator as sa
    import torch

    if not hasattr(sa, "check_smem_capacity"):
        sa.check_smem_capacity = dv.check_smem_capacity
    captured = capture_llvm_ir(jf)

    def ptr(elem=fx.Uint8):  # type: ignore[no-untyped-def]
        return flyc.from_c_void_p(elem, 0, assumed_align=16)

    which, p = json.loads(spec)
    tile, warps, nb = tuple(p["tile"]), tuple(p["warps"]), p["nb"]
    cluster = tuple(p.get("cluster", (1, 1)))
    if which == "a8w8":
        from kernels.gemm.gemm_a8w8_gfx1250 import launch_gemm_a8w8 as launch
        m, n, k = p["m"], p["n"], p["k"]
        blockscale = bool(p.get("blockscale", False))
        args: tuple[object, ...] = (ptr(), ptr(), ptr(), ptr(), ptr(), m, None, n, k, m if blockscale else 0, k, n,
                                    *tile, *warps, 0, nb, *cluster, blockscale)
    elif which == "mx":
        from kernels.gemm.gemm_a8w4_mxscale_gfx1250 import launch_gemm_a8w4_mxscale as launch
        m, n, k = p["m"], p["n"], p["k"]
        args = (torch.zeros(m, n, dtype=torch.bfloat16), ptr(fx.Int8), ptr(fx.Int8),
                torch.zeros((m + 31) // 32, k, dtype=torch.uint8), torch.zeros((n + 31) // 32, k, dtype=torch.uint8),
                m, None, n, k, k, n, *tile, *warps, 0, nb, *cluster)
    else:
        from kernels.moe.moe_a8w4_mxscale_gfx1250 import launch_moe_gemm_a8w4 as launch
        e, cm, n, k = p["e"], p["cm"], p["n"], p["k"]
        args = (torch.zeros(cm, n, dtype=torch.bfloat16), ptr(), ptr(),
                torch.zeros(cm // 2, k // 32 * 2, dtype=torch.int32), torch.zeros(e * n // 32, k // 32, dtype=torch.int32),
                cm, None, n, k, *tile, *warps, 0, nb, 0, ptr(), e, 0, 0, ptr(), 7.0, *cluster)
    return compile_and_write(flyc, launch, args, captured, out, f"gen_flydsl_gfx1250_corpus: {which}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flydsl-src", required=True, help="a FlyDSL checkout (the folder holding kernels/)")
    ap.add_argument("--out", default=str(ROOT / "fixtures" / "corpus" / "flydsl"))
    ap.add_argument("--only", nargs="+", default=None, help="the stems to regenerate (default: all)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        return _child(a.child[0], a.flydsl_src, a.child[1])
    with tempfile.TemporaryDirectory() as tmp:
        for stem, job in JOBS.items():
            if a.only and stem not in a.only:
                continue
            env = {k: v for k, v in os.environ.items() if not k.startswith(("FLYDSL_", "COMPILE_"))}
            env.update(COMPILE_ONLY="1", ARCH="gfx1250", FLYDSL_GPU_ARCH="gfx1250", FLYDSL_DUMP_IR="1",
                       FLYDSL_DUMP_DIR=str(Path(tmp) / stem), FLYDSL_RUNTIME_ENABLE_CACHE="0")
            text = Path(tmp) / f"{stem}.ll"
            rc = subprocess.run([sys.executable, __file__, "--flydsl-src", a.flydsl_src, "--child", json.dumps(job),
                                 str(text)],
                                env=env, stdout=subprocess.DEVNULL).returncode
            if rc:
                return rc
            target = Path(a.out) / f"{stem}.ll.gz"
            write_gzip(target, text.read_bytes())
            print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
