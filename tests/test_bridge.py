"""The version bridge (issue 11): each rewrite of the table on its fixture, the corpus,
and the promise that the bridge never changes what llnoalias writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from llnoalias.backends import bridge as bridge_mod
from llnoalias.backends import llvmlite_backend
from llnoalias.backends.bridge import REWRITES, BridgeError, bridge, describe
from llnoalias.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "bridge"
CORPUS = ROOT / "fixtures" / "corpus"

#: What each corpus file needs from the bridge before llvmlite's LLVM 22 takes it.
CORPUS_REWRITES: dict[str, tuple[str, ...]] = {
    **{f"clang19/hip_lds_dma_O{o}{g}.ll": ("amdgcn-make-buffer-rsrc-i64",) for o in range(4) for g in ("", "_g")},
    "triton/amd_attn_gfx950_async.ll": ("amdgpu-versioned-triple", "amdgcn-async-lds-load", "amdgcn-asyncmark"),
    "triton/amd_matmul_gfx942.ll": (),
    "triton/nv_matmul_sm80.ll": (),
    "triton/nv_softmax.ll": (),
    # Real Triton 3.9.0 output (scripts/gen_triton_corpus.py).
    "triton39/add_gfx942.ll": ("amdgpu-versioned-triple",),
    "triton39/attn_fwd_gfx942.ll": ("amdgpu-versioned-triple", "float-bits-literal", "float-special-literal"),
    "triton39/attn_fwd_gfx950.ll": ("amdgpu-versioned-triple", "float-bits-literal", "float-special-literal", "amdgcn-async-lds-load", "amdgcn-asyncmark"),
    "triton39/layernorm_gfx942.ll": ("amdgpu-versioned-triple",),
    "triton39/matmul_128x128x64_w8s2_gfx942.ll": ("amdgpu-versioned-triple",),
    "triton39/matmul_128x128x64_w8s2_gfx950.ll": ("amdgpu-versioned-triple", "amdgcn-async-lds-load", "amdgcn-asyncmark"),
    "triton39/matmul_128x128x64_w8s2_sm80.ll": (),
    "triton39/matmul_128x128x64_w8s2_sm90.ll": (),
    "triton39/matmul_64x64x32_gfx942.ll": ("amdgpu-versioned-triple",),
    "triton39/softmax_gfx942.ll": ("amdgpu-versioned-triple", "float-bits-literal", "float-special-literal"),
    "triton39/softmax_sm80.ll": ("float-bits-literal", "float-special-literal"),
    "triton39/softmax_sm90.ll": ("float-bits-literal", "float-special-literal"),
}


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "surrogateescape")


def test_every_rewrite_has_a_fixture_and_says_why() -> None:
    names = [r.name for r in REWRITES]
    assert len(set(names)) == len(names)
    for row in describe():
        assert all(row[k].strip() for k in ("matches", "sound", "how")), row
        assert (FIXTURES / f"{row['name']}.ll").exists(), f"no fixture for {row['name']}"


@pytest.mark.parametrize("name", [r.name for r in REWRITES])
def test_rewrite_fixture(name: str) -> None:
    text = _read(FIXTURES / f"{name}.ll")
    bridged, applied = bridge(text, active=True)
    assert name in applied
    assert bridged.count("\n") == text.count("\n"), "a rewrite must keep line numbers"
    assert bridge(bridged, active=True)[1] == [], "a bridged module needs nothing more"
    res = llvmlite_backend.check_module(text, text)
    assert res.input_verified and res.output_ok, res.input_message or res.message
    assert name in res.rewrites


def test_rewrites_that_llvm22_needs() -> None:
    # Without the bridge LLVM 22 rejects these fixtures (the triple one it reads anyway).
    for name in ("amdgcn-make-buffer-rsrc-i64", "amdgcn-async-lds-load", "float-bits-literal",
                 "float-special-literal"):
        text = _read(FIXTURES / f"{name}.ll")
        res = llvmlite_backend.check_module(text, text, use_bridge=False)
        assert not res.input_verified, name


def test_make_buffer_rsrc_rewrite() -> None:
    bridged, _ = bridge(_read(FIXTURES / "amdgcn-make-buffer-rsrc-i64.ll"), active=True)
    assert "%llnoalias.bridge.rsrc.0 = zext i32 %n to i64 %r = tail call ptr addrspace(8) " \
           "@llvm.amdgcn.make.buffer.rsrc.p8.p0(ptr %p, i16 0, i64 %llnoalias.bridge.rsrc.0, i32 131072)" in bridged
    assert "zext i32 -1 to i64" in bridged and "!dbg !3" in bridged
    assert "declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p0(ptr readnone, i16, i64, i32)" in bridged
    assert ".rsrc.p0(" not in bridged


def test_async_lds_rewrite() -> None:
    bridged, applied = bridge(_read(FIXTURES / "amdgcn-async-lds-load.ll"), active=True)
    assert applied == ["amdgcn-async-lds-load", "amdgcn-asyncmark"]
    assert "async" not in bridged and "asyncmark" not in bridged
    # the plain form was declared already: one declaration, not two
    assert bridged.count("declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(") == 1
    assert "i32 16, i32 0, i32 0, i32 0, i32 0), !alias.scope !0" in bridged


def test_float_bits_rewrite() -> None:
    bridged, _ = bridge(_read(FIXTURES / "float-bits-literal.ll"), active=True)
    assert "half 0xH3C00" in bridged and "bfloat 0xR3F80" in bridged
    assert "float 0x3FF8000000000000" in bridged and "double 0x3FF8000000000000" in bridged
    assert "half 0xHBC00>" in bridged and "f0x" not in bridged
    # an operand without its own type takes the instruction's (Triton 3.9 writes these)
    assert "%y = fmul float %x, 0x3FF7154760000000" in bridged


def test_float_special_rewrite() -> None:
    bridged, applied = bridge(_read(FIXTURES / "float-special-literal.ll"), active=True)
    assert applied == ["float-special-literal"]
    assert "%s = select i1 %c, float %x, float 0xFFF0000000000000" in bridged
    assert "%m = fadd float %s, 0x7FF0000000000000" in bridged
    assert "splat (float 0xFFF0000000000000), <2 x float> splat (float 0x7FF8000000000000)" in bridged
    assert "half 0xHFC00" in bridged and "bfloat 0xR7FC0" in bridged and "double 0xFFF8000000000000" in bridged
    assert "phi float [ 0xFFF0000000000000, %entry ]" in bridged
    assert "phi float [ 0x7FF0000000000000, %entry ]" in bridged
    # strings and comment lines are not constants
    assert '!{!"a string holding float -inf stays as it is"}' in bridged
    assert bridged.splitlines()[0] == _read(FIXTURES / "float-special-literal.ll").splitlines()[0]


def test_versioned_triple_rewrite() -> None:
    bridged, _ = bridge(_read(FIXTURES / "amdgpu-versioned-triple.ll"), active=True)
    assert 'target triple = "amdgcn-amd-amdhsa"' in bridged


def test_unknown_async_intrinsic_is_named() -> None:
    text = "declare void @llvm.amdgcn.raw.ptr.buffer.store.async.lds(ptr addrspace(8))\n"
    with pytest.raises(BridgeError, match=r"llvm\.amdgcn\.raw\.ptr\.buffer\.store\.async\.lds"):
        bridge(text, active=True)
    # ... and LLVM 22's own async intrinsics are left alone
    ok = "declare void @llvm.amdgcn.s.wait.asynccnt(i16)\n"
    assert bridge(ok, active=True) == (ok, [])


def test_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _read(FIXTURES / "amdgcn-async-lds-load.ll")
    monkeypatch.setenv(bridge_mod.ENV_SWITCH, "0")
    assert bridge(text) == (text, [])
    monkeypatch.setenv(bridge_mod.ENV_SWITCH, "1")
    assert bridge(text)[1]


@pytest.mark.parametrize("rel", sorted(CORPUS_REWRITES))
def test_corpus_rewrites(rel: str) -> None:
    text = _read(CORPUS / rel)
    bridged, applied = bridge(text, active=True)
    assert tuple(applied) == CORPUS_REWRITES[rel]
    res = llvmlite_backend.check_module(text, text)
    assert res.input_verified, res.input_message


def test_every_other_corpus_file_needs_nothing() -> None:
    assert {f"triton39/{p.name}" for p in (CORPUS / "triton39").glob("*.ll")} <= set(CORPUS_REWRITES), \
        "every real Triton file is listed in CORPUS_REWRITES"
    for path in sorted((CORPUS / "clang19").glob("*.ll")):
        rel = f"clang19/{path.name}"
        if rel not in CORPUS_REWRITES:
            assert bridge(_read(path), active=True)[1] == [], rel


@pytest.mark.parametrize("rel", ["clang19/hip_lds_dma_O3_g.ll", "triton/amd_attn_gfx950_async.ll",
                                 "triton39/attn_fwd_gfx950.ll"])
def test_bridge_never_changes_what_llnoalias_writes(rel: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    outputs = []
    notes = []
    for switch in ("1", "0"):
        monkeypatch.setenv(bridge_mod.ENV_SWITCH, switch)
        out = tmp_path / f"out{switch}.ll"
        result = CliRunner().invoke(cli, [str(CORPUS / rel), "-o", str(out), "--lds", "all", "--args", "noalias"],
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        outputs.append(out.read_bytes())
        notes.append(result.stderr if hasattr(result, "stderr") else "")
    assert outputs[0] == outputs[1]
    assert outputs[0] != (CORPUS / rel).read_bytes()
    # with the bridge the output verifies (no note); without it, llnoalias says it could not
    assert "not verified" not in notes[0]
    assert re.search("not verified", notes[1])


NEWER_SYNTAX_LLVM22_READS = """\
target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @k(ptr addrspace(1) captures(none) %p, i32 %a, i32 %b) #0 {
  %c = icmp samesign ult i32 %a, %b
  %q = getelementptr nusw nuw i8, ptr addrspace(1) %p, i64 4
  %i = ptrtoaddr ptr addrspace(1) %q to i64
  %v = select i1 %c, <2 x i32> splat (i32 1), <2 x i32> zeroinitializer
  store <2 x i32> %v, ptr addrspace(1) %q, align 8
  ret void
}
declare i32 @f(i32) #1
attributes #0 = { "target-cpu"="gfx942" }
attributes #1 = { nocreateundeforpoison nounwind memory(none) }
"""


def test_newer_syntax_that_llvm22_reads_needs_no_rewrite() -> None:
    # captures(...), nocreateundeforpoison, samesign, nusw/nuw GEP flags, splat, ptrtoaddr:
    # LLVM 22.1 reads them all, so the bridge leaves them (and the facts they add) alone.
    assert bridge(NEWER_SYNTAX_LLVM22_READS, active=True) == (NEWER_SYNTAX_LLVM22_READS, [])
    res = llvmlite_backend.check_module(NEWER_SYNTAX_LLVM22_READS, NEWER_SYNTAX_LLVM22_READS, use_bridge=False)
    assert res.input_verified, res.input_message


def test_stats_says_the_rewrites_with_verbose_only() -> None:
    src = str(FIXTURES / "amdgcn-async-lds-load.ll")
    quiet = CliRunner().invoke(cli, ["stats", "--json", src], catch_exceptions=False)
    loud = CliRunner().invoke(cli, ["stats", "--json", "-v", src], catch_exceptions=False)
    assert quiet.exit_code == 0 and loud.exit_code == 0, quiet.stderr
    assert "version bridge" not in quiet.stderr
    # the input and the annotated build say the same: once
    assert loud.stderr.count("version bridge: amdgcn-async-lds-load, amdgcn-asyncmark") == 1
    assert loud.stderr.startswith(f"llnoalias: note: {src}: ")
