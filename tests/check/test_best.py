"""``--best``: per function, llnoalias's claims or the input's lines (design section 4b)."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from llnoalias.check.best import KEPT_CLAIMS, KEPT_INPUT, Measure, decide
from llnoalias.cli.compile import compile_command
from llnoalias.stats import counters as asmstats
from tests.support.files import ROOT

SCOPED_RACE = ROOT / "fixtures" / "check" / "loop_refill_scoped_races.ll"
GEMM = ROOT / "fixtures" / "corpus" / "flydsl" / "fp8_gemm_8wave_namedbases_gfx950_k1024.DERIVED.ll.gz"
#: Triton's attention kernel (its DMAs and reads: what --best weighs)
RACY_CLAIMS = ROOT / "fixtures" / "corpus" / "triton" / "amd_attn_gfx950_async.ll"


def test_decide_order() -> None:
    race = frozenset({(3, 4)})
    # a race the claims add loses, whatever they save
    c = decide("k", Measure(spills=9, vmcnt=9), Measure(races=race))
    assert c.kept == KEPT_INPUT and "race" in c.why
    # a race of the input the claims remove wins, whatever it costs
    assert decide("k", Measure(races=race), Measure(spills=9, vmcnt=9)).kept == KEPT_CLAIMS
    # the same races: spills first, then vmcnt waits
    assert decide("k", Measure(spills=60, vmcnt=10), Measure(spills=107, vmcnt=2)).kept == KEPT_INPUT
    assert decide("k", Measure(spills=5, vmcnt=10), Measure(spills=5, vmcnt=2)).kept == KEPT_CLAIMS
    assert decide("k", Measure(spills=5, vmcnt=2), Measure(spills=5, vmcnt=3)).kept == KEPT_INPUT
    tie = decide("k", Measure(spills=5, vmcnt=2), Measure(spills=5, vmcnt=2))
    assert tie.kept == KEPT_CLAIMS and "k: kept llnoalias's claims" in tie.line()


def _totals(path: Path) -> dict[str, int]:
    return dict(asmstats.collect(path.read_text(), str(path)).total)


@pytest.mark.slow
def test_best_on_the_spilling_gemm_is_never_worse_than_the_input(tmp_path: Path) -> None:
    pytest.importorskip("llvmlite")
    src = tmp_path / "gemm.ll"
    src.write_bytes(gzip.decompress(GEMM.read_bytes()))
    runner = CliRunner()
    plain, best = tmp_path / "in.s", tmp_path / "best.s"
    assert runner.invoke(compile_command, [str(src), "--no-annotate", "-o", str(plain)]).exit_code == 0
    res = runner.invoke(compile_command, [str(src), "--best", "-o", str(best)])
    assert res.exit_code == 0, res.output
    assert "--best: kernel_gemm_0: kept" in res.stderr
    a, b = _totals(plain), _totals(best)
    assert b["vgpr_spill"] + b["sgpr_spill"] <= a["vgpr_spill"] + a["sgpr_spill"]
    assert b["vmcnt"] <= a["vmcnt"]


@pytest.mark.slow
def test_best_keeps_the_input_where_the_claims_race() -> None:
    """The scopes of loop_refill_scoped_races.ll race (the loop refill LLVM loses); taken as the
    "annotated" form of the same module without them, --best gives the function its input lines."""
    pytest.importorskip("llvmlite")
    from llnoalias.check.best import choose

    annotated = SCOPED_RACE.read_text()
    original = annotated.replace(", !alias.scope !2, !noalias !5", "")
    chosen = choose(annotated, original, "loop.ll")
    [c] = chosen.choices
    assert c.function == "k" and c.kept == KEPT_INPUT and "race" in c.why
    assert len(c.annotated.races) == 1 and not c.input.races
    assert chosen.text.splitlines()[:len(original.splitlines())] == original.splitlines()


@pytest.mark.slow
def test_annotate_only_best_goes_to_click_and_says_what_it_kept(tmp_path: Path) -> None:
    """``llnoalias --best IN -o OUT``: the fast entry point hands it to click; it compiles to
    decide, writes the chosen IR and says per function what it kept."""
    pytest.importorskip("llvmlite")
    from llnoalias.backends import triton_backend

    if not triton_backend.available():
        pytest.skip("the module's explicit waits are judged by Triton's LLVM, which is not installed")
    out = tmp_path / "out.ll"
    proc = subprocess.run([sys.executable, "-m", "llnoalias", "--best", str(RACY_CLAIMS), "-o", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "--best: _attn_fwd_inner: kept" in proc.stderr
    # no race the input has not (judged, as --best judged, by Triton's LLVM where its waits need it)
    from llnoalias.check.checker import check_text

    def races(path: Path) -> set[tuple[str, int, int]]:
        return {(r.function, r.dma.ir_line, r.access.ir_line) for r in check_text(path.read_text(), str(path)).races}

    assert races(out) <= races(RACY_CLAIMS)
