"""``--repair``: inputs that race by their own metadata are repaired, and check clean after."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from llnoalias.backends import triton_backend
from llnoalias.check.checker import check_text
from llnoalias.check.repair import repair
from tests.support.files import ROOT

pytestmark = pytest.mark.slow

pytest.importorskip("llvmlite")

TBAA = ROOT / "fixtures" / "check" / "tbaa_unscoped_dma_races.ll"
LOOP = ROOT / "fixtures" / "check" / "loop_refill_scoped_races.ll"
TRITON = ROOT / "fixtures" / "corpus" / "triton" / "amd_matmul_gfx942.ll"


def changed_lines(a: str, b: str) -> list[int]:
    la, lb = a.splitlines(), b.splitlines()
    return [i + 1 for i, (x, y) in enumerate(zip(la, lb, strict=False)) if x != y]


@pytest.mark.parametrize(("path", "how", "lines"), [
    (TBAA, "scope-dma", [9]),                      # the unscoped DMA gets a scope: nothing lost
    (LOOP, "drop-alias-metadata", [15]),           # the read loses its scopes
])
def test_repair_removes_the_input_race(path: Path, how: str, lines: list[int]) -> None:
    text = path.read_text()
    assert not check_text(text, str(path)).clean
    rep = repair(text, str(path))
    assert rep.how == how and rep.before and rep.clean
    assert len(rep.changes) == len(lines)
    # every other byte stays: the changed lines, then new metadata lines at the end only
    assert changed_lines(text, rep.text) == lines
    n = len(text.splitlines())
    assert len(rep.text.splitlines()) >= n
    assert [ln for i, ln in enumerate(text.splitlines(), 1) if i not in lines] == \
        [ln for i, ln in enumerate(rep.text.splitlines()[:n], 1) if i not in lines]
    assert check_text(rep.text, str(path)).clean


def test_a_race_between_waves_is_not_repaired_by_metadata() -> None:
    """Triton's gfx942 matmul reads the slot its DMA fills in the same iteration. Without the
    reads' !noalias LLVM waits in each wave, but the barrier comes before the other waves' DMAs
    retire: a race between waves no metadata removes. --repair says it could not, and the races
    left have their witness between two waves."""
    text = TRITON.read_text()
    rep = repair(text, str(TRITON))
    assert rep.before and not rep.clean and rep.how == ""
    assert rep.text == text
    lines = text.splitlines(keepends=True)
    for n in (77, 79, 81, 83):
        lines[n - 1] = lines[n - 1].replace(", !noalias !40", "")
    res = check_text("".join(lines), str(TRITON))
    assert res.races and all(r.witness["between_waves"] for r in res.races)


def test_a_clean_input_is_left_alone() -> None:
    path = ROOT / "fixtures" / "check" / "plain_read_waits.ll"
    rep = repair(path.read_text(), str(path))
    assert not rep.changed and rep.text == path.read_text() and not rep.before


@pytest.mark.skipif(not triton_backend.available(), reason="Triton is not installed")
def test_repair_with_triton_llvm() -> None:
    text = TBAA.read_text()
    assert not check_text(text, str(TBAA), codegen="triton").clean
    rep = repair(text, str(TBAA), codegen="triton")
    assert rep.clean and rep.changed
    assert check_text(rep.text, str(TBAA), codegen="triton").clean


def test_annotate_repair_writes_a_module_that_checks_clean(tmp_path: Path) -> None:
    out = tmp_path / "out.ll"
    proc = subprocess.run([sys.executable, "-m", "llnoalias", "--repair", str(LOOP), "-o", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "--repair: line 15: removed !alias.scope !2, !noalias !5 from the LDS access" in proc.stderr
    check = subprocess.run([sys.executable, "-m", "llnoalias", "check", str(out)], capture_output=True, text=True,
                           timeout=300)
    assert check.returncode == 0, check.stderr


def test_compile_repair(tmp_path: Path) -> None:
    out = tmp_path / "out.s"
    proc = subprocess.run([sys.executable, "-m", "llnoalias", "compile", "--repair", str(TBAA), "-o", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "--repair: line 9: the LDS-DMA got a scope of its own" in proc.stderr
    assert "race the input has too" not in proc.stderr
    assert "vmcnt" in out.read_text()


NOALIAS_LDS_ARG = """target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(ptr addrspace(8) %r, ptr addrspace(3) noalias %lds, ptr addrspace(1) noalias %o, i32 %v) #0 {
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) %lds, i32 4, i32 %v, i32 0, i32 0, i32 0)
  %x = load i32, ptr addrspace(3) %lds, align 4
  store i32 %x, ptr addrspace(1) %o, align 4
  ret void
}

declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32)

attributes #0 = { "amdgpu-flat-work-group-size"="1,64" "target-cpu"="gfx942" }
"""


@pytest.mark.skipif(not triton_backend.available(), reason="Triton is not installed")
def test_llvm24_argument_lowering_race_is_found_and_repaired() -> None:
    """LLVM 24's kernel-argument lowering gives the accesses through a noalias argument scopes
    of their own; the unscoped DMA then gets no wait. LLVM 22 waits; check finds the race only
    with the code generator that has it, and --repair (scoping the DMA) removes it."""
    assert check_text(NOALIAS_LDS_ARG, "arg.ll").clean
    assert not check_text(NOALIAS_LDS_ARG, "arg.ll", codegen="triton").clean
    rep = repair(NOALIAS_LDS_ARG, "arg.ll", codegen="triton")
    assert rep.how == "scope-dma" and rep.clean
    assert check_text(rep.text, "arg.ll", codegen="triton").clean
    assert changed_lines(NOALIAS_LDS_ARG, rep.text) == [4]


@pytest.mark.skipif(not triton_backend.available(), reason="Triton is not installed")
def test_llvm24_noalias_argument_twin_fixture_is_repaired() -> None:
    """fixtures/dma/noalias_args_lowered_twin.ll as given races under LLVM 24 (its noalias %o
    gives the LDS read !noalias), not under LLVM 22; scoping the DMA removes the race."""
    path = ROOT / "fixtures" / "dma" / "noalias_args_lowered_twin.ll"
    text = path.read_text()
    assert check_text(text, str(path)).clean
    assert not check_text(text, str(path), codegen="triton").clean
    rep = repair(text, str(path), codegen="triton")
    assert rep.how == "scope-dma" and rep.clean
    assert check_text(rep.text, str(path), codegen="triton").clean
