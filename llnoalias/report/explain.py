"""``llnoalias explain``: every access of every function, with the scopes it got or the
reason it got none (design section 8). A rich table per function on a terminal, plain
text otherwise, JSON for machines. Built only from the run's ``Report`` (plus the module
for ``!dbg`` source locations and which functions are kernels)."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..ir.model import Module
from ..reasons import carried_code
from .record import AccessRecord, Report
from .remarks import DebugLocations, function_name

SCHEMA = "llnoalias.explain/1"


@dataclass
class ExplainedAccess:
    line: int
    col: int
    opcode: str
    text: str
    source: str | None  # "file:line:col" from !dbg
    #: per domain: (domain, tagged, scopes, reason)
    domains: list[tuple[str, bool, list[str], str]] = field(default_factory=list)
    #: per domain left untagged: its reason's code (docs/reasons.md)
    codes: dict[str, str] = field(default_factory=dict)


@dataclass
class ExplainedFunction:
    name: str
    kernel: bool
    accesses: list[ExplainedAccess] = field(default_factory=list)
    #: ``explain --check``: what ``llnoalias check`` says of the function's generated code
    check: str = ""

    @property
    def tagged(self) -> int:
        return sum(1 for a in self.accesses for d in a.domains if d[1])

    @property
    def untagged(self) -> int:
        return sum(1 for a in self.accesses for d in a.domains if not d[1])


def reason_of(a: AccessRecord) -> str:
    """The reason an untagged record shows; never empty."""
    return a.reason.strip() or "not tagged (no reason recorded)"


def explain(report: Report, module: Module | None = None, untagged_only: bool = False) -> list[ExplainedFunction]:
    """Group the report's records by function, then by instruction, in text order."""
    locs = DebugLocations(module)
    funcs: dict[str, ExplainedFunction] = {}
    by_inst: dict[tuple[str, int, int], ExplainedAccess] = {}
    if module is not None:
        for fn in module.functions:
            funcs[fn.name] = ExplainedFunction(fn.name, fn.is_kernel)
    for a in report.accesses:
        if untagged_only and a.tagged:
            continue
        ef = funcs.get(a.function)
        if ef is None:
            ef = funcs[a.function] = ExplainedFunction(a.function, False)
        key = (a.function, a.line, a.col)
        ea = by_inst.get(key)
        if ea is None:
            loc = locs.resolve(a.dbg)
            src = f"{loc[0]}:{loc[1]}:{loc[2]}" if loc else None
            ea = by_inst[key] = ExplainedAccess(a.line, a.col, a.opcode, a.text, src)
            ef.accesses.append(ea)
        scopes = list(a.scopes)
        if a.range_note and a.tagged and not any("[" in sc for sc in scopes):
            scopes = [f"{sc} ({a.range_note})" for sc in scopes]
        elif a.tagged and " spans regions " in a.range_note:
            # an access that spans regions: say which bytes, beside its spanning scope
            scopes = [f"{sc} ({a.range_note})" if sc.endswith(" spanning") else sc for sc in scopes]
        ea.domains.append((a.domain, a.tagged, scopes, "" if a.tagged else reason_of(a)))
        if not a.tagged and a.code:
            ea.codes[a.domain] = a.code
    out = [f for f in funcs.values() if f.accesses]
    for f in out:
        f.accesses.sort(key=lambda x: (x.line, x.col))
    return out


def to_json(report: Report, functions: list[ExplainedFunction]) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "path": report.path,
        "functions": [
            {
                "name": function_name(f.name),
                "kernel": f.kernel,
                "tagged": f.tagged,
                "untagged": f.untagged,
                **({"check": f.check} if f.check else {}),
                "accesses": [
                    {
                        "line": a.line,
                        "col": a.col,
                        "opcode": a.opcode,
                        "instruction": a.text,
                        "source": a.source,
                        "domains": [
                            {"domain": d, "tagged": t, "scopes": s, "reason": r, "code": a.codes.get(d, "")}
                            for d, t, s, r in a.domains
                        ],
                    }
                    for a in f.accesses
                ],
            }
            for f in functions
        ],
        "summary": {"tagged": len(report.tagged), "untagged": len(report.untagged)},
        "hints": list(report.hints),
    }


def with_code(reason: str, code: str) -> str:
    """The reason as ``explain`` shows it: with its code after it, as mypy does
    (``pointer loaded from memory [loaded-pointer]``)."""
    return printable(reason) + (f" [{code}]" if code else "")


def printable(text: str) -> str:
    return text.encode("utf-8", "replace").decode("utf-8").replace("\r", "").replace("\n", " ")


def one_line(text: str) -> str:
    return " ".join(printable(text).split())


MEMORY_OPCODES = frozenset({"load", "store", "atomicrmw", "cmpxchg"})


def nothing_tagged(report: Report, module: Module | None = None) -> list[str]:
    """When the run tagged nothing but a flag would have given it roots: a line saying so
    (with how many access records the run made, as the totals count them) and the hints, each ending in the flag
    to pass. Empty otherwise."""
    if not report.hints or any(a.tagged for a in report.accesses):
        return []
    what = "nothing was tagged"
    # the unit every other count of explain, --stats and a batch's summary uses: a record
    # per access and domain it reaches (an LDS-DMA call included); a module none of whose
    # accesses reaches a root has none, and says so (a batch's summary shows 0 and 0)
    n = len(report.accesses)
    if n:
        what = f"none of its {n} access record{'s' if n != 1 else ''} was tagged"
    elif module is not None:
        k = sum(1 for fn in module.functions for inst in fn.instrs if inst.opcode in MEMORY_OPCODES)
        if k:
            what = (f"none of its {k} memory access{'es' if k != 1 else ''} reaches a root (no access records), "
                    "so nothing was tagged")
    return [f"{printable(report.path)}: {what}, because with these options:",
            *(f"  {printable(h)}" for h in report.hints)]


def no_access_line(report: Report) -> str:
    return f"{printable(report.path)}: no memory accesses that llnoalias could tag"


def print_plain(report: Report, functions: list[ExplainedFunction], out: TextIO,
                module: Module | None = None) -> None:
    """Plain text: one block per function, one line per access and domain; then, when
    nothing was tagged, why and what to pass."""
    why = nothing_tagged(report, module)
    if not functions:
        out.write("\n".join(why or [no_access_line(report)]) + "\n")
        for n in report.notes:
            out.write(f"note: {printable(n)}\n")
        return
    for f in functions:
        kind = "kernel" if f.kernel else "function"
        out.write(f"{kind} {printable(f.name)}: {f.tagged} tagged, {f.untagged} untagged\n")
        if f.check:
            out.write(f"  check: {f.check}\n")
        for a in f.accesses:
            where = f"line {a.line}" + (f" ({a.source})" if a.source else "")
            out.write(f"  {where}: {one_line(a.text)}\n")
            for domain, tagged, scopes, reason in a.domains:
                if tagged:
                    out.write(f"    {domain}: tagged, scope {', '.join(printable(s) for s in scopes)}\n")
                else:
                    out.write(f"    {domain}: not tagged: {with_code(reason, a.codes.get(domain, ''))}\n")
        out.write("\n")
    out.write(f"total: {len(report.tagged)} tagged, {len(report.untagged)} untagged\n")
    if why:
        out.write("\n".join(why) + "\n")
    for n in report.notes:
        out.write(f"note: {printable(n)}\n")


def short_domain(domain: str) -> str:
    """``llnoalias.lds`` -> ``lds``; ``llnoalias.args.<kernel>`` -> ``args`` (the table is per kernel)."""
    if domain.startswith("llnoalias.args."):
        return "args"
    return domain.removeprefix("llnoalias.")


def summary_text(path: str, tagged: int, untagged: int, rows: list[tuple[str, str, int, int]]) -> str:
    """``explain --summary``: the untagged accesses grouped by the instruction that blocked
    them (``Report.blockers``), most costly first, so that the construct that costs the
    most claims comes first."""
    out = io.StringIO()
    out.write(f"{printable(path)}: {tagged} tagged, {untagged} untagged (access records, one per domain)\n")
    if not rows:
        return out.getvalue()
    out.write("untagged accesses by the instruction that blocked them:\n")
    for where, rule, acc, n in rows:
        extra = f" ({n} records)" if n != acc else ""
        out.write(f"{acc:6d}{extra}  {printable(where)}\n        {with_code(rule, carried_code(rule))}\n")
    return out.getvalue()
