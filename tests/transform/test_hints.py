"""A note when a run tags nothing but a flag would have given it roots: plain
clang output has pointer arguments without ``noalias`` and static ``__shared__`` tiles, and
the defaults (``--args auto``, ``--lds dynamic``) tag none of it. The command line says so on
stderr when the run changed nothing (never when it tagged something), ``explain`` says why
and what to pass, and the API prints nothing but has the facts in ``report.hints``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import llnoalias
from tests.support.files import FIXTURES

pytestmark = pytest.mark.slow

CMD = [sys.executable, "-m", "llnoalias.cli"]
#: clang-19 CUDA, sm_80, four kernels and ten pointer arguments, none of them __restrict__
PLAIN = os.path.join(FIXTURES, "corpus", "restrict", "kernels_plain.ll")
#: clang-19 HIP, gfx942: some kernels tag under the defaults, others would with the flags
HIP_GEMM = os.path.join(FIXTURES, "corpus", "clang19", "hip_gemm_O3.ll")

#: a HIP-shaped kernel with a static LDS tile and pointer arguments without noalias
STATIC_TILE = """\
target triple = "amdgcn-amd-amdhsa"

@tile = internal addrspace(3) global [64 x float] undef, align 4

define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %src = getelementptr inbounds float, ptr addrspace(1) %in, i32 %t
  %v = load float, ptr addrspace(1) %src, align 4
  %slot = getelementptr inbounds [64 x float], ptr addrspace(3) @tile, i32 0, i32 %t
  store float %v, ptr addrspace(3) %slot, align 4
  %w = load float, ptr addrspace(3) @tile, align 4
  %dst = getelementptr inbounds float, ptr addrspace(1) %out, i32 %t
  store float %w, ptr addrspace(1) %dst, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
"""


def run(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, *args], capture_output=True, timeout=120, cwd=cwd)


def notes(stderr: bytes) -> list[str]:
    return [line for line in stderr.decode().splitlines() if line.startswith("llnoalias: note:")]


def test_a_run_that_changes_nothing_says_which_flag_would(tmp_path: Path) -> None:
    out = tmp_path / "out.ll"
    res = run(["--no-verify", PLAIN, "-o", str(out)])
    assert res.returncode == 0, res.stderr
    assert out.read_bytes() == Path(PLAIN).read_bytes()
    [note] = notes(res.stderr)
    assert note.startswith(f"llnoalias: note: {PLAIN}: nothing was changed; 10 pointer arguments of ")
    assert "--args noalias" in note and "static" not in note
    # with the flag it suggests, the run tags and the note is gone
    res = run(["--no-verify", PLAIN, "-o", str(out), "--args", "noalias"])
    assert res.returncode == 0 and notes(res.stderr) == [], res.stderr
    assert out.read_bytes() != Path(PLAIN).read_bytes()


def test_static_lds_and_arguments(tmp_path: Path) -> None:
    src = tmp_path / "tile.ll"
    src.write_text(STATIC_TILE)
    res = run(["--no-verify", str(src), "-o", str(tmp_path / "o.ll")])
    assert res.returncode == 0, res.stderr
    got = notes(res.stderr)
    assert len(got) == 1, got  # one note, both hints (it was once a note per hint)
    assert got[0].count("nothing was changed") == 1
    assert "2 pointer arguments of @k are not noalias in the input; --args noalias" in got[0]
    assert "; and 1 sized (static) addrspace(3) global (@tile) is not a root; --lds all makes it one" in got[0]
    # the tile alone tags nothing (its two accesses may overlap): the arguments' hint stays
    res = run(["--no-verify", str(src), "-o", str(tmp_path / "o.ll"), "--lds", "all"])
    assert [n.split("; ")[1] for n in notes(res.stderr)] == ["2 pointer arguments of @k are not noalias in the input"]
    res = run(["--no-verify", str(src), "-o", str(tmp_path / "o.ll"), "--lds", "all", "--args", "noalias"])
    assert notes(res.stderr) == [], res.stderr


def test_no_hint_where_a_flag_would_not_help() -> None:
    """One pointer argument alone has nothing to be told apart from; --args off and --lds
    off are the user's choice; a kernel that is already noalias is rooted."""
    one_arg = STATIC_TILE.replace("ptr addrspace(1) %out, ptr addrspace(1) %in", "ptr addrspace(1) %in") \
        .replace("%dst = getelementptr inbounds float, ptr addrspace(1) %out", "%dst = getelementptr inbounds float, "
                 "ptr addrspace(1) %in")
    assert [h.split(";")[1].strip() for h in llnoalias.annotate(one_arg).report.hints] == ["--lds all makes it one"]
    assert llnoalias.annotate(STATIC_TILE, args="off", lds="off").report.hints == []
    both = STATIC_TILE.replace("ptr addrspace(1) %out, ptr addrspace(1) %in",
                               "ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %in")
    assert all("--args" not in h for h in llnoalias.annotate(both).report.hints)


def test_only_the_static_tiles_note_when_the_run_tagged_something(tmp_path: Path) -> None:
    """hip_gemm_O3 has both (pointer arguments without noalias, static tiles), but some of
    its kernels tag under the defaults: no "nothing was changed" and no note about the
    arguments (a build would print it on every run), but the static tiles left out are said."""
    assert len(llnoalias.annotate(Path(HIP_GEMM).read_text()).report.hints) == 2  # the facts are there
    res = run(["--no-verify", HIP_GEMM, "-o", str(tmp_path / "o.ll")])
    got = notes(res.stderr)
    assert res.returncode == 0 and len(got) == 1, res.stderr
    assert "nothing was changed" not in got[0] and "--args noalias" not in got[0]
    assert "sized (static) addrspace(3) globals" in got[0] and got[0].endswith("--lds all makes them roots")


def test_the_api_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    result = llnoalias.annotate(Path(PLAIN).read_text(), path="k.ll")
    assert not result.changed
    assert capfd.readouterr() == ("", "")
    [hint] = result.report.hints
    assert hint.startswith("10 pointer arguments of @_Z5saxpyPfPKffi, ") and "and 1 more" in hint
    assert result.report.as_dict()["hints"] == [hint]
    # without a report the facts are kept all the same (the command line's plain run)
    assert llnoalias.annotate(Path(PLAIN).read_text(), report=False).report.hints == [hint]


def test_explain_says_why_and_what_to_pass() -> None:
    res = run(["explain", PLAIN])
    assert res.returncode == 0, res.stderr
    out = res.stdout.decode()
    assert out.startswith(f"{PLAIN}: none of its 15 memory accesses reaches a root (no access records), "
                          "so nothing was tagged, because with these options:\n")
    assert "no memory accesses that llnoalias could tag" not in out
    assert "--args noalias makes them roots" in out
    doc = json.loads(run(["explain", "--json", PLAIN]).stdout)
    assert len(doc["hints"]) == 1 and "--args noalias" in doc["hints"][0]
    # with the flag: the accesses and their scopes, and no hint
    out = run(["explain", "--args", "noalias", PLAIN]).stdout.decode()
    assert "tagged, scope" in out and "because with these options" not in out


def test_explain_with_nothing_to_suggest_keeps_its_message(tmp_path: Path) -> None:
    src = tmp_path / "k.ll"
    src.write_text("define void @f(ptr %p) {\n  store i32 0, ptr %p, align 4\n  ret void\n}\n")
    res = run(["explain", str(src)])
    assert res.stdout.decode() == f"{src}: no memory accesses that llnoalias could tag\n"


def test_compile_and_stats_say_it_too(tmp_path: Path) -> None:
    pytest.importorskip("llvmlite", reason="compile and stats generate code with llvmlite's LLVM")
    res = run(["compile", PLAIN, "-o", str(tmp_path / "k.ptx")])
    assert res.returncode == 0, res.stderr
    assert len(notes(res.stderr)) == 1 and "--args noalias" in notes(res.stderr)[0]
    res = run(["stats", PLAIN])
    assert res.returncode == 0, res.stderr
    assert len(notes(res.stderr)) == 1 and "--args noalias" in notes(res.stderr)[0]
    res = run(["compile", "--no-annotate", PLAIN, "-o", str(tmp_path / "k.ptx")])
    assert notes(res.stderr) == [], res.stderr
