"""Races told per thread, per loop state and between waves (design 4b, "exact"): each shape of
``fixtures/check`` with its racing twin, the race's witness read back, and the pieces under it
(the concrete values, the loops' evolutions, the replay's barrier rule) on their own."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.files import ROOT

pytest.importorskip("llvmlite", reason="llvmlite's LLVM generates the code the check reads")

from llnoalias.analysis.ranges.concrete import Evaluator, Ptr, Threads, Unknown  # noqa: E402
from llnoalias.analysis.ranges.evolution import Evolutions, find_loops  # noqa: E402
from llnoalias.check.checker import check_text  # noqa: E402
from llnoalias.ir.model import LocalRef  # noqa: E402
from llnoalias.ir.parser import parse_module  # noqa: E402
from llnoalias.ir.source import SourceFile  # noqa: E402

CHECK = ROOT / "fixtures" / "check"

#: fixture -> None (no race, nothing unproven) or the witness fields its one race must have
SHAPES: dict[str, dict[str, object] | None] = {
    "coop_wait_barrier_clean.ll": None,
    "coop_no_barrier_races.ll": {"between_waves": True, "byte": 256, "dma_wave": 1, "wave": 0, "lane": 0},
    "coop_barrier_wait_races.ll": {"between_waves": True, "byte": 256, "dma_wave": 1, "wave": 0},
    "swizzle_xor_clean.ll": None,
    "swizzle_not_permutation_races.ll": {"between_waves": True, "byte": 256, "dma_wave": 1},
    "pipeline_stage_clean.ll": None,
    "pipeline_stage_shifted_races.ll": {"between_waves": True, "dma_wave": 1, "kind": "read"},
    "pipeline_wait_removed_races.ll": {"between_waves": True, "dma_wave": 1},
    "pipeline_barrier_above_wait_races.ll": {"between_waves": True, "dma_wave": 1},
    # a DMA predicated by a ballot's bit (another lane's mask) against the zero fill of the lanes
    # whose own mask is off: apart for every %n where they meet only in exclusive lanes
    "ballot_fill_clean.ll": None,
    "ballot_fill_own_lane_races.ll": {"between_waves": False, "lane": 1, "dma_lane": 1, "byte": 4,
                                      "assumes": {"%n": 1}},
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_shape_and_its_racing_twin(name: str) -> None:
    path = CHECK / name
    res = check_text(path.read_text(), str(path))
    want = SHAPES[name]
    assert not res.unproven, [u.to_json() for u in res.unproven]
    if want is None:
        assert res.clean, [r.to_json() for r in res.races]
        return
    assert res.races, f"{name} races"
    w = res.races[0].witness
    for key, value in want.items():
        assert w[key] == value, (key, w)
    # the witness holds by hand: the byte is in the DMA lane's element and in the reader's dword
    assert isinstance(w["byte"], int) and isinstance(w["dma_lane"], int)
    part = 256 * int(w["dma_wave"])  # type: ignore[call-overload]
    slot = 1024 * int(w["dma_state"][0]["values"]["%s"]) if w["dma_state"] else 0  # type: ignore[index]
    if name.startswith("pipeline_stage_shifted"):
        assert part + slot + 4 * w["dma_lane"] <= w["byte"] < part + slot + 4 * w["dma_lane"] + 4  # type: ignore[operator]


@pytest.mark.slow
def test_the_witness_is_in_json_and_on_a_note_line() -> None:
    path = "fixtures/check/coop_no_barrier_races.ll"
    proc = subprocess.run([sys.executable, "-m", "llnoalias", "check", "--json", path], capture_output=True,
                          text=True, cwd=ROOT)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    [race] = doc["races"]
    assert isinstance(race["witness"]["lane"], int) and isinstance(race["witness"]["byte"], int)
    assert doc["unproven"] == []
    assert "note: witness: lane 0 of wave 0 (thread 0) touches byte 256" in proc.stderr


@pytest.mark.slow
def test_a_pair_with_an_untraced_dma_is_unproven_and_strict_fails_on_it(tmp_path) -> None:  # noqa: ANN001
    """A DMA whose LDS pointer is loaded has bytes no one knows: neither a race nor apart."""
    text = (CHECK / "coop_no_barrier_races.ll").read_text().replace(
        "  %dst = getelementptr i8, ptr addrspace(3) @T, i32 %part\n",
        "  %dp = getelementptr ptr addrspace(3), ptr addrspace(1) %src, i32 %part\n"
        "  %dst = load ptr addrspace(3), ptr addrspace(1) %dp, align 4\n")
    res = check_text(text, "untraced.ll")
    assert not res.races and res.unproven
    assert "loaded value" in res.unproven[0].why
    f = tmp_path / "untraced.ll"
    f.write_text(text)
    run = [sys.executable, "-m", "llnoalias", "check", str(f)]
    assert subprocess.run(run, capture_output=True, text=True, cwd=ROOT).returncode == 0
    strict = subprocess.run([*run, "--strict"], capture_output=True, text=True, cwd=ROOT)
    assert strict.returncode == 1 and "warning: unproven" in strict.stderr


def _module(name: str):  # noqa: ANN202
    path = CHECK / name
    mod = parse_module(SourceFile(str(path), path.read_text()))
    return mod, next(f for f in mod.functions if f.instrs)


def test_a_lane_swizzle_is_a_permutation_per_thread() -> None:
    mod, fn = _module("swizzle_xor_clean.ll")
    ev = Evaluator(mod, fn, Threads(256, 64), {}, lambda _: False)
    v = ev.value(None, LocalRef("%rp"))
    assert isinstance(v, Ptr) and isinstance(v.off, tuple)
    assert sorted(v.off) == [4 * t for t in range(256)], "xor 1 permutes the lanes"
    assert v.off[0] == 4 and v.off[1] == 0
    assert isinstance(ev.value(None, LocalRef("%src")), Unknown), "a kernel argument is not known"


def test_the_stage_counter_is_a_cycle_of_two() -> None:
    mod, fn = _module("pipeline_stage_clean.ll")
    [loop] = find_loops(fn)
    assert fn.blocks[loop.header] == "%loop"
    ev = Evolutions(mod, fn, Threads(256, 64), {"%s", "%i"}, {"%s"})
    [unit] = ev.units
    assert unit.phis == ("%s",) and unit.cycle == (0, 2) and unit.kinds["%s"] == "cycle"
    assert [s[0] for s in unit.states] == [0, 1] and unit.succ == [1, 0]
    # the trip counter feeds no address and has no cycle: it is not part of the contexts
    assert [u.phis for u in ev.dropped] == [("%i",)] and ev.dropped[0].kinds["%i"] == "affine"


@pytest.mark.slow
def test_the_ideal_count_of_each_wait() -> None:
    """In the clean pipeline, the wait before the barrier retires the DMA the next stage reads (it
    stays vmcnt(0)); the one LLVM puts before the read of this stage's slot is needed by nothing."""
    path = CHECK / "pipeline_stage_clean.ll"
    res = check_text(path.read_text(), str(path), ideal=True)
    by_line = {w.at.ir_line: (w.value, w.loosest) for w in res.waits}
    assert by_line[26] == (0, 0), by_line
    assert by_line[42] == (0, 63), by_line
    # a count raised past the ideal is a race: the barrier's wait at vmcnt(1) leaves the DMA in flight
    text = path.read_text().replace("  call void @llvm.amdgcn.s.waitcnt(i32 0)\n  call void @llvm.amdgcn.s.barrier()",
                                    "  call void @llvm.amdgcn.s.waitcnt(i32 1)\n  call void @llvm.amdgcn.s.barrier()")
    assert text != path.read_text()
    raised = check_text(text, "raised.ll")
    assert raised.races and raised.races[0].witness["between_waves"]


_SHARED_LOADS = """
target triple = "amdgcn-amd-amdhsa"
@lds = internal addrspace(3) global [64 x i32] undef, align 4

define amdgpu_kernel void @k(ptr addrspace(1) %bounds, ptr addrspace(4) %table, i32 %n) #0 {
entry:
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %bounds, i32 %wg
  %e = load i32, ptr addrspace(1) %p, align 4
  %valid = icmp slt i32 %e, %n
  %c = load i32, ptr addrspace(4) %table, align 4
  %ctab = icmp eq i32 %c, 0
  %v = load volatile i32, ptr addrspace(1) %bounds, align 4
  %cvol = icmp eq i32 %v, 0
  %q = getelementptr i32, ptr addrspace(1) %bounds, i32 %tid
  %own = load i32, ptr addrspace(1) %q, align 4
  %cown = icmp eq i32 %own, 0
  %l = load i32, ptr addrspace(3) @lds, align 4
  %clds = icmp eq i32 %l, 0
  br i1 %valid, label %body, label %done
body:
  %late = load i32, ptr addrspace(1) %bounds, align 4
  %clate = icmp eq i32 %late, 0
  br label %done
done:
  ret void
}
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workitem.id.x()
attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }
"""


def test_a_global_load_of_one_address_in_the_entry_block_is_one_value_for_the_group() -> None:
    """MoE's expert bounds, loaded at the start from global memory, guard the whole body: every
    thread reads one value (a write between the reads would race on global memory). A volatile
    load, a load of a thread's own address, a load of LDS (whose races are the question) and a
    load past the entry block are not taken as one value."""
    from llnoalias.check.exact import FunctionExact

    mod = parse_module(SourceFile("k.ll", _SHARED_LOADS))
    fx = FunctionExact(mod, mod.functions[0], 64)
    assert fx._uniform("%valid") and fx._uniform("%ctab")
    for cond in ("%cvol", "%cown", "%clds", "%clate"):
        assert not fx._uniform(cond), cond
