"""Parsing the operands of one instruction, on demand.

``parse(module, inst)`` returns an ``Ops`` whose ``kind`` tells the analysis what it is
looking at. Text this parser does not follow gives ``kind == "unparsed"``, which the
analysis reads as "result unknown, access untagged": never an error.
"""

from __future__ import annotations

from .lexer import Token, canon_name, tokenize
from .limits import PARSE_DEPTH
from .model import (
    AggregateConst,
    ConstExpr,
    GlobalRef,
    Instruction,
    LocalRef,
    Module,
    Ops,
    PlainConst,
    TypedValue,
    UndefConst,
    UnknownValue,
    Value,
)
from .operands_fast import BINARY_OPS, CAST_OPS, read_fast
from .types import OTHER, Type, TypeParser

BINOP_FLAGS = {"nuw", "nsw", "exact", "disjoint"}
FMF = {"fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"}
ORDERINGS = {"unordered", "monotonic", "acquire", "release", "acq_rel", "seq_cst"}
CONST_WORDS = {"null", "true", "false", "zeroinitializer", "none", "empty"}
UNDEF_WORDS = {"undef", "poison"}
CONSTEXPR_OPS = CAST_OPS | BINARY_OPS | {"getelementptr", "icmp", "fcmp", "select", "extractelement",
                                         "insertelement", "shufflevector", "extractvalue", "insertvalue"}
UNKNOWN_CONST_WORDS = {"blockaddress", "dso_local_equivalent", "no_cfi", "ptrauth", "asm"}


class _Fail(Exception):
    pass


class _P:
    def __init__(self, toks: list[Token]) -> None:
        self.t = toks
        self.n = len(toks)
        self.tp = TypeParser(toks)
        #: constant expressions and aggregates open around the value being read
        self.depth = 0

    def enter(self) -> None:
        """One more level of nesting (closed by ``leave``): past ``PARSE_DEPTH`` the text
        is read as unparsed, so that no input can exhaust the recursion."""
        self.depth += 1
        if self.depth > PARSE_DEPTH:
            raise _Fail("nested too deeply")

    def leave(self) -> None:
        self.depth -= 1

    def text(self, pos: int) -> str:
        return self.t[pos].text if pos < self.n else ""

    def kind(self, pos: int) -> str:
        return self.t[pos].kind if pos < self.n else ""

    def expect(self, pos: int, text: str) -> int:
        if self.text(pos) != text:
            raise _Fail(f"expected {text!r}")
        return pos + 1

    def type(self, pos: int) -> tuple[Type, int]:
        got = self.tp.parse(pos)
        if got is None:
            raise _Fail("expected a type")
        return got

    def skip_group(self, pos: int) -> int:
        """``pos`` is at an opening bracket; return the position after its match."""
        depth = 0
        while pos < self.n:
            t = self.t[pos].text
            if t in "([{<":
                depth += 1
            elif t in ")]}>":
                depth -= 1
                if depth == 0:
                    return pos + 1
            pos += 1
        raise _Fail("unbalanced brackets")

    def value(self, pos: int, ty: Type) -> tuple[Value, int]:
        if pos >= self.n:
            raise _Fail("expected a value")
        tok = self.t[pos]
        k, t = tok.kind, tok.text
        if k == "local":
            return LocalRef(canon_name(t)), pos + 1
        if k == "global":
            return GlobalRef(canon_name(t)), pos + 1
        if k in ("int", "float", "hex", "cstring", "mdstring", "metadata"):
            if k == "metadata" and self.text(pos + 1) == "(":
                return PlainConst(t), self.skip_group(pos + 1)
            return PlainConst(t), pos + 1
        if t == "!" and self.text(pos + 1) in ("{", "("):
            return PlainConst("!{}"), self.skip_group(pos + 1)
        if k == "word":
            if t in CONST_WORDS:
                return PlainConst(t), pos + 1
            if t in UNDEF_WORDS:
                return UndefConst(t), pos + 1
            if t == "splat":
                self.enter()
                p = self.expect(pos + 1, "(")
                ety, p = self.type(p)
                v, p = self.value(p, ety)
                p = self.expect(p, ")")
                self.leave()
                return AggregateConst("splat", [(ety, v)]), p
            if t == "asm":
                p = pos + 1
                while self.kind(p) == "word":
                    p += 1
                while self.kind(p) == "string" or self.text(p) == ",":
                    p += 1
                return UnknownValue("asm"), p
            if t in UNKNOWN_CONST_WORDS:
                p = pos + 1
                if self.text(p) == "(":
                    p = self.skip_group(p)
                elif self.kind(p) in ("global", "local"):
                    p += 1
                return UnknownValue(t), p
            if t in CONSTEXPR_OPS:
                self.enter()
                got = self.constexpr(pos)
                self.leave()
                return got
            if t == "metadata":
                # 'metadata' as a value wrapper inside metadata args
                return PlainConst(t), pos + 1
            raise _Fail(f"unknown value '{t}'")
        if t in ("{", "[", "<"):
            self.enter()
            if t == "<" and self.text(pos + 1) == "{":
                elems, p = self.aggregate(pos + 2, "}")
                self.leave()
                return AggregateConst("struct", elems), self.expect(p, ">")
            close = {"{": "}", "[": "]", "<": ">"}[t]
            elems, p = self.aggregate(pos + 1, close)
            kind = {"{": "struct", "[": "array", "<": "vector"}[t]
            self.leave()
            return AggregateConst(kind, elems), p
        raise _Fail(f"unexpected '{t}'")

    def aggregate(self, pos: int, close: str) -> tuple[list[TypedValue], int]:
        elems: list[TypedValue] = []
        if self.text(pos) == close:
            return elems, pos + 1
        while True:
            tv, pos = self.typed_value(pos)
            elems.append(tv)
            if self.text(pos) == ",":
                pos += 1
                continue
            return elems, self.expect(pos, close)

    def typed_value(self, pos: int) -> tuple[TypedValue, int]:
        ty, pos = self.type(pos)
        v, pos = self.value(pos, ty)
        return (ty, v), pos

    def constexpr(self, pos: int) -> tuple[Value, int]:
        op = self.text(pos)
        p = pos + 1
        flags: list[str] = []
        while self.kind(p) == "word" and self.text(p) not in ("to",) and self.text(p + 1) != ",":
            w = self.text(p)
            if w == "inrange" and self.text(p + 1) == "(":
                p = self.skip_group(p + 1)
                continue
            flags.append(w)
            p += 1
        p = self.expect(p, "(")
        operands: list[TypedValue] = []
        dest: Type | None = None
        indices: list[int] = []
        src_ty: Type | None = None
        if op == "getelementptr":
            src_ty, p = self.type(p)
            p = self.expect(p, ",")
        while self.text(p) != ")":
            if self.text(p) == "inrange":
                p += 1
                if self.text(p) == "(":
                    p = self.skip_group(p)
                continue
            if self.kind(p) == "int" and op in ("extractvalue", "insertvalue"):
                indices.append(int(self.text(p)))
                p += 1
            else:
                tv, p = self.typed_value(p)
                operands.append(tv)
            if self.text(p) == "to":
                dest, p = self.type(p + 1)
            if self.text(p) == ",":
                p += 1
            elif self.text(p) != ")":
                raise _Fail("bad constant expression")
        ce = ConstExpr(op, tuple(flags), operands, tuple(indices), dest)
        if src_ty is not None:
            ce.dest = src_ty if dest is None else dest
        return ce, p + 1


def _call(p: _P, pos: int, ops: Ops) -> None:
    """call [flags] [cc] [ret attrs] [addrspace(N)] RetTy [FnTy] callee(args) [attrs] [bundles]"""
    ret: Type | None = None
    while pos < p.n:
        tok = p.t[pos]
        got = p.tp.parse(pos) if tok.kind in ("word", "local", "punct") else None
        if got is not None:
            ty, after = got
            nk, nt = p.kind(after), p.text(after)
            if ty.kind == "func" and ty.elem is not None:
                ret = ty.elem
                pos = after
                break
            if nk in ("global", "local") or nt == "asm" or nt in CONSTEXPR_OPS:
                ret = ty
                pos = after
                break
            if ty.kind in ("void", "int", "float", "ptr", "struct", "vector", "array", "named") and nt == "(":
                ret = ty
                pos = after
                break
        if tok.text == "addrspace" or (tok.kind == "word" and p.text(pos + 1) == "("):
            pos = p.skip_group(pos + 1)
            continue
        if tok.text == "cc":
            pos += 2
            continue
        pos += 1
    if ret is None:
        raise _Fail("could not find the return type")
    ops.result_type = ret
    # the callee
    callee, pos = p.value(pos, OTHER)
    ops.callee = callee
    pos = p.expect(pos, "(")
    args: list[TypedValue] = []
    while p.text(pos) != ")":
        ty, pos = p.type(pos)
        # parameter attributes between the type and the value
        while True:
            k, t = p.kind(pos), p.text(pos)
            if k == "word" and t not in CONST_WORDS and t not in UNDEF_WORDS and t not in CONSTEXPR_OPS \
                    and t not in ("splat", "asm", "blockaddress", "dso_local_equivalent", "no_cfi", "metadata"):
                if p.text(pos + 1) == "(":
                    pos = p.skip_group(pos + 1)
                elif t == "align" and p.kind(pos + 1) == "int":
                    pos += 2
                else:
                    pos += 1
                continue
            if k == "string":
                pos += 1
                if p.text(pos) == "=" and p.kind(pos + 1) == "string":
                    pos += 2
                continue
            break
        if ty.kind == "metadata":
            # metadata operands: skip to the next top-level ',' or ')'
            depth = 0
            while pos < p.n:
                t = p.text(pos)
                if t in "([{<":
                    depth += 1
                elif t in ")]}>":
                    if depth == 0:
                        break
                    depth -= 1
                elif t == "," and depth == 0:
                    break
                pos += 1
            args.append((ty, PlainConst("metadata")))
        else:
            v, pos = p.value(pos, ty)
            args.append((ty, v))
        if p.text(pos) == ",":
            pos += 1
        elif p.text(pos) != ")":
            raise _Fail("bad call argument list")
    ops.operands = args


def _memory_tail(p: _P, pos: int, ops: Ops) -> int:
    """[syncscope("x")] [ordering [failure-ordering]]"""
    if p.text(pos) == "syncscope":
        pos = p.expect(pos + 1, "(")
        ops.syncscope = p.text(pos).strip('"')
        pos = p.expect(pos + 1, ")")
    if p.text(pos) in ORDERINGS:
        ops.ordering = p.text(pos)
        pos += 1
        if p.text(pos) in ORDERINGS:
            ops.failure_ordering = p.text(pos)
            pos += 1
    return pos


def _parse(mod: Module, inst: Instruction) -> Ops:
    text = mod.text[inst.start:inst.end]
    toks = tokenize(text, inst.start)
    p = _P(toks)
    pos = 0
    if p.n > 1 and p.t[1].text == "=" and p.t[0].kind == "local":
        pos = 2  # %x = (an unnamed value numbered implicitly has a name, and no '%x =')
    while p.text(pos) in ("tail", "musttail", "notail"):
        pos += 1
    op = p.text(pos)
    pos += 1
    ops = Ops("other")
    if op == "load":
        ops.kind = "load"
        if p.text(pos) == "atomic":
            pos += 1
            ops.ordering = "atomic"
        if p.text(pos) == "volatile":
            ops.volatile = True
            pos += 1
        ops.result_type, pos = p.type(pos)
        pos = p.expect(pos, ",")
        tv, pos = p.typed_value(pos)
        ops.operands = [tv]
        if ops.ordering is not None:
            ops.ordering = None
            _memory_tail(p, pos, ops)
            ops.ordering = ops.ordering or "unknown"
        return ops
    if op == "store":
        ops.kind = "store"
        atomic = False
        if p.text(pos) == "atomic":
            atomic = True
            pos += 1
        if p.text(pos) == "volatile":
            ops.volatile = True
            pos += 1
        val, pos = p.typed_value(pos)
        pos = p.expect(pos, ",")
        ptr, pos = p.typed_value(pos)
        ops.operands = [val, ptr]
        if atomic:
            _memory_tail(p, pos, ops)
            ops.ordering = ops.ordering or "unknown"
        return ops
    if op == "atomicrmw":
        ops.kind = "atomicrmw"
        if p.text(pos) == "volatile":
            ops.volatile = True
            pos += 1
        ops.flags = (p.text(pos),)
        pos += 1
        ptr, pos = p.typed_value(pos)
        pos = p.expect(pos, ",")
        val, pos = p.typed_value(pos)
        ops.operands = [ptr, val]
        ops.result_type = val[0]
        _memory_tail(p, pos, ops)
        ops.ordering = ops.ordering or "unknown"
        return ops
    if op == "cmpxchg":
        ops.kind = "cmpxchg"
        while p.text(pos) in ("weak", "volatile"):
            if p.text(pos) == "volatile":
                ops.volatile = True
            pos += 1
        ptr, pos = p.typed_value(pos)
        pos = p.expect(pos, ",")
        cmp, pos = p.typed_value(pos)
        pos = p.expect(pos, ",")
        new, pos = p.typed_value(pos)
        ops.operands = [ptr, cmp, new]
        ops.result_type = Type("struct", fields=(cmp[0], Type("int", bits=1)))
        _memory_tail(p, pos, ops)
        ops.ordering = ops.ordering or "unknown"
        ops.failure_ordering = ops.failure_ordering or ops.ordering
        return ops
    if op == "getelementptr":
        ops.kind = "gep"
        flags: list[str] = []
        while p.kind(pos) == "word" and p.text(pos + 1) != ",":
            w = p.text(pos)
            if p.tp.parse(pos) is not None and p.text(p.tp.parse(pos)[1]) == ",":  # type: ignore[index]
                break
            if w == "inrange" and p.text(pos + 1) == "(":
                pos = p.skip_group(pos + 1)
                continue
            flags.append(w)
            pos += 1
        ops.flags = tuple(flags)
        ops.source_type, pos = p.type(pos)
        pos = p.expect(pos, ",")
        base, pos = p.typed_value(pos)
        operands = [base]
        while p.text(pos) == "," and p.kind(pos + 1) != "metadata":
            pos += 1
            if p.text(pos) == "inrange":
                pos += 1
            tv, pos = p.typed_value(pos)
            operands.append(tv)
        ops.operands = operands
        ops.result_type = base[0]
        return ops
    if op in CAST_OPS:
        ops.kind = "cast"
        ops.flags = (op,)
        while p.kind(pos) == "word" and p.text(pos) in ("nuw", "nsw", "nneg"):
            pos += 1
        src, pos = p.typed_value(pos)
        pos = p.expect(pos, "to")
        ops.result_type, pos = p.type(pos)
        ops.operands = [src]
        return ops
    if op in BINARY_OPS:
        ops.kind = "binop"
        flags = [op]
        while p.text(pos) in BINOP_FLAGS or p.text(pos) in FMF:
            flags.append(p.text(pos))
            pos += 1
        ops.flags = tuple(flags)
        ty, pos = p.type(pos)
        a, pos = p.value(pos, ty)
        pos = p.expect(pos, ",")
        b, pos = p.value(pos, ty)
        ops.operands = [(ty, a), (ty, b)]
        ops.result_type = ty
        return ops
    if op in ("icmp", "fcmp"):
        ops.kind = "cmp"
        while p.kind(pos) == "word" and p.tp.parse(pos) is None:
            pos += 1
        ty, pos = p.type(pos)
        a, pos = p.value(pos, ty)
        pos = p.expect(pos, ",")
        b, pos = p.value(pos, ty)
        ops.operands = [(ty, a), (ty, b)]
        ops.result_type = Type("int", bits=1)
        return ops
    if op == "phi":
        ops.kind = "phi"
        while p.text(pos) in FMF:
            pos += 1
        ty, pos = p.type(pos)
        ops.result_type = ty
        incoming: list[Value] = []
        while p.text(pos) == "[":
            v, pos = p.value(pos + 1, ty)
            pos = p.expect(pos, ",")
            pos += 1  # the block label
            pos = p.expect(pos, "]")
            incoming.append(v)
            if p.text(pos) == "," and p.text(pos + 1) == "[":
                pos += 1
        ops.incoming = incoming
        ops.operands = [(ty, v) for v in incoming]
        return ops
    if op == "select":
        ops.kind = "select"
        while p.text(pos) in FMF:
            pos += 1
        tc, pos = p.typed_value(pos)
        pos = p.expect(pos, ",")
        ta, pos = p.typed_value(pos)
        pos = p.expect(pos, ",")
        tb, pos = p.typed_value(pos)
        ops.operands = [tc, ta, tb]
        ops.result_type = ta[0]
        return ops
    if op == "call":
        ops.kind = "call"
        _call(p, pos, ops)
        return ops
    if op == "extractvalue":
        ops.kind = "extractvalue"
        agg, pos = p.typed_value(pos)
        idx: list[int] = []
        while p.text(pos) == "," and p.kind(pos + 1) == "int":
            idx.append(int(p.text(pos + 1)))
            pos += 2
        ops.operands = [agg]
        ops.indices = tuple(idx)
        return ops
    if op == "insertvalue":
        ops.kind = "insertvalue"
        agg, pos = p.typed_value(pos)
        pos = p.expect(pos, ",")
        val, pos = p.typed_value(pos)
        idx = []
        while p.text(pos) == "," and p.kind(pos + 1) == "int":
            idx.append(int(p.text(pos + 1)))
            pos += 2
        ops.operands = [agg, val]
        ops.indices = tuple(idx)
        ops.result_type = agg[0]
        return ops
    if op == "freeze":
        ops.kind = "freeze"
        tv0, pos = p.typed_value(pos)
        ops.operands = [tv0]
        ops.result_type = tv0[0]
        return ops
    if op == "alloca":
        ops.kind = "alloca"
        return ops
    # Anything else: collect every value reference for the generic rule.
    ops.kind = "other"
    ops.flags = (op,)
    refs: list[TypedValue] = []
    k = pos
    while k < p.n:
        tok = p.t[k]
        if tok.kind == "metadata" and k > 0 and p.text(k - 1) == ",":
            break  # attachments
        if tok.kind == "local":
            if not (k > 0 and p.text(k - 1) == "label") and tok.text not in mod.named_types:
                refs.append((OTHER, LocalRef(canon_name(tok.text))))
        elif tok.kind == "global":
            refs.append((OTHER, GlobalRef(canon_name(tok.text))))
        elif tok.kind == "word" and tok.text in CONSTEXPR_OPS and p.text(k + 1) in ("(",) or (
                tok.kind == "word" and tok.text in CONSTEXPR_OPS and p.kind(k + 1) == "word"):
            pass  # the globals and locals inside are collected one by one
        k += 1
    ops.operands = refs
    return ops



#: distinct instruction texts remembered per module (Ops are never changed once made, so
#: instructions spelled the same way, which recur across functions, share one)
OPS_CACHE_LIMIT = 1 << 14


def parse(mod: Module, inst: Instruction) -> Ops:
    """The operands of ``inst`` (cached on the instruction, and by text in the module)."""
    ops = inst.ops
    if ops is None:
        # inst.opstart and inst.end without their properties (this runs for most
        # instructions of every function the analysis looks at)
        op = inst._op
        if op >= 0:
            start = inst.start
            key: str | None = mod.source.text[start + op:start + inst._len]
        else:
            key = None
        cache = mod.ops_cache
        if key is not None:
            ops = cache.get(key)
        if ops is None:
            try:
                ops = read_fast(mod, inst) or _parse(mod, inst)
            except (_Fail, IndexError, ValueError):
                ops = Ops("unparsed")
            if key is not None:
                if len(cache) >= OPS_CACHE_LIMIT:
                    cache.clear()
                cache[key] = ops
        inst.ops = ops
    return ops


def parse_constant_text(text: str) -> TypedValue | None:
    """Parse one ``type value`` from text (used for global initializers and metadata)."""
    toks = tokenize(text)
    try:
        tv, _ = _P(toks).typed_value(0)
    except (_Fail, IndexError, ValueError):
        return None
    return tv
