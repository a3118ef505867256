"""Why a value is unknown (design section 8): the rule and the instruction where it applied.

``FunctionAnalysis`` records, for each value that became ``unknown`` by itself (not
because an operand already was), the rule that made it so; ``Blame.blame`` walks back
from a pointer operand through unknown operands to that value, and names it with its line
and code, so that ``--stats``, ``explain``, remarks and ``--report`` can say which
construct cost the claim and ``explain --summary`` can group accesses by it.
"""

from __future__ import annotations

from ... import reasons
from ...ir.model import (
    AggregateConst,
    ConstExpr,
    Function,
    GlobalRef,
    Instruction,
    LocalRef,
    Module,
    Ops,
    UnknownValue,
    Value,
)
from ..memory.loads import inst_text
from .lattice import UNKNOWN, Lat

#: kinds whose unknown result does not come from an unknown operand
OWN_CAUSE = {"load", "atomicrmw", "cmpxchg", "call", "alloca", "unparsed"}
#: kinds whose value does not depend on the provenance of their operands
NO_DEPS = {"load", "atomicrmw", "cmpxchg", "alloca"}


def operand_values(ops: Ops) -> list[Value]:
    if ops.kind == "phi":
        return list(ops.incoming)
    return [v for _, v in ops.operands]


def local_deps(ops: Ops) -> list[str]:
    """The local names ``ops`` reads, last operand first (constant expressions and
    aggregates opened in place)."""
    # What a load or an atomic reads does not depend on the provenance of its address.
    kind = ops.kind
    if kind in NO_DEPS:
        return []
    vals: list[Value] = ops.incoming if kind == "phi" else [v for _, v in ops.operands]
    out: list[str] = []
    # the common case, no constant expression or aggregate among the operands: the same
    # names in the same order as the general walk below, without its stack
    for v in reversed(vals):
        if isinstance(v, LocalRef):
            out.append(v.name)
        elif isinstance(v, (ConstExpr, AggregateConst)):
            break
    else:
        return out
    out = []
    stack: list[Value] = list(vals)
    while stack:
        v = stack.pop()
        if isinstance(v, LocalRef):
            out.append(v.name)
        elif isinstance(v, ConstExpr):
            stack.extend(x for _, x in v.operands)
        elif isinstance(v, AggregateConst):
            stack.extend(x for _, x in v.elems)
    return out


class Blame:
    """The explaining half of ``provenance.FunctionAnalysis`` (kept apart so that each
    class stays small)."""

    mod: Module
    fn: Function
    vals: dict[str, Lat]
    cause: dict[str, str]

    def value(self, v: Value) -> Lat:  # provided by FunctionAnalysis
        raise NotImplementedError

    def transfer(self, inst: Instruction, ops: Ops, env: dict[str, Lat]) -> tuple[Lat, str]:  # likewise
        raise NotImplementedError

    def note_causes(self, solved: dict[str, Lat], slice_: dict[str, Instruction]) -> None:
        """Record why each value just ``solved`` unknown became so, where no operand of
        it is unknown or its kind makes unknown values by itself."""
        for n, got in solved.items():
            if got is UNKNOWN:
                sops = slice_[n].ops
                assert sops is not None
                if sops.kind in OWN_CAUSE or not any(self.value(dv) is UNKNOWN for dv in operand_values(sops)):
                    why = self.transfer(slice_[n], sops, self.vals)[1]
                    if why:
                        self.cause[n] = why
                    elif sops.kind not in OWN_CAUSE:
                        self.cause[n] = reasons.MADE_UNKNOWN.format(op=sops.kind)

    def explain_unknown(self, v: Value) -> str:
        """Follow unknown operands back to the value that made them unknown: the rule and
        where (``blame``), as one line."""
        rule, where = self.blame(v)
        return f"{rule} ({where})" if where else rule

    def blame(self, v: Value) -> tuple[str, str]:
        """The rule that made ``v`` unknown and the instruction (or global, or argument)
        where it applied: ``("integer loaded from memory, and ...", "line 12: `%x = load
        i32, ...`")``. The second part names a line and the code, so that accesses can be
        grouped by the construct that blocked them."""
        seen: set[str] = set()
        cur = v
        last: Instruction | None = None
        for _ in range(10000):
            if isinstance(cur, GlobalRef):
                g = self.mod.globals.get(cur.name)
                if g is not None:
                    return (reasons.GLOBAL_NOT_ROOT.format(name=cur.name),
                            f"{cur.name} (line {g.line})")
                return reasons.SYMBOL_NOT_ROOT.format(name=cur.name), cur.name
            if isinstance(cur, ConstExpr):
                for _, sub in cur.operands:
                    if self.value(sub) is UNKNOWN:
                        cur = sub
                        break
                else:
                    return reasons.CONSTEXPR_ON_ADDRESS.format(op=cur.opcode), self.where_of(last)
                continue
            if isinstance(cur, UnknownValue):
                return reasons.UNREADABLE_VALUE.format(text=cur.text[:40]), self.where_of(last)
            if not isinstance(cur, LocalRef):
                return reasons.UNTRACEABLE_VALUE.text, self.where_of(last)
            if cur.name in seen:
                return reasons.PHI_CYCLE.text, self.where_of(last)
            seen.add(cur.name)
            inst = self.fn.by_name.get(cur.name)
            why = self.cause.get(cur.name, "")
            if why:
                if inst is None:  # an argument
                    return why, f"line {self.fn.line}: {cur.name} of {self.fn.name}"
                return why, self.where_of(inst)
            if inst is None:
                return reasons.UNDEFINED_NAME.format(name=cur.name, function=self.fn.name), ""
            last = inst
            if inst.ops is None:
                return reasons.NOT_ANALYSED.format(op=inst.opcode), self.where_of(inst)
            for sub in operand_values(inst.ops):
                if self.value(sub) is UNKNOWN:
                    cur = sub
                    break
            else:
                return reasons.MADE_UNKNOWN.format(op=inst.opcode), self.where_of(inst)
        return reasons.CHAIN_TOO_LONG.text, self.where_of(last)

    def where_of(self, inst: Instruction | None) -> str:
        if inst is None:
            return ""
        return f"line {inst.line}: {inst_text(self.mod, inst)}"


