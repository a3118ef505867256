"""``llnoalias stats`` and ``llnoalias gate`` (design section 7).

The lead registers them with ``cli.add_command(stats_command)`` and
``cli.add_command(gate_command)``. Tables go to stdout through rich; ``--json`` prints
machine output instead; every error is an ``LLNoaliasError`` shown as
``llnoalias: error: ...`` with exit status 2.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..diagnostics import LLNoaliasError, note, warn
from ..fileio import decode, display_name, read_input
from ..options import CODEGEN, QUIET, REPORT, WERROR, AnnotateOptions
from ..stats import counters as asmstats
from ..stats import gate
from ..stats.counters import TOTAL_ROW, FileStats, StatsDiff
from .options import annotate_options, codegen_option, options_from_kwargs, report_options
from .render import UNBOUNDED, print_table

_IR_MARKERS = re.compile(
    r"^\s*(?:define\s|declare\s|target\s+(?:triple|datalayout)\s*=|source_filename\s*=)", re.MULTILINE
)
_ASM_MARKERS = re.compile(r"^\s*(?:\.text\b|\.amdgcn_target\b|\.version\s|\.target\s|s_endpgm\b)", re.MULTILINE)


# --------------------------------------------------------------------------- helpers


def _fail(exc: LLNoaliasError) -> NoReturn:
    sys.stderr.write(exc.format())
    sys.stderr.flush()
    sys.exit(exc.exit_code)


def _console() -> Console:
    out = sys.stdout
    terminal = out.isatty()
    # Off a terminal (a pipe, a CI log) never squeeze a table: let it take its own width.
    return Console(file=out, highlight=False, soft_wrap=False, width=None if terminal else _UNBOUNDED)


_UNBOUNDED = UNBOUNDED


def looks_like_llvm_ir(path: str, text: str) -> bool:
    """``.ll`` files, and any text with IR ``define``/``target triple`` lines and no asm."""
    if path.endswith(".ll"):
        return True
    return bool(_IR_MARKERS.search(text)) and not _ASM_MARKERS.search(text)


#: what only assembly has: a directive an assembler or llc writes, an objdump banner or
#: function header, or an AMDGPU instruction with register or immediate operands
_ASSEMBLY_RE = re.compile(
    r"^[ \t]*(?:\.(?:text|amdgcn_target|amdhsa_kernel|amdgpu_hsa_kernel|globl|p2align|section|type|size"
    r"|version|target|address_size|entry|visible|func)\b"
    r"|\S.*:\s+file format \S+$|[0-9A-Fa-f]+ <[^>\n]+>:$"
    r"|(?:[0-9A-Fa-f]{4,}:\s+(?:[0-9A-Fa-f]{8}\s+)*)?(?:s|v|ds|buffer|tbuffer|global|flat|scratch|image)_[a-z0-9_]+"
    r"(?:[ \t]+(?:[sva]\[?\d|vcc|exec|m0|off\b|-?\d|0x)|[ \t]*(?://|;|$)))", re.MULTILINE)


def looks_like_assembly(text: str) -> bool:
    """AMDGPU assembly, an objdump listing or PTX: something ``stats`` and ``gate`` count."""
    return bool(_ASSEMBLY_RE.search(text)) or asmstats.detect_kind(text) == "ptx"


def _check_not_binary(path: str, text: str) -> None:
    name = display_name(path)
    if text.startswith("\x7fELF"):
        raise LLNoaliasError(
            f"'{name}' is an object file; pass assembly or PTX, or the output of 'llvm-objdump -d {name}'"
        )
    if text.startswith("BC\udcc0\udcde") or text.startswith("\udcde\udcc0\x17\x0b"):
        raise LLNoaliasError(f"'{name}' is LLVM bitcode; pass textual IR (llvm-dis) or assembly")


def _compile(text: str, path: str, target: _Target) -> str:
    try:
        from ..backends import codegen
    except ImportError as exc:
        raise LLNoaliasError(
            f"cannot compile '{display_name(path)}': code generation is not available ({exc})"
        ) from None
    notes: list[str] = []
    try:
        return decode(codegen.generate(text, emit="asm", mcpu=target.mcpu, llc=target.llc,
                                       triple=target.triple, notes=notes, codegen=target.codegen))
    except LLNoaliasError as exc:
        from .run import named

        raise named(exc, display_name(path)) from None
    finally:
        from .compile import print_notes

        name = display_name(path)
        print_notes([n for n in notes if (name, n) not in target.said], target.verbose, name)
        target.said.update((name, n) for n in notes)


@dataclass
class _Target:
    """What ``stats`` hands the code generator for '.ll' input."""

    mcpu: str | None
    llc: str | None
    triple: str | None
    verbose: bool
    #: (file, note) already printed: a file's input and annotated builds say the same.
    said: set[tuple[str, str]] = field(default_factory=set)
    #: ``--codegen``: llvmlite's LLVM or Triton's
    codegen: str = CODEGEN.default
    #: ``--report FILE``: where the annotated '.ll' input's report goes, and whether it went
    report_path: str | None = REPORT.default
    reported: bool = False


def _annotate(text: str, path: str, options: AnnotateOptions, report_path: str | None = REPORT.default) -> str:
    from ..api import annotate
    from .run import fail_on_promoted, note_missed, print_warnings

    name = display_name(path)
    result = annotate(text, path=name, options=options, jobs=0)
    print_warnings(text, name, result.report.warnings)
    fail_on_promoted(name)
    note_missed(result, name)  # "input" and "llnoalias" would be the same build
    if report_path:
        from ..fileio import write_output

        write_output(report_path, result.report.to_json() + "\n")
    return result.text


def _collect_text(path: str, text: str, label: str | None = None) -> FileStats:
    if text.strip() and not looks_like_assembly(text):
        raise LLNoaliasError(
            f"'{display_name(path)}' is neither AMDGPU assembly (an llvm-objdump -d listing included), PTX nor "
            "LLVM IR; compile it first (clang -S -emit-llvm, then llnoalias compile) and pass what that writes")
    stats = asmstats.collect(text, display_name(path))
    if stats.kind == "ptx" and stats.kernels:
        _ptx_registers(stats, text)
    if label:
        stats.label = label
    if not stats.kernels:
        warn(f"'{display_name(path)}': no functions found")
    return stats


def _ptx_registers(stats: FileStats, text: str) -> None:
    """Registers and local memory of each PTX function from ``ptxas -v`` when ptxas is on PATH;
    without it (or when ptxas rejects the text) the PTX counts stand alone."""
    import shutil

    if shutil.which("ptxas") is None:
        return
    from ..backends import ptxas

    try:
        said = ptxas.registers(text)
    except LLNoaliasError:
        return
    asmstats.add_registers(stats, asmstats.ptxas_registers(said))


def _delta_text(delta: int, counter: str) -> Text:
    if delta == 0:
        return Text("0", style="dim")
    direction = asmstats.worse_direction(counter)
    style = "cyan" if not direction else ("red" if delta * direction > 0 else "green")
    return Text(f"{delta:+d}", style=style)


def _num(value: int | None) -> str:
    return "-" if value is None else str(value)


# --------------------------------------------------------------------------- stats tables


def _table_width(first: Sequence[str], headers: Sequence[str], cells: Sequence[Sequence[str]]) -> int:
    """Natural width of a rich table with a box: 3 per column plus the widest cell."""
    width = 1 + max([len(x) for x in first] + [8]) + 3
    for i, head in enumerate(headers):
        width += max([len(head)] + [len(row[i]) for row in cells]) + 3
    return width


def _file_table(stats: FileStats, max_width: int) -> Table:
    """One file: a row per function and a total row, or (when that is too wide and
    turning it fits better) a row per counter and a column per function."""
    keys = stats.keys
    names = list(stats.kernels)
    by_function = [[str(stats.kernels[n].get(k, 0)) for k in keys] for n in names]
    by_function.append([str(stats.total.get(k, 0)) for k in keys])
    wide = _table_width(names + ["total"], keys, by_function)
    by_counter = [[row[i] for row in by_function] for i in range(len(keys))]
    tall = _table_width(keys, names + ["total"], by_counter)
    if wide <= max_width or wide <= tall:
        table = Table()
        table.add_column("function")
        for key in keys:
            table.add_column(key, justify="right", no_wrap=True)
        for i, name in enumerate(names):
            table.add_row(name, *by_function[i], end_section=i == len(names) - 1)
        table.add_row(Text("total", style="bold"), *(Text(v, style="bold") for v in by_function[-1]))
        return table
    table = Table()
    table.add_column("counter")
    for name in names:
        table.add_column(name, justify="right")
    table.add_column(Text("total", style="bold"), justify="right", no_wrap=True)
    for key, row in zip(keys, by_counter, strict=True):
        table.add_row(key, *row[:-1], Text(row[-1], style="bold"))
    return table


def _diff_table(d: StatsDiff) -> Table:
    table = Table()
    table.add_column("function")
    table.add_column("counter")
    table.add_column(d.a.label, justify="right", no_wrap=True)
    table.add_column(d.b.label, justify="right", no_wrap=True)
    table.add_column("delta", justify="right", no_wrap=True)
    groups: dict[str, list[asmstats.DiffRow]] = {}
    for row in d.rows:
        # Rows that are zero on both sides say nothing; the JSON has them all.
        if not row.a and not row.b and row.kernel != TOTAL_ROW:
            continue
        groups.setdefault(row.kernel, []).append(row)
    for kname, rows in groups.items():
        for i, row in enumerate(rows):
            first = i == 0
            label: str | Text = kname if first else ""
            if kname == TOTAL_ROW and first:
                label = Text("total", style="bold")
            table.add_row(label, row.counter, _num(row.a), _num(row.b), _delta_text(row.delta, row.counter),
                          end_section=i == len(rows) - 1)
    return table


def _gate_table(result: gate.GateResult, rows: Sequence[gate.GateRow]) -> Table:
    files = {r.file for r in result.rows}
    table = Table()
    if len(files) > 1:
        table.add_column("file")
    table.add_column("function")
    table.add_column("counter")
    for name in ("baseline", "now", "delta", "limit"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("verdict")
    styles = {"fail": "bold red", "grew": "yellow", "shrank": "green", "new": "cyan", "gone": "magenta"}
    for r in rows:
        limit = "-" if r.limit is None else f"{r.limit:g}"
        cells: list[str | Text] = []
        if len(files) > 1:
            cells.append(r.file)
        cells += [r.kernel, r.counter, _num(r.baseline), _num(r.now), _delta_text(r.delta, r.counter), limit,
                  Text(r.verdict, style=styles.get(r.verdict, ""))]
        table.add_row(*cells)
    return table


# --------------------------------------------------------------------------- stats


@click.command("stats")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--json", "as_json", is_flag=True, help="Print llnoalias.stats/1 JSON instead of tables.")
@click.option("--mcpu", "-mcpu", "mcpu", default=None, metavar="CPU",
              help="Target CPU for .ll input (default: the module's, or the one its intrinsics need).")
@click.option("--llc", "llc", default=None, metavar="PATH", help="Compile .ll input with this llc instead of llvmlite.")
@click.option("--triple", "-mtriple", "triple", default=None, metavar="TRIPLE",
              help="Target triple for .ll input (default: the module's, or the one its kernels imply).")
@click.option("-v", "--verbose", is_flag=True, help="Also say which rewrites of the version bridge each .ll needed.")
@codegen_option
@annotate_options
@report_options
def stats_command(files: tuple[str, ...], as_json: bool, mcpu: str | None, llc: str | None, triple: str | None,
                  verbose: bool, codegen: str = CODEGEN.default, report_path: str | None = REPORT.default, werror: bool = WERROR.default,
                  quiet: bool = QUIET.default, **kwargs: Any) -> None:
    """Count waits, LDS-DMA instructions and PTX loads per function and in total.

    FILE is AMDGPU assembly, an 'llvm-objdump -d' listing, PTX, or LLVM IR ('.ll',
    compiled first). One file gives a table; two files a side-by-side diff; one '.ll'
    file is compiled as-is and after llnoalias and shown side by side.
    """
    from ..diagnostics import set_policy
    from .run import fail_on_promoted

    options = options_from_kwargs(kwargs)
    set_policy(quiet=quiet, werror=werror)
    try:
        target = _Target(mcpu, llc, triple, verbose, codegen=codegen, report_path=report_path)
        results = _stats_inputs(files, options, target)
        if report_path and not target.reported:
            raise LLNoaliasError("--report writes what annotating one '.ll' input found; stats annotates only "
                                 "a single '.ll' FILE")
        fail_on_promoted(", ".join(display_name(f) for f in files))
        diff_result = asmstats.diff(results[0], results[1]) if len(results) == 2 else None
    except LLNoaliasError as exc:
        _fail(exc)
    if as_json:
        click.echo(asmstats.to_json(results, diff_result), nl=False)
        return
    console = _console()
    max_width = 200 if console.width >= _UNBOUNDED else console.width
    if diff_result is not None:
        console.print(Text(f"{diff_result.a.label} vs {diff_result.b.label}", style="bold"))
        print_table(console, _diff_table(diff_result))
    else:
        for stats in results:
            console.print(Text(f"{stats.label} ({stats.kind})", style="bold"))
            print_table(console, _file_table(stats, max_width))


def _stats_inputs(files: Sequence[str], options: AnnotateOptions, target: _Target) -> list[FileStats]:
    if list(files).count("-") > 1:
        raise LLNoaliasError("'-' (stdin) can be given only once")
    results: list[FileStats] = []
    from .run import fail_on_promoted, warn_if_empty

    for path in files:
        text = read_input(path)
        warn_if_empty(text, display_name(path))
        fail_on_promoted(display_name(path))
        _check_not_binary(path, text)
        if looks_like_llvm_ir(path, text):
            if len(files) == 1:
                plain = _compile(text, path, target)
                annotated = _compile(_annotate(text, path, options, target.report_path), path, target)
                target.reported = target.report_path is not None
                results.append(_collect_text(path, plain, "input"))
                results.append(_collect_text(path, annotated, "llnoalias"))
                continue
            text = _compile(text, path, target)
        results.append(_collect_text(path, text))
    return results


# --------------------------------------------------------------------------- gate


@click.command("gate")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--baseline", required=True, metavar="BASE.json", help="The baseline (llnoalias.stats/1 JSON).")
@click.option("--tolerance", default="0", show_default=True, metavar="N|N%",
              help="Allowed growth per counter: a count, or a percentage of the baseline.")
@click.option("--update", is_flag=True, help="Write the current counts as the baseline and exit 0.")
@click.option("--counter", "counters", multiple=True, metavar="NAME",
              help="Gate only these counters (repeatable; an unknown name is an error). Default: every "
                   "wait counter, the spills and scratch (vgpr_spill, sgpr_spill, scratch, local, spill_stores, "
                   "spill_loads), and PTX ld.global, st.global, ld.local, st.local; vgpr, agpr, sgpr, reg, "
                   "occupancy, lds_dma, ld.global.nc, ld.shared, st.shared and cp.async only report.")
@click.option("--all", "show_all", is_flag=True, help="List unchanged counters too.")
@click.option("--json", "as_json", is_flag=True, help="Print llnoalias.gate/1 JSON instead of a table.")
@click.option("--allow-missing", is_flag=True,
              help="Pass although files of the baseline are not among the inputs (pre-commit gives the "
                   "changed ones). A function gone from a file given fails the gate still.")
def gate_command(files: tuple[str, ...], baseline: str, tolerance: str, update: bool,
                 counters: tuple[str, ...], show_all: bool, as_json: bool, allow_missing: bool = False) -> None:
    """Fail (exit 1) when a counter grew past the baseline; exit 0 otherwise.

    FILE is AMDGPU assembly, an 'llvm-objdump -d' listing or PTX (compile '.ll' first
    with 'llnoalias compile'). With --update the baseline is (re)written instead.
    """
    try:
        tol = gate.Tolerance.parse(tolerance)
        if list(files).count("-") > 1:
            raise LLNoaliasError("'-' (stdin) can be given only once")
        current: list[FileStats] = []
        for path in files:
            text = read_input(path)
            if not text.strip():
                raise LLNoaliasError(f"'{display_name(path)}' is empty (did the step that writes it fail?)")
            _check_not_binary(path, text)
            if looks_like_llvm_ir(path, text):
                raise LLNoaliasError(
                    f"'{display_name(path)}' is LLVM IR; gate reads assembly or PTX "
                    f"(run 'llnoalias compile {display_name(path)} -o OUT.s' first)"
                )
            current.append(_collect_text(path, text))
        old: list[FileStats] = []
        if update:
            try:
                old = gate.load_baseline(baseline)
            except LLNoaliasError:
                old = []  # a missing or unreadable baseline is simply replaced
        else:
            old = gate.load_baseline(baseline)
        selected = tuple(counters) if counters else None
        result = gate.compare(old, current, tol, selected, baseline_path=baseline, allow_missing=allow_missing)
        if selected is not None:
            present = {r.counter for r in result.rows}
            gate.check_counters(selected, present)
            for name in selected:
                if name not in present:
                    warn(f"--counter '{name}' does not occur in the inputs or the baseline")
        if update:
            gate.update_baseline(baseline, current)
            result.updated = True
    except LLNoaliasError as exc:
        _fail(exc)

    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        console = _console()
        rows = result.rows if show_all else result.moved()
        if rows and (old or not update):
            console.print(Text(f"gate against {baseline} (tolerance {result.tolerance})", style="bold"))
            print_table(console, _gate_table(result, rows))
        for path in result.missing_files:
            note(f"'{path}' is in the baseline but was not given"
                 + ("; the new baseline leaves it out" if update else ""))
        if update:
            kernels = sum(len(s.kernels) for s in current)
            console.print(f"gate: wrote baseline '{baseline}' ({len(current)} file(s), {kernels} function(s))")
        elif result.passed:
            moved = len(result.moved())
            console.print(f"gate: ok, nothing grew past the baseline ({moved} counter(s) moved)")
        else:
            n = len(result.failures)
            why = [f"{n} counter(s) grew past the baseline"] if n else []
            if result.vanished:
                why.append(f"{len(result.vanished)} function(s) of the baseline are gone (--update adopts that)")
            if result.missing_files and not result.allow_missing:
                why.append(f"{len(result.missing_files)} file(s) of the baseline not given (--allow-missing "
                           "passes)")
            console.print(Text(f"gate: FAILED, {'; '.join(why)}", style="bold red"))
    if update or result.passed:
        sys.exit(0)
    sys.exit(1)
