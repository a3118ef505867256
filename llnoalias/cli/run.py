"""One input file through the library: read it, annotate it, check the output with
llvmlite's LLVM. Shared by the single-file command, ``-j`` batches and ``explain``."""

from __future__ import annotations

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
