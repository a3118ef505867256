"""A concrete evaluator for the LDS addresses of real kernels (tests only).

It evaluates the address of an access for one thread id (x dimension) and one assignment of
the function's two-input phis, following the instructions that feed it: integer arithmetic,
casts, compares, selects, geps, the thread-id intrinsics and ``readfirstlane``. Anything else
(a loaded value, another intrinsic, an argument) raises :class:`Skip`, and that evaluation is
left out. Loop phis are simulated for a few iterations from their entry value
(``phi = [init, latch]``). The point is an oracle independent of the range analysis: every
address evaluated here must lie inside the byte range llnoalias claims for the access.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from llnoalias.ir import operands as opparse
from llnoalias.ir.datalayout import layout_of
from llnoalias.ir.model import (
    ConstExpr,
    Function,
    GlobalRef,
    Instruction,
    LocalRef,
    Module,
    PlainConst,
)
from llnoalias.ir.types import Type

_PRED = re.compile(r"icmp\s+(?:samesign\s+)?(\w+)")
_BYTES = re.compile(r"bytes \[(\d+), (\d+)\)")


class Skip(Exception):
    """The value depends on something this oracle does not evaluate."""


def _signed(x: int, bits: int) -> int:
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


_BINOPS: dict[str, Callable[[int, int, int], int]] = {
    "add": lambda x, y, w: x + y,
    "sub": lambda x, y, w: x - y,
    "mul": lambda x, y, w: x * y,
    "and": lambda x, y, w: x & y,
    "or": lambda x, y, w: x | y,
    "xor": lambda x, y, w: x ^ y,
    "shl": lambda x, y, w: x << y,
    "lshr": lambda x, y, w: x >> y,
    "ashr": lambda x, y, w: _signed(x, w) >> y,
    "udiv": lambda x, y, w: x // y,
    "urem": lambda x, y, w: x % y,
}

_PREDS: dict[str, Callable[[int, int, int], bool]] = {
    "eq": lambda x, y, w: x == y,
    "ne": lambda x, y, w: x != y,
    "ult": lambda x, y, w: x < y,
    "ule": lambda x, y, w: x <= y,
    "ugt": lambda x, y, w: x > y,
    "uge": lambda x, y, w: x >= y,
    "slt": lambda x, y, w: _signed(x, w) < _signed(y, w),
    "sle": lambda x, y, w: _signed(x, w) <= _signed(y, w),
    "sgt": lambda x, y, w: _signed(x, w) > _signed(y, w),
    "sge": lambda x, y, w: _signed(x, w) >= _signed(y, w),
}


@dataclass
class Evaluator:
    """Values of one function for one thread id and one phi environment."""

    mod: Module
    fn: Function
    lds: str
    tid: int
    env: dict[str, Any]
    memo: dict[str, int] = field(default_factory=dict)

    def value(self, ty: Type, v: Any) -> int:
        if isinstance(v, PlainConst):
            if v.text in ("true", "false"):
                return int(v.text == "true")
            return int(v.text)
        if isinstance(v, GlobalRef):
            if v.name == self.lds:
                return 0
            raise Skip(v.name)
        if isinstance(v, ConstExpr):
            if v.opcode == "getelementptr":
                return self.gep(v.dest, v.operands)
            raise Skip("constant expression")
        if not isinstance(v, LocalRef):
            raise Skip(type(v).__name__)
        if v.name in self.memo:
            return self.memo[v.name]
        inst = self.fn.by_name.get(v.name)
        if inst is None:
            raise Skip("argument")
        r = self.instruction(inst, v.name)
        self.memo[v.name] = r
        return r

    def instruction(self, inst: Instruction, name: str) -> int:
        o = opparse.parse(self.mod, inst)
        k = o.kind
        if k == "phi":
            if name not in self.env:
                raise Skip("phi")
            r = self.env[name]
            if isinstance(r, Skip):
                raise r
            return int(r)
        if k == "call":
            callee = o.callee.name if o.callee is not None else ""
            if "workitem.id.x" in callee or "tid.x" in callee:
                return self.tid
            if "readfirstlane" in callee:
                return self.value(*o.operands[0])
            raise Skip(callee)
        if k == "gep":
            return self.gep(o.source_type, o.operands)
        if k == "binop":
            op = o.flags[0]
            (ta, va), (tb, vb) = o.operands
            w = ta.bits
            mask = (1 << w) - 1
            x, y = self.value(ta, va) & mask, self.value(tb, vb) & mask
            if op == "or" and "disjoint" in o.flags and x & y:
                raise Skip("poison")
            if op not in _BINOPS:
                raise Skip(op)
            return _BINOPS[op](x, y, w) & mask
        if k == "cast":
            c = o.flags[0]
            st, sv = o.operands[0]
            x = self.value(st, sv)
            if c == "zext":
                return x & ((1 << st.bits) - 1)
            if c == "trunc":
                return x & ((1 << o.result_type.bits) - 1)
            if c == "sext":
                return _signed(x, st.bits)
            raise Skip(c)
        if k == "cmp":
            m = _PRED.search(self.mod.text[inst.start:inst.end])
            if m is None or m.group(1) not in _PREDS:
                raise Skip("compare")
            (ta, va), (tb, vb) = o.operands
            w = ta.bits
            mask = (1 << w) - 1
            return int(_PREDS[m.group(1)](self.value(ta, va) & mask, self.value(tb, vb) & mask, w))
        if k == "select":
            c = self.value(*o.operands[0])
            return self.value(*o.operands[1]) if c else self.value(*o.operands[2])
        raise Skip(k)

    def gep(self, src: Type, operands: list[Any]) -> int:
        dl = layout_of(self.mod)
        off = self.value(*operands[0])
        cur = src
        for n, (it, iv) in enumerate(operands[1:]):
            x = _signed(self.value(it, iv), it.bits)
            if n > 0:
                cur = cur.elem
            off += x * dl.alloc_size(cur, self.mod.named_types)
        return off


def phi_environments(mod: Module, fn: Function, lds: str, tid: int, iterations: int) -> list[dict[str, Any]]:
    """The values of the two-input integer and pointer phis for the entry and ``iterations``
    trips round the loop (a value that cannot be evaluated is kept as its :class:`Skip`)."""
    phis = []
    for inst in fn.instrs:
        if inst.opcode == "phi" and inst.name:
            o = opparse.parse(mod, inst)
            rt = o.result_type
            if rt is not None and (rt.kind == "int" or rt.is_pointer) and len(o.incoming) == 2:
                phis.append((inst.name, rt, o.incoming))
    env: dict[str, Any] = {}
    for name, ty, inc in phis:
        try:
            env[name] = Evaluator(mod, fn, lds, tid, {}).value(ty, inc[0])
        except Skip as e:
            env[name] = e
    out = [dict(env)]
    for _ in range(iterations):
        nxt: dict[str, Any] = {}
        for name, ty, inc in phis:
            try:
                nxt[name] = Evaluator(mod, fn, lds, tid, env).value(ty, inc[1])
            except Skip as e:
                nxt[name] = e
        env = nxt
        out.append(dict(env))
    return out


@dataclass
class Outcome:
    checked: int = 0
    skipped: int = 0
    #: LDS accesses that are not a plain load or store (intrinsics): not evaluated
    other: int = 0
    outside: list[str] = field(default_factory=list)


def check_ranges(mod: Module, report: dict[str, Any], lds: str, threads: int, iterations: int = 6) -> Outcome:
    """Evaluate every ranged LDS access of the module's first function for every thread id
    below ``threads`` and every simulated loop trip; list each address outside its claim."""
    fn = mod.functions[0]
    by_line = {i.line: i for i in fn.instrs}
    dl = layout_of(mod)
    envs = {tid: phi_environments(mod, fn, lds, tid, iterations) for tid in range(threads)}
    out = Outcome()
    for a in report["accesses"]:
        if a["domain"] != "llnoalias.lds" or a["function"] != fn.name:
            continue
        m = _BYTES.search(a.get("range_note") or "")
        if m is None:
            out.skipped += 1
            continue
        lo, hi = int(m.group(1)), int(m.group(2))
        ops = opparse.parse(mod, by_line[a["line"]])
        ptrs = [(t, v) for t, v in ops.operands if t.is_pointer and t.addrspace == 3]
        if len(ptrs) != 1 or ops.kind not in ("load", "store"):
            out.other += 1
            continue
        vty = ops.result_type if ops.kind == "load" else ops.operands[0][0]
        size = dl.store_size(vty, mod.named_types)
        evaluated = 0
        for tid in range(threads):
            for env in envs[tid]:
                try:
                    addr = Evaluator(mod, fn, lds, tid, env).value(*ptrs[0]) & 0xFFFFFFFF
                except Skip:
                    continue
                evaluated += 1
                if not (lo <= addr and addr + size <= hi):
                    out.outside.append(f"line {a['line']}: thread {tid} touches [{addr}, {addr + size}) "
                                       f"outside [{lo}, {hi})")
        if evaluated:
            out.checked += 1
        else:
            out.skipped += 1
    return out
