"""The fast path of operand reading: the handful of plain shapes most instructions are
printed in, read by one regex each. ``read_fast`` returns ``None`` for anything else,
which the tokenizing parser in ``operands`` then reads.
"""

from __future__ import annotations

from .lazyre import lazy
from .lexer import BARE_NAME, tokenize
from .model import (
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
from .types import _TYPE_CACHE as _TYPES
from .types import OTHER, VOID, Type, TypeParser, type_of

CAST_OPS = {"trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
            "ptrtoint", "inttoptr", "bitcast", "addrspacecast", "ptrtoaddr"}
BINARY_OPS = {"add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or",
              "xor", "fadd", "fsub", "fmul", "fdiv", "frem"}

_TY = r"(?:i\d+|float|double|half|bfloat|ptr(?: addrspace\(\d+\))?|<\d+ x (?:i\d+|float|double|half|bfloat|ptr(?: addrspace\(\d+\))?)>)"
_VAL = (r"(?:%" + BARE_NAME + r"|@" + BARE_NAME + r"|-?\d+\.\d+(?:e[-+]?\d+)?|0x[KLMHR]?[0-9A-Fa-f]+|-?\d+"
        r"|true|false|null|undef|poison|zeroinitializer)")
_END = r"\s*(?:,|$)"
_FAST_BINOP = lazy(r"(add|sub|mul|udiv|sdiv|urem|srem|shl|lshr|ashr|and|or|xor)((?: (?:nuw|nsw|exact|disjoint))*) ("
                         + _TY + ") (" + _VAL + "), (" + _VAL + ")" + _END)
_FAST_FBINOP = lazy(r"(fadd|fsub|fmul|fdiv|frem)((?: (?:fast|nnan|ninf|nsz|arcp|contract|afn|reassoc))*) ("
                          + _TY + ") (" + _VAL + "), (" + _VAL + ")" + _END)
_FAST_BR = lazy(r"br (?:i1 (" + _VAL + r"), label %" + BARE_NAME + r", label %" + BARE_NAME + r"|label %" + BARE_NAME + r")"
                      + r"\s*(?:,\s*!|$)")
_FAST_RET = lazy(r"ret (?:void|(" + _TY + ") (" + _VAL + "))" + r"\s*(?:,\s*!|$)")
_FAST_NO_OPERANDS = lazy(r"(?:fence(?: syncscope\(\"[^\"]*\"\))? [a-z_]+|unreachable)\s*(?:,\s*!|$)")
_FAST_CAST = lazy(r"(trunc|zext|sext|fptrunc|fpext|fptoui|fptosi|uitofp|sitofp|ptrtoint|inttoptr|bitcast"
                  r"|addrspacecast)(?: (?:nuw|nsw|nneg))* ("
                        + _TY + ") (" + _VAL + ") to (" + _TY + ")" + _END)
# The indices must run to the end of the instruction (or its attachments): an index the
# regex cannot read (a constant expression, a quoted name, odd spacing, a line break) must
# not end the match early, or its provenance would be dropped.
_ARRAY_TY = r"\[\d+ x (?:\[\d+ x (?:\[\d+ x " + _TY + r"\]|" + _TY + r")\]|" + _TY + r")\]"
_FAST_GEP = lazy(r"getelementptr((?: (?:inbounds|nuw|nusw))*) (" + _TY + r"|%" + BARE_NAME + r"|" + _ARRAY_TY
                       + r"), (" + _TY + ") (" + _VAL + ")((?:, " + _TY + " " + _VAL + r")*)\s*(?:,\s*!|$)")
_FAST_IDX = lazy(", (" + _TY + ") (" + _VAL + ")")
_FAST_LOAD = lazy(r"load (" + _TY + "), (" + _TY + ") (" + _VAL + ")" + _END)
_FAST_STORE = lazy(r"store (" + _TY + ") (" + _VAL + "), (" + _TY + ") (" + _VAL + ")" + _END)
_FAST_CMP = lazy(r"icmp(?: samesign)? [a-z]+ (" + _TY + ") (" + _VAL + "), (" + _VAL + ")" + _END)
#: fast-math flags (``operands.FMF``), any number of them
_FMF = r"(?: (?:fast|nnan|ninf|nsz|arcp|contract|afn|reassoc))*"
_FAST_FCMP = lazy(r"fcmp" + _FMF + r" (?:false|oeq|ogt|oge|olt|ole|one|ord|ueq|ugt|uge|ult|ule|une|uno|true) ("
                  + _TY + ") (" + _VAL + "), (" + _VAL + ")" + _END)
_FAST_PHI = lazy(r"phi" + _FMF + " (" + _TY + r") ((?:\[ " + _VAL + r", %" + BARE_NAME + r" \](?:, )?)+)\s*(?:,\s*!|$)")
_FAST_PHI_IN = lazy(r"\[ (" + _VAL + r"), %" + BARE_NAME + r" \]")
_FAST_SELECT = lazy(r"select" + _FMF + r" i1 (" + _VAL + "), (" + _TY + ") (" + _VAL + "), (" + _TY + ") (" + _VAL + ")" + _END)
_ARG_ATTRS = r"(?: (?:noundef|nonnull|immarg|nocapture|readonly|writeonly|noalias|inreg|zeroext|signext|align \d+))*"
# (the result a plain type, void or a struct of plain types; the callee a global or an
# inline asm's two strings, no escape in them)
_FAST_CALL = lazy(r"(?:(?:tail|musttail|notail) )?call (?:(?:noundef|zeroext|signext|range\([^()]*\)|fastcc|[a-z_]+cc|nonnull) )*("
                        + _TY + r"|void|\{ " + _TY + "(?:, " + _TY + r")* \}) (@" + BARE_NAME
                        + r'|asm(?: (?:sideeffect|alignstack|inteldialect|unwind))* "[^"\\]*", "[^"\\]*")\(((?:'
                        + _TY + _ARG_ATTRS + " " + _VAL + r"(?:, )?)*)\)" + r"(?: #\d+)?\s*(?:,|$)")
_FAST_ARG = lazy("(" + _TY + ")" + _ARG_ATTRS + " (" + _VAL + ")")
# The vector instructions the full parser reads by its generic rule (every local and global
# reference, typed OTHER, in order): a vector type, plain values, and nothing after them but
# attachments.
_VEC_TY = r"<\d+ x " + _TY + ">"
_ATTACHED = r"\s*(?:,\s*!|$)"
_FAST_EXTRACTELEMENT = lazy(r"extractelement " + _VEC_TY + " (" + _VAL + "), " + _TY + " (" + _VAL + ")" + _ATTACHED)
_FAST_INSERTELEMENT = lazy(r"insertelement " + _VEC_TY + " (" + _VAL + "), " + _TY + " (" + _VAL + "), " + _TY
                           + " (" + _VAL + ")" + _ATTACHED)
# (a mask of plain lanes: no reference in it)
_MASK = r"(?:<i32 (?:\d+|poison|undef)(?:, i32 (?:\d+|poison|undef))*>|zeroinitializer|poison|undef)"
_FAST_SHUFFLEVECTOR = lazy(r"shufflevector " + _VEC_TY + " (" + _VAL + "), " + _VEC_TY + " (" + _VAL + r"), <\d+ x i32> "
                           + _MASK + _ATTACHED)
# (an aggregate's type: bracketed, no name or string in it; ``_whole_type`` reads it)
_FAST_EXTRACTVALUE = lazy(r"extractvalue ([{<\[][^%@\"!;]*[}>\]]) (%" + BARE_NAME + r")((?:, \d+)+)" + _ATTACHED)
#: the opcodes read by the generic rule that have a fast shape
_FAST_GENERIC = {"extractelement": _FAST_EXTRACTELEMENT, "insertelement": _FAST_INSERTELEMENT,
                 "shufflevector": _FAST_SHUFFLEVECTOR}
_RESULT_PREFIX = lazy(r"\s*(?:%" + BARE_NAME + r"|%\"[^\"]*\")\s*=\s*")



#: per aggregate type's text, its type where the type parser reads all of it, else None
_WHOLE_TYPES: dict[str, Type | None] = {}


def _whole_type(text: str) -> Type | None:
    """The type ``text`` spells, where the type parser reads it to its end (as the full
    parser reads it before the value that follows); None otherwise."""
    if text in _WHOLE_TYPES:
        return _WHOLE_TYPES[text]
    toks = tokenize(text)
    got = TypeParser(toks).parse(0)
    ty = got[0] if got is not None and got[1] == len(toks) else None
    if len(_WHOLE_TYPES) >= 4096:
        _WHOLE_TYPES.clear()  # a memo, bounded
    _WHOLE_TYPES[text] = ty
    return ty


def _val(text: str) -> Value:
    c = text[0]
    if c == "%":
        return LocalRef(text)
    if c == "@":
        return GlobalRef(text)
    if text == "undef" or text == "poison":
        return UndefConst(text)
    return PlainConst(text)


def read_none(mod: Module, inst: Instruction) -> Ops | None:
    """``read_fast``'s long way (``shortcuts`` row ``operands-fast`` off, which binds it in
    ``operands`` instead): no shape read here, every instruction by the tokenizing parser."""
    return None


def read_fast(mod: Module, inst: Instruction) -> Ops | None:
    text = mod.text
    start = inst.start
    # (``inst.opstart`` and ``inst.end`` without their properties: this runs per instruction)
    end = start + inst._len
    if inst._op >= 0:
        pos = start + inst._op
    elif inst.name is not None:
        m0 = _RESULT_PREFIX.match(text, start, end)
        if m0 is None:
            return None
        pos = m0.end()
    else:
        pos = start
        while text[pos] in " \t":
            pos += 1
    op = inst.opcode
    if op in BINARY_OPS:
        m = (_FAST_FBINOP if op[0] == "f" else _FAST_BINOP).match(text, pos, end)
        if m is None:
            return None
        ops = Ops("binop")
        g_op, flags, g_ty, g_a, g_b = m.groups()
        ops.flags = (g_op, *flags.split()) if flags else (g_op,)
        ty = type_of(g_ty)
        ops.operands = [(ty, _val(g_a)), (ty, _val(g_b))]
        ops.result_type = ty
        return ops
    if op == "br":
        m = _FAST_BR.match(text, pos, end)
        if m is None:
            return None
        ops = Ops("other")
        ops.flags = ("br",)
        ops.operands = [] if m.group(1) is None else [(type_of("i1"), _val(m.group(1)))]
        return ops
    if op == "ret":
        m = _FAST_RET.match(text, pos, end)
        if m is None:
            return None
        ops = Ops("other")
        ops.flags = ("ret",)
        value = None if m.group(1) is None else _val(m.group(2))
        # (a constant is no reference: the full parser's generic rule keeps references only)
        ops.operands = [] if value is None or isinstance(value, (PlainConst, UndefConst)) else [
            (type_of(m.group(1)), value)]
        return ops
    if op == "fence" or op == "unreachable":
        if _FAST_NO_OPERANDS.match(text, pos, end) is None:
            return None
        ops = Ops("other")
        ops.flags = (op,)
        return ops
    if op in CAST_OPS:
        m = _FAST_CAST.match(text, pos, end)
        if m is None:
            return None
        ops = Ops("cast")
        g_op, g_sty, g_v, g_dty = m.groups()
        ops.flags = (g_op,)
        ops.operands = [(type_of(g_sty), _val(g_v))]
        ops.result_type = type_of(g_dty)
        return ops
    if op == "getelementptr":
        m = _FAST_GEP.match(text, pos, end)
        if m is None:
            return None
        ops = Ops("gep")
        ops.flags = tuple(m.group(1).split())
        ops.source_type = type_of(m.group(2))
        bty = type_of(m.group(3))
        operands: list[TypedValue] = [(bty, _val(m.group(4)))]
        for im in _FAST_IDX.finditer(m.group(5)):
            operands.append((type_of(im.group(1)), _val(im.group(2))))
        ops.operands = operands
        ops.result_type = bty
        return ops
    if op == "load":
        m = _FAST_LOAD.match(text, pos, end)
        if m is None:
            return None
        ops = Ops("load")
        g_ty, g_pty, g_p = m.groups()
        ops.result_type = _TYPES.get(g_ty) or type_of(g_ty)
        ops.operands = [(_TYPES.get(g_pty) or type_of(g_pty), LocalRef(g_p) if g_p[0] == "%" else _val(g_p))]
        return ops
    if op == "store":
        m = _FAST_STORE.match(text, pos, end)
        if m is None:
            return None
        ops = Ops("store")
        g_vty, g_v, g_pty, g_p = m.groups()
        ops.operands = [(_TYPES.get(g_vty) or type_of(g_vty), LocalRef(g_v) if g_v[0] == "%" else _val(g_v)),
                        (_TYPES.get(g_pty) or type_of(g_pty), LocalRef(g_p) if g_p[0] == "%" else _val(g_p))]
        return ops
    if op == "icmp" or op == "fcmp":
        m = (_FAST_CMP if op == "icmp" else _FAST_FCMP).match(text, pos, end)
        if m is None:
            return None
        ops = Ops("cmp")
        ty = type_of(m.group(1))
        ops.operands = [(ty, _val(m.group(2))), (ty, _val(m.group(3)))]
        ops.result_type = Type("int", bits=1)
        return ops
    if op == "phi":
        m = _FAST_PHI.match(text, pos, end)
        if m is None:
            return None
        ops = Ops("phi")
        ty = type_of(m.group(1))
        ops.result_type = ty
        ops.incoming = [_val(v) for v in _FAST_PHI_IN.findall(m.group(2))]
        ops.operands = [(ty, v) for v in ops.incoming]
        return ops
    if op == "call":
        m = _FAST_CALL.match(text, pos, end)
        if m is None:
            return None
        ret = m.group(1)
        result = VOID if ret == "void" else type_of(ret) if ret[0] != "{" else _whole_type(ret)
        if result is None:
            return None
        ops = Ops("call")
        ops.result_type = result
        callee = m.group(2)
        ops.callee = GlobalRef(callee) if callee[0] == "@" else UnknownValue("asm")
        ops.operands = [(type_of(a.group(1)), _val(a.group(2))) for a in _FAST_ARG.finditer(m.group(3))]
        return ops
    if op == "extractvalue":
        m = _FAST_EXTRACTVALUE.match(text, pos, end)
        if m is None:
            return None
        agg = _whole_type(m.group(1))
        if agg is None:
            return None
        ops = Ops("extractvalue")
        ops.operands = [(agg, LocalRef(m.group(2)))]
        ops.indices = tuple([int(i) for i in m.group(3)[2:].split(", ")])
        return ops
    generic = _FAST_GENERIC.get(op)
    if generic is not None:
        m = generic.match(text, pos, end)
        if m is None:
            return None
        ops = Ops("other")
        ops.flags = (op,)
        # (the full parser's generic rule: the references, constants and named types left out)
        named = mod.named_types
        ops.operands = [(OTHER, LocalRef(v)) if v[0] == "%" else (OTHER, GlobalRef(v)) for v in m.groups()
                        if v[0] == "@" or v[0] == "%" and v not in named]
        return ops
    if op == "select":
        m = _FAST_SELECT.match(text, pos, end)
        if m is None:
            return None
        ops = Ops("select")
        a_ty = type_of(m.group(2))
        ops.operands = [(Type("int", bits=1), _val(m.group(1))), (a_ty, _val(m.group(3))),
                        (type_of(m.group(4)), _val(m.group(5)))]
        ops.result_type = a_ty
        return ops
    return None
