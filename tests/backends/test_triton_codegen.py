"""``--codegen triton``: Triton's bundled LLVM (24) generates the code, and ``check`` judges it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from llnoalias.backends import ExternalToolError, codegen, triton_backend
from llnoalias.cli.check import check_command
from llnoalias.cli.compile import compile_command
from llnoalias.diagnostics import LLNoaliasError
from tests.support.files import ROOT

CHECK = ROOT / "fixtures" / "check"

needs_triton = pytest.mark.skipif(not triton_backend.available(), reason="Triton is not installed")

SMALL = """target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @k(ptr addrspace(1) %p) "target-cpu"="gfx942" {
  %v = load float, ptr addrspace(1) %p
  %w = fadd float %v, 1.0
  store float %w, ptr addrspace(1) %p
  ret void
}
"""


def run(*args: str) -> Result:
    command = check_command if args[0] == "check" else compile_command
    return CliRunner().invoke(command, list(args[1:]))


def test_without_triton_the_error_says_how(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(triton_backend, "available", lambda: False)
    with pytest.raises(LLNoaliasError, match="needs Triton"):
        codegen.generate(SMALL, codegen="triton")


def test_triton_and_llc_are_one_choice() -> None:
    with pytest.raises(LLNoaliasError, match="pass one"):
        codegen.generate(SMALL, codegen="triton", llc="llc-19")


@needs_triton
def test_triton_generates_amdgpu_code() -> None:
    used: dict[str, str] = {}
    asm = codegen.generate(SMALL, codegen="triton", used=used).decode()
    assert "s_endpgm" in asm and ".amdgcn_target" in asm
    assert used["generator"] == "triton"


@needs_triton
def test_a_module_triton_cannot_parse_is_an_error_not_a_crash() -> None:
    with pytest.raises(ExternalToolError) as info:
        codegen.generate(SMALL.replace("ret void", "ret i32 0"), codegen="triton")
    assert "LLVM ERROR" in info.value.stderr_text


@needs_triton
@pytest.mark.parametrize(("name", "status"), [("tbaa_unscoped_dma_races.ll", 1), ("branch_join_scoped_waits.ll", 0),
                                              ("loop_refill_scoped_races.ll", 1)])
def test_check_with_triton_llvm(name: str, status: int, tmp_path: Path) -> None:
    """LLVM 24's assembly (its .loc lines, its waits) is judged as LLVM 22's."""
    result = run("check", "--codegen", "triton", "--json", str(CHECK / name))
    assert result.exit_code == status, result.output


@needs_triton
def test_compile_with_triton_llvm(tmp_path: Path) -> None:
    src = tmp_path / "k.ll"
    src.write_text(SMALL)
    out = tmp_path / "k.s"
    result = run("compile", "--codegen", "triton", "-v", str(src), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "Triton" in result.stderr
    assert "s_endpgm" in out.read_text()


@needs_triton
def test_llvm19_make_buffer_rsrc_is_bridged_for_llvm24() -> None:
    """LLVM 24 rejects LLVM 19's i32 record count of make.buffer.rsrc ("intrinsic argument 2
    type expected i64"): the bridge's two rewrites of it are applied, and only those."""
    text = (ROOT / "fixtures" / "corpus" / "clang19" / "hip_lds_dma_O3.ll").read_text()
    notes: list[str] = []
    asm = codegen.generate(text, codegen="triton", notes=notes).decode()
    assert "s_endpgm" in asm
    assert any("amdgcn-make-buffer-rsrc-i64" in n for n in notes)
    assert triton_backend.bridged(SMALL) == (SMALL, [])


@needs_triton
def test_bytes_that_are_not_utf8_do_not_stop_triton() -> None:
    text = SMALL.replace("target triple", "; caf\udce9\ntarget triple")
    assert "s_endpgm" in codegen.generate(text, codegen="triton").decode()


@needs_triton
def test_stats_with_triton_llvm_states_occupancy(tmp_path: Path) -> None:
    """Triton's LLVM writes llc's comments (``; Occupancy: N``): stats reads them."""
    import json

    from llnoalias.cli.reports import stats_command

    src = tmp_path / "k.ll"
    src.write_text(SMALL)
    res = CliRunner().invoke(stats_command, ["--codegen", "triton", "--json", str(src)])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert [f["label"] for f in doc["files"]] == ["input", "llnoalias"]
    assert doc["files"][0]["kernels"]["k"]["occupancy"] > 0
