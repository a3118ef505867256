"""Terminal output of a run's report (``--stats``), through rich, on stderr."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..ir.model import Module
from ..report.explain import (
    ExplainedFunction,
    no_access_line,
    nothing_tagged,
    one_line,
    printable,
    short_domain,
)
from ..report.record import Report


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=False)


#: Rows shown of a table with a row per root or per argument; a module with thousands
#: of kernels gets the first ones and a count (all of them: ``--report FILE``, ``explain``).
MAX_ROWS = 40


def _print_rows(con: Console, table: Table, rows: Sequence[tuple[str, ...]], limit: int, what: str) -> None:
    for row in rows[:limit]:
        table.add_row(*row)
    con.print(table)
    if len(rows) > limit:
        con.print(Text(f"... and {len(rows) - limit} more {what} (--report FILE writes all of them)", style="dim"))


def print_blockers(report: Report, con: Console, max_rows: int = MAX_ROWS) -> None:
    """The untagged accesses grouped by the instruction that blocked them, most costly first."""
    rows = [(str(acc), where, rule) for where, rule, acc, _ in report.blockers()]
    if not rows:
        return
    table = Table(title="untagged accesses by the instruction that blocked them", title_justify="left")
    table.add_column("accesses", justify="right")
    table.add_column("blocked at", overflow="fold")
    table.add_column("rule", overflow="fold")
    _print_rows(con, table, rows, max_rows, "blocking instructions")


def print_stats(report: Report, console: Console | None = None, max_rows: int = MAX_ROWS) -> None:
    con = console or stderr_console()
    roots = Table(title=f"llnoalias: roots in {report.path}", title_justify="left")
    roots.add_column("domain")
    roots.add_column("root")
    roots.add_column("kind")
    roots.add_column("detail")
    rows = [(r.domain, r.name, r.kind, r.detail) for r in report.roots]
    rows += [("-", name, "-", f"not a root: {why}") for name, why in sorted(report.skipped_globals.items())]
    _print_rows(con, roots, rows, max_rows, "roots")

    per_domain: Counter[tuple[str, bool]] = Counter((a.domain, a.tagged) for a in report.accesses)
    domains = sorted({a.domain for a in report.accesses})
    acc = Table(title="accesses", title_justify="left")
    acc.add_column("domain")
    acc.add_column("tagged", justify="right")
    acc.add_column("untagged", justify="right")
    for d in domains:
        acc.add_row(d, str(per_domain[(d, True)]), str(per_domain[(d, False)]))
    acc.add_row("total", str(len(report.tagged)), str(len(report.untagged)), style="bold")
    con.print(acc)

    reasons = report.reasons()
    if reasons:
        by_reason = Table(title="untagged accesses by reason", title_justify="left")
        by_reason.add_column("count", justify="right")
        by_reason.add_column("reason")
        for reason, n in reasons.most_common():
            by_reason.add_row(str(n), reason)
        con.print(by_reason)
        print_blockers(report, con, max_rows)

    no_range = Counter(re.sub(r" \(line \d+\)", "", a.range_note) for a in report.accesses
                       if a.tagged and a.range_note.startswith("no range"))
    if no_range:
        nr = Table(title="tagged with the whole root's scope (no byte range)", title_justify="left")
        nr.add_column("count", justify="right")
        nr.add_column("why no range")
        for why_not, n in no_range.most_common():
            nr.add_row(str(n), why_not)
        con.print(nr)

    if report.args:
        args = Table(title="kernel arguments", title_justify="left")
        for col in ("kernel", "#", "argument", "root", "readonly", "writeonly", "added"):
            args.add_column(col)
        _print_rows(con, args, [(a.kernel, str(a.index), a.name, "yes" if a.rooted else f"no: {a.reason}",
                                 a.readonly, a.writeonly, " ".join(a.added)) for a in report.args],
                    max_rows, "arguments")
    if report.invariant_loads:
        con.print(f"!invariant.load added to {report.invariant_loads} load(s)")
    for note_text in report.notes:
        con.print(f"note: {note_text}")


def print_rich(report: Report, functions: list[ExplainedFunction], console: Console | None = None,
               module: Module | None = None) -> None:
    """A rich table per function (for a terminal); then, when nothing was tagged, why and
    what to pass."""
    con = console or Console(highlight=False)
    why = nothing_tagged(report, module)
    if not functions:
        for line in why or [no_access_line(report)]:
            con.print(Text(line))
        return
    for f in functions:
        kind = "kernel" if f.kernel else "function"
        table = Table(title=f"{kind} {printable(f.name)}: {f.tagged} tagged, {f.untagged} untagged",
                      title_justify="left", expand=True)
        table.add_column("line", no_wrap=True)
        table.add_column("instruction", ratio=3, overflow="ellipsis", no_wrap=True)
        table.add_column("domain", ratio=1, overflow="fold")
        table.add_column("scopes / reason", ratio=3, overflow="fold")
        for a in f.accesses:
            first = True
            for domain, tagged, scopes, reason in a.domains:
                verdict = (Text(", ".join(printable(s) for s in scopes), style="green") if tagged
                           else Text(printable(reason), style="yellow"))
                where = Text(str(a.line))
                if a.source:
                    where.append("\n" + a.source, style="dim")
                table.add_row(where if first else "", Text(one_line(a.text)) if first else "",
                              Text(short_domain(domain), style="cyan"), verdict)
                first = False
        con.print(table)
    con.print(f"total: {len(report.tagged)} tagged, {len(report.untagged)} untagged")
    for line in why:
        con.print(Text(line, style="yellow"))
