"""Click options made from the table of ``llnoalias/options.py`` (``OPTIONS``): those of every
command that annotates (``annotate``, ``compile``, ``explain``, ``stats`` on ``.ll`` input),
the annotate command's own and ``--codegen``, so each is spelled, and has its default, in
one place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from ..options import (
    ANNOTATE,
    CODEGEN,
    QUIET,
    REPORT,
    WERROR,
    AnnotateOptions,
    Option,
    parse_may_alias,
)

F = Callable[..., Any]


def _parse_may_alias(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[tuple[int, ...], ...]:
    try:
        return parse_may_alias(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _parse_print_after(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    from ..transform.stages import parse_stage_names

    try:
        return parse_stage_names(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


#: ``transform.stages.STAGE_NAMES``, spelled here so that the command line's start (every
#: subcommand's) does not import the analysis for a help text; a test holds them equal
STAGES_HELP = "provenance, ranges, arguments, regions, dma-safety, scopes, dma-scopes"


def print_after_option(func: F) -> F:
    """``--print-after STAGE``: what a named stage of the pipeline concluded, on stderr."""
    return click.option(
        "--print-after", "print_after", multiple=True, callback=_parse_print_after, metavar="STAGE",
        help=f"Print on stderr what STAGE concluded ({STAGES_HELP}, or all); repeatable or a "
             "comma list. The run stays in one process.")(func)


def _parse_stop_after(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from ..transform.stages import parse_stage_name

    try:
        return None if value is None else parse_stage_name(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def stop_after_option(func: F) -> F:
    """``--stop-after STAGE``: run the pipeline up to a stage, print its result on stdout."""
    return click.option(
        "--stop-after", "stop_after", default=None, callback=_parse_stop_after, metavar="STAGE",
        help=f"Run the stages up to STAGE ({STAGES_HELP}) alone and print its result on stdout, "
             "as --print-after prints it; no output is written.")(func)


def option(opt: Option) -> Callable[[F], F]:
    """The click option of a row of the table (its spellings, kind, default and help)."""
    if opt.kind == "switch":
        decls = ["/".join((*opt.flags, *opt.off))]
        return click.option(*decls, opt.name, default=opt.default, show_default=True, help=opt.help)
    if opt.kind == "flag":
        return click.option(*opt.flags, opt.name, is_flag=True, help=opt.help)
    if opt.kind == "choice":
        return click.option(*opt.flags, opt.name, type=click.Choice(opt.choices), default=opt.default,
                            show_default=True, help=opt.help)
    if opt.kind == "many":
        callback = _parse_may_alias if opt.name == "may_alias" else None
        return click.option(*opt.flags, opt.name, multiple=True, callback=callback, metavar=opt.metavar,
                            help=opt.help)
    kind = click.IntRange(min=0) if opt.kind == "count" else None
    return click.option(*opt.flags, opt.name, default=opt.default, type=kind, metavar=opt.metavar, help=opt.help)


def annotate_options(func: F) -> F:
    """Decorate a click command with the annotation options."""
    for opt in reversed(ANNOTATE):
        func = option(opt)(func)
    return func


def options_from_kwargs(kwargs: dict[str, Any]) -> AnnotateOptions:
    """Pop the annotation options out of a command's keyword arguments."""
    return AnnotateOptions(**{opt.name: kwargs.pop(opt.name) for opt in ANNOTATE})


def codegen_option(func: F) -> F:
    """``--codegen llvmlite|triton``: the LLVM that generates the code (``--llc PATH`` overrides it)."""
    return option(CODEGEN)(func)


def policy_options(func: F) -> F:
    """``-Werror`` and ``-q``: what every command that reads IR takes, declared once."""
    for opt in (QUIET, WERROR):
        func = option(opt)(func)
    return func


def report_options(func: F) -> F:
    """``--report FILE``, ``-Werror`` and ``-q``: annotate's, compile's, stats' and check's."""
    return option(REPORT)(policy_options(func))
