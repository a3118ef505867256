"""Work-group bounds as the code generators read them (design section 2b).

The unit tests pin the readings (LLVM's integer parsing, which of two attribute values the
IR parser keeps, the AMDGPU and NVPTX rules); the codegen tests compile probes with llc-19
and llvmlite's LLVM 22 and require that llnoalias's bound is never below what the code a
version generates allows: on AMDGPU, LLVM folds ``tid & 64`` to 0 exactly when it reads a
bound of at most 64; on NVPTX, the ``.maxntid``/``.reqntid`` directives each version writes
are what the driver enforces.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from llnoalias.analysis.ranges.workgroup import (
    flat_work_group_max,
    llvm_unsigned,
    string_attribute,
    work_group,
)
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile

AMD = "amdgcn-amd-amdhsa"
NV = "nvptx64-nvidia-cuda"


def _module(triple: str, attrs: str = "", tail: str = "") -> str:
    nv = triple.startswith("nvptx")
    cc = "ptx_kernel" if nv else "amdgpu_kernel"
    tid = "llvm.nvvm.read.ptx.sreg.tid.x" if nv else "llvm.amdgcn.workitem.id.x"
    return (f'target triple = "{triple}"\n'
            f"define {cc} void @k(ptr addrspace(1) %o){attrs} {{\n"
            f"  %t = call i32 @{tid}()\n  %a = and i32 %t, 64\n"
            f"  store i32 %a, ptr addrspace(1) %o, align 4\n  ret void\n}}\n"
            f"declare i32 @{tid}()\n{tail}")


def _bound(text: str, family: str) -> int | None:
    mod = parse_module(SourceFile("t.ll", text))
    return work_group(mod, mod.functions[0], family).bounds[0]


# ------------------------------------------------------------------ readings


@pytest.mark.parametrize("text,want", [
    ("64", 64), (" 64\t", 64), ("0x40", 64), ("0X40", 64), ("010", 8), ("0o10", 8), ("0b11", 3),
    ("0", 0), ("4294967295", 0xFFFFFFFF), ("4294967296", None), ("-1", None), ("+64", None),
    ("64a", None), ("", None), ("0x", None), ("08", None), ("6 4", None), ("٤", None),
])
def test_llvm_unsigned_reads_as_getasinteger(text: str, want: int | None) -> None:
    assert llvm_unsigned(text) == want


@pytest.mark.parametrize("value,want", [
    ("1,64", 64), ("64,64", 64), ("0x40,0x40", 64), (" 1 , 64 ", 64), ("1,1024", 1024),
    ("128,64", None), ("0,64", None), ("1,2048", None), ("64", None), ("1,64,2", None),
    ("a,64", None), ("1,", None), (None, None),
])
def test_flat_work_group_size_only_when_valid(value: str | None, want: int | None) -> None:
    assert flat_work_group_max(value) == want


def test_string_attribute_keeps_what_the_parser_keeps() -> None:
    key = '"amdgpu-flat-work-group-size"'
    cases = [
        (f' {key}="1,64" {key}="1,256"', "", "1,256"),             # twice inline: the later
        (" #0", f"attributes #0 = {{ {key}=\"1,64\" {key}=\"1,256\" }}\n", "1,256"),  # twice in a group
        (f' {key}="1,64" #0', f'attributes #0 = {{ {key}="1,256" }}\n', "1,256"),    # group over inline
        (f' #0 {key}="1,64"', f'attributes #0 = {{ {key}="1,256" }}\n', "1,256"),    # whatever the order
        (" #0 #1", f'attributes #0 = {{ {key}="1,256" }}\nattributes #1 = {{ {key}="1,128" }}\n', "1,128"),
        (" #1 #0", f'attributes #0 = {{ {key}="1,256" }}\nattributes #1 = {{ {key}="1,128" }}\n', "1,256"),
    ]
    for attrs, tail, want in cases:
        mod = parse_module(SourceFile("t.ll", _module(AMD, attrs, tail)))
        assert string_attribute(mod, mod.functions[0], "amdgpu-flat-work-group-size") == want, attrs


def test_string_attribute_survivor_matches_opt_19(tmp_path) -> None:
    """The same cases through ``opt-19 -S``: the value it prints is the one kept."""
    opt = shutil.which("opt-19")
    if opt is None:
        pytest.skip("opt-19 is not installed")
    key = '"amdgpu-flat-work-group-size"'
    for attrs, tail in [(f' {key}="1,64" {key}="1,256"', ""),
                        (f' {key}="1,64" #0', f'attributes #0 = {{ {key}="1,256" }}\n'),
                        (f' #0 {key}="1,256"', f'attributes #0 = {{ {key}="1,64" }}\n'),
                        (" #1 #0", f'attributes #0 = {{ {key}="1,256" }}\nattributes #1 = {{ {key}="1,128" }}\n')]:
        text = _module(AMD, attrs, tail)
        src = tmp_path / "m.ll"
        src.write_text(text)
        out = subprocess.run([opt, "-S", "-passes=verify", str(src)], capture_output=True, text=True, check=True)
        kept = re.findall(r'"amdgpu-flat-work-group-size"="([^"]*)"', out.stdout)
        mod = parse_module(SourceFile("t.ll", text))
        assert kept == [string_attribute(mod, mod.functions[0], "amdgpu-flat-work-group-size")], attrs


# ------------------------------------------------------------------ AMDGPU probes

AMD_CASES: list[tuple[str, str, str]] = [
    ("none", "", ""),
    ("flat_1_64", ' "amdgpu-flat-work-group-size"="1,64"', ""),
    ("flat_128_64", ' "amdgpu-flat-work-group-size"="128,64"', ""),
    ("flat_0_64", ' "amdgpu-flat-work-group-size"="0,64"', ""),
    ("flat_1_2048", ' "amdgpu-flat-work-group-size"="1,2048"', ""),
    ("flat_hex", ' "amdgpu-flat-work-group-size"="0x1,0x40"', ""),
    ("flat_octal", ' "amdgpu-flat-work-group-size"="01,0100"', ""),
    ("flat_twice", ' "amdgpu-flat-work-group-size"="1,64" "amdgpu-flat-work-group-size"="1,256"', ""),
    ("flat_twice_small", ' "amdgpu-flat-work-group-size"="1,256" "amdgpu-flat-work-group-size"="1,64"', ""),
    ("group_over_inline", ' "amdgpu-flat-work-group-size"="1,64" #0',
     'attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }\n'),
    ("group_over_inline_small", ' "amdgpu-flat-work-group-size"="1,256" #0',
     'attributes #0 = { "amdgpu-flat-work-group-size"="1,64" }\n'),
    ("reqd_64", " !reqd_work_group_size !0", "!0 = !{i32 64, i32 1, i32 1}\n"),
    ("reqd_over_flat", ' "amdgpu-flat-work-group-size"="1,64" !reqd_work_group_size !0',
     "!0 = !{i32 256, i32 1, i32 1}\n"),
    ("reqd_zero", ' "amdgpu-flat-work-group-size"="1,64" !reqd_work_group_size !0',
     "!0 = !{i32 0, i32 1, i32 1}\n"),
    ("reqd_all_ones", ' "amdgpu-flat-work-group-size"="1,64" !reqd_work_group_size !0',
     "!0 = !{i32 -1, i32 1, i32 1}\n"),
    ("nvvm_attr_on_amdgpu", ' "nvvm.maxntid"="64"', ""),
]


def _amd_folds(asm: str) -> bool:
    """Did the code generator fold ``tid & 64`` away (it reads tid.x < 64)?"""
    return re.search(r"v_and_b32", asm) is None


def _llc19(text: str, triple: str, cpu: str, tmp_path) -> str:
    llc = shutil.which("llc-19")
    if llc is None:
        pytest.skip("llc-19 is not installed")
    src = tmp_path / "probe.ll"
    src.write_text(text)
    return subprocess.run([llc, "-O2", f"-mtriple={triple}", f"-mcpu={cpu}", str(src), "-o", "-"],
                          capture_output=True, text=True, check=True).stdout


def _llvm22(text: str, triple: str, cpu: str) -> str:
    pytest.importorskip("llvmlite", reason="llvmlite (LLVM 22) is not installed")
    from llnoalias.backends.llvmlite_backend import emit

    return emit(text, triple, cpu, "asm", use_bridge=False).decode()


@pytest.mark.slow
@pytest.mark.parametrize("name,attrs,tail", AMD_CASES, ids=[c[0] for c in AMD_CASES])
def test_amdgpu_bound_is_never_below_what_llvm_reads(name: str, attrs: str, tail: str, tmp_path) -> None:
    text = _module(AMD, attrs, tail)
    ours = _bound(text, "amdgpu")
    assert ours is not None
    folds = [_amd_folds(_llc19(text, AMD, "gfx942", tmp_path)), _amd_folds(_llvm22(text, AMD, "gfx942"))]
    # llnoalias bounds tid.x by 64 or less exactly where every version does
    assert (ours <= 64) == all(folds), (ours, folds)


# ------------------------------------------------------------------ NVPTX probes

NV_CASES: list[tuple[str, str, str]] = [
    ("none", "", ""),
    ("ann_maxntidx", "", '!nvvm.annotations = !{!0}\n!0 = !{ptr @k, !"maxntidx", i32 64}\n'),
    ("ann_maxntidx_twice_big_first", "",
     '!nvvm.annotations = !{!0}\n!0 = !{ptr @k, !"maxntidx", i32 256, !"maxntidx", i32 64}\n'),
    ("ann_maxntidx_twice_small_first", "",
     '!nvvm.annotations = !{!0}\n!0 = !{ptr @k, !"maxntidx", i32 64, !"maxntidx", i32 256}\n'),
    ("ann_two_nodes", "",
     '!nvvm.annotations = !{!0, !1}\n!0 = !{ptr @k, !"maxntidx", i32 256}\n!1 = !{ptr @k, !"maxntidx", i32 64}\n'),
    ("ann_maxntid_xy", "", '!nvvm.annotations = !{!0}\n!0 = !{ptr @k, !"maxntidx", i32 32, !"maxntidy", i32 2}\n'),
    ("ann_reqntid", "", '!nvvm.annotations = !{!0}\n!0 = !{ptr @k, !"reqntidx", i32 32, !"reqntidy", i32 8}\n'),
    ("attr_maxntid", ' "nvvm.maxntid"="64"', ""),
    ("attr_reqntid", ' "nvvm.reqntid"="64,2"', ""),
    ("attr_and_ann", ' "nvvm.maxntid"="64,1,1"', '!nvvm.annotations = !{!0}\n!0 = !{ptr @k, !"maxntidy", i32 2}\n'),
    ("attr_and_ann_agree", ' "nvvm.maxntid"="64"', '!nvvm.annotations = !{!0}\n!0 = !{ptr @k, !"maxntidx", i32 64}\n'),
    ("reqd_work_group_size", " !reqd_work_group_size !0", "!0 = !{i32 64, i32 1, i32 1}\n"),
    ("amdgpu_attr_on_nvptx", ' "amdgpu-flat-work-group-size"="1,64"', ""),
]


def _ptx_bound(ptx: str) -> int:
    """tid.x's bound from the kernel's ``.maxntid`` (the product) and ``.reqntid`` (x)."""
    bound = 1024
    for kind, vals in re.findall(r"\.(maxntid|reqntid)\s+([0-9, ]+)", ptx):
        ext = [int(v) for v in vals.replace(" ", "").split(",") if v]
        prod = ext[0] * (ext[1] if len(ext) > 1 else 1) * (ext[2] if len(ext) > 2 else 1)
        bound = min(bound, ext[0] if kind == "reqntid" else prod)
    return bound


@pytest.mark.slow
@pytest.mark.parametrize("name,attrs,tail", NV_CASES, ids=[c[0] for c in NV_CASES])
def test_nvptx_bound_is_the_largest_directive_a_version_writes(name: str, attrs: str, tail: str,
                                                              tmp_path) -> None:
    text = _module(NV, attrs, tail)
    ours = _bound(text, "nvptx")
    assert ours is not None
    written = [_ptx_bound(_llc19(text, NV, "sm_80", tmp_path)), _ptx_bound(_llvm22(text, NV, "sm_80"))]
    assert ours == max(written), (ours, written)


def test_nvptx_bounds_only_kernels() -> None:
    text = ('target triple = "nvptx64-nvidia-cuda"\n'
            'define void @f() #0 {\n  ret void\n}\n'
            'attributes #0 = { "nvvm.maxntid"="64" }\n'
            '!nvvm.annotations = !{!0}\n!0 = !{ptr @f, !"maxntidx", i32 64}\n')
    assert _bound(text, "nvptx") == 1024
    kernel = text.replace('!"maxntidx"', '!"kernel", i32 1, !"maxntidx"')
    assert _bound(kernel, "nvptx") == 64


def test_unknown_target_has_no_bound() -> None:
    assert _bound(_module(AMD, ' "amdgpu-flat-work-group-size"="1,64"'), "other") is None
