"""scripts/bench_corpus.py: every corpus module (plain and gzipped) under each option set,
its output's digest as annotate gives it, and the sums per folder (no timing here)."""

from __future__ import annotations

import gzip
import hashlib
import shutil
from pathlib import Path

import llnoalias
from tests.support.files import ROOT
from tests.support.run import load_script

bench = load_script("bench_corpus")
HIP = ROOT / "fixtures" / "corpus" / "clang19" / "hip_gemm_O3.ll"


def test_each_module_and_option_set_is_measured_with_its_output_digest(tmp_path: Path) -> None:
    corpus = tmp_path / "fixtures" / "corpus"
    (corpus / "a").mkdir(parents=True)
    (corpus / "b").mkdir()
    shutil.copy(HIP, corpus / "a" / "hip.ll")
    with gzip.open(corpus / "b" / "hip.ll.gz", "wb") as fh:
        fh.write(HIP.read_bytes())
    got = bench.measure(str(tmp_path), 1)
    assert sorted(got) == ["a/hip.ll [all]", "a/hip.ll [default]", "b/hip.ll.gz [all]", "b/hip.ll.gz [default]"]
    want = llnoalias.annotate(HIP.read_text(), path="hip.ll", lds="all", args="noalias").text
    assert got["a/hip.ll [all]"][0] == hashlib.sha256(want.encode()).hexdigest()[:16]
    assert got["a/hip.ll [all]"][0] == got["b/hip.ll.gz [all]"][0]
    assert all(seconds > 0 for _, seconds in got.values())
    sums = bench._folders(got)
    assert set(sums) == {("a", "all"), ("a", "default"), ("b", "all"), ("b", "default")}
