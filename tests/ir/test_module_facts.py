"""One object for a module's facts (``ir.model.ModuleFacts`` on ``Module.facts``): made once,
read by the analysis, the DMA rules and the code generator's target alike; no part keeps a
fact of its own on the module (``setattr(mod, "_llnoalias_...")``), and the LDS address
space is one name."""

from __future__ import annotations

import ast
import re

import pytest

from llnoalias.analysis.memory.accesses import module_family
from llnoalias.analysis.ranges.workgroup import WorkGroups, work_group
from llnoalias.backends import target
from llnoalias.ir import facts
from llnoalias.ir.datalayout import layout_of
from llnoalias.ir.model import ModuleFacts
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from llnoalias.transform import dma_safety
from tests.support.files import ROOT

PKG = ROOT / "llnoalias"

TEXT = """\
target triple = "amdgcn-amd-amdhsa"
@a = addrspace(3) global [64 x i32] poison
@b = internal addrspace(3) global i32 poison
@dyn = external addrspace(3) global [0 x i32]
@g = addrspace(1) global i32 0

define amdgpu_kernel void @k() #0 {
  ret void
}

attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }
"""


def _mod(text: str = TEXT):  # type: ignore[no-untyped-def]
    return parse_module(SourceFile("m.ll", text))


def test_the_facts_are_made_once_and_read_by_every_part() -> None:
    mod = _mod()
    assert mod._facts is None  # made on first use
    f = mod.facts
    assert isinstance(f, ModuleFacts) and mod.facts is f
    assert f.family == facts.AMDGPU == module_family(mod) == target.AMDGPU
    assert layout_of(mod) is f.layout
    assert f.static_lds == {"@a", "@b"} == dma_safety._static_lds(mod)
    assert f.dynamic_lds == {"@dyn"} == dma_safety.dynamic_lds(mod)
    assert not hasattr(f, "work_groups")  # an analysis's conclusion, kept by the analysis cache
    memo = WorkGroups()
    wg = work_group(mod, mod.functions[0], f.family, memo)
    assert memo.by_function == {"@k": wg} and work_group(mod, mod.functions[0], f.family, memo) is wg


def test_a_module_without_a_triple_takes_its_codes_family() -> None:
    mod = _mod(TEXT.replace('target triple = "amdgcn-amd-amdhsa"\n', "").replace("amdgpu_kernel ", ""))
    assert mod.facts.family == facts.OTHER
    nv = _mod("define ptx_kernel void @k() {\n  ret void\n}\n")
    assert nv.facts.family == facts.NVPTX == target.NVPTX


@pytest.mark.slow
def test_no_part_caches_a_fact_on_the_module() -> None:
    bad = []
    for p in sorted(PKG.rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text(), str(p))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("_llnoalias_"):
                bad.append(f"{p.relative_to(PKG.parent)}:{node.lineno}: {node.value}")
            if isinstance(node, ast.Attribute) and node.attr.startswith("_llnoalias_"):
                bad.append(f"{p.relative_to(PKG.parent)}:{node.lineno}: .{node.attr}")
    assert not bad, "\n".join(bad)


#: ``addrspace == 3``, ``addrspace in (0, 3)``, ``pointer_bits(3)``: the LDS space as a literal
_LITERAL_LDS = re.compile(r"(?:addrspace|space)\s*(?:==|!=|in|not in)\s*\(?[\d, ]*\b3\b|_bits\(3\)")


def test_the_lds_address_space_is_one_name() -> None:
    """Outside ir/facts.py no module of the analysis, the transform, the back ends or the
    check compares an address space with the literal 3 (``stats/`` and ``asm/`` read
    assembly, whose numbers are not IR address spaces)."""
    bad = []
    for sub in ("analysis", "transform", "backends", "ir", "check"):
        for p in sorted((PKG / sub).rglob("*.py")):
            if p.name == "facts.py":
                continue
            for n, line in enumerate(p.read_text().splitlines(), 1):
                code = line.split("#", 1)[0]
                if _LITERAL_LDS.search(code) and '"' not in code:
                    bad.append(f"{p.relative_to(PKG.parent)}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)
    assert _LITERAL_LDS.search("if g.addrspace == 3 and x") and _LITERAL_LDS.search("addrspace in (0, 3)")


def test_the_check_reads_the_modules_facts() -> None:
    """``check/`` (the footprints of its IR accesses) takes the family, the data layout and
    which LDS variables are static or dynamic from ``Module.facts``, not from the globals."""
    bad = []
    for p in sorted((PKG / "check").rglob("*.py")):
        for n, line in enumerate(p.read_text().splitlines(), 1):
            if re.search(r"is_zero_sized|is_external|\.globals\b|layout_of\(|module_family\(|target_family\(", line):
                bad.append(f"{p.relative_to(PKG.parent)}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)
