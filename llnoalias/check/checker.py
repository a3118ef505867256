"""``llnoalias check``: compile a module as given and judge its LDS-DMA waits in the assembly.

The steps (design section 4b): parse the module (bad input is a located error, as
everywhere), make the located copy (``locate``), generate its assembly with the code
generator the caller names (llvmlite's LLVM, or an ``llc``), find what every IR access may
touch (``footprints``) and judge every function of the assembly (``judge``). Optionally the
module is compiled without the locations too, to say whether they changed the code.
Nothing here prints: the caller formats the result.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..analysis.memory.intrinsics import ASYNC_LIKE, LDS_DMA_TEXT, async_lds
from ..backends import codegen as code_generator
from ..backends.target import detect
from ..diagnostics import LLNoaliasError, Location
from ..ir.model import Module
from ..ir.parser import parse_module
from ..ir.source import SourceFile
from ..options import CODEGEN
from .exact import FunctionExact
from .footprints import IRAccess, module_footprints
from .judge import FunctionVerdict, Race, Unproven, Wait, judge
from .locate import same_instructions, with_line_locations

FORMAT = "llnoalias.check/1"


@dataclass(slots=True)
class CheckResult:
    """What ``check`` found in one module."""

    path: str
    source: SourceFile
    functions: list[FunctionVerdict] = field(default_factory=list)
    #: which code generator ran (``codegen.generate``'s ``used``)
    generator: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: whether the located copy compiled to the same instructions as the module (None: not asked)
    same_instructions: bool | None = None
    difference: str = ""
    #: the module's family: ``amdgpu`` (judged) or ``nvptx`` (nothing to judge)
    family: str = ""
    #: the assembly of the located copy (for callers that keep it)
    asm: str = ""

    @property
    def races(self) -> list[Race]:
        return [r for f in self.functions for r in f.races]

    @property
    def unproven(self) -> list[Unproven]:
        return [u for f in self.functions for u in f.unproven]

    @property
    def waits(self) -> list[Wait]:
        return [w for f in self.functions for w in f.waits]

    @property
    def clean(self) -> bool:
        return not self.races

    def racing_functions(self) -> set[str]:
        return {f.name for f in self.functions if f.races}

    def to_json(self) -> dict[str, object]:
        return {
            "schema": FORMAT,
            "file": self.path,
            "family": self.family,
            "generator": self.generator,
            "same_instructions": self.same_instructions,
            "functions": [{"name": f.name, "dmas": f.dmas, "lds": f.lds, "unmapped": f.unmapped,
                           "races": len(f.races), "unproven": len(f.unproven), "waits": len(f.waits)}
                          for f in self.functions],
            "races": [r.to_json() for r in self.races],
            "unproven": [u.to_json() for u in self.unproven],
            "waits": [w.to_json() for w in self.waits],
            "notes": list(self.notes),
        }


def has_lds_dma(text: str) -> bool:
    """Does the module call an LDS-DMA intrinsic (a cheap search: nothing to race without)?"""
    return LDS_DMA_TEXT.search(text) is not None


def check_text(text: str, path: str = "<stdin>", *, mcpu: str | None = None, triple: str | None = None,
               llc: str | None = None, compare_plain: bool = False, timeout: float = 300.0,
               module: Module | None = None, codegen: str = CODEGEN.default, ideal: bool = False) -> CheckResult:
    """Check one module's text (see the module's docstring) with the code generator ``codegen``
    names (``codegen.generate``'s: ``llvmlite`` or ``triton``) or ``llc``; a module whose
    synchronization llvmlite's LLVM would change goes to one that keeps it
    (``codegen.verdict_codegen``). Raises ``LLNoaliasError`` on bad input, when no code
    generator can take the module, or none that keeps its waits is at hand."""
    src = SourceFile(path, text)
    mod = module if module is not None else parse_module(src)
    res = CheckResult(path, mod.source)
    target = detect(text, mcpu, triple)
    res.family = target.family
    if not target.is_amdgpu:
        res.notes.append("an NVPTX module has no LDS-DMA whose waits the code generator decides: nothing to check")
        return res
    _refuse_unmodelled(text, path)
    # a verdict is about the program as it will run: never about a copy whose waits the
    # version bridge rewrote (``codegen.verdict_codegen``: Triton's LLVM or an error)
    codegen = code_generator.verdict_codegen(text, path, codegen, llc, res.notes)
    located = with_line_locations(mod, path)

    def gen(ir: str, used: dict[str, str]) -> str:
        return code_generator.generate(ir, emit="asm", mcpu=mcpu, llc=llc, triple=triple, timeout=timeout,
                        notes=res.notes, used=used, codegen=codegen).decode("utf-8", "replace")

    # the code generator runs in a child process: the footprints are found meanwhile
    with ThreadPoolExecutor(2) as pool:
        f_loc = pool.submit(gen, located, res.generator)
        f_plain = pool.submit(gen, text, {}) if compare_plain else None
        accesses: dict[int, IRAccess] = module_footprints(mod)
        asm = f_loc.result()
        if f_plain is not None:
            res.same_instructions, res.difference = same_instructions(asm, f_plain.result())
    res.notes[:] = list(dict.fromkeys(res.notes))
    res.asm = asm
    res.functions = judge(asm, accesses, exact=exact_functions(mod, accesses, wave_size(asm)), ideal=ideal)
    return res


def _refuse_unmodelled(text: str, path: str) -> None:
    """A located error (exit 2) at the first call of an asynchronous LDS operation that is no
    row of ``ASYNC_LDS``: its counter and bytes are not known, so no verdict is given."""
    if "lds" not in text and "tensor" not in text:
        return
    for m in ASYNC_LIKE.finditer(text):
        name = m.group(1)
        if async_lds(name) is not None:
            continue
        line = text.count("\n", 0, m.start()) + 1
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.start())
        source = text[start:end if end >= 0 else len(text)]
        if source.lstrip().startswith("declare"):
            continue
        raise LLNoaliasError(f"'{name}' looks like an asynchronous LDS operation that llnoalias check does not model "
                             "(its counter and the LDS bytes it touches are not known): no verdict is given",
                             Location(path, line, m.start() - start + 2, source))


_WAVE = re.compile(r"\.wavefront_size:\s+(\d+)|\.amdhsa_wavefront_size32\s+(\d)")


def wave_size(asm: str) -> int:
    """The lanes of a wave the assembly was generated for (its kernel metadata; 64 when it says
    nothing, as gfx9 has)."""
    m = _WAVE.search(asm)
    if m is None:
        return 64
    if m.group(1):
        return int(m.group(1))
    return 32 if m.group(2) == "1" else 64


def exact_functions(mod: Module, accesses: dict[int, IRAccess], wave: int) -> dict[str, FunctionExact]:
    """The exact footprints of every function with an LDS-DMA, by name without ``@``."""
    names = {a.function for a in accesses.values() if a.is_dma}
    out: dict[str, FunctionExact] = {}
    for fn in mod.functions:
        if fn.name in names and fn.instrs:
            out[fn.name.lstrip("@").strip('"')] = FunctionExact(mod, fn, wave)
    return out


__all__ = ["FORMAT", "CheckResult", "check_text", "has_lds_dma"]
