"""scripts/pipeline_mutants.py: the wait mutants it makes, how it judges a row against the
truth, and (slow, with Triton's LLVM) the check of two small pipelined Triton kernels and
their mutants against the hand-worked truth in ``tests/support/data/pipeline_truth.json``:
the originals do not race, and every mutant the truth says races is found with a witness."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from llnoalias.backends import triton_backend
from tests.support.files import DATA, ROOT
from tests.support.run import load_script

pm = load_script("pipeline_mutants")

PIPELINES = ROOT / "fixtures" / "corpus" / "triton39" / "pipelines"
#: two small kernels, and gfx942's fp8 matmul, whose epilogue reads come as byte loads folded into
#: shuffles and ds_read2 merged from two lines (the race of its mutant del@L817 is witnessed there)
SMALL = ("matmul_64x64x32_w4s2_fp16_gfx950", "matmul_64x64x32_w4s3_fp16_gfx942",
         "matmul_128x128x64_w8s2_fp8_gfx942")
TRUTH = DATA / "pipeline_truth.json"

TEXT = """define void @k() {
  call void @llvm.amdgcn.wait.asyncmark(i16 2)
  ; call void @llvm.amdgcn.wait.asyncmark(i16 7)
  call void @llvm.amdgcn.s.waitcnt(i32 0)
  ret void
}
"""


def test_mutants_remove_and_raise_each_wait_keeping_line_numbers() -> None:
    ms = {m.id: m.text for m in pm.mutants(TEXT)}
    assert list(ms) == ["original", "del@L2", "inc@L2"]  # the commented-out call is no wait
    assert ms["original"] == TEXT
    assert ms["del@L2"].split("\n")[1] == "" and ms["del@L2"].count("\n") == TEXT.count("\n")
    assert "wait.asyncmark(i16 3)" in ms["inc@L2"].split("\n")[1]
    assert ms["inc@L2"].split("\n")[2:] == TEXT.split("\n")[2:]
    with_cnt = [m.id for m in pm.mutants(TEXT, waitcnt=True)]
    assert with_cnt == ["original", "del@L2", "inc@L2", "delcnt@L4"]


def test_instructions_leave_out_directives_labels_and_comments() -> None:
    asm = ".text\n.LBB0_1:  ; %loop\n\ts_waitcnt vmcnt(0) ; wait\n\t.loc 1 2 3\n\ts_barrier\n"
    assert pm.instructions(asm) == ["s_waitcnt vmcnt(0)", "s_barrier"]


@pytest.mark.parametrize("truth,races,witnessed,verdict", [
    (True, 2, 2, "found"), (True, 0, 0, "missed"), (True, 1, 0, "missed"),
    (False, 0, 0, "ok"), (False, 3, 3, "FALSE")])
def test_judge_row(truth: bool, races: int, witnessed: int, verdict: str) -> None:
    row = pm.Row("m", "del@L5", races=races, witnessed=witnessed)
    assert pm.judge_row(row, {("m", "del@L5"): {"races": truth}}) == verdict
    assert pm.judge_row(pm.Row("m", "inc@L9"), {}) == "?"
    assert pm.judge_row(pm.Row("m", "original", races=1, witnessed=1), {}) == "FALSE"


def test_truth_names_real_mutants_of_checked_in_modules() -> None:
    """Every truth entry is a mutant the script makes of a module in the corpus, and says why."""
    entries = json.loads(TRUTH.read_text())
    assert entries
    ids: dict[str, set[str]] = {}
    for e in entries:
        path = PIPELINES / f"{e['module']}.ll"
        assert path.is_file(), e
        if e["module"] not in ids:
            ids[e["module"]] = {m.id for m in pm.mutants(path.read_text())}
        assert e["mutant"] in ids[e["module"]], e
        assert isinstance(e["races"], bool) and e["why"], e
    assert len({(e["module"], e["mutant"]) for e in entries}) == len(entries)


def _truth_small() -> list[dict[str, Any]]:
    return [e for e in json.loads(TRUTH.read_text()) if e["module"] in SMALL]


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, Any]]:
    out: Path = tmp_path_factory.mktemp("mutants") / "rows.json"
    pm.main([*(str(PIPELINES / f"{s}.ll") for s in SMALL), "--json", str(out), "--truth", str(TRUTH)])
    return {(r["module"], r["mutant"]): r for r in json.loads(out.read_text())}


needs_triton = pytest.mark.skipif(not triton_backend.available(), reason="Triton is not installed")


@pytest.mark.slow
@needs_triton
@pytest.mark.parametrize("module", SMALL)
def test_originals_do_not_race(rows: dict[tuple[str, str], dict[str, Any]], module: str) -> None:
    row = rows[(module, "original")]
    assert not row["error"], row["error"]
    assert row["races"] == 0, row["race_list"][:2]


@pytest.mark.slow
@needs_triton
@pytest.mark.parametrize("entry", _truth_small(), ids=lambda e: f"{e['module']}:{e['mutant']}")
def test_mutants_match_the_truth(rows: dict[tuple[str, str], dict[str, Any]], entry: dict[str, Any]) -> None:
    row = rows[(entry["module"], entry["mutant"])]
    assert not row["error"], row["error"]
    if entry["races"]:
        assert row["races"] >= 1, f"missed: {entry['why']} (unproven: {row['unproven']})"
        for race in row["race_list"]:
            w = race["witness"]
            assert isinstance(w["lane"], int) and isinstance(w["byte"], int), race
    else:
        assert row["races"] == 0, f"false race: {entry['why']}: {row['race_list'][:1]}"


@pytest.mark.slow
@needs_triton
def test_the_epilogue_race_is_witnessed_at_an_epilogue_read(rows: dict[tuple[str, str], dict[str, Any]]) -> None:
    """With the last wait removed, the epilogue's reads (after line 817) race the last DMAs: the
    witness names one of them, a byte load folded into a shuffle (``folded``: the loads it may
    be) or a ds_read2 whose accesses its block says, never a read of the loop before it."""
    row = rows[("matmul_128x128x64_w8s2_fp8_gfx942", "del@L817")]
    assert row["races"] >= 1
    for race in row["race_list"]:
        w = race["witness"]
        assert race["access"]["line"] > 817, race
        if "folded" in w:
            assert w["access_line"] in w["folded"] and all(line > 817 for line in w["folded"])
    assert any("folded" in r["witness"] for r in row["race_list"])
