"""The per-function stages of an annotation run (provenance, ranges), and argument edits.

The pipeline's first two stages conclude per function: :class:`ProvenanceStage` decides
each access in each domain (``scopes.plan_function``) and :class:`RangesStage` measures
the byte ranges of the LDS ones (``regions.RegionSplitter``). ``FunctionPass`` runs them
one function at a time, the one on the other's result (as LLVM's function-pass adaptor
runs a function pipeline), then the function's argument edits, and releases the
function's analysis before the next, so memory holds one function's analysis at a time.

``FunctionPass.run`` does one function in this process. For a large module the pipeline
may hand groups of functions to worker processes (``workers``): a worker calls ``ship``,
which runs the per-function stages on its group and returns plain data, each function's
decisions as flat columns, one per field (no instruction, root or analysis object
crosses the pipe: instructions go as their index in the function and their span, roots as
their ``id()``, which a forked worker shares with its parent), and the parent calls ``land``
to rebuild the decisions on its own objects, in function order. When the parse left the
bodies to be read where used, a worker reads its group's and the parent does not: the
instructions are rebuilt from their spans, and the worker sends the references its bodies
leave to check.
"""

from __future__ import annotations

from bisect import bisect_right

from ..analysis.memory.accesses import RELEASED, Access
from ..analysis.provenance.lattice import Root
from ..analysis.provenance.rootset import KernelArgs, RootSet
from ..analysis.provenance.solver import ModuleAnalysis
from ..ir.editor import Editor
from ..ir.model import Function, Instruction, Module
from ..ir.parser import DeferredBodies
from ..options import AnnotateOptions
from ..report.record import ArgRecord
from .attributes import (
    RO_SLOT,
    WO_SLOT,
    ArgumentsResult,
    KernelEdits,
    LineArgRecord,
    StampedArgRecord,
    apply_arguments,
    arguments_of,
    kernel_edits,
    mark_invariant,
)
from .dma_addresses import summarise
from .dma_safety import Guarded, has_lowered_dma
from .metadata import MetadataWriter
from .regions import RegionSplitter
from .scopes import (
    SHAPE_MAX,
    SHAPES_LIMIT,
    TRIVIAL_OPCODES,
    Decision,
    PlainDecision,
    Plan,
    plan_function,
    trivial_plan,
)
from .stages import ABOUT, ByteRanges, Facts, FunctionResult, PerFunction, Result, Stage

TYPE_CHECKING = False  # ``typing`` is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..ir.parser import Refs
    from ..ir.shapes import LineShape
    from .attributes import StampSpec

    #: one function's decisions as plain data, one column per field, an item per decision:
    #: the instruction's index in its function, the access's kind and intrinsic, the domain,
    #: the roots' ids, tagged, reason, blocker, range note, byte range, and the address
    #: summary of an access in a function with LDS-DMA (``dma_safety``); empty for none
    Columns = tuple[tuple[int, ...], tuple[str, ...], tuple[str | None, ...], tuple[str, ...],
                    tuple[tuple[int, ...], ...], tuple[bool, ...], tuple[str, ...], tuple[str, ...],
                    tuple[str, ...], tuple[tuple[int, int] | None, ...], tuple[tuple | None, ...]] | tuple[()]
    #: an instruction a decision is about: its index, result name, opcode, start, length
    #: and opcode offset (``Instruction``'s fields: the parent may not have read the body)
    ShippedInst = tuple[int, str | None, str, int, int, int]
    #: a worker's reply: per function of its group, its decisions' columns, their
    #: instructions and its argument edits; whether some result relied on a loaded integer
    #: being a plain value; and the references the bodies it read leave to check (a
    #: deferred parse)
    Reply = tuple[list[tuple[Columns, list[ShippedInst], KernelEdits | None]], bool, Refs | None]


class ProvenanceStage(Stage):
    """Each access's root(s) in each domain it concerns, or why its pointer is unknown
    (and, in a function with LDS-DMA, each LDS access's address summary, read while the
    function's operands are alive: ``dma_addresses.summarise``)."""

    name = "provenance"
    unit = "function"
    runs, concludes = ABOUT["provenance"]

    def run(self, fp: FunctionPass, fn: Function, previous: FunctionResult | None) -> Facts:
        run = fp.state
        made = plan_function(run.mod, run.ma, run.roots, fn, run.plan, brief=not run.detail)
        facts = Facts(fn.name, made)
        summarise(run.mod, fn, made)
        return facts


class RangesStage(Stage):
    """The bytes of its root each tagged single-root LDS access can touch, or why not
    (with ``--regions``; without, nothing is measured)."""

    name = "ranges"
    unit = "function"
    runs, concludes = ABOUT["ranges"]

    def run(self, fp: FunctionPass, fn: Function, previous: FunctionResult | None) -> ByteRanges:
        assert previous is not None, "the ranges stage runs after the provenance stage"
        made = previous.decisions
        splitter = fp.splitter
        if splitter is None:
            return ByteRanges(fn.name, made, measured=False)
        splitter.measure(made)  # type: ignore[arg-type]  # a list: the plan's own decisions
        splitter.release(fn)
        return ByteRanges(fn.name, made, measured=True)


class Run:
    """What the stages of one run share: the module and its analysis, the options, the
    plan the stages conclude into, the editor and metadata writer, the argument edits, the
    LDS-DMA warnings, and the results kept (those of the stages named in ``keep``).

    ``detail``: reasons are explained (for a report). ``jobs``: how many processes may run
    the per-function stages. ``bodies``: the reader of a deferred parse."""

    def __init__(self, mod: Module, ma: ModuleAnalysis, roots: RootSet, options: AnnotateOptions,
                 detail: bool = True, jobs: int = 1, bodies: DeferredBodies | None = None,
                 keep: frozenset[str] = frozenset()) -> None:
        self.mod = mod
        self.ma = ma
        self.roots = roots
        self.options = options
        self.detail = detail
        self.jobs = jobs
        self.bodies = bodies
        self.keep = keep
        self.plan = Plan()
        self.editor = Editor(mod.source)
        self.writer = MetadataWriter(mod, self.editor)
        self.args = ArgumentsResult()
        self.guarded = Guarded()
        #: the kept stages' results, by name
        self.results: dict[str, Result] = {}


#: the pipeline's per-function stages, in order (``pipeline.PIPELINE`` begins with them)
FUNCTION_STAGES: tuple[ProvenanceStage | RangesStage, ...] = (ProvenanceStage(), RangesStage())

#: take the lean way through a trivial kernel (``scopes.plan_trivial``) where it applies;
#: off, every function takes the stages (tests/support/fast_paths.py, "trivial-kernel")
LEAN = True


#: stamp a trivial kernel from the template of a kernel of the same body and define line
#: (``LeanTemplate``); off, each is planned and its edits made (tests/support/fast_paths.py,
#: "lean-template")
TEMPLATES = True
#: stamp the kernels after a kernel of a template that it stands for too in the same call,
#: each checked by its define line, body text and arguments rooted (``FunctionPass._stamp``);
#: off, each is looked up alone (tests/support/fast_paths.py, "stamp-runs")
STAMP_RUNS = True
#: tests: also stamp each trivial kernel with the template made from it (what the lean way
#: gave it, made again from the template), so that a module of one kernel each shape takes
#: the stamp (tests/support/fast_paths.py, "lean-template")
STAMP_EVERY = False


class LeanTemplate:
    """What the lean way (``scopes.trivial_plan``, ``attributes.kernel_edits``) gave a
    trivial kernel, less what is the kernel's own (its name, instructions, roots, argument
    offsets and lines): the same for every kernel of one body text (``scopes.body_key``)
    and one define line but for its name (``Function.arg_shape``: the same arguments'
    names, types and attributes, so, under one run's options without ``--may-alias``, the
    same arguments rooted, the same reasons for those that are not, the same effects and
    attributes added). Made by :meth:`make` from a kernel of a body met before
    (``Plan.trivial_shapes``), stamped by ``FunctionPass._stamp`` on the kernels after it.

    ``rooted``: the indices of the rooted arguments (each kernel's are checked);
    ``decisions``: per decision, the place of its instruction and its root's argument
    index; ``shared``: two decisions have one root (they share its list, as
    ``trivial_plan`` makes them); ``specs``: per argument record, in order, the spec its
    ``StampedArgRecord`` reads from (a line counted from the kernel's first
    instruction's); ``lines``: some spec holds a line; ``gap``: the first instruction's
    line less the define line's, in the kernel it was made from (a guess for the others:
    checked); ``inserts``: per attribute insert, the place of its argument and its text;
    ``invariant``: the places of the loads that get ``!invariant.load``; ``count``: the
    instructions. ``body`` and ``line``: the key the template is kept by
    (``FunctionPass.templates``), None until it is kept."""

    __slots__ = ("rooted", "decisions", "shared", "specs", "lines", "gap", "inserts", "invariant", "count", "body",
                 "line")

    def __init__(self, rooted: frozenset[int], decisions: tuple[tuple[int, int], ...], shared: bool,
                 specs: tuple[StampSpec, ...], gap: int, inserts: tuple[tuple[int, str], ...],
                 invariant: tuple[int, ...], count: int) -> None:
        self.rooted = rooted
        self.decisions = decisions
        self.shared = shared
        self.specs = specs
        self.lines = any(spec[7] for spec in specs)
        self.gap = gap
        self.inserts = inserts
        self.invariant = invariant
        self.count = count
        self.body: str | None = None
        self.line: LineShape | None = None

    @staticmethod
    def make(fn: Function, ka: KernelArgs, made: list[Decision], edits: KernelEdits) -> LeanTemplate | None:
        """The template of ``fn``, whose decisions are ``made`` and argument edits
        ``edits``; None when some part of them is not read back as expected (then no
        template: each kernel goes the lean way)."""
        instrs = fn.instrs
        src = fn.source
        if src is None or not instrs:
            return None
        place = {id(inst): n for n, inst in enumerate(instrs)}
        index_of = {id(r): i for i, r in ka.roots.items()}
        decisions: list[tuple[int, int]] = []
        lists: dict[int, object] = {}
        for d in made:
            rs = d.roots
            if type(d) is not PlainDecision or d.keys is not rs or len(rs) != 1 or d.domain != ka.domain:
                return None
            i = index_of.get(id(rs[0]))
            n = place.get(id(d.inst))
            if i is None or n is None or lists.setdefault(i, rs) is not rs:
                return None
            decisions.append((n, i))
        first = bisect_right(src.line_starts, instrs[0].start)
        specs: list[StampSpec] = []
        for r in edits.records:
            if r.kernel != fn.name:
                return None
            if type(r) is LineArgRecord:
                ro, wo = RO_SLOT.__get__(r), WO_SLOT.__get__(r)
                bits = (ro.__class__ is int) | (wo.__class__ is int) << 1
                specs.append((r.index, r.name, r.rooted, r.reason, ro - first if bits & 1 else ro,
                              wo - first if bits & 2 else wo, r.added, bits, LineArgRecord))
            elif type(r) is ArgRecord:
                specs.append((r.index, r.name, r.rooted, r.reason, r.readonly, r.writeonly, r.added, 0, ArgRecord))
            else:
                return None
        arg_place = {a.insert_at: n for n, a in enumerate(fn.args)}
        end_place = {inst.end: n for n, inst in enumerate(instrs)}
        try:
            inserts = tuple([(arg_place[at], text) for at, text in edits.inserts])
            invariant = tuple([end_place[at] for at in edits.invariant_at])
        except KeyError:
            return None
        return LeanTemplate(frozenset(ka.roots), tuple(decisions), len(lists) != len(decisions), tuple(specs),
                            first - fn.line, inserts, invariant, len(instrs))


class FunctionPass:
    """Runs the per-function stages over one function at a time into one plan, editor and
    argument result."""

    name = "function"

    def __init__(self, run: Run, stages: Sequence[ProvenanceStage | RangesStage] = FUNCTION_STAGES) -> None:
        #: the run's state (module, analysis, roots, options, plan, editor, writer, argument
        #: edits, the reader of a deferred parse, and ``keep``: the stages whose per-function
        #: results are kept, those asked for by ``--print-after`` or ``--stop-after``; the
        #: run then stays in one process)
        self.state = run
        self.splitter = RegionSplitter(run.mod, keep_notes=run.detail) if run.options.regions else None
        #: the per-function stages to run, in order (the first is the provenance stage)
        self.stages = tuple(stages)
        self.results: dict[str, list[FunctionResult]] = {s.name: [] for s in self.stages if s.name in run.keep}
        #: a trivial kernel may skip the stages: no stage's result is kept, and the stages
        #: are the pipeline's (on its decisions, none in the LDS domain, the ranges stage
        #: measures nothing and ``summarise`` reads nothing)
        self.lean = LEAN and not self.results and self.stages == FUNCTION_STAGES[:len(self.stages)]
        #: the trivial kernels' templates by body text and define line (``LeanTemplate``);
        #: None: none made (off, or ``--may-alias``: a kernel's roots are its groups')
        self.templates: dict[tuple[str, object], LeanTemplate] | None = (
            {} if TEMPLATES and self.lean and run.plan.trivial_shapes is not None and not run.options.may_alias
            else None)
        #: the module's line starts, once a stamped kernel needs them (``_line_starts``)
        self._starts: Sequence[int] | None = None

    def weights(self) -> list[int]:
        """The work each function is expected to take, for splitting the module between
        workers: its instructions when some domain concerns it, else none (``plan_function``
        passes it over in a moment); for a body not read yet, its lines."""
        domains_of = self.state.roots.domains_of
        return [(fn.deferred_lines if fn.body_pending else len(fn.instrs)) if domains_of(fn) else 0
                for fn in self.state.mod.functions]

    def run(self, fn: Function) -> None:
        """Analyse ``fn`` and write what it decided."""
        if self.lean and self._lean([fn], 0, 1, False) is not None:
            return
        _, edits = self._stages(fn)
        apply_arguments(edits, self.state.editor, self.state.writer, self.state.args)

    def run_all(self, indices: range) -> None:
        """``run`` each function of ``indices`` (a call less each: a module of many small
        kernels has tens of thousands; the kernels of one template one after another are
        stamped by one call, ``_stamp``)."""
        fns = self.state.mod.functions
        if not self.lean:
            for i in indices:
                self.run(fns[i])
            return
        assert indices.step == 1, "a group of functions is a range of them"
        lean = self._lean
        i, stop = indices.start, indices.stop
        while i < stop:
            got = lean(fns, i, stop, False)
            if got is not None:
                i = got[2]
                continue
            _, edits = self._stages(fns[i])
            apply_arguments(edits, self.state.editor, self.state.writer, self.state.args)
            i += 1

    def module_results(self) -> dict[str, PerFunction]:
        """The kept stages' results for the module: each one's per-function results."""
        return {name: PerFunction(name, got) for name, got in self.results.items()}

    def _analyse(self, fn: Function) -> tuple[list[Decision], KernelEdits | None]:
        if self.lean:
            got = self._lean([fn], 0, 1, True)
            if got is not None:
                return got[0], got[1]
        return self._stages(fn)

    def _lean(self, fns: Sequence[Function], i: int, stop: int,
              ship: bool) -> tuple[list[Decision], KernelEdits | None, int] | None:
        """The lean way through ``fns[i]`` when it is a trivial kernel
        (``scopes.trivial_plan``): its decisions planned and its argument edits made, and
        applied here unless ``ship`` (then returned with the decisions; else the decisions
        returned are only not None), and the index after the last function done. None, and
        nothing done, for any other function. A template kept for it (found or made now)
        is stamped on the kernels after it, up to ``stop``, that it stands for too
        (``_stamp``); with ``ship``, ``stop`` is ``i + 1``.

        A kernel ``trivial_plan`` plans: what its text says (``accesses.PlainShape``), which
        the argument pass reads in place of a scan; its decisions hold no analysis. It has
        no LDS-DMA (only plain loads and stores), so rule (c) of design section 4b does not
        concern it (``has_lowered_dma``: False). A kernel of a body and define line met
        before takes their template (``LeanTemplate``): what it gave that kernel, stamped
        with this one's own."""
        run = self.state
        fn = fns[i]
        ka = run.roots.kernels.get(fn.name)
        if ka is None or not ka.roots:
            return None
        instrs = fn.instrs
        body: str | None = None
        if instrs:
            head = instrs[0]
            if head.opcode not in TRIVIAL_OPCODES:
                return None  # (most kernels that are not trivial begin with something else)
            if len(instrs) <= SHAPE_MAX:
                # (``scopes.body_key``)
                last = instrs[-1]
                body = run.mod.source.text[head.start:last.start + last._len]
        templates = self.templates
        line = fn.arg_shape
        if templates is not None and line is not None and body is not None:
            t = templates.get((body, line))
            if t is not None and ka.roots.keys() == t.rooted:
                return self._stamp(fns, i, stop, t, ship, instrs, ka)
        mod = run.mod
        got = trivial_plan(mod, fn, ka, run.plan, body)
        if got is None:
            return None
        made, shape, remembered = got
        if self.splitter is not None:
            self.splitter.release(fn)  # (as the ranges stage, not run, would)
        edits = kernel_edits(mod, run.ma, fn, ka, run.options, False, shape)
        run.ma.release(fn)
        kept: LeanTemplate | None = None
        if templates is not None and body is not None and (remembered and line is not None or STAMP_EVERY):
            # a body met before (``Plan.trivial_shapes``): its template, for those to come
            t = LeanTemplate.make(fn, ka, made, edits)
            if t is not None:
                if line is not None:
                    if len(templates) >= SHAPES_LIMIT:
                        templates.clear()
                    templates[(body, line)] = kept = t
                    t.body, t.line = body, line
                if STAMP_EVERY:
                    del run.plan.decisions[len(run.plan.decisions) - len(made):]
                    return self._stamp(fns, i, stop, t, ship, instrs, ka)
        if ship:
            return made, edits, i + 1
        apply_arguments(edits, run.editor, run.writer, run.args)
        if kept is not None and i + 1 < stop and STAMP_RUNS:
            return made, None, self._stamp(fns, i + 1, stop, kept, False)[2]
        return made, None, i + 1

    def _stamp(self, fns: Sequence[Function], i: int, stop: int, t: LeanTemplate, ship: bool,
               instrs: list[Instruction] | None = None,
               ka: KernelArgs | None = None) -> tuple[list[Decision], KernelEdits | None, int]:
        """``_lean`` for ``fns[i]``, a kernel of the template ``t`` (``instrs`` and ``ka``
        its instructions and arguments; None: it is checked as the kernels after it are),
        and for each kernel after it, up to ``stop``, that ``t`` stands for as well (as
        ``_lean`` would find it: ``t`` is kept, and the kernel has its body and define line
        and its arguments rooted): what ``trivial_plan`` and ``kernel_edits`` give each, made
        from ``t`` and the kernel's own instructions, roots, name, offsets and lines. Unless
        ``ship`` (one kernel), the decisions go into the plan and the edits are applied (the
        kernels' edits of one text by one call, ``Editor.insert_many``), and the decisions
        are not returned. Returns them, the edits when ``ship``, and the index after the
        last kernel stamped."""
        assert not ship or stop == i + 1, "a kernel shipped is stamped alone"
        run = self.state
        made: list[Decision] = run.plan.decisions if not ship else []
        add = made.append
        records: list[ArgRecord] = [] if ship else run.args.records
        keep = records.append
        stamped = StampedArgRecord
        decisions, shared, specs, invariant = t.decisions, t.shared, t.specs, t.invariant
        places: list[list[int]] = [[] for _ in t.inserts]
        adds = [(n, at.append) for (n, _), at in zip(t.inserts, places, strict=True)]
        ends: list[int] = []
        end = ends.append
        gap = t.gap if t.lines else None
        starts = self._starts if self._starts is not None or gap is None else self._line_starts(fns[i])
        nstarts = len(starts) if starts is not None else 0
        # what ``_lean`` looks ``t`` up by, checked for each kernel after the first
        body, line, count, rooted = t.body, t.line if STAMP_RUNS else None, t.count, t.rooted
        size = len(body) if body is not None else -1
        text = run.mod.source.text
        kernels = run.roots.kernels
        splitter = self.splitter
        ma = run.ma
        while i < stop:
            fn = fns[i]
            if instrs is None or ka is None:
                # (``_lean``'s look-up: the same key, so ``t``, and the same arguments rooted)
                if line is None or body is None or fn.arg_shape is not line:
                    break
                ka = kernels.get(fn.name)
                if ka is None or ka.roots.keys() != rooted:
                    break
                instrs = fn.instrs
                if len(instrs) != count:
                    break
                start = instrs[0].start
                last = instrs[-1]
                if last.start + last._len - start != size or not text.startswith(body, start):
                    break
            kroots = ka.roots
            domain = ka.domain
            if shared:
                lists: dict[int, list[Root]] = {}
                for pos, a in decisions:
                    rs = lists.get(a)
                    if rs is None:
                        rs = lists[a] = [kroots[a]]
                    add(PlainDecision(instrs[pos], domain, rs))
            else:
                for pos, a in decisions:
                    add(PlainDecision(instrs[pos], domain, [kroots[a]]))
            kernel = fn.name
            first = 0
            if gap is not None:
                # the line of its first instruction: the template's distance from the define
                # line, checked against the line starts (else looked up)
                start = instrs[0].start
                first = fn.line + gap
                if not (0 < first < nstarts and starts[first - 1] <= start < starts[first]):  # type: ignore[index]
                    first = bisect_right(starts, start)  # type: ignore[arg-type]
            for spec in specs:
                r = stamped()
                r.kernel = kernel
                r.first = first
                r.spec = spec
                keep(r)
            if splitter is not None and splitter.ranges:
                splitter.release(fn)
            if ma.functions or ma._slots:
                # (its instructions' operands: none parsed, as no part of the kernel was read)
                ma.release(fn)
            fargs = fn.args
            for n, at in adds:
                at(fargs[n].insert_at)
            for pos in invariant:
                inst = instrs[pos]
                end(inst.start + inst._len)  # (its end)
            instrs = ka = None
            i += 1
        if ship:
            run.plan.decisions.extend(made)
            edits = KernelEdits()
            edits.records = records
            edits.inserts = [(where[0], attrs) for (_, attrs), where in zip(t.inserts, places, strict=True)]
            edits.invariant_at = ends
            return made, edits, i
        editor = run.editor
        for (_, attrs), where in zip(t.inserts, places, strict=True):
            editor.insert_many(where, attrs)
        if ends:
            mark_invariant(ends, editor, run.writer, run.args)
        return made, None, i

    def _line_starts(self, fn: Function) -> Sequence[int]:
        """The line starts of the module's text (``fn``'s source), read once."""
        starts = self._starts
        if starts is None:
            src = fn.source
            assert src is not None, "a template is made only for a kernel with its source (``LeanTemplate.make``)"
            starts = self._starts = src.line_starts
        return starts

    def _stages(self, fn: Function) -> tuple[list[Decision], KernelEdits | None]:
        """The per-function stages on ``fn``, and its argument edits."""
        run = self.state
        mod, ma = run.mod, run.ma
        result: FunctionResult | None = None
        for stage in self.stages:
            result = stage.run(self, fn, result)
            kept = self.results.get(stage.name)
            if kept is not None and result.decisions:
                kept.append(result)
        made: list[Decision] = result.decisions if result is not None else []  # type: ignore[assignment]
        # rule (c) of design section 4b: a kernel with an LDS-DMA that cannot be scoped gets no noalias
        lowered = run.options.args == "noalias" and has_lowered_dma(mod, made)
        args = arguments_of(mod, ma, run.roots, run.options, fn, lowered)
        for d in made:
            # what is left of a decision once its function is done: no analysis, no operands
            d.fa = None
            d.access.release()
        ma.release(fn)
        return made, args

    # ----------------------------------------------------------- workers
    def ship(self, indices: range) -> Reply:
        """In a worker: analyse the functions ``indices`` and return them as plain data:
        per function, its decisions as flat columns (``Columns``)."""
        fns = self.state.mod.functions
        for i in indices:
            fns[i].instrs  # noqa: B018 - read the group's bodies first: a bad one ends the worker
        out: list[tuple[Columns, list[ShippedInst], KernelEdits | None]] = []
        for i in indices:
            fn = fns[i]
            made, edits = self._analyse(fn)
            index = {id(inst): n for n, inst in enumerate(fn.instrs)} if made else {}
            insts: dict[int, ShippedInst] = {}
            rows = []
            for d in made:
                acc = d.access  # (read once: a ``PlainDecision`` makes it at each read)
                inst = acc.inst
                n = index[id(inst)]
                if n not in insts:
                    insts[n] = (n, inst.name, inst.opcode, inst.start, inst._len, inst._op)
                rows.append((n, acc.kind, acc.intrinsic, d.domain, tuple([id(r) for r in d.roots]),
                             bool(d.keys), d.reason, d.blocker, d.range_note, d.byte_range, d.dma))
            columns: Columns = tuple(zip(*rows, strict=True)) if rows else ()
            out.append((columns, list(insts.values()), edits))
        return out, self.state.ma.loaded_int_used, None if self.state.bodies is None else self.state.bodies.refs()

    def land(self, indices: range, reply: object) -> bool:
        """In the parent: take a worker's reply for ``indices``, as ``run`` would have left
        them. False (and nothing taken) when the reply does not fit this module. A body
        the parent has not read is not read for it: the worker's instructions stand in."""
        try:
            got: Reply = reply  # type: ignore[assignment]  # checked as it is read
            per_fn, loaded_int_used, refs = got
            if len(per_fn) != len(indices):
                return False
            roots = self._roots_by_id()
            #: the roots of one tuple of ids, one list for all its decisions (as a decision's
            #: roots and keys share one: never changed in place, only rebound)
            root_lists: dict[tuple[int, ...], list[Root]] = {}
            fns = self.state.mod.functions
            rebuilt: list[tuple[list[Decision], KernelEdits | None]] = []
            for i, (columns, shipped_insts, edits) in zip(indices, per_fn, strict=True):
                if columns and len(columns) != 11:
                    return False
                fn = fns[i]
                insts: dict[int, Instruction] = {}
                if fn.body_pending:
                    for n, name, opcode, start, length, op in shipped_insts:
                        insts[n] = Instruction(name, opcode, start, start + length, fn, start + op if op >= 0 else -1)
                else:
                    instrs = fn.instrs
                    for n, *_ in shipped_insts:
                        if not 0 <= n < len(instrs):
                            return False
                        insts[n] = instrs[n]
                made: list[Decision] = []
                acc: Access
                last = -1
                for n, kind, intrinsic, domain, rids, tagged, reason, blocker, note, brange, dma in zip(
                        *columns, strict=True):
                    rs: Sequence[Root] = ()
                    if rids:
                        got_rs = root_lists.get(rids)
                        if got_rs is None:
                            got_rs = root_lists[rids] = [roots[r] for r in rids]
                        rs = got_rs
                    inst = insts[n]
                    if (tagged and intrinsic is None and kind == inst.opcode and not reason and not blocker
                            and not note and brange is None and dma is None):
                        # all its access says is its instruction: as ``plan_trivial`` makes them
                        made.append(PlainDecision(inst, domain, rs))
                        continue
                    if n != last:  # the decisions of one access are adjacent (plan_function)
                        acc = Access(inst, kind, RELEASED, RELEASED, intrinsic)
                        last = n
                    made.append(Decision(acc, None, domain, rs, rs if tagged else (), reason, blocker, note, brange,
                                         dma))
                rebuilt.append((made, edits))
        except (KeyError, IndexError, TypeError, ValueError):
            return False
        if self.state.bodies is not None:
            if refs is None:
                return False
            self.state.bodies.add_refs(refs)
            self.state.bodies.read_elsewhere.update(fns[i].name for i in indices)
        for made, edits in rebuilt:
            self.state.plan.decisions.extend(made)
            apply_arguments(edits, self.state.editor, self.state.writer, self.state.args)
        if loaded_int_used:
            self.state.ma.loaded_int_used = True
        return True

    def _roots_by_id(self) -> dict[int, Root]:
        return {id(r): r for r in self.state.roots.all_roots()}


__all__ = ["FunctionPass"]
