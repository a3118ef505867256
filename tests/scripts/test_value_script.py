"""``scripts/value.py`` on three small corpus modules (the whole corpus is not run by the tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.files import ROOT
from tests.support.run import load_script

pytest.importorskip("llvmlite")

SMALL = ["fixtures/corpus/triton/amd_matmul_gfx942.ll", "fixtures/corpus/flydsl/cut_fp8_buffer_load_i32.ll",
         "fixtures/check/tbaa_unscoped_dma_races.ll"]


@pytest.mark.slow
def test_value_table(tmp_path: Path) -> None:
    value = load_script("value")
    rows = [r for p in SMALL for r in value.run_one(str(ROOT / p), "llvmlite")]
    assert {r["variant"] for r in rows} == set(value.VARIANTS)
    assert not [r for r in rows if "error" in r]
    tri = {r["variant"]: r for r in rows if r["module"].endswith("amd_matmul_gfx942.ll")}
    # Triton's reads carry !noalias of the DMA's scope: the input races by its own metadata
    assert tri["input"]["races"] == 4
    # --best never races more than the input, and where the races are the input's, it never has
    # more spills or vmcnt waits (a wait that removes a race is no loss: the tbaa fixture)
    for p in SMALL:
        by = {r["variant"]: r for r in rows if r["module"] == p}
        assert by["best"]["races"] <= by["input"]["races"]
        if by["best"]["races"] == by["input"]["races"]:
            for c in ("spills", "vmcnt"):
                assert by["best"][c] <= by["input"][c], (p, c)
    md = value.markdown(rows, ["llvmlite"])
    assert md.startswith(value.BEGIN) and md.endswith(value.END)
    assert "| triton | input | 1 |" in md
    doc = tmp_path / "perf.md"
    doc.write_text("# x\n\n" + value.BEGIN + "\nold\n" + value.END + "\nafter\n")
    value.write_into(str(doc), md)
    assert doc.read_text().startswith("# x\n\n" + value.BEGIN) and doc.read_text().endswith(value.END + "\nafter\n")
    assert "old" not in doc.read_text()
