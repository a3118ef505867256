"""``--repair`` (design section 4b): remove the races an input has by its own metadata.

LLVM 21 and later check an LDS access that carries alias metadata only against LDS-DMAs that
carry ``!alias.scope``, and ask alias analysis about those. So a producer's module can race
before llnoalias touches it: an unscoped DMA beside reads with clang's ``!tbaa``, or a scoped
DMA beside reads whose ``!noalias`` names the DMA's scope. Where ``check`` finds such a race in
the input, these repairs are tried in order of what they lose, and the first that checks clean
is kept:

1. **Scope the DMA** (nothing lost): each racing DMA without ``!alias.scope`` gets a fresh scope
   of its own, which no access's ``!noalias`` names, so alias analysis cannot separate it from
   any access and the wait pass waits for it.
2. **Drop ``!noalias``** from the racing LDS accesses only.
3. **Drop all alias metadata** (``!tbaa``, ``!tbaa.struct``, ``!alias.scope``, ``!noalias``) from
   the racing LDS accesses only: an access without any is checked against every DMA.

A racing access the assembly does not map to an IR line stands for the LDS accesses of its
function whose bytes may meet the DMA's. Every other byte of the module stays as it was (the
edits are attachments removed from racing lines, one attachment added to a DMA line, and new
metadata lines at the end). Nothing here prints: :class:`Repair` says what was changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..ir.parser import parse_module
from ..ir.source import SourceFile
from ..options import CODEGEN
from .checker import CheckResult, check_text
from .footprints import IRAccess, module_footprints
from .judge import Race

_ATTACH = re.compile(r",\s*!(tbaa\.struct|tbaa|alias\.scope|noalias)\s+(![\w.$-]+|!\{[^}]*\})")
_NODE = re.compile(r"!(\d+)\b")
ALL_ALIAS = ("tbaa", "tbaa.struct", "alias.scope", "noalias")


@dataclass(slots=True)
class Repair:
    """The repaired text, what was changed (one line per access or DMA), and the checks."""

    text: str
    changes: list[str] = field(default_factory=list)
    #: which repair was kept: ``""`` (none needed or none worked), ``scope-dma``, ``drop-noalias``,
    #: ``drop-alias-metadata``
    how: str = ""
    before: list[Race] = field(default_factory=list)
    after: list[Race] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def clean(self) -> bool:
        return not self.after


def _access_lines(race: Race, accesses: dict[int, IRAccess]) -> list[int]:
    """The IR lines of the LDS accesses ``race`` stands for (a merged instruction: every access
    it may merge, as its witness names them)."""
    merged = race.witness.get("merged")
    if isinstance(merged, list) and merged:
        return sorted({n for p in merged for n in (p if isinstance(p, list) else [p]) if isinstance(n, int)})
    line = race.access.ir_line
    acc = accesses.get(line) if line else None
    if acc is not None:
        return list(acc.sources) if acc.sources else [line]
    dma = accesses.get(race.dma.ir_line)
    return sorted(a.line for a in accesses.values()
                  if not a.is_dma and a.function.lstrip("@").strip('"') == race.function
                  and (dma is None or a.footprint.meets(dma.footprint)))


def _drop(lines: list[str], line: int, kinds: tuple[str, ...]) -> str:
    """Remove the attachments of ``kinds`` from 1-based ``line``; what was removed, in words."""
    text = lines[line - 1]
    gone: list[str] = []

    def cut(m: re.Match[str]) -> str:
        if m.group(1) in kinds:
            gone.append(f"!{m.group(1)} {m.group(2)}")
            return ""
        return m.group(0)

    lines[line - 1] = _ATTACH.sub(cut, text)
    return ", ".join(gone)


def _scope_dmas(text: str, dma_lines: list[int]) -> tuple[str, list[str]]:
    """Each line of ``dma_lines`` without ``!alias.scope`` gets a fresh scope of its own."""
    lines = text.splitlines(keepends=True)
    nodes = [int(n) for n in _NODE.findall(text)]
    nxt = max(nodes, default=-1) + 1
    domain = nxt
    nxt += 1
    added: list[str] = []
    changes: list[str] = []
    for line in dma_lines:
        raw = lines[line - 1]
        if "!alias.scope" in raw:
            continue
        body = raw.rstrip("\r\n")
        end = raw[len(body):]
        scope, lst = nxt, nxt + 1
        nxt += 2
        lines[line - 1] = f"{body}, !alias.scope !{lst}{end}"
        added += [f'!{scope} = distinct !{{!{scope}, !{domain}, !"llnoalias.repair.dma.line{line}"}}',
                  f"!{lst} = !{{!{scope}}}"]
        changes.append(f"line {line}: the LDS-DMA got a scope of its own (!alias.scope !{lst}), so no access's "
                       "metadata separates it from the wait pass")
    if not added:
        return text, []
    out = "".join(lines)
    if not out.endswith("\n"):
        out += "\n"
    out += f'!{domain} = distinct !{{!{domain}, !"llnoalias.repair"}}\n' + "\n".join(added) + "\n"
    return out, changes


def repair(text: str, path: str = "<stdin>", *, mcpu: str | None = None, triple: str | None = None,
           llc: str | None = None, codegen: str = CODEGEN.default, timeout: float = 300.0) -> Repair:
    """Check ``text`` and, where it races, repair it (see the module's docstring)."""
    mod = parse_module(SourceFile(path, text))

    def run(t: str) -> CheckResult:
        return check_text(t, path, mcpu=mcpu, triple=triple, llc=llc, codegen=codegen, timeout=timeout)

    base = check_text(text, path, mcpu=mcpu, triple=triple, llc=llc, codegen=codegen, timeout=timeout, module=mod)
    out = Repair(text, before=list(base.races), after=list(base.races))
    if base.clean:
        return out
    accesses = module_footprints(mod)
    dma_lines = sorted({r.dma.ir_line for r in base.races if r.dma.ir_line})
    scoped, changes = _scope_dmas(text, dma_lines)
    if changes:
        res = run(scoped)
        if res.clean:
            out.text, out.changes, out.how, out.after = scoped, changes, "scope-dma", []
            return out
    for how, kinds in (("drop-noalias", ("noalias",)), ("drop-alias-metadata", ALL_ALIAS)):
        lines = text.splitlines(keepends=True)
        changes = []
        races = base.races
        res = base
        for _ in range(3):  # a repaired access may leave the next one racing
            todo = sorted({n for r in races for n in _access_lines(r, accesses)})
            said = [(n, _drop(lines, n, kinds)) for n in todo if 0 < n <= len(lines)]
            said = [(n, what) for n, what in said if what]
            if not said:
                break
            changes += [f"line {n}: removed {what} from the LDS access" for n, what in said]
            res = run("".join(lines))
            races = res.races
            if res.clean:
                break
        if changes and res.clean:
            out.text, out.changes, out.how, out.after = "".join(lines), changes, how, []
            return out
    return out


__all__ = ["ALL_ALIAS", "Repair", "repair"]
