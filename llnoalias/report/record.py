"""What one run found: roots, accesses tagged or not and why, arguments and what was
proved about them. ``--stats``, ``explain``, remarks and ``--json`` all read this."""

from __future__ import annotations

import re
from collections import Counter

from ..plain import Record
from ..reasons import carried_code

TYPE_CHECKING = False  # typing itself is not imported: it costs every start about 5 ms
if TYPE_CHECKING:
    from typing import Any


class AccessRecord(Record):
    __slots__ = ("function", "line", "col", "opcode", "text", "domain", "tagged", "scopes", "reason", "dbg",
                 "range_note", "rule", "blocker")
    #: ``code`` is the one ``rule`` carries (a ``reasons.Said``), when it is read
    _FIELDS = (*__slots__, "code")

    def __init__(self, function: str, line: int, col: int, opcode: str, text: str, domain: str, tagged: bool,
                 scopes: list[str] | None = None, reason: str = "", dbg: int | None = None, range_note: str = "",
                 rule: str = "", blocker: str = "") -> None:
        self.function = function
        self.line = line
        self.col = col
        self.opcode = opcode  # load, store, atomicrmw, cmpxchg, or the intrinsic's name
        self.text = text  # the instruction, trimmed
        self.domain = domain
        self.tagged = tagged
        self.scopes: list[str] = [] if scopes is None else scopes  # scope names it was given
        self.reason = reason  # why not, when not tagged
        self.dbg = dbg  # the !dbg attachment's id, if any
        self.range_note = range_note  # with --regions: the access's byte range, or why it has none
        #: the reason's rule, without where it applied (what ``--stats`` groups by)
        self.rule = rule
        #: where the rule applied: "line N: `code`" of the instruction (or global, argument)
        #: that blocked the claim, in function ``function`` (``explain --summary`` groups by it)
        self.blocker = blocker

    @property
    def code(self) -> str:
        """The stable code of the reason (``loaded-pointer``; docs/reasons.md), "" when tagged."""
        return "" if self.tagged else carried_code(self.rule or self.reason)


class RootRecord(Record):
    __slots__ = ("domain", "name", "kind", "detail")
    _FIELDS = __slots__

    def __init__(self, domain: str, name: str, kind: str, detail: str = "") -> None:
        self.domain = domain
        self.name = name
        self.kind = kind  # lds, arg, region, spanning (the scope of accesses that span regions)
        self.detail = detail


class ArgRecord(Record):
    __slots__ = ("kernel", "index", "name", "rooted", "reason", "readonly", "writeonly", "added")
    #: ``code`` is the one ``reason`` carries (a ``reasons.Said``), when it is read
    _FIELDS = (*__slots__, "code")

    def __init__(self, kernel: str, index: int, name: str, rooted: bool, reason: str = "", readonly: str = "",
                 writeonly: str = "", added: list[str] | None = None) -> None:
        self.kernel = kernel
        self.index = index
        self.name = name
        self.rooted = rooted
        self.reason = reason
        self.readonly = readonly  # "proved", "already", or why not
        self.writeonly = writeonly
        self.added: list[str] = [] if added is None else added  # attributes added to the define line

    @property
    def code(self) -> str:
        """The stable code of why the argument is not a root (``not-noalias``), "" when it is."""
        return "" if self.rooted else carried_code(self.reason)


class Report(Record):
    __slots__ = ("path", "roots", "accesses", "args", "skipped_globals", "notes", "invariant_loads", "hints",
                 "warnings")
    _FIELDS = __slots__

    def __init__(self, path: str, roots: list[RootRecord] | None = None, accesses: list[AccessRecord] | None = None,
                 args: list[ArgRecord] | None = None, skipped_globals: dict[str, str] | None = None,
                 notes: list[str] | None = None, invariant_loads: int = 0, hints: list[str] | None = None,
                 warnings: list[tuple[int, int, str]] | None = None) -> None:
        self.path = path
        self.roots: list[RootRecord] = [] if roots is None else roots
        self.accesses: list[AccessRecord] = [] if accesses is None else accesses
        self.args: list[ArgRecord] = [] if args is None else args
        self.skipped_globals: dict[str, str] = {} if skipped_globals is None else skipped_globals
        self.notes: list[str] = [] if notes is None else notes
        self.invariant_loads = invariant_loads
        #: what a flag would make roots that the options left out (``missed_roots``): the
        #: command line's note when a run changed nothing, ``explain``'s when nothing was tagged
        self.hints: list[str] = [] if hints is None else hints
        #: what the user must hear about the input: ``(line, col, message)`` (an LDS-DMA the
        #: code generator will not wait for, design section 4b); the CLI prints them on stderr
        self.warnings: list[tuple[int, int, str]] = [] if warnings is None else warnings

    @property
    def tagged(self) -> list[AccessRecord]:
        return [a for a in self.accesses if a.tagged]

    @property
    def untagged(self) -> list[AccessRecord]:
        return [a for a in self.accesses if not a.tagged]

    def reasons(self) -> Counter[str]:
        return Counter(a.rule or _reason_group(a.reason) for a in self.untagged)

    def codes(self) -> Counter[str]:
        """The untagged accesses by their reason's code (docs/reasons.md)."""
        return Counter(a.code or "(none)" for a in self.untagged)

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

    def as_dict(self) -> dict[str, Any]:
        """The report as the ``llnoalias.report/1`` document (a ``dict``; :meth:`to_json`
        is its text)."""
        return {
            "schema": "llnoalias.report/1",
            "path": self.path,
            "roots": [r.as_dict() for r in self.roots],
            "accesses": [a.as_dict() for a in self.accesses],
            "arguments": [a.as_dict() for a in self.args],
            "summary": {
                "tagged": len(self.tagged),
                "untagged": len(self.untagged),
                "invariant_loads": self.invariant_loads,
                "untagged_by_reason": dict(self.reasons()),
                "untagged_by_code": dict(self.codes()),
                "untagged_by_blocker": [
                    {"where": w, "rule": r, "code": carried_code(r), "accesses": acc, "records": n}
                    for w, r, acc, n in self.blockers()],
            },
            "notes": list(self.notes),
            "hints": list(self.hints),
            "warnings": [{"line": line, "col": col, "message": msg} for line, col, msg in self.warnings],
        }

    def to_json(self, indent: int | None = 2) -> str:
        """The ``llnoalias.report/1`` JSON text, as ``--report FILE`` writes it (without
        the final newline); :meth:`as_dict` is the same as a ``dict``."""
        import json  # here: the annotate path does not need it

        return json.dumps(self.as_dict(), indent=indent)


def _reason_group(reason: str) -> str:
    """The reason without its line-specific detail, for grouping."""
    return re.sub(r" \(line \d+\)", "", reason)
