"""The command line: it only wires files, options and the library together.

``llnoalias IN [-o OUT]`` annotates (the default command); ``compile``, ``stats``,
``gate`` and ``explain`` are subcommands.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from . import __version__
from .cli_common import annotate_options, options_from_kwargs
from .diagnostics import LLNoaliasError, note
from .fileio import display_name, read_input, write_atomic, write_output
from .options import AnnotateOptions
from .pipeline import AnnotateResult, annotate_text
from .source import BOM

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class DefaultGroup(click.Group):
    """A group whose first argument, when it is not a subcommand, goes to ``annotate``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help", "--version"):
            args = ["annotate", *args]
        return super().parse_args(ctx, args)


@click.group(cls=DefaultGroup, context_settings=CONTEXT, invoke_without_command=False)
@click.version_option(__version__, "--version", prog_name="llnoalias")
def cli() -> None:
    """Trace GPU memory accesses in textual LLVM IR to the buffers they reach and write
    !alias.scope / !noalias metadata, so the backend can tell the buffers apart.

    \b
    llnoalias in.ll -o out.ll           annotate (the default command)
    llnoalias compile in.ll -o out.s    annotate, then generate code
    llnoalias stats a.s [b.s]           count s_waitcnt / ld.global.nc, or diff two builds
    llnoalias gate --baseline b.json out/*.s
    llnoalias explain in.ll             each access with its buffer or the reason it has none
    """


def verify_output(source_text: str, output_text: str, path: str, timeout: float = 120.0) -> None:
    """Check the output with llvmlite's LLVM in a child process (SPEC section 6)."""
    from .backends.llvmlite_backend import check_module

    strip = source_text.startswith(BOM)
    res = check_module(source_text[1:] if strip else source_text,
                       output_text[1:] if output_text.startswith(BOM) else output_text, timeout=timeout)
    if res.regression:
        raise LLNoaliasError(
            f"{path}: the annotated module does not verify with llvmlite's LLVM although the input does "
            f"(this is a bug in llnoalias; use --no-verify to write it anyway): {res.message}")
    if not res.verified:
        note(f"{path}: the output was not verified: {res.reason()}")


def run_annotate(input_path: str, options: AnnotateOptions, verify: bool = True) -> tuple[str, AnnotateResult]:
    text = read_input(input_path)
    name = display_name(input_path)
    result = annotate_text(text, name, options)
    if verify and result.text != text:
        verify_output(text, result.text, name)
    return text, result


@cli.command("annotate", context_settings=CONTEXT)
@click.argument("input_path", metavar="IN", default="-")
@click.option("-o", "--output", default="-", metavar="OUT", show_default=True,
              help="Where to write the annotated IR; '-' is stdout. Replaced atomically.")
@annotate_options
@click.option("--stats", "show_stats", is_flag=True, help="Print roots, tagged accesses and reasons on stderr.")
@click.option("--report", "report_path", metavar="FILE", default=None,
              help="Write what was found and tagged as JSON to FILE.")
@click.option("--remarks", "remarks_path", metavar="FILE", default=None,
              help="Write LLVM optimization remarks (YAML) for every access to FILE.")
@click.option("--no-verify", is_flag=True, help="Do not check the output with llvmlite's LLVM.")
def annotate_command(input_path: str, output: str, show_stats: bool, report_path: str | None,
                     remarks_path: str | None, no_verify: bool, **kwargs: Any) -> None:
    """Annotate IN ('-' for stdin) and write the result to OUT."""
    options = options_from_kwargs(kwargs)
    try:
        _, result = run_annotate(input_path, options, verify=not no_verify)
        if report_path:
            write_atomic(report_path, json.dumps(result.report.to_json(), indent=2) + "\n")
        if remarks_path:
            from .remarks import remarks_yaml

            write_atomic(remarks_path, remarks_yaml(result.report))
        write_output(output, result.text)
    except LLNoaliasError as exc:
        sys.stderr.write(exc.format())
        sys.exit(exc.exit_code)
    if show_stats:
        from .render import print_stats

        print_stats(result.report)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry: quiet on a closed pipe and on Ctrl-C."""
    try:
        cli.main(args=argv, prog_name="llnoalias", standalone_mode=True)
    except BrokenPipeError:
        _silence_stdout()
        sys.exit(0)
    except KeyboardInterrupt:
        sys.stderr.write("llnoalias: interrupted\n")
        sys.exit(130)


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def _register() -> None:
    from .cli_compile import compile_command

    from .cli_reports import gate_command, stats_command

    cli.add_command(compile_command)
    cli.add_command(stats_command)
    cli.add_command(gate_command)


_register()

if __name__ == "__main__":  # pragma: no cover
    main()
