"""The version bridge: each rewrite of the table on its fixture, the corpus,
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
from tests.support.files import ROOT

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
    "triton39/matmul_128x128x64_w8s3_sm90.ll": (),
    "triton39/attn_fwd_m64_sm90.ll": ("float-bits-literal", "float-special-literal"),
    "triton39/matmul_128x128x64_w4s3_sm100.ll": (),
    # Real IREE 3.13 output (scripts/gen_iree_corpus.py).
    **{f"iree/{stem}_cuda.ll": () for stem in ("bmm_f16_4x128x128x64", "matmul_f16_100x200x300",
                                               "matmul_tb_f16_512x512x256")},
    **{f"iree/{stem}_hip.ll": ("amdgpu-versioned-triple", "amdgcn-make-buffer-rsrc-overloaded-num-records")
       for stem in ("bmm_f16_4x128x128x64", "matmul_f16_100x200x300", "matmul_tb_f16_512x512x256",
                    "softmax_f32_17x333")},
    "iree/softmax_f16_32x4096_cuda.ll": ("float-bits-literal", "float-special-literal", "float-decimal-inexact"),
    "iree/softmax_f16_32x4096_hip.ll": ("amdgpu-versioned-triple", "float-special-literal",
                                        "amdgcn-make-buffer-rsrc-overloaded-num-records"),
    "iree/softmax_f32_17x333_cuda.ll": ("float-bits-literal", "float-decimal-inexact"),
    "iree/softmax_f32_64x1024_cuda.ll": ("float-bits-literal", "float-special-literal", "float-decimal-inexact"),
    "iree/softmax_f32_64x1024_hip.ll": ("amdgpu-versioned-triple", "float-special-literal",
                                        "amdgcn-make-buffer-rsrc-overloaded-num-records"),
}


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "surrogateescape")


def test_every_rewrite_has_a_fixture_and_says_why() -> None:
    names = [r.name for r in REWRITES]
    assert len(set(names)) == len(names)
    for row in describe():
        assert all(row[k].strip() for k in ("matches", "sound", "how")), row
        assert (FIXTURES / f"{row['name']}.ll").exists(), f"no fixture for {row['name']}"


@pytest.mark.slow
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


@pytest.mark.slow
def test_rewrites_that_llvm22_needs() -> None:
    # Without the bridge LLVM 22 rejects these fixtures (the triple one it reads anyway).
    for name in ("amdgcn-make-buffer-rsrc-i64", "amdgcn-async-lds-load", "float-bits-literal",
                 "float-special-literal", "float-decimal-inexact", "amdgcn-make-buffer-rsrc-overloaded-num-records"):
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


def test_float_decimal_rewrite() -> None:
    text = _read(FIXTURES / "float-decimal-inexact.ll")
    bridged, applied = bridge(text, active=True)
    assert applied == ["float-bits-literal", "float-decimal-inexact"]
    # -87.8 and 88.8 as the nearest floats (0xC2AF999A, 0x42B1999A), in LLVM 22's double spelling
    assert "fcmp olt <4 x float> %45, splat (float 0xC055F33340000000)" in bridged
    assert "<4 x float> splat (float 0x4056333340000000), <4 x float> %46" in bridged
    # exact decimals and double constants stay as they are; an operand takes its instruction's type
    assert "float 5.000000e-01)" in bridged and "fadd float %49, 0.000000e+00" in bridged
    assert "%51 = fmul float %50, 0x3FB99999A0000000" in bridged
    assert "%53 = fmul half %52, 0xH2E66" in bridged
    assert "%55 = fmul double %54, 1.000000e-01" in bridged
    # nearest float of the decimal (1 + 2^-23), not the nearest float of its nearest double (1.0)
    assert "%57 = fadd float %56, 0x3FF0000020000000" in bridged


def test_round_decimal_is_newer_llvms_rounding() -> None:
    r = bridge_mod.round_decimal
    assert r("-8.780000e+01", "float") == 0xC2AF999A and r("8.880000e+01", "float") == 0x42B1999A
    assert r("0.1", "float") == 0x3DCCCCCD and r("0.1", "half") == 0x2E66 and r("0.1", "bfloat") == 0x3DCD
    assert r("-0.0", "float") == 0x80000000
    # ties go to the even significand: 1 + 2^-24 is halfway between 1 and 1 + 2^-23
    assert r("1.000000059604644775390625", "float") == 0x3F800000
    assert r("1.000000178813934326171875", "float") == 0x3F800002  # 1 + 3 * 2^-24: up to even
    # subnormals are kept; a value that rounds to zero or overflows is refused as newer LLVM does
    assert r("1.0e-45", "float") == 0x00000001 and r("6.0e-8", "half") == 0x0001
    assert r("1.0e-50", "float") is None and r("1.0e+39", "float") is None
    assert r("65504.0", "half") == 0x7BFF and r("65519.0", "half") == 0x7BFF and r("65520.0", "half") is None


def test_float_decimal_rewrite_reads_types_not_names() -> None:
    text = ("define void @f(ptr %p, double %float) {\n"
            "  %half = fmul double %float, 1.000000e-01\n"
            "  store double %half, ptr %p, align 8\n"
            "  ret void\n}\n")
    # 0.1 is no float, but the operand is a double: the names %float and %half are not types
    assert bridge(text, active=True) == (text, [])
    assert bridge("  %x = fmul float %y, 1.5\n  %z = fmul float %y, 1.\n", active=True)[1] == []
    # a wider type's constant is its own: not read as the float named before it
    wide = "  call void @g(float %a, fp128 0.1, x86_fp80 -inf)\n"
    assert bridge(wide, active=True) == (wide, [])


def test_make_buffer_rsrc_overloaded_rewrite() -> None:
    text = _read(FIXTURES / "amdgcn-make-buffer-rsrc-overloaded-num-records.ll")
    bridged, applied = bridge(text, active=True)
    assert applied == ["amdgpu-versioned-triple", "amdgcn-make-buffer-rsrc-overloaded-num-records"]
    # a constant is written widened; another value is zero-extended on the same line
    assert "@llvm.amdgcn.make.buffer.rsrc.p7.p1(ptr addrspace(1) nonnull %0, i16 0, i64 262144, i32 159744)" in bridged
    assert "  %llnoalias.bridge.nrec.0 = zext i32 %n to i64 %75 = tail call ptr addrspace(7) " \
           "@llvm.amdgcn.make.buffer.rsrc.p7.p1(ptr addrspace(1) nonnull %1, i16 0, i64 %llnoalias.bridge.nrec.0, " \
           "i32 159744)" in bridged
    assert "declare ptr addrspace(7) @llvm.amdgcn.make.buffer.rsrc.p7.p1(ptr addrspace(1) readnone, i16, i64, i32) #1" \
        in bridged
    assert ".i32(" not in bridged


def test_make_buffer_rsrc_overloaded_widths() -> None:
    text = ("  %a = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1.i16(ptr addrspace(1) %p, i16 0, i16 -1, i32 0)\n"
            "  %b = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1.i64(ptr addrspace(1) %p, i16 0, i64 %n, i32 0)\n"
            "declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1.i16(ptr addrspace(1), i16, i16, i32)\n"
            "declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1.i64(ptr addrspace(1), i16, i64, i32)\n")
    bridged, _ = bridge(text, active=True)
    lines = bridged.splitlines()
    # -1 in 16 bits, zero-extended, is 65535; an i64 one only loses its suffix
    assert lines[0] == "  %a = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %p, i16 0, i64 65535, i32 0)"
    assert lines[1] == "  %b = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %p, i16 0, i64 %n, i32 0)"
    # both declarations name the same LLVM 22 intrinsic: the second becomes an empty line
    assert lines[2] == "declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)"
    assert lines[3] == "" and bridged.count("\n") == text.count("\n")


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


@pytest.mark.slow
@pytest.mark.parametrize("rel", sorted(CORPUS_REWRITES))
def test_corpus_rewrites(rel: str) -> None:
    text = _read(CORPUS / rel)
    bridged, applied = bridge(text, active=True)
    assert tuple(applied) == CORPUS_REWRITES[rel]
    res = llvmlite_backend.check_module(text, text)
    assert res.input_verified, res.input_message


def test_every_other_corpus_file_needs_nothing() -> None:
    for producer in ("triton39", "iree"):
        assert {f"{producer}/{p.name}" for p in (CORPUS / producer).glob("*.ll")} <= set(CORPUS_REWRITES), \
            f"every real {producer} file is listed in CORPUS_REWRITES"
    for path in sorted((CORPUS / "clang19").glob("*.ll")):
        rel = f"clang19/{path.name}"
        if rel not in CORPUS_REWRITES:
            assert bridge(_read(path), active=True)[1] == [], rel


@pytest.mark.slow
@pytest.mark.parametrize("rel", ["clang19/hip_lds_dma_O3_g.ll", "triton/amd_attn_gfx950_async.ll",
                                 "triton39/attn_fwd_gfx950.ll", "iree/softmax_f32_64x1024_hip.ll",
                                 "iree/softmax_f32_64x1024_cuda.ll"])
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


@pytest.mark.slow
def test_stats_says_the_rewrites_with_verbose_only() -> None:
    src = str(FIXTURES / "amdgcn-async-lds-load.ll")
    quiet = CliRunner().invoke(cli, ["stats", "--json", src], catch_exceptions=False)
    loud = CliRunner().invoke(cli, ["stats", "--json", "-v", src], catch_exceptions=False)
    assert quiet.exit_code == 0 and loud.exit_code == 0, quiet.stderr
    assert "read the module through the version bridge" not in quiet.stderr
    # that the module's waits were rewritten is said without -v, once, after the file's name
    assert quiet.stderr.count(f"note: {src}: the version bridge rewrote the module's synchronization") == 1
    # the input and the annotated build say the same: once
    assert loud.stderr.count("version bridge: amdgcn-async-lds-load, amdgcn-asyncmark") == 1
    assert loud.stderr.startswith(f"llnoalias: note: {src}: ")
