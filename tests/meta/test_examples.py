"""The README's CUDA and HIP recipes, run as written: Debian's clang-19 alone, no
CUDA or ROCm install, the examples in ``examples/``, and ``llnoalias stats`` before and after.
The PTX store counter sees what ``--args noalias`` does to the accumulation loop."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.files import ROOT

CLANG = shutil.which("clang-19")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CLANG is None, reason="clang-19 is not installed (apt-get install clang-19)")]
CMD = [sys.executable, "-m", "llnoalias.cli"]
EXAMPLES = Path(ROOT) / "examples"
#: the README's flags; --cuda-path/--rocm-path pointing nowhere stand for a machine without
#: CUDA or ROCm (this one may have nvcc installed)
CUDA = ["-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_80",
        "-Wno-unknown-cuda-version", "-O3", "-S", "-emit-llvm", "--cuda-path=/nonexistent"]
HIP = ["-x", "hip", "--cuda-device-only", "-nogpulib", "-nogpuinc", "--offload-arch=gfx942", "-O3", "-S",
       "-emit-llvm", "--rocm-path=/nonexistent"]


def clang(flags: list[str], src: Path, out: Path) -> None:
    assert CLANG is not None
    proc = subprocess.run([CLANG, *flags, str(src), "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", proc.stderr  # no warning either


def llnoalias(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, *args], capture_output=True, text=True, timeout=300)


def stats_total(path: Path, *options: str) -> dict[str, tuple[int, int]]:
    pytest.importorskip("llvmlite", reason="stats generates code with llvmlite's LLVM")
    res = llnoalias("stats", "--json", str(path), *options)
    assert res.returncode == 0, res.stderr
    total = json.loads(res.stdout)["diff"]["total"]
    return {k: (v["a"], v["b"]) for k, v in total.items()}


def test_the_examples_are_short() -> None:
    for name in ("accum.cu", "scale.hip"):
        assert len((EXAMPLES / name).read_text().splitlines()) <= 25
    readme = (Path(ROOT) / "README.md").read_text()
    assert "-nocudainc -nocudalib --cuda-gpu-arch=sm_80" in readme and "examples/accum.cu" in readme
    assert "-nogpulib -nogpuinc --offload-arch=gfx942" in readme and "examples/scale.hip" in readme


def test_cuda_recipe_accumulation_loop_stores(tmp_path: Path) -> None:
    ll = tmp_path / "accum.ll"
    clang(CUDA, EXAMPLES / "accum.cu", ll)
    res = llnoalias(str(ll), "-o", str(tmp_path / "out.ll"))
    assert res.returncode == 0 and "--args noalias makes them roots" in res.stderr, res.stderr
    counts = stats_total(ll, "--args", "noalias")
    # out[i] is no longer stored every iteration (5 -> 2 with llvmlite 0.50's LLVM)
    assert counts["st.global"][1] < counts["st.global"][0]
    assert counts["ld.global.nc"][0] == 0 < counts["ld.global.nc"][1]
    assert counts["st.shared"] == counts["ld.local"] == counts["st.local"] == (0, 0)
    # without the flag the two builds are the same
    assert all(a == b for a, b in stats_total(ll).values())


def test_hip_recipe_waits(tmp_path: Path) -> None:
    ll = tmp_path / "scale.ll"
    clang(HIP, EXAMPLES / "scale.hip", ll)
    res = llnoalias("explain", str(ll))
    assert res.returncode == 0, res.stderr
    assert "none of its" in res.stdout and "--args noalias" in res.stdout and "--lds all" in res.stdout
    counts = stats_total(ll, "--args", "noalias")
    # each load of `in` no longer waits for the store to `out` before it (5 -> 2)
    assert counts["vmcnt_zero"][1] < counts["vmcnt_zero"][0]
    assert counts["waits"][1] <= counts["waits"][0]
