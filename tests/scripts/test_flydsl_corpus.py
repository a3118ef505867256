"""The FlyDSL corpus (fixtures/corpus/flydsl/) and its scripts: the checked-in modules are what
the recipe says, the named-base rewrite names each sub-buffer as FlyDSL itself does, the cuts
are reproducible, and bench_flydsl's independent unsafe-state check. No FlyDSL needed: the
modules are checked in. Nothing here asserts what llnoalias tags (the rules of design section 4b decide that)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from tests.support.files import ROOT
from tests.support.run import load_script

FLY = ROOT / "fixtures" / "corpus" / "flydsl"

gen = load_script("gen_flydsl_corpus")
named = load_script("flydsl_named_bases")
bench = load_script("bench_flydsl")

DMA = "call void @llvm.amdgcn.raw.ptr.buffer.load.lds("


def _gz(stem: str) -> str:
    return gzip.decompress((FLY / f"{stem}.ll.gz").read_bytes()).decode("utf-8")


@pytest.mark.parametrize("kernel,k,dmas,reads", [("4wave", 512, 64, 128), ("4wave", 4096, 512, 1024),
                                                  ("8wave", 1024, 64, 192)])
def test_gemm_counts_are_the_recipes(kernel: str, k: int, dmas: int, reads: int) -> None:
    """4-wave: 32 + 16 * (K/128 - 2) DMAs and twice as many 16-byte LDS reads; 8-wave: 8 per
    K step; in every LDS shape."""
    for shape in ("gfx950", "dynshared_gfx950", "namedbases_gfx950"):
        stem = f"fp8_gemm_{kernel}_{shape}_k{k}" + (".DERIVED" if "named" in shape else "")
        text = _gz(stem)
        assert text.count(DMA) == dmas, stem
        assert len(re.findall(r"= load <16 x i8>, ptr addrspace\(3\)", text)) == reads, stem


def test_static_module_is_flydsl_text_unmodified() -> None:
    """The real modules start with FlyDSL's own first line (nothing added in front)."""
    for stem in ("fp8_gemm_4wave_gfx950_k512", "fp8_gemm_4wave_dynshared_gfx950_k4096"):
        assert _gz(stem).startswith("; ModuleID = 'LLVMDialectModule'\n"), stem
    for path in FLY.glob("layernorm_*.ll"):
        assert path.read_text().startswith("; ModuleID = 'LLVMDialectModule'\n"), path.name


@pytest.mark.parametrize("gemm", ["4wave_{}_k512", "4wave_{}_k4096", "8wave_{}_k1024"])
def test_named_bases_is_the_rewrite_of_the_single_base_module(gemm: str) -> None:
    dyn = _gz("fp8_gemm_" + gemm.format("dynshared_gfx950"))
    derived = named.rewrite(dyn, None, gen.FP8_NAMES.split(","))
    assert derived == _gz("fp8_gemm_" + gemm.format("namedbases_gfx950") + ".DERIVED")
    assert named.rewrite(dyn, None, gen.FP8_NAMES.split(",")) == derived  # deterministic
    bases = re.findall(r"^@(\w+) = external dso_local addrspace\(3\) global \[0 x i8\], align 1024$", derived, re.M)
    assert bases == gen.FP8_NAMES.split(",")
    assert "@__dynamic_shared_0" not in derived.split("\n", 12)[-1]  # only the header comment names it


@pytest.mark.parametrize("gemm", ["4wave_{}_k512", "8wave_{}_k1024"])
def test_each_offset_names_the_sub_buffer_flydsl_allocated_there(gemm: str) -> None:
    """The static and the single-base module of a GEMM are the same text once static
    ``@__shared_alloc_<k>`` and the constant GEP ``+16384*k`` get one name, so the rewrite's
    offset -> name map is FlyDSL's own."""
    static, dyn = _gz("fp8_gemm_" + gemm.format("gfx950")), _gz("fp8_gemm_" + gemm.format("dynshared_gfx950"))

    def body(text: str) -> str:
        return "\n".join(ln for ln in text.split("\n") if not ln.startswith("@"))

    a = re.sub(r"@__shared_alloc_(\d+)\b", r"@B\1", body(static))
    b = re.sub(r"getelementptr \(i8, ptr addrspace\(3\) @__dynamic_shared_0, i32 (\d+)\)",
               lambda m: f"@B{int(m.group(1)) // 16384}", body(dyn))
    b = re.sub(r"@__dynamic_shared_0\b", "@B0", b)
    assert a == b
    assert len(set(re.findall(r"@B\d", a))) == 8


def test_named_bases_refuses_a_module_without_one_base(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "static.ll"
    src.write_bytes(gzip.decompress((FLY / "fp8_gemm_4wave_gfx950_k512.ll.gz").read_bytes()))
    out = tmp_path / "out.ll"
    assert named.main([str(src), "-o", str(out)]) == 2
    assert re.match(rf"{re.escape(str(src))}:1:1: error: expected exactly one external", capsys.readouterr().err)
    assert not out.exists()
    dyn = tmp_path / "dyn.ll"
    dyn.write_bytes(gzip.decompress((FLY / "fp8_gemm_4wave_dynshared_gfx950_k512.ll.gz").read_bytes()))
    assert named.main([str(dyn), "-o", str(out), "--names", "a,b"]) == 2
    assert "--names gives 2 names for 8 sub-buffers" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("stem", sorted(gen.CUTS))
def test_cuts_are_reproducible(stem: str) -> None:
    src, seeds, _what = gen.CUTS[stem]
    got = gen.cut_module(gen._read(FLY, src), seeds)
    assert got in (FLY / f"{stem}.ll").read_text(), stem
    # every line of the cut (but the renumbering) is a line of the module it came from
    source = {re.sub(r"%\d+", "%N", ln) for ln in gen._read(FLY, src).split("\n")}
    assert all(re.sub(r"%\d+", "%N", ln) in source for ln in got.split("\n")
               if ln and ln != "  ret void" and not ln.startswith(";")), stem


UNSAFE = """
@X = external addrspace(3) global [0 x i8], align 1024
@Y = external addrspace(3) global [0 x i8], align 1024
define amdgpu_kernel void @k(ptr addrspace(8) %r, ptr addrspace(1) %o, i32 %v) {
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) @X, i32 4, i32 %v, i32 0, i32 0, i32 0)DMA_MD
  %x = load i32, ptr addrspace(3) @X, align 4, !alias.scope !3, !noalias !4
  store i32 %x, ptr addrspace(1) %o
  ret void
}
define amdgpu_kernel void @other(ptr addrspace(1) %o) {
  %y = load i32, ptr addrspace(3) @Y, align 4, !alias.scope !4, !noalias !3
  store i32 %y, ptr addrspace(1) %o
  ret void
}
"""


def test_unsafe_state_check() -> None:
    """The smallest unsafe case of design section 4b is one unsafe function; scoping its DMA, or dropping the
    read's scope, makes it safe; a function without DMAs never counts."""
    assert bench.unsafe_state(UNSAFE.replace("DMA_MD", "")) == (1, 1, 1)
    assert bench.unsafe_state(UNSAFE.replace("DMA_MD", ", !alias.scope !3, !noalias !4")) == (0, 0, 0)
    assert bench.unsafe_state(UNSAFE.replace("DMA_MD", "").replace("!alias.scope !3, ", "")) == (0, 0, 0)


def test_inline_asm_waits_are_told_apart() -> None:
    asm = "\ts_waitcnt vmcnt(0)\n\t;;#ASMSTART\n\ts_waitcnt vmcnt(3)\ns_barrier\n\t;;#ASMEND\n\ts_waitcnt lgkmcnt(0)\n"
    assert bench.inline_asm_vmcnt(asm) == 1
