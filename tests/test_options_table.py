"""Option defaults and the command-line grammar come from ``llnoalias/options.py`` alone:
the click commands, the fast path of the plain command line, ``llnoalias.annotate`` and
``llnoalias.triton.enable`` read the table (``OPTIONS``), and no other module spells an
option's flag or default."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import click
import pytest

import llnoalias
from llnoalias import options as table
from llnoalias.cli import entry
from llnoalias.cli.main import cli
from llnoalias.options import ANNOTATE, CODEGEN, OPTIONS, PLAIN_RUN, AnnotateOptions, Option

PACKAGE = Path(llnoalias.__file__).resolve().parent


def _command(name: str) -> click.Command:
    cmd = cli.get_command(click.Context(cli), name)
    assert cmd is not None, name
    return cmd


def _params(command: str) -> dict[str, click.Parameter]:
    cmd = _command(command)
    return {p.name: p for p in cmd.params if p.name is not None}


def _spellings(opts: tuple[Option, ...]) -> set[str]:
    return {f for o in opts for f in (*o.flags, *o.off)}


@pytest.mark.parametrize("command, rows", [
    ("annotate", (*PLAIN_RUN, CODEGEN)), ("compile", (*ANNOTATE, CODEGEN)), ("explain", ANNOTATE),
    ("stats", (*ANNOTATE, CODEGEN)), ("check", (CODEGEN,))])
def test_the_commands_declare_the_table(command: str, rows: tuple[Option, ...]) -> None:
    params = _params(command)
    ctx = click.Context(_command(command))
    for o in rows:
        p = params[o.name]
        assert isinstance(p, click.Option), o.name
        assert tuple(p.opts) == o.flags and tuple(p.secondary_opts) == o.off, o.name
        assert p.help == o.help, o.name
        assert p.multiple == (o.kind == "many") and p.is_flag == (o.kind in ("flag", "switch")), o.name
        if o.kind != "many":  # a repeatable option's default is none given: ()
            assert p.get_default(ctx, call=True) == o.default, o.name
        if o.kind == "choice":
            assert isinstance(p.type, click.Choice) and tuple(p.type.choices) == o.choices, o.name


def test_the_fast_path_reads_the_table() -> None:
    """The plain command line's grammar is the annotate command's options of ``PLAIN_RUN``."""
    assert set(entry._FLAGS) | set(entry._VALUED) == _spellings(PLAIN_RUN)
    params = _params("annotate")
    assert _spellings(PLAIN_RUN) == {f for o in PLAIN_RUN for f in (*params[o.name].opts,
                                                                    *params[o.name].secondary_opts)}
    run = entry.FastRun()
    assert all(getattr(run, o.name) == (list(o.default) if o.kind == "many" else o.default) for o in PLAIN_RUN)
    assert run.options() == AnnotateOptions()


def test_the_library_keywords_default_to_the_table() -> None:
    import llnoalias.triton

    for fn in (llnoalias.annotate, llnoalias.triton.enable, AnnotateOptions.__init__):
        sig = inspect.signature(fn)
        for o in ANNOTATE:
            assert sig.parameters[o.name].default == o.default, (fn, o.name)
    assert AnnotateOptions().as_dict() == {o.name: o.default for o in ANNOTATE}


def _takes(o: Option, node: ast.AST | None) -> bool:
    """Is ``node`` a literal value option ``o`` could hold (its default spelled again)?"""
    if isinstance(node, (ast.Tuple, ast.List)) and not node.elts:
        return o.kind == "many"
    if not isinstance(node, ast.Constant):
        return False
    if o.kind == "choice":
        return node.value in o.choices
    if o.kind in ("flag", "switch"):
        return isinstance(node.value, bool)
    return o.kind == "value" and (node.value is None or isinstance(node.value, str))


def _spelled_defaults(path: Path, rows: tuple[Option, ...]) -> list[str]:
    """Where ``path`` gives a parameter (or field) named as one of ``rows`` a literal value
    that option could hold, or calls ``click.option`` with one of their spellings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    named = {o.name: o for o in rows}
    if CODEGEN in rows:
        named["codegen_name"] = CODEGEN  # compile's name for it
    spellings = _spellings(rows)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            pos = [*a.posonlyargs, *a.args]
            pairs = [*zip(pos[len(pos) - len(a.defaults):], a.defaults, strict=True),
                     *zip(a.kwonlyargs, a.kw_defaults, strict=True)]
            out += [f"{node.name}({arg.arg}=...) line {node.lineno}" for arg, d in pairs
                    if arg.arg in named and _takes(named[arg.arg], d)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if node.target.id in named and _takes(named[node.target.id], node.value):
                out.append(f"{node.target.id} = ... line {node.lineno}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "option":
            said = {a.value for a in node.args if isinstance(a, ast.Constant)}
            out += [f"click.option({s!r}) line {node.lineno}" for s in said
                    if any(part in spellings for part in str(s).split("/"))]
    return out


def test_no_other_module_spells_an_option_or_its_default() -> None:
    """Nowhere the annotation options and ``--codegen``; in ``cli/`` (but ``compile``'s own
    ``-o``, which writes code) the plain command line's options too. The library's own
    ``jobs=1`` (``llnoalias.annotate``) is its own default, not the command line's."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "options.py":
            continue
        rows = (*ANNOTATE, CODEGEN)
        if rel.startswith("cli/") and rel != "cli/compile.py":
            rows = (*PLAIN_RUN, CODEGEN)
        found += [f"{rel}: {what}" for what in _spelled_defaults(path, rows)]
    assert not found, "an option's default or flag spelled outside llnoalias/options.py:\n" + "\n".join(found)


def test_the_check_can_fail(tmp_path: Path) -> None:
    p = tmp_path / "m.py"
    p.write_text('import click\ndef f(x, *, lds: str = "dynamic", regions=True, other=1):\n    pass\n'
                 '@click.option("--regions/--no-regions")\ndef g():\n    pass\n')
    assert len(_spelled_defaults(p, (*ANNOTATE, CODEGEN))) == 3


def test_every_row_is_in_the_table() -> None:
    rows = [v for v in vars(table).values() if isinstance(v, Option)]
    assert sorted(o.name for o in rows) == sorted(OPTIONS)
