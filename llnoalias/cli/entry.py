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
from ..options import ARGS_MODES, GC_YOUNG_THRESHOLD, LDS_MODES, AnnotateOptions, parse_may_alias
from ..plain import Record

#: flags: option -> (field, value)
_FLAGS = {"--no-verify": ("no_verify", True), "--stats": ("show_stats", True),
          "--regions": ("regions", True), "--no-regions": ("regions", False),
          "-q": ("quiet", True), "--quiet": ("quiet", True),
          "-Werror": ("werror", True), "--warnings-as-errors": ("werror", True)}
#: options with a value: option -> field
_VALUED = {"-o": "output", "--output": "output", "--lds": "lds", "--args": "args",
           "--report": "report_path", "--remarks": "remarks_path", "--may-alias": "may_alias",
           "-j": "jobs", "--jobs": "jobs"}
#: the subcommands of :mod:`.main` (an input of that name goes to click; a test holds this
#: list equal to the click group's, so a command added there must be added here)
_COMMANDS = ("annotate", "check", "compile", "explain", "stats", "gate")


class FastRun(Record):
    """One plain ``llnoalias IN [-o OUT] [options]`` command line (a plain class: a
    dataclass costs about 1 ms at every start)."""

    _FIELDS = ("path", "output", "no_verify", "show_stats", "regions", "lds", "args", "report_path",
               "remarks_path", "may_alias", "jobs", "quiet", "werror")

    def __init__(self, path: str = "-", output: str | None = None, no_verify: bool = False,
                 show_stats: bool = False, regions: bool = True, lds: str = "dynamic", args: str = "auto",
                 report_path: str | None = None, remarks_path: str | None = None,
                 may_alias: list[str] | None = None, jobs: int = 0, quiet: bool = False,
                 werror: bool = False) -> None:
        self.path = path
        self.output = output
        self.no_verify = no_verify
        self.show_stats = show_stats
        self.regions = regions
        self.lds = lds
        self.args = args
        self.report_path = report_path
        self.remarks_path = remarks_path
        self.may_alias: list[str] = [] if may_alias is None else may_alias
        #: processes for a large input's functions (0: one per CPU)
        self.jobs = jobs
        self.quiet = quiet
        self.werror = werror


    def options(self) -> AnnotateOptions:
        return AnnotateOptions(lds=self.lds, args=self.args, may_alias=parse_may_alias(self.may_alias),
                               regions=self.regions)

    def run(self) -> None:
        from .run import annotate_file

        annotate_file(self.path, self.output, self.options(), verify=not self.no_verify,
                      show_stats=self.show_stats, report_path=self.report_path,
                      remarks_path=self.remarks_path, jobs=self.jobs, quiet=self.quiet, werror=self.werror)


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
            name = _VALUED[arg]
            if value.startswith("-") and value != "-":
                return None
            if name == "may_alias":
                run.may_alias.append(value)
            elif name == "jobs":
                if not (value.isascii() and value.isdigit()) or name in seen:
                    return None  # click says what is wrong with it
                seen.add(name)
                run.jobs = int(value)
            elif name in seen:
                return None
            else:
                seen.add(name)
                setattr(run, name, value)
        elif arg == "-" or not arg.startswith("-"):
            inputs.append(arg)
        else:
            return None
        i += 1
    if len(inputs) > 1 or any(a in _COMMANDS for a in inputs) or (argv and argv[0] in _COMMANDS):
        return None
    if run.lds not in LDS_MODES or run.args not in ARGS_MODES:
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
    if not os.environ.get("LLNOALIAS_NO_FAST_CLI"):
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
    (SPEC section 6), and nothing more written to stdout at exit."""
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
