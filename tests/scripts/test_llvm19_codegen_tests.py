"""``scripts/llvm19_codegen_tests.py``'s classification on three small hand-made files (the LLVM 19
CodeGen tests themselves are not run by the tests: the script downloads them)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.run import load_script

pytestmark = pytest.mark.slow

KERNEL = ('target triple = "amdgcn-amd-amdhsa"\n'
          "define amdgpu_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b) {\n"
          "  %v = load i32, ptr addrspace(1) %a, align 4\n  store i32 %v, ptr addrspace(1) %b, align 4\n"
          "  ret void\n}\n")


@pytest.fixture
def opt() -> str:
    found = shutil.which("opt-19")
    if found is None:
        pytest.skip("opt-19 is not installed")
    return found


def test_the_classes(tmp_path: Path, opt: str) -> None:
    script = load_script("llvm19_codegen_tests")
    files = {
        # read; --args noalias tags it, and opt-19 reads the output
        "good.ll": (KERNEL, "verified"),
        # opt-19 rejects it (a type mismatch), and llnoalias does too: it is no reader gap
        "bad.ll": (KERNEL.replace("store i32 %v", "store i64 %v"), "both-reject"),
        # valid LLVM nothing reads as llnoalias does: two instructions on the line of '{'
        "gap.ll": ("define i32 @a() { %x = add i32 1, 2 ret i32 %x }\n", "reader-gap"),
    }
    got = {}
    for name, (text, _) in files.items():
        (tmp_path / name).write_text(text)
        got[name] = script.classify(str(tmp_path / name), opt)["class"]
    assert got == {name: cls for name, (_, cls) in files.items()}


def test_a_kernel_nothing_is_claimed_on_is_kept(tmp_path: Path, opt: str) -> None:
    script = load_script("llvm19_codegen_tests")
    path = tmp_path / "plain.ll"
    path.write_text("define void @f() {\n  ret void\n}\n")
    assert script.classify(str(path), opt)["class"] == "kept"
