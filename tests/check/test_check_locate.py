"""The located copy ``check`` compiles: every instruction at its own line, the module still
valid for LLVM, and the code the same as without the locations."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from llnoalias.check.locate import instructions_of, same_instructions, with_line_locations
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from tests.support.files import ROOT

FIXTURES = ROOT / "fixtures"

llvm = pytest.importorskip("llvmlite.binding", reason="llvmlite is not installed")


def _read(path: Path) -> str:
    return gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()


def _located(path: Path) -> tuple[str, str]:
    text = _read(path)
    mod = parse_module(SourceFile(str(path), text))
    return text, with_line_locations(mod, path.name)


CASES = [FIXTURES / "dma" / "window_no_claim.ll", FIXTURES / "check" / "loop_refill_scoped_races.ll",
         FIXTURES / "corpus" / "clang19" / "hip_lds_dma_O3.ll", FIXTURES / "corpus" / "clang19" / "hip_lds_dma_O3_g.ll",
         FIXTURES / "corpus" / "clang19" / "hip_gemm_O0_g.ll"]


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_every_instruction_is_located_at_its_own_line(path: Path) -> None:
    text, located = _located(path)
    mod = parse_module(SourceFile("located.ll", located))
    lines = text.splitlines()
    locs = {int(m.group(1)): int(m.group(2)) for m in
            re.finditer(r"^!(\d+) = !DILocation\(line: (\d+), column: \d+, scope: !\d+\)$", located, re.M)}
    seen = 0
    for fn in mod.functions:
        for inst in fn.instrs:
            code = located[inst.start:inst.end]
            m = re.search(r"!dbg !(\d+)$", code)
            assert m, f"no location on `{code}`"
            line = locs[int(m.group(1))]
            # the located line in the input holds the same instruction (less its old !dbg)
            original = re.sub(r", !dbg !\d+", "", lines[line - 1]).strip()
            assert original == re.sub(r", !dbg !\d+", "", code).strip()
            seen += 1
    assert seen > 0


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_the_located_copy_verifies(path: Path) -> None:
    from llnoalias.backends.bridge import bridge

    _, located = _located(path)
    m = llvm.parse_assembly(bridge(located)[0])
    m.verify()
    # LLVM drops debug info it finds invalid with only a warning: the locations must survive
    assert "!DILocation(line:" in str(m)


def test_debug_records_and_old_locations_go() -> None:
    _, located = _located(FIXTURES / "corpus" / "clang19" / "hip_lds_dma_O3_g.ll")
    assert "#dbg_value" not in located
    body = located.split("; llnoalias check:")[0]
    # each define names the new subprogram, none keeps two !dbg
    for line in body.splitlines():
        if line.startswith("define "):
            assert line.count("!dbg") == 1


def test_instructions_of_leaves_out_comments_directives_and_labels() -> None:
    asm = "\t.text\nk:\n\t.loc 1 3 4\n\ts_waitcnt vmcnt(0) ; comment\n.LBB0_1:\n\tds_read_b32 v1,  v0\n"
    assert instructions_of(asm) == ["s_waitcnt vmcnt(0)", "ds_read_b32 v1, v0"]
    ok, why = same_instructions(asm, asm.replace("\t.loc 1 3 4\n", ""))
    assert ok and not why
    ok, why = same_instructions(asm, asm.replace("vmcnt(0)", "vmcnt(1)"))
    assert not ok and "instruction 1" in why


MERGED = """target triple = "amdgcn-amd-amdhsa"
@lds = external addrspace(3) global [0 x i32], align 16

define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %n) #0 {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %body, label %exit
body:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p0 = getelementptr i32, ptr addrspace(3) @lds, i32 %tid
  %p1 = getelementptr i32, ptr addrspace(3) %p0, i32 64
  %a = load i32, ptr addrspace(3) %p0, align 4
  %b = load i32, ptr addrspace(3) %p1, align 4
  %s = add i32 %a, %b
  store i32 %s, ptr addrspace(1) %out, align 4
  br label %exit
exit:
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
attributes #0 = { "target-cpu"="gfx942" }
"""


def test_a_merged_instruction_keeps_the_block_of_its_accesses() -> None:
    """Two loads of one block (the second block, index 1) merged into one ``ds_read2``: its
    location has line 0 (the lines differ) and the scope of their block, which the assembly's
    ``.file`` names; the store of that block names it with its own line."""
    from llnoalias.asm.reader import read_amdgpu
    from llnoalias.check.checker import check_text
    from llnoalias.check.locate import BLOCK_DIRECTORY

    fn = read_amdgpu(check_text(MERGED, "merged.ll").asm)[0]
    read2 = [i for i in fn.insts if i.mnemonic.startswith(("ds_read2", "ds_load_2"))]
    assert len(read2) == 1, [i.text for i in fn.insts]
    assert read2[0].ir_line == 0 and read2[0].loc_dir == f"{BLOCK_DIRECTORY}1"
    store = next(i for i in fn.insts if i.mnemonic.startswith("global_store"))
    assert store.ir_line == 15 and store.loc_dir == f"{BLOCK_DIRECTORY}1"
