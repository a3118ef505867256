"""The console-script entry, and a fast path for the plain command line.

Most runs are ``llnoalias IN -o OUT`` (with a few annotation options), often in a
pipeline, once per kernel. Importing click costs about as much as annotating a small
kernel, so :func:`main` reads such a command line itself and hands everything else
(subcommands, ``--help``, several inputs, ``--out-dir``, anything unusual or wrong) to click in
:mod:`.main`, which gives the usual help and error messages. The fast path takes only
command lines click reads the same way; it never reports an error of its own.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys

from ..diagnostics import EXIT_BAD_INPUT, LLNoaliasError
from ..options import (
    ANNOTATE,
    GC_YOUNG_THRESHOLD,
    JOBS_ONE_INPUT,
    PLAIN_RUN,
    AnnotateOptions,
    parse_may_alias,
)
from ..plain import Record

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from typing import Any

    from ..transform.pipeline import AnnotateResult

#: flags: spelling -> (field, value) (``--regions``/``--no-regions`` both set one field)
_FLAGS = {**{f: (o.name, True) for o in PLAIN_RUN if o.kind in ("flag", "switch") for f in o.flags},
          **{f: (o.name, False) for o in PLAIN_RUN for f in o.off}}
#: options with a value: spelling -> the option
_VALUED = {f: o for o in PLAIN_RUN if o.kind in ("value", "choice", "count", "many") for f in o.flags}
#: the subcommands of :mod:`.main` (an input of that name goes to click; a test holds this
#: list equal to the click group's, so a command added there must be added here)
_COMMANDS = ("annotate", "check", "compile", "explain", "stats", "gate")


class FastRun(Record):
    """One plain ``llnoalias IN [-o OUT] [options]`` command line: the input's ``path`` and
    a field per option of ``options.PLAIN_RUN``, its default unless given (a plain class: a
    dataclass costs about 1 ms at every start)."""

    _FIELDS = ("path", *(o.name for o in PLAIN_RUN))
    output: str | None
    jobs: int | None  # processes for a large input's functions (None: JOBS_ONE_INPUT)
    lds: str
    args: str
    may_alias: list[str]
    regions: bool
    show_stats: bool
    report_path: str | None
    remarks_path: str | None
    no_verify: bool
    no_check: bool
    werror: bool
    quiet: bool
    #: the run's result, once ``run`` is done
    result: AnnotateResult | None

    def __init__(self, path: str = "-", **given: Any) -> None:
        self.path = path
        for o in PLAIN_RUN:
            value = given.pop(o.name, o.default)
            setattr(self, o.name, list(value) if o.kind == "many" else value)
        if given:
            raise TypeError(f"FastRun has no field {sorted(given)[0]!r}")

    def options(self) -> AnnotateOptions:
        return AnnotateOptions(**{o.name: getattr(self, o.name) for o in ANNOTATE})

    def run(self) -> None:
        from .run import annotate_file

        # (the result is kept until the process ends: ``main`` ends a plain run with
        # ``os._exit``, and freeing the module first would only cost time)
        self.result = annotate_file(
            self.path, self.output, self.options(), verify=not self.no_verify, show_stats=self.show_stats,
            report_path=self.report_path, remarks_path=self.remarks_path,
            jobs=JOBS_ONE_INPUT if self.jobs is None else self.jobs, quiet=self.quiet, werror=self.werror,
            check=not self.no_check)


def parse_fast(argv: list[str], stdin_is_pipe: bool) -> FastRun | None:
    """The run ``argv`` asks for when it is a plain single-file annotation that click would
    read the same way; ``None`` for anything else."""
    if not argv and not stdin_is_pipe:
        return None  # click prints the help
    run = FastRun()
    seen: set[str] = set()
    inputs: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in _FLAGS:
            name, flag = _FLAGS[arg]
            if name in seen:
                return None
            seen.add(name)
            setattr(run, name, flag)
        elif arg in _VALUED or (arg.startswith("--") and arg.split("=", 1)[0] in _VALUED):
            if "=" in arg:
                arg, value = arg.split("=", 1)
            elif i + 1 < len(argv):
                value = argv[i + 1]
                i += 1
            else:
                return None
            opt = _VALUED[arg]
            if value.startswith("-") and value != "-":
                return None
            if opt.kind == "many":
                getattr(run, opt.name).append(value)
            elif opt.name in seen:
                return None
            elif opt.kind == "count" and not (value.isascii() and value.isdigit()):
                return None  # click says what is wrong with it
            elif opt.kind == "choice" and value not in opt.choices:
                return None
            else:
                seen.add(opt.name)
                setattr(run, opt.name, int(value) if opt.kind == "count" else value)
        elif arg == "-" or not arg.startswith("-"):
            inputs.append(arg)
        else:
            return None
        i += 1
    if len(inputs) > 1 or any(a in _COMMANDS for a in inputs) or (argv and argv[0] in _COMMANDS):
        return None
    try:
        parse_may_alias(run.may_alias)
    except ValueError:
        return None
    if inputs:
        word = inputs[0]
        if word != "-" and not any(c in word for c in "./\\") and not os.path.exists(word):
            return None  # no such file, maybe a misspelled subcommand: click says which
        run.path = inputs[0]
    return run


#: the variable click's shell completion reads (``_{PROG}_COMPLETE``)
COMPLETE_VAR = "_LLNOALIAS_COMPLETE"


def main(argv: list[str] | None = None) -> None:
    """Console-script entry: quiet on a closed pipe and on Ctrl-C.

    A closed stdout ends the run quietly (status 0), Ctrl-C with status 130 (no output
    file is left half-written: every file is written to a temporary and renamed).
    """
    # A run makes millions of small objects that live until the module is written, and
    # the collector's default (a young collection every 700 allocations, each promoting
    # survivors) spends 15-20% of a large run rescanning them, more as the module grows.
    # They hold no cycles that would wait for a collection, so collecting less often
    # costs no memory (scripts/bench_memory.py: the same peak RSS).
    gc.set_threshold(GC_YOUNG_THRESHOLD, 50, 100)
    from ..fileio import StdoutClosed

    if sys.stdout is None:  # started with stdout closed (>&-): a write to it fails as one
        _closed_stdout()
    args = sys.argv[1:] if argv is None else list(argv)
    fast = None
    # (click's shell completion, ``_LLNOALIAS_COMPLETE=bash_source llnoalias``: click's to answer)
    if not os.environ.get("LLNOALIAS_NO_FAST_CLI") and COMPLETE_VAR not in os.environ:
        fast = parse_fast(args, stdin_is_pipe=sys.stdin is not None and not sys.stdin.isatty())
    try:
        try:
            if fast is None:
                from .main import run_click

                run_click(argv)
            else:
                fast.run()
                if argv is None:
                    _exit_now()
                sys.exit(0)
        except SystemExit as done:
            try:
                sys.stdout.flush()  # what is still buffered (a table, the help) fails here, not at exit
            except BrokenPipeError:
                _silence_stdout()  # the reader is gone; the status stays the run's (a failed gate's 1)
            except OSError:
                if done.code != EXIT_BAD_INPUT:
                    raise
                _silence_stdout()  # the run failed and said so already
            raise
    except (BrokenPipeError, StdoutClosed):
        _silence_stdout()
        sys.exit(0)
    except KeyboardInterrupt:
        _interrupted()
    except OSError as exc:  # stdout on a full disk (> /dev/full) or closed (>&-)
        _io_failed(exc)
    except LLNoaliasError as exc:  # (a command's own error it did not catch: one line too)
        _silence_stdout()
        sys.stderr.write(exc.format())
        sys.exit(exc.exit_code)


def _closed_stdout() -> None:
    import io

    from ..fileio import ClosedStream

    sys.stdout = io.TextIOWrapper(io.BufferedWriter(ClosedStream()), encoding="utf-8")


def _io_failed(exc: OSError) -> None:
    """A write to stdout that failed other than by a closed pipe: one error line, exit 2
    (design section 6), and nothing more written to stdout at exit."""
    from ..fileio import stdout_failure

    _silence_stdout()
    message = f"'{exc.filename}': {exc.strerror or exc}" if exc.filename else stdout_failure(exc)
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.write(f"llnoalias: error: {message}\n")
        sys.stderr.flush()
    sys.exit(EXIT_BAD_INPUT)


def _interrupted() -> None:
    with contextlib.suppress(OSError):
        sys.stderr.write("llnoalias: interrupted\n")
        sys.stderr.flush()
    sys.exit(130)


def _exit_now() -> None:
    """End a successful plain run (the console script's, ``argv`` None) without the
    interpreter's teardown: freeing every module and object costs about 8 ms, a tenth of a
    one-kernel run. What the teardown would have done that matters is done first: the
    regex cache is saved (:func:`..ir.lazyre.save_pending`), stdout and stderr flushed (a
    closed stdout still ends quietly). Nothing else on the fast path registers exit work:
    it starts no threads, and the checking child has been waited for."""
    from ..ir.lazyre import save_pending

    save_pending()
    code = 0
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    except OSError as exc:
        try:
            _io_failed(exc)
        except SystemExit as done:
            code = int(done.code or 0)
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(code)


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # (a stdout that was closed has no descriptor)
        closed, sys.stdout = sys.stdout, open(os.devnull, "w")  # noqa: SIM115 - stdout until the process ends
        with contextlib.suppress(OSError, ValueError, AttributeError):
            closed.close()  # (what it still buffers is dropped here, not reported at exit)


__all__ = ["FastRun", "main", "parse_fast"]
