"""One input file through the library: read it, annotate it, check the output with
llvmlite's LLVM. Shared by the single-file command, ``-j`` batches and ``explain``."""

from __future__ import annotations

import sys

from .. import api
from ..diagnostics import LLNoaliasError, note
from ..fileio import display_name, read_input
from ..ir.source import BOM
from ..options import AnnotateOptions
from ..transform.pipeline import AnnotateResult


def verify_output(source_text: str, output_text: str, path: str, timeout: float = 120.0) -> None:
    """Check the output with llvmlite's LLVM in a child process (SPEC section 6)."""
    from ..backends.llvmlite_backend import check_module

    strip = source_text.startswith(BOM)
    res = check_module(source_text[1:] if strip else source_text,
                       output_text[1:] if output_text.startswith(BOM) else output_text, timeout=timeout)
    if res.regression:
        raise LLNoaliasError(
            f"{path}: the annotated module does not verify with llvmlite's LLVM although the input does "
            f"(this is a bug in llnoalias; use --no-verify to write it anyway): {res.message}")
    if not res.verified:
        note(f"{path}: the output was not verified: {res.reason()}")


def run_annotate(input_path: str, options: AnnotateOptions, verify: bool = True,
                 want_report: bool = True) -> tuple[str, AnnotateResult]:
    text = read_input(input_path)
    name = display_name(input_path)
    result = api.annotate(text, path=name, options=options, report=want_report)
    if verify and result.changed:
        verify_output(text, result.text, name)
    return text, result


def annotate_file(path: str, output: str | None, options: AnnotateOptions, *, verify: bool = True,
                  show_stats: bool = False, report_path: str | None = None,
                  remarks_path: str | None = None) -> None:
    """``llnoalias IN [-o OUT]``: one input, its output, report and remarks; exits on bad input.

    Shared by the click command and the fast path of :mod:`.entry` (which parses the
    plain command lines without importing click)."""
    import json

    from ..fileio import write_atomic, write_output

    try:
        want_report = bool(show_stats or report_path or remarks_path)
        _, result = run_annotate(path, options, verify=verify, want_report=want_report)
        if report_path:
            write_atomic(report_path, json.dumps(result.report.to_json(), indent=2) + "\n")
        if remarks_path:
            from ..report.remarks import remarks_yaml

            write_atomic(remarks_path, remarks_yaml(result.report, result.module))
        write_output(output or "-", result.chunks())
    except LLNoaliasError as exc:
        sys.stderr.write(exc.format())
        sys.exit(exc.exit_code)
    if show_stats:
        from .render import print_stats

        print_stats(result.report)
