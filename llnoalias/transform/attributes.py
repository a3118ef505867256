"""Kernel argument attributes (design section 1): ``noalias`` from ``--args noalias``,
``readonly``/``writeonly`` where :mod:`llnoalias.analysis.effects` proves them, and
``!invariant.load`` on loads traced to a read-only ``noalias`` argument (what lets NVPTX
emit ``ld.global.nc``)."""

from __future__ import annotations

from .. import reasons
from ..analysis.memory.accesses import INVARIANT_LOAD
from ..analysis.memory.effects import Effects, analyse_effects
from ..analysis.memory.loads import plain_load_address
from ..analysis.provenance.lattice import Root
from ..analysis.provenance.rootset import KernelArgs, RootSet
from ..analysis.provenance.solver import ModuleAnalysis
from ..ir.editor import Editor
from ..ir.model import Function, Instruction, LocalRef, Module, Value
from ..options import AnnotateOptions
from ..report.record import ArgRecord
from .metadata import MetadataWriter

TYPE_CHECKING = False  # ``typing`` is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence


class ArgumentsResult:
    """The argument records of a run (a plain class: a dataclass costs about 1 ms at
    every start)."""

    def __init__(self, records: list[ArgRecord] | None = None, invariant_loads: int = 0) -> None:
        self.records: list[ArgRecord] = [] if records is None else records
        self.invariant_loads = invariant_loads
        #: the text that makes a load invariant, once made (``mark_invariant``: it names
        #: the empty node of the run's writer)
        self.invariant_text: str | None = None


class KernelEdits:
    """What the argument pass decided for one kernel, before it is written: the records,
    the attribute text inserted on the ``define`` line, and the loads that get
    ``!invariant.load`` (their line ends). Plain data, so a worker process can hand it back."""

    __slots__ = ("records", "inserts", "invariant_at")

    def __init__(self) -> None:
        self.records: list[ArgRecord] = []
        self.inserts: list[tuple[int, str]] = []
        self.invariant_at: list[int] = []


#: the slots where an ``ArgRecord`` holds its readonly and writeonly reasons (a
#: ``LineArgRecord`` its lines)
RO_SLOT = ArgRecord.__dict__["readonly"]
WO_SLOT = ArgRecord.__dict__["writeonly"]
_RO_SLOT, _WO_SLOT = RO_SLOT, WO_SLOT
_SET_RO, _SET_WO = RO_SLOT.__set__, WO_SLOT.__set__


class LineArgRecord(ArgRecord):
    """The record of a rooted argument that is written (read) on a line: it holds the
    line where an ``ArgRecord`` holds its ``readonly`` (``writeonly``) reason, and makes
    the reason (``reasons.NO_WRITTEN``, ``NO_READ``: a ``Said``) when read, equal to the
    one made before. A module of many small kernels has one or two per argument, read only
    by a report, ``--stats`` or ``explain`` (about 100 bytes less each than the text).
    Equal to another such record as an ``ArgRecord`` is to an ``ArgRecord``; pickled with
    its lines."""

    __slots__ = ()

    def __init__(self, kernel: str, index: int, name: str, reason: str, readonly: str | int, writeonly: str | int,
                 added: list[str]) -> None:
        self.kernel = kernel
        self.index = index
        self.name = name
        self.rooted = True
        self.reason = reason
        _SET_RO(self, readonly)
        _SET_WO(self, writeonly)
        self.added = added

    @property  # (an ArgRecord's is a slot; this one's is made)
    def readonly(self) -> str:
        v = _RO_SLOT.__get__(self)
        return reasons.NO_WRITTEN.one(v) if v.__class__ is int else v

    @readonly.setter
    def readonly(self, value: str) -> None:
        _RO_SLOT.__set__(self, value)

    @property
    def writeonly(self) -> str:
        v = _WO_SLOT.__get__(self)
        return reasons.NO_READ.one(v) if v.__class__ is int else v

    @writeonly.setter
    def writeonly(self, value: str) -> None:
        _WO_SLOT.__set__(self, value)

    def __reduce__(self) -> tuple[type[LineArgRecord], tuple[object, ...]]:
        return (LineArgRecord, (self.kernel, self.index, self.name, self.reason, _RO_SLOT.__get__(self),
                                _WO_SLOT.__get__(self), self.added))


#: the effects of an argument nothing is known to touch (read only)
_NO_EFFECTS = Effects()


def arguments_of(mod: Module, ma: ModuleAnalysis, roots: RootSet, options: AnnotateOptions,
                 fn: Function, lowered: bool = False) -> KernelEdits | None:
    """The argument pass's decisions for one kernel (None for other functions). With
    ``lowered`` (the kernel has an LDS-DMA that design section 4b's rule (c) leaves unscoped:
    ``dma_safety.has_lowered_dma``) ``--args noalias`` adds no ``noalias``: LLVM 24's
    kernel-argument lowering would give the kernel's LDS accesses ``!noalias``, which are
    then checked only against scoped DMAs."""
    ka = roots.kernels.get(fn.name)
    if ka is None:
        return None
    return kernel_edits(mod, ma, fn, ka, options, lowered)


def apply_arguments(edits: KernelEdits | None, editor: Editor, writer: MetadataWriter,
                    out: ArgumentsResult) -> None:
    """Write one kernel's argument decisions (``arguments_of``)."""
    if edits is None:
        return
    out.records.extend(edits.records)
    for at, text in edits.inserts:
        editor.insert(at, text)
    if edits.invariant_at:
        mark_invariant(edits.invariant_at, editor, writer, out)


#: the order of an ``!invariant.load`` edit among the edits at its line's end: after the
#: scopes that are written there later (``Editor``)
INVARIANT_ORDER = 1


def mark_invariant(ends: Sequence[int], editor: Editor, writer: MetadataWriter, out: ArgumentsResult) -> None:
    """Give the loads whose lines end at ``ends`` ``!invariant.load`` (the one place that
    makes the text that says it), and count them in ``out``."""
    text = out.invariant_text
    if text is None:
        text = out.invariant_text = f", !invariant.load !{writer.empty_node()}"
    for at in ends:
        editor.insert(at, text, INVARIANT_ORDER)
    out.invariant_loads += len(ends)


def kernel_edits(mod: Module, ma: ModuleAnalysis, fn: Function, ka: KernelArgs, options: AnnotateOptions,
                 lowered: bool = False) -> KernelEdits:
    """``arguments_of`` for a kernel whose arguments ``ka`` are at hand."""
    out = KernelEdits()
    kroots = ka.roots
    effects: dict[int, Effects] = analyse_effects(mod, fn) if kroots else {}
    grouped_args = ka.grouped
    not_rooted = ka.not_rooted
    records = out.records
    kernel = fn.name
    may_add_noalias = options.args == "noalias" and not lowered
    invariant_roots: set[int] = set()  # id() of roots whose loads are invariant
    # (the texts every argument may need, looked up once per kernel)
    already = reasons.ALREADY.text
    for arg in fn.args:
        if arg.type.kind != "ptr":  # (``Type.is_pointer``)
            continue
        index = arg.index
        if index not in kroots:
            records.append(ArgRecord(kernel, index, arg.name, False, not_rooted.get(index, ""), "", "", _ADDED[0][0]))
            continue
        e = effects.get(index) or _NO_EFFECTS
        read, write, escape, how = e.read, e.write, e.escape, e.escape_how
        attrs = arg.attrs
        add = 0  # the attributes added, as bits of ``_ADDED``'s index
        grouped = index in grouped_args
        has_noalias = "noalias" in attrs
        if may_add_noalias and not grouped and not has_noalias:
            add = _NOALIAS
            has_noalias = True
        readonly = "readonly" in attrs or "readnone" in attrs
        if readonly:
            ro: str | int = already
        elif escape:
            ro = reasons.NO_ESCAPES.format(line=escape, how=how)
        elif write:
            ro = write  # (``LineArgRecord``: NO_WRITTEN at that line, made when read)
        elif "writeonly" in attrs:
            ro = reasons.NO_INPUT_WRITEONLY.text
        else:
            ro = "proved"
            add |= _READONLY
            readonly = True
        if "writeonly" in attrs or "readnone" in attrs:
            wo: str | int = already
        elif escape:
            wo = reasons.NO_ESCAPES.format(line=escape, how=how)
        elif read:
            wo = read  # (NO_READ at that line)
        elif readonly:
            wo = reasons.NO_PROVED_READONLY.text
        else:
            wo = "proved"
            add |= _WRITEONLY
        added = _ADDED[add]
        if add:
            out.inserts.append((arg.insert_at, added[1] if arg.named else added[2]))
        why = not_rooted.get(index, "") if not_rooted else ""
        if isinstance(ro, int) or isinstance(wo, int):
            records.append(LineArgRecord(kernel, index, arg.name, why, ro, wo, added[0]))
        else:
            records.append(ArgRecord(kernel, index, arg.name, True, why, ro, wo, added[0]))
        if has_noalias and readonly and not grouped:
            root = kroots[index]
            if len(root.members) == 1:
                invariant_roots.add(id(root))
    if invariant_roots:
        out.invariant_at = _invariant_loads(mod, ma, fn, invariant_roots)
    return out


#: the bits of the attributes ``kernel_edits`` adds to an argument, in the order written
_NOALIAS, _READONLY, _WRITEONLY = 1, 2, 4


def _added(bits: int) -> tuple[list[str], str, str]:
    names = [name for bit, name in ((_NOALIAS, "noalias"), (_READONLY, "readonly"), (_WRITEONLY, "writeonly"))
             if bits & bit]
    text = " ".join(names)
    return names, f"{text} ", f" {text}"


#: per set of bits, the attributes added (``ArgRecord.added``) and the text inserted after
#: a named argument's type and after an unnamed one's: made once, shared by every
#: argument of a run (a module of many small kernels has thousands; the lists are never
#: changed in place)
_ADDED: tuple[tuple[list[str], str, str], ...] = tuple(_added(bits) for bits in range(8))


def _invariant_loads(mod: Module, ma: ModuleAnalysis, fn: Function, roots: set[int]) -> list[int]:
    """The line ends of the loads traced to one of ``roots`` (``id()`` of read-only roots)."""
    fa = ma.function(fn)
    loads: list[tuple[Instruction, Value]] = []
    for inst in fn.instrs:
        if inst.opcode != "load":
            continue
        ptr = plain_load_address(mod, inst)
        if ptr is not None:
            loads.append((inst, ptr))
    fa.solve([v.name for _, v in loads if isinstance(v, LocalRef)])
    at: list[int] = []
    find = mod.text.find
    for inst, ptr in loads:
        value = fa.value(ptr)
        if not (isinstance(value, Root) and id(value) in roots):
            continue
        end = inst.start + inst._len  # (``inst.end``)
        if find(INVARIANT_LOAD, inst.start, end) >= 0:  # (the load has ``!invariant.load`` in the input already)
            continue
        at.append(end)
    return at
