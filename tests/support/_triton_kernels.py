"""Kernels for the real Triton tests in ``test_triton_hook.py``; imported only when Triton is
installed (``triton.jit`` reads a kernel's source, so they live at a module's top level)."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """A tiled fp16 matmul: tl.dot stages its tiles through shared memory (LDS)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BK * sak
        b += BK * sbk
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16))


MATMUL_SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
                    "K": "i32", "sam": "i32", "sak": "i32", "sbk": "i32", "sbn": "i32",
                    "scm": "i32", "scn": "i32", "BM": "constexpr", "BN": "constexpr",
                    "BK": "constexpr"}
MATMUL_CONSTEXPRS = {"BM": 64, "BN": 64, "BK": 32}
