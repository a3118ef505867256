"""Every module of ``fixtures/`` with an LDS-DMA through ``llnoalias check`` (design section 4b):
as given and after llnoalias (defaults; ``--lds all --args noalias``), with llvmlite's LLVM.

What it holds: every module compiles and is judged; the races real inputs have are the ones
listed here (each one read in the assembly when it was added: a change of the check's verdict on
real output shows here first); and llnoalias's output has no race its input has not."""

from __future__ import annotations

import os

import pytest

from llnoalias.backends import triton_backend
from tests.support.run import load_script

pytestmark = pytest.mark.slow

pytest.importorskip("llvmlite", reason="llvmlite's LLVM generates the code the check reads")
if os.environ.get("LLNOALIAS_PURE"):
    pytest.skip("the check's code has no C twin; the corpus run is the compiled suite's (minutes of codegen)",
                allow_module_level=True)

#: module -> races of the input, compiled by LLVM 22 as given. The Triton modules race through
#: Triton's own metadata: its LDS reads carry `!noalias` of the DMAs' scope and its explicit
#: waits wait for lgkmcnt only (triton/amd_matmul_gfx942.ll reads the buffer its DMA fills in the
#: same iteration; amd_attn_gfx950_async.ll waits with wait.asyncmark(2) and reads the slot its two
#: newest DMAs fill). Triton 3.9's gfx950 modules wait with asyncmark and are judged by Triton's
#: LLVM: told apart per stage, they do not race.
INPUT_RACES = {
    "fixtures/check/loop_refill_scoped_races.ll": 1,
    "fixtures/check/tbaa_unscoped_dma_races.ll": 1,
    "fixtures/check/coop_no_barrier_races.ll": 1,
    "fixtures/check/coop_barrier_wait_races.ll": 1,
    "fixtures/check/swizzle_not_permutation_races.ll": 1,
    "fixtures/check/pipeline_stage_shifted_races.ll": 1,
    "fixtures/check/pipeline_wait_removed_races.ll": 1,
    "fixtures/check/pipeline_barrier_above_wait_races.ll": 1,
    "fixtures/check/ballot_fill_own_lane_races.ll": 1,
    "fixtures/corpus/triton/amd_matmul_gfx942.ll": 4,
    # hand-written kernels that declare no work-group size (up to 16 waves, as LLVM reads it), each
    # wave's DMA into the same bytes: races between waves, whatever the waits
    **{f"fixtures/dma/{name}.ll": 1 for name in (
        "asm_comment_no_claim", "asm_wait_kept", "dynamic_same_bytes_no_claim", "equal_ints_no_claim",
        "input_unsafe_rescued", "join_dominated_kept", "join_no_claim", "loop_header_no_claim",
        "loop_refill_no_claim", "loop_waited_kept", "other_ints_kept", "traced_dma_kept",
        "window_inttoptr_kept", "window_partial_wait_no_claim", "window_waited_kept", "zero_branch_no_claim")},
}
#: modules with explicit waits (asyncmark) or asynchronous LDS loads: judged by Triton's LLVM,
#: which keeps them (design section 7), and where Triton is missing not judged at all (exit 2)
#: (Triton 3.9's gfx950 modules: told apart per stage, they do not race)
KEPT_WAITS_RACES = {
    "fixtures/corpus/triton/amd_attn_gfx950_async.ll": 4,
    **{f"fixtures/bridge/{name}.ll": n for name, n in (("amdgcn-async-lds-load", 2), ("amdgcn-asyncmark", 1))},
}
#: modules with explicit waits that do not race: judged only where Triton's LLVM keeps their waits
KEPT_WAITS_CLEAN = {"fixtures/corpus/triton39/matmul_128x128x64_w8s2_gfx950.ll",
                    "fixtures/corpus/triton39/attn_fwd_gfx950.ll"}
HAVE_TRITON = triton_backend.available()
if HAVE_TRITON:
    INPUT_RACES.update(KEPT_WAITS_RACES)


@pytest.fixture(scope="module")
def rows() -> list[dict[str, object]]:
    cc = load_script("check_corpus")
    paths = cc.modules()
    assert len(paths) >= 40, "the corpus has its LDS-DMA modules"
    return cc.run(paths, jobs=2)


def test_every_module_is_compiled_and_judged(rows: list[dict[str, object]]) -> None:
    unjudged = {str(r["module"]) for r in rows if "needs a code generator that keeps them" in str(r.get("error", ""))}
    assert unjudged == (set() if HAVE_TRITON else set(KEPT_WAITS_RACES) | KEPT_WAITS_CLEAN)
    errors = [f"{r['module']} ({r['variant']}): {r['error']}" for r in rows
              if "error" in r and r["module"] not in unjudged]
    assert not errors, "\n".join(errors)
    assert sum(int(r.get("dmas", 0)) for r in rows if r["variant"] == "input") >= 1500  # type: ignore[call-overload]


def test_the_races_of_real_inputs_are_the_known_ones(rows: list[dict[str, object]]) -> None:
    got = {str(r["module"]): r["races"] for r in rows if r["variant"] == "input" and r.get("races")}
    assert got == INPUT_RACES


def test_llnoalias_output_has_no_race_its_input_has_not(rows: list[dict[str, object]]) -> None:
    cc = load_script("check_corpus")
    assert cc.new_races(rows) == []
