"""``compile`` checks what it produced (design section 4b).

In a function where the annotated module races (``check``) and the input compiled the same
way does not, llnoalias's claims are withdrawn: the function's lines go back to the input's
(the annotated text differs from the input only by attachments on tagged lines, attributes on
``define`` lines and metadata at the end, so the lines of a function are the same lines), and
the module is compiled and checked again. What was withdrawn, and races the input has itself,
are said in ``messages`` for the caller to print.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..backends import codegen as code_generator
from ..backends.target import detect
from ..ir.model import Function, Module
from ..ir.parser import parse_module
from ..ir.source import SourceFile
from ..options import CODEGEN
from .checker import CheckResult, check_text, has_lds_dma
from .judge import Race, Unproven

#: how often a module is compiled again after claims were withdrawn (each round can only
#: take claims away, so two rounds reach the input's own state in the worst case)
ROUNDS = 2


@dataclass(slots=True)
class SelfChecked:
    """The code ``compile`` writes, and what the check said about it."""

    code: bytes
    #: functions whose claims were withdrawn, with the race that made it so
    withdrawn: dict[str, Race | Unproven] = field(default_factory=dict)
    #: races of the input itself (llnoalias did not make them)
    inherited: list[Race] = field(default_factory=list)
    #: races left in the code written (none unless the input had them)
    left: list[Race] = field(default_factory=list)
    checked: bool = False
    same_instructions: bool | None = None
    #: the text that was compiled (the annotated module, less what was withdrawn)
    text: str = ""
    result: CheckResult | None = None


def _key(r: Race | Unproven) -> tuple[str, int, int]:
    return r.function, r.dma.ir_line or -r.dma.asm_line, r.access.ir_line or -r.access.asm_line


def _asm_name(fn: Function) -> str:
    name = fn.name.lstrip("@")
    return name[1:-1] if name.startswith('"') and name.endswith('"') else name


def function_lines(mod: Module, fn: Function) -> tuple[int, int]:
    """The lines ``fn`` spans in its text: its ``define`` to its closing brace."""
    text = mod.text
    last = fn.instrs[-1].end if fn.instrs else fn.header_end
    close = text.find("\n}", last)
    end_line = mod.source.line_col(close + 1)[0] if close >= 0 else fn.line
    return fn.line, end_line


def withdraw(annotated: str, original: Module, functions: set[str]) -> str:
    """``annotated`` with the lines of ``functions`` (names as the assembly spells them) put
    back as the input has them."""
    lines = annotated.splitlines(keepends=True)
    src = original.text.splitlines(keepends=True)
    for fn in original.functions:
        if _asm_name(fn) not in functions or not fn.instrs:
            continue
        first, last = function_lines(original, fn)
        for n in range(first - 1, min(last, len(lines), len(src))):
            lines[n] = src[n]
    return "".join(lines)


def checked_compile(annotated: str, original: str, path: str, *, emit: str = "asm", mcpu: str | None = None,
                    triple: str | None = None, llc: str | None = None, llc_args: tuple[str, ...] = (),
                    ptxas: str | None = None, optimize: bool = False, level: int = 3,
                    notes: list[str] | None = None, used: dict[str, str] | None = None,
                    codegen: str = CODEGEN.default) -> SelfChecked:
    """Compile ``annotated`` as ``codegen.generate`` would (with the code generator ``codegen``
    names), checked against ``original``."""
    said = notes if notes is not None else []

    def gen(text: str, kind: str = emit) -> bytes:
        return code_generator.generate(text, emit=kind, mcpu=mcpu, llc=llc, llc_args=llc_args, ptxas=ptxas,
                        triple=triple, optimize=optimize, notes=said, used=used, level=level, codegen=codegen)

    target = detect(annotated, mcpu, triple)
    if not target.is_amdgpu or not has_lds_dma(annotated) or optimize or llc_args or level != 3:
        return SelfChecked(gen(annotated), text=annotated)
    # the code written is the code judged: with the generator the verdict needs (design section 7)
    codegen = code_generator.verdict_codegen(original, path, codegen, llc, said)
    out = SelfChecked(b"", checked=True)
    text = annotated
    base: CheckResult | None = None
    orig_mod: Module | None = None
    for _ in range(ROUNDS + 1):
        with ThreadPoolExecutor(2) as pool:
            f_check = pool.submit(check_text, text, path, mcpu=mcpu, triple=triple, llc=llc, codegen=codegen)
            f_code = pool.submit(gen, text)
            res, code = f_check.result(), f_code.result()
        out.code, out.text, out.result = code, text, res
        if res.clean and not res.unproven:
            break
        if base is None:
            orig_mod = parse_module(SourceFile(path, original))
            base = check_text(original, path, mcpu=mcpu, triple=triple, llc=llc, module=orig_mod, codegen=codegen)
            out.inherited = list(base.races)
        theirs = {_key(r) for r in base.races} | {_key(u) for u in base.unproven}
        # the claims' own doubt is withdrawn too: a pair the input lacks that the check cannot prove apart
        doubt: list[Race | Unproven] = [*res.races, *res.unproven]
        new = {r.function: r for r in doubt if _key(r) not in theirs and r.function not in out.withdrawn}
        if not new:
            break
        assert orig_mod is not None
        out.withdrawn.update(new)
        text = withdraw(annotated, orig_mod, set(out.withdrawn))
    if out.result is not None:
        out.left = list(out.result.races)
    return out


def function_verdicts(annotated: str, original: str, path: str, *, mcpu: str | None = None,
                      triple: str | None = None, llc: str | None = None) -> dict[str, str]:
    """What the check says of each function of the annotated module, in words (``explain
    --check``), keyed by the function's IR name (``@k``)."""
    res = check_text(annotated, path, mcpu=mcpu, triple=triple, llc=llc)
    if not res.functions:
        return {}
    base = check_text(original, path, mcpu=mcpu, triple=triple, llc=llc) if res.races else None
    theirs = {_key(r) for r in base.races} if base is not None else set()
    out: dict[str, str] = {}
    for f in res.functions:
        name = "@" + (f.name if f.name.replace("_", "").replace(".", "").isalnum() else f'"{f.name}"')
        if f.clean:
            out[name] = (f"clean: no LDS access runs while an LDS-DMA that may write its bytes is in flight "
                         f"({f.dmas} LDS-DMA, {len(f.waits)} vmcnt waits)")
            continue
        ours = [r for r in f.races if _key(r) not in theirs]
        r = (ours or f.races)[0]
        more = f" and {len(f.races) - 1} more" if len(f.races) > 1 else ""
        what = f"line {r.access.ir_line} runs while the LDS-DMA at line {r.dma.ir_line} may still write its bytes{more}"
        if ours:
            out[name] = f"races with llnoalias's claims ({what}): compile withdraws them in this function"
        else:
            out[name] = f"races as the input does ({what}): not llnoalias's doing"
    return out


__all__ = ["ROUNDS", "SelfChecked", "checked_compile", "function_lines", "function_verdicts", "withdraw"]
