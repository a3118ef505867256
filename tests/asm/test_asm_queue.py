"""llnoalias.asm.queue: the replay of each wave's vector-memory queue over the control flow.

Hand-written shapes (a branch join, a loop back edge, partial ``vmcnt(N)`` waits, the gfx9 /
gfx10 / gfx12 counters), the cause of each wait, properties against a direct in-order
simulation (straight-line) and against every path of random acyclic control flow, and
agreement with the independent straight-line simulator ``tests/support/vmcnt_sim.py`` on the
assembly llvmlite's LLVM 22 writes for generated DMA kernels."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llnoalias.asm.queue import DEPTH, WaitInfo, replay
from llnoalias.asm.reader import AsmFunction, read_amdgpu
from tests.support.asm import asm_of, llvmlite_asm, one
from tests.support.files import ROOT
from tests.support.run import load_script
from tests.support.vmcnt_sim import (
    ANY,
    Access,
    AsmError,
    Bytes,
    Dma,
    events_of,
    kernel_bodies,
    simulate,
)

DMA = "buffer_load_dword v0, s[0:3], 0 offen lds"
LOAD = "global_load_dword v5, v1, s[4:5]"
STORE = "global_store_dword v1, v2, s[4:5]"
READ = "ds_read_b32 v2, v1 offset:64"


def index_of(fn: AsmFunction, text: str, nth: int = 0) -> int:
    return [i.index for i in fn.insts if i.text == text][nth]


def pending(fn: AsmFunction, at: int, generation: int = 9) -> dict[int, int]:
    return replay(fn, generation).pending_dmas(at)


# -- straight line ----------------------------------------------------------------------------


def test_a_dma_is_pending_until_a_wait_retires_it() -> None:
    fn = one(DMA, READ, "s_waitcnt vmcnt(0)", READ, "s_endpgm")
    r = replay(fn, 9)
    assert r.pending_dmas(1) == {0: 0}
    assert r.pending_dmas(3) == {}
    assert r.path(0, 1) == ["k"] and r.path(0, 3) == []


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_vmcnt_n_keeps_the_n_newest(n: int) -> None:
    retired = one(DMA, *[LOAD] * n, f"s_waitcnt vmcnt({n})", READ, "s_endpgm")
    assert pending(retired, n + 2) == {}
    kept = one(DMA, *[LOAD] * (n - 1), f"s_waitcnt vmcnt({n})", READ, "s_endpgm")
    assert pending(kept, n + 1) == {0: n - 1}


def test_waits_without_vmcnt_barriers_and_calls_change_nothing() -> None:
    fn = one(DMA, "s_waitcnt lgkmcnt(0)", "s_barrier", "s_swappc_b64 s[30:31], s[16:17]",
             "s_waitcnt_vscnt null, 0x0", READ, "s_endpgm")
    assert pending(fn, 5) == {0: 0}


def test_a_comment_retires_nothing_and_the_producers_wait_does() -> None:
    fn = one(DMA, ";;#ASMSTART", "; s_waitcnt vmcnt(0)", ";;#ASMEND", READ, "s_endpgm")
    assert pending(fn, 1) == {0: 0}
    fn = one(DMA, ";;#ASMSTART", "s_waitcnt vmcnt(0)", ";;#ASMEND", READ, "s_endpgm")
    assert pending(fn, 2) == {}
    assert [(w.index, w.cause, w.retires) for w in replay(fn, 9).waits] == [(1, "producer", (0,))]


def test_stores_count_on_gfx9_only() -> None:
    fn = one(DMA, STORE, "s_waitcnt vmcnt(1)", READ, "s_endpgm")
    assert pending(fn, 3, 9) == {}
    gfx10 = one(DMA, STORE, "s_waitcnt vmcnt(1)", READ, "s_endpgm", target="gfx1030")
    assert pending(gfx10, 3, 10) == {0: 0}


def test_gfx12_retires_with_loadcnt() -> None:
    fn = one(DMA, LOAD, "s_wait_loadcnt 0x1", READ, "s_wait_loadcnt_dscnt 0x0", READ, "s_endpgm",
             target="gfx1200")
    r = replay(fn, 12)
    assert r.pending_dmas(3) == {} and r.pending_dmas(5) == {}
    fn = one(LOAD, DMA, "s_wait_loadcnt 0x1", READ, "s_wait_dscnt 0x0", READ, "s_endpgm", target="gfx1200")
    r = replay(fn, 12)
    assert r.pending_dmas(3) == {1: 0} and r.pending_dmas(5) == {1: 0}
    assert [w.value for w in r.waits] == [1]


def test_an_op_with_64_newer_ones_is_gone() -> None:
    fn = one(DMA, *[LOAD] * (DEPTH - 1), READ, LOAD, READ, "s_endpgm")
    assert pending(fn, DEPTH) == {0: DEPTH - 1}
    assert pending(fn, DEPTH + 2) == {}


# -- control flow ---------------------------------------------------------------------------


def test_a_dma_on_one_arm_is_pending_after_the_join() -> None:
    fn = one("s_cbranch_scc1 .LBB0_2", DMA, "s_branch .LBB0_3",
             ".LBB0_2:", LOAD, "s_waitcnt vmcnt(0)",
             ".LBB0_3:", READ, "s_endpgm")
    r = replay(fn, 9)
    at = index_of(fn, READ)
    assert r.pending_dmas(at) == {1: 0}
    assert r.path(1, at) == ["k@1", ".LBB0_3"]
    # the other arm's load was retired there: it is not in the join's state either
    assert r.before(at) == {1: 0}


def test_a_wait_on_both_arms_retires_the_dma() -> None:
    fn = one(DMA, "s_cbranch_scc1 .LBB0_2", "s_waitcnt vmcnt(0)", "s_branch .LBB0_3",
             ".LBB0_2:", "s_waitcnt vmcnt(0)", ".LBB0_3:", READ, "s_endpgm")
    assert pending(fn, index_of(fn, READ)) == {}


def test_the_join_keeps_the_fewest_newer_ops() -> None:
    fn = one(DMA, "s_cbranch_scc1 .LBB0_2", LOAD, LOAD, "s_branch .LBB0_3",
             ".LBB0_2:", LOAD, ".LBB0_3:", "s_waitcnt vmcnt(2)", READ, "s_endpgm")
    # through .LBB0_2 the DMA has one newer op: vmcnt(2) keeps it
    at = index_of(fn, READ)
    assert pending(fn, at) == {0: 1}
    assert replay(fn, 9).path(0, at) == ["k", ".LBB0_2", ".LBB0_3"]


def test_a_dma_at_the_end_of_a_loop_is_pending_at_its_top() -> None:
    fn = one("s_mov_b32 s3, 4",
             ".LBB0_1:", READ,                       # 1: the top of the loop
             "s_add_i32 s3, s3, -1", DMA,            # 3: the refill
             "s_cmp_eq_u32 s3, 0", "s_cbranch_scc0 .LBB0_1",
             "s_waitcnt vmcnt(0)", "s_endpgm")
    r = replay(fn, 9)
    assert r.pending_dmas(1) == {3: 0}
    assert r.path(3, 1) == [".LBB0_1", ".LBB0_1"]
    # the first iteration alone has none: the entry block's state is empty
    assert r.entry[0] == {}
    assert r.pending_dmas(7) == {}


def test_a_wait_before_the_back_edge_retires_the_refill() -> None:
    fn = one(".LBB0_1:", READ, DMA, "s_waitcnt vmcnt(0)", "s_cbranch_scc0 .LBB0_1", "s_endpgm")
    assert pending(fn, 0) == {}


def test_a_loop_of_loads_ages_the_dma_out_at_the_fixpoint() -> None:
    """The loop may run any number of times: the fewest newer ops is that of no iteration."""
    fn = one(DMA, ".LBB0_1:", LOAD, "s_cbranch_scc0 .LBB0_1", "s_waitcnt vmcnt(1)", READ, "s_endpgm")
    assert pending(fn, 4) == {}
    fn = one(DMA, ".LBB0_1:", "s_cbranch_scc0 .LBB0_2", LOAD, "s_branch .LBB0_1",
             ".LBB0_2:", "s_waitcnt vmcnt(1)", READ, "s_endpgm")
    assert pending(fn, index_of(fn, READ)) == {0: 0}


def test_an_unreachable_block_has_nothing_pending() -> None:
    fn = one(DMA, "s_branch .LBB0_2", READ, ".LBB0_2:", "s_endpgm")
    r = replay(fn, 9)
    assert r.entry[1] is None and r.pending_dmas(2) == {}


# -- causes of waits ------------------------------------------------------------------------------


def causes(*body: str) -> list[WaitInfo]:
    return replay(one(*body), 9).waits


def test_a_wait_needed_by_a_read_of_a_loaded_register() -> None:
    ws = causes("global_load_dwordx2 v[4:5], v1, s[0:1]", "s_waitcnt vmcnt(0)", "v_mov_b32_e32 v9, v0",
                "v_add_u32_e32 v0, v5, v1", "s_endpgm")
    assert ws == [WaitInfo(1, 0, (0,), "needed", 3)]


def test_a_wait_needed_by_a_store_of_a_loaded_register() -> None:
    ws = causes("global_load_dword v4, v1, s[0:1]", "s_waitcnt vmcnt(0)", "global_store_dword v1, v4, s[2:3]",
                "s_endpgm")
    assert ws[0].cause == "needed" and ws[0].needed_by == 2


def test_a_wait_needed_by_an_lds_access_after_a_dma() -> None:
    ws = causes(DMA, "s_waitcnt vmcnt(0)", "v_mov_b32_e32 v9, v0", READ, "s_endpgm")
    assert ws == [WaitInfo(1, 0, (0,), "needed", 3)]


def test_a_wait_before_a_barrier_and_a_wait_for_nothing() -> None:
    ws = causes(DMA, "s_waitcnt vmcnt(0) lgkmcnt(0)", "s_barrier", READ, "s_endpgm")
    assert [(w.cause, w.needed_by) for w in ws] == [("barrier", 2)]
    ws = causes(LOAD, "s_waitcnt vmcnt(0)", "v_mov_b32_e32 v9, v0", "s_endpgm")
    assert [(w.cause, w.needed_by, w.retires) for w in ws] == [("none", None, (0,))]
    # a wait with nothing to retire is needed by nothing either
    ws = causes("s_waitcnt vmcnt(0)", READ, "s_endpgm")
    assert [(w.cause, w.retires) for w in ws] == [("none", ())]


def test_a_partial_wait_retires_only_the_older_ops() -> None:
    ws = causes("global_load_dword v4, v1, s[0:1]", "global_load_dword v6, v1, s[0:1]", "s_waitcnt vmcnt(1)",
                "v_mov_b32_e32 v9, v6", "v_mov_b32_e32 v9, v4", "s_endpgm")
    assert ws == [WaitInfo(2, 1, (0,), "needed", 4)]


def test_only_waits_with_a_vmcnt_field_are_listed() -> None:
    ws = causes(LOAD, "s_waitcnt lgkmcnt(0)", "s_waitcnt 0", "v_mov_b32_e32 v9, v5", "s_endpgm")
    assert [(w.index, w.value) for w in ws] == [(2, 0)]


# -- properties -----------------------------------------------------------------------------------

EVENTS = st.lists(st.one_of(st.just("dma"), st.just("load"), st.just("store"), st.just("read"),
                            st.integers(min_value=0, max_value=4)), max_size=40)
TEXT = {"dma": DMA, "load": LOAD, "store": STORE, "read": READ}


def direct(events: list[str | int], generation: int) -> list[dict[int, int]]:
    """The queue simulated in order: before each event, op index -> newer ops."""
    queue: list[int] = []  # oldest first
    out = []
    for i, e in enumerate(events):
        out.append({op: len(queue) - 1 - k for k, op in enumerate(queue) if len(queue) - 1 - k < DEPTH})
        if isinstance(e, int):
            queue = queue[max(0, len(queue) - e):] if e else []
        elif e in ("dma", "load") or (e == "store" and generation < 10):
            queue.append(i)
    return out


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(EVENTS, st.sampled_from([9, 10]))
def test_straight_line_fixpoint_is_the_in_order_simulation(events: list[str | int], generation: int) -> None:
    body = [f"s_waitcnt vmcnt({e})" if isinstance(e, int) else TEXT[e] for e in events]
    fn = one(*body, "s_endpgm", target="gfx942" if generation == 9 else "gfx1030")
    r = replay(fn, generation)
    want = direct(events, generation)
    for i in range(len(events)):
        assert r.before(i) == want[i], (i, body)


def _random_cfg(rng: random.Random, blocks: int) -> tuple[list[str], list[list[int]]]:
    """Assembly of ``blocks`` blocks with forward branches only, and each block's successors."""
    body: list[str] = []
    succs: list[list[int]] = []
    for b in range(blocks):
        body.append(f".LBB0_{b}:")
        for _ in range(rng.randint(0, 3)):
            e = rng.choice(["dma", "load", "read", 0, 1, 2])
            body.append(f"s_waitcnt vmcnt({e})" if isinstance(e, int) else TEXT[e])
        last = b == blocks - 1
        kind = "end" if last else rng.choice(["fall", "cond", "jump"])
        if kind == "end":
            body.append("s_endpgm")
            succs.append([])
        elif kind == "fall":
            body.append("v_mov_b32_e32 v9, v8")
            succs.append([b + 1])
        else:
            t = rng.randint(b + 1, blocks - 1)
            body.append(f"s_{'cbranch_scc0' if kind == 'cond' else 'branch'} .LBB0_{t}")
            succs.append([t, b + 1] if kind == "cond" else [t])
    return body, succs


@pytest.mark.parametrize("seed", range(40))
def test_fixpoint_is_the_union_over_every_path(seed: int) -> None:
    rng = random.Random(seed)
    body, _ = _random_cfg(rng, rng.randint(2, 7))
    fn = one(*body)
    r = replay(fn, 9)
    # every path from the entry, simulated in order
    want: dict[int, dict[int, int]] = {}

    def walk(b: int, queue: list[int]) -> None:
        blk = fn.blocks[b]
        for i in range(blk.first, blk.last + 1):
            got = want.setdefault(i, {})
            for k, op in enumerate(queue):
                newer = len(queue) - 1 - k
                got[op] = min(newer, got.get(op, DEPTH))
            inst = fn.insts[i]
            if inst.kind in ("dma", "vmem_load", "vmem_store"):
                queue = [*queue, i]
            elif "vmcnt" in inst.wait:
                n = inst.wait["vmcnt"]
                queue = queue[max(0, len(queue) - n):] if n else []
        for s in blk.succs:
            walk(s, queue)

    walk(0, [])
    for i in range(len(fn.insts)):
        assert r.before(i) == want.get(i, {}), (i, body)
        if i in want:
            for dma in r.pending_dmas(i):
                path = r.path(dma, i)
                assert path and path[-1] == fn.blocks[fn.block_of(i)].label, (dma, i, body)


# -- against the independent straight-line simulator ----------------------------------------------------


def sim_pairs(asm: str, name: str) -> set[tuple[int, int]] | None:
    """(k-th DMA, j-th LDS instruction) pairs the straight-line simulator finds pending; None when
    the kernel is not straight-line."""
    try:
        evs = events_of(kernel_bodies(asm)[name])
    except AsmError:
        return None
    dmas, accesses, seen = [], [], 0
    for e in evs:
        if e.kind == "dma":
            dmas.append(Dma(Bytes(ANY)))
            seen += 1
        elif e.kind == "lds":
            accesses.append(Access(Bytes(ANY), bool(e.write), seen))
    res = simulate(name, evs, dmas, accesses)
    assert not res.approximate
    return {(w.dma, w.access) for w in res.lost if w.access is not None}


def replay_pairs(asm: str, name: str) -> set[tuple[int, int]]:
    fn = next(f for f in read_amdgpu(asm) if f.name == name)
    r = replay(fn, 9)
    ordinal = {i.index: k for k, i in enumerate(x for x in fn.insts if x.kind == "dma")}
    lds = [i for i in fn.insts if i.kind == "lds"]
    return {(ordinal[d], j) for j, i in enumerate(lds) for d in r.pending_dmas(i.index)}


@pytest.fixture(scope="module")
def generated() -> list:
    pytest.importorskip("llvmlite", reason="llvmlite (LLVM 22.1) writes the assembly")
    dk = load_script("dma_kernels")
    return dk.generate_many(31, 16)


@pytest.mark.slow
def test_agrees_with_the_straight_line_simulator(generated: list, tmp_path) -> None:
    compared = 0
    for k in generated:
        path = tmp_path / f"{k.name}.ll"
        path.write_text(k.text)
        asm = llvmlite_asm(path, k.mcpu)
        want = sim_pairs(asm, k.name)
        if want is None:
            continue
        assert replay_pairs(asm, k.name) == want, k.name
        compared += 1
    assert compared >= 8


def test_agrees_with_the_simulator_on_hand_written_races() -> None:
    for body in ([DMA, READ], [DMA, LOAD, "s_waitcnt vmcnt(1)", READ], [LOAD, DMA, "s_waitcnt vmcnt(1)", READ],
                 [DMA, STORE, "s_waitcnt vmcnt(1)", READ, DMA, READ, "s_waitcnt vmcnt(0)", READ],
                 ["s_branch .LBB0_0", ".p2align 8", ".LBB0_0:", DMA, READ]):
        asm = asm_of(*body, "s_endpgm")
        assert replay_pairs(asm, "k") == sim_pairs(asm, "k"), body


def test_real_loops_keep_their_waits() -> None:
    """clang's two DMA kernels: each loop waits for its DMAs before reading LDS, on every path."""
    asm = llvmlite_asm(ROOT / "fixtures" / "corpus" / "clang19" / "hip_lds_dma_O3.ll")
    for fn in read_amdgpu(asm):
        r = replay(fn, 9)
        for i in fn.insts:
            if i.kind == "lds":
                assert r.pending_dmas(i.index) == {}, (fn.name, i.text)
        assert {w.cause for w in r.waits} <= {"needed", "barrier"}


def test_real_input_that_lost_its_wait() -> None:
    """fixtures/dma/input_unsafe_rescued.ll compiled as it is: LLVM 22 drops the wait."""
    asm = llvmlite_asm(ROOT / "fixtures" / "dma" / "input_unsafe_rescued.ll")
    (fn,) = read_amdgpu(asm)
    r = replay(fn, 9)
    races = [(d, i.index) for i in fn.insts if i.kind == "lds" for d in r.pending_dmas(i.index)]
    assert races and all(r.path(d, i) for d, i in races)
    assert replay_pairs(asm, fn.name) == sim_pairs(asm, fn.name)



LOOP_REFILL = """target triple = "amdgcn-amd-amdhsa"
@A = external addrspace(3) global [0 x i8], align 1024
define amdgpu_kernel void @k(ptr addrspace(8) %r, ptr addrspace(1) %o, i32 %v, i32 %n) #0 {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc1, %loop ]
  %x = load i32, ptr addrspace(3) @A, align 4
  %acc1 = add i32 %acc, %x
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) @A, i32 4, i32 %v, i32 0, i32 0, i32 0)
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  store i32 %acc1, ptr addrspace(1) %o, align 4
  ret void
}
declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32 immarg, i32, i32, i32 immarg, i32 immarg)
attributes #0 = { nounwind "amdgpu-flat-work-group-size"="64,64" }
"""


def test_a_real_loop_refill_and_its_wait_deleted(tmp_path) -> None:
    """LLVM 22 waits at the top of the loop for the refill of the previous iteration; with that
    wait deleted from the assembly, the read is reached with the DMA pending over the back edge
    (the straight-line simulator cannot read this kernel: it has a branch)."""
    path = tmp_path / "loop.ll"
    path.write_text(LOOP_REFILL)
    asm = llvmlite_asm(path)
    (fn,) = read_amdgpu(asm)
    (read,) = [i for i in fn.insts if i.kind == "lds"]
    (dma,) = [i for i in fn.insts if i.kind == "dma"]
    assert read.index < dma.index and fn.block_of(read.index) == fn.block_of(dma.index)
    r = replay(fn, 9)
    assert r.pending_dmas(read.index) == {}
    (w,) = [w for w in r.waits if w.retires == (dma.index,)]
    assert (w.cause, w.needed_by) == ("needed", read.index)
    cut = "\n".join(line for n, line in enumerate(asm.splitlines(), 1) if n != fn.insts[w.index].line)
    (fn,) = read_amdgpu(cut)
    r = replay(fn, 9)
    (read,) = [i for i in fn.insts if i.kind == "lds"]
    (dma,) = [i for i in fn.insts if i.kind == "dma"]
    assert r.pending_dmas(read.index) == {dma.index: 0}
    label = fn.blocks[fn.block_of(read.index)].label
    assert r.path(dma.index, read.index) == [label, label]
    assert sim_pairs(cut, "k") is None
