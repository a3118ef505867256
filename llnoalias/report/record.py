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


@dataclass
class RootRecord:
    domain: str
    name: str
    kind: str  # lds, arg, region
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
        return Counter(_reason_group(a.reason) for a in self.untagged)

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
            },
            "notes": list(self.notes),
        }


def _reason_group(reason: str) -> str:
    """The reason without its line-specific detail, for grouping."""
    return re.sub(r" \(line \d+\)", "", reason)
