"""The command line: it only wires files, options and the library together.

``llnoalias IN [-o OUT]`` annotates (the default command); ``compile``, ``stats``,
``gate`` and ``explain`` are subcommands.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from ..diagnostics import EXIT_BAD_INPUT, LLNoaliasError
from ..options import (
    CODEGEN,
    JOBS,
    JOBS_MANY_INPUTS,
    JOBS_ONE_INPUT,
    NO_CHECK,
    NO_VERIFY,
    OUTPUT,
    REMARKS,
    STATS,
    AnnotateOptions,
)
from .options import (
    annotate_options,
    codegen_option,
    option,
    options_from_kwargs,
    print_after_option,
    report_options,
    stop_after_option,
)
from .run import annotate_file

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class DefaultGroup(click.Group):
    """A group whose first argument, when it is not a subcommand, goes to ``annotate``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if ctx.resilient_parsing and (not args or args[0] in self.list_commands(ctx)):
            # shell completion (click's): the words so far, as they are (no default command
            # for an empty line, whose next word may be a command's name)
            return super().parse_args(ctx, args)
        if not args:
            if sys.stdin is not None and not sys.stdin.isatty():
                args = ["annotate"]  # a filter in a pipeline: clang ... | llnoalias | llc ...
            else:
                click.echo(ctx.get_help())
                ctx.exit(0)
        elif args[0] not in self.list_commands(ctx) and args[0] not in ("-h", "--help", "--version"):
            if not ctx.resilient_parsing:
                self._refuse_misspelled_command(ctx, args[0])
            args = ["annotate", *args]
        return super().parse_args(ctx, args)

    def _refuse_misspelled_command(self, ctx: click.Context, word: str) -> None:
        """``llnoalias complie x.ll -o y.s``: a first word that is no file and is close to a
        subcommand's name is a mistyped subcommand (design section 8), not an input. The names
        come from the group, so a command added later is offered too."""
        import difflib
        import os

        if word == "-" or word.startswith("-") or any(c in word for c in "./\\") or os.path.exists(word):
            return
        close = difflib.get_close_matches(word, self.list_commands(ctx), n=1, cutoff=0.6)
        if close:
            _usage_error(f"'{word}' is neither a command nor a file (did you mean '{close[0]}'?)")

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, "[annotate] [OPTIONS] [IN...]")
        formatter.write_usage(ctx.command_path, "COMMAND [ARGS]...", prefix="   or: ")

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The default command's options first (what ``llnoalias IN`` takes), then the
        group's own, then the commands."""
        annotate = self.get_command(ctx, "annotate")
        if annotate is not None:
            sub = click.Context(annotate, info_name="annotate", parent=ctx)
            rows = [r for p in annotate.get_params(sub) if isinstance(p, click.Option) and "--help" not in p.opts
                    for r in [p.get_help_record(sub)] if r is not None]
            with formatter.section("Options of annotate (the default command: llnoalias [annotate] IN...)"):
                formatter.write_dl(rows)
        super().format_options(ctx, formatter)

    # The subcommands are imported when they are used: annotating (the common run, in
    # a pipeline) does not pay for rich, codegen and the assembly counters.
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(_LAZY_COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        cmd = super().get_command(ctx, cmd_name)
        if cmd is None and cmd_name in _LAZY_COMMANDS:
            module, attr = _LAZY_COMMANDS[cmd_name]
            cmd = getattr(importlib.import_module(module, __package__), attr)
            assert isinstance(cmd, click.Command)
            self.add_command(cmd, cmd_name)
        return cmd


_LAZY_COMMANDS = {
    "check": (".check", "check_command"),
    "compile": (".compile", "compile_command"),
    "explain": (".explain", "explain_command"),
    "stats": (".reports", "stats_command"),
    "gate": (".reports", "gate_command"),
}


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from .version import version_text

    click.echo(version_text(), nl=False)
    ctx.exit(0)


@click.group(cls=DefaultGroup, context_settings=CONTEXT, invoke_without_command=False)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version, whether the compiled parts loaded, llvmlite's LLVM, and exit.")
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


@cli.command("annotate", context_settings=CONTEXT)
@click.argument("inputs", metavar="IN...", nargs=-1)
@option(OUTPUT)
@click.option("--out-dir", "out_dir", default=None, metavar="DIR",
              help="Write each input to DIR/<basename> (needed with several inputs); DIR is created when missing.")
@option(JOBS)
@annotate_options
@option(STATS)
@option(REMARKS)
@print_after_option
@stop_after_option
@option(NO_VERIFY)
@option(NO_CHECK)
@report_options
@click.option("--best", is_flag=True,
              help="Compile to decide: per function, keep the claims or the input's lines (as compile --best).")
@click.option("--repair", is_flag=True,
              help="Compile to check the input: where it races by its own metadata, repair it (as compile --repair).")
@click.option("--mcpu", "mcpu", default=None, metavar="CPU",
              help="The GPU the output's check, --best and --repair compile for (default: the module's).")
@codegen_option
def annotate_command(inputs: tuple[str, ...], output: str | None, out_dir: str | None, jobs: int | None,
                     show_stats: bool, report_path: str | None, remarks_path: str | None,
                     print_after: tuple[str, ...], stop_after: str | None, no_verify: bool, werror: bool,
                     quiet: bool, no_check: bool = NO_CHECK.default,
                     best: bool = False, repair: bool = False, mcpu: str | None = None, codegen: str = CODEGEN.default,
                     **kwargs: Any) -> None:
    """Annotate IN ('-' for stdin, the default) and write the result to OUT; with several
    inputs, annotate each into --out-dir (in parallel with -j N)."""
    options = options_from_kwargs(kwargs)
    paths = list(inputs) or ["-"]
    if len(paths) > 1 or out_dir is not None:
        single = [flag for flag, on in (("--print-after", print_after), ("--stop-after", stop_after),
                                        ("--best", best), ("--repair", repair)) if on]
        if single:
            _usage_error(f"{' and '.join(single)} take{'s' if len(single) == 1 else ''} a single input")
        _annotate_many(paths, output, out_dir, JOBS_MANY_INPUTS if jobs is None else jobs, show_stats, report_path,
                       remarks_path, no_verify, options, (quiet, werror))
        return
    annotate_file(paths[0], output, options, verify=not no_verify, show_stats=show_stats,
                  report_path=report_path, remarks_path=remarks_path, jobs=JOBS_ONE_INPUT if jobs is None else jobs,
                  print_after=print_after, stop_after=stop_after, quiet=quiet, werror=werror,
                  compiled=(mcpu, codegen, best, repair) if best or repair else None, check=not no_check,
                  mcpu=mcpu, codegen=codegen)


def _usage_error(message: str) -> None:
    sys.stderr.write(LLNoaliasError(message).format())
    sys.exit(EXIT_BAD_INPUT)


def _annotate_many(paths: list[str], output: str | None, out_dir: str | None, jobs: int, show_stats: bool,
                   report_path: str | None, remarks_path: str | None, no_verify: bool,
                   options: AnnotateOptions, policy: tuple[bool, bool] = (False, False)) -> None:
    from .batch import exit_status, print_summary, run_batch

    if output is not None:
        _usage_error("-o/--output takes a single input; use --out-dir DIR for several")
    if out_dir is None:
        _usage_error(f"{len(paths)} inputs need --out-dir DIR (each is written to DIR/<basename>)")
    if report_path or remarks_path:
        _usage_error("--report and --remarks take a single input")
    assert out_dir is not None
    try:
        results = run_batch(paths, out_dir, options, verify=not no_verify, jobs=jobs, policy=policy)
    except LLNoaliasError as exc:
        sys.stderr.write(exc.format())
        sys.exit(exc.exit_code)
    if len(paths) > 1 or show_stats or any(not r.ok for r in results):
        print_summary(results)
    code = exit_status(results)
    if code:
        sys.exit(code)


def run_click(argv: list[str] | None) -> None:
    """The full command line through click (everything the fast path of :mod:`.entry` does
    not take). Click's own handling would exit 1 on a closed pipe and print "Aborted!" on
    Ctrl-C, so it runs in non-standalone mode and :func:`.entry.main` handles both."""
    try:
        rv = cli.main(args=argv, prog_name="llnoalias", standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        raise KeyboardInterrupt from None
    sys.exit(rv if isinstance(rv, int) else 0)

