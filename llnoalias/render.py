"""Terminal output of a run's report (``--stats``), through rich, on stderr."""

from __future__ import annotations

from collections import Counter

from rich.console import Console
from rich.table import Table

from .report import Report


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=False)


def print_stats(report: Report, console: Console | None = None) -> None:
    con = console or stderr_console()
    roots = Table(title=f"llnoalias: roots in {report.path}", title_justify="left")
    roots.add_column("domain")
    roots.add_column("root")
    roots.add_column("kind")
    for r in report.roots:
        roots.add_row(r.domain, r.name, r.kind)
    for name, why in sorted(report.skipped_globals.items()):
        roots.add_row("-", name, f"not a root: {why}")
    con.print(roots)

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
        why = Table(title="untagged accesses by reason", title_justify="left")
        why.add_column("count", justify="right")
        why.add_column("reason")
        for reason, n in reasons.most_common():
            why.add_row(str(n), reason)
        con.print(why)

    if report.args:
        args = Table(title="kernel arguments", title_justify="left")
        for col in ("kernel", "#", "argument", "root", "readonly", "writeonly", "added"):
            args.add_column(col)
        for a in report.args:
            args.add_row(a.kernel, str(a.index), a.name, "yes" if a.rooted else f"no: {a.reason}",
                         a.readonly, a.writeonly, " ".join(a.added))
        con.print(args)
    if report.invariant_loads:
        con.print(f"!invariant.load added to {report.invariant_loads} load(s)")
    for n in report.notes:
        con.print(f"note: {n}")
