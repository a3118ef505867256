"""The reasons registry (llnoalias/reasons.py): stable codes, messages made only there, the
C twin handed its reasons, the code carried by each message (a ``Said``) from where it is
made to ``--report``, ``--json``, ``explain`` and remarks, and read back from no text."""

from __future__ import annotations

import ast
import json
import os
import pickle
import re
from pathlib import Path

import pytest

from llnoalias import reasons, reasons_doc
from llnoalias.options import AnnotateOptions
from llnoalias.reasons import REASONS, Reason, Said, carried_code
from llnoalias.transform.pipeline import annotate_text
from tests.support.files import FIXTURES, ROOT
from tests.support.run import run_cli

PACKAGE = ROOT / "llnoalias"
OR_SUB_XOR = os.path.join(FIXTURES, "lds", "or_sub_xor.ll")

#: a value for each field a message names, as the analysis fills it in
SAMPLE = {"line": "7", "bits": "32", "width": "64", "limit": "128", "rounds": "16", "lo": "0", "hi": "16",
          "value": "undef", "op": "mul", "cast": "trunc", "kind": "phi", "lines": "3, 4, ...", "callee": "@f",
          "ordering": "seq_cst", "root": "@lds", "name": "%p", "function": "@k", "slot": "%slot"}

#: the reasons that wrap another, the field that holds it, and the group it comes from
WRAPPERS = {("unknown-provenance", "rule"): "provenance", ("memory-holds-addresses", "memory"): "memory",
            ("no-range-because", "why"): "range", ("length-no-range", "why"): "range",
            ("gep-index-no-range", "why"): "range", ("offset-no-range", "why"): "range", ("escapes", "how"): "escape"}


def sample(r: Reason, at: str = "", **given: str) -> str:
    return r.format(**{f: given.get(f, at if f == "at" else SAMPLE.get(f, f"x_{f}")) for f in r.fields})


def constant_names() -> dict[str, str]:
    """code -> the name the registry binds its reason to."""
    return {v.code: k for k, v in vars(reasons).items() if isinstance(v, Reason)}


def test_codes_are_stable_kebab_case_documented_and_bound_once() -> None:
    names = constant_names()
    assert len(REASONS) > 100
    for code, r in REASONS.items():
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", code), code
        assert r.code == code and r.doc.strip() and r.group in reasons.GROUPS, code
        assert code in names, f"{code} is not bound to a name in llnoalias/reasons.py"
        assert r.fields == tuple(dict.fromkeys(r.fields)), f"{code}: a field named twice"
        assert not r.nested or r.nested in r.fields, code


def test_every_reason_says_what_to_do() -> None:
    """design section 8: every reason says what to do about it (a flag, a change to the kernel,
    or that nothing can be done and why), in a sentence or two, and docs/reasons.md shows it."""
    missing = [code for code, r in REASONS.items() if not r.todo.strip()]
    assert not missing, f"{len(missing)} reasons say nothing about what to do: {', '.join(missing)}"
    for code, r in REASONS.items():
        assert r.todo.strip()[-1] in ".)", f"{code}: end the what-to-do text with a full stop"
        assert len(r.todo) <= 400, f"{code}: a what-to-do text of {len(r.todo)} characters; say it shorter"
    table = (ROOT / "docs" / "reasons.md").read_text(encoding="utf-8")
    rows = [ln for ln in table.splitlines() if ln.startswith("| `")]
    assert len(rows) == len(REASONS) and all(not ln.rstrip().endswith("|  |") for ln in rows)


def test_docs_table_is_up_to_date() -> None:
    """docs/reasons.md is made by ``python -m llnoalias.reasons_doc``."""
    text = (ROOT / "docs" / "reasons.md").read_text(encoding="utf-8")
    assert text == reasons_doc.markdown(), "docs/reasons.md is stale: run `python -m llnoalias.reasons_doc`"
    for code in REASONS:
        assert f"| `{code}` |" in text


def test_main_writes_the_table(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    assert reasons_doc.main([str(out)]) == 0
    assert out.read_text(encoding="utf-8") == reasons_doc.markdown()


@pytest.mark.parametrize("at", ["", " (line 12)"])
def test_every_message_carries_its_own_code(at: str) -> None:
    """A message is a ``str`` equal to its text that carries its reason's code, pickled (the
    worker processes hand it back) and copied with it."""
    for r in REASONS.values():
        text = sample(r, at)
        assert isinstance(text, Said) and text.code == r.code, (r.code, text)
        assert isinstance(r.text, Said) and r.text.code == r.code
        plain = str.format(r.text, **{f: at if f == "at" else SAMPLE.get(f, f"x_{f}") for f in r.fields})
        assert text == plain and hash(text) == hash(plain) and type(str(text)) is str
        back = pickle.loads(pickle.dumps(text))
        assert back == text and type(back) is Said and back.code == r.code
        assert json.loads(json.dumps({"r": text})) == {"r": plain}


def test_a_wrapped_reason_gives_its_code() -> None:
    """``unknown provenance: pointer loaded from memory`` is ``loaded-pointer``; a wrapper whose
    inner text carries no code keeps its own."""
    for (code, field), group in WRAPPERS.items():
        outer = REASONS[code]
        assert outer.nested == field or code == "memory-holds-addresses"
        for inner in REASONS.values():
            if inner.group != group:
                continue
            text = sample(outer, **{field: sample(inner)})
            assert text.code == (inner.code if outer.nested else code), (code, inner.code, text)
            assert sample(outer, **{field: str(sample(inner))}).code == code
    assert reasons.UNKNOWN_PROVENANCE.format(rule=reasons.LOADED_POINTER.text).code == "loaded-pointer"
    wrap = reasons.MAY_WRAP.format(op="add", at=" (line 4)")
    assert reasons.NO_RANGE_BECAUSE.format(why=reasons.OFFSET_NO_RANGE.format(why=wrap)).code == "may-wrap"
    assert reasons.UNKNOWN_PROVENANCE.format(rule="something no rule says").code == "unknown-provenance"
    assert reasons.SINGLE_SCOPE.matches(reasons.SINGLE_SCOPE.format(root="@lds"))
    assert not reasons.SINGLE_SCOPE.matches(str(reasons.SINGLE_SCOPE.format(root="@lds")))


def test_a_text_no_reason_makes_has_no_code() -> None:
    """Only a message carries a code: a plain string, even one in a message's words (or made
    from one by an f-string), has none."""
    assert carried_code("") == ""
    assert carried_code("volatile access") == ""
    assert carried_code(f"{reasons.VOLATILE.text}") == ""
    assert carried_code(reasons.VOLATILE.text) == "volatile"


def test_a_message_keeps_its_code_through_plus() -> None:
    """``+`` on a message keeps its code, on either side; of two messages the left one's."""
    said = reasons.VOLATILE.text
    assert said + "!" == str(said) + "!" and "at: " + said == "at: " + str(said)
    for text in (said + "!", "at line 4: " + said, said + " and " + reasons.LOADED_POINTER.text):
        assert isinstance(text, Said) and text.code == "volatile", text
    assert (reasons.LOADED_POINTER.text + said).code == "loaded-pointer"
    assert ("" + said).code == (said + "").code == "volatile"


def test_no_module_reads_a_code_back_from_text() -> None:
    """The code travels with the message: the registry has no reader of its own messages
    (``find``, ``code_of``, patterns per field) and imports no ``re``; no module calls one."""
    assert not any(hasattr(reasons, name) for name in ("code_of", "find", "_FIELD_PATTERNS", "_CODES", "_ORDER"))
    assert not any(hasattr(Reason, name) for name in ("pattern", "literal", "_re"))
    tree = ast.parse((PACKAGE / "reasons.py").read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                for alias in node.names}
    assert "re" not in imported
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\bcode_of\b|reasons\.find\(|\.pattern\(\)\.fullmatch", text), path


def test_format_and_call_fill_the_same_fields() -> None:
    r = reasons.MAY_WRAP
    assert r("add", " (line 3)") == r.format(op="add", at=" (line 3)") == "add may wrap around (line 3)"
    with pytest.raises(ValueError):
        r("add")  # every field, in order


def test_one_fills_its_field_as_format() -> None:
    """``Reason.one`` (the argument pass's two messages a kernel) gives ``format``'s text
    and code for every reason of one plain field, and refuses any other template."""
    ones = [r for r in reasons.REASONS.values() if len(r.fields) == 1 and not r.nested]
    assert reasons.NO_WRITTEN in ones and reasons.NO_READ in ones
    for r in ones:
        for value in (7, 0, -1, "x", "{a}", 2.5):
            got, want = r.one(value), r.format(**{r.fields[0]: value})
            assert got == want and type(got) is type(want) and got.code == want.code == r.code
    assert reasons.NO_WRITTEN.one(12) == "no: written at line 12"
    for r in (reasons.MAY_WRAP, reasons.UNKNOWN_PROVENANCE, reasons.ALREADY):
        with pytest.raises(ValueError):
            r.one(1)


def _sources() -> list[Path]:
    # the registry and the docs page it writes (which quotes two messages as examples)
    return [p for p in sorted(PACKAGE.rglob("*.py")) if p.name not in ("reasons.py", "reasons_doc.py")]


@pytest.mark.slow
def test_every_reason_is_given_somewhere() -> None:
    """Each registered reason is used by the code that gives it (by its name: ``reasons.NAME``,
    or handed to the range solver's C twin by name in ``CRANGE_NAMES``)."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in _sources())
    unused = [code for code, name in constant_names().items()
              if not re.search(rf"\breasons\.{name}\b|\"{name}\"", text)]
    assert not unused, f"registered but given nowhere: {unused}"


def _literal(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}"
                       for v in node.values)
    return None


def _strings(path: Path) -> list[tuple[int, str, str]]:
    """The string literals of ``path`` that are not docstrings, assert or raise messages:
    (line, enclosing function, text with ``{}`` for what an f-string fills in)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    func: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr):
                skip.add(id(first.value))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(node):
                func.setdefault(id(sub), node.name)
        if isinstance(node, ast.JoinedStr):
            skip.update(id(v) for v in node.values)
        if isinstance(node, ast.Assert) and node.msg is not None:
            skip.update(id(n) for n in ast.walk(node.msg))
        if isinstance(node, ast.Raise) and node.exc is not None:
            skip.update(id(n) for n in ast.walk(node.exc))
    out = []
    for node in ast.walk(tree):
        text = _literal(node)
        if text is not None and id(node) not in skip:
            out.append((getattr(node, "lineno", 0), func.get(id(node), "<module>"), text))
    return out


#: text in the modules that give reasons that is not a reason, by (module, function): what it is
NOT_REASONS = {
    ("analysis/memory/intrinsics_doc.py", "markdown"): "the page docs/intrinsics.md, made from the table",
    ("analysis/ranges/interval.py", "<module>"): "the fields and docs of the Range and Off tuples",
    ("transform/dma_safety.py", "lowered"): "a warning on stderr (Report.warnings)",
    ("transform/dma_safety.py", "rescue"): "a warning on stderr (Report.warnings)",
    ("transform/dma_safety.py", "residual"): "a warning on stderr (Report.warnings)",
    ("transform/dma_safety.py", "static_lds"): "a warning on stderr (Report.warnings)",
    ("transform/pipeline.py", "_report"): "what a region root is, and a note (Report.notes)",
    ("transform/pipeline.py", "_write_scopes"): "where a reason applied (Decision.blocker)",
    ("transform/regions.py", "range_note"): "the byte range a tagged access was given",
    ("transform/roots.py", "missed_roots"): "the hints that name a flag (Report.hints)",
    ("transform/roots.py", "check_may_alias"): "an error message",
    ("transform/roots.py", "_arguments"): "part of an error message",
    ("analysis/memory/accesses.py", "<module>"): "what marks a module as AMDGPU or NVPTX (compile's error text)",
    ("transform/stages.py", "<module>"): "what each stage concludes (the stage table, --help)",
    ("transform/stages.py", "blocks"): "the --print-after printout",
}
_WORDS = re.compile(r"[A-Za-z'!-]+ [A-Za-z'!-]+ [A-Za-z'!-]+")


@pytest.mark.slow
def test_no_reason_is_written_outside_the_registry() -> None:
    """In analysis/ and transform/ (where reasons are made), no string of three words or more
    but in the places listed as not giving reasons; and nowhere in the package a string that
    holds a registered message's own words (a retyped reason, however short)."""
    found = []
    for path in _sources():
        rel = path.relative_to(PACKAGE).as_posix()
        giving = rel.startswith(("analysis/", "transform/"))
        for line, fn, text in _strings(path):
            if giving and _WORDS.search(text) and (rel, fn) not in NOT_REASONS:
                found.append(f"{rel}:{line} ({fn}): {text!r}")
    assert not found, "reason text outside llnoalias/reasons.py:\n" + "\n".join(found)


def _pieces(r: Reason, short: bool = True) -> list[str]:
    """The parts of a message between its fields, long enough to be its own words; with
    ``short``, a message of two words too (``volatile access``)."""
    return [p for p in re.split(r"\{\w+\}", r.text) if len(p.strip()) >= 10 or (short and p == r.text and " " in p)]


@pytest.mark.slow
def test_no_message_is_retyped_anywhere() -> None:
    """No string literal in Python, nor any C string, holds a registered message's words (a
    message of two words: in analysis/ and transform/, where reasons are made; the command
    line may say "no range" in a table's heading)."""
    pieces = {p: r.code for r in REASONS.values() for p in _pieces(r)}
    long_pieces = {p: r.code for r in REASONS.values() for p in _pieces(r, short=False)}
    found = []
    for path in _sources():
        giving = path.relative_to(PACKAGE).as_posix().startswith(("analysis/", "transform/"))
        for line, _, text in _strings(path):
            for p, code in (pieces if giving else long_pieces).items():
                if p in text:
                    found.append(f"{path.relative_to(ROOT)}:{line}: {code}: {text!r}")
    for path in sorted(PACKAGE.rglob("*.c")):
        for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', path.read_text(encoding="utf-8")):
            for p, code in pieces.items():
                if p.strip() and p.strip() in m.group(1):
                    found.append(f"{path.relative_to(ROOT)}: {code}: {m.group(1)!r}")
    assert not found, "\n".join(found)


def test_the_check_can_fail(tmp_path: Path) -> None:
    """The AST walk finds a retyped reason, and an f-string's words."""
    p = tmp_path / "m.py"
    p.write_text('def f(x):\n    """Doc string of three words."""\n    return f"{x} may wrap around", "volatile access"\n')
    texts = [t for _, _, t in _strings(p)]
    assert texts == ["{} may wrap around", "volatile access"]
    pieces = [piece for r in REASONS.values() for piece in _pieces(r)]
    assert " may wrap around" in pieces and "volatile access" in pieces


def test_the_range_solver_is_handed_its_messages() -> None:
    """The C twin takes every reason it gives from ``CRANGE_NAMES``, the registry's entries
    themselves (it binds them as the Python queries do: tests/test_twin_range_solver.py checks
    that it returns the very message, code and all)."""
    from llnoalias.analysis.ranges.solver import CRANGE_NAMES

    handed = {k: v for k, v in CRANGE_NAMES.items() if k.isupper() and k not in ("NOTHING", "BUDGET", "MAX_DEPTH")}
    assert handed["ITSELF"] == reasons.ITSELF and reasons.ITSELF in reasons.DEPENDS_ON_ITSELF.text
    for name, value in handed.items():
        if name != "ITSELF":
            assert value is getattr(reasons, name), name  # the reason itself, bound by the twin
    # the word marks only the message of a value that depends on itself
    assert [r.code for r in REASONS.values() if reasons.ITSELF in r.text] == ["depends-on-itself"]


# ------------------------------------------------------------- on a fixture
def test_report_json_carries_codes() -> None:
    res = run_cli(["--report", "-", "-o", os.devnull, OR_SUB_XOR])
    assert res.exit_code == 0, res.stderr
    data = json.loads(res.stdout)
    untagged = [a for a in data["accesses"] if not a["tagged"]]
    assert untagged and all(a["code"] in REASONS for a in untagged)
    assert {a["code"] for a in untagged} == {"or-without-disjoint", "sub-on-address", "op-on-address"}
    assert all(a["code"] == "" for a in data["accesses"] if a["tagged"])
    assert data["summary"]["untagged_by_code"] == {"op-on-address": 2, "or-without-disjoint": 1, "sub-on-address": 1}
    assert {b["code"] for b in data["summary"]["untagged_by_blocker"]} == {
        "or-without-disjoint", "sub-on-address", "op-on-address"}


def test_explain_shows_the_code_as_mypy_does() -> None:
    res = run_cli(["explain", OR_SUB_XOR])
    assert res.exit_code == 0, res.stderr
    out = res.stdout.decode()
    assert re.search(r"not tagged: unknown provenance: or without 'disjoint' on an address "
                     r"\(line 10: `%o = or i32 %a, 16`\) \[or-without-disjoint\]\n", out), out
    assert out.count(" [op-on-address]\n") == 2
    data = json.loads(run_cli(["explain", "--json", OR_SUB_XOR]).stdout)
    domains = [d for f in data["functions"] for a in f["accesses"] for d in a["domains"]]
    assert {d["code"] for d in domains if not d["tagged"]} == {"or-without-disjoint", "sub-on-address",
                                                                "op-on-address"}
    assert all(d["code"] == "" for d in domains if d["tagged"])
    summary = run_cli(["explain", "--summary", OR_SUB_XOR]).stdout.decode()
    assert "unknown provenance: sub on an address [sub-on-address]\n" in summary
    blockers = json.loads(run_cli(["explain", "--summary", "--json", OR_SUB_XOR]).stdout)["blockers"]
    assert {b["code"] for b in blockers} == {"or-without-disjoint", "sub-on-address", "op-on-address"}


def test_arguments_and_remarks_carry_codes(tmp_path: Path) -> None:
    path = os.path.join(FIXTURES, "corpus", "clang19", "hip_smem_O3_g.ll")
    with open(path, encoding="utf-8") as fh:
        res = annotate_text(fh.read(), path, AnnotateOptions())
    unrooted = [a for a in res.report.args if not a.rooted]
    assert unrooted and {a.code for a in unrooted} == {"not-noalias"}
    assert all(a.as_dict()["code"] == "not-noalias" for a in unrooted)
    out = tmp_path / "r.yaml"
    assert run_cli([path, "--no-verify", "-o", str(tmp_path / "o.ll"), "--remarks", str(out)]).exit_code == 0
    missed = out.read_text().split("--- !Missed")[1:]
    assert missed and all(re.search(r"- Code: +'?[a-z]+(-[a-z]+)*'?\n", doc) for doc in missed)


@pytest.mark.slow
def test_every_untagged_access_of_the_fixtures_has_a_code() -> None:
    """The reasons the analysis gives on real input all carry a code to the report."""
    from llnoalias.diagnostics import LLNoaliasError
    from llnoalias.fileio import read_input
    from tests.support.files import all_fixtures

    seen: set[str] = set()
    for path in all_fixtures():
        for opts in (AnnotateOptions(), AnnotateOptions(lds="all", args="noalias")):
            try:
                res = annotate_text(read_input(path), path, opts)
            except LLNoaliasError:
                continue
            for a in res.report.accesses:
                if not a.tagged:
                    assert a.code, (path, a.rule)
                    seen.add(a.code)
                if a.range_note.startswith("no range"):
                    assert carried_code(a.range_note), (path, a.range_note)
            for arg in res.report.args:
                assert arg.rooted or arg.code, (path, arg.reason)
                for said in (arg.readonly, arg.writeonly):
                    assert said in ("", "proved") or carried_code(said), (path, said)
            for why in res.report.skipped_globals.values():
                assert carried_code(why), (path, why)
    assert {"alloca", "lds-dma-window", "single-scope", "inline-asm", "loaded-pointer"} <= seen


def test_stats_shows_the_code_beside_the_reason(tmp_path: Path) -> None:
    res = run_cli([OR_SUB_XOR, "--no-verify", "-o", str(tmp_path / "o.ll"), "--stats"])
    assert res.exit_code == 0, res.stderr
    assert re.search(r"unknown provenance: sub on an address \[sub-on-address\]", res.stderr), res.stderr


#: fixtures whose untagged accesses, arguments and skipped globals give many codes
PATH_FIXTURES = [os.path.join(FIXTURES, *p) for p in (
    ("lds", "or_sub_xor.ll"), ("lds", "loaded_int_global_holds_lds.ll"), ("lds", "calls_and_raw_addresses.ll"),
    ("corpus", "clang19", "cuda_smem_O0_g.ll"), ("corpus", "triton", "amd_attn_gfx950_async.ll"))]
_FLAGS = ["--lds", "all", "--args", "noalias"]


@pytest.mark.parametrize("path", PATH_FIXTURES, ids=os.path.basename)
def test_every_code_survives_every_path_to_the_report(path: str, tmp_path: Path) -> None:
    """The code each reason carries from where the analysis made it (``AccessRecord.rule``,
    the decision's own reason) is the one ``--report`` JSON, ``explain`` (text and JSON),
    ``explain --summary``, ``--stats`` and remarks show, worker processes or not."""
    from llnoalias.fileio import read_input

    res = annotate_text(read_input(path), path, AnnotateOptions(lds="all", args="noalias"))
    made = {(a.line, a.domain): a.rule.code for a in res.report.untagged if isinstance(a.rule, Said)}
    assert made and len(made) == len({(a.line, a.domain) for a in res.report.untagged})
    assert all(made.values())
    for jobs in ("1", "2"):
        rep = json.loads(run_cli([path, "--no-verify", "-o", os.devnull, "--report", "-", "-j", jobs, *_FLAGS]).stdout)
        assert {(a["line"], a["domain"]): a["code"] for a in rep["accesses"] if not a["tagged"]} == made
        assert {(a["name"], a["code"]) for a in rep["arguments"] if not a["rooted"]} == {
            (a.name, a.reason.code) for a in res.report.args if not a.rooted}
    doc = json.loads(run_cli(["explain", "--json", *_FLAGS, path]).stdout)
    assert {(a["line"], d["domain"]): d["code"] for f in doc["functions"] for a in f["accesses"]
            for d in a["domains"] if not d["tagged"]} == made
    text = run_cli(["explain", *_FLAGS, path]).stdout.decode()
    for code in set(made.values()):
        assert f" [{code}]\n" in text, code
    blockers = json.loads(run_cli(["explain", "--summary", "--json", *_FLAGS, path]).stdout)["blockers"]
    assert {b["code"] for b in blockers} == set(made.values())
    summary = run_cli(["explain", "--summary", *_FLAGS, path]).stdout.decode()
    assert {c for c in re.findall(r" \[([a-z-]+)\]\n", summary)} == set(made.values())
    stats = run_cli([path, "--no-verify", "-o", os.devnull, "--stats", *_FLAGS]).stderr
    for code in set(made.values()):
        assert f"[{code}]" in stats, code
    remarks = tmp_path / "r.yaml"
    run_cli([path, "--no-verify", "-o", os.devnull, "--remarks", str(remarks), *_FLAGS])
    missed = {}
    for doc_text in remarks.read_text().split("--- !")[1:]:
        if doc_text.startswith("Missed"):
            line = int(re.search(r"- IRLine: +(\d+)", doc_text).group(1))
            domain = re.search(r"- Domain: +'?([^'\n]+)'?\n", doc_text).group(1)
            missed[(line, domain)] = re.search(r"- Code: +'?([a-z-]+)'?\n", doc_text).group(1)
    assert missed == made
