"""``llnoalias explain IN``: each access with the scopes it got or why it got none."""

from __future__ import annotations

import io
import json
import sys
from typing import Any

import click

from ..diagnostics import LLNoaliasError
from ..fileio import StdoutClosed, write_stdout
from ..options import QUIET, WERROR
from .options import annotate_options, options_from_kwargs, policy_options


def _add_check(functions: list[Any], annotated: str, original: str, input_path: str, mcpu: str | None) -> None:
    """Each function's verdict from ``llnoalias check`` on the annotated module."""
    from ..check.selfcheck import function_verdicts
    from ..fileio import display_name

    name = display_name(input_path)
    try:
        verdicts = function_verdicts(annotated, original, name, mcpu=mcpu)
    except LLNoaliasError as exc:
        sys.stderr.write(exc.format())
        sys.exit(exc.exit_code)
    for f in functions:
        f.check = verdicts.get(f.name, "")


@click.command("explain", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("input_path", metavar="IN", default="-")
@annotate_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON (schema llnoalias.explain/1) on stdout.")
@click.option("--untagged", "untagged_only", is_flag=True, help="Show only the accesses that were not tagged.")
@click.option("--summary", is_flag=True,
              help="Instead of every access: the untagged ones grouped by the instruction that "
                   "blocked them, most costly first.")
@click.option("--check", "with_check", is_flag=True,
              help="Also compile the annotated module (and, where it races, the input) and say per "
                   "function what `llnoalias check` finds in the AMDGPU code.")
@click.option("--mcpu", metavar="CPU", default=None, help="The GPU --check compiles for (default: the module's).")
@policy_options
def explain_command(input_path: str, as_json: bool, untagged_only: bool, summary: bool, with_check: bool = False,
                    mcpu: str | None = None, werror: bool = WERROR.default, quiet: bool = QUIET.default, **kwargs: Any) -> None:
    """Show, per function, each access of IN with its IR line, the scopes it reached
    or the reason it did not (mixed phi, `or` without `disjoint`, ordered atomic, ...)."""
    from ..diagnostics import set_policy
    from ..report.explain import explain, print_plain, summary_text, to_json
    from .render import print_rich
    from .run import run_annotate

    options = options_from_kwargs(kwargs)
    set_policy(quiet=quiet, werror=werror)
    try:
        source, result = run_annotate(input_path, options, verify=False, jobs=0)
    except LLNoaliasError as exc:
        sys.stderr.write(exc.format())
        sys.exit(exc.exit_code)
    if summary:
        from ..reasons import carried_code

        rows = result.report.blockers()
        if as_json:
            write_stdout(json.dumps({"schema": "llnoalias.blockers/1", "path": result.report.path,
                                     "tagged": len(result.report.tagged),
                                     "untagged": len(result.report.untagged),
                                     "blockers": [{"where": w, "rule": r, "code": carried_code(r), "accesses": acc,
                                                   "records": n}
                                                  for w, r, acc, n in rows]}, indent=2) + "\n")
        else:
            write_stdout(summary_text(result.report.path, len(result.report.tagged),
                                      len(result.report.untagged), rows))
        return
    functions = explain(result.report, result.module, untagged_only=untagged_only)
    if with_check:
        _add_check(functions, result.text, source, input_path, mcpu)
    if as_json:
        write_stdout(json.dumps(to_json(result.report, functions), indent=2) + "\n")
    elif sys.stdout.isatty():
        try:
            print_rich(result.report, functions, module=result.module)
        except BrokenPipeError:
            raise StdoutClosed() from None
    else:
        buf = io.StringIO()
        print_plain(result.report, functions, buf, module=result.module)
        write_stdout(buf.getvalue())
