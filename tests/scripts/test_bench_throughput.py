"""scripts/bench_throughput.py: repeating -g modules, the LLVM 19 copy that only opt reads,
and llnoalias reading the module itself (no timing here; small modules only)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.files import ROOT
from tests.support.run import load_script, run_cli

SCRIPT = ROOT / "scripts" / "bench_throughput.py"
CORPUS = ROOT / "fixtures" / "corpus"
MATMUL = CORPUS / "triton39" / "matmul_128x128x64_w8s2_gfx942.ll"
ATTN = CORPUS / "triton39" / "attn_fwd_gfx942.ll"
HIP_G = CORPUS / "clang19" / "hip_gemm_O3_g.ll"  # #dbg_value records and !dbg on globals

OPT = shutil.which("opt-19")
needs_opt = pytest.mark.skipif(OPT is None, reason="opt-19 is not installed (apt-get install llvm-19)")


bench = load_script("bench_throughput")


def _function_lines(text: str) -> list[str]:
    """The lines of the function definitions (define line to closing brace)."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("define "):
            inside = True
        if inside:
            out.append(line)
        if line == "}":
            inside = False
    return out


def _defines(text: str) -> int:
    return len(re.findall(r"^define ", text, re.M))


@pytest.mark.parametrize("path", [MATMUL, ATTN, HIP_G], ids=lambda p: p.name)
def test_repeated_functions_lose_their_debug_info(path: Path) -> None:
    source = path.read_text()
    assert "!dbg !" in "\n".join(_function_lines(source))  # the fixture is built with -g
    one = bench.replicate(str(path), 1)
    assert one.copies == 1 and one.dbg_attachments > 0
    body = "\n".join(_function_lines(one.text))
    assert "!dbg" not in body
    assert "#dbg_" not in one.text
    assert _defines(one.text) == _defines(source)
    if path == HIP_G:
        assert one.dbg_records == source.count("#dbg_")
    # more copies: each one renamed, none with debug info
    more = bench.replicate(str(path), 3 * source.count("\n"))
    assert more.copies > 1
    assert _defines(more.text) == more.copies * _defines(source)
    assert "!dbg" not in "\n".join(_function_lines(more.text))


@needs_opt
def test_stripped_clang_module_verifies(tmp_path: Path) -> None:
    ll = tmp_path / "r.ll"
    ll.write_text(bench.replicate(str(HIP_G), 3 * HIP_G.read_text().count("\n")).text)
    assert bench.opt_error(OPT, str(ll)) is None


@needs_opt
@pytest.mark.parametrize("path", [MATMUL, ATTN], ids=lambda p: p.name)
def test_reference_copy_of_triton_output_verifies(path: Path, tmp_path: Path) -> None:
    text = bench.replicate(str(path), 2 * path.read_text().count("\n")).text
    files = bench.write_module(text, str(tmp_path))
    names = [name for name, _ in files.rewrites]
    assert "amdgpu-versioned-triple" in names and "captures-attribute" in names
    assert files.reference != files.module
    assert bench.opt_error(OPT, files.module) is not None  # LLVM 22 syntax: opt-19 needs the copy
    assert bench.opt_error(OPT, files.reference) is None


def _annotate(cmd: list[str]) -> bytes:
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return Path(cmd[cmd.index("-o") + 1]).read_bytes()


@pytest.mark.slow
def test_llnoalias_reads_the_module_not_the_reference_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = bench.replicate(str(MATMUL), 1).text
    with_copy = bench.write_module(text, str(tmp_path), "a")
    assert with_copy.rewrites and Path(with_copy.module).read_text() == text
    out_with = _annotate(bench.llnoalias_cmd(with_copy, str(tmp_path / "a.out.ll")))
    assert b"!alias.scope" in out_with

    monkeypatch.setattr(bench, "reference_copy", lambda t: (t, []))
    without = bench.write_module(text, str(tmp_path), "b")
    assert without.reference == without.module and not without.rewrites
    out_without = _annotate(bench.llnoalias_cmd(without, str(tmp_path / "b.out.ll")))
    assert out_with == out_without

    # the test can tell: llnoalias on the copy writes other text (byte-preserving output)
    on_copy = bench.Files(with_copy.reference, with_copy.reference, [])
    assert _annotate(bench.llnoalias_cmd(on_copy, str(tmp_path / "c.out.ll"))) != out_with


@needs_opt
def test_no_ratio_when_opt_cannot_read_even_the_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Triton 3.9's make.buffer.rsrc.p8.p1 takes an i64 length, LLVM 19's an i32: no rewrite here
    text = bench.replicate(str(CORPUS / "triton39" / "softmax_gfx942.ll"), 1).text
    m = bench.measure(text, str(tmp_path), 1, OPT, compiled=False)
    assert m.ref is None and m.no_reference and "Intrinsic has incorrect argument type" in m.no_reference
    bench.report(m, OPT)
    out = capsys.readouterr().out
    assert "no reference" in out and "ratio" not in out
    assert "reference copy for opt" in out  # which rewrites it tried


def test_suite_modules_exist() -> None:
    for source in bench.SUITE:
        assert source is None or os.path.exists(ROOT / source), source


def test_against_runs_the_other_checkouts_llnoalias(tmp_path: Path) -> None:
    # this checkout as its own "before": the row is timed beside the others, and its command
    # is the other checkout's console script, given the same arguments
    if not (ROOT / ".venv" / "bin" / "llnoalias").exists():
        pytest.skip("no .venv in this checkout (make install): --against needs one")
    m = bench.measure(bench.build_small(3), str(tmp_path), 1, None, compiled=False, against=str(ROOT))
    before = m.runs[bench.BEFORE]
    assert before is not None and before.wall > 0 and before.rss > 0
    files = bench.Files(str(tmp_path / "big.ll"), str(tmp_path / "big.ll"), [])
    cmd = bench.against_cmd(str(ROOT), bench.llnoalias_cmd(files, "out.ll", 1))
    assert cmd[0] == str(ROOT / ".venv" / "bin" / "llnoalias") and cmd[1:] == [files.module, "--no-verify", "-o",
                                                                               "out.ll", "-j", "1"]
    with pytest.raises(SystemExit, match="make install"):
        bench.against_cmd(str(tmp_path), cmd)


def test_varied_small_kernels_differ_and_are_all_tagged(tmp_path: Path) -> None:
    # --varied: no two kernels spelled alike, each one still a kernel of loads
    # and stores through noalias arguments that llnoalias tags (so the module times the same
    # work as the identical kernels, without their repeated spellings)
    text = bench.build_small(30, varied=True)
    kernels = re.findall(r"^define .*?^}$", text, re.M | re.S)
    assert len(kernels) == 30
    bodies = [re.sub(r"@\w+", "@k", k) for k in kernels]
    assert all(a != b for a, b in zip(bodies[:-1], bodies[1:], strict=True))
    assert len(set(bodies)) == 30
    src = tmp_path / "v.ll"
    src.write_text(text)
    out = tmp_path / "o.ll"
    assert run_cli([str(src), "-o", str(out), "--no-verify"]).exit_code == 0
    result = out.read_text()
    accesses = len(re.findall(r"^\s+(?:%\w+ = load|store) ", text, re.M))
    assert result.count("!alias.scope !") == accesses
    if OPT is not None:
        subprocess.run([OPT, "-passes=verify", "-disable-output", str(src)], check=True)


def test_rich_kernels_differ_verify_and_are_tagged(tmp_path: Path) -> None:
    # --rich: kernels of a translation unit's shape (a loop through LDS between barriers), no
    # two alike but for their names, which LLVM reads and llnoalias annotates (the arguments'
    # accesses tagged in their kernels' domains)
    text = bench.build_rich(24)
    kernels = re.findall(r"^define .*?^}$", text, re.M | re.S)
    assert len(kernels) == 24
    bodies = [re.sub(r"@\w+|%(?:in|out)\d+(?:_\d+)?", "N", k) for k in kernels]
    assert len(set(bodies)) == 24
    assert all("@llvm.amdgcn.s.barrier()" in k and "phi " in k for k in kernels)
    src = tmp_path / "r.ll"
    src.write_text(text)
    out = tmp_path / "o.ll"
    assert run_cli([str(src), "-o", str(out), "--no-verify"]).exit_code == 0
    result = out.read_text()
    domains = set(re.findall(r'!"llnoalias\.args\.(\w+)"', result))
    # (a domain of fewer than two scopes makes no claim: a kernel needs two noalias arguments)
    claimed = {m.group(1) for k in kernels if (m := re.match(r"define [^@]*@(\w+)\((.*)\)", k))
               and m.group(2).count("noalias") >= 2}
    assert domains == claimed and len(claimed) > 12
    if OPT is not None:
        subprocess.run([OPT, "-passes=verify", "-disable-output", str(src)], check=True)
