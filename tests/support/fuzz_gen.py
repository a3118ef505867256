"""Inputs for the fuzz tests: mutations of real fixtures, and random well-formed kernels.

Kept apart from ``test_fuzz.py`` so that a mutant or a kernel can be rebuilt by hand
(``python -c 'import fuzz_gen; ...'`` from ``tests/``)."""

from __future__ import annotations

from hypothesis import strategies as st

BRACKETS = "()[]{}<>"

# ------------------------------------------------------------------ mutations


@st.composite
def mutate(draw: st.DrawFn, data: bytes) -> bytes:
    """One to three edits of ``data``: drop, duplicate, swap or cut lines, swap a
    bracket, cut the file short, insert random bytes (non-UTF-8 included), append junk."""
    lines = data.split(b"\n")
    for _ in range(draw(st.integers(1, 3))):
        n = len(lines)
        kind = draw(st.sampled_from(["drop", "dup", "cut_line", "bracket", "cut_file", "insert", "append",
                                     "swap", "drop_block", "replace_token"]))
        i = draw(st.integers(0, max(n - 1, 0)))
        if kind == "drop" and n > 1:
            del lines[i]
        elif kind == "dup":
            lines.insert(i, lines[i])
        elif kind == "cut_line" and lines[i]:
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        elif kind == "bracket":
            pos = [k for k, b in enumerate(lines[i]) if chr(b) in BRACKETS]
            if pos:
                k = draw(st.sampled_from(pos))
                lines[i] = lines[i][:k] + draw(st.sampled_from(BRACKETS)).encode() + lines[i][k + 1:]
        elif kind == "cut_file":
            joined = b"\n".join(lines)
            lines = joined[: draw(st.integers(0, len(joined)))].split(b"\n")
        elif kind == "insert":
            junk = draw(st.binary(min_size=1, max_size=12))
            k = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:k] + junk + lines[i][k:]
        elif kind == "append":
            lines.append(draw(st.binary(min_size=1, max_size=40)))
        elif kind == "swap" and n > 1:
            j = draw(st.integers(0, n - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "drop_block" and n > 2:
            j = draw(st.integers(i, min(n - 1, i + 20)))
            del lines[i:j + 1]
        elif kind == "replace_token":
            toks = lines[i].split(b" ")
            if toks:
                k = draw(st.integers(0, len(toks) - 1))
                toks[k] = draw(st.sampled_from([b"%0", b"%x", b"@lds", b"}", b"{", b"poison", b"!7", b"ptr",
                                                b"addrspace(3)", b"#0", b"\xe9", b"\"", b";", b"0x7FF8000000000000",
                                                b"getelementptr", b"i32", b"!dbg", b"-1", b"99999999999999999999"]))
                lines[i] = b" ".join(toks)
        if not lines:
            lines = [b""]
    return b"\n".join(lines)


# ------------------------------------------------------------ random kernels


@st.composite
def kernels(draw: st.DrawFn) -> str:
    """A random well-formed AMDGPU kernel: LDS roots reached through GEPs, constant
    expressions, integer round trips (add / or disjoint / or / sub), selects, a loop
    with a pointer phi, loads, stores, atomics, memcpy, global accesses through args."""
    n_dyn = draw(st.integers(0, 3))
    n_static = draw(st.integers(0, 2))
    n_args = draw(st.integers(1, 3))
    noalias = [draw(st.booleans()) for _ in range(n_args)]
    crlf = draw(st.booleans())
    out: list[str] = ['target triple = "amdgcn-amd-amdhsa"', ""]
    roots: list[str] = []
    for k in range(n_dyn):
        out.append(f"@dyn{k} = external addrspace(3) global [0 x i8], align 16")
        roots.append(f"@dyn{k}")
    for k in range(n_static):
        out.append(f"@st{k} = internal addrspace(3) global [256 x float] undef, align 4")
        roots.append(f"@st{k}")
    if not roots:
        roots.append("null")
    args = ", ".join(f"ptr addrspace(1) {'noalias ' if noalias[k] else ''}%a{k}" for k in range(n_args))
    out.append(f"define amdgpu_kernel void @k({args}, i32 %n) {{")
    out.append("entry:")
    out.append("  %tid = call i32 @llvm.amdgcn.workitem.id.x()")
    out.append("  %cond = icmp eq i32 %tid, 0")
    counter = [0]

    def fresh(prefix: str) -> str:
        counter[0] += 1
        return f"%{prefix}{counter[0]}"

    lds: list[str] = [f"ptr addrspace(3) {r}" for r in roots]
    glob: list[str] = [f"ptr addrspace(1) %a{k}" for k in range(n_args)]
    ints: list[str] = ["i32 %tid", "i32 4", "i32 %n", "i32 0"]

    def body(lines: list[str], steps: int) -> None:
        for _ in range(steps):
            kind = draw(st.sampled_from(["gep", "cexpr", "roundtrip", "select", "load", "store", "atomic",
                                         "global", "memcpy", "int", "volatile", "comment"]))
            p = draw(st.sampled_from(lds))
            i = draw(st.sampled_from(ints))
            if kind == "gep":
                v = fresh("g")
                lines.append(f"  {v} = getelementptr inbounds i8, {p}, {i}")
                lds.append(f"ptr addrspace(3) {v}")
            elif kind == "cexpr":
                r = draw(st.sampled_from(roots))
                c = draw(st.integers(0, 4096)) * 4
                v = fresh("l")
                lines.append(f"  {v} = load float, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) {r}, "
                             f"i32 {c}), align 4")
            elif kind == "roundtrip":
                a, b, c = fresh("pi"), fresh("sum"), fresh("ip")
                op = draw(st.sampled_from(["add", "or disjoint", "or", "sub", "xor", "add nuw"]))
                lines.append(f"  {a} = ptrtoint {p} to i32")
                if draw(st.booleans()):
                    lines.append(f"  {b} = {op} i32 {a}, {i.split()[1]}")
                else:
                    lines.append(f"  {b} = {op} i32 {i.split()[1]}, {a}")
                lines.append(f"  {c} = inttoptr i32 {b} to ptr addrspace(3)")
                lds.append(f"ptr addrspace(3) {c}")
            elif kind == "select":
                q = draw(st.sampled_from(lds))
                v = fresh("s")
                lines.append(f"  {v} = select i1 %cond, {p}, {q}")
                lds.append(f"ptr addrspace(3) {v}")
            elif kind == "load":
                v = fresh("l")
                lines.append(f"  {v} = load float, {p}, align 4")
            elif kind == "store":
                lines.append(f"  store float 1.000000e+00, {p}, align 4")
            elif kind == "atomic":
                order = draw(st.sampled_from(["monotonic", "acquire", "seq_cst"]))
                v = fresh("at")
                lines.append(f'  {v} = atomicrmw add {p}, i32 1 syncscope("workgroup") {order}, align 4')
            elif kind == "volatile":
                lines.append(f"  store volatile i32 7, {p}, align 4")
            elif kind == "global":
                a = draw(st.sampled_from(glob))
                g, v = fresh("gg"), fresh("gl")
                lines.append(f"  {g} = getelementptr float, {a}, {i}")
                if draw(st.booleans()):
                    lines.append(f"  {v} = load float, ptr addrspace(1) {g}, align 4")
                else:
                    lines.append(f"  store float 2.000000e+00, ptr addrspace(1) {g}, align 4")
            elif kind == "memcpy":
                a = draw(st.sampled_from(glob))
                lines.append(f"  call void @llvm.memcpy.p3.p1.i32({p}, {a}, i32 16, i1 false)")
            elif kind == "int":
                v = fresh("x")
                op = draw(st.sampled_from(["mul", "and", "shl", "add", "urem"]))
                lines.append(f"  {v} = {op} i32 {i.split()[1]}, {draw(st.integers(1, 64))}")
                ints.append(f"i32 {v}")
            elif kind == "comment":
                lines.append(f"  ; {draw(st.text(alphabet='abc {}()!%@;', max_size=20))}")

    body(out, draw(st.integers(1, 12)))
    start = draw(st.sampled_from(lds))
    out.append("  br label %loop")
    out.append("loop:")
    out.append("  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]")
    out.append(f"  %p = phi ptr addrspace(3) [ {start.split()[-1]}, %entry ], [ %p.next, %loop ]")
    lds.append("ptr addrspace(3) %p")
    ints.append("i32 %i")
    body(out, draw(st.integers(0, 8)))
    out.append("  %p.next = getelementptr i8, ptr addrspace(3) %p, i32 4")
    out.append("  %i.next = add i32 %i, 1")
    out.append("  %c = icmp ult i32 %i.next, %n")
    out.append("  br i1 %c, label %loop, label %exit")
    out.append("exit:")
    out.append("  ret void")
    out.append("}")
    out.append("")
    out.append("declare i32 @llvm.amdgcn.workitem.id.x()")
    out.append("declare void @llvm.memcpy.p3.p1.i32(ptr addrspace(3), ptr addrspace(1), i32, i1)")
    nl = "\r\n" if crlf else "\n"
    return nl.join(out) + nl
