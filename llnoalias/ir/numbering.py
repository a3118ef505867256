"""Implicit value numbering, as LLVM's parser does it.

In a function, every unnamed value takes the next number: the unnamed arguments, then an
unnamed entry block, then each unnamed instruction that produces a value and each unnamed
block (an instruction after a terminator, with no label before it starts one), in order.
A numbered name written out (``%7 = ...``, ``7:``, an argument ``%7``) sets the next
number to the one after it (LLVM 19 allows gaps). Names that LLVM's lexer rejects
(``%N`` at or past 2**32) move nothing. The compiled body reader (``_body_reader.c``) has the
same sets and rule.
"""

from __future__ import annotations

from .lazyre import lazy
from .lexer import NAME_END

#: the instructions that end a block: what follows them without a label is a new block
TERMINATORS = frozenset({"ret", "br", "switch", "indirectbr", "invoke", "resume", "unreachable", "cleanupret",
                         "catchret", "catchswitch", "callbr"})
#: instructions (and body directives) that never produce a value
NO_VALUE = frozenset({"store", "fence", "br", "switch", "indirectbr", "ret", "resume", "unreachable",
                      "cleanupret", "catchret", "uselistorder", "uselistorder_bb"})
#: instructions that produce a value unless their return type is void
CALLS = frozenset({"call", "invoke", "callbr"})
#: instructions that always produce a value
VALUE = frozenset({
    "fneg", "add", "fadd", "sub", "fsub", "mul", "fmul", "udiv", "sdiv", "fdiv", "urem", "srem", "frem", "shl",
    "lshr", "ashr", "and", "or", "xor", "extractelement", "insertelement", "shufflevector", "extractvalue",
    "insertvalue", "alloca", "load", "cmpxchg", "atomicrmw", "getelementptr", "trunc", "zext", "sext",
    "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp", "ptrtoint", "ptrtoaddr", "inttoptr", "bitcast",
    "addrspacecast", "icmp", "fcmp", "phi", "select", "freeze", "va_arg", "landingpad", "catchpad",
    "cleanuppad", "catchswitch",
})
#: a numbered name past this is rejected by LLVM's lexer: it sets no number here
NUMBER_LIMIT = 1 << 32

_TYPE_WORD = r"(?:void|i[0-9]+|half|bfloat|float|double|x86_fp80|fp128|ppc_fp128|x86_mmx|x86_amx|ptr|label" \
             r"|token|metadata|target|opaque)(?![a-z_0-9])"
# After the opcode of a call: words that are no type (flags, a calling convention, return
# attributes, 'cc 10', 'align 8', each with a parenthesised argument at most), then 'void'.
_VOID_CALL_RE = lazy(r"(?:[ \t]+(?!" + _TYPE_WORD + r")[a-z_0-9]+(?:\([^()\n]*\))?)*[ \t]+void" + NAME_END)


def produces_value(op: str, tail: str) -> bool:
    """Does an unnamed instruction with opcode ``op`` take a number? ``tail`` is its text
    after the opcode."""
    if op in VALUE:
        return True
    return op in CALLS and _VOID_CALL_RE.match(tail) is None


def number_of(name: str) -> int:
    """The number of a numbered name ``%N`` (with its sigil), or -1 for any other name and
    for a number that LLVM rejects."""
    body = name[1:]
    if not body.isdigit() or not body.isascii():
        return -1
    n = int(body)
    return n if n < NUMBER_LIMIT else -1


def next_number(names: list[str], nxt: int) -> int:
    """The next number once the names ``names`` (read in order) are defined, from ``nxt``;
    ``names`` is emptied."""
    for name in names:
        number = number_of(name)
        if number >= nxt:
            nxt = number + 1
    names.clear()
    return nxt


class Numbering:
    """Where the numbering of one body stands: the next number, and whether the last
    instruction read ended a block."""

    __slots__ = ("next", "after_term")

    def __init__(self, first: int) -> None:
        self.next = first
        self.after_term = False


__all__ = ["CALLS", "NO_VALUE", "NUMBER_LIMIT", "TERMINATORS", "VALUE", "Numbering", "next_number", "number_of",
           "produces_value"]
