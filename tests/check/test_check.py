"""``llnoalias check``: LDS-DMA races judged in the assembly (design section 4b).

The check is tested like the analysis: inputs that race by LLVM's own rules and their "no race"
twins, every wait a DMA needs deleted from the assembly and caught, the verdicts compared with
the project's independent straight-line simulator (``tests/support/vmcnt_sim.py``) on generated DMA
kernels, and the command line's exits, diagnostics and JSON."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.run import load_script

pytest.importorskip("llvmlite", reason="llvmlite's LLVM generates the code the check reads")

from llnoalias.check.checker import FORMAT, check_text, exact_functions, wave_size  # noqa: E402
from llnoalias.check.footprints import module_footprints  # noqa: E402
from llnoalias.check.judge import judge  # noqa: E402
from llnoalias.ir.parser import parse_module  # noqa: E402
from llnoalias.ir.source import SourceFile  # noqa: E402
from tests.support.files import ROOT
from tests.support.lds_dma import call_args

pytestmark = pytest.mark.slow

CHECK = ROOT / "fixtures" / "check"
DMA = ROOT / "fixtures" / "dma"

#: fixture -> whether LLVM 22 (llvmlite) compiles it to a race, with the lines of the race
RACES = {
    "tbaa_unscoped_dma_races.ll": (10, 9),
    "loop_refill_scoped_races.ll": (15, 18),
    "plain_read_waits.ll": None,
    "branch_join_scoped_waits.ll": None,
}


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "llnoalias", *args], capture_output=True, text=True,
                          input=stdin, cwd=ROOT)


@pytest.mark.parametrize("name", sorted(RACES))
def test_races_and_their_no_race_twins(name: str) -> None:
    path = CHECK / name
    res = check_text(path.read_text(), str(path))
    want = RACES[name]
    if want is None:
        assert res.clean, [r.to_json() for r in res.races]
        assert res.waits, "the twin's DMA is retired by a wait the check names"
    else:
        assert [(r.access.ir_line, r.dma.ir_line) for r in res.races] == [want]


def test_the_cli_error_is_at_the_access_with_a_note_at_the_dma() -> None:
    path = "fixtures/check/tbaa_unscoped_dma_races.ll"
    proc = _cli("check", path)
    assert proc.returncode == 1, proc.stderr
    err = proc.stderr
    assert f"llnoalias: {path}:10:3: error: LDS access may touch bytes [0, 4) of the dynamic LDS block" in err
    # the source line and a caret under its first character
    assert "\n  %x = load i32, ptr addrspace(3) @A, align 4, !tbaa !0\n  ^\n" in err
    assert f"llnoalias: {path}:9:3: note: the LDS-DMA" in err
    assert _cli("check", "fixtures/check/plain_read_waits.ll").returncode == 0


def test_bad_input_exits_2_with_a_located_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ll"
    bad.write_text("define void @f() {\n  %x = add i32 %nope, 1\n  ret void\n}\n")
    proc = _cli("check", str(bad))
    assert proc.returncode == 2
    assert re.search(r"bad\.ll:2:\d+: error: ", proc.stderr), proc.stderr


def test_json_has_the_schema_races_and_waits() -> None:
    proc = _cli("check", "--json", "fixtures/check/loop_refill_scoped_races.ll")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["schema"] == FORMAT
    assert doc["functions"][0]["name"] == "k" and doc["functions"][0]["dmas"] == 1
    race = doc["races"][0]
    assert race["function"] == "k" and race["dma"]["line"] == 18 and race["access"]["line"] == 15
    assert race["path"], "a race names the blocks of a path"
    plain = json.loads(_cli("check", "--json", "fixtures/check/plain_read_waits.ll").stdout)
    assert plain["races"] == []
    (wait,) = plain["waits"]
    assert wait["cause"] == "needed" and wait["needed_by"]["line"] == 9 and wait["retires"][0]["line"] == 8


def test_waits_lists_each_wait_with_its_cause() -> None:
    proc = _cli("check", "--waits", "fixtures/check/plain_read_waits.ll")
    assert proc.returncode == 0
    assert "vmcnt(0) in k: needed; retires fixtures/check/plain_read_waits.ll:8" in proc.stdout
    assert "\n1 vmcnt waits: 1 needed\n" in proc.stdout
    # the ideal count: the read of the DMA's bytes needs the wait as it is
    assert proc.stdout.rstrip().endswith("ideal: 0 stricter than needed, 0 needed by nothing (1 of 1 judged)")


def test_an_assembly_comment_is_no_wait_and_the_producers_wait_is() -> None:
    base = (CHECK / "tbaa_unscoped_dma_races.ll").read_text()
    call = "  call void asm sideeffect \"{}\", \"\"()\n"
    dma_line = next(ln for ln in base.splitlines() if "buffer.load.lds(" in ln)
    comment = base.replace(dma_line, dma_line + "\n" + call.format("; s_waitcnt vmcnt(0)").rstrip("\n"))
    res = check_text(comment, "comment.ll")
    assert not res.clean, "a comment that names a wait retires nothing"
    real = base.replace(dma_line, dma_line + "\n" + call.format("s_waitcnt vmcnt(0)").rstrip("\n"))
    res = check_text(real, "real.ll")
    assert res.clean
    assert [w.cause for w in res.waits] == ["producer"]


def _deleted_waits_are_caught(path: Path, mcpu: str) -> int:
    """Delete, one at a time, every wait the check says a DMA's bytes need; each deletion must
    show as a race at the access that needed it. Returns how many were deleted."""
    text = path.read_text()
    res = check_text(text, str(path), mcpu=mcpu, ideal=True)
    mod = parse_module(SourceFile(str(path), text))
    fps = module_footprints(mod)
    lines = res.asm.splitlines(keepends=True)
    n = 0
    for w in res.waits:
        # (a wait the ideal count finds needed by nothing is one the byte ranges only guessed at)
        if w.cause != "needed" or w.needed_by is None or w.loosest == 63:
            continue
        if not any(p.asm_text.endswith(" lds") or "load_lds" in p.asm_text for p in w.retires):
            continue
        cut = "".join(lines[:w.at.asm_line - 1] + lines[w.at.asm_line:])
        exact = exact_functions(mod, fps, wave_size(cut))
        got = judge(cut, fps, exact=exact)
        # caught: a race with its witness, or, where the DMA's bytes are not known, an unproven pair
        flagged = [r for v in got for r in v.races] + [u for v in got for u in v.unproven]
        assert any(r.access.ir_line == w.needed_by.ir_line for r in flagged), (path.name, w)
        n += 1
    return n


def test_a_deleted_wait_is_caught_in_every_dma_fixture() -> None:
    """(Where Triton is not installed, the fixtures only its LLVM compiles, gfx1250's tensor
    operations, are the located error that says so, and are left out.)"""
    from llnoalias.backends import triton_backend
    from llnoalias.backends.codegen import KEEPING_LLVM
    from llnoalias.diagnostics import LLNoaliasError

    total = 0
    for path in sorted(DMA.glob("*.ll")) + sorted(CHECK.glob("*.ll")):
        try:
            total += _deleted_waits_are_caught(path, "gfx942")
        except LLNoaliasError as e:
            if triton_backend.available() or KEEPING_LLVM not in str(e):
                raise
    assert total >= 6


@pytest.mark.parametrize("name", ["hip_lds_dma_O3.ll", "hip_lds_dma_O1.ll"])
def test_real_clang_output_deleted_waits_are_caught(name: str) -> None:
    assert _deleted_waits_are_caught(ROOT / "fixtures" / "corpus" / "clang19" / name, "gfx942") >= 1


@pytest.fixture(scope="module")
def dk():  # noqa: ANN201
    return load_script("dma_kernels")


def test_agrees_with_the_simulator_on_generated_kernels(dk) -> None:  # noqa: ANN001
    """The project's generated DMA kernels (straight-line, each access fenced so that the
    simulator maps LDS instructions one to one), as given and after llnoalias: every lost wait
    the simulator finds in an assembly is a race the check finds in the same assembly, and the
    check finds few the simulator does not (it does not split a DMA's bytes by wave)."""
    from llnoalias.api import annotate
    from llnoalias.options import AnnotateOptions
    from tests.support.vmcnt_sim import check_asm

    kernels = dk.generate_many(31, 10)
    missed: list[str] = []
    extra = judged = lost = 0
    for k in kernels:
        for opts in (None, AnnotateOptions(), AnnotateOptions(lds="all", args="noalias")):
            text = k.text if opts is None else annotate(k.text, path=f"{k.name}.ll", options=opts).text
            res = check_text(text, f"{k.name}.ll", mcpu=k.mcpu)
            sim = check_asm(res.asm, k.name, k.dmas, k.accesses)
            judged += 1
            lost += not sim.ok
            # the simulator replays one wave: compare the races within one wave
            one_wave = [r for r in res.races if not r.witness.get("between_waves")]
            assert all(r.witness for r in res.races), "every race has its witness"
            # a DMA at a pointer not traced has no witness: the check calls the pair unproven
            if not sim.ok and not one_wave and not res.unproven:
                missed.append(f"{k.name} {opts}: {sim.lost[0].message}")
            extra += sim.ok and bool(one_wave)
    assert not missed, "\n".join(missed)
    assert judged == 30
    assert extra <= judged // 5, f"{extra} of {judged} judged races the simulator does not see"


def test_explain_names_the_checks_verdict_per_function() -> None:
    proc = _cli("explain", "--check", "--mcpu", "gfx942", "fixtures/check/plain_read_waits.ll")
    assert proc.returncode == 0, proc.stderr
    assert "\n  check: clean: no LDS access runs while an LDS-DMA" in proc.stdout
    doc = json.loads(_cli("explain", "--check", "--json", "--mcpu", "gfx942",
                          "fixtures/check/plain_read_waits.ll").stdout)
    assert doc["functions"][0]["check"].startswith("clean")
    # without --check nothing is compiled and nothing is said
    assert "check" not in json.loads(_cli("explain", "--json", "fixtures/dma/window_no_claim.ll").stdout)["functions"][0]


def _dma_forms() -> list[tuple[object, str, int]]:
    from llnoalias.analysis.memory.intrinsics import LDS_DMA

    out = []
    for row in LDS_DMA:
        if not row.llvm22 or row.counter != "vmcnt":
            continue
        for name in row.names:
            if name.endswith(".p7"):
                continue
            for size in (4, 12, 16):
                out.append((row, name, size))
    return out


@pytest.mark.parametrize(("row", "name", "size"), _dma_forms(),
                         ids=lambda v: v.removeprefix("llvm.amdgcn.") if isinstance(v, str) else str(v)
                         if isinstance(v, int) else "")
def test_every_dma_form_and_size_on_gfx950(row, name: str, size: int) -> None:  # noqa: ANN001
    """The raw/struct buffer and global forms, 4-, 12- and 16-byte DMAs (gfx950). A read of lane
    0's element waits when it carries no metadata, and races with clang's !tbaa (LLVM 22 checks
    it against scoped DMAs only). A read of the last lane's element, outside lane 0's window that
    alias analysis is asked about, is moved above the DMA by LLVM 22's scheduler even without
    metadata: the footprint covers every lane at the DMA's stride, and the check says so."""

    call = call_args(row, name, "@A", size=size, offset=0)
    src_ty = row.signature.split(", ")[row.source]
    head = ('target triple = "amdgcn-amd-amdhsa"\n'
            "@A = external addrspace(3) global [0 x i8], align 1024\n")
    tail = (f"declare void @{name}({row.signature})\n"
            'attributes #0 = { "amdgpu-flat-work-group-size"="1,64" "target-cpu"="gfx950" }\n'
            '!0 = !{!1, !1, i64 0}\n!1 = !{!"int", !2, i64 0}\n!2 = !{!"tbaa root"}\n')

    def kernel(offset: int, md: str) -> str:
        return head + (f"define amdgpu_kernel void @k({src_ty} %src, ptr addrspace(1) %o) #0 {{\n"
                       f"  call void @{name}({call})\n"
                       f"  %p = getelementptr i8, ptr addrspace(3) @A, i32 {offset}\n"
                       f"  %x = load i32, ptr addrspace(3) %p, align 4{md}\n"
                       "  store i32 %x, ptr addrspace(1) %o, align 4\n  ret void\n}\n") + tail

    plain = check_text(kernel(0, ""), "k.ll")
    assert plain.clean and sum(f.dmas for f in plain.functions) == 1, [r.to_json() for r in plain.races]
    racing = check_text(kernel(0, ", !tbaa !0"), "k.ll")
    assert [(r.access.ir_line, r.moved) for r in racing.races] == [(6, False)], racing.asm
    stride = 16 if size > 4 else 4
    last = check_text(kernel(63 * stride, ""), "k.ll")
    if size == 12:
        # whether lane 63's 12 bytes start at 63 * 12 or 63 * 16 is not known: unproven, no witness
        assert not last.races and [u.access.ir_line for u in last.unproven] == [6], last.asm
    else:
        assert [(r.access.ir_line, r.moved) for r in last.races] == [(6, True)], last.asm
        assert last.races[0].witness["dma_lane"] == 63 and last.races[0].witness["byte"] == 63 * stride
    # one byte past the wave's footprint: nothing to meet, wherever it is scheduled
    assert check_text(kernel(64 * stride, ""), "k.ll").clean


def test_the_located_copy_compiles_to_the_same_instructions_on_flydsls_gemm() -> None:
    """Debug locations must not change the code judged: on FlyDSL's fp8 GEMM (LDS-DMA, static
    LDS, its own inline waits) the located copy and the module compile to the same instructions."""
    import gzip

    path = ROOT / "fixtures" / "corpus" / "flydsl" / "fp8_gemm_4wave_gfx950_k512.ll.gz"
    res = check_text(gzip.decompress(path.read_bytes()).decode(), path.name, compare_plain=True)
    assert res.same_instructions is True, res.difference
    assert res.clean and sum(f.dmas for f in res.functions) == 64
    assert {w.cause for w in res.waits} >= {"producer"}, "FlyDSL's own inline s_waitcnt are its waits"
