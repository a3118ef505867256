"""AMDGPU assembly for the tests of ``llnoalias.asm``: a one-function file from its lines, and
what llvmlite's LLVM 22 writes for a module."""

from __future__ import annotations

from pathlib import Path

import pytest

from llnoalias.asm.reader import AsmFunction, read_amdgpu


def asm_of(*body: str, target: str = "gfx942", name: str = "k") -> str:
    """A one-function assembly file; lines ending in ':' are labels."""
    lines = [f'\t.amdgcn_target "amdgcn-amd-amdhsa--{target}"', "\t.text", f"\t.globl\t{name}",
             f"\t.type\t{name},@function", f"{name}:"]
    lines += [b if b.endswith(":") else f"\t{b}" for b in body]
    lines += [".Lfunc_end0:", f"\t.size\t{name}, .Lfunc_end0-{name}"]
    return "\n".join(lines) + "\n"


def one(*body: str, target: str = "gfx942") -> AsmFunction:
    fns = read_amdgpu(asm_of(*body, target=target))
    assert [f.name for f in fns] == ["k"]
    return fns[0]


def llvmlite_asm(path: Path, cpu: str = "gfx942") -> str:
    llvm = pytest.importorskip("llvmlite.binding", reason="llvmlite (LLVM 22.1) writes the assembly")
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    m = llvm.parse_assembly(path.read_text())
    tm = llvm.Target.from_triple("amdgcn-amd-amdhsa").create_target_machine(cpu=cpu, opt=3)
    return str(tm.emit_assembly(m))

