"""Every real module of every producer the project knows goes through ``llnoalias stats X.ll``
with no flag: the module and llnoalias's annotated copy are both verified and
compiled by llvmlite's LLVM 22 through the version bridge, on the GPU the module names or
its intrinsics need.

Producers: clang-19 HIP and CUDA (``corpus/clang19``), Triton 3.9 for AMD and NVIDIA
(``corpus/triton39``), IREE 3.13 for HIP and CUDA (``corpus/iree``) and FlyDSL
(``corpus/flydsl``, where present). Each module is one test (two llvmlite children, about
half a second each; all 62 of them took 32 s on two shared cores), so the file runs in
parallel under pytest-xdist. Modules over ``MAX_BYTES`` (FlyDSL's fp8 GEMMs, about 10 s
each) are left out unless ``LLNOALIAS_CORPUS_ALL=1``.
"""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from llnoalias.cli.main import cli
from tests.support.files import ROOT

pytestmark = pytest.mark.slow

CORPUS = ROOT / "fixtures" / "corpus"
PRODUCERS = ("clang19", "triton39", "iree", "flydsl")
MAX_BYTES = 300 * 1024
ALL = os.environ.get("LLNOALIAS_CORPUS_ALL", "").strip() not in ("", "0")


def _modules() -> list[object]:
    out: list[object] = []
    for producer in PRODUCERS:
        for path in sorted((CORPUS / producer).glob("*.ll")):
            rel = f"{producer}/{path.name}"
            big = path.stat().st_size > MAX_BYTES and not ALL
            marks = [pytest.mark.skip(reason=f"over {MAX_BYTES} bytes (LLNOALIAS_CORPUS_ALL=1 runs it)")] if big else []
            out.append(pytest.param(rel, id=rel, marks=marks))
    return out


def test_the_corpus_has_every_producer() -> None:
    for producer in ("clang19", "triton39", "iree"):
        assert list((CORPUS / producer).glob("*.ll")), producer
    names = {p.name for p in (CORPUS / "triton39").glob("*.ll")}
    assert any(n.endswith("_sm90.ll") for n in names) and any(n.endswith("_gfx950.ll") for n in names)
    names = {p.name for p in (CORPUS / "iree").glob("*.ll")}
    assert any(n.endswith("_hip.ll") for n in names) and any(n.endswith("_cuda.ll") for n in names)


@pytest.mark.parametrize("rel", _modules())
def test_stats_goes_through(rel: str) -> None:
    pytest.importorskip("llvmlite.binding", reason="llvmlite is not installed: no code generator here")
    res = CliRunner().invoke(cli, ["stats", "--json", str(CORPUS / rel)], catch_exceptions=False)
    assert res.exit_code == 0, res.stderr
    report = json.loads(res.stdout)
    assert [f["label"] for f in report["files"]] == ["input", "llnoalias"]
    # both builds have code for the same kernels
    kernels = [set(f["kernels"]) for f in report["files"]]
    assert kernels[0] and kernels[0] == kernels[1], res.stderr
    assert "not verified" not in res.stderr and "error" not in res.stderr
