"""Click options shared by every command that annotates (``annotate``, ``compile``,
``explain``, ``stats`` on ``.ll`` input), so they are spelled one way everywhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from ..options import ARGS_MODES, LDS_MODES, AnnotateOptions, parse_may_alias

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
STAGES_HELP = "provenance, ranges, regions, dma-safety, scopes"


def print_after_option(func: F) -> F:
    """``--print-after STAGE``: what a named stage of the pipeline concluded, on stderr."""
    return click.option(
        "--print-after", "print_after", multiple=True, callback=_parse_print_after, metavar="STAGE",
        help=f"Print on stderr what STAGE concluded ({STAGES_HELP}, or all); repeatable or a "
             "comma list. The run stays in one process.")(func)


def annotate_options(func: F) -> F:
    """Decorate a click command with the annotation options."""
    decorators = [
        click.option("--lds", type=click.Choice(LDS_MODES), default="dynamic", show_default=True,
                     help="Which addrspace(3) globals get scopes: external zero-sized ones, all, or none."),
        click.option("--args", "args_mode", type=click.Choice(ARGS_MODES), default="auto",
                     show_default=True,
                     help="Kernel pointer arguments as roots: those already noalias (auto), every one (noalias), none."),
        click.option("--may-alias", "may_alias", multiple=True, callback=_parse_may_alias, metavar="I,J[,K]",
                     help="Kernel arguments that may share a buffer: no noalias, one shared scope. Repeatable."),
        click.option("--regions/--no-regions", default=True, show_default=True,
                     help="Split one LDS root into byte-range regions, each with its own scope."),
    ]
    for deco in reversed(decorators):
        func = deco(func)
    return func


def options_from_kwargs(kwargs: dict[str, Any]) -> AnnotateOptions:
    """Pop the annotation options out of a command's keyword arguments."""
    return AnnotateOptions(
        lds=kwargs.pop("lds"),
        args=kwargs.pop("args_mode"),
        may_alias=kwargs.pop("may_alias"),
        regions=kwargs.pop("regions"),
    )


def codegen_option(func: F) -> F:
    """``--codegen llvmlite|triton``: the LLVM that generates the code (``--llc PATH`` overrides it)."""
    return click.option(
        "--codegen", "codegen", type=click.Choice(["llvmlite", "triton"]), default="llvmlite", show_default=True,
        help="The embedded LLVM that generates code: llvmlite's (LLVM 22) or Triton's bundled LLVM (24, "
             "when Triton is installed: the code generator Triton's users ship with).")(func)
