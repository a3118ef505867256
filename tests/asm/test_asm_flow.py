"""llnoalias.asm.flow: the structurizer's flag blocks threaded (the loop shape of FlyDSL's gfx1250
GEMMs under Triton's LLVM: the header's exit and the latch meet in a ``%Flow`` block that tests a
flag each sets). Without the threading the header may leave through the flow block and come
straight back, an iteration that issues no copy and waits for nothing."""

from __future__ import annotations

from llnoalias.asm.flow import thread_flag_blocks
from llnoalias.asm.sync import RETIRED, replay_sync
from tests.support.asm import one

DMA = "tensor_load_to_lds s[0:3], s[8:15]"
READ = "ds_load_b128 v[0:3], v4"


def _loop(exit_flag: str = "-1", latch_flag: str = "0"):  # noqa: ANN202
    return one(
        DMA,                                   # the prologue's copy
        "s_branch .LBB0_2",
        ".LBB0_1:",                            # the latch
        DMA,
        f"s_mov_b32 s38, {latch_flag}",
        ".LBB0_F:",                            # %Flow
        "s_and_b32 vcc_lo, exec_lo, s38",
        "s_cbranch_vccnz .LBB0_3",
        ".LBB0_2:",                            # the header
        f"s_mov_b32 s38, {exit_flag}",
        "s_cmp_lt_i32 s5, s6",
        "s_cbranch_scc1 .LBB0_F",
        "s_wait_tensorcnt 0x1",
        READ,
        "s_branch .LBB0_1",
        ".LBB0_3:",                            # the exit
        "s_wait_tensorcnt 0x0",
        "s_endpgm",
        target="gfx1250")


def _succ_labels(fn, label: str) -> set[str]:  # noqa: ANN001
    blk = next(b for b in fn.blocks if b.label == label)
    return {fn.blocks[s].label for s in blk.succs}


def test_each_way_into_the_flow_block_goes_where_its_flag_sends_it() -> None:
    fn = _loop()
    assert ".LBB0_F" in _succ_labels(fn, ".LBB0_2")
    got = thread_flag_blocks(fn)
    assert _succ_labels(got, ".LBB0_2") >= {".LBB0_3"} and ".LBB0_F" not in _succ_labels(got, ".LBB0_2")
    latch = next(b for b in got.blocks if any(got.insts[i].text == "s_mov_b32 s38, 0"
                                              for i in range(b.first, b.last + 1)))
    assert {got.blocks[s].label for s in latch.succs} == {".LBB0_2"}
    assert fn.blocks[0].succs == got.blocks[0].succs  # the rest untouched


def test_a_flag_not_known_keeps_the_flow_block() -> None:
    fn = _loop(latch_flag="s7")
    got = thread_flag_blocks(fn)
    latch = next(b for b in got.blocks if any(got.insts[i].text == "s_mov_b32 s38, s7"
                                              for i in range(b.first, b.last + 1)))
    assert {got.blocks[s].label for s in latch.succs} == {".LBB0_F"}


def test_threading_removes_the_iteration_that_runs_nothing() -> None:
    """The read after ``s_wait_tensorcnt 1``: on the threaded graph every way back to it issued
    the latch's copy, so the prologue's copy has a newer one and the wait retires it; on the raw
    graph header -> flow -> header skips the latch and the copy stays in flight."""
    fn = _loop()
    read = next(i.index for i in fn.insts if i.text == READ)
    first = next(i.index for i in fn.insts if i.text == DMA)

    def crossed_count(f):  # noqa: ANN001, ANN202
        header = next(b for b, blk in enumerate(f.blocks) if blk.label == ".LBB0_2")
        res = replay_sync(f, 12, {read}, (), lambda b, t, ctx: (ctx, t == header and b != 0))
        return [v for _, p in res.at_access[read] for k, v in p.items() if k[0] == first and k[2]]

    assert crossed_count(fn) == [0]  # raw: still in the queue after a "trip" that issued nothing
    assert crossed_count(thread_flag_blocks(fn)) == [RETIRED]


def _prologue(test: list[str], hoisted: tuple[str, ...] = ()):  # noqa: ANN202
    """FlyDSL's prologue copy of one wave under Triton's LLVM (gfx1250): the wave's test sets a
    flag on either way (``s_mov_b32 s21, -1`` where it copies, ``0`` where it does not) and a
    flow block tests it through ``scc``."""
    return one(
        "s_cmp_lg_u32 s5, 1",
        "s_cbranch_scc1 .LBB0_14",
        "s_mov_b32 s21, 0",                    # not the copying wave
        "s_branch .LBB0_15",
        ".LBB0_14:",
        "s_mov_b32 s21, -1",                   # the copying wave
        ".LBB0_15:",                           # %Flow
        *hoisted,
        *test,
        ".LBB0_16:",
        DMA,
        ".LBB0_17:",
        "s_wait_tensorcnt 0x0",
        "s_endpgm",
        target="gfx1250")


SCC_TEST = ["s_and_b32 s5, s21, exec_lo", "s_cselect_b32 s5, 1, 0", "s_delay_alu instid0(SALU_CYCLE_1)",
            "s_cmp_lg_u32 s5, 1", "s_cbranch_scc1 .LBB0_17"]


def _way(fn, flag: str) -> set[str]:  # noqa: ANN001
    blk = next(b for b in fn.blocks if any(fn.insts[i].text == f"s_mov_b32 s21, {flag}"
                                           for i in range(b.first, b.last + 1)))
    return {fn.blocks[s].label for s in blk.succs}


def test_a_flag_tested_through_scc_sends_each_way_to_its_successor() -> None:
    """``s_and`` with exec, ``s_cselect 1, 0`` and a compare with 1: set (-1) falls into the copy,
    clear (0) branches past it; vector arithmetic and constants the code generator hoisted into
    the flow block do not stop the threading."""
    for hoisted in ((), ("v_and_b32_e32 v1, 31, v0", "s_mov_b32 s36, 1", "s_set_vgpr_msb 0x400")):
        got = thread_flag_blocks(_prologue(SCC_TEST, hoisted))
        assert _way(got, "-1") == {".LBB0_16"} and _way(got, "0") == {".LBB0_17"}, hoisted
    # the same test with the compare the other way round (eq 0: taken where the flag is clear)
    eq0 = ["s_and_b32 s21, s21, exec_lo", "s_cselect_b32 s21, 1, 0", "s_cmp_eq_u32 s21, 0",
           "s_cbranch_scc1 .LBB0_17"]
    got = thread_flag_blocks(_prologue(eq0))
    assert _way(got, "-1") == {".LBB0_16"} and _way(got, "0") == {".LBB0_17"}


def test_a_flow_block_that_writes_its_flag_or_touches_vcc_is_not_threaded() -> None:
    for hoisted in (("s_mov_b32 s21, 1",), ("s_mov_b32 s5, 0",), ("v_cmp_eq_u32_e32 vcc_lo, 0, v0",)):
        got = thread_flag_blocks(_prologue(SCC_TEST, hoisted))
        assert _way(got, "-1") == {".LBB0_15"} and _way(got, "0") == {".LBB0_15"}, hoisted
