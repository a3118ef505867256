"""One input file through the library: read it, annotate it, check the output with
llvmlite's LLVM. Shared by the single-file command, ``-j`` batches and ``explain``."""

from __future__ import annotations

import gc
import sys

from ..diagnostics import POLICY, LLNoaliasError, note
from ..fileio import display_name, read_input
from ..ir.source import BOM
from ..options import JOBS_ONE_INPUT, QUIET, REMARKS, REPORT, STATS, WERROR, AnnotateOptions

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..backends.llvmlite_backend import CheckResult
    from ..transform.pipeline import AnnotateResult
    from ..transform.stages import StageLog


def _strip_bom(text: str) -> str:
    return text[1:] if text.startswith(BOM) else text


def note_missed(result: AnnotateResult, name: str) -> None:
    """When a run changed nothing but a flag would have given it roots (pointer arguments
    not ``noalias``, static LDS): say so on stderr, once per hint. Only then: a run that
    tagged something used the defaults it was given, and a note on every such run of a
    build would be noise (``--stats`` lists every argument and global left out)."""
    if result.changed:
        return
    for hint in result.report.hints:
        note(f"{name}: nothing was changed; {hint}")


def check_verdict(res: CheckResult, path: str, text: str | None = None, bridged: str | None = None,
                  output: bool = True) -> None:
    """What the CLI makes of llvmlite's verdict on the input ``text`` (when given) and the
    output (``output``: one was checked) (design section 6). ``bridged``: the copy of the
    input the child read, where the bridge changed it."""
    if text is not None and res.input_rejected:
        from ..backends.input_error import input_error, newer_rules

        rules = newer_rules(res)
        if rules is None:
            raise input_error(res, text, path, bridged)
        # what LLVM 19 reads and only LLVM 22's verifier rejects: one note, and on
        note(f"{path}: the input and output were not verified: llvmlite's LLVM (22) rejects what LLVM 19 "
             f"reads ({', '.join(rules)}: docs/bridge.md)")
        return
    if output and res.regression:
        raise LLNoaliasError(
            f"{path}: the annotated module does not verify with llvmlite's LLVM although the input does "
            f"(this is a bug in llnoalias; use --no-verify to write it anyway): {res.message}")
    if not res.verified:
        note(f"{path}: the output was not verified: {res.reason()}")


def verify_output(source_text: str, output_text: str, path: str, timeout: float = 120.0) -> None:
    """Check the output with llvmlite's LLVM in a child process (design section 6)."""
    from ..backends.llvmlite_backend import check_module

    check_verdict(check_module(_strip_bom(source_text), _strip_bom(output_text), timeout=timeout), path,
                  _strip_bom(source_text))


def print_warnings(text: str, name: str, warnings: list[tuple[int, int, str]]) -> None:
    """The run's warnings about the input, as ``FILE:LINE:COL: warning:`` with the line."""
    if not warnings:
        return
    from ..diagnostics import Location, split_message, warn

    lines = text.splitlines()
    for line, col, message in warnings:
        src = lines[line - 1] if 0 < line <= len(lines) else ""
        head, rest = split_message(message)  # one line, and the rest as notes (design section 8)
        warn(head, Location(name, line, col, src))
        for more in rest:
            note(more)


def run_annotate(input_path: str, options: AnnotateOptions, verify: bool = True,
                 want_report: bool = True, jobs: int = 1,
                 stages: StageLog | None = None,
                 prepare: Callable[[str], str] | None = None, release: bool = True) -> tuple[str, AnnotateResult]:
    """Read, annotate and (with ``verify``) check one input.

    The checking child starts before anything else: loading llvmlite's LLVM takes it
    about as long as annotating takes here, and it reads and verifies the input while
    the parent annotates, so that only the output's check is left to wait for. With
    ``stages``, what the stages concluded is printed on stderr once the run is done
    (before the output's check). ``release``: ``api.annotate``'s (False where the process
    ends once the output is written)."""
    pending = None
    if verify:
        from ..backends.pending_check import PendingCheck

        pending = PendingCheck.start()
    try:
        from .. import api  # after the child started: it loads llvmlite while this loads llnoalias

        text = read_input(input_path)
        if prepare is not None:  # --repair: the input as repaired is the input from here on
            text = prepare(text)
        if pending is not None:
            pending.send_input(_strip_bom(text))
        name = display_name(input_path)
        result = api.annotate(text, path=name, options=options, report=want_report, jobs=jobs, stages=stages,
                              release=release)
        if stages is not None:
            sys.stderr.write(stages.text())
        print_warnings(text, name, result.report.warnings)
        if POLICY.werror and POLICY.promoted:
            n = POLICY.promoted
            raise LLNoaliasError(f"{name}: {n} warning{'s' if n > 1 else ''} treated as "
                                 f"error{'s' if n > 1 else ''} (--warnings-as-errors); nothing was written")
        if pending is not None:
            # the input's verdict whether or not anything changed: input LLVM rejects is an error
            verdict = pending.finish(_strip_bom(result.text)) if result.changed else pending.finish_input()
            check_verdict(verdict, name, _strip_bom(text) if pending.bridge_active else None, pending.bridged_input,
                          output=result.changed)
    finally:
        if pending is not None and pending.proc is not None:
            pending.cancel()
    return text, result


def _check_one_stdout(output: str | None, report_path: str | None, remarks_path: str | None) -> None:
    """``-`` is stdout for ``-o``, ``--report`` and ``--remarks``; only one of them may take it
    (the module's default is stdout), or two documents would run into each other."""
    takers = [name for name, path in (("the annotated module", output or "-"), ("--report", report_path),
                                      ("--remarks", remarks_path))
              if path in ("-", "/dev/stdout")]
    if len(takers) > 1:
        hint = " (pass -o FILE, or -o /dev/null to keep only the report)" if output in (None, "-") else ""
        raise LLNoaliasError(f"{' and '.join(takers)} would both be written to stdout{hint}")


def _compiled_choices(original: str, result: AnnotateResult, name: str,
                      compiled: tuple[str | None, str, bool, bool]) -> str | None:
    """``--best`` on the annotate-only path (``--repair`` repaired ``original`` before it was
    annotated): the text to write instead of the annotated one, or None to write it as it is."""
    from .best import choose_best

    mcpu, codegen, best, _ = compiled
    annotated = result.text
    if best and annotated != original:
        annotated = choose_best(annotated, original, name, mcpu=mcpu, triple=None, llc=None, codegen=codegen)
    return None if annotated == result.text else annotated


def _stop_after(path: str, options: AnnotateOptions, stage: str) -> None:
    """``--stop-after STAGE``: the stage's result on stdout, as ``--print-after`` prints it."""
    from ..transform.pipeline import run_until

    try:
        result = run_until(read_input(path), stage, options, display_name(path))
    except LLNoaliasError as exc:
        sys.stderr.write(exc.format())
        sys.exit(exc.exit_code)
    sys.stdout.write(result.text())
    sys.stdout.flush()


def annotate_file(path: str, output: str | None, options: AnnotateOptions, *, verify: bool = True,
                  show_stats: bool = STATS.default, report_path: str | None = REPORT.default,
                  remarks_path: str | None = REMARKS.default, jobs: int = JOBS_ONE_INPUT,
                  print_after: tuple[str, ...] = (), quiet: bool = QUIET.default, werror: bool = WERROR.default,
                  compiled: tuple[str | None, str, bool, bool] | None = None,
                  stop_after: str | None = None) -> AnnotateResult | None:
    """``llnoalias IN [-o OUT]``: one input, its output, report and remarks; exits on bad input.
    Returns the run's result (None with ``stop_after``): a caller that ends the process
    next keeps it, and does not pay for freeing the module (about 0.1 s for 20,000 kernels).

    Shared by the click command and the fast path of :mod:`.entry` (which parses the
    plain command lines without importing click). ``jobs``: processes for a large input's
    functions (0: one per CPU; a small input never forks). ``print_after``: the stages
    whose conclusions are printed on stderr (``--print-after``; the run stays in one process).
    ``quiet``: no notes (``--quiet``); ``werror``: a warning fails the run, nothing written
    (``--warnings-as-errors``). ``compiled``: ``(mcpu, codegen, best, repair)`` for ``--best``
    (compile both forms, keep per function the better: ``check.best``) and ``--repair``
    (``check.repair``, before the input is annotated). ``stop_after``: run the stages up to
    that one alone and print its result on stdout (``--stop-after``); nothing else is written."""
    from ..diagnostics import set_policy

    set_policy(quiet=quiet, werror=werror)
    if stop_after is not None:
        _stop_after(path, options, stop_after)
        return None
    # The cyclic collector is off for the run (the API turns it off for a large input;
    # here for every input: the process writes one module and ends). Its objects hold no
    # cycles to wait for, and turning it back on at the end would have the next young
    # collection scan every object the run made (0.16 s for 20,000 kernels): they are
    # moved to the oldest generation first (``_collector_back``).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _annotate_file(path, output, options, verify, show_stats, report_path, remarks_path, jobs,
                              print_after, compiled)
    finally:
        if collecting:
            _collector_back()


def _collector_back() -> None:
    """Turn the cyclic collector back on without a young collection over the objects made
    while it was off: ``freeze`` then ``unfreeze`` moves them all to the oldest generation
    (two list splices), where a full collection finds them as it finds any old object.
    Objects a caller froze itself stay frozen: then the young collection is left to run."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
    gc.enable()


def _annotate_file(path: str, output: str | None, options: AnnotateOptions, verify: bool, show_stats: bool,
                   report_path: str | None, remarks_path: str | None, jobs: int, print_after: tuple[str, ...],
                   compiled: tuple[str | None, str, bool, bool] | None) -> AnnotateResult:
    """``annotate_file`` with the collector off."""
    from ..fileio import write_output

    try:
        _check_one_stdout(output, report_path, remarks_path)
        want_report = bool(show_stats or report_path or remarks_path)
        stages = None
        if print_after:
            from ..transform.stages import StageLog

            stages = StageLog(print_after)
        prepare: Callable[[str], str] | None = None
        if compiled is not None and compiled[3]:
            from functools import partial

            from .best import repair_input

            prepare = partial(repair_input, name=display_name(path), mcpu=compiled[0], triple=None, llc=None,
                              codegen=compiled[1])
        # (not ``release``: the caller ends the process next, ``annotate_file``)
        original, result = run_annotate(path, options, verify=verify, want_report=want_report, jobs=jobs,
                                        stages=stages, prepare=prepare, release=False)
        if report_path:
            write_output(report_path, result.report.to_json() + "\n")
        if remarks_path:
            from ..report.remarks import remarks_yaml

            write_output(remarks_path, remarks_yaml(result.report, result.module))
        data = result.encoded()
        if compiled is not None:
            chosen = _compiled_choices(original, result, display_name(path), compiled)
            if chosen is not None:
                data = chosen.encode("utf-8", "surrogateescape")
        write_output(output or "-", data if data is not None else result.chunks())
        note_missed(result, display_name(path))
    except LLNoaliasError as exc:
        sys.stderr.write(exc.format())
        sys.exit(exc.exit_code)
    if show_stats:
        from .render import print_stats

        print_stats(result.report)
    return result
