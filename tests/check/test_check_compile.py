"""``compile`` checks what it produced (design section 4b): where the annotated module races in
a function and the input does not, the function goes back to the input's lines and is compiled
again; races the input has itself are said, not blamed on llnoalias."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("llvmlite", reason="llvmlite's LLVM generates the code the check reads")

from llnoalias.check.checker import check_text  # noqa: E402
from llnoalias.check.selfcheck import checked_compile, function_lines, withdraw  # noqa: E402
from llnoalias.ir.parser import parse_module  # noqa: E402
from llnoalias.ir.source import SourceFile  # noqa: E402
from tests.support.check import racing_pair
from tests.support.files import ROOT

pytestmark = pytest.mark.slow

CHECK = ROOT / "fixtures" / "check"





def test_a_function_whose_claims_race_goes_back_to_the_input() -> None:
    annotated, original = racing_pair()
    assert not check_text(annotated, "a.ll").clean and check_text(original, "o.ll").clean
    sc = checked_compile(annotated, original, "k.ll")
    assert sc.checked and set(sc.withdrawn) == {"k"}
    assert sc.left == [] and sc.inherited == []
    assert "s_waitcnt vmcnt(0)" in sc.code.decode()
    # only @k went back: @other keeps its metadata
    assert sc.text.count("!tbaa !0") == original.count("!tbaa !0")
    assert "@other(ptr addrspace(1) %o, i32 %v) #0 {\n  %x = load i32, ptr addrspace(3) @A, align 4, !tbaa !0" in sc.text


def test_races_of_the_input_are_left_and_said() -> None:
    annotated, _ = racing_pair()
    sc = checked_compile(annotated, annotated, "k.ll")
    assert sc.withdrawn == {}
    assert [r.access.ir_line for r in sc.left] == [10]
    assert [r.access.ir_line for r in sc.inherited] == [10]


def test_withdraw_puts_back_exactly_the_functions_lines() -> None:
    annotated, original = racing_pair()
    mod = parse_module(SourceFile("o.ll", original))
    first, last = function_lines(mod, mod.functions[0])
    assert original.splitlines()[first - 1].startswith("define amdgpu_kernel void @k(")
    assert original.splitlines()[last - 1] == "}"
    assert withdraw(annotated, mod, {"k"}) == original
    assert withdraw(annotated, mod, set()) == annotated


def test_a_clean_module_compiles_to_the_same_code_checked_or_not(tmp_path: Path) -> None:
    outs = []
    for extra in ([], ["--no-check"]):
        out = tmp_path / f"o{len(outs)}.s"
        proc = subprocess.run([sys.executable, "-m", "llnoalias", "compile", "--mcpu", "gfx942", *extra, str(CHECK /
                               "plain_read_waits.ll"), "-o", str(out)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert "withdrew" not in proc.stderr
        outs.append(out.read_text())
    assert outs[0] == outs[1]
