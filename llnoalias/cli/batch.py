"""Many files at once: ``llnoalias -j N a.ll b.ll ... --out-dir DIR``.

Each file is annotated on its own (in a worker process when ``jobs > 1``) and written
to ``DIR/<basename>`` atomically. A file that fails fails alone: its diagnostic is
printed in the usual ``llnoalias: FILE:LINE:COL: error:`` form and the run goes on; the
exit status is 2 when any file failed. A progress bar is shown when stderr is a
terminal, and a summary table (file, tagged, untagged, status) at the end.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass

from ..diagnostics import EXIT_BAD_INPUT, LLNoaliasError, format_diagnostic
from ..options import AnnotateOptions


@dataclass
class FileResult:
    path: str
    output: str
    ok: bool
    tagged: int = 0
    untagged: int = 0
    changed: bool = False
    #: the formatted diagnostic(s) when it failed
    error: str = ""
    #: notes printed while it ran (e.g. "the output was not verified")
    notes: str = ""

    @property
    def status(self) -> str:
        if not self.ok:
            return "failed"
        return "annotated" if self.changed else "unchanged"


def output_path(out_dir: str, path: str) -> str:
    return os.path.join(out_dir, os.path.basename(path))


def check_inputs(paths: list[str], out_dir: str) -> None:
    """Refuse what cannot work before any file is touched."""
    seen: dict[str, str] = {}
    for p in paths:
        if p == "-":
            raise LLNoaliasError("'-' (stdin) cannot be one of several inputs or used with --out-dir")
        base = os.path.basename(p)
        if not base:
            raise LLNoaliasError(f"'{p}' does not name a file")
        if base in seen:
            raise LLNoaliasError(f"'{seen[base]}' and '{p}' would both be written to "
                                 f"'{output_path(out_dir, p)}'")
        seen[base] = p
        if os.path.abspath(output_path(out_dir, p)) == os.path.abspath(p):
            raise LLNoaliasError(f"--out-dir would overwrite the input '{p}' (pick another directory)")
    # A missing --out-dir is created (before the first file is written into it, so that a
    # run whose every input fails leaves nothing behind); whatever it is made in must be a
    # writable directory.
    existing = os.path.abspath(out_dir)
    while not os.path.exists(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    shown = out_dir if existing == os.path.abspath(out_dir) else existing
    if not os.path.isdir(existing):
        raise LLNoaliasError(f"cannot make output directory '{out_dir}': '{shown}' is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise LLNoaliasError(f"output directory '{shown}' is not writable")


def make_out_dir(out_dir: str) -> None:
    """Create ``out_dir`` (and its parents) when missing; several workers may race."""
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        raise LLNoaliasError(f"cannot make output directory '{out_dir}': {exc.strerror or exc}") from None


_IN_WORKER = False


def _worker_init() -> None:
    """Workers ignore Ctrl-C while idle (no traceback from a worker waiting for work);
    ``process_one`` lets it through while a file is being worked on, so that a write in
    progress removes its temporary file."""
    global _IN_WORKER
    _IN_WORKER = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def process_one(path: str, out_dir: str, options: AnnotateOptions, verify: bool,
                policy: tuple[bool, bool] = (False, False)) -> FileResult:
    """Annotate one file and write it; never raises for a bad file (only for Ctrl-C)."""
    if _IN_WORKER:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            return _process_one(path, out_dir, options, verify, policy)
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    return _process_one(path, out_dir, options, verify, policy)


def _process_one(path: str, out_dir: str, options: AnnotateOptions, verify: bool,
                 policy: tuple[bool, bool] = (False, False)) -> FileResult:
    import io

    from .. import diagnostics
    from ..fileio import write_atomic
    from .run import note_missed, run_annotate

    out = output_path(out_dir, path)
    captured = io.StringIO()
    old = sys.stderr
    sys.stderr = captured  # notes from the verifier, so they do not interleave with the bar
    diagnostics.set_policy(*policy)  # --quiet, --warnings-as-errors (set anew for each file)
    try:
        text, result = run_annotate(path, options, verify=verify)
        make_out_dir(out_dir)
        write_atomic(out, result.text)
        note_missed(result, path)  # run_annotate has printed the input's warnings
        rep = result.report
        return FileResult(path, out, True, len(rep.tagged), len(rep.untagged), result.text != text,
                          notes=captured.getvalue())
    except LLNoaliasError as exc:
        return FileResult(path, out, False, error=captured.getvalue() + exc.format())
    except (Exception, RecursionError) as exc:  # a bug: this file fails, the others go on
        tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
        msg = f"{path}: internal error while annotating this file (a bug in llnoalias): {tb}"
        return FileResult(path, out, False, error=captured.getvalue() + diagnostics.format_diagnostic("error", msg))
    finally:
        sys.stderr = old


def _run_serial(paths: list[str], out_dir: str, options: AnnotateOptions, verify: bool,
                policy: tuple[bool, bool] = (False, False)) -> Iterator[FileResult]:
    for p in paths:
        yield process_one(p, out_dir, options, verify, policy)


def _run_parallel(paths: list[str], out_dir: str, options: AnnotateOptions, verify: bool,
                  jobs: int, policy: tuple[bool, bool]) -> Iterator[FileResult]:
    # spawn: no fork of a process that may run rich's refresh thread.
    ctx = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(paths)), mp_context=ctx, initializer=_worker_init)
    futures: dict[Future[FileResult], str] = {}
    try:
        for p in paths:
            futures[pool.submit(process_one, p, out_dir, options, verify, policy)] = p
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                path = futures[fut]
                try:
                    yield fut.result()
                except Exception as exc:  # the worker died (killed, out of memory)
                    msg = f"{path}: the worker process failed: {exc or type(exc).__name__}"
                    yield FileResult(path, output_path(out_dir, path), False,
                                     error=format_diagnostic("error", msg))
    except BaseException:
        # Ctrl-C (or anything else): drop the queued files, interrupt the busy workers
        # (each removes its temporary file), and wait for them before going.
        for fut in futures:
            fut.cancel()
        for proc in list(getattr(pool, "_processes", {}).values()):
            with contextlib.suppress(OSError):
                os.kill(proc.pid, signal.SIGINT)
        with contextlib.suppress(BaseException):
            pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def run_batch(paths: list[str], out_dir: str, options: AnnotateOptions, verify: bool = True, jobs: int = 1,
              progress: bool | None = None, on_result: Callable[[FileResult], None] | None = None,
              policy: tuple[bool, bool] = (False, False)) -> list[FileResult]:
    """Annotate ``paths`` into ``out_dir``; results in input order. ``policy``: (quiet,
    warnings as errors), as :func:`..diagnostics.set_policy` takes them."""
    from .render import stderr_console

    check_inputs(paths, out_dir)
    if jobs <= 0:
        from ..transform.workers import usable_cpus

        jobs = usable_cpus()  # the processors this process may run on, not the machine's
    show_bar = sys.stderr.isatty() if progress is None else progress
    console = stderr_console()
    it = (_run_parallel(paths, out_dir, options, verify, jobs, policy) if jobs > 1 and len(paths) > 1
          else _run_serial(paths, out_dir, options, verify, policy))
    results: dict[str, FileResult] = {}

    def report(res: FileResult) -> None:
        results[res.path] = res
        if res.notes:
            console.file.write(res.notes)
        if not res.ok:
            console.file.write(res.error)
        console.file.flush()
        if on_result is not None:
            on_result(res)

    if show_bar:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(),
                      MofNCompleteColumn(), TimeElapsedColumn(), console=console, transient=True) as bar:
            task = bar.add_task("annotating", total=len(paths))
            for res in it:
                results[res.path] = res
                for chunk in (res.notes, "" if res.ok else res.error):
                    if chunk:
                        bar.console.print(chunk, end="", markup=False, highlight=False, soft_wrap=True)
                if on_result is not None:
                    on_result(res)
                bar.advance(task)
    else:
        for res in it:
            report(res)
    return [results[p] for p in paths]


def print_summary(results: list[FileResult]) -> None:
    from rich.table import Table

    from .render import print_table, stderr_console

    table = Table(title="llnoalias: summary", title_justify="left")
    table.add_column("file")
    table.add_column("tagged", justify="right")
    table.add_column("untagged", justify="right")
    table.add_column("status")
    for r in results:
        style = "red" if not r.ok else ("green" if r.changed else "")
        table.add_row(r.path, str(r.tagged) if r.ok else "-", str(r.untagged) if r.ok else "-",
                      r.status, style=style)
    failed = sum(1 for r in results if not r.ok)
    table.add_row("total", str(sum(r.tagged for r in results)), str(sum(r.untagged for r in results)),
                  f"{failed} failed" if failed else "ok", style="bold")
    print_table(stderr_console(), table)


def exit_status(results: list[FileResult]) -> int:
    return EXIT_BAD_INPUT if any(not r.ok for r in results) else 0
