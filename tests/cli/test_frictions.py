"""A new user's third hour (design sections 7 and 8): each friction replayed through the command line
(in-process, as ``run_cli`` runs it), with what it must say instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.run import run_cli

KERNEL = """target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b, i32 %n) {
  %v = load i32, ptr addrspace(1) %a, align 4
  store i32 %v, ptr addrspace(1) %b, align 4
  ret void
}
"""

#: a producer scoped the LDS read and not the DMA, whose destination cannot be traced: one warning
#: per function (``@k0`` .. ``@kN`` with ``functions(N)``)
_WARN_FN = """
define amdgpu_kernel void @k{i}(ptr addrspace(8) %r, ptr addrspace(1) %q, ptr addrspace(1) %out, i32 %v) {{
entry:
  %d = load ptr addrspace(3), ptr addrspace(1) %q, align 4
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) %d, i32 4, i32 %v, i32 0, i32 0, i32 0)
  %x = load float, ptr addrspace(3) @A, align 4, !alias.scope !2
  store float %x, ptr addrspace(1) %out, align 4
  ret void
}}
"""


def warns(n: int = 1) -> str:
    return ('target triple = "amdgcn-amd-amdhsa"\n@A = external addrspace(3) global [0 x i8], align 16\n'
            + "".join(_WARN_FN.format(i=i) for i in range(n))
            + "\ndeclare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, "
              "i32, i32, i32)\n\n!0 = distinct !{!0, !\"producer\"}\n!1 = distinct !{!1, !0, !\"A\"}\n!2 = !{!1}\n")


# ------------------------------------------------------------------ 1. warnings whole, repeats capped


@pytest.mark.parametrize("quiet", [[], ["-q"]])
def test_a_warning_is_never_cut_at_a_colon_into_notes(tmp_path: Path, quiet: list[str]) -> None:
    (tmp_path / "k.ll").write_text(warns())
    res = run_cli(["annotate", str(tmp_path / "k.ll"), "--no-verify", "-o", "/dev/null", *quiet])
    assert res.exit_code == 0, res.stderr
    head = next(ln for ln in res.stderr.splitlines() if ": warning: " in ln)
    assert head.endswith("LDS-DMA without !alias.scope in a function whose LDS accesses carry alias metadata "
                         "(!alias.scope, !noalias or !tbaa): LLVM 21 and later put no vmcnt wait between them; "
                         "llnoalias cannot scope it (its LDS destination is not traced)"), head
    assert "note: LLVM 21" not in res.stderr and "note: llnoalias cannot" not in res.stderr


def test_repeated_warnings_are_capped_with_a_count(tmp_path: Path) -> None:
    from llnoalias.cli.run import MAX_ALIKE

    n = MAX_ALIKE + 7
    (tmp_path / "k.ll").write_text(warns(n))
    res = run_cli(["annotate", str(tmp_path / "k.ll"), "--no-verify", "-o", "/dev/null"])
    assert res.exit_code == 0, res.stderr
    assert res.stderr.count(": warning: LDS-DMA without") == MAX_ALIKE, res.stderr
    assert "k.ll: and 7 more warnings like it (--report FILE lists them all)" in res.stderr
    # -Werror counts every one of them
    werr = run_cli(["annotate", str(tmp_path / "k.ll"), "--no-verify", "-o", "/dev/null", "-Werror"])
    assert werr.exit_code == 2
    assert f"k.ll: {n} warnings treated as errors" in werr.stderr, werr.stderr


# ------------------------------------------------------------------ 2. one note; -q, -Werror, --report everywhere

#: pointer arguments not noalias and a static LDS tile: two hints
TWO_HINTS = """target triple = "amdgcn-amd-amdhsa"
@T = internal addrspace(3) global [64 x float] undef, align 16

define amdgpu_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, i32 %n) "target-cpu"="gfx942" {
  %v = load float, ptr addrspace(1) %a, align 4
  %p = getelementptr float, ptr addrspace(3) @T, i32 %n
  store float %v, ptr addrspace(3) %p, align 4
  %w = load float, ptr addrspace(3) @T, align 4
  store float %w, ptr addrspace(1) %b, align 4
  ret void
}
"""


@pytest.mark.parametrize("cmd", [["annotate"], ["compile"]])
def test_nothing_was_changed_is_said_once(tmp_path: Path, cmd: list[str]) -> None:
    (tmp_path / "k.ll").write_text(TWO_HINTS)
    res = run_cli([*cmd, str(tmp_path / "k.ll"), "--no-verify" if cmd == ["annotate"] else "--no-check",
                   "-o", str(tmp_path / "out")])
    assert res.exit_code == 0, res.stderr
    assert res.stderr.count("nothing was changed") == 1, res.stderr
    assert "--args noalias makes them roots" in res.stderr and "--lds all makes it one" in res.stderr


@pytest.mark.parametrize("cmd", [["compile"], ["stats"], ["check"]])
def test_quiet_werror_and_report_on_every_command(tmp_path: Path, cmd: list[str]) -> None:
    """``compile``, ``stats`` and ``check`` take ``-q``, ``-Werror`` and ``--report`` as annotate does."""
    import json

    pytest.importorskip("llvmlite")
    src = tmp_path / "k.ll"
    src.write_text(TWO_HINTS)
    out = ["-o", str(tmp_path / "k.s")] if cmd == ["compile"] else []
    loud = run_cli([*cmd, str(src), *out])
    assert loud.exit_code == 0 and "note:" in loud.stderr, loud.stderr
    quiet = run_cli([*cmd, str(src), *out, "-q"])
    assert quiet.exit_code == 0 and "note:" not in quiet.stderr, quiet.stderr
    report = tmp_path / "r.json"
    rep = run_cli([*cmd, str(src), *out, "--report", str(report)])
    assert rep.exit_code == 0, rep.stderr
    doc = json.loads(report.read_text())
    assert doc["schema"] == ("llnoalias.check/1" if cmd == ["check"] else "llnoalias.report/1")
    if cmd == ["check"]:
        return  # check does not annotate: its -Werror is tested on an empty input (friction 7)
    # a warning of annotating fails the run under -Werror, and nothing is written
    (tmp_path / "w.ll").write_text(warns())
    wout = ["-o", str(tmp_path / "w.s")] if cmd == ["compile"] else []
    werr = run_cli([*cmd, str(tmp_path / "w.ll"), *wout, "--mcpu", "gfx942", "-Werror"])
    assert werr.exit_code == 2, werr.stderr
    assert "error: LDS-DMA without !alias.scope" in werr.stderr and "warning:" not in werr.stderr
    assert "1 warning treated as error" in werr.stderr
    assert not (tmp_path / "w.s").exists()
    assert werr.stdout == b""


# ------------------------------------------------------------------ 3. compile takes one input


def test_compile_with_two_inputs_names_the_extra_one(tmp_path: Path) -> None:
    for name in ("a.ll", "b.ll"):
        (tmp_path / name).write_text(KERNEL)
    res = run_cli(["compile", str(tmp_path / "a.ll"), str(tmp_path / "b.ll"), "-o", str(tmp_path / "x.s")])
    assert res.exit_code == 2
    assert res.stderr == (f"llnoalias: error: compile takes one input; '{tmp_path / 'b.ll'}' is a second "
                          "(compile each on its own; arguments for --llc go after '--')\n")
    assert not (tmp_path / "x.s").exists()
    # what follows '--' still goes to llc
    ok = run_cli(["compile", str(tmp_path / "a.ll"), "-o", str(tmp_path / "x.s"), "--mcpu", "gfx942", "--",
                  "-O2"])
    assert "is a second" not in ok.stderr


# ------------------------------------------------------------------ 5. --repair then no "nothing was changed"


@pytest.mark.slow
@pytest.mark.parametrize("cmd", [["annotate"], ["compile"]])
def test_repair_is_not_followed_by_nothing_was_changed(tmp_path: Path, cmd: list[str]) -> None:
    from tests.support.files import ROOT

    pytest.importorskip("llvmlite")
    loop = ROOT / "fixtures" / "check" / "loop_refill_scoped_races.ll"
    res = run_cli([*cmd, "--repair", str(loop), "-o", str(tmp_path / "out")])
    assert res.exit_code == 0, res.stderr
    assert "--repair: line 15: removed !alias.scope !2, !noalias !5" in res.stderr
    assert "nothing was changed" not in res.stderr, res.stderr
    assert "the repair aside, llnoalias tagged nothing; 2 pointer arguments of @k are not noalias" in res.stderr


# ------------------------------------------------------------------ 7. empty input is said


@pytest.mark.parametrize("cmd", [["annotate"], ["compile"], ["check"], ["stats"], ["explain"]])
def test_empty_input_is_a_warning_that_werror_makes_fatal(tmp_path: Path, cmd: list[str]) -> None:
    empty = tmp_path / "e.ll"
    empty.write_text("")
    out = tmp_path / "out"
    out.write_text("kept\n")
    args = [*cmd, str(empty)] + (["-o", str(out)] if cmd in (["annotate"], ["compile"]) else [])
    if cmd == ["annotate"]:
        res = run_cli([*args, "--no-verify"])
        assert res.exit_code == 0, res.stderr
        assert res.stderr.startswith(f"llnoalias: warning: {empty} is empty\n"), res.stderr
        assert out.read_text() == ""  # an empty module, written as read
        out.write_text("kept\n")
    werr = run_cli([*args, "-Werror"])
    assert werr.exit_code == 2, werr.stderr
    assert werr.stderr.startswith(f"llnoalias: error: {empty} is empty\n"), werr.stderr
    assert out.read_text() == "kept\n"


def test_a_comment_only_module_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "c.ll").write_text("; just a comment\n")
    res = run_cli(["annotate", str(tmp_path / "c.ll"), "--no-verify", "-o", "/dev/null", "-Werror"])
    assert res.exit_code == 0 and "empty" not in res.stderr, res.stderr


# ------------------------------------------------------------------ 8. errors name the file; the CPU hint fits


@pytest.mark.parametrize("cmd", [["compile"], ["check"], ["stats"]])
@pytest.mark.parametrize("triple, said", [
    ("amdgcn-amd-amdhsa", "names no CPU"),
    ("x86_64-unknown-linux-gnu", "is not an AMDGPU (amdgcn-*) or NVPTX (nvptx64-*) target"),
])
def test_errors_about_the_target_name_the_file(tmp_path: Path, cmd: list[str], triple: str, said: str) -> None:
    src = tmp_path / "k.ll"
    src.write_text(KERNEL.replace("amdgcn-amd-amdhsa", triple))
    res = run_cli([*cmd, str(src)] + (["-o", str(tmp_path / "k.s")] if cmd == ["compile"] else []))
    assert res.exit_code == 2
    assert res.stderr.startswith(f"llnoalias: error: {src}: ") and said in res.stderr, res.stderr


#: a gfx1250 WMMA (16x16x4 f32: LLVM 22 selects it for gfx1250 alone)
WMMA_1250 = """target triple = "amdgcn-amd-amdhsa"

declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x4.f32.v8f32.v2f32(i1, <2 x float>, i1, <2 x float>, i16, <8 x float>, i1, i1)

define amdgpu_kernel void @k(ptr addrspace(1) %o) {
  %r = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x4.f32.v8f32.v2f32(i1 0, <2 x float> zeroinitializer, i1 0, <2 x float> zeroinitializer, i16 0, <8 x float> zeroinitializer, i1 0, i1 0)
  store <8 x float> %r, ptr addrspace(1) %o
  ret void
}
"""


#: a WMMA that RDNA 4 (gfx12) has
WMMA_12 = """target triple = "amdgcn-amd-amdhsa"

declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v8f16(<8 x half>, <8 x half>, <8 x float>)

define amdgpu_kernel void @k(ptr addrspace(1) %o) {
  %r = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v8f16(<8 x half> zeroinitializer, <8 x half> zeroinitializer, <8 x float> zeroinitializer)
  store <8 x float> %r, ptr addrspace(1) %o
  ret void
}
"""


@pytest.mark.parametrize("text, cpu, what", [
    (WMMA_1250, "gfx1250", "a WMMA of gfx1250"),
    (WMMA_12, "gfx1200", "a WMMA: an RDNA 3 or 4 GPU"),
])
def test_the_cpu_hint_comes_from_what_the_module_uses(text: str, cpu: str, what: str) -> None:
    from llnoalias.backends.target import detect
    from llnoalias.diagnostics import LLNoaliasError

    with pytest.raises(LLNoaliasError) as exc:
        detect(text)
    assert what in exc.value.message and exc.value.message.endswith(f"pass --mcpu (for example --mcpu={cpu})")
    assert "gfx942" not in exc.value.message


# ------------------------------------------------------------------ 9. the gate sees what disappeared


def test_gate_fails_when_a_baselined_file_or_function_is_gone_or_an_output_is_empty(tmp_path: Path) -> None:
    from tests.support.files import DATA

    a = tmp_path / "a.s"
    b = tmp_path / "b.ptx"
    a.write_text((DATA / "asm" / "gate_annotated.s").read_text())
    b.write_text((DATA / "asm" / "sm80_llc19.ptx").read_text())
    base = str(tmp_path / "base.json")
    assert run_cli(["gate", "--baseline", base, "--update", str(a), str(b)]).exit_code == 0
    assert run_cli(["gate", "--baseline", base, str(a), str(b)]).exit_code == 0
    # a file of the baseline not given: it fails, and says why
    res = run_cli(["gate", "--baseline", base, str(a)])
    assert res.exit_code == 1, res.stderr
    assert b"gate: FAILED, 1 file(s) of the baseline not given" in res.stdout, res.stdout
    assert run_cli(["gate", "--baseline", base, str(a), "--allow-missing"]).exit_code == 0
    # a function gone from a file
    text = b.read_text()
    first = text.index(".visible .entry")
    b.write_text(text[:first] + text[text.index(".visible .entry", first + 1):])
    res = run_cli(["gate", "--baseline", base, str(a), str(b)])
    assert res.exit_code == 1 and b"1 function(s) of the baseline are gone" in res.stdout, res.stdout
    assert run_cli(["gate", "--baseline", base, str(a), str(b), "--allow-missing"]).exit_code == 1
    # an empty output (the step that writes it failed): an error, also for --update
    b.write_text("")
    for extra in ([], ["--update"]):
        res = run_cli(["gate", "--baseline", base, str(a), str(b), *extra])
        assert res.exit_code == 2, res.stderr
        assert res.stderr == f"llnoalias: error: '{b}' is empty (did the step that writes it fail?)\n"


# ------------------------------------------------------------------ 10. explain and the batch summary agree


def test_explain_and_the_batch_summary_count_the_same_accesses(tmp_path: Path) -> None:
    import re

    from tests.support.files import ROOT

    src = ROOT / "fixtures" / "corpus" / "triton" / "amd_attn_gfx950_async.ll"
    batch = run_cli(["annotate", str(src), str(ROOT / "fixtures" / "check" / "loop_refill_scoped_races.ll"),
                     "--out-dir", str(tmp_path / "out"), "--no-verify", "-q"])
    assert batch.exit_code == 0, batch.stderr
    row = next(ln for ln in batch.stderr.splitlines() if ln.startswith(str(src)))
    tagged, untagged = (int(x) for x in row.split()[1:3])
    explained = run_cli(["explain", str(src), "-q"])
    said = explained.stdout.decode()
    m = re.search(r"none of its (\d+) access records? was tagged", said)
    assert m is not None, said
    assert (tagged, int(m.group(1))) == (0, untagged)
    assert f"total: {tagged} tagged, {untagged} untagged" in said
    # a module none of whose accesses reaches a root: 0 and 0 in the summary, and explain says why
    (tmp_path / "plain.ll").write_text(TWO_HINTS)
    batch = run_cli(["annotate", str(tmp_path / "plain.ll"), str(src), "--out-dir", str(tmp_path / "o2"),
                     "--no-verify", "-q"])
    row = next(ln for ln in batch.stderr.splitlines() if ln.startswith(str(tmp_path / "plain.ll")))
    assert row.split()[1:3] == ["0", "0"], batch.stderr
    said = run_cli(["explain", str(tmp_path / "plain.ll")]).stdout.decode()
    assert "none of its 4 memory accesses reaches a root (no access records), so nothing was tagged" in said, said


# ------------------------------------------------------------------ 4. how to get Triton, as it works


def test_nothing_offers_an_extra_of_a_package_pypi_does_not_have() -> None:
    """``pip install 'llnoalias[triton]'`` fails (llnoalias is not on PyPI): the README, the
    hook's ImportError, the scripts and the tests' skip reasons say ``pip install triton``."""
    from tests.support.files import ROOT

    said = []
    for folder in ("llnoalias", "scripts", "tests", "docs"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".md") and "install 'llnoalias[" in path.read_text(errors="replace"):
                said.append(str(path.relative_to(ROOT)))
    if "install 'llnoalias[" in (ROOT / "README.md").read_text():
        said.append("README.md")
    said = [p for p in said if p != "tests/cli/test_frictions.py" and p != "tests/test_triton_hook.py"]
    assert said == []
    assert "`pip install triton`" in (ROOT / "README.md").read_text()


# ------------------------------------------------------------------ shell completion (click's)


@pytest.mark.slow
def test_shell_completion_is_clicks() -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "_LLNOALIAS_COMPLETE": "bash_source"}
    src = subprocess.run([sys.executable, "-m", "llnoalias"], env=env, capture_output=True, text=True,
                         stdin=subprocess.PIPE, timeout=120)
    assert src.returncode == 0, src.stderr
    assert "_llnoalias_completion" in src.stdout and "complete " in src.stdout, src.stdout
    env = {**os.environ, "_LLNOALIAS_COMPLETE": "bash_complete", "COMP_WORDS": "llnoalias com", "COMP_CWORD": "1"}
    got = subprocess.run([sys.executable, "-m", "llnoalias"], env=env, capture_output=True, text=True,
                         stdin=subprocess.PIPE, timeout=120)
    assert "plain,compile" in got.stdout.splitlines(), got.stdout
    env["COMP_WORDS"], env["COMP_CWORD"] = "llnoalias compile --emi", "2"
    opts = subprocess.run([sys.executable, "-m", "llnoalias"], env=env, capture_output=True, text=True,
                          stdin=subprocess.PIPE, timeout=120)
    assert "plain,--emit" in opts.stdout.splitlines(), opts.stdout


# ------------------------------------------------------------------ the static tile's hint when other accesses were tagged


def test_a_skipped_static_tile_is_hinted_when_other_accesses_were_tagged(tmp_path: Path) -> None:
    (tmp_path / "k.ll").write_text(TWO_HINTS)
    res = run_cli(["annotate", str(tmp_path / "k.ll"), "--no-verify", "--args", "noalias", "-o", "/dev/null"])
    assert res.exit_code == 0, res.stderr
    notes = [ln for ln in res.stderr.splitlines() if ": note: " in ln]
    assert notes == [f"llnoalias: note: {tmp_path / 'k.ll'}: 1 sized (static) addrspace(3) global (@T) is not a "
                     "root; --lds all makes it one"], res.stderr
    res = run_cli(["annotate", str(tmp_path / "k.ll"), "--no-verify", "--args", "noalias", "--lds", "all",
                   "-o", "/dev/null"])
    assert "note:" not in res.stderr, res.stderr


# ------------------------------------------------------------------ Triton's NVIDIA modules: memory through inline asm


def test_memory_through_inline_asm_is_given_a_reason() -> None:
    import llnoalias
    from llnoalias import reasons
    from tests.support.files import ROOT

    src = ROOT / "fixtures" / "corpus" / "triton39" / "matmul_128x128x64_w8s2_sm80.ll"
    report = llnoalias.annotate(src.read_text(), args="noalias").report
    [said] = [n for n in report.notes if reasons.carried_code(n) == "inline-asm-memory"]
    assert said.startswith("24 inline asm statement(s) take pointer operands (cp.async.cg.shared.global, "
                           "st.global.v4.b32)"), said
    out = run_cli(["explain", str(src), "--args", "noalias"]).stdout.decode()
    assert out.splitlines()[-1] == f"note: {said}"
    # an asm without pointer operands (Triton's mma.sync) and a module without asm say nothing
    assert not any("inline asm" in n for n in llnoalias.annotate(KERNEL).report.notes)
    mma = KERNEL.replace("  ret void", '  %m = call i32 asm sideeffect "mov.u32 $0, 1;", "=r"()\n  ret void')
    assert not any("inline asm" in n for n in llnoalias.annotate(mma).report.notes)
