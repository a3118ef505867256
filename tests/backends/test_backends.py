"""Code generation back ends: llvmlite's LLVM in a child process, external llc and ptxas."""

from __future__ import annotations

import os
import re
import shutil
import signal
import stat
import sys
import time
from pathlib import Path

import pytest

from llnoalias.backends import (
    ExternalToolError,
    codegen,
    llc,
    llvmlite_backend,
    pending_check,
    ptxas,
)
from llnoalias.diagnostics import LLNoaliasError

pytestmark = pytest.mark.slow

AMD_KERNEL = """\
target triple = "amdgcn-amd-amdhsa"

@lds_a = external addrspace(3) global [0 x i8], align 16

define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %i) #0 {
entry:
  %q = getelementptr inbounds i32, ptr addrspace(1) %p, i32 %i
  %v = load i32, ptr addrspace(1) %q, align 4
  %l = getelementptr inbounds i32, ptr addrspace(3) @lds_a, i32 %i
  store i32 %v, ptr addrspace(3) %l, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  %w = load i32, ptr addrspace(3) @lds_a, align 4
  store i32 %w, ptr addrspace(1) %p, align 4
  ret void
}

declare void @llvm.amdgcn.s.barrier()

attributes #0 = { "target-cpu"="gfx942" }
"""

NVPTX_KERNEL = """\
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %p, i32 %i) #0 {
entry:
  %q = getelementptr inbounds float, ptr addrspace(1) %p, i32 %i
  %v = load float, ptr addrspace(1) %q, align 4
  %w = fadd float %v, 1.0
  store float %w, ptr addrspace(1) %p, align 4
  ret void
}

attributes #0 = { "target-cpu"="sm_90" }
"""

# Valid syntax that LLVM 22's verifier rejects (the intrinsic's signature changed) and
# whose code generation, when the verifier is skipped, aborts LLVM 22 with an assertion.
ASYNC_LDS_KERNEL = """\
target triple = "amdgcn-amd-amdhsa"
@lds = external addrspace(3) global [0 x i8]
declare void @llvm.amdgcn.raw.ptr.buffer.load.async.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(8) %rsrc) #0 {
  call void @llvm.amdgcn.raw.ptr.buffer.load.async.lds(ptr addrspace(8) %rsrc, ptr addrspace(3) @lds, i32 4, i32 0, i32 0, i32 0, i32 0)
  ret void
}
attributes #0 = { "target-cpu"="gfx950" }
"""

LLC19 = "/usr/lib/llvm-19/bin/llc"


def _fake_tool(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


def _fake_child(monkeypatch: pytest.MonkeyPatch, code: str) -> None:
    code = "import resource; resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n" + code
    monkeypatch.setattr(pending_check, "_child_command", lambda: [sys.executable, "-c", code])


# --- llvmlite: emission -------------------------------------------------------------


def test_llvmlite_amdgpu_assembly() -> None:
    asm = llvmlite_backend.emit(AMD_KERNEL, "amdgcn-amd-amdhsa", "gfx942", "asm", timeout=60).decode()
    assert '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"' in asm
    assert "s_endpgm" in asm
    assert "ds_write_b32" in asm or "ds_store_b32" in asm


def test_llvmlite_amdgpu_object_through_generate() -> None:
    obj = codegen.generate(AMD_KERNEL, emit="obj")
    assert obj[:4] == b"\x7fELF"


def test_llvmlite_nvptx_ptx_through_generate() -> None:
    ptx = codegen.generate(NVPTX_KERNEL).decode()
    assert ".target sm_90" in ptx
    assert ".entry k(" in ptx
    assert "ld.global" in ptx


def test_llvmlite_nvptx_object_is_not_supported() -> None:
    with pytest.raises(LLNoaliasError, match="ptxas"):
        llvmlite_backend.emit(NVPTX_KERNEL, "nvptx64-nvidia-cuda", "sm_90", "obj", timeout=60)


def test_llvmlite_emit_unreadable_module() -> None:
    text = AMD_KERNEL.replace("%v = load", "%v = frobnicate")
    with pytest.raises(LLNoaliasError) as err:
        codegen.generate(text)
    # llvmlite's message: the error itself, or its first note when an llc was tried too
    assert re.search("cannot read this module: .*expected instruction opcode", err.value.format())


def test_llvmlite_emit_unverified_module(monkeypatch: pytest.MonkeyPatch) -> None:
    # The bridge off and no llc to fall back on: LLVM 22's verifier has the last word.
    monkeypatch.setenv("LLNOALIAS_BRIDGE", "0")
    with pytest.raises(LLNoaliasError, match="does not pass llvmlite's LLVM verifier"):
        codegen.generate(ASYNC_LDS_KERNEL, fallback=False)


def test_llvmlite_real_abort_is_survived() -> None:
    # Without the verifier LLVM 22 asserts inside code generation: SIGABRT in the child.
    with pytest.raises(LLNoaliasError, match=r"crashed \(SIGABRT\).*--llc") as info:
        llvmlite_backend.emit(ASYNC_LDS_KERNEL, "amdgcn-amd-amdhsa", "gfx950", "asm", timeout=60, verify=False,
                              use_bridge=False)
    assert "at 'emit'" in info.value.message


def test_llvmlite_emits_async_lds_through_the_bridge() -> None:
    notes: list[str] = []
    asm = codegen.generate(ASYNC_LDS_KERNEL, notes=notes, fallback=False).decode()
    assert "buffer_load_dword" in asm and " lds" in asm
    assert any("amdgcn-async-lds-load" in n for n in notes)


def test_llvmlite_emit_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_child(monkeypatch, "import time; time.sleep(60)")
    start = time.monotonic()
    with pytest.raises(LLNoaliasError, match="did not finish .* within 0.5 s"):
        llvmlite_backend.emit(AMD_KERNEL, "amdgcn-amd-amdhsa", "gfx942", "asm", timeout=0.5)
    assert time.monotonic() - start < 10


# --- llvmlite: checking -------------------------------------------------------------


def test_check_good_module() -> None:
    res = llvmlite_backend.check_module(AMD_KERNEL, AMD_KERNEL.replace("align 4\n", "align 4, !noalias !0\n", 1)
                                        + "!0 = !{}\n")
    assert res.input_readable and res.input_verified and res.output_checked and res.output_ok
    assert not (res.crashed or res.timed_out or res.regression)


def test_check_broken_output_is_a_regression() -> None:
    broken = AMD_KERNEL.replace("%w = load i32", "%w = load i64")  # stores an i64 as i32
    res = llvmlite_backend.check_module(AMD_KERNEL, broken)
    assert res.input_verified and res.output_checked and not res.output_ok
    assert res.regression
    assert res.message


def test_check_unreadable_input() -> None:
    res = llvmlite_backend.check_module("this is not IR\n", "this is not IR\n")
    assert not res.input_readable and not res.output_checked and not res.output_ok
    assert "error" in res.input_message
    assert res.reason() == res.input_message
    assert not res.regression


def test_check_unverified_input_is_not_a_regression() -> None:
    res = llvmlite_backend.check_module(ASYNC_LDS_KERNEL, ASYNC_LDS_KERNEL, use_bridge=False)
    assert res.input_readable and not res.input_verified and not res.regression
    bridged = llvmlite_backend.check_module(ASYNC_LDS_KERNEL, ASYNC_LDS_KERNEL)
    assert bridged.input_verified and bridged.output_ok and bridged.rewrites == ("amdgcn-async-lds-load",)
    assert "Intrinsic" in res.input_message


def test_check_child_abort(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_child(monkeypatch, "import os, sys; sys.stderr.write('LLVM ERROR: boom\\n'); sys.stderr.flush(); os.abort()")
    res = llvmlite_backend.check_module(AMD_KERNEL, AMD_KERNEL)
    assert res.crashed and not res.timed_out and not res.output_ok
    assert res.returncode == -signal.SIGABRT
    assert res.death == "SIGABRT"
    assert "LLVM ERROR: boom" in res.reason()


def test_check_child_hangs(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_child(monkeypatch, "import time; time.sleep(60)")
    start = time.monotonic()
    res = llvmlite_backend.check_module(AMD_KERNEL, AMD_KERNEL, timeout=0.5)
    assert res.timed_out and not res.output_ok and res.returncode is None
    assert time.monotonic() - start < 10


def test_check_child_prints_junk(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_child(monkeypatch, "import sys; print('junk {\\x00'); sys.stderr.write('more junk')")
    res = llvmlite_backend.check_module(AMD_KERNEL, AMD_KERNEL)
    assert res.crashed and not res.output_ok  # exited 0 but left no result


def test_check_survives_non_utf8_bytes() -> None:
    text = AMD_KERNEL + "; caf\udce9 (a Latin-1 byte in a comment)\n"
    res = llvmlite_backend.check_module(text, text)
    assert res.input_verified and res.output_ok


# --- external llc ------------------------------------------------------------------


def test_llc_failure_gives_back_its_stderr_and_status(tmp_path: Path) -> None:
    fake = _fake_tool(tmp_path, "llc", 'cat >/dev/null\necho "llc: error: something broke" >&2\nexit 3\n')
    with pytest.raises(ExternalToolError) as info:
        llc.run(fake, AMD_KERNEL, "amdgcn-amd-amdhsa", "gfx942", "asm", ())
    err = info.value
    assert (err.tool, err.returncode, err.exit_code) == ("llc", 3, 3)
    assert err.stderr == b"llc: error: something broke\n"
    assert err.format() == "llc: error: something broke\n"


def test_llc_command_line(tmp_path: Path) -> None:
    # A fake llc that records its arguments and writes them as the "assembly".
    fake = _fake_tool(tmp_path, "llc", 'out=""\nprev=""\nfor a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done\n'
                      'cat >/dev/null\necho "$@" > "$out"\n')
    got = codegen.generate('target triple = "amdgpu9.50-amd-amdhsa"\n', llc=fake, llc_args=("-stats",)).decode()
    assert got.startswith("-O3 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=asm -stats -o ")
    assert got.rstrip().endswith(" -")


def test_llc_missing() -> None:
    with pytest.raises(LLNoaliasError, match="does not exist"):
        llc.run("/nonexistent/llc", AMD_KERNEL, "amdgcn-amd-amdhsa", "gfx942", "asm", ())


def test_llc_args_need_llc() -> None:
    with pytest.raises(LLNoaliasError, match="--llc"):
        codegen.generate(AMD_KERNEL, llc_args=("-stats",))


def test_llc19_amdgpu() -> None:
    if not os.access(LLC19, os.X_OK):
        pytest.skip(f"llc-19 is not installed at {LLC19} (Debian package llvm-19)")
    asm = codegen.generate(AMD_KERNEL, llc=LLC19).decode()
    assert "s_endpgm" in asm and "gfx942" in asm
    obj = codegen.generate(AMD_KERNEL, emit="obj", llc=LLC19)
    assert obj[:4] == b"\x7fELF"


def test_llc19_rejects_bad_argument() -> None:
    if not os.access(LLC19, os.X_OK):
        pytest.skip(f"llc-19 is not installed at {LLC19} (Debian package llvm-19)")
    with pytest.raises(ExternalToolError) as info:
        codegen.generate(AMD_KERNEL, llc=LLC19, llc_args=("-no-such-llc-option",))
    assert info.value.returncode != 0
    assert b"no-such-llc-option" in info.value.stderr


# --- ptxas -------------------------------------------------------------------------


def test_ptxas_cubin() -> None:
    if shutil.which("ptxas") is None:
        pytest.skip("ptxas (CUDA toolkit) is not on PATH")
    cubin = codegen.generate(NVPTX_KERNEL, emit="obj")
    assert cubin[:4] == b"\x7fELF"


def test_ptxas_failure_gives_back_its_stderr_and_status(tmp_path: Path) -> None:
    fake = _fake_tool(tmp_path, "ptxas", 'echo "ptxas fatal   : bad things" >&2\nexit 255\n')
    with pytest.raises(ExternalToolError) as info:
        ptxas.run(fake, ".version 7.8\n.target sm_90\n", "sm_90")
    assert (info.value.tool, info.value.exit_code) == ("ptxas", 255)
    assert info.value.stderr == b"ptxas fatal   : bad things\n"


def test_ptxas_missing() -> None:
    with pytest.raises(LLNoaliasError, match="--ptxas PATH"):
        codegen.generate(NVPTX_KERNEL, emit="obj", ptxas="/nonexistent/ptxas")


def test_ptxas_arch_from_ptx() -> None:
    assert ptxas.ptx_target("//\n.version 7.8\n.target sm_90a\n") == "sm_90a"


def test_nvptx_cubin_needs_a_gpu() -> None:
    with pytest.raises(LLNoaliasError, match="--mcpu"):
        codegen.generate(NVPTX_KERNEL.replace('"target-cpu"="sm_90"', ""), emit="obj")


def test_nvptx_without_cpu_gets_sm80_and_a_note() -> None:
    # Triton keeps its GPU outside the IR; LLVM's own default (sm_30-era) cannot select shfl.sync.
    text = NVPTX_KERNEL.replace('attributes #0 = { "target-cpu"="sm_90" }', "attributes #0 = { nounwind }")
    text = text.replace("  ret void", "  %s = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %i, i32 1, i32 31)\n"
                        "  ret void")
    text += "declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)\n"
    notes: list[str] = []
    ptx = codegen.generate(text, notes=notes, fallback=False).decode()
    assert ".target sm_80" in ptx and "shfl.sync.bfly" in ptx
    assert any("generating PTX for sm_80" in n for n in notes)
    with pytest.raises(LLNoaliasError, match="a cubin needs one"):
        codegen.generate(text, emit="obj")


def test_check_child_that_floods_stdout_is_contained(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checking child's stdout is a pipe the parent waits on (its end is how the parent
    learns the child exited): 4 MB of junk there must not block either side."""
    _fake_child(monkeypatch, "import sys; sys.stdout.write('x' * (4 << 20)); sys.stdout.flush()")
    start = time.monotonic()
    res = llvmlite_backend.check_module(AMD_KERNEL, AMD_KERNEL, timeout=30)
    assert time.monotonic() - start < 20
    assert res.crashed and not res.timed_out and not res.output_ok and not res.regression
