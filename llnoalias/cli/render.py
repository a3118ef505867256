"""Terminal output of a run's report (``--stats``), through rich, on stderr."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..ir.model import Module
from ..reasons import REASONS, carried_code
from ..report.explain import (
    ExplainedFunction,
    no_access_line,
    nothing_tagged,
    one_line,
    printable,
    short_domain,
    with_code,
)
from ..report.record import Report

#: the width of a console that is not a terminal: nothing is wrapped or squeezed
UNBOUNDED = 10_000


def stderr_console() -> Console:
    """Rich on stderr: a terminal's width there, no wrapping anywhere else."""
    import sys

    terminal = sys.stderr is not None and sys.stderr.isatty()
    return Console(stderr=True, highlight=False, soft_wrap=False, width=None if terminal else UNBOUNDED)


def _plain(cell: object) -> str:
    text = cell.plain if isinstance(cell, Text) else str(cell)
    return " ".join(text.split("\n")).rstrip()


def plain_table(table: Table) -> str:
    """``table`` as plain aligned columns: its title on a line, a header row, a row per
    row; two spaces between columns, right-aligned where the table right-aligns, no box
    characters, no wrapping (for a pipe, a log, a file)."""
    columns = table.columns
    cells = [[_plain(c.header)] + [_plain(x) for x in c.cells] for c in columns]
    widths = [max(len(x) for x in col) for col in cells]
    lines: list[str] = []
    if table.title:
        lines.append(_plain(table.title))
    for i in range(len(cells[0]) if cells else 0):
        parts = [col[i].rjust(w) if c.justify == "right" else col[i].ljust(w)
                 for c, col, w in zip(columns, cells, widths, strict=True)]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines) + "\n"


def print_table(con: Console, table: Table) -> None:
    """A rich table on a terminal; :func:`plain_table` anywhere else."""
    if con.is_terminal:
        con.print(table)
    else:
        con.file.write(plain_table(table))
        con.file.flush()


#: Rows shown of a table with a row per root or per argument; a module with thousands
#: of kernels gets the first ones and a count (all of them: ``--report FILE``, ``explain``).
MAX_ROWS = 40


def _print_rows(con: Console, table: Table, rows: Sequence[tuple[str, ...]], limit: int, what: str) -> None:
    for row in rows[:limit]:
        table.add_row(*row)
    print_table(con, table)
    if len(rows) > limit:
        con.print(Text(f"... and {len(rows) - limit} more {what} (--report FILE writes all of them)", style="dim"))


def print_blockers(report: Report, con: Console, max_rows: int = MAX_ROWS) -> None:
    """The untagged accesses grouped by the instruction that blocked them, most costly first."""
    rows = [(str(acc), where, with_code(rule, carried_code(rule))) for where, rule, acc, _ in report.blockers()]
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
    print_table(con, acc)

    reasons = report.reasons()
    if reasons:
        by_reason = Table(title="untagged accesses by reason", title_justify="left")
        by_reason.add_column("count", justify="right")
        by_reason.add_column("reason")
        by_reason.add_column("what to do")
        for reason, n in reasons.most_common():
            code = carried_code(reason)
            known = REASONS.get(code)
            by_reason.add_row(str(n), with_code(reason, code), known.todo if known is not None else "")
        print_table(con, by_reason)
        print_blockers(report, con, max_rows)

    no_range = Counter(re.sub(r" \(line \d+\)", "", a.range_note) for a in report.accesses
                       if a.tagged and a.range_note.startswith("no range"))
    if no_range:
        nr = Table(title="tagged with the whole root's scope (no byte range)", title_justify="left")
        nr.add_column("count", justify="right")
        nr.add_column("why no range")
        for why_not, n in no_range.most_common():
            nr.add_row(str(n), why_not)
        print_table(con, nr)

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
                if not tagged and a.codes.get(domain):
                    verdict.append(f" [{a.codes[domain]}]", style="dim")
                where = Text(str(a.line))
                if a.source:
                    where.append("\n" + a.source, style="dim")
                table.add_row(where if first else "", Text(one_line(a.text)) if first else "",
                              Text(short_domain(domain), style="cyan"), verdict)
                first = False
        con.print(table)
        if f.check:
            con.print(Text(f"check: {printable(f.check)}", style="green" if f.check.startswith("clean") else "red"))
    con.print(f"total: {len(report.tagged)} tagged, {len(report.untagged)} untagged")
    for line in why:
        con.print(Text(line, style="yellow"))
