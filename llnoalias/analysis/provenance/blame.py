"""Why a value is unknown (SPEC section 8): the rule and the instruction where it applied.

``FunctionAnalysis`` records, for each value that became ``unknown`` by itself (not
because an operand already was), the rule that made it so; ``Blame.blame`` walks back
from a pointer operand through unknown operands to that value, and names it with its line
and code, so that ``--stats``, ``explain``, remarks and ``--report`` can say which
construct cost the claim and ``explain --summary`` can group accesses by it.
"""

from __future__ import annotations

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
                        self.cause[n] = f"'{sops.kind}' made the value unknown"

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
                    return (f"{cur.name} is not a root (not an LDS buffer llnoalias gives a scope)",
                            f"{cur.name} (line {g.line})")
                return f"{cur.name} is not a root (a function or an undefined global)", cur.name
            if isinstance(cur, ConstExpr):
                for _, sub in cur.operands:
                    if self.value(sub) is UNKNOWN:
                        cur = sub
                        break
                else:
                    return f"constant expression '{cur.opcode}' on an address", self.where_of(last)
                continue
            if isinstance(cur, UnknownValue):
                return f"value llnoalias cannot read ({cur.text[:40]})", self.where_of(last)
            if not isinstance(cur, LocalRef):
                return "value llnoalias cannot trace", self.where_of(last)
            if cur.name in seen:
                return "a cycle of phis none of which has a traced value", self.where_of(last)
            seen.add(cur.name)
            inst = self.fn.by_name.get(cur.name)
            why = self.cause.get(cur.name, "")
            if why:
                if inst is None:  # an argument
                    return why, f"line {self.fn.line}: {cur.name} of {self.fn.name}"
                return why, self.where_of(inst)
            if inst is None:
                return f"{cur.name} is not defined in {self.fn.name}", ""
            last = inst
            if inst.ops is None:
                return f"'{inst.opcode}' was not analysed", self.where_of(inst)
            for sub in operand_values(inst.ops):
                if self.value(sub) is UNKNOWN:
                    cur = sub
                    break
            else:
                return f"'{inst.opcode}' made the value unknown", self.where_of(inst)
        return "a chain of values too long to follow", self.where_of(last)

    def where_of(self, inst: Instruction | None) -> str:
        if inst is None:
            return ""
        return f"line {inst.line}: {inst_text(self.mod, inst)}"


