"""The model of a module that the parser builds: globals, functions, arguments,
instructions and operand values, each with the offsets of its text in the source.

Instructions are recorded by one cheap pass over the lines (result name, opcode, span);
their operands are parsed only when the analysis asks for them (``operands.parse``), so a
module of a million lines costs one scan plus the instructions that matter.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from ..plain import Record
from .datalayout import DataLayout
from .facts import LDS_ADDRSPACE, OTHER, code_family, target_family
from .lazyre import lazy
from .lexer import BARE_NAME, canon_name, split_comment
from .shapes import LineShape
from .source import SourceFile
from .types import Type

# ---------------------------------------------------------------------------- values


class Value:
    """An operand as written in the text."""

    __slots__ = ()


class LocalRef(Value):
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name  # with the sigil, as spelled: %x, %"a b", %3

    def __repr__(self) -> str:
        return self.name


class GlobalRef(Value):
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name  # with the sigil: @lds_a

    def __repr__(self) -> str:
        return self.name


class PlainConst(Value):
    """An integer, float, null, true/false, zeroinitializer, a string or metadata: no address."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


class UndefConst(Value):
    """``undef`` or ``poison``: ignored where phis and selects join their inputs."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


class UnknownValue(Value):
    """Anything the parser could not read, an inline asm callee, a blockaddress..."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"<unknown {self.text}>"


class ConstExpr(Value):
    __slots__ = ("opcode", "flags", "operands", "indices", "dest")

    def __init__(
        self,
        opcode: str,
        flags: tuple[str, ...],
        operands: list[TypedValue],
        indices: tuple[int, ...] = (),
        dest: Type | None = None,
    ) -> None:
        self.opcode = opcode
        self.flags = flags
        self.operands = operands
        self.indices = indices
        self.dest = dest


class AggregateConst(Value):
    __slots__ = ("kind", "elems")

    def __init__(self, kind: str, elems: list[TypedValue]) -> None:
        self.kind = kind  # struct array vector splat
        self.elems = elems


TypedValue = tuple[Type, Value]


# ------------------------------------------------------------------- instructions


class Ops:
    """The parsed operands of one instruction; which fields are set depends on ``kind``.

    kinds: load store atomicrmw cmpxchg gep cast binop cmp phi select call
    extractvalue insertvalue freeze alloca other unparsed
    """

    # Defaults live on the class: an instance only stores what its kind sets (Ops are
    # made for most instructions of a function and released with it, so making one is
    # what matters, not its size).
    result_type: Type | None = None
    operands: list[TypedValue] = []  # shared default, never mutated in place
    flags: tuple[str, ...] = ()
    ordering: str | None = None
    failure_ordering: str | None = None
    volatile = False
    callee: Value | None = None
    indices: tuple[int, ...] = ()
    incoming: list[Value] = []  # shared default, never mutated in place
    source_type: Type | None = None
    syncscope: str | None = None

    def __init__(self, kind: str) -> None:
        self.kind = kind


class Instruction:
    """One instruction: its result name, opcode and where its text is. Kept small (a
    module of a million lines has about a million of these): the end, the opcode's
    position and the line number are derived from the start on demand."""

    __slots__ = ("name", "opcode", "start", "_len", "_op", "ops", "function")

    def __init__(self, name: str | None, opcode: str, start: int, end: int, function: Function,
                 opstart: int = -1) -> None:
        self.name = name  # result name with sigil, or None
        self.opcode = opcode
        self.start = start  # offset of the first character of the instruction's line
        self._len = end - start  # the text runs to its last line's code (before '\n')
        self._op = opstart - start if opstart >= 0 else -1
        self.ops: Ops | None = None
        self.function = function

    @property
    def end(self) -> int:
        return self.start + self._len

    @property
    def opstart(self) -> int:
        """Offset of the opcode word (after '%x = ' and 'tail '), or -1."""
        return self.start + self._op if self._op >= 0 else -1

    @property
    def block(self) -> int:
        """Index of the instruction's block in ``function.blocks``."""
        return self.function.block_at(self.start)

    @property
    def line(self) -> int:
        """1-based line of the instruction's first line (``SourceFile.line_of``, inlined:
        one bisect of the line starts, asked for per decision and per reason)."""
        src = self.function.source
        if src is None:
            return 0
        starts = src._line_starts
        return bisect_right(src.line_starts if starts is None else starts, self.start)

    def __repr__(self) -> str:
        return f"<{self.opcode} {self.name or ''} @{self.line}>"


# The classes below were dataclasses; :class:`..plain.Record` gives them the dataclass's
# equality and repr by ``_FIELDS`` (decorating a dataclass costs every start about 1 ms).
# Those made per function or per global have ``__slots__`` (no ``__dict__``: a module of
# many small kernels has one Function and a few Arguments each), so nothing can hang an
# attribute of its own on them: a fact about a function belongs in a field here.


class Argument(Record):
    """One parameter of a ``define``."""

    _FIELDS = ("name", "index", "type", "attrs", "insert_at", "named")
    __slots__ = _FIELDS

    def __init__(self, name: str, index: int, type: Type, attrs: set[str], insert_at: int,
                 named: bool = True) -> None:
        self.name = name  # with sigil; implicit numbered arguments get %N
        self.index = index
        self.type = type
        self.attrs = attrs
        #: Offset where a new attribute is inserted (before the name, or at the end of an unnamed one).
        self.insert_at = insert_at
        #: Whether the argument's name is spelled in the text (an unnamed one needs a space before).
        self.named = named


class Function(Record):
    """One ``define``: its header, arguments and instructions."""

    _FIELDS = ("name", "line", "start", "cc", "args", "header_end", "fn_attr_groups", "fn_attrs_inline",
               "instrs", "by_name", "blocks", "is_kernel", "header_text", "own_attrs_text", "source",
               "block_offsets")
    # the body's fields are properties over the slots (``_instrs``...): reading one reads
    # a deferred body first
    __slots__ = ("name", "line", "start", "cc", "args", "header_end", "fn_attr_groups", "fn_attrs_inline",
                 "_pending", "deferred_lines", "_instrs", "_by_name", "_blocks", "is_kernel", "_header_text",
                 "own_attrs_text", "source", "_block_offsets", "_cfg", "arg_shape")

    def __init__(self, name: str, line: int, start: int, cc: str, args: list[Argument], header_end: int,
                 fn_attr_groups: tuple[str, ...] = (), fn_attrs_inline: tuple[str, ...] = (),
                 instrs: list[Instruction] | None = None, by_name: dict[str, Instruction] | None = None,
                 blocks: list[str] | None = None, is_kernel: bool = False, header_text: str | None = "",
                 own_attrs_text: str = "", source: SourceFile | None = None,
                 block_offsets: list[int] | None = None) -> None:
        self.name = name  # with sigil
        self.line = line
        self.start = start
        self.cc = cc
        self.args = args
        self.header_end = header_end  # offset just after the header's closing ')' of the argument list
        self.fn_attr_groups = fn_attr_groups
        self.fn_attrs_inline = fn_attrs_inline
        #: reads the body when it is first asked for (``parse_module(defer_bodies=True)``)
        self._pending: Callable[[], None] | None = None
        #: the lines of a body left to be read later (a stand-in for its size until then)
        self.deferred_lines = 0
        self._instrs: list[Instruction] = [] if instrs is None else instrs
        self._by_name: dict[str, Instruction] = {} if by_name is None else by_name
        self._blocks: list[str] = [] if blocks is None else blocks
        self.is_kernel = is_kernel
        #: the header's code (its lines up to the '{'), or None: the source's text from the
        #: start of the define line to the end of ``own_attrs_text`` (``header_text``; a
        #: string per function that only tests read is not kept)
        self._header_text = header_text
        #: the header after the parameter list: the function's own attributes (a parameter
        #: or the return value may carry string attributes too)
        self.own_attrs_text = own_attrs_text
        self.source = source
        #: the offset where each block of ``blocks`` begins (its label line, or the body's start)
        self._block_offsets: list[int] = [] if block_offsets is None else block_offsets
        #: ``instr_blocks`` and ``successors``, made on first use (setting the body drops them)
        self._cfg: tuple[list[int], list[list[int]]] | None = None
        #: what ``args`` were made from when the reader shares it between functions (a
        #: define line read before but for its name: ``shapes.LineShape``), else
        #: None: functions with the same one have arguments of the same names, types,
        #: attributes and indices (``transform.roots`` reads each once, the body reader
        #: takes their names from it). Whoever changes ``args`` sets it to None.
        self.arg_shape: LineShape | None = None

    @property
    def header_text(self) -> str:
        """The header's code: the define line (or lines) up to the '{' that opens the body."""
        got = self._header_text
        if got is None:
            text = self.source.text if self.source is not None else ""
            got = text[text.rfind("\n", 0, self.start) + 1:self.header_end + len(self.own_attrs_text)]
        return got

    @header_text.setter
    def header_text(self, value: str | None) -> None:
        self._header_text = value

    # The body: read on first use when its reading was deferred. Setting one of these
    # drops a pending reading (the body is being released).
    def _load(self) -> None:
        pending = self._pending
        if pending is not None:
            self._pending = None
            pending()

    def set_pending(self, read: Callable[[], None], lines: int) -> None:
        """Read the body with ``read`` when it is first asked for; it spans ``lines`` lines."""
        self._pending = read
        self.deferred_lines = lines

    @property
    def body_pending(self) -> bool:
        """Is the body still unread (its reading deferred and nothing asked for it yet)?"""
        return self._pending is not None

    @property
    def instrs(self) -> list[Instruction]:
        if self._pending is not None:
            self._load()
        return self._instrs

    @instrs.setter
    def instrs(self, value: list[Instruction]) -> None:
        self._pending = None
        self._cfg = None
        self._instrs = value

    @property
    def by_name(self) -> dict[str, Instruction]:
        if self._pending is not None:
            self._load()
        return self._by_name

    @by_name.setter
    def by_name(self, value: dict[str, Instruction]) -> None:
        self._pending = None
        self._cfg = None
        self._by_name = value

    @property
    def blocks(self) -> list[str]:
        if self._pending is not None:
            self._load()
        return self._blocks

    @blocks.setter
    def blocks(self, value: list[str]) -> None:
        self._pending = None
        self._cfg = None
        self._blocks = value

    @property
    def block_offsets(self) -> list[int]:
        if self._pending is not None:
            self._load()
        return self._block_offsets

    @block_offsets.setter
    def block_offsets(self, value: list[int]) -> None:
        self._pending = None
        self._cfg = None
        self._block_offsets = value

    @property
    def instr_blocks(self) -> list[int]:
        """The block of each instruction of ``instrs`` (as ``Instruction.block`` gives it),
        found once by one walk down the instructions and the block offsets together."""
        return self._control_flow()[0]

    @property
    def successors(self) -> list[list[int]]:
        """The control-flow graph: per block of ``blocks``, the indices of the blocks its
        terminator (its last instruction) names as ``label %x`` operands, in the order they
        are written (a target named twice is listed twice); made once per body."""
        return self._control_flow()[1]

    def _control_flow(self) -> tuple[list[int], list[list[int]]]:
        got = self._cfg
        if got is None:
            blocks = _blocks_of(self)
            got = self._cfg = (blocks, _successors_of(self, blocks))
        return got

    def block_at(self, offset: int) -> int:
        return max(bisect_right(self.block_offsets, offset) - 1, 0)

    def line_of(self, offset: int) -> int:
        return self.source.line_of(offset) if self.source is not None else 0

    def arg_by_name(self, name: str) -> Argument | None:
        for a in self.args:
            if a.name == name:
                return a
        return None


#: a ``label %x`` operand: a successor of the block whose terminator holds it
_LABEL = lazy(r"label %(" + BARE_NAME + r"|\d+|\"[^\"]*\")")


def _blocks_of(fn: Function) -> list[int]:
    """The block of each instruction of ``fn``, as ``Instruction.block`` gives it (the last
    block that begins at or before it, the first for one before every block)."""
    offsets = fn.block_offsets
    out: list[int] = []
    b = -1  # the number of offsets at or before the instruction, less one
    nxt = offsets[0] if offsets else None
    prev = -1
    for inst in fn.instrs:
        start = inst.start
        if start < prev:  # not in text order: search as Instruction.block does
            return [inst.block for inst in fn.instrs]
        prev = start
        while nxt is not None and nxt <= start:
            b += 1
            nxt = offsets[b + 1] if b + 1 < len(offsets) else None
        out.append(b if b > 0 else 0)
    return out


def _successors_of(fn: Function, blocks: list[int]) -> list[list[int]]:
    """``Function.successors``: the ``label %x`` operands of each block's last instruction."""
    instrs = fn.instrs
    nblocks = max(len(fn.blocks), 1)
    last_in_block = [-1] * nblocks
    for n, b in enumerate(blocks):
        last_in_block[b] = n
    names = {name: i for i, name in enumerate(fn.blocks)}
    text = fn.source.text if fn.source is not None else ""
    succ: list[list[int]] = [[] for _ in range(nblocks)]
    for b in range(nblocks):
        t = last_in_block[b]
        if t < 0:
            continue
        for m in _LABEL.finditer(text, instrs[t].start, instrs[t].end):
            label = "%" + m.group(1)
            target = names.get(canon_name(label) if label[1] == '"' else label)
            if target is not None:
                succ[b].append(target)
    return succ


class Global(Record):
    """One global variable (``@name = ... global/constant ...``)."""

    _FIELDS = ("name", "line", "start", "addrspace", "type", "linkage", "has_initializer", "is_constant",
               "initializer_refs_globals", "kind")
    __slots__ = _FIELDS

    def __init__(self, name: str, line: int, start: int, addrspace: int, type: Type | None, linkage: str,
                 has_initializer: bool, is_constant: bool, initializer_refs_globals: bool = False,
                 kind: str = "variable") -> None:
        self.name = name  # with sigil
        self.line = line
        self.start = start
        self.addrspace = addrspace
        self.type = type
        self.linkage = linkage
        self.has_initializer = has_initializer
        self.is_constant = is_constant
        self.initializer_refs_globals = initializer_refs_globals
        self.kind = kind  # variable alias ifunc

    @property
    def is_external(self) -> bool:
        return not self.has_initializer and self.linkage in ("external", "extern_weak", "")

    @property
    def is_zero_sized(self) -> bool:
        return self.type is not None and self.type.kind == "array" and self.type.count == 0


class Declaration(Record):
    """One ``declare``."""

    _FIELDS = ("name", "line", "ret")
    __slots__ = _FIELDS

    def __init__(self, name: str, line: int, ret: Type | None) -> None:
        self.name = name
        self.line = line
        self.ret = ret


class MetadataNode(Record):
    """A numbered metadata definition ``!N = [distinct] !{...}`` (see ``Module.metadata``)."""

    _FIELDS = ("id", "start", "end")
    __slots__ = _FIELDS

    def __init__(self, id: int, start: int, end: int) -> None:
        self.id = id
        self.start = start
        self.end = end


class ModuleFacts:
    """What llnoalias knows of a module as a whole, read by the analysis, the DMA rules and
    the back ends alike (``Module.facts``: made once per module)."""

    __slots__ = ("family", "layout", "static_lds", "dynamic_lds")

    def __init__(self, mod: Module) -> None:
        fam = target_family(mod.triple)
        if fam == OTHER and not mod.triple:
            fam = code_family(mod.text)
        #: ``AMDGPU``, ``NVPTX`` or ``OTHER``
        self.family = fam
        self.layout = DataLayout(mod.datalayout, mod.triple)
        lds = [g for g in mod.globals.values() if g.addrspace == LDS_ADDRSPACE]
        #: the static (sized) LDS variables, which LLVM's module-LDS lowering scopes
        self.static_lds = frozenset(g.name for g in lds if not g.is_zero_sized)
        #: the dynamic LDS variables (external, zero-sized): all start at one address
        self.dynamic_lds = frozenset(g.name for g in lds if g.is_zero_sized)


class Module(Record):
    """A parsed module: the source text and what the readers found in it."""

    _FIELDS = ("source", "globals", "functions", "functions_by_name", "declarations", "metadata",
               "metadata_ends", "named_metadata", "attribute_groups", "named_types", "triple", "datalayout",
               "ops_cache", "max_metadata_id", "nvvm_thread_bounds")

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.globals: dict[str, Global] = {}
        self.functions: list[Function] = []
        self.functions_by_name: dict[str, Function] = {}
        self.declarations: dict[str, Declaration] = {}
        #: numbered metadata: id -> offset of its definition (a million !DILocation lines cost
        #: one int each); ``metadata_ends`` holds the end of the few that span several lines
        self.metadata: dict[int, int] = {}
        self.metadata_ends: dict[int, int] = {}
        self.named_metadata: dict[str, tuple[int, int]] = {}
        self.attribute_groups: dict[str, tuple[int, int]] = {}
        self.named_types: dict[str, Type] = {}
        self.triple = ""
        self.datalayout = ""
        #: parsed operands by instruction text (see ``operands.parse``)
        self.ops_cache: dict[str, Ops] = {}
        self.max_metadata_id = -1
        #: ``!nvvm.annotations`` thread-count keys and values (``maxntidx``, ``kernel``, ...)
        #: by function, in LLVM's order (read once, by ``workgroup``)
        self.nvvm_thread_bounds: dict[str, list[tuple[str, int]]] | None = None
        #: ``facts``, made on first use
        self._facts: ModuleFacts | None = None

    @property
    def facts(self) -> ModuleFacts:
        """The module's facts (family, data layout, LDS variables),
        made once, when a part first asks."""
        got = self._facts
        if got is None:
            got = self._facts = ModuleFacts(self)
        return got

    @property
    def text(self) -> str:
        return self.source.text

    def metadata_node(self, mid: int) -> MetadataNode | None:
        start = self.metadata.get(mid)
        if start is None:
            return None
        end = self.metadata_ends.get(mid)
        if end is None:
            text = self.source.text
            eol = text.find("\n", start)
            end = start + len(split_comment(text[start:] if eol < 0 else text[start:eol]).rstrip())
        return MetadataNode(mid, start, end)

    def metadata_text(self, mid: int) -> str | None:
        node = self.metadata_node(mid)
        return None if node is None else self.source.text[node.start:node.end]

    def attribute_group_text(self, gid: str) -> str:
        span = self.attribute_groups.get(gid)
        return "" if span is None else self.source.text[span[0]:span[1]]

    def is_defined_symbol(self, name: str) -> bool:
        """Is ``@name`` defined or declared? An intrinsic (``@llvm.*``) always is: LLVM's
        parser declares one that a module calls without a ``declare`` itself."""
        return name in self.globals or name in self.functions_by_name or name in self.declarations \
            or name.startswith("@llvm.")
