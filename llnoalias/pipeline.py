"""One annotation run: parse, find roots, solve provenance, plan scopes, splice.
The library's entry point (the CLI only wires files to it)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .arguments import ArgumentsResult, apply_arguments_of
from .editor import Editor
from .lexer import split_comment
from .metadata import MetadataWriter
from .model import Instruction, Module
from .options import AnnotateOptions
from .parser import parse_module
from .provenance import ModuleAnalysis
from .report import AccessRecord, Report, RootRecord
from .regions import RegionSplitter, merge_regions
from .roots import RootSet, find_roots
from .scopes import Decision, Plan, Region, finish, noalias_keys, plan_function
from .source import SourceFile

_DBG_RE = re.compile(r"!dbg\s+!(\d+)")


@dataclass
class AnnotateResult:
    #: The rewritten module text (equal to the input when nothing was tagged).
    text: str
    #: What was found and tagged, for ``--stats``, ``explain``, remarks and ``--json``.
    report: Report = field(default_factory=lambda: Report(""))
    module: Module | None = None


def annotate_text(text: str, path: str = "<stdin>", options: AnnotateOptions | None = None) -> AnnotateResult:
    """Annotate one module's text. Raises ``LLNoaliasError`` on bad input."""
    options = options or AnnotateOptions()
    src = SourceFile(path, text)
    mod = parse_module(src)
    roots = find_roots(mod, options)
    ma = ModuleAnalysis(mod, roots)
    p, editor, args = _analyse(mod, ma, roots, options)
    if ma.settle():
        # Some store writes an address: integers loaded from memory are not plain values,
        # and everything that assumed they were is done again.
        p, editor, args = _analyse(mod, ma, roots, options)
    report = _report(mod, p, roots, ma)
    report.args.extend(args.records)
    report.invariant_loads = args.invariant_loads
    return AnnotateResult(editor.render(), report, mod)


def _analyse(mod: Module, ma: ModuleAnalysis, roots: RootSet, options: AnnotateOptions
             ) -> tuple[Plan, Editor, ArgumentsResult]:
    """Everything that reads provenance: scopes, regions, arguments; edits in an editor.

    Functions are analysed one at a time and their parsed operands and provenance are
    released afterwards, so memory holds one function's analysis at a time."""
    p = Plan()
    editor = Editor(mod.source)
    writer = MetadataWriter(mod, editor)
    args = ArgumentsResult()
    splitter = RegionSplitter(mod) if options.regions else None
    for fn in mod.functions:
        made = plan_function(mod, ma, roots, fn, p)
        if splitter is not None:
            splitter.measure(made)
            splitter.release(fn)
        apply_arguments_of(mod, ma, roots, options, editor, writer, fn, args)
        for d in made:
            d.fa = None
        ma.release(fn)
    if splitter is not None:
        merge_regions(p)
    finish(p)
    _write_scopes(p, writer)
    writer.flush()
    return p, editor, args


def _write_scopes(p: Plan, writer: MetadataWriter) -> None:
    # Domains and scopes first, in a stable order, so the new lines read top-down.
    ids: dict[int, int] = {}
    for domain, keys in p.domain_keys.items():
        for key in keys:
            ids[id(key)] = writer.scope(domain, key.name)
    per_inst: dict[int, tuple[Instruction, dict[str, list[int]], list[Decision]]] = {}
    for d in p.tagged():
        keys = p.domain_keys[d.domain]
        inst = d.access.inst
        entry = per_inst.setdefault(id(inst), (inst, {"alias.scope": [], "noalias": []}, []))
        entry[1]["alias.scope"].extend(ids[id(k)] for k in d.keys)
        entry[1]["noalias"].extend(ids[id(k)] for k in noalias_keys(d, keys))
        entry[2].append(d)
    for inst, kinds, decisions in per_inst.values():
        if not writer.attach(inst, kinds):
            for d in decisions:
                d.keys = []
                d.reason = "existing !alias.scope/!noalias is not a plain list of scopes"


def _report(mod: Module, p: Plan, roots: RootSet, ma: ModuleAnalysis) -> Report:
    rep = Report(mod.source.path)
    for r in roots.lds.values():
        rep.roots.append(RootRecord(r.domain, r.name, "lds"))
    for ka in roots.kernels.values():
        seen: set[int] = set()
        for r in ka.roots.values():
            if id(r) not in seen:
                seen.add(id(r))
                rep.roots.append(RootRecord(r.domain, r.name, "arg"))
    for keys in p.domain_keys.values():
        for k in keys:
            if isinstance(k, Region):
                rep.roots.append(RootRecord(k.domain, k.name, "region", f"bytes [{k.lo}, {k.hi}) of {k.root.name}"))
    rep.skipped_globals = dict(roots.lds_skipped)
    text = mod.text
    for d in p.decisions:
        inst = d.access.inst
        line_text = text[inst.start:inst.end]
        code = split_comment(line_text).strip()
        col = len(line_text) - len(line_text.lstrip()) + 1
        m = _DBG_RE.search(line_text)
        opname = d.access.intrinsic or d.access.kind
        rep.accesses.append(AccessRecord(
            inst.function.name, inst.line, col, opname, code if len(code) <= 160 else code[:157] + "...",
            d.domain, bool(d.keys), [k.name for k in d.keys], d.reason,
            int(m.group(1)) if m else None, d.range_note))
    if ma.memory_holds_addresses:
        rep.notes.append(f"integers loaded from memory are treated as addresses: {ma.memory_reason}")
    return rep
