"""One annotation run: parse, find roots, run the stages, splice.
The library's entry point (the CLI only wires files to it).

The run is the tuple of stages :data:`PIPELINE`, run in order by one loop
(:func:`run_stages`)::

    provenance -> ranges -> arguments -> regions -> dma-safety -> scopes -> dma-scopes -> write

The first three conclude per function and run fused, one function at a time
(``function_pass.FunctionPass``, in worker processes for a large module); the others run
once over the module, each on the results of the stages before it. Each returns its own
result (``transform.stages``), handed to the stages after it and, between stages, to the
``after`` callback of :func:`run_stages` (``--print-after`` keeps it, ``--stop-after``,
:func:`run_until`, returns it)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from operator import attrgetter

from .. import reasons, shortcuts
from ..analysis.memory.accesses import asm_memory
from ..analysis.memory.intrinsics import LDS_DMA_TEXT
from ..analysis.provenance.rootset import RootSet
from ..analysis.provenance.solver import ModuleAnalysis
from ..diagnostics import LLNoaliasError
from ..ir.editor import Editor
from ..ir.lazyre import lazy
from ..ir.lexer import split_comment
from ..ir.model import Instruction, Module
from ..ir.parser import BodyMismatch, parse_module, parse_module_deferred
from ..ir.source import SourceFile
from ..options import AnnotateOptions
from ..report.record import AccessRecord, Report, RootRecord
from . import workers
from .attributes import ArgumentsResult
from .dma_safety import (
    dynamic_lds,
    guard,
    lowered,
    rescue,
    residual,
    scope_dmas,
    static_lds,
)
from .function_pass import (
    FUNCTION_STAGES,
    ArgumentsStage,
    FunctionPass,
    ProvenanceStage,
    RangesStage,
    Run,
)
from .metadata import MetadataWriter, md_escape
from .regions import merge_regions, range_note
from .roots import find_roots, missed_roots
from .scopes import (
    Decision,
    Plan,
    Region,
    Rewrites,
    finish,
    noalias_keys,
    outside_lds,
    same_decisions,
)
from .stages import (
    ABOUT,
    Changes,
    RegionsResult,
    Result,
    Results,
    ScopesResult,
    Stage,
    StageLog,
    Withdrawn,
    parse_stage_name,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .metadata import Attachment

_DBG_RE = lazy(r"!dbg\s+!(\d+)")
_DOMAIN = attrgetter("domain")
_KEYS = attrgetter("keys")
#: the fewest domains a plan has for ``_write_scopes`` to have the writer forget the lists
#: of each domain whose accesses are all written (``MetadataWriter.forget``, the
#: ``forget-lists`` shortcut): a module of many small kernels has a domain per kernel,
#: each with lists of its own
FORGET_FROM = 64
#: the most instructions ``_write_scopes`` hands the writer at once (``attach_all_scopes``)
BATCH = 4096


class AnnotateResult:
    """The rewritten module (``text``, or ``chunks()`` to stream it) and the run's report."""

    def __init__(self, editor: Editor | None = None, report: Report | None = None,
                 module: Module | None = None, *, text: str | None = None) -> None:
        self._editor = editor
        self._text = text
        #: What was found and tagged, for ``--stats``, ``explain``, remarks and ``--json``.
        self.report = report if report is not None else Report("")
        self.module = module

    @property
    def text(self) -> str:
        """The rewritten module text (equal to the input when nothing was tagged)."""
        if self._text is None:
            assert self._editor is not None
            self._text = self._editor.render()
        return self._text

    @property
    def changed(self) -> bool:
        """Did the run change anything (without rendering the text)?"""
        if self._editor is not None and self._text is None:
            return self._editor.changed
        return self._editor is None or self.text != self._editor.src.text

    def written(self) -> str | None:
        """All the text the run put into the module (``Editor.written``; ``text`` is the
        editor's rendering), or None where it is not known (a text given whole)."""
        if self._editor is None:
            return None
        return self._editor.written()

    def encoded(self) -> bytes | None:
        """The rewritten text as UTF-8 bytes made in one compiled pass, where that can be
        done (an ASCII module, see ``Editor.encoded``), else None: use ``chunks``."""
        if self._text is not None or self._editor is None:
            return None
        return self._editor.encoded()

    def chunks(self) -> Iterator[str]:
        """The rewritten text in pieces, without building it whole."""
        if self._text is not None or self._editor is None:
            yield self.text
        else:
            yield from self._editor.chunks()


#: the smallest text whose function bodies are read by the processes that analyse them
#: (``parse_module_deferred``, the ``deferred-bodies`` shortcut) when it may be split
#: between processes
DEFER_CHARS = 1 << 20


def annotate_text(text: str, path: str = "<stdin>", options: AnnotateOptions | None = None,
                  want_report: bool = True, jobs: int = 1, stages: StageLog | None = None,
                  release: bool = True) -> AnnotateResult:
    """Annotate one module's text. Raises ``LLNoaliasError`` on bad input.

    With ``want_report=False`` only the report's summary is kept, and, unless not
    ``release``, the plan and the parsed function bodies are released before the result
    is returned (a caller that ends next, the command line, passes ``release=False``:
    freeing them takes time, 5% of a run of 20,000 small kernels, and lowers no peak). ``jobs``: how many processes may analyse
    the functions (``workers``); the result does not depend on it. A large module that
    may be split leaves each body to the process that analyses it (the parent does not
    read the bodies a worker analysed); when that finds an error, the module is read and
    annotated again in one pass, which reports the first error as it always does.

    ``stages``: keeps the results of the stages it names (``transform.stages``); the run
    then stays in this process and its reasons are explained, as for a report."""
    options = options or AnnotateOptions()
    keep = frozenset(stages.names) if stages else frozenset()
    if keep:
        jobs = 1
        want_report = True
    if jobs > 1 and len(text) >= DEFER_CHARS and shortcuts.ON["deferred-bodies"] and workers.can_fork():
        try:
            return _annotate(SourceFile(path, text), options, want_report, jobs, defer=True, release=release)
        except (LLNoaliasError, BodyMismatch):
            pass
        except Exception:
            # a bad module may fail the analysis before its last reference is checked:
            # then the one-pass parse raises what is wrong; else the failure is our own
            parse_module(SourceFile(path, text))
            raise
    return _annotate(SourceFile(path, text), options, want_report, jobs, defer=False, stages=stages,
                     release=release)


def _annotate(src: SourceFile, options: AnnotateOptions, want_report: bool, jobs: int,
              defer: bool, stages: StageLog | None = None, release: bool = True) -> AnnotateResult:
    keep = frozenset(stages.names) if stages else frozenset()
    mod, roots, ma, run, _ = _run(src, options, want_report, jobs, defer, keep, PIPELINE,
                                  stages.add if stages else None)
    p, editor, args, guarded = run.plan, run.editor, run.args, run.guarded
    if want_report:
        report = _report(mod, p, roots, ma)
    else:
        report = Report(src.path)
        if release:
            del p, run, _
            for fn in mod.functions:
                fn.instrs = []
                fn.by_name = {}
    report.args.extend(args.records)
    report.invariant_loads = args.invariant_loads
    report.hints = missed_roots(roots)
    report.warnings.extend(guarded.warnings)
    return AnnotateResult(editor, report, mod)


def _run(src: SourceFile, options: AnnotateOptions, detail: bool, jobs: int, defer: bool,
         keep: frozenset[str], stages: Sequence[Stage], after: Callable[[Result], None] | None = None,
         ) -> tuple[Module, RootSet, ModuleAnalysis, Run, Results]:
    """Parse ``src``, find its roots and run ``stages`` on it (twice when integers loaded
    from memory turn out to be addresses: only the second run's results stand, and
    ``after`` is handed both runs' kept results, the second's last)."""
    mod, bodies = parse_module_deferred(src) if defer else (parse_module(src), None)
    roots = find_roots(mod, options)
    ma = ModuleAnalysis(mod, roots)
    run = Run(mod, ma, roots, options, detail, jobs, bodies, keep)
    got = run_stages(run, stages, after)
    if ma.settle():
        # Some store writes an address: integers loaded from memory are not plain values,
        # and everything that assumed they were is done again.
        run = Run(mod, ma, roots, options, detail, jobs, bodies, keep)
        got = run_stages(run, stages, after)
    return mod, roots, ma, run, got


def run_until(text: str, stage: str, options: AnnotateOptions | None = None, path: str = "<stdin>") -> Result:
    """Run the pipeline on a module's text up to ``stage`` and return that stage's result
    (``llnoalias --stop-after STAGE``): the stages before it run, none after it does, no
    output is made; in this process, with reasons explained. Raises ``LLNoaliasError`` on
    bad input, ``ValueError`` for a name not in ``stages.STAGE_NAMES``."""
    stage = parse_stage_name(stage)
    n = next(i for i, s in enumerate(PIPELINE) if s.name == stage)
    *_, got = _run(SourceFile(path, text), options or AnnotateOptions(), True, 1, False,
                   frozenset((stage,)), PIPELINE[:n + 1])
    return got[stage]


def run_stages(run: Run, stages: Sequence[Stage], after: Callable[[Result], None] | None = None) -> Results:
    """Run ``stages`` (a prefix of :data:`PIPELINE`) in order on ``run`` and return what
    each concluded, by name; ``after`` is called with the result of each stage that
    ``run.keep`` names, as soon as it is made (``--print-after``, ``--stop-after``).

    The per-function stages at the head of the tuple run fused, one function at a time
    (``_run_functions``): their results for the module are made when the first of them is
    reached (only those ``run.keep`` names: a function's result is not kept otherwise).
    Each module stage runs once, a function of the run's inputs and the results of the
    stages before it (``got``), and returns its own."""
    got: Results = {}
    per_function: dict[str, Result] = {}
    for n, stage in enumerate(stages):
        if stage.unit == "function":
            if n == 0:
                group = [s for s in stages if s.unit == "function"]
                assert tuple(stages[:len(group)]) == tuple(group), "the per-function stages come first"
                per_function = _run_functions(run, group)  # type: ignore[arg-type]
            result = per_function.get(stage.name)
        else:
            result = stage.run(run, got)
        if result is None:
            continue
        got[stage.name] = result
        if after is not None and stage.name in run.keep:
            after(result)
    return got


def _run_functions(run: Run, stages: Sequence[ProvenanceStage | RangesStage | ArgumentsStage]) -> dict[str, Result]:
    """The per-function stages, over every function: one at a time, its parsed operands and
    provenance released afterwards, so memory holds one function's analysis at a time.
    With ``run.jobs`` > 1, groups of functions go to worker processes (``workers``); the
    result is the same."""
    mod, jobs = run.mod, run.jobs
    fp = FunctionPass(run, stages)
    groups = workers.split(fp.weights(), jobs) if jobs > 1 and not _tiny_functions(run) else []
    if len(groups) > 1 and workers.can_fork():
        replies = workers.fork_map(groups, fp.ship, fp.run_all)
        for group, reply in zip(groups[1:], replies, strict=True):
            if reply is None or not fp.land(group, reply):
                fp.run_all(group)  # the worker failed: do its share here
    else:
        fp.run_all(range(len(mod.functions)))
    if run.bodies is not None:
        run.bodies.check()  # the rest of the parse, before anything is written
    return dict(fp.module_results())


def _tiny_functions(run: Run) -> bool:
    """Is the module's text too short for its analysed functions to go to workers
    (``workers.surely_one``)? With LDS roots every function is analysed (``domains_of``),
    else each kernel with argument roots is: counted without a call per function."""
    mod = run.mod
    if run.roots.lds:
        analysed = len(mod.functions)
    else:
        analysed = 0
        for ka in run.roots.kernels.values():
            if ka.roots:
                analysed += 1
    return workers.surely_one(mod.text.count("\n") + 1, analysed)


class RegionsStage(Stage):
    """Each LDS root's regions, from the byte ranges of all its accesses (``--regions``)."""

    name = "regions"
    runs, concludes = ABOUT["regions"]

    def run(self, run: Run, got: Results) -> RegionsResult:
        if run.options.regions:
            run.plan = merge_regions(run.plan)
        # the snapshot of every decision's keys only where it is kept (``run_stages``)
        return RegionsResult(run.plan.decisions if self.name in run.keep else (), run.options.regions)


class DmaSafetyStage(Stage):
    """The LDS-DMA rules that withdraw claims the code generator cannot live with
    (``dma_safety``, design section 4b: ``lowered``, ``guard``, and ``outside_lds``'s
    scope for what is not LDS): before the scopes stage counts the domains, so that a
    claim withdrawn here can leave a domain empty. Its result hands on the DMAs of inputs
    already in the unsafe state, which the dma-scopes stage rescues."""

    name = "dma-safety"
    runs, concludes = ABOUT["dma-safety"]

    def run(self, run: Run, got: Results) -> Withdrawn:
        mod = run.mod
        claims = Rewrites(run.plan)
        lowered(mod, claims, run.guarded)
        unsafe_in = guard(claims, dynamic_lds(mod))
        run.plan = outside_lds(mod, claims.plan())
        return Withdrawn(claims.written(), unsafe_in)


class ScopesStage(Stage):
    """Each domain's scopes (``scopes.finish``): a domain left with fewer than two has its
    claims withdrawn."""

    name = "scopes"
    runs, concludes = ABOUT["scopes"]

    def run(self, run: Run, got: Results) -> ScopesResult:
        run.plan = finish(run.plan)
        if self.name not in run.keep:
            return ScopesResult((), {})  # not kept (``run_stages``): no snapshot of the plan
        return ScopesResult(run.plan.decisions, run.plan.domain_keys)


class DmaScopesStage(Stage):
    """The LDS-DMA rules that scope the DMAs the domains left without (``rescue``,
    ``scope_dmas``: a domain of their own) and warn of what llnoalias cannot undo
    (``residual``, ``static_lds``): after the scopes stage, on the dma-safety stage's
    unsafe inputs."""

    name = "dma-scopes"
    runs, concludes = ABOUT["dma-scopes"]

    def run(self, run: Run, got: Results) -> Changes:
        mod, guarded = run.mod, run.guarded
        before = got["dma-safety"]
        assert isinstance(before, Withdrawn)
        claims = Rewrites(run.plan)
        # the unsafe DMAs as the stages since left them
        rescue(claims, same_decisions(run.plan, before.unsafe_in), guarded)
        residual(claims, guarded)
        # (the module's text searched once: a module without LDS-DMA has nothing for either)
        dma = LDS_DMA_TEXT.search(mod.text) is not None
        scope_dmas(mod, claims, _noalias_kernels(mod, run.args) - guarded.lowered if dma else set())
        p = run.plan = claims.plan()
        if dma:
            static_lds(mod, p, guarded)
        changed = claims.written()
        if self.name in run.keep:
            changed += [(d, d.keys, d.reason, d.blocker) for d in claims.added()]
        return Changes(changed)


class Written(Result):
    """The write stage's result: the editor that holds the rewritten module."""

    __slots__ = ("editor",)
    stage = "write"

    def __init__(self, editor: Editor) -> None:
        self.editor = editor

    def text(self) -> str:
        return self.editor.render()


class WriteStage(Stage):
    """Each access's ``!alias.scope`` and ``!noalias`` (``_write_scopes``: an access whose
    own metadata cannot take them is withdrawn), and the metadata nodes the scopes need,
    written at the module's end."""

    name = "write"
    runs, concludes = ABOUT["write"]

    def run(self, run: Run, got: Results) -> Written:
        run.plan = _write_scopes(run.plan, run.writer)
        run.writer.flush()
        return Written(run.editor)


#: The stages of one annotation run, in the order they run (:func:`run_stages`).
PIPELINE: tuple[Stage, ...] = (*FUNCTION_STAGES, RegionsStage(), DmaSafetyStage(), ScopesStage(), DmaScopesStage(),
                               WriteStage())


def _noalias_kernels(mod: Module, args: ArgumentsResult) -> set[str]:
    """The functions with a ``noalias`` pointer argument, in the input or added by
    ``--args noalias`` (``dma_safety.scope_dmas``'s, asked for a module with LDS-DMA)."""
    got = {rec.kernel for rec in args.records if "noalias" in rec.added}
    for fn in mod.functions:
        if any(a.type.is_pointer and "noalias" in a.attrs for a in fn.args):
            got.add(fn.name)
    return got


def _write_scopes(p: Plan, writer: MetadataWriter) -> Plan:
    """Write each tagged access's lists (and, before them, each domain's scopes): the plan
    as written, ``p`` itself unless an access's own metadata could not take its lists
    (withdrawn in a new plan; ``p`` is left as it was)."""
    # Domains and scopes first, in a stable order, so the new lines read top-down.
    ids: dict[int, int] = {}
    #: domain -> its keys, where they are distinct buffers (no region: two keys overlap
    #: only when they are one): an access's !noalias list is then every other key
    plain: dict[str, list] = {}
    domain_scopes = writer.domain_scopes
    #: each key's name escaped (``md_escape``), a memo: kernels share argument names
    escaped: dict[str, str] = {}
    #: the shortcut ``scope-writer``: a domain of distinct buffers gets its !noalias lists
    #: without ``_noalias_ids`` (``plain``), and the accesses are written in one loop
    plain_lists = shortcuts.ON["scope-writer"]
    attach = writer.attach_all_scopes if plain_lists else writer.attach_one_by_one
    for domain, keys in p.domain_keys.items():
        names = []
        for key in keys:
            name = escaped.get(key.name)
            if name is None:
                if len(escaped) >= 4096:
                    escaped.clear()  # a memo, bounded
                name = escaped[key.name] = md_escape(key.name)
            names.append(name)
        # Scopes are found again by name, so two keys of one domain must never share a
        # name (an unnamed argument's "arg0" and an argument named %arg0, a global named
        # "lds_a[0,4)" and that region of @lds_a): a shared id would put an access's own
        # scope in its !noalias list.
        if len(set(names)) != len(names):
            names = _distinct_names(keys)
        sids = domain_scopes(domain, names)
        before = len(ids)
        ids.update(zip(map(id, keys), sids, strict=True))
        # every key new to ``ids``: distinct, and in no domain before this one
        fresh = len(ids) - before == len(keys)
        region = not plain_lists  # (the shortcut off: every domain as if it had a region)
        for key in keys:
            if isinstance(key, Region):
                region = True
                break
        if not region and (fresh or len({id(key) for key in keys}) == len(keys)):
            plain[domain] = keys
    # The decisions of one instruction (one per domain) are adjacent in the plan.
    noalias_of: dict[tuple[str, tuple[int, ...]], tuple[int, ...]] = {}
    #: id of a decision's key list -> its domain and its scopes and noalias lists (the
    #: decisions of a function share their key lists; the lists stay alive in the plan
    #: meanwhile, so their ids are not reused)
    lists_of: dict[int, tuple[str, tuple[int, ...], tuple[int, ...]]] = {}
    #: the domain of the decision before
    cur_domain: str | None = None
    #: domain -> how many decisions with keys it has not yet met, where the writer forgets
    #: a domain's lists once its accesses are written (``FORGET_FROM``): a domain's
    #: decisions are one stretch or a few (those of one function are adjacent)
    left: Counter[str] | None = None
    if len(p.domain_keys) >= FORGET_FROM and shortcuts.ON["forget-lists"]:
        left = Counter(map(_DOMAIN, filter(_KEYS, p.decisions)))
    #: the domains all of whose decisions are met: forgotten once their accesses are written
    done: list[str] = []
    met = start = 0  # decisions with keys met; those met when ``cur_domain`` became the domain
    # one loop, no call per instruction but the writer's (a large module has one per access)
    attachments: list[Attachment] = []
    failed: set[int] = set()
    cur: Instruction | None = None
    own: tuple[int, ...]
    na: tuple[int, ...]
    for d in p.decisions:
        dkeys = d.keys
        if not dkeys:
            continue
        domain = d.domain
        if domain is not cur_domain:
            if left is not None and cur_domain is not None:
                n = left[cur_domain] = left[cur_domain] - (met - start)
                if not n:
                    done.append(cur_domain)
            start = met
            cur_domain = domain
        met += 1
        inst = d.inst
        if (memo := lists_of.get(id(dkeys))) is not None and memo[0] == domain:
            own, na = memo[1], memo[2]
        else:
            own, na = _lists(d, p, ids, plain, noalias_of)
            if len(lists_of) >= 4096:
                # memos, bounded: a module of many kernels has a key list per argument
                lists_of.clear()
            if len(noalias_of) >= 4096:
                noalias_of.clear()
            lists_of[id(dkeys)] = (domain, own, na)
        if inst is cur:
            _, scopes, noalias = attachments[-1]
            attachments[-1] = (inst, scopes + own, noalias + na)
            continue
        cur = inst
        if len(attachments) >= BATCH:
            # the instructions so far are complete: written in the same order, a batch at a time
            failed.update(id(i) for i in attach(attachments))
            attachments = []
            writer.forget_all(done)
            for dom in done:
                plain.pop(dom, None)
            done.clear()
        attachments.append((inst, own, na))
    failed.update(id(i) for i in attach(attachments))
    if not failed:
        return p
    claims = Rewrites(p)
    for at, d in enumerate(p.decisions):
        inst = d.inst
        if not d.keys:
            continue
        if id(inst) in failed:
            claims.withdraw(d, reasons.METADATA_NOT_PLAIN.text, f"line {inst.line}: the access's own metadata", at=at)
    return claims.plan()


def _lists(d: Decision, p: Plan, ids: dict[int, int], plain: dict[str, list],
           noalias_of: dict[tuple[str, tuple[int, ...]], tuple[int, ...]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The scope ids of ``d``'s own list and of its !noalias list (``_write_scopes``)."""
    dkeys = d.keys
    if len(dkeys) != 1:
        own = tuple([ids[id(key)] for key in dkeys])
        return own, _noalias_ids(d, own, p, ids, noalias_of)
    k0 = dkeys[0]
    own = (ids[id(k0)],)
    dom = plain.get(d.domain)
    if dom is not None and not isinstance(k0, Region):
        na = noalias_of.get((d.domain, own))
        if na is None:
            na = noalias_of[(d.domain, own)] = tuple([ids[id(k)] for k in dom if k is not k0])
        return own, na
    return own, _noalias_ids(d, own, p, ids, noalias_of)


def _distinct_names(keys: list) -> list[str]:
    """The keys' escaped names, each made distinct from those before it (``#2``, ``#3``...)."""
    used: set[str] = set()
    names: list[str] = []
    for key in keys:
        name = key.name
        escaped = md_escape(name)
        n = 1
        while escaped in used:
            n += 1
            name = f"{key.name}#{n}"
            escaped = md_escape(name)
        used.add(escaped)
        names.append(escaped)
    return names


def _noalias_ids(d: Decision, own: tuple[int, ...], p: Plan, ids: dict[int, int],
                 noalias_of: dict[tuple[str, tuple[int, ...]], tuple[int, ...]]) -> tuple[int, ...]:
    """The scope ids of ``d``'s !noalias list, for its own scopes ``own`` (one list per
    domain and own scopes, made once)."""
    na = noalias_of.get((d.domain, own))
    if na is None:
        na = noalias_of[(d.domain, own)] = tuple([ids[id(key)] for key in noalias_keys(d.keys, p.domain_keys[d.domain])])
    return na


def _report(mod: Module, p: Plan, roots: RootSet, ma: ModuleAnalysis) -> Report:
    rep = Report(mod.source.path)
    for r in roots.all_roots():
        rep.roots.append(RootRecord(r.domain, r.name, r.kind))
    for keys in p.domain_keys.values():
        for k in keys:
            if isinstance(k, Region) and k.spanning:
                rep.roots.append(RootRecord(k.domain, k.name, "spanning",
                                            f"accesses over regions of bytes [{k.lo}, {k.hi}) of {k.root.name}"))
            elif isinstance(k, Region):
                rep.roots.append(RootRecord(k.domain, k.name, "region", f"bytes [{k.lo}, {k.hi}) of {k.root.name}"))
    rep.skipped_globals = dict(roots.lds_skipped)
    text = mod.text
    count = text.count
    append = rep.accesses.append
    # What an instruction's records share is read once for the decisions of all its
    # domains (adjacent in the plan); its line is counted on from the last one's, as
    # the plan goes down the module (``Instruction.line`` where it goes back).
    prev: Instruction | None = None
    last_off, last_line = 0, 1
    fname = code = ""
    line = col = 0
    dbg: int | None = None
    for d in p.decisions:
        inst = d.inst
        if inst is not prev:
            prev = inst
            start = inst.start
            line_text = text[start:inst.end]
            code = split_comment(line_text).strip()
            if len(code) > 160:
                code = code[:157] + "..."
            col = len(line_text) - len(line_text.lstrip()) + 1
            m = _DBG_RE.search(line_text) if "!dbg" in line_text else None
            dbg = int(m.group(1)) if m else None
            fn = inst.function
            fname = fn.name
            if start >= last_off and fn.source is not None and fn.source.text is text:
                line = last_line + count("\n", last_off, start)
                last_off, last_line = start, line
            else:
                line = inst.line
        tagged = d.keys
        append(AccessRecord(
            fname, line, col, d.access.intrinsic or d.access.kind, code,
            d.domain, bool(tagged), [k.name for k in tagged],
            "" if tagged else (f"{d.reason} ({d.blocker})" if d.blocker else d.reason),
            dbg, range_note(d),
            rule="" if tagged else d.reason, blocker="" if tagged else d.blocker))
    if ma.memory_holds_addresses:
        rep.notes.append(f"integers loaded from memory are treated as addresses: {ma.memory_reason}")
    asm = asm_memory(mod)
    if asm:
        words = list(dict.fromkeys(asm))
        what = ", ".join(words[:4]) + (f" and {len(words) - 4} more" if len(words) > 4 else "")
        rep.notes.append(reasons.INLINE_ASM_MEMORY.format(count=len(asm), what=what))
    return rep
