"""One input file through the library: read it, annotate it, check the output with
llvmlite's LLVM. Shared by the single-file command, ``-j`` batches and ``explain``."""

from __future__ import annotations

import gc
import sys

from ..diagnostics import POLICY, LLNoaliasError, note
from ..fileio import display_name, read_input
from ..ir.source import BOM
from ..options import (
    CODEGEN,
    JOBS_ONE_INPUT,
    NO_CHECK,
    QUIET,
    REMARKS,
    REPORT,
    STATS,
    WERROR,
    AnnotateOptions,
)

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..backends.llvmlite_backend import CheckResult
    from ..transform.pipeline import AnnotateResult
    from ..transform.stages import StageLog


def _strip_bom(text: str) -> str:
    return text[1:] if text.startswith(BOM) else text


#: how the hint about sized (static) LDS globals ends (``transform.roots.missed_roots``)
STATIC_HINT_ENDS = ("--lds all makes it one", "--lds all makes them roots")


def note_missed(result: AnnotateResult, name: str, repaired: bool = False) -> None:
    """When a run changed nothing but a flag would have given it roots (pointer arguments
    not ``noalias``, static LDS): say so on stderr, in one note. Only then: a run that
    tagged something used the defaults it was given, and a note on every such run of a
    build would be noise (``--stats`` lists every argument and global left out), but for
    static LDS globals left out, said after a run that tagged something too.
    ``repaired``: ``--repair`` changed the input before the run (which then did change it)."""
    if not result.report.hints:
        return
    if result.changed:
        # the one hint still worth a run that tagged something: static tiles left out, whose
        # accesses stay unsure against everything else (``--stats`` lists the rest)
        for hint in result.report.hints:
            if hint.endswith(STATIC_HINT_ENDS):
                note(f"{name}: {hint}")
        return
    said = "the repair aside, llnoalias tagged nothing" if repaired else "nothing was changed"
    note(f"{name}: {said}; {'; and '.join(result.report.hints)}")


def warn_if_empty(text: str, name: str) -> None:
    """Empty input (a failed ``clang`` earlier in a pipe) is an empty module to LLVM, so no
    error; but it is said, and ``-Werror`` makes it fatal. A module of comments is not empty."""
    if not text.strip(" \t\r\n\ufeff"):
        from ..diagnostics import warn

        warn(f"{name} is empty")


def named(exc: LLNoaliasError, name: str) -> LLNoaliasError:
    """An error about the module that does not say which input it is about (the target's:
    "names no CPU", "not a GPU target"), with the input's name in front."""
    from ..backends import ExternalToolError

    if exc.location is not None or isinstance(exc, ExternalToolError) or name in exc.message:
        return exc
    return LLNoaliasError(f"{name}: {exc.message}", None, exc.exit_code, exc.notes)


def fail_on_promoted(name: str) -> None:
    """``-Werror``: the error that ends a run once its warnings, made errors, are out."""
    if POLICY.werror and POLICY.promoted:
        n = POLICY.promoted
        raise LLNoaliasError(f"{name}: {n} warning{'s' if n > 1 else ''} treated as "
                             f"error{'s' if n > 1 else ''} (--warnings-as-errors); nothing was written")


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


#: warnings of one kind (the same message but for its lines, numbers and quoted code) shown
#: per input; the rest are counted in one line (a module of thousands of kernels of one
#: template would otherwise repeat one warning thousands of times)
MAX_ALIKE = 5


def _kind(message: str) -> str:
    import re

    return re.sub(r"`[^`]*`|'[^']*'|[@%][-\w.$]+|\d+", "#", message)


def print_warnings(text: str, name: str, warnings: list[tuple[int, int, str]]) -> None:
    """The run's warnings about the input, as ``FILE:LINE:COL: warning:`` with the line, each
    whole on one line (design section 8); past :data:`MAX_ALIKE` of one kind, one line
    counts the others (``-Werror`` counts each of them)."""
    if not warnings:
        return
    from ..diagnostics import Location, warn

    lines = text.splitlines()
    seen: dict[str, int] = {}
    for line, col, message in warnings:
        kind = _kind(message)
        seen[kind] = seen.get(kind, 0) + 1
        if seen[kind] > MAX_ALIKE:
            continue
        src = lines[line - 1] if 0 < line <= len(lines) else ""
        warn(message, Location(name, line, col, src))
    hidden = sum(n - MAX_ALIKE for n in seen.values() if n > MAX_ALIKE)
    if hidden:
        warn(f"{name}: and {hidden} more warning{'s' if hidden > 1 else ''} like it (--report FILE lists them all)")
        POLICY.promoted += hidden - 1 if POLICY.werror else 0


def _unverifiable(text: str, name: str) -> bool:
    """Does the module call an operation llvmlite's LLVM 22 rejects and the bridge cannot
    respell (gfx1250's tensor operations)? Then it is annotated unverified, with a note: LLVM 22
    would call a module LLVM 24 reads broken."""
    from ..analysis.memory.intrinsics import newer_than_llvm22

    got = newer_than_llvm22(text, tensor_only=True)
    if got is None:
        return False
    op, line, _ = got
    note(f"{name}: not verified: it calls {op} (line {line}), which llvmlite's LLVM (22) does not know "
         "(`llnoalias check --codegen triton` compiles it with Triton's LLVM)")
    return True


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
        warn_if_empty(text, display_name(input_path))
        if prepare is not None:  # --repair: the input as repaired is the input from here on
            text = prepare(text)
        name = display_name(input_path)
        if pending is not None and _unverifiable(text, name):
            pending.cancel()
            pending = None
        if pending is not None:
            pending.send_input(_strip_bom(text))
        result = api.annotate(text, path=name, options=options, report=want_report, jobs=jobs, stages=stages,
                              release=release)
        if stages is not None:
            sys.stderr.write(stages.text())
        print_warnings(text, name, result.report.warnings)
        fail_on_promoted(name)
        if pending is not None:
            # the input's verdict whether or not anything changed: input LLVM rejects is an error
            verdict = (pending.finish(_strip_bom(result.text), written=result.written()) if result.changed
                       else pending.finish_input())
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


def may_lose_waits(text: str) -> bool:
    """Does the module call an LDS-DMA (a cheap search; ``check.checker.has_lds_dma``, which the
    annotate path does not import): only then can claims cost a wait, and only then does the
    annotate path compile to check its output."""
    from ..analysis.memory.intrinsics import LDS_DMA_TEXT

    return LDS_DMA_TEXT.search(text) is not None


def checked_text(original: str, result: AnnotateResult, name: str, checking: tuple[bool, str | None, str]
                  ) -> str | None:
    """The annotate path's own check (``--no-check`` turns it off): the text to write instead of
    the annotated one, or None to write it as it is. (``checking``: ``(on, mcpu, codegen)``;
    the batch of several inputs, ``cli/batch.py``, does not call it yet.)"""
    from .best import keep_never_worse

    _, mcpu, codegen = checking
    chosen = keep_never_worse(result.text, original, name, mcpu=mcpu, codegen=codegen)
    return None if chosen == result.text else chosen


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
                  stop_after: str | None = None, check: bool = not NO_CHECK.default, mcpu: str | None = None,
                  codegen: str = CODEGEN.default) -> AnnotateResult | None:
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
    that one alone and print its result on stdout (``--stop-after``); nothing else is written.
    ``check``: an AMDGPU module with an LDS-DMA is compiled before and after to keep, per
    function, the input's lines where the claims add a race, spills or ``vmcnt`` waits
    (:func:`.best.keep_never_worse`; ``--no-check`` turns it off), for ``mcpu`` with ``codegen``."""
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
                              print_after, compiled, (check, mcpu, codegen))
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
                   compiled: tuple[str | None, str, bool, bool] | None,
                   checking: tuple[bool, str | None, str] = (True, None, CODEGEN.default)) -> AnnotateResult:
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
        changed: list[bool] = []  # whether --repair changed the input
        if compiled is not None and compiled[3]:
            from .best import repair_input

            def prepare(text: str) -> str:
                repaired = repair_input(text, name=display_name(path), mcpu=compiled[0], triple=None, llc=None,
                                        codegen=compiled[1])
                changed.append(repaired != text)
                return repaired
        # (not ``release``: the caller ends the process next, ``annotate_file``)
        original, result = run_annotate(path, options, verify=verify, want_report=want_report, jobs=jobs,
                                        stages=stages, prepare=prepare, release=False)
        if report_path:
            write_output(report_path, result.report.to_json() + "\n")
        if remarks_path:
            from ..report.remarks import remarks_yaml

            write_output(remarks_path, remarks_yaml(result.report, result.module))
        data = result.encoded()
        chosen = None
        if compiled is not None and compiled[2]:  # --best: its own line per function
            chosen = _compiled_choices(original, result, display_name(path), compiled)
        elif checking[0] and result.changed and may_lose_waits(original):
            chosen = checked_text(original, result, display_name(path), checking)
            fail_on_promoted(display_name(path))  # the check's own warnings
        if chosen is not None:
            data = chosen.encode("utf-8", "surrogateescape")
        write_output(output or "-", data if data is not None else result.chunks())
        note_missed(result, display_name(path), repaired=any(changed))
    except LLNoaliasError as exc:
        sys.stderr.write(exc.format())
        sys.exit(exc.exit_code)
    if show_stats:
        from .render import print_stats

        print_stats(result.report)
    return result
