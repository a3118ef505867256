"""gfx1250's asynchronous LDS operations in ``check``: the tensor data mover's tile read from its
descriptor, one queue per counter, and each hand-written kernel's racing twins (design 4b)."""

from __future__ import annotations

import pytest

from llnoalias.analysis.memory.intrinsics import ASYNC_LDS, async_lds
from llnoalias.asm.queue import replay
from llnoalias.asm.reader import ASYNC_MNEMONICS, read_amdgpu
from llnoalias.check.tiles import Tile, decode
from llnoalias.diagnostics import LLNoaliasError
from tests.support.files import ROOT

CHECK = ROOT / "fixtures" / "check"

#: fixture -> None (clean) or the witness fields of its first race
SHAPES: dict[str, dict[str, object] | None] = {
    "tdm_two_stage_clean.ll": None,
    "tdm_two_stage_wait_raised_races.ll": {"byte": 1088, "dma_wave": 1, "wave": 0, "between_waves": True},
    "tdm_two_stage_waits_removed_races.ll": {"byte": 1088, "dma_wave": 1, "wave": 0},
    "tdm_two_stage_second_wait_removed_races.ll": {"byte": 5440, "dma_wave": 1, "wave": 0},
    "tdm_two_stage_barrier_above_wait_races.ll": {"byte": 1088, "dma_wave": 1, "between_waves": True},
}


def test_the_reader_knows_the_catalogue_s_async_mnemonics() -> None:
    rows = {a.mnemonic: (a.counter, a.lds == "w") for a in ASYNC_LDS if a.counter != "vmcnt"}
    assert rows == ASYNC_MNEMONICS
    assert async_lds("llvm.amdgcn.tensor.load.to.lds").locate == "descriptor"  # type: ignore[union-attr]
    assert async_lds("llvm.amdgcn.tensor.store.from.lds.d2").lds == "r"  # type: ignore[union-attr]


def test_a_descriptor_s_tile_and_its_padding() -> None:
    g1 = [122814464, 4194304, 262144, 4194304, 4, 64, 0, 0]
    tile = decode([1, 0, 0, 0], g1, True)
    assert tile == Tile(4, (64, 4, 1), 256, 16)
    assert tile.size == 1024 and tile.span == 1024 + 3 * 16
    assert tile.written(256, 272) is None  # the padding after the first row
    assert tile.written(260, 300) == 272
    assert decode([0, 0, 0, 0], g1, True) is None  # predicate off: nothing touched
    assert isinstance(decode([1 | 1 << 31, 0, 0, 0], g1, True), str)  # gather mode: not read
    assert isinstance(decode([1, 0, 0, 0], g1, False), str)


def test_each_counter_is_its_own_queue() -> None:
    asm = "\n".join([
        '.amdgcn_target "amdgcn-amd-amdhsa--gfx1250"', ".globl k", "k:",
        "tensor_load_to_lds s[0:3], s[4:11]", "global_load_b32 v1, v0, s[0:1]",
        "s_wait_loadcnt 0x0", "ds_load_b32 v2, v0", "s_wait_tensorcnt 0x0", "ds_load_b32 v3, v0", "s_endpgm",
        ".Lfunc_end0:"])
    fn = read_amdgpu(asm)[0]
    assert fn.insts[0].kind == "dma" and fn.insts[0].queue == "tensorcnt"
    rp = replay(fn, 12)
    assert 0 in rp.pending_dmas(3)  # a loadcnt wait does not retire the tensor copy
    assert 0 not in rp.pending_dmas(5)
    assert [(w.counter, w.retires) for w in rp.waits] == [("loadcnt", (1,)), ("tensorcnt", (0,))]


needs_triton = pytest.mark.skipif(not __import__("importlib").util.find_spec("triton"),
                                  reason="Triton's LLVM (24) generates gfx1250 tensor code; LLVM 22 rejects it")


@pytest.mark.slow
@needs_triton
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_tdm_kernel_and_its_racing_twins(name: str) -> None:
    from llnoalias.check.checker import check_text

    path = CHECK / name
    res = check_text(path.read_text(), str(path), codegen="triton")
    assert not res.unproven, [u.to_json() for u in res.unproven]
    want = SHAPES[name]
    if want is None:
        assert res.clean, [r.to_json() for r in res.races]
        assert sum(f.dmas for f in res.functions) == 2
        return
    assert res.races and res.races[0].counter == "tensorcnt"
    w = res.races[0].witness
    for key, value in want.items():
        assert w[key] == value, (key, w)
    tile = w["tile"]
    assert isinstance(tile, dict) and tile["dims"] == [64, 4, 1]


@pytest.mark.slow
@needs_triton
def test_the_loosest_tensor_wait_is_the_one_written() -> None:
    from llnoalias.check.checker import check_text

    path = CHECK / "tdm_two_stage_clean.ll"
    res = check_text(path.read_text(), str(path), codegen="triton", ideal=True)
    tensor = [w for w in res.waits if w.counter == "tensorcnt"]
    assert [(w.value, w.loosest) for w in tensor] == [(1, 1), (0, 0)]


def test_an_async_lds_operation_the_check_does_not_model_is_an_error(tmp_path) -> None:  # noqa: ANN001
    from llnoalias.check.checker import check_text

    text = (CHECK / "tdm_two_stage_clean.ll").read_text().replace(
        "call void @llvm.amdgcn.tensor.load.to.lds(<4 x i32> %da", "call void @llvm.amdgcn.tensor.load.to.lds.d9(<4 x i32> %da")
    with pytest.raises(LLNoaliasError) as e:
        check_text(text, "m.ll")
    assert e.value.location is not None and e.value.location.line == 35
    assert "does not model" in e.value.message


def test_annotating_a_tensor_module_is_done_unverified_with_a_note(tmp_path) -> None:  # noqa: ANN001
    """LLVM 22 calls a module with gfx1250's five-group tensor operations broken (LLVM 24 reads
    it): the command line annotates it without the verifier, says so, and exits 0, where it
    used to refuse the input."""
    import subprocess
    import sys

    out = tmp_path / "out.ll"
    proc = subprocess.run([sys.executable, "-m", "llnoalias", str(CHECK / "tdm_two_stage_clean.ll"), "-o", str(out)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "not verified: it calls llvm.amdgcn.tensor.load.to.lds (line 35)" in proc.stderr
    assert out.read_text().startswith(";")
