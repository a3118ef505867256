"""FlyDSL's gfx1250 GEMMs (``fixtures/corpus/flydsl/*gfx1250*``, ``scripts/gen_flydsl_gfx1250_corpus.py``)
through ``check`` with Triton's LLVM: wave-specialized tensor-data-mover copies (one wave per tile,
``tensor_wait(N)`` then a barrier). Each original is judged without a race and with no
``--mcpu`` (the tensor data mover says gfx1250); a wait mutant races with its witness; the
per-wave replay (``check.waves``) is what keeps the original clean (design section 4b)."""

from __future__ import annotations

import gzip

import pytest

from llnoalias.backends import triton_backend
from tests.support.files import DATA, ROOT
from tests.support.run import load_script

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not triton_backend.available(), reason="needs Triton's LLVM (gfx1250 tensor ops)")]

CORPUS = ROOT / "fixtures" / "corpus" / "flydsl"
MX = "gemm_a8w4_mxscale_gfx1250_k512"
A8W8 = "gemm_a8w8_ptpc_gfx1250_k512"
MOE = "moe_a8w4_mxscale_gfx1250_k1024"
W1X2 = "gemm_a8w8_ptpc_gfx1250_k512_w1x2"
#: shapes whose originals once raced falsely, each for its own reason: a flag block tested through
#: scc (``asm.flow``), one with vector code hoisted into it, a cluster barrier signalled by one wave
#: (``check.waves``), the join before MoE's K loop that no assembly line names (``check.waves``)
SHAPES = ("gemm_a8w8_ptpc_gfx1250_k1024_t256_nb3", "gemm_a8w8_ptpc_gfx1250_k512_cluster2x2",
          "moe_a8w4_mxscale_gfx1250_k1024_cluster2", "moe_a8w4_mxscale_gfx1250_k2048", W1X2)


def _text(stem: str, mutant: str = "original") -> str:
    text = gzip.decompress((CORPUS / f"{stem}.ll.gz").read_bytes()).decode()
    if mutant == "original":
        return text
    return {m.id: m for m in load_script("pipeline_mutants").mutants(text)}[mutant].text


def _check(text: str, stem: str):  # noqa: ANN202
    from llnoalias.check.checker import check_text

    return check_text(text, f"{stem}.ll", codegen="triton")


@pytest.mark.parametrize("stem", [MX, A8W8])
def test_the_original_is_judged_without_a_race_and_without_mcpu(stem: str) -> None:
    res = _check(_text(stem), stem)
    assert res.functions and res.functions[0].dmas == 9
    assert not res.races


def test_a_removed_tensor_wait_races_with_its_witness() -> None:
    res = _check(_text(MX, "del@L283"), MX)
    assert res.races
    w = res.races[0].witness
    assert w is not None and isinstance(w.get("byte"), int) and isinstance(w.get("dma_wave"), int)
    assert res.races[0].counter == "tensorcnt" and "tile" in w


def test_the_joint_replay_alone_reports_races_that_no_wave_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the per-wave replay a path on which the copying wave skips its own copy in some
    iteration is counted: the original then "races"."""
    from llnoalias.check import judge

    monkeypatch.setattr(judge, "pending_by_wave", lambda fn, gen, tracked, it, fx, sync: sync.at_access)
    res = _check(_text(A8W8), A8W8)
    assert res.races and all(r.witness and r.witness.get("between_waves") is not None for r in res.races)


def test_the_moe_kernel_is_judged_under_its_expert_guard() -> None:
    """The MoE GEMM runs its whole body under ``%140``, a test of expert bounds loaded from global
    memory in the entry block: one value for the work-group, so the copying wave runs its copy
    wherever the reading wave runs its read. Removing the first stage's wait races (wave 2's copy
    against wave 0's read, past the barrier); removing the wait after the last stage's compute,
    with no copy in flight, does not."""
    res = _check(_text(MOE), MOE)
    assert res.functions[0].dmas == 33 and not res.races and not res.unproven
    raced = _check(_text(MOE, "del@L622"), MOE)
    assert raced.races and all(r.counter == "tensorcnt" for r in raced.races)
    w = raced.races[0].witness
    assert w is not None and w["between_waves"] and w["dma_wave"] != w["wave"] and "tile" in w
    assert not _check(_text(MOE, "del@L1936"), MOE).races


@pytest.mark.parametrize("stem", SHAPES)
def test_more_of_flydsls_shapes_are_judged_without_a_race(stem: str) -> None:
    res = _check(_text(stem), stem)
    assert res.functions and res.functions[0].dmas >= 5
    assert not res.races, [(r.dma.ir_line, r.access.ir_line, r.witness) for r in res.races[:2]]


def test_the_epilogues_wait_removed_races_with_the_loops_last_copy() -> None:
    """The epilogue reads the stage the loop's last iteration copied; without its wait that copy
    is in flight. The witness assumes a K whose trip count brings the copy of iteration 0 to the
    read after the exit (K=256: one trip), and the path is judged iteration by iteration: the
    loop's body in the copy's, the exit in the read's."""
    res = _check(_text(W1X2, "del@L622"), W1X2)
    looped = [r for r in res.races if r.dma.ir_line in (565, 593)]
    assert looped, [(r.dma.ir_line, r.access.ir_line) for r in res.races[:4]]
    w = looped[0].witness
    assert w["dma_state"][0]["state"] == 0 and w["access_state"][0]["state"] == 1
    assert w["assumes"]["%7"] == 256


def test_every_wait_mutant_of_the_moe_kernel_is_judged_as_worked_by_hand() -> None:
    """All of MoE's tensor waits, each removed and raised by one, and all removed, against
    ``tests/support/data/flydsl_gfx1250_truth.json``: a mutant that races is found with a
    witness, one that does not (the wait after the last compute, the one after the store from
    LDS) is not reported."""
    pm = load_script("pipeline_mutants")
    truth = pm.load_truth(DATA / "flydsl_gfx1250_truth.json")
    text = _text(MOE)
    verdicts = {}
    for m in pm.mutants(text):
        row = pm.check_one(MOE, m, f"{MOE}.ll", "triton")
        verdicts[m.id] = pm.judge_row(row, truth)
    assert set(verdicts.values()) <= {"found", "ok"}, verdicts
    assert len(verdicts) == len([k for k in truth if k[0] == MOE]) == 14
