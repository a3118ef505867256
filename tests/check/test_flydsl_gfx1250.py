"""FlyDSL's gfx1250 GEMMs (``fixtures/corpus/flydsl/*gfx1250*``, ``scripts/gen_flydsl_gfx1250_corpus.py``)
through ``check`` with Triton's LLVM: wave-specialized tensor-data-mover copies (one wave per tile,
``tensor_wait(N)`` then a barrier). Each original is judged without a race and with no
``--mcpu`` (the tensor data mover says gfx1250); a wait mutant races with its witness; the
per-wave replay (``check.waves``) is what keeps the original clean (design section 4b)."""

from __future__ import annotations

import gzip

import pytest

from llnoalias.backends import triton_backend
from tests.support.files import ROOT
from tests.support.run import load_script

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not triton_backend.available(), reason="needs Triton's LLVM (gfx1250 tensor ops)")]

CORPUS = ROOT / "fixtures" / "corpus" / "flydsl"
MX = "gemm_a8w4_mxscale_gfx1250_k512"
A8W8 = "gemm_a8w8_ptpc_gfx1250_k512"


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
