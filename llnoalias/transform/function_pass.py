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

from ..analysis.memory.accesses import RELEASED, Access
from ..analysis.provenance.lattice import Root
from ..analysis.provenance.rootset import RootSet
from ..analysis.provenance.solver import ModuleAnalysis
from ..analysis.ranges.analyses import FunctionAnalyses
from ..ir.editor import Editor
from ..ir.model import Function, Instruction, Module
from ..ir.parser import DeferredBodies
from ..options import AnnotateOptions
from .attributes import ArgumentsResult, KernelEdits, apply_arguments, arguments_of
from .dma_addresses import summarise
from .dma_safety import Guarded, has_lowered_dma
from .metadata import MetadataWriter
from .regions import RegionSplitter
from .scopes import Decision, Plan, plan_function
from .stages import ABOUT, ArgumentEdits, ByteRanges, Facts, FunctionResult, PerFunction, Stage

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
        made = plan_function(run.mod, run.ma, run.roots, fn, brief=not run.detail)
        return Facts(fn.name, summarise(run.analyses, fn, made))


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
        return ByteRanges(fn.name, splitter.measure(made), measured=True)  # type: ignore[arg-type]  # a list


class ArgumentsStage(Stage):
    """Each kernel's pointer arguments: what ``--args`` adds (``attributes.arguments_of``),
    while the function's provenance is alive. Rule (c) of design section 4b: a kernel with
    an LDS-DMA that cannot be scoped gets no ``noalias``."""

    name = "arguments"
    unit = "function"
    runs, concludes = ABOUT["arguments"]

    def run(self, fp: FunctionPass, fn: Function, previous: FunctionResult | None) -> ArgumentEdits:
        assert previous is not None, "the arguments stage runs after the provenance stage"
        run = fp.state
        made: list[Decision] = previous.decisions  # type: ignore[assignment]  # the ranges stage's list
        lowered = run.options.args == "noalias" and has_lowered_dma(run.mod, made)
        return ArgumentEdits(fn.name, made, arguments_of(run.mod, run.ma, run.roots, run.options, fn, lowered))


class Run:
    """The inputs of one run's stages (the module, its analyses, the roots, the options, and
    ``keep``: the stages whose results ``--print-after`` or ``--stop-after`` asked for) and
    what they conclude into: the plan, the editor and metadata writer, the argument records
    and the LDS-DMA warnings. ``plan`` is the plan as the last stage handed it on (the
    per-function stages append each function's decisions; a module stage that rewrites
    decisions replaces it with a new plan and leaves the one it was handed as it was). What a
    stage concludes is its result (``pipeline.run_stages`` hands each module stage the
    results before it); none is kept here.

    ``detail``: reasons are explained (for a report). ``jobs``: how many processes may run
    the per-function stages. ``bodies``: the reader of a deferred parse."""

    def __init__(self, mod: Module, ma: ModuleAnalysis, roots: RootSet, options: AnnotateOptions,
                 detail: bool = True, jobs: int = 1, bodies: DeferredBodies | None = None,
                 keep: frozenset[str] = frozenset()) -> None:
        self.mod = mod
        self.ma = ma
        #: the functions' analyses (provenance, ranges, work-group bounds), one cache
        self.analyses = FunctionAnalyses(ma)
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


#: the pipeline's per-function stages, in order (``pipeline.PIPELINE`` begins with them)
FUNCTION_STAGES: tuple[ProvenanceStage | RangesStage | ArgumentsStage, ...] = (
    ProvenanceStage(), RangesStage(), ArgumentsStage())

class FunctionPass:
    """Runs the per-function stages over one function at a time into one plan, editor and
    argument result."""

    name = "function"

    def __init__(self, run: Run, stages: Sequence[ProvenanceStage | RangesStage | ArgumentsStage] = FUNCTION_STAGES) -> None:
        #: the run's state (module, analysis, roots, options, plan, editor, writer, argument
        #: edits, the reader of a deferred parse, and ``keep``: the stages whose per-function
        #: results are kept, those asked for by ``--print-after`` or ``--stop-after``; the
        #: run then stays in one process)
        self.state = run
        self.splitter = RegionSplitter(run.analyses, keep_notes=run.detail) if run.options.regions else None
        #: the per-function stages to run, in order (the first is the provenance stage)
        self.stages = tuple(stages)
        self.results: dict[str, list[FunctionResult]] = {s.name: [] for s in self.stages if s.name in run.keep}

    def weights(self) -> list[int]:
        """The work each function is expected to take, for splitting the module between
        workers: its instructions when some domain concerns it, else none (``plan_function``
        passes it over in a moment); for a body not read yet, its lines."""
        domains_of = self.state.roots.domains_of
        return [(fn.deferred_lines if fn.body_pending else len(fn.instrs)) if domains_of(fn) else 0
                for fn in self.state.mod.functions]

    def run(self, fn: Function) -> None:
        """Analyse ``fn`` and write what it decided."""
        _, edits = self._stages(fn)
        apply_arguments(edits, self.state.editor, self.state.writer, self.state.args)

    def run_all(self, indices: range) -> None:
        """``run`` each function of ``indices``."""
        fns = self.state.mod.functions
        for i in indices:
            self.run(fns[i])

    def module_results(self) -> dict[str, PerFunction]:
        """The kept stages' results for the module: each one's per-function results."""
        return {name: PerFunction(name, got) for name, got in self.results.items()}

    def _stages(self, fn: Function) -> tuple[list[Decision], KernelEdits | None]:
        """The per-function stages on ``fn``: its decisions, and its argument edits (the
        arguments stage's, when it is among them)."""
        run = self.state
        result: FunctionResult | None = None
        for stage in self.stages:
            result = stage.run(self, fn, result)
            kept = self.results.get(stage.name)
            if kept is not None and result.concluded():
                kept.append(result)
        made: list[Decision] = result.decisions if result is not None else []  # type: ignore[assignment]
        edits = result.edits if isinstance(result, ArgumentEdits) else None
        for d in made:
            # what is left of an access once its function is done: no operands
            d.access.release()
        run.analyses.release(fn)
        # the function's decisions as its last stage left them join the plan
        run.plan.decisions.extend(made)
        return made, edits

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
            made, edits = self._stages(fn)
            index = {id(inst): n for n, inst in enumerate(fn.instrs)} if made else {}
            insts: dict[int, ShippedInst] = {}
            rows = []
            for d in made:
                acc = d.access
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
                    if n != last:  # the decisions of one access are adjacent (plan_function)
                        acc = Access(inst, kind, RELEASED, RELEASED, intrinsic)
                        last = n
                    made.append(Decision(acc, domain, rs, rs if tagged else (), reason, blocker, note, brange, dma))
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
