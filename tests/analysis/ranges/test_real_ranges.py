"""Soundness of byte ranges on real Triton output, against a concrete oracle.

For the AMDGPU kernels of ``fixtures/corpus/triton39`` whose LDS accesses get region scopes,
every LDS access's address is evaluated (``real_oracle``) for every thread id of the
work-group and for several trips round each loop, and must lie inside the byte range that
llnoalias claims for it. A range that is too small is a miscompile; this is the check that
catches one on code no generator of ours wrote.
"""

from __future__ import annotations

import re

import pytest

import llnoalias
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from tests.support.files import ROOT
from tests.support.real_oracle import check_ranges

pytestmark = pytest.mark.slow

CORPUS = ROOT / "fixtures" / "corpus" / "triton39"
KERNELS = ["matmul_64x64x32_gfx942.ll", "matmul_128x128x64_w8s2_gfx942.ll", "attn_fwd_gfx942.ll",
           "attn_fwd_gfx950.ll"]
_WG = re.compile(r'"amdgpu-flat-work-group-size"="\d+,(\d+)"')


@pytest.mark.parametrize("name", KERNELS)
def test_every_thread_lands_in_its_claimed_range(name: str) -> None:
    path = CORPUS / name
    text = path.read_text()
    m = _WG.search(text)
    assert m is not None, "the kernel states its work-group size"
    threads = int(m.group(1))
    report = llnoalias.annotate(text, lds="all", args="noalias", path=str(path)).report.as_dict()
    mod = parse_module(SourceFile(str(path), text))
    out = check_ranges(mod, report, "@global_smem", threads)
    assert not out.outside, "\n".join(out.outside[:20])
    # The oracle must have evaluated the accesses, not skipped them all.
    assert out.checked > 0 and out.checked >= out.skipped, out
