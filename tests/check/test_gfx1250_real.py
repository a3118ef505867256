"""Real Triton 3.9 gfx1250 output (``fixtures/corpus/triton39/gfx1250``, made by
``scripts/gen_gfx1250_corpus.py``) through ``check`` with Triton's LLVM: each original is judged
without a race, and a wait mutant of each (``scripts/pipeline_mutants.py``) is found with its
witness (design section 4b; the hand-worked verdicts are ``tests/support/data/gfx1250_truth.json``)."""

from __future__ import annotations

import json

import pytest

from llnoalias.backends import triton_backend
from tests.support.files import ROOT
from tests.support.run import load_script

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not triton_backend.available(), reason="needs Triton's LLVM (gfx1250 async ops)")]

CORPUS = ROOT / "fixtures" / "corpus" / "triton39" / "gfx1250"
TRUTH = {(e["module"], e["mutant"]): e for e in json.loads(
    (ROOT / "tests" / "support" / "data" / "gfx1250_truth.json").read_text())}

#: module -> (a racing mutant, the witness fields its first race has)
RACING = {
    "tdm_pipe_w4_gfx1250": ("del@L180", {"between_waves": False, "kind": "read"}),
    "matmul_64x64x32_w4s2_gfx1250": ("del@L253", {"kind": "read"}),
}


def _check(name: str, mutant: str):  # noqa: ANN202
    from llnoalias.check.checker import check_text

    pm = load_script("pipeline_mutants")
    path = CORPUS / f"{name}.ll"
    muts = {m.id: m for m in pm.mutants(path.read_text())}
    return check_text(muts[mutant].text, str(path), codegen="triton")


@pytest.mark.parametrize("name", ["tdm_pipe_w4_gfx1250", "tdm_pipe_desc_w4_gfx1250", "async_pipe_w4_gfx1250",
                                  "matmul_64x64x32_w4s2_gfx1250"])
def test_each_real_module_is_judged_without_a_race(name: str) -> None:
    assert TRUTH[(name, "original")]["races"] is False
    res = _check(name, "original")
    assert res.functions and not res.races


@pytest.mark.parametrize("name", sorted(RACING))
def test_a_racing_mutant_is_found_with_its_witness(name: str) -> None:
    mutant, fields = RACING[name]
    assert TRUTH[(name, mutant)]["races"] is True
    res = _check(name, mutant)
    assert res.races
    w = res.races[0].witness
    assert w is not None and isinstance(w.get("byte"), int)
    assert {k: w.get(k) for k in fields} == fields


def test_the_tdm_witness_names_the_tile_read_from_the_descriptor() -> None:
    res = _check("tdm_pipe_w4_gfx1250", "del@L180")
    tiles = [r.witness["tile"] for r in res.races if r.witness and "tile" in r.witness]
    # each wave's quarter: 8 rows of 64 fp16, 8 bytes of padding after every 128
    assert tiles and all(t["elem"] == 2 and t["dims"] == [64, 8, 1] and t["pad_interval"] == 128
                         and t["pad_amount"] == 8 for t in tiles)
