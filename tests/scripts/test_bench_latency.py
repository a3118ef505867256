"""scripts/bench_latency.py and bench_throughput.py's command lines: llc generates code for
what the file was compiled for, and llnoalias gets the options it is measured with (no
timing here)."""

from __future__ import annotations

from pathlib import Path

from tests.support.files import ROOT
from tests.support.run import load_script

CORPUS = ROOT / "fixtures" / "corpus"

latency = load_script("bench_latency")
throughput = load_script("bench_throughput")


def test_llc_target_of_a_hip_module() -> None:
    flags = latency.llc_target((CORPUS / "clang19" / "hip_gemm_O3.ll").read_text())
    assert flags == ["-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx942"]


def test_llc_target_reads_the_versioned_triple_as_amdgcn() -> None:
    flags = latency.llc_target((CORPUS / "triton39" / "matmul_128x128x64_w8s2_gfx942.ll").read_text())
    assert flags[0] == "-mtriple=amdgcn-amd-amdhsa" and flags[1] == "-mcpu=gfx942"


def test_llc_target_of_a_cuda_module() -> None:
    flags = latency.llc_target((CORPUS / "clang19" / "cuda_gemm_O3.ll").read_text())
    assert flags[0] == "-mtriple=nvptx64-nvidia-cuda" and flags[1].startswith("-mcpu=sm_")


def test_llc_target_without_triple_or_cpu() -> None:
    assert latency.llc_target("define void @f() {\n  ret void\n}\n") == []


def test_latency_rows_per_option_set(tmp_path: Path) -> None:
    cmds = latency.commands(["llc-19"], ["", "--lds all"], "in.ll", str(tmp_path), installed=False)
    assert list(cmds)[0] == "llc -O3"
    assert cmds["llnoalias --lds all --no-verify"][-6:] == ["--lds", "all", "--no-verify", "in.ll", "-o",
                                                           str(tmp_path / "out.ll")]
    verified = cmds["llnoalias --lds all (verified)"]
    assert "--no-verify" not in verified and verified[-5:-3] == ["--lds", "all"]
    assert "--lds" not in cmds["llnoalias (verified)"]


def test_throughput_command_takes_options_and_verification() -> None:
    files = throughput.Files("m.ll", "m.ll", [])
    plain = throughput.llnoalias_cmd(files, "o.ll")
    assert "--no-verify" in plain and "--lds" not in plain and "-j" not in plain
    cmd = throughput.llnoalias_cmd(files, "o.ll", jobs=1, opts="--lds all", verify=True)
    assert "--no-verify" not in cmd
    assert cmd[cmd.index("--lds") + 1] == "all" and cmd[cmd.index("-j") + 1] == "1"
