"""transform/dma_addresses.summarise walks the addresses only of the accesses whose summary
a rule of dma_safety may read (``_read``); the others get ``unsummarised``, which
``in_flight`` and ``keeps`` answer cautiously (in flight, no claim kept). The plan, the
output and the warnings equal those of summaries for every access."""

from __future__ import annotations

import pytest

import llnoalias.transform.function_pass as fpass
from llnoalias import reasons
from llnoalias.analysis.provenance.rootset import LDS_DOMAIN
from llnoalias.options import AnnotateOptions
from llnoalias.transform import dma_addresses, pipeline
from llnoalias.transform.dma_addresses import in_flight, keeps, unsummarised
from llnoalias.transform.pipeline import annotate_text
from llnoalias.transform.scopes import Decision, Plan, same_decisions
from tests.support.run import load_script

dk = load_script("dma_kernels")
bench = load_script("bench_throughput")

HEAD = """target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@lds_a = external addrspace(3) global [0 x i8], align 16
@lds_b = external addrspace(3) global [0 x i8], align 16
{static}
declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32)

define amdgpu_kernel void @k(ptr addrspace(8) %rsrc, ptr addrspace(1) %out) {{
entry:
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %rsrc, ptr addrspace(3) @lds_a, i32 4, i32 0, i32 0, i32 0, i32 0)
  %x = load i32, ptr addrspace(3) {read}, align 4{md}
  store i32 %x, ptr addrspace(1) %out, align 4
  ret void
}}
{nodes}"""


def _kernel(read: str = "@lds_b", md: bool = False, static: bool = False) -> str:
    return HEAD.format(read=read, md=", !tbaa !0" if md else "",
                       static="@lds_s = addrspace(3) global [64 x i8] undef, align 16" if static else "",
                       nodes='!0 = !{!1, !1, i64 0}\n!1 = !{!"int", !2}\n!2 = !{!"tbaa root"}\n' if md else "")


def _summarised(text: str, opts: AnnotateOptions | None = None,
                monkeypatch: pytest.MonkeyPatch | None = None) -> list[Decision]:
    """The LDS decisions ``summarise`` made, as the run's last plan holds them (later
    stages make new decisions where they rewrite a claim: ``scopes.Rewrites``)."""
    seen: list[Decision] = []
    last: list[Plan] = []
    real = fpass.summarise
    write = pipeline._write_scopes

    def spy(analyses, fn, made):  # type: ignore[no-untyped-def]
        got = real(analyses, fn, made)
        seen.extend(d for d in got if d.domain == LDS_DOMAIN)
        return got

    def written(p: Plan, writer: pipeline.MetadataWriter) -> Plan:
        got = write(p, writer)
        last.append(got)
        return got

    assert monkeypatch is not None
    monkeypatch.setattr(fpass, "summarise", spy)
    monkeypatch.setattr(pipeline, "_write_scopes", written)
    annotate_text(text, "k.ll", opts or AnnotateOptions())
    return same_decisions(last[-1], seen)


def _walked(d: Decision) -> bool:
    assert d.dma is not None
    return d.dma[5] >= 0


#: @lds_b carved apart from the DMA's bytes (every dynamic LDS variable starts at one address)
CARVED_B = "getelementptr (i8, ptr addrspace(3) @lds_b, i32 4096)"


def test_a_read_of_another_dynamic_name_is_walked_and_keeps_its_claim_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    # every dynamic LDS variable starts at one address: @lds_a and @lds_b are one root, so the
    # read shares the DMA's root and is walked; its bytes are apart, and the claims stand
    ds = _summarised(_kernel(CARVED_B), monkeypatch=monkeypatch)
    assert len(ds) == 2 and all(_walked(d) for d in ds)
    assert [d.dma[0] for d in ds if d.dma is not None] == [True, False]  # which is the DMA stays known
    assert all(d.keys for d in ds)


def test_a_read_of_the_same_bytes_of_another_name_loses_its_claim(monkeypatch: pytest.MonkeyPatch) -> None:
    # @lds_b at offset 0 is @lds_a at offset 0: one root, one region, and rule (b) withdraws it
    ds = _summarised(_kernel("@lds_b"), monkeypatch=monkeypatch)
    assert len(ds) == 2
    read = next(d for d in ds if d.dma is not None and not d.dma[0])
    assert not read.keys and read.reason == reasons.LDS_DMA_WINDOW.text


def test_a_read_of_the_dmas_buffer_is_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    # the read shares the DMA's scope: rule (b) asks about both
    ds = _summarised(_kernel("@lds_a"), monkeypatch=monkeypatch)
    assert len(ds) == 2 and all(_walked(d) for d in ds)


def test_input_metadata_is_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    # another buffer, but the input's own !tbaa: ``residual`` asks about it
    ds = _summarised(_kernel("@lds_b", md=True), monkeypatch=monkeypatch)
    assert len(ds) == 2 and all(_walked(d) for d in ds)


def test_static_lds_is_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    # a sized LDS variable in the module: rule (c)'s window check may ask about any access
    ds = _summarised(_kernel("@lds_b", static=True), monkeypatch=monkeypatch)
    assert len(ds) == 2 and all(_walked(d) for d in ds)


def test_the_throughput_kernels_dynamic_names_are_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    # the throughput benchmark's kernel: DMAs into @lds_a, reads of @lds_b and @lds_c, all
    # dynamic, so one root: every read shares the DMAs' root and is walked (bytes decide)
    ds = _summarised(bench.build(400), monkeypatch=monkeypatch)
    assert len(ds) > 50 and all(_walked(d) for d in ds)
    assert sum(1 for d in ds if d.dma is not None and d.dma[0]) == len(ds) // 3


def test_unsummarised_answers_are_the_cautious_ones() -> None:
    real: dma_addresses.Summary = (True, ("@lds_a", 0, ()), ("@lds_a", "global", ""), 4, 0, 0, -1, (0,))
    acc: dma_addresses.Summary = (False, ("@lds_a", 64, ()), ("@lds_a", "global", ""), 4, 1, 5, -1, ())
    assert not in_flight(acc, real)  # another block, not reached
    for a, m in ((unsummarised(False), real), (acc, unsummarised(True)), (unsummarised(False), unsummarised(True))):
        assert in_flight(a, m)
        assert not keeps(a, m)


def _outcome(text: str, opts: AnnotateOptions) -> tuple[str, list[object], list[object]]:
    res = annotate_text(text, "k.ll", opts)
    recs: list[object] = [(a.line, a.domain, a.tagged, a.scopes, a.reason) for a in res.report.accesses]
    return res.text, recs, list(res.report.warnings)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_same_outcome_as_summarising_everything(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """On generated DMA kernels (every shape of dma_kernels, producers' metadata, static
    variables), with both option sets: the same output, decisions and warnings as when
    every access is walked; and some accesses were not walked."""
    kernels = [k.text for k in dk.generate_many(seed, 60)] + [bench.build(600)]
    options = [AnnotateOptions(), AnnotateOptions(lds="all", args="noalias")]
    skipped = 0
    real_summarise = fpass.summarise

    def count(analyses, fn, made):  # type: ignore[no-untyped-def]
        nonlocal skipped
        got = real_summarise(analyses, fn, made)
        skipped += sum(1 for d in got if d.dma is not None and d.dma[5] < 0)
        return got

    for text in kernels:
        for opts in options:
            with monkeypatch.context() as m:
                m.setattr(fpass, "summarise", count)
                lazy = _outcome(text, opts)
            with monkeypatch.context() as m:
                m.setattr(dma_addresses, "_read", lambda mod, lds, is_dma: [True] * len(lds))
                full = _outcome(text, opts)
            assert lazy == full
    # (a few: the dynamic LDS variables of a module are one root (design section 1), so an
    # access of another dynamic name shares the DMAs' root and is walked; what is left
    # unwalked is an access with no root, where the shortcut still fires: seed 1 8, seed 2 2;
    # the throughput kernel's, all skipped before, are walked now)
    assert skipped > 0
