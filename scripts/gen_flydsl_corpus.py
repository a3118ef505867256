#!/usr/bin/env python3
"""Regenerate the real FlyDSL part of the IR corpus: fixtures/corpus/flydsl/*.ll.

FlyDSL (https://github.com/ROCm/FlyDSL, PyPI ``flydsl``) is AMD's Python DSL that lowers
through MLIR to LLVM IR for ROCm GPUs. It compiles with no GPU: with ``COMPILE_ONLY=1
ARCH=gfx950`` the pipeline runs to ``gpu-module-to-binary``, whose last step needs ROCm's
``ld.lld`` and fails here. Just before that step FlyDSL itself translates the ``gpu.module``
to LLVM IR (``flydsl.compiler.jit_function._extract_llvm_ir``, which calls MLIR's
``translate_module_to_llvmir``) when ``FLYDSL_DUMP_IR=1``; this script wraps that function,
keeps the text it returns and writes it UNMODIFIED (no line added, no byte changed). That
text is the module FlyDSL hands to AMDGPU code generation.

The kernel sources are NOT in the wheel (it ships only ``flydsl/``); they live in the
repository's ``kernels/`` folder. Pass a checkout (or a copy of the few files below) with
``--flydsl-src DIR`` (the folder that contains ``kernels/``). Files used:

* ``kernels/gemm/fp8_gemm_4wave.py`` + ``kernels/gemm/fp8_gemm_utils.py`` (+ ``cdiv`` from
  ``kernels/common/utils.py``): the 4-wave FP8 GEMM for gfx950, 8 LDS sub-buffers
  (``SharedStorage``: A/B x cur/next x 0/1, 16 KiB each), filled by
  ``raw.ptr.buffer.load.lds`` (``BufferCopyLDS128b``) and read with ``load <16 x i8>``.
* ``kernels/gemm/fp8_gemm_8wave.py`` (``compile_fp8_gemm_8w``, same utilities): the 8-wave
  variant (512 threads, a branch around an ``s_barrier``), same 8 LDS sub-buffers.
* ``kernels/norm/layernorm_kernel.py`` (``build_layernorm_module``; it imports
  ``dtype_to_elem_type``/``get_warp_size`` from ``kernels/common/kernels_common.py``):
  block reduction through two small LDS arrays (``store float`` / ``load float``).

Modules written (``--out``, default fixtures/corpus/flydsl/); the GEMMs as ``STEM.ll.gz``
(see ``GZIPPED``):

=====================================================  =========================================
``fp8_gemm_4wave_gfx950_k{512,4096}``                  M=N=256, K=512 / 4096, FlyDSL's default
                                                       ``SharedAllocator()`` (static): 8 separate
                                                       ``@__shared_alloc_<k>`` ``[16384 x i8]``
``fp8_gemm_4wave_dynshared_gfx950_k{512,4096}``        the same kernel with
                                                       ``SharedAllocator(static=False)`` (set by
                                                       wrapping the class, the kernel source is
                                                       untouched): ONE ``@__dynamic_shared_0``
                                                       ``[0 x i8]``, sub-buffers carved by offsets
``fp8_gemm_4wave_namedbases_gfx950_k{512,4096}         NOT FlyDSL output: the previous module
.DERIVED``                                             through scripts/flydsl_named_bases.py (each
                                                       sub-buffer a named ``[0 x i8]`` base, the
                                                       shape of FlyDSL PR #519)
``fp8_gemm_8wave_{,dynshared_,namedbases_}gfx950      the 8-wave FP8 GEMM (``compile_fp8_gemm_8w``,
_k1024[.DERIVED]``                                     K=1024, 512 threads; from
                                                       ``kernels/gemm/fp8_gemm_8wave.py``, that
                                                       builder only), the same three LDS shapes
``layernorm_bf16_n4096_gfx950``                        vector path (bf16, N=4096), two static
                                                       LDS float arrays for the block reduction
``layernorm_f32_n1000_gfx950``                         generic scalar path (f32, N=1000)
``cut_*``                                              small excerpts of the modules above
                                                       (``CUTS``, ``cut_module``)
=====================================================  =========================================

K=4096 gives the counts of the GEMM measured for design section 4b: 512 ``raw.ptr.buffer.load.lds`` and 1024 LDS reads
(the K loop is unrolled at trace time: 32 + 16 * (K/128 - 2) DMAs; K=512: 64 and 128).

Reproducible: each module compiles in a fresh child process with ``FLYDSL_*``, ``COMPILE_*``
and ``ARCH`` taken from this script only, FlyDSL's kernel cache off, and its dump folder in a
temporary directory. Running it twice gives byte-identical files. The expected failure of
the final link (``lld invocation failed``) is caught; any other failure, or no module
captured, is an error.

    python3 -m venv /work/venvs/flydsl
    /work/venvs/flydsl/bin/pip install flydsl==0.4.2 torch==2.13.0 numpy   # CPU torch
    /work/venvs/flydsl/bin/python scripts/gen_flydsl_corpus.py --flydsl-src DIR [--only STEM...]

Not run by the test suite (it needs FlyDSL and torch, which CI does not install); the tests
read the checked-in files.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLYDSL_VERSION = "0.4.2"
MAX_BYTES = 1024 * 1024

FP8_NAMES = "A_lds_cur_0,A_lds_cur_1,A_lds_next_0,A_lds_next_1,B_lds_cur_0,B_lds_cur_1,B_lds_next_0,B_lds_next_1"

# stem -> (builder in the child, keyword arguments)
JOBS: dict[str, tuple[str, dict[str, object]]] = {
    "fp8_gemm_4wave_gfx950_k512": ("fp8_gemm_4wave", {"K": 512, "static": True}),
    "fp8_gemm_4wave_dynshared_gfx950_k512": ("fp8_gemm_4wave", {"K": 512, "static": False}),
    "fp8_gemm_4wave_gfx950_k4096": ("fp8_gemm_4wave", {"K": 4096, "static": True}),
    "fp8_gemm_4wave_dynshared_gfx950_k4096": ("fp8_gemm_4wave", {"K": 4096, "static": False}),
    "fp8_gemm_8wave_gfx950_k1024": ("fp8_gemm_8wave", {"K": 1024, "static": True}),
    "fp8_gemm_8wave_dynshared_gfx950_k1024": ("fp8_gemm_8wave", {"K": 1024, "static": False}),
    "layernorm_bf16_n4096_gfx950": ("layernorm", {"N": 4096, "dtype": "bf16"}),
    "layernorm_f32_n1000_gfx950": ("layernorm", {"N": 1000, "dtype": "f32"}),
}
# derived stem -> (source stem, names for flydsl_named_bases.py)
DERIVED: dict[str, tuple[str, str]] = {
    "fp8_gemm_4wave_namedbases_gfx950_k512.DERIVED": ("fp8_gemm_4wave_dynshared_gfx950_k512", FP8_NAMES),
    "fp8_gemm_4wave_namedbases_gfx950_k4096.DERIVED": ("fp8_gemm_4wave_dynshared_gfx950_k4096", FP8_NAMES),
    "fp8_gemm_8wave_namedbases_gfx950_k1024.DERIVED": ("fp8_gemm_8wave_dynshared_gfx950_k1024", FP8_NAMES),
}
#: written gzip-compressed (``STEM.ll.gz``, no name or time in the gzip header): the GEMMs
#: (280 KB at K=512, 770 KB at K=4096) would otherwise join every ``fixtures/**/*.ll`` check of
#: the suite, and tests/analysis/ranges/test_twin_range_solver.py's compiled-vs-Python comparison alone takes 2-3 minutes
#: on each K=512 GEMM (measured). Tests that want them decompress them (``gzip.decompress``).
GZIPPED = {stem for stem in [*JOBS, *DERIVED] if stem.startswith("fp8_gemm")}


def write_gzip(target: Path, data: bytes) -> None:
    """``data`` gzip-compressed at ``target``, with no name or time in the header (reproducible)."""
    with open(target, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
        gz.write(data)


def capture_llvm_ir(jf) -> list[str]:  # type: ignore[no-untyped-def]
    """Wrap FlyDSL's ``jit_function._extract_llvm_ir`` (module ``jf``): the list that the text of
    every module it translates is appended to, unchanged."""
    captured: list[str] = []
    orig = jf._extract_llvm_ir

    def _keep(module):  # type: ignore[no-untyped-def]
        text = orig(module)
        if text is not None:
            captured.append(text)
        return text

    jf._extract_llvm_ir = _keep
    return captured


def compile_and_write(flyc, launch, args: tuple[object, ...], captured: list[str], out: str,  # type: ignore[no-untyped-def]
                      what: str) -> int:
    """``flyc.compile(launch, *args)`` (the final ``ld.lld`` step is expected to fail here), then the
    last module ``capture_llvm_ir`` kept written to ``out``: 0, or 1 (said on stderr, ``what``
    naming the job) where none was captured."""
    try:
        flyc.compile(launch, *args)
    except Exception as exc:  # the final ld.lld step is expected to fail here
        if "lld" not in str(exc):
            raise
    if not captured:
        print(f"{what}: no LLVM module captured", file=sys.stderr)
        return 1
    Path(out).write_text(captured[-1], encoding="utf-8")
    return 0


def _write(out: Path, stem: str, data: bytes) -> Path:
    if stem in GZIPPED:
        target = out / f"{stem}.ll.gz"
        write_gzip(target, data)
    else:
        target = out / f"{stem}.ll"
        target.write_bytes(data)
    return target


def _read(out: Path, stem: str) -> str:
    if stem in GZIPPED:
        return gzip.decompress((out / f"{stem}.ll.gz").read_bytes()).decode("utf-8")
    return (out / f"{stem}.ll").read_text(encoding="utf-8")


# --- child side: one module per process ---------------------------------------------------


def _child(stem: str, src: str, out: str) -> int:
    sys.path.insert(0, src)
    import flydsl
    import flydsl.compiler as flyc
    import flydsl.compiler.jit_function as jf
    import flydsl.expr as fx
    import torch

    if flydsl.__version__ != FLYDSL_VERSION:
        print(f"gen_flydsl_corpus: warning: FlyDSL {flydsl.__version__}, the corpus was made with {FLYDSL_VERSION}", file=sys.stderr)
    builder, kw = JOBS[stem]
    captured = capture_llvm_ir(jf)

    if builder in ("fp8_gemm_4wave", "fp8_gemm_8wave"):
        if not kw["static"]:
            base = fx.SharedAllocator

            class _Dynamic(base):  # type: ignore[misc, valid-type]
                def __init__(self, *a, **k):  # type: ignore[no-untyped-def]
                    k.setdefault("static", False)
                    super().__init__(*a, **k)

            fx.SharedAllocator = _Dynamic
        m = n = 256
        k_dim = int(kw["K"])  # type: ignore[call-overload]
        if builder == "fp8_gemm_4wave":
            from kernels.gemm.fp8_gemm_4wave import compile_fp8_gemm_4w

            launch = compile_fp8_gemm_4w(K=k_dim)
        else:
            from kernels.gemm.fp8_gemm_8wave import compile_fp8_gemm_8w

            launch = compile_fp8_gemm_8w(K=k_dim)
        args = (
            torch.zeros(m, k_dim, dtype=torch.uint8),
            torch.zeros(n, k_dim, dtype=torch.uint8),
            torch.zeros(m, n, dtype=torch.bfloat16),
            torch.zeros(m, dtype=torch.float32),
            torch.zeros(n, dtype=torch.float32),
            m,
            n,
            None,
        )
    elif builder == "layernorm":
        from kernels.norm.layernorm_kernel import build_layernorm_module

        n = int(kw["N"])  # type: ignore[call-overload]
        elem = {"bf16": fx.BFloat16, "f16": fx.Float16, "f32": fx.Float32}[str(kw["dtype"])]
        launch = build_layernorm_module(n, str(kw["dtype"]))
        # fx.Pointer arguments: null pointers are compile placeholders (no device buffer)
        ptrs = [flyc.from_c_void_p(elem, 0, assumed_align=16) for _ in range(4)]
        args = (*ptrs, 4, None)
    else:
        raise SystemExit(f"unknown builder {builder}")

    return compile_and_write(flyc, launch, args, captured, out, f"gen_flydsl_corpus: {stem}")


# --- cut fixtures: small, real excerpts of the modules above ------------------------------

_VAL = re.compile(r"%(\d+)\b")

# cut stem -> (source stem, seed predicates on instruction lines, what the header says)
CUTS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "cut_fp8_dma_rsrc_aggregate": (
        "fp8_gemm_4wave_dynshared_gfx950_k512",
        (
            "first:call void @llvm.amdgcn.raw.ptr.buffer.load.lds(",
            "fwd:getelementptr (i8, ptr addrspace(3) @__dynamic_shared_0, i32 65536) to i32)",
            "first:load <16 x i8>, ptr addrspace(3)",
            "fwd:getelementptr i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @__dynamic_shared_0, i32 65536), i32",
        ),
        "two LDS-DMAs (raw.ptr.buffer.load.lds) into the sub-buffers at offsets 0 and 65536 of one\n"
        "; dynamic-LDS base, through ptrtoint/add/inttoptr; their buffer resource comes from\n"
        "; make.buffer.rsrc whose num_records is computed from the aggregate kernel argument\n"
        "; <{ <{ i32, i32 }>, <{ i64 }> }> (FlyDSL's tensor shape/stride); one LDS read of each.",
    ),
    "cut_fp8_buffer_load_i32": (
        "fp8_gemm_4wave_gfx950_k512",
        (
            "first:call void @llvm.amdgcn.raw.ptr.buffer.load.lds(",
            "fwd:ptrtoint (ptr addrspace(3) @__shared_alloc_4 to i32)",
            "first:load <16 x i8>, ptr addrspace(3)",
            "fwd:getelementptr i8, ptr addrspace(3) @__shared_alloc_4, i32",
            "first:call i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(",
        ),
        "the epilogue's read-only raw.ptr.buffer.load.i32 (a column scale, through its own\n"
        "; make.buffer.rsrc) next to LDS-DMAs into two static [16384 x i8] sub-buffers\n"
        "; (@__shared_alloc_0 and _4, integer addresses: ptrtoint/add/inttoptr) and one LDS read of each.",
    ),
    "cut_layernorm_lds_store_float": (
        "layernorm_f32_n1000_gfx950",
        ("n1:store float", "n2:store float", "n1:load float, ptr addrspace(3)", "n2:load float, ptr addrspace(3)"),
        "the block reduction: store float / load float through two static LDS arrays\n"
        "; (@__shared_alloc_0/1, [16 x i8]) indexed by the wave id and the lane.",
    ),
}


def cut_module(text: str, seeds: tuple[str, ...]) -> str:
    """The backward slice of the seed instructions of the module's one kernel, renumbered.

    Keeps the module's header lines, the LDS globals the slice names, the kernel's signature,
    the seed instructions and every instruction they depend on (in their original order),
    then ``ret void``; the declarations it calls, and every attribute group and metadata line.
    Only unnamed values are renumbered (LLVM requires them in sequence); nothing else changes.
    """
    lines = text.split("\n")
    d = next(i for i, ln in enumerate(lines) if ln.startswith("define "))
    e = next(i for i in range(d, len(lines)) if lines[i] == "}")
    body = lines[d + 1 : e]
    defs: dict[str, int] = {}
    for i, ln in enumerate(body):
        m = re.match(r"\s*%(\d+) = ", ln)
        if m:
            defs[m.group(1)] = i
    keep: set[int] = set()
    for seed in seeds:
        mode, _, needle = seed.partition(":")
        hits = [i for i, ln in enumerate(body) if needle in ln]
        if not hits:
            raise SystemExit(f"cut: no line with {needle!r}")
        if mode == "all":
            keep.update(hits)
        elif mode == "fwd":  # the first memory access or call that uses the first match, through its users
            i = hits[0]
            while True:
                m = re.match(r"\s*%(\d+) = ", body[i])
                if not m:
                    break
                use = re.compile(r"%" + m.group(1) + r"\b")
                i = next(j for j in range(i + 1, len(body)) if use.search(body[j].split("=", 1)[-1]))
                if re.match(r"\s*(call |store |%\d+ = (load|call) )", body[i]):
                    break
            keep.add(i)
        else:  # "first", or "n<k>": the k-th line that has it
            k = 1 if mode == "first" else int(mode[1:])
            if len(hits) < k:
                raise SystemExit(f"cut: fewer than {k} lines with {needle!r}")
            keep.add(hits[k - 1])
    work = list(keep)
    while work:
        i = work.pop()
        rhs = body[i].split("=", 1)[1] if re.match(r"\s*%\d+ = ", body[i]) else body[i]
        for v in _VAL.findall(rhs):
            j = defs.get(v)
            if j is not None and j not in keep:
                keep.add(j)
                work.append(j)
    kept = [body[i] for i in sorted(keep)]
    if any(" phi " in ln for ln in kept):
        raise SystemExit("cut: the slice needs a phi")
    block_of, block = [], 0
    for ln in body:
        if re.match(r"^[-\w.$]+:", ln):
            block += 1
        block_of.append(block)
    blocks = len({block_of[i] for i in keep})
    n_args = len(_VAL.findall(lines[d]))
    ren: dict[str, str] = {str(k): str(k) for k in range(n_args)}
    nxt = n_args + 1  # the unnamed entry block takes the number after the arguments
    for ln in kept:
        m = re.match(r"\s*%(\d+) = ", ln)
        if m:
            ren[m.group(1)] = str(nxt)
            nxt += 1
    kept = [_VAL.sub(lambda m: "%" + ren[m.group(1)], ln) for ln in kept]
    called = set(re.findall(r"@(llvm\.[\w.]+)\(", "\n".join(kept)))
    globals_used = set(re.findall(r"@(__[\w]+)", "\n".join(kept)))
    out = []
    for ln in lines[:d]:
        m = re.match(r"@([\w.$]+) = ", ln)
        if m and m.group(1) not in globals_used:
            continue
        out.append(ln)
    out += [lines[d], *kept, "  ret void", "}"]
    tail = lines[e + 1 :]
    i = 0
    while i < len(tail):
        ln = tail[i]
        if ln.startswith("declare "):
            name = re.search(r"@([\w.]+)\(", ln)
            comment = out[-1] if out and out[-1].startswith("; Function Attrs") else None
            if name and name.group(1) in called:
                out.append(ln)
                out.append("")
            elif comment is not None:
                out.pop()
        elif ln.startswith("; Function Attrs"):
            out.append(ln)
        elif ln.startswith(("attributes #", "!")) or ln == "":
            if not (ln == "" and out and out[-1] == ""):
                out.append(ln)
        i += 1
    note = ""
    if blocks > 1:
        note = (f"; The slice spans {blocks} basic blocks of the kernel; here they are one straight-line\n"
                "; block (the branches between them are dropped, every definition still precedes its uses).\n")
    return note + "\n".join(out).rstrip("\n") + "\n"


# --- parent side ------------------------------------------------------------------------


def _env(tmp: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FLYDSL_", "COMPILE_")) and k != "ARCH"}
    env.update(
        COMPILE_ONLY="1",
        ARCH="gfx950",
        FLYDSL_DUMP_IR="1",
        FLYDSL_DUMP_DIR=os.path.join(tmp, "dump"),
        FLYDSL_RUNTIME_ENABLE_CACHE="0",
        FLYDSL_RUNTIME_CACHE_DIR=os.path.join(tmp, "cache"),
        HOME=tmp,
    )
    return env


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flydsl-src", help="folder holding FlyDSL's kernels/ (a checkout of ROCm/FlyDSL)")
    ap.add_argument("--out", default=str(ROOT / "fixtures" / "corpus" / "flydsl"))
    ap.add_argument("--only", nargs="*", help="stems to (re)generate")
    ap.add_argument("--child", nargs=3, metavar=("STEM", "SRC", "OUT"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        return _child(*a.child)
    needs_src = any(s in JOBS for s in (a.only or JOBS))
    if needs_src and (not a.flydsl_src or not (Path(a.flydsl_src) / "kernels").is_dir()):
        ap.error("--flydsl-src must name a folder that contains FlyDSL's kernels/")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    stems = a.only or [*JOBS, *DERIVED, *CUTS]
    rc = 0
    for stem in stems:
        if stem in JOBS:
            with tempfile.TemporaryDirectory() as tmp:
                part = Path(tmp) / "module.ll"
                p = subprocess.run(
                    [sys.executable, __file__, "--child", stem, str(Path(a.flydsl_src).resolve()), str(part)],
                    env=_env(tmp),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                if p.returncode != 0 or not part.exists():
                    print(f"{stem}: FAILED\n{p.stderr[-2000:]}", file=sys.stderr)
                    rc = 1
                    continue
                size = part.stat().st_size
                if size > MAX_BYTES:
                    print(f"{stem}: {size} bytes, over {MAX_BYTES}: skipped", file=sys.stderr)
                    rc = 1
                    continue
                target = _write(out, stem, part.read_bytes())
                print(f"{target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}: {size} bytes")
        elif stem in DERIVED:
            src_stem, names = DERIVED[stem]
            sys.path.insert(0, str(ROOT / "scripts"))
            from flydsl_named_bases import rewrite

            target = _write(out, stem, rewrite(_read(out, src_stem), None, names.split(",")).encode("utf-8"))
            print(f"{target}: derived from {src_stem}.ll by scripts/flydsl_named_bases.py")
        elif stem in CUTS:
            src_stem, seeds, what = CUTS[stem]
            text = _read(out, src_stem)
            header = (
                f"; CUT by scripts/gen_flydsl_corpus.py from fixtures/corpus/flydsl/{src_stem}.ll"
                f"{'.gz' if src_stem in GZIPPED else ''}\n"
                f"; (real FlyDSL {FLYDSL_VERSION} output for gfx950): {what}\n"
                "; The lines are FlyDSL's, kept in order: the slice of the kernel these accesses\n"
                "; depend on, then `ret void`; only unnamed values are renumbered. The loads' results\n"
                "; have no use here, so code generation deletes them: the cut gives the analysis its\n"
                "; shapes, not wait counts (use the whole module for those).\n"
            )
            target = out / f"{stem}.ll"
            target.write_text(header + cut_module(text, seeds), encoding="utf-8")
            print(f"{target}: cut from {src_stem}.ll")
        else:
            print(f"unknown stem {stem}; known: {', '.join([*JOBS, *DERIVED, *CUTS])}", file=sys.stderr)
            rc = 2
    return rc


if __name__ == "__main__":
    sys.exit(main())
