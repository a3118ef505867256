"""Random offset programs for the range and region property tests.

A program is a kernel with one dynamic LDS buffer ``@smem``: a thread id bounded by a
work-group size attribute, optionally a counted loop ``i = 0 .. trip-1``, a chain of
integer operations over them (and/or/xor/shl/lshr/ashr/mul/urem/udiv/sdiv/srem/add/sub/
min/max/select/trunc/zext/sext, and FlyDSL's floor division: ``sdiv`` fixed up by a ``select``
on ``icmp``s), and accesses whose addresses are ``getelementptr``s (or
``ptrtoint``/``add``/``inttoptr`` chains) from constant bases. ``evaluate`` runs the
program in Python with LLVM's semantics for one thread id and loop value, so a test can
enumerate every execution and compare the bytes really touched with what llnoalias claims.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

M32 = (1 << 32) - 1

BINOPS = ("add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "urem", "udiv")
#: signed division and remainder (by a constant from the pool, 0 and -1 included)
SIGNED_DIV = ("sdiv", "srem")
#: the positive divisors of ``floordiv``
FLOOR_DIVISORS = (1, 2, 3, 8, 64, 100, 128)
INTRINSICS = ("umin", "umax", "smin", "smax")
ELEMS = {"i8": 1, "i32": 4, "<4 x i32>": 16, "i64": 8}


def s32(x: int) -> int:
    x &= M32
    return x - (1 << 32) if x >> 31 else x


@dataclass
class Op:
    kind: str  # a binop, sdiv, srem, an intrinsic, select, sselect, floordiv, trunc16z, trunc16s, trunc8z
    a: int  # operand: index of a previous value, or -1 - const index
    b: int = 0
    c: int = 0
    consts: tuple[int, ...] = ()


@dataclass
class AccessSpec:
    value: int  # index of the value used as the index / offset
    elem: str
    base: int  # constant byte base
    form: str  # gep32, gep64 (sext to i64), int (ptrtoint/add/inttoptr)
    store: bool
    size: str  # the accessed type


@dataclass
class Program:
    wg: int
    trip: int  # 0: no loop
    stages: int = 3
    #: with a loop: %v3 toggles between 0 and ``toggle`` (``xor`` each iteration); 0: none
    toggle: int = 0
    ops: list[Op] = field(default_factory=list)
    consts: list[int] = field(default_factory=list)
    accesses: list[AccessSpec] = field(default_factory=list)

    # ------------------------------------------------------------- values
    def n_base(self) -> int:
        # %v0 = tid, %v1 = i, %v2 = a stage counter i % stages, %v3 = a toggled buffer base
        if not self.trip:
            return 1
        return 4 if self.toggle else 3

    def operand_text(self, x: int) -> str:
        if x < 0:
            return str(s32(self.consts[-1 - x]))
        return f"%v{x}"

    # --------------------------------------------------------------- text
    def text(self) -> str:
        lines: list[str] = []
        lines.append('target triple = "amdgcn-amd-amdhsa"')
        lines.append("")
        lines.append("@smem = external addrspace(3) global [0 x i8], align 16")
        lines.append("")
        lines.append("define amdgpu_kernel void @k(ptr addrspace(1) %out) #0 {")
        lines.append("entry:")
        lines.append("  %v0 = call i32 @llvm.amdgcn.workitem.id.x()")
        if self.trip:
            lines.append("  br label %loop")
            lines.append("loop:")
            lines.append("  %v1 = phi i32 [ 0, %entry ], [ %inext, %loop ]")
            lines.append("  %v2 = phi i32 [ 0, %entry ], [ %stnext, %loop ]")
            if self.toggle:
                lines.append("  %v3 = phi i32 [ 0, %entry ], [ %tgnext, %loop ]")
            lines.append("  %st1 = add i32 %v2, 1")
            lines.append(f"  %stlt = icmp slt i32 %st1, {self.stages}")
            lines.append("  %stnext = select i1 %stlt, i32 %st1, i32 0")
            if self.toggle:
                lines.append(f"  %tgnext = xor i32 %v3, {self.toggle}")
        n = self.n_base()
        for k, op in enumerate(self.ops):
            dst = f"%v{n + k}"
            a = self.operand_text(op.a)
            b = self.operand_text(op.b)
            if op.kind in BINOPS or op.kind in SIGNED_DIV:
                lines.append(f"  {dst} = {op.kind} i32 {a}, {b}")
            elif op.kind == "floordiv":
                # FlyDSL 0.4.2's floor division by a positive constant, as it writes it
                d = op.consts[0]
                lines.append(f"  %q{k} = sdiv i32 {a}, {d}")
                lines.append(f"  %m{k} = mul i32 %q{k}, {d}")
                lines.append(f"  %ne{k} = icmp ne i32 {a}, %m{k}")
                lines.append(f"  %neg{k} = icmp slt i32 {a}, 0")
                lines.append(f"  %ng{k} = icmp ne i1 %neg{k}, false")
                lines.append(f"  %fix{k} = and i1 %ne{k}, %ng{k}")
                lines.append(f"  %qm{k} = add i32 %q{k}, -1")
                lines.append(f"  {dst} = select i1 %fix{k}, i32 %qm{k}, i32 %q{k}")
            elif op.kind == "sselect":
                c = self.operand_text(op.c)
                lines.append(f"  %c{k} = icmp slt i32 {a}, {b}")
                lines.append(f"  {dst} = select i1 %c{k}, i32 {b}, i32 {c}")
            elif op.kind == "ordisjoint":
                lines.append(f"  {dst} = or disjoint i32 {a}, {b}")
            elif op.kind in INTRINSICS:
                lines.append(f"  {dst} = call i32 @llvm.{op.kind}.i32(i32 {a}, i32 {b})")
            elif op.kind == "select":
                c = self.operand_text(op.c)
                lines.append(f"  %c{k} = icmp ult i32 {a}, {b}")
                lines.append(f"  {dst} = select i1 %c{k}, i32 {b}, i32 {c}")
            elif op.kind.startswith("trunc"):
                bits = 16 if "16" in op.kind else 8
                ext = "zext" if op.kind.endswith("z") else "sext"
                lines.append(f"  %t{k} = trunc i32 {a} to i{bits}")
                lines.append(f"  {dst} = {ext} i{bits} %t{k} to i32")
            else:
                raise AssertionError(op.kind)
        for j, acc in enumerate(self.accesses):
            idx = self.operand_text(acc.value)
            base = f"getelementptr (i8, ptr addrspace(3) @smem, i32 {acc.base})" if acc.base else "@smem"
            if acc.form == "gep32":
                lines.append(f"  %p{j} = getelementptr {acc.elem}, ptr addrspace(3) {base}, i32 {idx}")
            elif acc.form == "gep64":
                lines.append(f"  %x{j} = sext i32 {idx} to i64")
                lines.append(f"  %p{j} = getelementptr {acc.elem}, ptr addrspace(3) {base}, i64 %x{j}")
            else:
                lines.append(f"  %b{j} = ptrtoint ptr addrspace(3) {base} to i32")
                lines.append(f"  %s{j} = add i32 %b{j}, {idx}")
                lines.append(f"  %p{j} = inttoptr i32 %s{j} to ptr addrspace(3)")
            if acc.store:
                lines.append(f"  store {acc.size} zeroinitializer, ptr addrspace(3) %p{j}, align 1")
            else:
                lines.append(f"  %l{j} = load {acc.size}, ptr addrspace(3) %p{j}, align 1")
        if self.trip:
            lines.append("  %inext = add i32 %v1, 1")
            lines.append(f"  %cont = icmp ult i32 %inext, {self.trip}")
            lines.append("  br i1 %cont, label %loop, label %exit")
            lines.append("exit:")
        lines.append("  ret void")
        lines.append("}")
        lines.append("")
        lines.append("declare i32 @llvm.amdgcn.workitem.id.x()")
        for name in INTRINSICS:
            lines.append(f"declare i32 @llvm.{name}.i32(i32, i32)")
        lines.append(f'attributes #0 = {{ "amdgpu-flat-work-group-size"="1,{self.wg}" }}')
        return "\n".join(lines) + "\n"

    # ----------------------------------------------------------- semantics
    def evaluate(self, tid: int, i: int) -> list[int] | None:
        """Every value (as an unsigned 32-bit pattern) for one execution; None when the
        execution is undefined (division by zero, an over-wide shift) or a value is poison."""
        got = self.evaluate_poison(tid, i)
        if got is None or got[1]:
            return None
        return got[0]

    def evaluate_poison(self, tid: int, i: int) -> tuple[list[int], set[int]] | None:
        """``evaluate``, and the indices of the values that are poison: an ``or disjoint``
        whose operands share a bit, and every value computed from a poison one (a select
        only from its condition's operands and the arm it chooses)."""
        poisoned: set[int] = set()
        vals = [tid & M32]
        if self.trip:
            vals.append(i & M32)
            vals.append(i % self.stages)
            if self.toggle:
                vals.append((i % 2) * self.toggle)

        def get(x: int) -> int:
            return self.consts[-1 - x] & M32 if x < 0 else vals[x]

        def bad(x: int) -> bool:
            return x >= 0 and x in poisoned

        for op in self.ops:
            a, b = get(op.a), get(op.b)
            k = op.kind
            dst = len(vals)
            if k in ("select", "sselect"):
                chosen = op.b if (a < b if k == "select" else s32(a) < s32(b)) else op.c
                if bad(op.a) or bad(op.b) or bad(chosen):
                    poisoned.add(dst)
            elif k.startswith("trunc"):
                if bad(op.a):
                    poisoned.add(dst)
            elif bad(op.a) or bad(op.b):
                poisoned.add(dst)
            if k == "ordisjoint":
                if a & b:
                    poisoned.add(dst)
                r = a | b
            elif k == "add":
                r = a + b
            elif k == "sub":
                r = a - b
            elif k == "mul":
                r = a * b
            elif k == "and":
                r = a & b
            elif k == "or":
                r = a | b
            elif k == "xor":
                r = a ^ b
            elif k in ("shl", "lshr", "ashr"):
                if b >= 32:
                    return None
                r = a << b if k == "shl" else (a >> b if k == "lshr" else s32(a) >> b)
            elif k in ("urem", "udiv"):
                if b == 0:
                    return None
                r = a % b if k == "urem" else a // b
            elif k in ("sdiv", "srem"):
                sa, sb = s32(a), s32(b)
                if sb == 0 or (sa == -(1 << 31) and sb == -1):
                    return None  # undefined behaviour
                q = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)  # rounded toward zero
                r = q if k == "sdiv" else sa - q * sb
            elif k == "floordiv":
                r = s32(a) // op.consts[0]
            elif k == "sselect":
                r = b if s32(a) < s32(b) else get(op.c)
            elif k == "umin":
                r = min(a, b)
            elif k == "umax":
                r = max(a, b)
            elif k == "smin":
                r = min(s32(a), s32(b))
            elif k == "smax":
                r = max(s32(a), s32(b))
            elif k == "select":
                r = b if a < b else get(op.c)
            elif k.startswith("trunc"):
                bits = 16 if "16" in k else 8
                t = a & ((1 << bits) - 1)
                if k.endswith("s") and t >> (bits - 1):
                    t -= 1 << bits
                r = t
            else:
                raise AssertionError(k)
            vals.append(r & M32)
        return vals, poisoned

    def executions(self) -> list[tuple[int, int]]:
        loops = range(self.trip) if self.trip else range(1)
        return [(t, i) for t in range(self.wg) for i in loops]

    def address(self, acc: AccessSpec, vals: list[int]) -> int:
        """The byte offset from @smem, modulo 2**32, that the access's pointer holds."""
        v = self.consts[-1 - acc.value] & M32 if acc.value < 0 else vals[acc.value]
        if acc.form == "int":
            return (acc.base + v) & M32
        return (acc.base + s32(v) * ELEMS[acc.elem]) & M32


# ------------------------------------------------------------------ strategies

@st.composite
def programs(draw: st.DrawFn, max_ops: int = 6, max_accesses: int = 3) -> Program:
    wg = draw(st.sampled_from([1, 2, 5, 64, 100, 256]))
    trip = draw(st.sampled_from([0, 0, 1, 3, 5]))
    prog = Program(wg, trip, draw(st.sampled_from([1, 2, 3])))
    const_pool = draw(st.lists(st.one_of(
        st.integers(0, 40), st.sampled_from([63, 64, 255, 256, 1023, 4096, 65535, 1 << 20, 1 << 30,
                                             (1 << 31) - 1, 1 << 31, M32, M32 - 7])),
        min_size=4, max_size=8))
    prog.consts = const_pool
    n_ops = draw(st.integers(0, max_ops))
    for k in range(n_ops):
        avail = prog.n_base() + k

        def operand(prefer_value: bool = True, avail: int = avail) -> int:
            if prefer_value and draw(st.booleans()):
                return draw(st.integers(0, avail - 1))
            return -1 - draw(st.integers(0, len(const_pool) - 1))

        kind = draw(st.sampled_from(BINOPS + SIGNED_DIV + INTRINSICS +
                                    ("select", "sselect", "floordiv", "trunc16z", "trunc16s", "trunc8z")))
        a = draw(st.integers(0, avail - 1))
        if kind in ("shl", "lshr", "ashr", "urem", "udiv", "sdiv", "srem"):
            b = operand(prefer_value=False)
        else:
            b = operand()
        divisor = (draw(st.sampled_from(FLOOR_DIVISORS)),) if kind == "floordiv" else ()
        prog.ops.append(Op(kind, a, b, operand(), divisor))
    n_vals = prog.n_base() + n_ops
    for _ in range(draw(st.integers(1, max_accesses))):
        value = draw(st.integers(0, n_vals - 1))
        elem = draw(st.sampled_from(list(ELEMS)))
        base = draw(st.sampled_from([0, 0, 16, 1024, 4096, 8192, 65536]))
        form = draw(st.sampled_from(["gep32", "gep32", "gep64", "int"]))
        size = draw(st.sampled_from(["i8", "i32", "<4 x i32>"]))
        prog.accesses.append(AccessSpec(value, elem, base, form, draw(st.booleans()), size))
    return prog


#: Triton's swizzles: thread-id masks, shifts, xors, ors with tile bases, products
SWIZZLE_OPS = ("and", "and", "shl", "shl", "lshr", "xor", "xor", "or", "ordisjoint", "ordisjoint", "add", "mul",
               "sub", "urem", "udiv", "select", "trunc16z", "trunc8z", "trunc16s")
SWIZZLE_CONSTS = (0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 24, 31, 32, 56, 63, 64, 112, 127, 128, 192, 255, 512, 544, 1088,
                  1632, 2048, 2056, 4096, 4112, 8192, 16384, M32 - 7, M32 - 15, M32 - 8191)


@st.composite
def swizzle_programs(draw: st.DrawFn, max_ops: int = 8, max_accesses: int = 3) -> Program:
    wg = draw(st.sampled_from([1, 3, 64, 128, 256]))
    trip = draw(st.sampled_from([0, 0, 2, 4]))
    prog = Program(wg, trip, draw(st.sampled_from([1, 2, 3])))
    if trip:
        prog.toggle = draw(st.sampled_from([0, 4096, 8192, 8200, 16384 + 8192]))
    # the last few constants are shift amounts
    shifts = [1, 2, 3, 4, 6, 7]
    prog.consts = draw(st.lists(st.sampled_from(SWIZZLE_CONSTS), min_size=4, max_size=10)) + shifts
    n_ops = draw(st.integers(1, max_ops))
    for k in range(n_ops):
        avail = prog.n_base() + k

        def operand(prefer_value: bool = True, avail: int = avail) -> int:
            if prefer_value and draw(st.booleans()):
                return draw(st.integers(0, avail - 1))
            return -1 - draw(st.integers(0, len(prog.consts) - 1))

        kind = draw(st.sampled_from(SWIZZLE_OPS))
        a = draw(st.integers(0, avail - 1))
        if kind in ("shl", "lshr"):
            b = -len(prog.consts) + draw(st.integers(0, len(shifts) - 1))
        else:
            b = operand(prefer_value=kind not in ("urem", "udiv"))
        prog.ops.append(Op(kind, a, b, operand()))
    n_vals = prog.n_base() + n_ops
    for _ in range(draw(st.integers(1, max_accesses))):
        value = draw(st.integers(0, n_vals - 1))
        elem = draw(st.sampled_from(list(ELEMS)))
        base = draw(st.sampled_from([0, 0, 16, 4096, 8192]))
        form = draw(st.sampled_from(["gep32", "gep32", "gep64", "int"]))
        size = draw(st.sampled_from(["i8", "i32", "<4 x i32>"]))
        prog.accesses.append(AccessSpec(value, elem, base, form, draw(st.booleans()), size))
    return prog
