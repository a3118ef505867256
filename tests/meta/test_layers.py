"""The package's layers: each subpackage imports only the layers below it, no
module imports itself back through another, nothing below the CLI prints, and no module
or class outgrows one idea."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from tests.support.files import ROOT

PKG = ROOT / "llnoalias"

#: lower numbers are lower layers; a module may import its own layer and the ones below
LAYERS = {
    "diagnostics": 0, "options": 0, "fileio": 0, "plain": 0, "reasons": 0, "reasons_doc": 0, "compiled": 0, "shortcuts": 0,
    "ir": 1,
    "asm": 1,
    "analysis": 2,
    "report": 3,
    "transform": 4,
    "api": 5,
    "backends": 5,
    "stats": 6,
    "check": 6,
    "cli": 7,
    "triton": 8,
}
#: modules that may write to stdout/stderr: the CLI, the one place diagnostics are
#: formatted, and the writer of `-o -`
MAY_PRINT = ("cli/", "diagnostics.py", "fileio.py")
MAX_MODULE_LINES = 700
MAX_CLASS_LINES = 400


#: inside ``analysis``: each subpackage imports only the ones before it
ANALYSIS_ORDER = ("memory", "provenance", "ranges")


def modules() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py") if p.name != "__main__.py")


def dotted(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) for every import of llnoalias, at any depth."""
    tree = ast.parse(path.read_text(), str(path))
    here = dotted(path).split(".")
    pkg = here if path.name == "__init__.py" else here[:-1]
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != "llnoalias":
                continue
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                out.append((node.lineno, sub if (PKG.parent / sub.replace(".", "/")).exists()
                            or (PKG.parent / (sub.replace(".", "/") + ".py")).exists() else mod))
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "llnoalias")
    return out


def layer(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) < 2:
        return None  # the package itself (__version__)
    return LAYERS[parts[1]]


def test_every_module_has_a_layer() -> None:
    for p in modules():
        name = dotted(p)
        if name == "llnoalias":
            continue
        assert name.split(".")[1] in LAYERS, f"{name}: not in a known layer"


def test_imports_go_down() -> None:
    bad = []
    for p in modules():
        name = dotted(p)
        mine = layer(name)
        if mine is None:
            continue
        for line, target in imports_of(p):
            theirs = layer(target)
            if theirs is None:
                continue
            same_package = target.split(".")[1] == name.split(".")[1]
            if theirs > mine or (theirs == mine and not same_package and mine > 0):
                bad.append(f"{p.relative_to(PKG.parent)}:{line}: {name} imports {target}")
    assert not bad, "\n".join(bad)


def test_no_import_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for p in modules():
        name = dotted(p)
        graph[name] = {t for _, t in imports_of(p) if t != name and t != "llnoalias"}
    # a package's __init__ re-exporting its own modules is not a cycle worth reporting
    for name, deps in graph.items():
        graph[name] = {d for d in deps if not name.startswith(d + ".")}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for d in sorted(graph.get(n, ())):
            if state.get(d) == 1:
                cycle = stack[stack.index(d):] + [d]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if d in graph and state.get(d) is None:
                visit(d)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if state.get(n) is None:
            visit(n)


def test_nothing_below_the_cli_prints() -> None:
    bad = []
    for p in modules():
        rel = p.relative_to(PKG).as_posix()
        if rel.startswith(MAY_PRINT) or rel in MAY_PRINT:
            continue
        tree = ast.parse(p.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                bad.append(f"{rel}:{node.lineno}: print()")
            if (isinstance(node, ast.Attribute) and node.attr in ("stdout", "stderr")
                    and isinstance(node.value, ast.Name) and node.value.id == "sys"):
                bad.append(f"{rel}:{node.lineno}: sys.{node.attr}")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                if any(n.split(".")[0] in ("rich", "click") for n in names):
                    bad.append(f"{rel}:{node.lineno}: imports {names}")
    # the llvmlite child is a separate process whose stdout is its reply
    bad = [b for b in bad if not b.startswith("backends/_llvmlite_child.py")]
    assert not bad, "\n".join(bad)


def test_units_stay_small() -> None:
    bad = []
    for p in modules():
        text = p.read_text()
        n = text.count("\n")
        rel = p.relative_to(PKG).as_posix()
        if n > MAX_MODULE_LINES:
            bad.append(f"{rel}: {n} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > MAX_CLASS_LINES:
                    bad.append(f"{rel}: class {node.name} is {size} lines")
    assert not bad, "\n".join(bad)


def test_layout_is_what_the_readme_says() -> None:
    readme = (PKG.parent / "README.md").read_text()
    for sub in sorted(d.name for d in PKG.iterdir() if d.is_dir() and (d / "__init__.py").exists()):
        assert f"llnoalias/{sub}/" in readme, f"README does not describe llnoalias/{sub}/"
    assert os.path.exists(PKG / "__main__.py")


def test_analysis_subpackages_import_only_those_before_them() -> None:
    """memory below provenance below ranges (CONTRIBUTING.md, the layer table)."""
    bad = []
    for p in modules():
        parts = dotted(p).split(".")
        if parts[1:2] != ["analysis"] or len(parts) < 3:
            continue
        assert parts[2] in ANALYSIS_ORDER, f"{dotted(p)}: analysis/ holds only {ANALYSIS_ORDER}"
        mine = ANALYSIS_ORDER.index(parts[2])
        for line, mod in imports_of(p):
            m = mod.split(".")
            if m[1:2] == ["analysis"] and len(m) > 2 and ANALYSIS_ORDER.index(m[2]) > mine:
                bad.append(f"{p.relative_to(PKG.parent)}:{line} imports {mod}")
    assert not bad, "\n".join(bad)


#: what ``transform/`` may not hold: analyses live in ``analysis/`` and the
#: control-flow graph in the IR model (``Function.successors``)
ANALYSIS_CLASSES = ("Walker", "CFG", "Cfg", "ControlFlow", "ControlFlowGraph")


def _analysis_in(src: str, where: str) -> list[str]:
    """What of an analysis the module text ``src`` holds: a call of ``operands.parse``
    (whatever the module is bound to: ``opparse``, ``operands_fast``; or an imported
    ``parse``), a class ``ANALYSIS_CLASSES`` names, a ``label %`` pattern."""
    tree = ast.parse(src, where)
    parsers = {"operands", "opparse", "operands_fast"}
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name == "parse" and (node.module or "").split(".")[-1] in parsers:
                    bad.append(f"{where}:{node.lineno} imports parse from {node.module}")
                if a.name in parsers:
                    parsers.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[-1] in parsers:
                    parsers.add(a.asname or a.name.split(".")[-1])
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "parse"
                and isinstance(node.func.value, ast.Name) and node.func.value.id in parsers):
            bad.append(f"{where}:{node.lineno} calls {node.func.value.id}.parse")
        if isinstance(node, ast.ClassDef) and node.name.lstrip("_") in ANALYSIS_CLASSES:
            bad.append(f"{where}:{node.lineno} defines class {node.name}")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "label %" in node.value:
            bad.append(f"{where}:{node.lineno} reads label operands")
    return bad


def test_transform_keeps_decisions_and_edits_only() -> None:
    """No ``transform/`` module parses operands itself, defines an address walker or a
    control-flow graph, or reads ``label %x`` operands (``Function.successors`` has them):
    those are analyses, in ``analysis/`` and ``ir/``."""
    bad = []
    for p in modules():
        if dotted(p).split(".")[1:2] == ["transform"]:
            bad += _analysis_in(p.read_text(), str(p.relative_to(PKG.parent)))
    assert not bad, "\n".join(bad)


def test_the_transform_check_finds_what_it_forbids() -> None:
    """The check above is no stub: each thing it forbids, in a scratch module, is found."""
    src = ("from ..ir import operands as ops\n"
           "from ..ir.operands_fast import parse\n"
           "LABEL = r'label %(\\w+)'\n"
           "class _Walker:\n    pass\n"
           "class CFG:\n    pass\n"
           "def f(mod, inst):\n    return ops.parse(mod, inst)\n")
    found = sorted(f.split(" ", 1)[1] for f in _analysis_in(src, "scratch.py"))
    assert found == ["calls ops.parse", "defines class CFG", "defines class _Walker",
                     "imports parse from ir.operands_fast", "reads label operands"], found


def test_the_pipeline_runs_stages_without_hooks() -> None:
    """The pipeline is a tuple of stages run by one loop (``pipeline.run_stages``): neither
    it nor the function pass calls into a printer where a stage's conclusions happen to be
    (``if stages is not None: stages.ranges(...)``); ``--print-after`` prints results."""
    bad = []
    for name in ("pipeline.py", "function_pass.py"):
        text = (PKG / "transform" / name).read_text()
        for n, line in enumerate(text.splitlines(), 1):
            if "stages is not None" in line or "StageLog(" in line:
                bad.append(f"transform/{name}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)


#: the fields of a decision (``scopes.Decision``, immutable): a stage that concludes something
#: new about an access makes a new decision in a new plan (``Decision.replace``,
#: ``scopes.Rewrites``), never assigns one of these
DECISION_FIELDS = ("keys", "reason", "blocker", "roots", "range_note", "byte_range", "dma")


def _assigned(targets: list[ast.expr]) -> list[ast.expr]:
    """What an assignment binds: its targets, those inside a tuple or list target (not a
    subscript's object or index: ``x.roots[i] = ...`` assigns no ``roots``)."""
    out: list[ast.expr] = []
    for t in targets:
        if isinstance(t, (ast.Tuple, ast.List)):
            out.extend(_assigned(list(t.elts)))
        elif isinstance(t, ast.Starred):
            out.extend(_assigned([t.value]))
        else:
            out.append(t)
    return out


def test_stages_assign_no_field_of_a_decision() -> None:
    """No code of ``transform/`` assigns a field of a decision (only ``Decision.__new__``
    fills its own, on ``self``): a later stage's rewrite is a new decision, through
    ``scopes.Rewrites`` for the claims, so a stage's input plan stays as it was and what a
    stage changed is its result, not a diff of the plan."""
    bad = []
    for p in modules():
        rel = p.relative_to(PKG).as_posix()
        if not rel.startswith("transform/"):
            continue
        tree = ast.parse(p.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                targets = (node.targets if isinstance(node, ast.Assign)
                           else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
                for sub in _assigned(targets):
                    if (isinstance(sub, ast.Attribute) and sub.attr in DECISION_FIELDS
                            and isinstance(sub.value, ast.Name) and sub.value.id != "self"):
                        bad.append(f"{rel}:{node.lineno} ({fn.name}) assigns .{sub.attr}")
    assert not bad, "\n".join(bad)
