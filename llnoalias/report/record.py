"""What one run found: roots, accesses tagged or not and why, arguments and what was
proved about them. ``--stats``, ``explain``, remarks and ``--json`` all read this."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(slots=True)
class AccessRecord:
    function: str
    line: int
    col: int
    opcode: str  # load, store, atomicrmw, cmpxchg, or the intrinsic's name
    text: str  # the instruction, trimmed
    domain: str
    tagged: bool
    scopes: list[str] = field(default_factory=list)  # scope names it was given
    reason: str = ""  # why not, when not tagged
    dbg: int | None = None  # the !dbg attachment's id, if any
    range_note: str = ""  # with --regions: the access's byte range, or why it has none
    #: the reason's rule, without where it applied (what ``--stats`` groups by)
    rule: str = ""
    #: where the rule applied: "line N: `code`" of the instruction (or global, argument)
    #: that blocked the claim, in function ``function`` (``explain --summary`` groups by it)
    blocker: str = ""


@dataclass
class RootRecord:
    domain: str
    name: str
    kind: str  # lds, arg, region, spanning (the scope of accesses that span regions)
    detail: str = ""


@dataclass
class ArgRecord:
    kernel: str
    index: int
    name: str
    rooted: bool
    reason: str = ""
    readonly: str = ""  # "proved", "already", or why not
    writeonly: str = ""
    added: list[str] = field(default_factory=list)  # attributes added to the define line


@dataclass
class Report:
    path: str
    roots: list[RootRecord] = field(default_factory=list)
    accesses: list[AccessRecord] = field(default_factory=list)
    args: list[ArgRecord] = field(default_factory=list)
    skipped_globals: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    invariant_loads: int = 0

    @property
    def tagged(self) -> list[AccessRecord]:
        return [a for a in self.accesses if a.tagged]

    @property
    def untagged(self) -> list[AccessRecord]:
        return [a for a in self.accesses if not a.tagged]

    def reasons(self) -> Counter[str]:
        return Counter(a.rule or _reason_group(a.reason) for a in self.untagged)

    def blockers(self) -> list[tuple[str, str, int, int]]:
        """The untagged accesses grouped by what blocked them, most costly first:
        ``(where, rule, accesses, distinct instructions)``; ``where`` is
        ``"FUNCTION line N: `code`"``."""
        groups: dict[tuple[str, str], set[tuple[str, int]]] = {}
        records: Counter[tuple[str, str]] = Counter()
        for a in self.untagged:
            where = f"{a.function} {a.blocker}" if a.blocker.startswith("line ") else (a.blocker or "(nowhere)")
            key = (where, a.rule or _reason_group(a.reason))
            records[key] += 1
            groups.setdefault(key, set()).add((a.function, a.line))
        out = [(where, rule, len(groups[(where, rule)]), n) for (where, rule), n in records.items()]
        out.sort(key=lambda t: (-t[2], -t[3], t[0]))
        return [(w, r, acc, n) for w, r, acc, n in out]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "llnoalias.report/1",
            "path": self.path,
            "roots": [asdict(r) for r in self.roots],
            "accesses": [asdict(a) for a in self.accesses],
            "arguments": [asdict(a) for a in self.args],
            "summary": {
                "tagged": len(self.tagged),
                "untagged": len(self.untagged),
                "invariant_loads": self.invariant_loads,
                "untagged_by_reason": dict(self.reasons()),
                "untagged_by_blocker": [
                    {"where": w, "rule": r, "accesses": acc, "records": n} for w, r, acc, n in self.blockers()],
            },
            "notes": list(self.notes),
        }


def _reason_group(reason: str) -> str:
    """The reason without its line-specific detail, for grouping."""
    return re.sub(r" \(line \d+\)", "", reason)
