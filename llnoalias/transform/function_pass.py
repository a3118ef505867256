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
    ``trivial_plan`` makes them); ``records``: the fields after the kernel of each
    ``ArgRecord`` of the kernel's arguments, then ``line_records``: of each
    ``LineArgRecord`` after them, bit 1 (its ``readonly`` holds a line) and bit 2
    (``writeonly``) and the fields after the kernel, a line counted from the kernel's
    first instruction's; ``inserts``: per attribute insert, the place of its argument and
    its text; ``invariant``: the places of the loads that get ``!invariant.load``."""

    __slots__ = ("rooted", "decisions", "shared", "records", "line_records", "inserts", "invariant")

    def __init__(self, rooted: frozenset[int], decisions: tuple[tuple[int, int], ...], shared: bool,
                 records: tuple[tuple, ...], line_records: tuple[tuple, ...], inserts: tuple[tuple[int, str], ...],
                 invariant: tuple[int, ...]) -> None:
        self.rooted = rooted
        self.decisions = decisions
        self.shared = shared
        self.records = records
        self.line_records = line_records
        self.inserts = inserts
        self.invariant = invariant

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
        records: list[tuple] = []
        line_records: list[tuple] = []
        order: list[int] = []  # (the records' order: those of ``records`` first, then those with lines)
        for r in edits.records:
            if r.kernel != fn.name:
                return None
            if type(r) is LineArgRecord:
                ro, wo = RO_SLOT.__get__(r), WO_SLOT.__get__(r)
                bits = (ro.__class__ is int) | (wo.__class__ is int) << 1
                line_records.append((bits, r.index, r.name, r.reason, ro - first if bits & 1 else ro,
                                     wo - first if bits & 2 else wo, r.added))
                order.append(1)
            elif type(r) is ArgRecord:
                records.append((r.index, r.name, r.rooted, r.reason, r.readonly, r.writeonly, r.added))
                order.append(0)
            else:
                return None
        if order != sorted(order):
            return None  # (a record without a line after one with: stamped out of order)
        arg_place = {a.insert_at: n for n, a in enumerate(fn.args)}
        end_place = {inst.end: n for n, inst in enumerate(instrs)}
        try:
            inserts = tuple([(arg_place[at], text) for at, text in edits.inserts])
            invariant = tuple([end_place[at] for at in edits.invariant_at])
        except KeyError:
            return None
        return LeanTemplate(frozenset(ka.roots), tuple(decisions), len(lists) != len(decisions), tuple(records),
                            tuple(line_records), inserts, invariant)


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
        if self.lean and self._lean(fn, False) is not None:
            return
        _, edits = self._stages(fn)
        apply_arguments(edits, self.state.editor, self.state.writer, self.state.args)

    def run_all(self, indices: range) -> None:
        """``run`` each function of ``indices`` (a call less each: a module of many small
        kernels has tens of thousands)."""
        fns = self.state.mod.functions
        if not self.lean:
            for i in indices:
                self.run(fns[i])
            return
        lean = self._lean
        for i in indices:
            fn = fns[i]
            if lean(fn, False) is None:
                _, edits = self._stages(fn)
                apply_arguments(edits, self.state.editor, self.state.writer, self.state.args)

    def module_results(self) -> dict[str, PerFunction]:
        """The kept stages' results for the module: each one's per-function results."""
        return {name: PerFunction(name, got) for name, got in self.results.items()}

    def _analyse(self, fn: Function) -> tuple[list[Decision], KernelEdits | None]:
        if self.lean:
            got = self._lean(fn, True)
            if got is not None:
                return got
        return self._stages(fn)

    def _lean(self, fn: Function, ship: bool) -> tuple[list[Decision], KernelEdits | None] | None:
        """The lean way through ``fn`` when it is a trivial kernel (``scopes.trivial_plan``):
        its decisions planned and its argument edits made, and applied here unless ``ship``
        (then returned with the decisions; else what is returned is only not None). None,
        and nothing done, for any other function.

        A kernel ``trivial_plan`` plans: what its text says (``accesses.PlainShape``), which
        the argument pass reads in place of a scan; its decisions hold no analysis. It has
        no LDS-DMA (only plain loads and stores), so rule (c) of design section 4b does not
        concern it (``has_lowered_dma``: False). A kernel of a body and define line met
        before takes their template (``LeanTemplate``): what it gave that kernel, stamped
        with this one's own."""
        run = self.state
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
                return self._stamp(fn, instrs, ka, t, ship)
        mod = run.mod
        got = trivial_plan(mod, fn, ka, run.plan, body)
        if got is None:
            return None
        made, shape, remembered = got
        if self.splitter is not None:
            self.splitter.release(fn)  # (as the ranges stage, not run, would)
        edits = kernel_edits(mod, run.ma, fn, ka, run.options, False, shape)
        run.ma.release(fn)
        if templates is not None and body is not None and (remembered and line is not None or STAMP_EVERY):
            # a body met before (``Plan.trivial_shapes``): its template, for those to come
            t = LeanTemplate.make(fn, ka, made, edits)
            if t is not None:
                if line is not None:
                    if len(templates) >= SHAPES_LIMIT:
                        templates.clear()
                    templates[(body, line)] = t
                if STAMP_EVERY:
                    del run.plan.decisions[len(run.plan.decisions) - len(made):]
                    return self._stamp(fn, instrs, ka, t, ship)
        if ship:
            return made, edits
        apply_arguments(edits, run.editor, run.writer, run.args)
        return made, None

    def _stamp(self, fn: Function, instrs: list[Instruction], ka: KernelArgs, t: LeanTemplate,
               ship: bool) -> tuple[list[Decision], KernelEdits | None]:
        """``_lean`` for a kernel of the template ``t`` (its instructions ``instrs``): what
        ``trivial_plan`` and ``kernel_edits`` give it, made from ``t`` and its own
        instructions, roots, name, offsets and lines. Unless ``ship``, the decisions go
        into the plan and the edits are applied, and the decisions are not returned."""
        run = self.state
        kroots = ka.roots
        domain = ka.domain
        made: list[Decision] = run.plan.decisions if not ship else []
        add = made.append
        if t.shared:
            lists: dict[int, list[Root]] = {}
            for pos, i in t.decisions:
                rs = lists.get(i)
                if rs is None:
                    rs = lists[i] = [kroots[i]]
                add(PlainDecision(instrs[pos], domain, rs))
        else:
            for pos, i in t.decisions:
                add(PlainDecision(instrs[pos], domain, [kroots[i]]))
        if ship:
            run.plan.decisions.extend(made)
        kernel = fn.name
        records: list[ArgRecord] = [] if ship else run.args.records
        keep = records.append
        for spec in t.records:
            keep(ArgRecord(kernel, *spec))
        if t.line_records:
            starts = self._starts
            if starts is None:
                starts = self._line_starts(fn)
            first = bisect_right(starts, instrs[0].start)
            for bits, index, name, reason, ro, wo, added in t.line_records:
                keep(LineArgRecord(kernel, index, name, reason, first + ro if bits & 1 else ro,
                                   first + wo if bits & 2 else wo, added))
        splitter = self.splitter
        if splitter is not None and splitter.ranges:
            splitter.release(fn)
        ma = run.ma
        if ma.functions or ma._slots:
            # (its instructions' operands: none parsed, as no part of the kernel was read)
            ma.release(fn)
        fargs = fn.args
        if ship:
            edits = KernelEdits()
            edits.records = records
            edits.inserts = [(fargs[n].insert_at, text) for n, text in t.inserts]
            edits.invariant_at = [instrs[pos].end for pos in t.invariant]
            return made, edits
        editor = run.editor
        for n, text in t.inserts:
            editor.insert(fargs[n].insert_at, text)
        if t.invariant:
            mark_invariant([instrs[pos].end for pos in t.invariant], editor, run.writer, run.args)
        return made, None

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
