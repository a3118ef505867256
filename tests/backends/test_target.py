"""Reading a module's triple and CPU (llnoalias.backends.target)."""

from __future__ import annotations

import glob
import os

import pytest

from llnoalias.analysis.memory.accesses import code_family, module_family
from llnoalias.backends.target import (
    amdgpu_version_to_gfx,
    detect,
    infer_triple,
    normalize_triple,
    read_cpu,
    read_triple,
)
from llnoalias.diagnostics import LLNoaliasError
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from tests.support.files import DATA, FIXTURES

AMD_CLANG = """\
; ModuleID = 'k.hip'
target datalayout = "e-p:64:64-p1:64:64"
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(ptr addrspace(1) %p) #0 {
  ret void
}

attributes #0 = { mustprogress nounwind "amdgpu-flat-work-group-size"="1,256" "target-cpu"="gfx942" "target-features"="+gfx9-insts" }
"""


def test_clang_module() -> None:
    t = detect(AMD_CLANG)
    assert (t.triple, t.cpu, t.family, t.is_amdgpu, t.is_nvptx) == ("amdgcn-amd-amdhsa", "gfx942", "amdgpu", True, False)


def test_mcpu_overrides_attribute() -> None:
    assert detect(AMD_CLANG, mcpu="gfx90a").cpu == "gfx90a"


def test_cpu_written_on_the_function_and_crlf() -> None:
    text = 'target triple = "amdgcn-amd-amdhsa"\r\ndefine void @f() "target-cpu"="gfx1100" {\r\n  ret void\r\n}\r\n'
    assert read_triple(text) == "amdgcn-amd-amdhsa"
    assert detect(text).cpu == "gfx1100"


def test_most_frequent_cpu_wins() -> None:
    text = ('attributes #0 = { "target-cpu"="gfx942" }\nattributes #1 = { "target-cpu"="gfx942" }\n'
            'attributes #2 = { "target-cpu"="gfx90a" }\n')
    assert read_cpu(text) == "gfx942"
    assert read_cpu("no cpu here") is None


@pytest.mark.parametrize(("version", "gfx"), [
    ("9.50", "gfx950"), ("9.42", "gfx942"), ("9.0a", "gfx90a"), ("9.08", "gfx908"),
    ("12.0.1", "gfx1201"), ("9.4.2", "gfx942"), ("10.3.0", "gfx1030"), ("9.0.10", "gfx90a"),
    ("11.5", "gfx1150"), ("11.00", "gfx1100"),
])
def test_amdgpu_version_rule(version: str, gfx: str) -> None:
    assert amdgpu_version_to_gfx(version) == gfx


@pytest.mark.parametrize("version", ["9", "x.50", "9.500", "9.0.99", "9.z0", "9.1.2.3"])
def test_amdgpu_version_unreadable(version: str) -> None:
    assert amdgpu_version_to_gfx(version) is None


def test_triton_triple_spelling() -> None:
    text = 'target triple = "amdgpu9.50-amd-amdhsa"\ndefine amdgpu_kernel void @k() { ret void }\n'
    t = detect(text)
    assert (t.triple, t.cpu, t.source_triple) == ("amdgcn-amd-amdhsa", "gfx950", "amdgpu9.50-amd-amdhsa")
    assert normalize_triple("amdgpu12.0.1-amd-amdhsa") == ("amdgcn-amd-amdhsa", "amdgpu", "gfx1201")
    # An explicit attribute, then --mcpu, take precedence over the version in the triple.
    assert detect(text + 'attributes #0 = { "target-cpu"="gfx942" }\n').cpu == "gfx942"
    assert detect(text, mcpu="gfx942").cpu == "gfx942"


def test_nvptx() -> None:
    text = ('target triple = "nvptx64-nvidia-cuda"\ndefine ptx_kernel void @k() #0 { ret void }\n'
            'attributes #0 = { "target-cpu"="sm_90a" "target-features"="+ptx80" }\n')
    t = detect(text)
    assert (t.triple, t.cpu, t.family) == ("nvptx64-nvidia-cuda", "sm_90a", "nvptx")
    # No CPU is allowed for NVPTX: the code generator's default is used.
    assert detect('target triple = "nvptx64-nvidia-cuda"\n').cpu == ""


def test_no_triple_is_an_error() -> None:
    with pytest.raises(LLNoaliasError, match="no 'target triple'"):
        detect('define void @f() #0 { ret void }\nattributes #0 = { "target-cpu"="gfx942" }\n')


def test_amdgpu_without_cpu_says_pass_mcpu() -> None:
    with pytest.raises(LLNoaliasError, match="--mcpu") as info:
        detect('target triple = "amdgcn-amd-amdhsa"\ndefine void @f() { ret void }\n')
    assert info.value.exit_code == 2
    assert detect('target triple = "amdgcn-amd-amdhsa"\n', mcpu="gfx942").cpu == "gfx942"


def test_non_gpu_triple_is_an_error() -> None:
    with pytest.raises(LLNoaliasError, match="not an AMDGPU"):
        detect('target triple = "x86_64-unknown-linux-gnu"\n', mcpu="znver4")


def test_commented_triple_is_ignored() -> None:
    text = '; target triple = "nvptx64-nvidia-cuda"\ntarget triple = "amdgcn-amd-amdhsa"\n'
    assert read_triple(text) == "amdgcn-amd-amdhsa"


# --- a module without a triple ---------------------------------------------


def test_triple_inferred_from_ptx_kernel() -> None:
    t = detect('define ptx_kernel void @k() #0 { ret void }\nattributes #0 = { "target-cpu"="sm_90" }\n')
    assert (t.triple, t.family, t.cpu) == ("nvptx64-nvidia-cuda", "nvptx", "sm_90")
    assert "ptx_kernel" in t.note and "nvptx64-nvidia-cuda" in t.note


def test_triple_inferred_from_nvvm_annotations() -> None:
    t = detect('define void @k() { ret void }\n!nvvm.annotations = !{!0}\n!0 = !{ptr @k, !"kernel", i32 1}\n')
    assert t.triple == "nvptx64-nvidia-cuda" and "nvvm.annotations" in t.note


def test_triple_inferred_from_amdgpu_kernel() -> None:
    t = detect('define amdgpu_kernel void @k() #0 { ret void }\nattributes #0 = { "target-cpu"="gfx942" }\n')
    assert (t.triple, t.cpu) == ("amdgcn-amd-amdhsa", "gfx942") and "amdgpu_kernel" in t.note


def test_module_triple_gives_no_note_and_flag_overrides() -> None:
    text = 'target triple = "amdgcn-amd-amdhsa"\ndefine ptx_kernel void @k() { ret void }\n'
    assert detect(text, mcpu="gfx942").note == ""
    t = detect(text, mcpu="sm_80", triple="nvptx64-nvidia-cuda")
    assert (t.triple, t.family, t.note) == ("nvptx64-nvidia-cuda", "nvptx", "")
    # --triple takes Triton's spelling too
    assert detect("define void @f() { ret void }\n", triple="amdgpu9.50-amd-amdhsa").cpu == "gfx950"


def test_no_triple_and_no_hint_names_the_flag() -> None:
    with pytest.raises(LLNoaliasError, match="--triple"):
        detect("define void @f() { ret void }\n")


# --- one inference of the family: the analysis's -------------------------------------------


def _codegen_family(text: str) -> str:
    """The family ``compile`` hands the code generator, or ``other`` where it would refuse."""
    source = read_triple(text)
    try:
        if source is None or not source.strip():
            inferred = infer_triple(text)
            return "other" if inferred is None else normalize_triple(inferred[0])[1]
        return normalize_triple(source.strip())[1]
    except LLNoaliasError:
        return "other"


@pytest.mark.slow
def test_the_code_generator_reads_every_fixture_as_the_analysis_does() -> None:
    """``module_family`` (what the regions and address summaries assume) and the triple
    ``compile`` uses agree on every fixture and corpus file, those without a triple
    (FlyDSL's, Triton's NVPTX modules) too."""
    paths = sorted(glob.glob(os.path.join(FIXTURES, "**", "*.ll"), recursive=True))
    paths += sorted(glob.glob(os.path.join(DATA, "**", "*.ll"), recursive=True))
    seen: dict[str, int] = {}
    for path in paths:
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            text = fh.read()
        try:
            mod = parse_module(SourceFile(path, text))
        except LLNoaliasError:
            continue  # a bad-input fixture
        family = module_family(mod)
        if read_triple(text) is None:
            seen[family] = seen.get(family, 0) + 1
        assert _codegen_family(text) == family, path
    assert seen.get("amdgpu", 0) >= 4 and seen.get("nvptx", 0) >= 4, seen  # FlyDSL's and Triton's


def test_triple_less_modules_are_read_from_their_code_by_one_rule() -> None:
    cases = {
        "define amdgpu_kernel void @k() {\n  ret void\n}\n": ("amdgpu", "amdgpu_kernel"),
        "define amdgpu_ps void @k() {\n  ret void\n}\n": ("amdgpu", "amdgpu_*"),
        # device code only: its intrinsics can only be lowered for AMDGPU
        "define void @f() {\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  ret void\n}\n"
        "declare i32 @llvm.amdgcn.workitem.id.x()\n": ("amdgpu", "llvm.amdgcn"),
        "define ptx_kernel void @k() {\n  ret void\n}\n": ("nvptx", "ptx_kernel"),
        "define void @f() {\n  call void @llvm.nvvm.barrier0()\n  ret void\n}\n"
        "declare void @llvm.nvvm.barrier0()\n": ("nvptx", "llvm.nvvm"),
        "define void @f() {\n  ret void\n}\n": ("other", ""),
        # both: no guess, for neither reader
        "define amdgpu_kernel void @k() {\n  ret void\n}\ndefine ptx_kernel void @j() {\n  ret void\n}\n": ("other", ""),
    }
    for text, (family, why) in cases.items():
        assert module_family(parse_module(SourceFile("t.ll", text))) == family, text
        assert code_family(text) == family
        inferred = infer_triple(text)
        if family == "other":
            assert inferred is None, text
        else:
            assert inferred is not None and normalize_triple(inferred[0])[1] == family and why in inferred[1], text
    with pytest.raises(LLNoaliasError, match="both AMDGPU and NVPTX"):
        detect("define amdgpu_kernel void @k() {\n  ret void\n}\ndefine ptx_kernel void @j() {\n  ret void\n}\n")


R600 = ('target triple = "r600--"\n'
        "@a = external addrspace(3) global [0 x i32]\n@b = addrspace(3) global [64 x i32] undef\n"
        "define amdgpu_kernel void @k(i32 %i) {\n"
        "  %p = getelementptr i32, ptr addrspace(3) @a, i32 %i\n  store i32 1, ptr addrspace(3) %p, align 4\n"
        "  %q = getelementptr i32, ptr addrspace(3) @b, i32 %i\n  store i32 2, ptr addrspace(3) %q, align 4\n"
        "  ret void\n}\n")


def test_r600_is_amdgpu_everywhere_and_compile_says_why_it_stops() -> None:
    """One reading of a triple (``ir.facts.target_family``): an r600 module is AMDGPU to the
    analysis (``Module.facts``, annotated as one) and to the code generator's target, which
    refuses it as an AMD GPU before GCN, not as a non-GPU triple."""
    import llnoalias
    from llnoalias.ir.facts import AMDGPU, is_pre_gcn, target_family

    assert target_family("r600--") == target_family("R600-unknown-unknown") == AMDGPU
    assert is_pre_gcn("r600--") and not is_pre_gcn("amdgcn-amd-amdhsa") and not is_pre_gcn("amdgpu9.50-amd-amdhsa")
    assert parse_module(SourceFile("t.ll", R600)).facts.family == AMDGPU
    res = llnoalias.annotate(R600, lds="all")
    assert res.changed and {r.name for r in res.report.roots} == {"a", "b"}
    assert all(a.tagged and a.domain == "llnoalias.lds" for a in res.report.accesses)
    for mcpu in ("cypress", None):
        with pytest.raises(LLNoaliasError) as info:
            detect(R600, mcpu=mcpu)
        msg = info.value.format()
        assert "is an AMD GPU before GCN" in msg and "not an AMDGPU" not in msg
        assert "amdgcn-*" in msg and "llnoalias IN -o OUT" in msg
    with pytest.raises(LLNoaliasError, match="before GCN"):
        normalize_triple("r600--")
