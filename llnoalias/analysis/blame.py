"""Why a value is unknown (SPEC section 8): the rule and the instruction where it applied.

``FunctionAnalysis`` records, for each value that became ``unknown`` by itself (not
because an operand already was), the rule that made it so; ``Blame.blame`` walks back
from a pointer operand through unknown operands to that value, and names it with its line
and code, so that ``--stats``, ``explain``, remarks and ``--report`` can say which
construct cost the claim and ``explain --summary`` can group accesses by it.
"""

from __future__ import annotations

from ..ir.model import (
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
from .lattice import UNKNOWN, Lat
from .memory import inst_text


def operand_values(ops: Ops) -> list[Value]:
    if ops.kind == "phi":
        return list(ops.incoming)
    return [v for _, v in ops.operands]


class Blame:
    """The explaining half of ``provenance.FunctionAnalysis`` (kept apart so that each
    class stays small)."""

    mod: Module
    fn: Function
    cause: dict[str, str]

    def value(self, v: Value) -> Lat:  # provided by FunctionAnalysis
        raise NotImplementedError

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


