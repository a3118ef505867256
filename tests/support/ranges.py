"""A one-kernel module around a body, and the ranges the analysis gives its names, for the
tests of ``llnoalias.analysis.ranges``."""

from __future__ import annotations

from llnoalias.analysis.provenance.solver import ModuleAnalysis
from llnoalias.analysis.ranges.solver import FunctionRanges, Range
from llnoalias.ir.model import LocalRef
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from llnoalias.ir.types import Type
from llnoalias.options import AnnotateOptions
from llnoalias.transform.roots import find_roots

I32 = Type("int", bits=32)


def analyse(text: str) -> tuple[FunctionRanges, object]:
    mod = parse_module(SourceFile("t.ll", text))
    roots = find_roots(mod, AnnotateOptions())
    ma = ModuleAnalysis(mod, roots)
    fn = mod.functions[0]
    fa = ma.function(fn)
    fa.solve(list(fn.by_name))
    family = "nvptx" if "nvptx" in mod.triple else "amdgpu"
    return FunctionRanges(mod, fn, fa, family), mod


def kernel(body: str, attrs: str = "", header: str = "", triple: str = "amdgcn-amd-amdhsa",
           tail: str = "") -> str:
    return (f'target triple = "{triple}"\n@smem = external addrspace(3) global [0 x i8], align 16\n'
            f"define amdgpu_kernel void @k(i32 %n){' #0' if attrs else ''}{header} {{\n"
            f"entry:\n{body}\n  ret void\n}}\n"
            + DECLS
            + (f"attributes #0 = {{ {attrs} }}\n" if attrs else "") + tail)


DECLS = "".join(f"declare i32 @llvm.{n}()\n" for n in (
    "amdgcn.workitem.id.x", "amdgcn.workitem.id.y", "nvvm.read.ptx.sreg.tid.x", "nvvm.read.ptx.sreg.tid.z")) + \
    "declare i32 @llvm.umin.i32(i32, i32)\ndeclare i32 @llvm.smax.i32(i32, i32)\n"


def rng(fr: FunctionRanges, name: str) -> object:
    """The interval of ``name`` (its known bits left out: ``bits`` reads them)."""
    r = fr.int_range(I32, LocalRef(name))
    return Range(r.lo, r.hi) if isinstance(r, Range) else r

