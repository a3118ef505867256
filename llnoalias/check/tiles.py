"""The LDS bytes of gfx1250's tensor data mover, read from its descriptor (design section 4b).

``llvm.amdgcn.tensor.load.to.lds`` (and ``.d2``) writes a tile to LDS, ``tensor.store.from.lds``
reads one; both are issued by a wave, counted by ``tensorcnt``, and name their bytes in descriptor
groups (the layout FlyDSL's and Triton's gfx1250 back ends write, the ISA's D#):

- group 0 (``<4 x i32>``): word 0 bit 0 the predicate (0: the operation does nothing), bits 31:30
  the gather modes (not read here); word 1 the LDS byte address; words 2-3 the global address.
- group 1 (``<8 x i32>``): word 0 bits 17:16 ``log2`` of the element's bytes, bit 19 iterate mode
  (not read here), bit 20 padding on, bits 24:22 the padding interval (``2 ** (v + 1)`` dwords),
  bits 31:25 the padding amount (``v + 1`` dwords); word 3 bits 31:16 tile dimension 0 (the
  innermost); word 4 bits 15:0 tile dimension 1 and bits 31:16 dimension 2 (0: one).
- groups 2-4: the dimensions past the third (read only when all zero).

The tile is laid out in LDS row after row from the LDS address, dimension 0 fastest, with
``amount`` bytes skipped after every ``interval`` bytes when padding is on. Every element of the
tile is written, those outside the tensor's bounds with zeros (FlyDSL's developers measured it on
hardware: "zero-fills them in LDS"), so the written bytes are known from the tile alone.

Values are read through ``concrete.Evaluator``: the elements of a descriptor are followed through
``insertelement``, ``shufflevector``, ``select``, vector constants, ``bitcast`` between vectors of
integers (Triton's gfx1250 back end adds the global offset to group 0 as a ``<2 x i64>``: a word is
read as its bits of the source) and phis whose ways in agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..analysis.ranges.concrete import Evaluator, Ints, Unknown, Val, lift, select
from ..ir import operands as opparse
from ..ir.model import AggregateConst, Function, Instruction, LocalRef, Module, PlainConst

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..ir.model import TypedValue

#: how far back through a chain of vector operations an element is followed
_DEPTH = 64


@dataclass(frozen=True, slots=True)
class Tile:
    """What one tensor operation touches from its LDS address: ``elem`` bytes per element,
    ``dims`` elements per dimension (innermost first), padding of ``amount`` bytes after every
    ``interval`` bytes (0: none)."""

    elem: int
    dims: tuple[int, ...]
    interval: int = 0
    amount: int = 0

    @property
    def size(self) -> int:
        """The bytes of data (without the padding)."""
        n = self.elem
        for d in self.dims:
            n *= d
        return n

    @property
    def span(self) -> int:
        """From the LDS address to one past the last byte written."""
        n = self.size
        if not self.interval or n == 0:
            return n
        return n + ((n - 1) // self.interval) * self.amount

    def written(self, lo: int, hi: int) -> int | None:
        """A byte of ``[lo, hi)`` (from the LDS address) that the tile writes, or None."""
        lo, hi = max(lo, 0), min(hi, self.span)
        if lo >= hi:
            return None
        if not self.interval:
            return lo
        period = self.interval + self.amount
        if lo % period >= self.interval:
            lo = (lo // period + 1) * period
        return lo if lo < hi else None


def decode(g0: list[int], g1: list[int], rest_zero: bool) -> Tile | str | None:
    """The tile of one wave's descriptor words (group 0, group 1); None where the predicate is
    off (nothing is touched); a reason where the descriptor uses what this reading leaves out."""
    if not g0[0] & 1:
        return None
    if (g0[0] >> 30) & 3:
        return "a tensor descriptor in gather mode"
    w0 = g1[0]
    if (w0 >> 19) & 1:
        return "a tensor descriptor in iterate mode"
    if not rest_zero:
        return "a tensor descriptor of more than three dimensions (groups 2-4 not zero)"
    elem = 1 << ((w0 >> 16) & 3)
    d0 = (g1[3] >> 16) & 0xFFFF
    d1 = g1[4] & 0xFFFF
    d2 = (g1[4] >> 16) & 0xFFFF
    if d0 == 0 or d1 == 0:
        return "a tensor descriptor with a tile dimension of 0"
    interval = amount = 0
    if (w0 >> 20) & 1:
        interval = (1 << (((w0 >> 22) & 7) + 1)) * 4
        amount = (((w0 >> 25) & 0x7F) + 1) * 4
    return Tile(elem, (d0, d1, d2 or 1), interval, amount)


def _vector_const(v: object, k: int) -> Val | None:
    """Element ``k`` of a vector constant (None: not a constant this reads)."""
    if isinstance(v, PlainConst):
        if v.text == "zeroinitializer":
            return 0
        if v.text in ("poison", "undef"):
            return Unknown("a descriptor element that is poison")
        return None
    if isinstance(v, AggregateConst) and v.kind in ("vector", "splat"):
        elems = v.elems
        if v.kind == "splat" and elems:
            return _scalar_const(elems[0][1])
        if k < len(elems):
            return _scalar_const(elems[k][1])
    return None


def _scalar_const(v: object) -> Val | None:
    if isinstance(v, PlainConst):
        if v.text in ("poison", "undef"):
            return Unknown("a descriptor element that is poison")
        try:
            return int(v.text, 0) & 0xFFFFFFFF
        except ValueError:
            return None
    return None


def _split(text: str) -> list[str]:
    """The comma-separated parts of an operand list, at the top level of brackets."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch in "<[({":
            depth += 1
        elif ch in ">])}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if cur:
        out.append("".join(cur).strip())
    return out


class Descriptors:
    """The elements of one function's descriptor vectors, per thread, through an evaluator."""

    def __init__(self, mod: Module, fn: Function) -> None:
        self.mod = mod
        self.fn = fn
        #: each vector instruction read: its opcode and typed operands (read once: every
        #: context and wave of every pair follows the same chains)
        self._read: dict[str, tuple[str, list[TypedValue] | None]] = {}
        #: ``pairs.tiles_of``'s answers, by site, context and variant
        self.tiles: dict[tuple[object, ...], object] = {}

    def element(self, ev: Evaluator, tv: TypedValue, k: int, depth: int = 0) -> Val:
        """Element ``k`` of the vector ``tv`` in every thread."""
        eb = _elem_bits(tv[0])
        if not eb:
            return Unknown("a descriptor that is not a vector of integers")
        return self.bits(ev, tv, k * eb, eb, depth)

    def bits(self, ev: Evaluator, tv: TypedValue, lo: int, width: int, depth: int = 0) -> Val:
        """Bits ``[lo, lo + width)`` of the vector ``tv`` (its elements laid end to end, element
        0 lowest, as a ``bitcast`` reads them) in every thread; ``width`` within one element."""
        ty, v = tv
        eb = _elem_bits(ty)
        if not eb:
            return Unknown("a descriptor that is not a vector of integers")
        k, sub = divmod(lo, eb)
        if sub + width > eb:
            return Unknown("a descriptor word that spans two elements of a wider vector")
        got = _vector_const(v, k)
        if got is None and isinstance(v, AggregateConst) and v.kind == "vector" and k < len(v.elems):
            # an element that is a constant expression: FlyDSL writes the LDS address as
            # ``ptrtoint (ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @lds, i32 N) to i32)``
            got = ev.value(*v.elems[k])
        if got is not None:
            return _slice(got, sub, width, eb)
        if not isinstance(v, LocalRef) or depth > _DEPTH:
            return Unknown("a descriptor this check does not read")
        inst = self.fn.by_name.get(v.name)
        if inst is None:
            return Unknown("a descriptor this check does not read")
        read = self._read.get(v.name)
        if read is None:
            text = self.mod.text[inst.opstart:inst.end].split(", !", 1)[0]
            op, _, rest = text.strip().partition(" ")
            read = self._read[v.name] = (op, _parts(rest) if op in ("insertelement", "shufflevector", "select")
                                         else None)
        op, parts = read
        if op in ("bitcast", "phi"):
            return self._through(ev, inst, op, lo, width, depth)
        if parts is None:
            return Unknown(f"a descriptor made by `{op}`, which this check does not read", inst.line)
        if op == "insertelement":
            vec, elt, idx = parts
            at = ev.value(*idx)
            if not isinstance(at, int):
                return Unknown("a descriptor element inserted at an index not known", inst.line)
            if at == k:
                return self.scalar_bits(ev, elt, sub, width, depth + 1)
            return self.bits(ev, vec, lo, width, depth + 1)
        if op == "shufflevector":
            a, b, mask = parts
            m = _vector_const(mask[1], k)
            n = a[0].count or 0
            if not isinstance(m, int) or not n:
                return Unknown("a descriptor's shufflevector not read", inst.line)
            src, j = (a, m) if m < n else (b, m - n)
            return self.bits(ev, src, j * eb + sub, width, depth + 1)
        c, a, b = parts
        cond = ev.value(*c)
        if isinstance(cond, Unknown):
            return cond
        if not isinstance(cond, (int, tuple)):
            return Unknown("a descriptor's select not read", inst.line)
        if isinstance(cond, int):
            return self.bits(ev, a if cond & 1 else b, lo, width, depth + 1)
        x = self.bits(ev, a, lo, width, depth + 1)
        y = self.bits(ev, b, lo, width, depth + 1)
        return _pick(cond, x, y, inst.line)

    def scalar_bits(self, ev: Evaluator, tv: TypedValue, lo: int, width: int, depth: int = 0) -> Val:
        """Bits ``[lo, lo + width)`` of the integer ``tv`` in every thread. Where the whole value is
        not known, the bits are followed through ``or``/``xor``/``and``, shifts by a constant,
        ``fshl``/``fshr``, ``trunc`` and ``zext``: a descriptor word packs a tile dimension (a
        constant) beside half of a tensor dimension (a kernel argument), and only the first is read."""
        ty = tv[0]
        n = _elem_bits(ty)
        v = ev.value(*tv)
        if not isinstance(v, Unknown) or not n or not isinstance(tv[1], LocalRef) or depth > _DEPTH:
            return _slice(v, lo, width, n or 64)
        if lo >= n:
            return 0
        width = min(width, n - lo)
        inst = self.fn.by_name.get(tv[1].name)
        if inst is None:
            return v
        ops = opparse.parse(self.mod, inst)
        args = ops.operands
        if ops.kind == "binop" and len(args) == 2:
            op = ops.flags[0]
            if op in ("or", "xor", "and"):
                a = self.scalar_bits(ev, args[0], lo, width, depth + 1)
                b = self.scalar_bits(ev, args[1], lo, width, depth + 1)
                if op == "and" and (a == 0 or b == 0):
                    return 0
                if op != "and" and (a == 0 or b == 0):
                    return b if a == 0 else a
                if isinstance(a, (int, tuple)) and isinstance(b, (int, tuple)):
                    f = {"or": lambda x, y: x | y, "xor": lambda x, y: x ^ y, "and": lambda x, y: x & y}[op]
                    return lift(f, a, b)
                return a if isinstance(a, Unknown) else b
            c = ev.value(*args[1])
            if op in ("lshr", "shl") and isinstance(c, int) and 0 <= c < n:
                return self._shifted(ev, args[0], lo, width, c if op == "lshr" else -c, depth)
            return v
        if ops.kind == "cast" and args and ops.flags[0] in ("trunc", "zext"):
            return self.scalar_bits(ev, args[0], lo, width, depth + 1)
        if ops.kind == "call" and len(args) == 3:
            name = getattr(ops.callee, "name", "").lstrip("@")
            c = ev.value(*args[2])
            if name.startswith(("llvm.fshl.", "llvm.fshr.")) and isinstance(c, int):
                c %= n
                if name.startswith("llvm.fshr."):
                    c = (n - c) % n
                # fshl(a, b, c) = (a << c) | (b >> (n - c))
                hi = self._shifted(ev, args[0], lo, width, -c, depth)
                low = self._shifted(ev, args[1], lo, width, n - c, depth) if c else 0
                if low == 0 or hi == 0:
                    return low if hi == 0 else hi
                if isinstance(hi, (int, tuple)) and isinstance(low, (int, tuple)):
                    return lift(lambda x, y: x | y, hi, low)
                return hi if isinstance(hi, Unknown) else low
        return v

    def _shifted(self, ev: Evaluator, tv: TypedValue, lo: int, width: int, right: int, depth: int) -> Val:
        """Bits ``[lo, lo + width)`` of ``tv`` shifted right by ``right`` bits (left where negative)
        within its width: bits shifted in are 0."""
        n = _elem_bits(tv[0])
        src = lo + right
        if src >= n or src + width <= 0:
            return 0
        if src < 0:
            # the low ``-src`` bits of the field are shifted-in zeros
            got = self.scalar_bits(ev, tv, 0, width + src, depth + 1)
            return lift(lambda x: x << -src, got) if isinstance(got, (int, tuple)) else got
        return self.scalar_bits(ev, tv, src, min(width, n - src), depth + 1)

    def _through(self, ev: Evaluator, inst: Instruction, op: str, lo: int, width: int, depth: int) -> Val:
        """Bits of a ``bitcast`` of a vector (the same bits of its source: ``<2 x i64>`` and
        ``<4 x i32>`` views of one descriptor) or of a ``phi`` (where every way in gives the same
        value; a loop's header phi of a descriptor is not simulated)."""
        ops = opparse.parse(self.mod, inst)
        if op == "bitcast":
            src = ops.operands[0] if ops.operands else None
            if src is None or not _elem_bits(src[0]):
                return Unknown("a descriptor made by `bitcast` of what is not a vector of integers", inst.line)
            return self.bits(ev, src, lo, width, depth + 1)
        ty = ops.result_type
        if ty is None or not ops.incoming:
            return Unknown("a descriptor's phi not read", inst.line)
        vals = [self.bits(ev, (ty, v), lo, width, depth + 1) for v in ops.incoming]
        first = vals[0]
        if isinstance(first, Unknown):
            return first
        if all(x == first for x in vals[1:]):
            return first
        return Unknown(f"a descriptor carried through the phi {inst.name} whose ways in differ "
                       "(a loop-carried descriptor vector is not simulated)", inst.line)


def _elem_bits(ty: object) -> int:
    """The bits of one element of a vector of integers (a scalar integer: its own), 0 otherwise."""
    kind = getattr(ty, "kind", "")
    if kind == "vector":
        ty = getattr(ty, "elem", None)
        kind = getattr(ty, "kind", "")
    return int(getattr(ty, "bits", 0) or 0) if kind == "int" else 0


def _slice(v: Val, sub: int, width: int, bits: int) -> Val:
    """Bits ``[sub, sub + width)`` of a value of ``bits`` bits."""
    if sub == 0 and width >= bits:
        return v
    if isinstance(v, Unknown):
        return v
    if isinstance(v, (int, tuple)):
        mask = (1 << width) - 1
        return lift(lambda x: (x >> sub) & mask, v)
    return Unknown("a part of a descriptor element that is an address")


def _pick(cond: Ints, x: Val, y: Val, line: int) -> Val:
    got = select(cond, x, y)
    return Unknown("a descriptor's select of two kinds of value", line) if got is None else got


def _parts(rest: str) -> list[TypedValue] | None:
    """The three typed operands of an ``insertelement``, ``shufflevector`` or ``select``."""
    out: list[TypedValue] = []
    for text in _split(rest):
        tv = opparse.parse_constant_text(text)
        if tv is None:
            return None
        out.append(tv)
    return out if len(out) == 3 else None


def word(v: Ints, t: int) -> int:
    return (v if isinstance(v, int) else v[t]) & 0xFFFFFFFF


__all__ = ["Descriptors", "Tile", "decode", "word"]
