"""The copy of a module that ``check`` compiles: every instruction located at its own line.

``check`` (design section 4b) maps each instruction of the assembly back to the IR
instruction it came from through the debug locations the code generator writes (``.loc FILE
LINE COL``). The copy handed to the code generator therefore carries one ``!DILocation`` per
instruction whose line and column are the instruction's own in the input text; nothing else of
the module changes. What the input already had for debugging is set aside in the copy only:

- each instruction's ``!dbg`` attachment is replaced by the new location, and each ``define``'s
  by a new ``DISubprogram`` of one new compile unit (``emissionKind: LineTablesOnly``); the
  location's scope is a lexical block of its IR block, whose file's directory names the block
  (``BLOCK_DIRECTORY``): an instruction LLVM merged from two accesses of different lines (line 0)
  keeps the nearest scope both share, so the assembly still says which block they came from;
- debug records (``#dbg_value(...)`` lines) and calls of ``llvm.dbg.*`` intrinsics are dropped
  (their variables are scoped in the old subprograms, which the verifier would reject beside
  the new ones; they generate no code);
- the old compile units stay listed in ``!llvm.dbg.cu`` (loop metadata may still name old
  locations) beside the new one, and the ``Debug Info Version`` module flag is added when the
  input has none.

Debug locations can change the code LLVM generates (a scheduler that reads them); ``check``
can compile the copy without them too and say whether the instructions differ
(``same_instructions``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..ir.model import Module

_DBG_ATTACHMENT = re.compile(r",[ \t]*!dbg[ \t]+![0-9]+")
_DEFINE_DBG = re.compile(r"[ \t]!dbg[ \t]+![0-9]+")
_DBG_RECORD = re.compile(r"^[ \t]*#dbg_[a-z_]+\(.*$", re.MULTILINE)
_DBG_CALL = re.compile(r"^\s*(?:%[-a-zA-Z$._0-9\"]+\s*=\s*)?(?:tail\s+|musttail\s+|notail\s+)?call\b[^@]*@llvm\.dbg\.")
_FLAG_VERSION = re.compile(r'!"Debug Info Version"')
_LOOP = re.compile(r"!llvm\.loop[ \t]+!([0-9]+)")
_REF = re.compile(r"!([0-9]+)")
_NAMED = re.compile(r"^(!llvm\.(?:dbg\.cu|module\.flags))[ \t]*=[ \t]*!\{([^}\n]*)\}[ \t]*$", re.MULTILINE)


#: the directory of the file each IR block's scope names: ``.file N "<this><block index>" ...``
#: in the assembly tells the block an instruction came from, also where its line is 0 (a
#: location LLVM merged from two of one block keeps their scope, see ``asm.reader``)
BLOCK_DIRECTORY = "llnoalias-block-"


def _escape(s: str) -> str:
    return "".join(c if c.isprintable() and c not in '"\\' else f"\\{ord(c):02X}" for c in s)


def with_line_locations(mod: Module, filename: str = "input.ll") -> str:
    """The text of ``mod`` with every instruction of every defined function located at its
    own line and column (see the module's docstring)."""
    text = mod.text
    next_id = mod.max_metadata_id + 1

    def new_id() -> int:
        nonlocal next_id
        next_id += 1
        return next_id - 1

    file_id, cu_id, type_id = new_id(), new_id(), new_id()
    nodes: list[str] = [
        f'!{file_id} = !DIFile(filename: "{_escape(filename)}", directory: "")',
        f"!{cu_id} = distinct !DICompileUnit(language: DW_LANG_C99, file: !{file_id}, "
        'producer: "llnoalias check", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)',
        f"!{type_id} = !DISubroutineType(types: !{{}})",
    ]
    # (start, end, replacement) edits, in text order
    edits: list[tuple[int, int, str]] = []
    starts = mod.source.line_starts
    loops: set[int] = set()
    block_files: dict[int, int] = {}
    for fn in mod.functions:
        instrs = fn.instrs
        if not instrs:
            continue
        sp = new_id()
        scopes: dict[int, int] = {}
        nodes.append(f'!{sp} = distinct !DISubprogram(name: "{_escape(fn.name.lstrip("@"))}", scope: !{file_id}, '
                     f"file: !{file_id}, line: {fn.line}, type: !{type_id}, scopeLine: {fn.line}, "
                     f"spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !{cu_id})")
        body = fn.block_offsets[0] if fn.block_offsets else instrs[0].start
        brace = text.rfind("{", fn.header_end, body + 1)
        if brace < 0:
            continue
        head = text[fn.header_end:brace]
        edits.append((fn.header_end, brace, _DEFINE_DBG.sub("", head) + f"!dbg !{sp} "))
        for inst, block in zip(instrs, fn.instr_blocks, strict=True):
            start, end = inst.start, inst.end
            code = text[start:end]
            if inst.opcode == "call" and "@llvm.dbg." in code and _DBG_CALL.match(code):
                edits.append((start, end, ""))
                continue
            line = inst.line
            col = start - starts[line - 1] + 1 if line - 1 < len(starts) else 1
            col += len(code) - len(code.lstrip())
            loops.update(int(x) for x in _LOOP.findall(code))
            scope = scopes.get(block)
            if scope is None:
                bf = block_files.get(block)
                if bf is None:
                    bf = block_files[block] = new_id()
                    nodes.append(f'!{bf} = !DIFile(filename: "{_escape(filename)}", '
                                 f'directory: "{BLOCK_DIRECTORY}{block}")')
                scope = scopes[block] = new_id()
                nodes.append(f"!{scope} = distinct !DILexicalBlock(scope: !{sp}, file: !{bf}, line: {line}, "
                             "column: 1)")
            loc = new_id()
            nodes.append(f"!{loc} = !DILocation(line: {line}, column: {col}, scope: !{scope})")
            edits.append((start, end, _DBG_ATTACHMENT.sub("", code) + f", !dbg !{loc}"))
    edits.extend(_loop_edits(mod, loops))
    edits.sort(key=lambda e: e[0])
    out: list[str] = []
    pos = 0
    for start, end, new in edits:
        out.append(_DBG_RECORD.sub("", text[pos:start]))
        out.append(new)
        pos = end
    rest = _DBG_RECORD.sub("", text[pos:])
    flags_id = None if _FLAG_VERSION.search(text) else new_id()
    if flags_id is not None:
        nodes.append(f'!{flags_id} = !{{i32 2, !"Debug Info Version", i32 3}}')
    seen: set[str] = set()

    def named(m: re.Match[str]) -> str:
        name, items = m.group(1), m.group(2).strip()
        add = f"!{cu_id}" if name == "!llvm.dbg.cu" else (f"!{flags_id}" if flags_id is not None else "")
        seen.add(name)
        if not add:
            return m.group(0)
        return f"{name} = !{{{items + ', ' if items else ''}{add}}}"

    rest = _NAMED.sub(named, rest)
    out.append(rest)
    if not rest.endswith("\n"):
        out.append("\n")
    out.append("\n; llnoalias check: one debug location per instruction, at its line in the input\n")
    if "!llvm.dbg.cu" not in seen:
        out.append(f"!llvm.dbg.cu = !{{!{cu_id}}}\n")
    if "!llvm.module.flags" not in seen and flags_id is not None:
        out.append(f"!llvm.module.flags = !{{!{flags_id}}}\n")
    out.extend(n + "\n" for n in nodes)
    return "".join(out)


def _dropper(drop: set[int]) -> Callable[[re.Match[str]], str]:
    """A substitution that removes the references to the nodes ``drop``."""
    def sub(m: re.Match[str]) -> str:
        return "" if int(m.group(1)) in drop else m.group(0)
    return sub


def _loop_edits(mod: Module, loops: set[int]) -> list[tuple[int, int, str]]:
    """Loop metadata without the input's debug locations (a loop's start and end, scoped in
    the subprograms the copy no longer attaches, which the verifier rejects)."""
    out: list[tuple[int, int, str]] = []
    for mid in sorted(loops):
        node = mod.metadata_node(mid)
        if node is None:
            continue
        text = mod.text[node.start:node.end]
        refs = {int(x) for x in _REF.findall(text)} - {mid}
        drop = {r for r in refs if (mod.metadata_text(r) or "").split("=", 1)[-1].strip().startswith("!DILocation(")}
        if not drop:
            continue
        new = _REF.sub(_dropper(drop), text)
        new = re.sub(r",\s*(?=,|\})", "", re.sub(r"\{\s*,\s*", "{", new))
        out.append((node.start, node.end, new))
    return out


_INSTRUCTION = re.compile(r"^\s+([a-z_][a-z0-9_]*)\b")


def instructions_of(asm: str) -> list[str]:
    """The instruction lines of an assembly text, comments and directives left out (what
    must be equal between the located copy and the plain one)."""
    out: list[str] = []
    for raw in asm.splitlines():
        code = raw.split(";", 1)[0].split("//", 1)[0].rstrip()
        if not code or not _INSTRUCTION.match(code):
            continue
        out.append(" ".join(code.split()))
    return out


def same_instructions(located: str, plain: str) -> tuple[bool, str]:
    """Do two assembly texts hold the same instructions? With the first difference."""
    a, b = instructions_of(located), instructions_of(plain)
    if a == b:
        return True, ""
    for n, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return False, f"instruction {n + 1}: `{x}` with locations, `{y}` without"
    return False, f"{len(a)} instructions with locations, {len(b)} without"


__all__ = ["BLOCK_DIRECTORY", "instructions_of", "same_instructions", "with_line_locations"]
