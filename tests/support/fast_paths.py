"""Every shortcut llnoalias takes to skip work, in one list: where it is, how to switch it off,
what it must equal, and how a run shows it took it. ``tests/test_fast_paths.py`` runs each
one and its reference on a few fixtures and requires the same result; a new shortcut gets a
row here.

A row's ``switch(monkeypatch, fast)`` sets the run up: ``fast=True`` takes the shortcut
wherever it applies (forcing it where a small fixture would not reach it, as the worker
processes' size limits), ``fast=False`` runs the reference. ``observe(text, path)`` is what
is compared: by default the annotated bytes as the command line writes them and the report,
or the error, under ``--lds all --args noalias`` (the options that claim the most).
``spy(monkeypatch)``, installed after the switch in both runs, counts what the shortcut did
(a call that took it, a memo's hit; or, negated, a call of the long way that it saves) and
returns the count: the fast run must count more than the reference, or the comparison would
compare a run with itself. ``forks``: the row forks worker processes (under pytest-xdist it
runs in a fresh process: tests/conftest.py).

The compiled twins of ``llnoalias.compiled.TWINS`` are rows too (their own tests,
``tests/*/test_twin_*.py``, compare them further: every value, cause and cache). A row
switches a twin, and a shortcut of the table ``llnoalias.shortcuts.SHORTCUTS`` (a row of
the same name here), only through ``tests/support/switches.py``; the other rows switch
their shortcut by putting the long way in place of the method that takes it.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

import llnoalias
from llnoalias import compiled
from llnoalias.diagnostics import LLNoaliasError
from llnoalias.fileio import encode
from llnoalias.ir.model import Module
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from llnoalias.shortcuts import NoMemo

from .provenance import reference_solve
from .switches import bound, memo_places, shortcut, switch_shortcut, switch_twin, twin

#: the options every row is compared under (the most claims, so the most to differ)
OPTIONS: dict[str, Any] = {"lds": "all", "args": "noalias"}
#: what the rows that use worker processes ask for
JOBS = 3
#: the fixtures a row is compared on unless it names its own (tests/test_fast_paths.py says why
#: these): a loop's ranges and phis, LDS regions and the module's memos' second hits (two
#: small modules of several kernels), clang's HIP and CUDA output, an LDS-DMA kernel
REPRESENTATIVE = ("stages/ranges_loop.ll", "stages/regions.ll", "corpus/clang19/hip_smem_O3.ll",
                  "corpus/clang19/cuda_smem_O3.ll", "dma/asm_wait_kept.ll")


def outcome(text: str, path: str) -> object:
    """What a run gives: the output's bytes (made as the command line makes them: the
    compiled splice where it can, else the chunks) and the report, or the error."""
    try:
        res = llnoalias.annotate(text, path=path, jobs=JOBS, **OPTIONS)
    except LLNoaliasError as e:
        return ("error", e.format())
    data = res.encoded()
    if data is None:
        data = b"".join(encode(c) for c in res.chunks())
    return data, json.dumps(res.report.as_dict(), sort_keys=True, default=str)


def output_only(text: str, path: str, report: bool = True) -> object:
    """The output's text alone (for a shortcut that leaves the report out)."""
    try:
        return llnoalias.annotate(text, path=path, report=report, **OPTIONS).text
    except LLNoaliasError as e:
        return ("error", e.format())


def model(text: str, path: str) -> object:
    """The module as the reader leaves it: each function's header, blocks and every
    instruction's span, name, opcode and operand start; then the run's outcome."""
    try:
        mod: Module = parse_module(SourceFile(path, text))
    except LLNoaliasError as e:
        return ("error", e.format())
    shape = [(fn.name, fn.is_kernel, [(a.name, str(a.type), a.attrs) for a in fn.args], fn.blocks,
              fn.block_offsets, [(i.name, i.opcode, i.start, i.end, i.opstart) for i in fn.instrs])
             for fn in mod.functions]
    return shape, outcome(text, path)


def always(text: str) -> bool:
    return True


def several_functions(text: str) -> bool:
    """Worker processes split a module by functions: one of a single function has nothing to split."""
    return text.count("\ndefine ") >= 2


@dataclass(frozen=True)
class FastPath:
    #: a short name (the test's id)
    name: str
    #: the code that takes the shortcut
    where: str
    #: how a user or a test switches it off
    off: str
    #: what it must equal
    equals: str
    #: sets the run up: ``fast`` True takes the shortcut, False the reference
    switch: Callable[[pytest.MonkeyPatch, bool], None]
    observe: Callable[[str, str], object] = outcome
    #: the fixtures it is compared on (those where it can apply)
    applies: Callable[[str], bool] = always
    #: why it cannot run here (a twin that is not built), or None
    unavailable: Callable[[], str | None] = field(default=lambda: None)
    #: counts what the shortcut did in a run (installed after ``switch``): more in the fast run
    spy: Spy = field(default=lambda m: lambda: 0)
    #: the row forks worker processes (pytest mark ``forks``)
    forks: bool = False
    #: the fixtures (paths under fixtures/) it is compared on, each one where the shortcut
    #: fires; empty: ``REPRESENTATIVE``
    fixtures: tuple[str, ...] = ()


#: ``FastPath.spy``: installed on a monkeypatch, it gives the count of the run so far
Spy = Callable[[pytest.MonkeyPatch], Callable[[], int]]


def _not_none(got: object) -> bool:
    return got is not None


def calls(where: Callable[[], Any], attr: str, hit: Callable[[object], bool] | None = None,
          sign: int = 1, when: Callable[[tuple[Any, ...], dict[str, Any]], bool] | None = None) -> Spy:
    """A spy that counts the calls of ``attr`` of ``where()`` (a module or a class, looked up
    when installed) whose result passes ``hit`` and whose arguments pass ``when`` (each
    call, for None); ``sign`` -1 for a call of the long way (the shortcut makes fewer)."""

    def install(m: pytest.MonkeyPatch) -> Callable[[], int]:
        owner = where()
        real = getattr(owner, attr)
        n = [0]

        def counting(*args: Any, **kwargs: Any) -> Any:
            got = real(*args, **kwargs)
            if (hit is None or hit(got)) and (when is None or when(args, kwargs)):
                n[0] += 1
            return got

        m.setattr(owner, attr, counting)
        return lambda: sign * n[0]

    return install


def _mod(name: str) -> Callable[[], Any]:
    """The module ``llnoalias.NAME``, imported when asked for."""
    import importlib

    return lambda: importlib.import_module(f"llnoalias.{name}")


def _cls(module: str, name: str) -> Callable[[], Any]:
    return lambda: getattr(_mod(module)(), name)


class Hits(dict):  # type: ignore[type-arg]
    """A memo that counts the look-ups it answers (``get``, ``in``)."""

    def __init__(self) -> None:
        super().__init__()
        self.hits = 0

    def get(self, key: Any, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            self.hits += 1
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        got = dict.__contains__(self, key)
        self.hits += got
        return got


def memo_hits(row: str) -> Spy:
    """The hits of the memos of the shortcut ``row`` (``shortcuts.SHORTCUTS``' ``memos``):
    each one the switch left on replaced by an empty ``Hits``; none where it is off."""

    def install(m: pytest.MonkeyPatch) -> Callable[[], int]:
        held: list[Hits] = []
        for module, attr in memo_places(row):
            if not isinstance(getattr(module, attr), NoMemo):
                held.append(Hits())
                m.setattr(module, attr, held[-1])
        return lambda: sum(h.hits for h in held)

    return install


def twin_calls(key: str) -> Spy:
    """The calls into the compiled module ``key`` through every module that holds it (and,
    for the range solver, its methods on ``FunctionRanges``)."""

    def install(m: pytest.MonkeyPatch) -> Callable[[], int]:
        ext = twin(key)
        n = [0]
        if ext is None:
            return lambda: 0

        class Counting:
            def __getattr__(self, name: str) -> Any:
                value = getattr(ext, name)
                if not callable(value):
                    return value

                def counting(*args: Any, **kwargs: Any) -> Any:
                    n[0] += 1
                    return value(*args, **kwargs)

                return counting

        switch_twin(m, key, Counting(), only=bound(key))  # (not where a switch unbound it)
        if key == "range_solver":
            from llnoalias.analysis.ranges import solver

            for attr, py in (("offset", solver.PY_OFFSET), ("int_range", solver.PY_INT_RANGE)):
                c = getattr(solver.FunctionRanges, attr)
                if c is not py:
                    m.setattr(solver.FunctionRanges, attr,
                              lambda self, *a, _c=c, **k: (n.__setitem__(0, n[0] + 1), _c(self, *a, **k))[1])
        return lambda: n[0]

    return install


def _twin_off(key: str) -> Callable[[pytest.MonkeyPatch, bool], None]:
    """The compiled module ``key`` unbound in every module that holds it, as
    ``LLNOALIAS_PURE=KEY`` leaves it, without a fresh interpreter (``tests/support/switches.py``)."""

    def switch(m: pytest.MonkeyPatch, fast: bool) -> None:
        if fast:
            return
        switch_twin(m, key, None)

    return switch


def _unbuilt(key: str) -> Callable[[], str | None]:
    def why() -> str | None:
        if twin(key) is not None:
            return None
        if os.environ.get("LLNOALIAS_PURE"):
            return f"LLNOALIAS_PURE selects the pure-Python {key}"
        return f"the compiled {key} is not built here"

    return why


def _table(name: str) -> Callable[[pytest.MonkeyPatch, bool], None]:
    """The row ``name`` of ``llnoalias.shortcuts.SHORTCUTS`` switched (its only switch)."""
    shortcut(name)  # (a name the table lacks fails here, when the rows are made)

    def switch(m: pytest.MonkeyPatch, fast: bool) -> None:
        switch_shortcut(m, name, fast)

    return switch


def _solver_shortcuts(m: pytest.MonkeyPatch, fast: bool) -> None:
    if not fast:
        from llnoalias.analysis.provenance.solver import FunctionAnalysis

        m.setattr(FunctionAnalysis, "solve", reference_solve)


def _workers(defer: bool) -> Callable[[pytest.MonkeyPatch, bool], None]:
    def switch(m: pytest.MonkeyPatch, fast: bool) -> None:
        from llnoalias.transform import pipeline, workers

        # (the sizes are tuning knobs, not switches: lowered so that a small fixture reaches
        # the shortcut)
        if defer:
            # workers in both runs; the bodies read by the process that analyses them, or all at once
            m.setattr(workers, "MIN_GROUP_INSTRUCTIONS", 1)
            m.setattr(workers, "MIN_AVERAGE_INSTRUCTIONS", 0)
            m.setattr(pipeline, "DEFER_CHARS", 0)
            switch_shortcut(m, "deferred-bodies", fast)
        else:
            # a worker per function, or one process (one group): workers are not a switch of
            # the table (-j is theirs), their sizes say where they pay
            m.setattr(workers, "MIN_GROUP_INSTRUCTIONS", 1 if fast else 1 << 62)
            m.setattr(workers, "MIN_AVERAGE_INSTRUCTIONS", 0 if fast else 1 << 62)
            switch_shortcut(m, "deferred-bodies", False)

    return switch


class _Report:
    #: whether the run makes the report (the reference) or leaves it out (the shortcut)
    make = True


def _no_report(m: pytest.MonkeyPatch, fast: bool) -> None:
    m.setattr(_Report, "make", not fast)


def _cli(text: str, path: str) -> object:
    """The console entry, in this process: status, output file, report file, stderr."""
    from llnoalias.cli import entry

    with tempfile.TemporaryDirectory() as d:
        out, rep = os.path.join(d, "out.ll"), os.path.join(d, "report.json")
        argv = [path, "-o", out, "--lds", "all", "--args", "noalias", "--no-verify", "--report", rep]
        err = io.StringIO()
        threshold = gc.get_threshold()  # the entry sets the collector's for a process of its own
        with contextlib.redirect_stderr(err):
            try:
                entry.main(argv)
                code: object = 0
            except SystemExit as done:
                code = done.code
            finally:
                gc.set_threshold(*threshold)
        files = []
        for p in (out, rep):
            if os.path.exists(p):
                with open(p, "rb") as fh:
                    files.append(fh.read())
            else:
                files.append(None)
        return code, files, err.getvalue().replace(d, "DIR")


def _fast_cli(m: pytest.MonkeyPatch, fast: bool) -> None:
    if fast:
        m.delenv("LLNOALIAS_NO_FAST_CLI", raising=False)
    else:
        m.setenv("LLNOALIAS_NO_FAST_CLI", "1")


def _forget_lists(m: pytest.MonkeyPatch, fast: bool) -> None:
    from llnoalias.transform import pipeline

    switch_shortcut(m, "forget-lists", fast)
    # (sizes, not switches) fast: every plan's domains forgotten as soon as can be (any plan,
    # a batch of one instruction)
    if fast:
        m.setattr(pipeline, "FORGET_FROM", 0)
        m.setattr(pipeline, "BATCH", 1)


def _header_line(m: pytest.MonkeyPatch, fast: bool) -> None:
    if not fast:
        switch_twin(m, "body_reader", None, only=("llnoalias.ir.header_reader",))


def _one_line_headers(m: pytest.MonkeyPatch) -> Callable[[], int]:
    """The define lines ``TopLevelReader._function`` read as one line (less those handed to
    ``_function_lines``: with the shortcut off, every one is)."""
    from llnoalias.ir.toplevel_reader import TopLevelReader

    n = [0]
    one_line = TopLevelReader._function
    lines = TopLevelReader._function_lines

    def function(self: TopLevelReader, *args: Any) -> int:
        n[0] += 1
        return one_line(self, *args)

    def function_lines(self: TopLevelReader, *args: Any) -> int:
        n[0] -= 1
        return lines(self, *args)

    m.setattr(TopLevelReader, "_function", function)
    m.setattr(TopLevelReader, "_function_lines", function_lines)
    return lambda: n[0]


def _one_pass(m: pytest.MonkeyPatch) -> Callable[[], int]:
    """The slices solved in one pass (no worklist: ``solve``'s shortcut), in Python or C."""
    from llnoalias.analysis.provenance import solver

    n = [0]
    real = solver.one_pass
    m.setattr(solver, "one_pass", lambda *a: (n.__setitem__(0, n[0] + 1), real(*a))[1])
    ext = twin("fixpoint")
    if ext is not None:
        class Counting:
            def __getattr__(self, name: str) -> Any:
                value = getattr(ext, name)
                if name != "one_pass":
                    return value
                return lambda *a: (n.__setitem__(0, n[0] + 1), value(*a))[1]

        switch_twin(m, "fixpoint", Counting(), only=bound("fixpoint"))
    return lambda: n[0]


def _forked(m: pytest.MonkeyPatch) -> Callable[[], int]:
    """The worker processes forked (``workers.fork_map``: one group stays in the parent)."""
    from llnoalias.transform import workers

    n = [0]
    real = workers.fork_map
    m.setattr(workers, "fork_map", lambda groups, work, local: (n.__setitem__(0, n[0] + len(groups) - 1),
                                                                real(groups, work, local))[1])
    return lambda: n[0]


def _landed_deferred(m: pytest.MonkeyPatch) -> Callable[[], int]:
    """The workers' replies landed in a run whose bodies were read where analysed."""
    from llnoalias.transform.function_pass import FunctionPass

    n = [0]
    real = FunctionPass.land

    def land(self: FunctionPass, indices: range, reply: object) -> bool:
        ok = real(self, indices, reply)
        n[0] += ok and self.state.bodies is not None
        return ok

    m.setattr(FunctionPass, "land", land)
    return lambda: n[0]


def _forgotten(m: pytest.MonkeyPatch) -> Callable[[], int]:
    """The domains whose lists the writer was asked to forget."""
    from llnoalias.transform.metadata import MetadataWriter

    n = [0]
    real = MetadataWriter.forget_all

    def forget_all(self: MetadataWriter, domains: list[str]) -> None:
        n[0] += len(domains)
        real(self, domains)

    m.setattr(MetadataWriter, "forget_all", forget_all)
    return lambda: n[0]


class _CountedWords(tuple):  # type: ignore[type-arg]
    """``dma_addresses.AA_WORDS`` that counts how often it is looked through."""

    reads = 0

    def __iter__(self) -> Any:
        _CountedWords.reads += 1
        return super().__iter__()


def _aa_words_read(m: pytest.MonkeyPatch) -> Callable[[], int]:
    """The spans whose alias words were looked for (negated: ``AA_FIRST`` saves some)."""
    from llnoalias.transform import dma_addresses

    _CountedWords.reads = 0
    m.setattr(dma_addresses, "AA_WORDS", _CountedWords(dma_addresses.AA_WORDS))
    return lambda: -_CountedWords.reads


#: the fixtures of the twins' rows that are not ``REPRESENTATIVE`` (an LDS-DMA kernel solves
#: no slice; a bad module read by the compiled reader up to its error)
_TWIN_FIXTURES = {"fixpoint": REPRESENTATIVE[:4], "body_reader": (*REPRESENTATIVE, "errors/redefined_label.ll")}

#: the twins, by key: each must have a row (``test_every_twin_is_a_fast_path``)
TWIN_ROWS = [
    FastPath(f"compiled-{t.key}", t.source, f"LLNOALIAS_PURE={t.key}", ", ".join(t.references),
             _twin_off(t.key), observe=model if t.key == "body_reader" else outcome,
             unavailable=_unbuilt(t.key), spy=twin_calls(t.key),
             fixtures=_TWIN_FIXTURES.get(t.key, ()))
    for t in compiled.TWINS
]

FAST_PATHS: list[FastPath] = [
    *TWIN_ROWS,
    FastPath("header-fast", "ir.header_reader.HeaderReader._header_fast",
             "shortcuts.ON['header-fast'] = False",
             "the tokenizing header reader (HeaderReader._header_tokens)", _table("header-fast"), observe=model,
             spy=calls(_cls("ir.header_reader", "HeaderReader"), "_header_fast", _not_none),
             fixtures=(*REPRESENTATIVE, "errors/redefined_label.ll")),
    FastPath("body-fast", "ir.body_reader.BodyReader._body_fast (one findall over a body)",
             "shortcuts.ON['body-fast'] = False", "the line-by-line body scanner", _table("body-fast"), observe=model,
             spy=calls(_cls("ir.parser", "_ModuleParser"), "_body_fast", _not_none),
             fixtures=(*REPRESENTATIVE, "errors/undefined_first_on_a_later_line.ll")),
    FastPath("operands-fast", "ir.operands_fast.read_fast (one regex per plain shape)",
             "shortcuts row operands-fast: operands.read_fast bound to read_none",
             "the tokenizing operand parser (operands._parse)", _table("operands-fast"),
             spy=calls(_mod("ir.operands"), "read_fast", _not_none)),
    FastPath("solver-shortcuts", "analysis.provenance.solver.FunctionAnalysis.solve (no worklist "
             "without a loop)", "FunctionAnalysis.solve replaced by tests/support/provenance.py",
             "one optimistic worklist over the whole slice", _solver_shortcuts,
             spy=_one_pass,
             fixtures=REPRESENTATIVE[1:4]),
    FastPath("encoded", "ir.editor.Editor.encoded (the output spliced in one compiled pass)",
             "shortcuts.ON['encoded'] = False", "Editor.chunks, encoded", _table("encoded"),
             spy=calls(_cls("ir.editor", "Editor"), "encoded", _not_none), unavailable=_unbuilt("body_reader")),
    FastPath("workers", "transform.workers (-j: groups of functions in worker processes)",
             "-j 1 (here: the sizes past the module's, one group)", "one process", _workers(defer=False),
             applies=several_functions,
             spy=_forked, forks=True),
    FastPath("deferred-bodies", "ir.parser.parse_module_deferred (each body read by the worker "
             "that analyses it)", "shortcuts.ON['deferred-bodies'] = False: bodies read before the fork",
             "parse_module: every body read at once",
             _workers(defer=True), applies=several_functions,
             spy=_landed_deferred, forks=True),
    FastPath("no-report", "annotate(report=False): the reasons' walk back through the slice skipped",
             "report=True (--stats, --report)", "the output of a run that makes the report",
             _no_report, observe=lambda text, path: output_only(text, path, report=_Report.make),
             spy=calls(_mod("transform.function_pass"), "plan_function", sign=-1,
                       when=lambda a, k: not k.get("brief"))),
    FastPath("fast-cli", "cli.entry.parse_fast (the plain command line read without click)",
             "LLNOALIAS_NO_FAST_CLI=1", "the click command line (cli.main)", _fast_cli, observe=_cli,
             spy=calls(_mod("cli.entry"), "parse_fast", _not_none)),
    FastPath("header-memo", "ir.header_reader: each distinct parameter, prefix and tail text read once",
             "shortcuts row header-memo: its memos keeping nothing", "every header's texts read",
             _table("header-memo"), observe=model,
             spy=memo_hits("header-memo")),
    FastPath("scope-writer", "transform.pipeline._write_scopes (!noalias of distinct buffers without "
             "may_overlap) and MetadataWriter.attach_all_scopes", "shortcuts.ON['scope-writer'] = False",
             "noalias_keys and attach_scopes per access (MetadataWriter.attach_one_by_one)", _table("scope-writer"),
             observe=lambda text, path: output_only(text, path, report=False),
             spy=calls(_mod("transform.pipeline"), "_noalias_ids", sign=-1)),
    FastPath("access-memo", "analysis.memory.accesses.find_accesses (the access of an instruction "
             "whose parsed operands were met before, copied)", "shortcuts row access-memo: a memo that "
             "keeps nothing", "_memory_access / _intrinsic_access for every instruction", _table("access-memo"),
             spy=memo_hits("access-memo"),
             fixtures=("stages/ranges_loop.ll", "stages/regions.ll", "args/trivial_kernels.ll")),
    FastPath("phi-labels-memo", "analysis.ranges.loops.LoopRanges._phi_labels (each distinct phi text "
             "tokenized once)", "shortcuts row phi-labels-memo: a memo that keeps nothing",
             "every phi's text tokenized", _table("phi-labels-memo"),
             spy=memo_hits("phi-labels-memo"),
             fixtures=("stages/ranges_loop.ll",)),
    FastPath("define-line", "ir.parser._ModuleParser.run (a line that starts with 'define' to "
             "_function) and TopLevelReader._function (a one-line header)", "shortcuts.ON['define-line'] "
             "= False: both through _top_level and _function_lines", "_top_level and the header's lines joined",
             _table("define-line"), observe=model,
             spy=_one_line_headers),
    FastPath("roots-memo", "transform.roots.find_roots (each distinct argument type and attribute "
             "set read once)", "shortcuts.ON['roots-memo'] = False: memos that keep nothing",
             "every argument read", _table("roots-memo"),
             spy=calls(_mod("transform.roots"), "_why_not", sign=-1)),
    FastPath("line-shapes", "ir.toplevel_reader.TopLevelReader._add_shaped (a define line whose text but "
             "for its name was read before in the module: its header and body read from what that line "
             "gave, the body by BodyReader._body_plain)", "shortcuts.ON['line-shapes'] = False",
             "every define line through _header_fast and _body_fast", _table("line-shapes"), observe=model,
             spy=calls(_cls("ir.toplevel_reader", "TopLevelReader"), "_add_shaped"),
             fixtures=("stages/ranges_loop.ll", "stages/regions.ll", "errors/undefined_first_in_file_order.ll")),
    FastPath("fresh-domains", "transform.metadata.MetadataWriter.domain_scopes (a domain new to the "
             "module: its lines at once)", "shortcuts.ON['fresh-domains'] = False", "one scope at a time, "
             "each line appended alone", _table("fresh-domains"),
             spy=calls(_cls("transform.metadata", "MetadataWriter"), "fresh_domain", lambda got: got != -1)),
    FastPath("forget-lists", "transform.pipeline._write_scopes and MetadataWriter.forget (a fresh "
             "domain's lists memo dropped once its accesses are written)", "shortcuts.ON['forget-lists'] "
             "= False", "every list kept to the end", _forget_lists,
             spy=_forgotten),
    FastPath("header-line", "ir.header_reader.HeaderReader._header_line (a header whose texts but for its "
             "names the pattern read before: split by the compiled header_line, each part looked up)",
             "header_reader without the compiled twin", "every header through _HEADER_RE and _params", _header_line,
             observe=model, unavailable=_unbuilt("body_reader"),
             spy=calls(_cls("ir.header_reader", "HeaderReader"), "_header_line", _not_none),
             # (no error fixture: one reaches the shortcut only where an earlier test in the same
             # process read a header of its shape, so its row passed or failed by test order)
             fixtures=REPRESENTATIVE),
    FastPath("workgroup-shapes", "analysis.ranges.workgroup.work_group (AMDGPU bounds read once per "
             "distinct own attribute text and attribute groups: _SHAPES)",
             "shortcuts.ON['workgroup-shapes'] = False", "_amdgpu for every function", _table("workgroup-shapes"),
             spy=calls(_mod("analysis.ranges.workgroup"), "_amdgpu", sign=-1),
             fixtures=REPRESENTATIVE[:3]),
    FastPath("aa-first", "transform.dma_addresses._read (a span with no '!' has no alias metadata: "
             "the words are looked for from the first '!' on)", "shortcuts.ON['aa-first'] = False",
             "every word of AA_WORDS looked for over the whole span", _table("aa-first"),
             spy=_aa_words_read,
             fixtures=("dma/asm_wait_kept.ll", "args/opaque_buffer_resource.ll")),
]
