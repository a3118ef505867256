"""Property tests for the lane-intrinsic and loaded-integer rules.

Each program is built from random pieces, and an oracle written from the hardware's and
the runtime's behaviour (not from llnoalias's tables) says which values a lane can get:
a copy some lane held, 0 (a disabled source lane with ``bound_ctrl``, ``ds.bpermute``), or
an undefined value (``readlane`` of a disabled lane, ``mov.dpp`` without ``old``, ``fi``).
An access through such a value claimed for a buffer the oracle does not guarantee is a
miscompile; the test also asks that the claims the oracle does guarantee are made.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llnoalias.options import AnnotateOptions
from llnoalias.transform.pipeline import annotate_text

#: @lds_a and @lds_b are static (sized) variables, two buffers whatever their offsets, scoped
#: with ``--lds all``: these properties are about which buffer a value holds (dynamic LDS
#: variables would be one buffer, told apart by bytes only, design section 1); without
#: regions, so that a claim is a buffer's scope
OPTIONS = AnnotateOptions(lds="all", regions=False)

HEAD = """target triple = "amdgcn-amd-amdhsa"

@lds_a = addrspace(3) global [4096 x i8] undef, align 16
@lds_b = addrspace(3) global [4096 x i8] undef, align 16

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i32 @llvm.amdgcn.readlane.i32(i32, i32)
declare i32 @llvm.amdgcn.writelane.i32(i32, i32, i32)
declare i32 @llvm.amdgcn.set.inactive.i32(i32, i32)
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)
declare i32 @llvm.amdgcn.mov.dpp.i32(i32, i32, i32, i32, i1)
declare i32 @llvm.amdgcn.permlane16.i32(i32, i32, i32, i32, i1, i1)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32)
declare void @sink(ptr)
"""

A, PLAIN, ZERO, GARBAGE = "a", "plain", "zero", "garbage"

#: one step: (kind, bound_ctrl, fetch_inactive, old_is_zero)
STEP = st.tuples(
    st.sampled_from(["readfirstlane", "readlane", "writelane", "set.inactive", "update.dpp", "mov.dpp",
                     "permlane16", "ds.bpermute", "ds.swizzle", "add"]),
    st.booleans(), st.booleans(), st.booleans())


def _step(i: int, x: str, kind: str, bc: bool, fi: bool, old0: bool) -> tuple[str, set[str]]:
    """The IR of one step on ``%x``, and what it adds to the set of values a lane can get."""
    old = "0" if old0 else x
    b = "true" if bc else "false"
    f = "true" if fi else "false"
    y = f"%v{i}"
    if kind == "readfirstlane":
        return f"{y} = call i32 @llvm.amdgcn.readfirstlane.i32(i32 {x})", set()
    if kind == "readlane":
        return f"{y} = call i32 @llvm.amdgcn.readlane.i32(i32 {x}, i32 %lane)", {GARBAGE}
    if kind == "writelane":
        return f"{y} = call i32 @llvm.amdgcn.writelane.i32(i32 {x}, i32 %lane, i32 {old})", \
            ({PLAIN} if old0 else set())
    if kind == "set.inactive":
        return f"{y} = call i32 @llvm.amdgcn.set.inactive.i32(i32 {x}, i32 {old})", ({PLAIN} if old0 else set())
    if kind == "update.dpp":
        return (f"{y} = call i32 @llvm.amdgcn.update.dpp.i32(i32 {old}, i32 {x}, i32 273, i32 15, i32 15, i1 {b})",
                ({ZERO} if bc else set()) | ({PLAIN} if old0 else set()))
    if kind == "mov.dpp":
        return f"{y} = call i32 @llvm.amdgcn.mov.dpp.i32(i32 {x}, i32 273, i32 15, i32 15, i1 {b})", \
            {ZERO if bc else GARBAGE}
    if kind == "permlane16":
        return (f"{y} = call i32 @llvm.amdgcn.permlane16.i32(i32 {old}, i32 {x}, i32 %lane, i32 0, i1 {f}, i1 {b})",
                ({ZERO} if bc else set()) | ({GARBAGE} if fi else set()) | ({PLAIN} if old0 else set()))
    if kind == "ds.bpermute":
        return f"{y} = call i32 @llvm.amdgcn.ds.bpermute(i32 %sel, i32 {x})", {ZERO}
    if kind == "ds.swizzle":
        return f"{y} = call i32 @llvm.amdgcn.ds.swizzle(i32 {x}, i32 31)", {ZERO}
    return f"{y} = add i32 {x}, 4", set()


def _tagged(text: str, needle: str) -> bool:
    return "!alias.scope" in next(line for line in text.splitlines() if needle in line)


@pytest.mark.slow
@settings(max_examples=120, deadline=None)
@given(steps=st.lists(STEP, min_size=1, max_size=5), start_address=st.booleans())
def test_lane_intrinsics_claim_only_what_every_lane_holds(steps: list[tuple[str, bool, bool, bool]],
                                                          start_address: bool) -> None:
    body = ["%tid = call i32 @llvm.amdgcn.workitem.id.x()", "%sel = shl i32 %tid, 2",
            "%base = ptrtoint ptr addrspace(3) @lds_a to i32"]
    body.append("%v0 = add i32 %base, %sel" if start_address else "%v0 = mul i32 %tid, 8")
    got = {A if start_address else PLAIN}
    for i, (kind, bc, fi, old0) in enumerate(steps, start=1):
        line, adds = _step(i, f"%v{i - 1}", kind, bc, fi, old0)
        body.append(line)
        got |= adds
    last = f"%v{len(steps)}"
    if start_address:
        body += [f"%p = inttoptr i32 {last} to ptr addrspace(3)", "store i8 1, ptr addrspace(3) %p, align 1"]
    else:
        body += [f"%p = getelementptr i8, ptr addrspace(3) @lds_b, i32 {last}",
                 "store i8 1, ptr addrspace(3) %p, align 1"]
    body += ["store i8 2, ptr addrspace(3) @lds_a, align 1", "store i8 3, ptr addrspace(3) @lds_b, align 1"]
    src = HEAD + "\ndefine amdgpu_kernel void @k(i32 %lane) {\n  " + "\n  ".join(body) + "\n  ret void\n}\n"
    out = annotate_text(src, options=OPTIONS).text
    tagged = _tagged(out, "store i8 1,")
    if start_address:
        # an address that may come back as 0 (absolute address 0), a plain value or an
        # undefined value is not inside @lds_a: no claim; a copy some lane held is
        assert tagged == (got == {A}), (got, src)
    else:
        # a plain offset (0 included) added to @lds_b stays in @lds_b; an undefined one
        # leaves a program with no behaviour to keep
        assert tagged, src


#: a private slot's use: what is done with slot i
SLOT_USE = st.sampled_from(["none", "store_address", "store_tid", "escape_store", "escape_call", "gep_store_address"])


@pytest.mark.slow
@settings(max_examples=120, deadline=None)
@given(uses=st.lists(SLOT_USE, min_size=1, max_size=4), read_slot=st.integers(0, 3), read_buf=st.booleans(),
       as_pointer=st.booleans())
def test_loaded_integers_see_addresses_only_where_stored(uses: list[str], read_slot: int, read_buf: bool,
                                                         as_pointer: bool) -> None:
    n = len(uses)
    read_slot %= n
    body = ["%tid = call i32 @llvm.amdgcn.workitem.id.x()", "%ia = ptrtoint ptr addrspace(3) @lds_a to i32"]
    for i in range(n):
        body.append(f"%s{i} = alloca i32, align 4, addrspace(5)")
        body.append(f"%g{i} = addrspacecast ptr addrspace(5) %s{i} to ptr")
    holds: set[int] = set()
    escaped: set[int] = set()
    for i, use in enumerate(uses):
        if use == "store_address":
            body.append(f"store i32 %ia, ptr %g{i}, align 4")
            holds.add(i)
        elif use == "gep_store_address":
            body.append(f"%e{i} = getelementptr i8, ptr addrspace(5) %s{i}, i32 0")
            body.append(f"store i32 %ia, ptr addrspace(5) %e{i}, align 4")
            holds.add(i)
        elif use == "store_tid":
            body.append(f"store i32 %tid, ptr addrspace(5) %s{i}, align 4")
        elif use == "escape_store":
            body.append(f"store i32 %ia, ptr %g{i}, align 4")
            body.append(f"store ptr %g{i}, ptr addrspace(1) %out, align 8")
            holds.add(i)
            escaped.add(i)
        elif use == "escape_call":
            body.append(f"store i32 %ia, ptr %g{i}, align 4")
            body.append(f"call void @sink(ptr %g{i})")
            holds.add(i)
            escaped.add(i)
    anywhere = bool(holds & escaped)
    if read_buf:
        body.append("%x = load i32, ptr addrspace(1) %buf, align 4")
        may_be_address = anywhere
    else:
        body.append(f"%x = load i32, ptr addrspace(5) %s{read_slot}, align 4")
        # a slot whose address stays private is written only by its own stores
        may_be_address = read_slot in holds or (read_slot in escaped and anywhere)
    if as_pointer:
        # the loaded integer used as the address itself: only a slot that holds nothing
        # but @lds_a's address, read and written whole (forwarded), gives @lds_a
        body += ["%p = inttoptr i32 %x to ptr addrspace(3)", "store i8 1, ptr addrspace(3) %p, align 1",
                 "store i8 2, ptr addrspace(3) @lds_a, align 1", "store i8 3, ptr addrspace(3) @lds_b, align 1"]
        src = (HEAD + "\ndefine amdgpu_kernel void @k(ptr addrspace(1) %buf, ptr addrspace(1) %out) {\n  "
               + "\n  ".join(body) + "\n  ret void\n}\n")
        out = annotate_text(src, options=OPTIONS).text
        line = next(x for x in out.splitlines() if "store i8 1," in x)
        want = not read_buf and uses[read_slot] == "store_address"
        assert ("!alias.scope" in line) == want, (uses, read_slot, read_buf, src)
        if want:
            scope_a = next(x for x in out.splitlines() if "store i8 2," in x).split("!alias.scope ")[1].split(",")[0]
            assert f"!alias.scope {scope_a}," in line
        return
    body += ["%p = getelementptr i8, ptr addrspace(3) @lds_b, i32 %x", "store i8 1, ptr addrspace(3) %p, align 1",
             "store i8 2, ptr addrspace(3) @lds_a, align 1", "store i8 3, ptr addrspace(3) @lds_b, align 1"]
    src = (HEAD + "\ndefine amdgpu_kernel void @k(ptr addrspace(1) %buf, ptr addrspace(1) %out) {\n  "
           + "\n  ".join(body) + "\n  ret void\n}\n")
    out = annotate_text(src, options=OPTIONS).text
    if not read_buf and uses[read_slot] == "none":
        # a slot nothing writes holds nothing defined: either answer is sound
        return
    assert _tagged(out, "store i8 1,") == (not may_be_address), (uses, read_slot, read_buf, src)


def _slot_chain(n: int, via_gep: bool) -> str:
    """An LDS address stored into slot 0, read back and stored into slot 1, ... slot n-1;
    then an access indexed by what slot n-1 holds, and one by a plain loaded integer.
    ``via_gep``: through a getelementptr of each slot (not forwarded, only tainted)."""
    body = ["%tid = call i32 @llvm.amdgcn.workitem.id.x()", "%x0 = ptrtoint ptr addrspace(3) @lds_a to i32"]
    for i in range(n):
        body.append(f"%s{i} = alloca i32, align 4, addrspace(5)")
        if via_gep:
            body.append(f"%e{i} = getelementptr i8, ptr addrspace(5) %s{i}, i32 0")
    for i in range(n):
        at = f"%e{i}" if via_gep else f"%s{i}"
        body.append(f"store i32 %x{i}, ptr addrspace(5) {at}, align 4")
        body.append(f"%x{i + 1} = load i32, ptr addrspace(5) {at}, align 4")
    body += [f"%p = getelementptr i8, ptr addrspace(3) @lds_b, i32 %x{n}",
             "store i8 1, ptr addrspace(3) %p, align 1",
             "%t = alloca i32, align 4, addrspace(5)", "%te = getelementptr i8, ptr addrspace(5) %t, i32 0",
             "store i32 %tid, ptr addrspace(5) %te, align 4", "%y = load i32, ptr addrspace(5) %te, align 4",
             "%q = getelementptr i8, ptr addrspace(3) @lds_b, i32 %y", "store i8 2, ptr addrspace(3) %q, align 1",
             "store i8 3, ptr addrspace(3) @lds_a, align 1"]
    return HEAD + "\ndefine amdgpu_kernel void @k() {\n  " + "\n  ".join(body) + "\n  ret void\n}\n"


def test_address_through_a_chain_of_slots() -> None:
    """Each slot that an address reaches through loads and stores taints only the loads
    from it; a chain longer than the rounds the scan allows makes every loaded integer
    unknown (never a claim)."""
    for n, via_gep, plain_tagged in ((1, True, True), (3, True, True), (20, True, False),
                                     (1, False, True), (20, False, True)):
        out = annotate_text(_slot_chain(n, via_gep), options=OPTIONS).text
        assert not _tagged(out, "store i8 1,"), (n, via_gep)
        assert _tagged(out, "store i8 2,") == plain_tagged, (n, via_gep)


UNREAD = """target triple = "amdgcn-amd-amdhsa"

@lds_a = addrspace(3) global [4096 x i8] undef, align 16
@lds_b = addrspace(3) global [4096 x i8] undef, align 16
@llvm.global_ctors = appending addrspace(1) global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @ctor, ptr null }]
@llvm.used = appending addrspace(1) global [1 x ptr] [ptr addrspacecast (ptr addrspace(3) @lds_a to ptr)], section "llvm.metadata"
@meta = internal addrspace(1) global ptr addrspace(3) @lds_b, section "llvm.metadata"

define void @ctor() {
  ret void
}

define amdgpu_kernel void @k(ptr addrspace(1) %buf) {
  %x = load i32, ptr addrspace(1) READ, align 4
  %p = getelementptr i8, ptr addrspace(3) @lds_b, i32 %x
  store i8 1, ptr addrspace(3) %p, align 1
  store i8 2, ptr addrspace(3) @lds_a, align 1
  ret void
}
"""


def test_initializers_no_load_can_read() -> None:
    """@llvm.used, @llvm.global_ctors and section "llvm.metadata" globals hold addresses
    nobody loads: a loaded integer stays plain. Once a load names one of them, it counts."""
    out = annotate_text(UNREAD.replace("READ", "%buf"), options=OPTIONS).text
    assert _tagged(out, "store i8 1,")
    for name in ("@meta", "@llvm.used", "@llvm.global_ctors"):
        out = annotate_text(UNREAD.replace("READ", name), options=OPTIONS).text
        assert not _tagged(out, "store i8 1,"), name
