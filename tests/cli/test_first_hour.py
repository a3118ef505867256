"""A new user's first hour: the command line's frictions, each pinned.

Help that shows annotate's options, llc's spellings on ``compile``, errors instead of
silence for bad values, what ``--version`` says, plain text off a terminal, the report's
JSON, chained errors as one ``error:`` and ``note:`` lines, a quiet license field."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.files import ROOT

pytestmark = pytest.mark.slow

# ------------------------------------------------------------------ packaging


def test_license_is_an_spdx_string_setuptools_takes_quietly() -> None:
    """setuptools >= 77 warns (a box, four times per install) about a ``license`` table;
    an SPDX string needs setuptools >= 77 at build time."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["project"]["license"] == "Apache-2.0"
    req = [r for r in data["build-system"]["requires"] if r.startswith("setuptools")]
    assert req == ["setuptools>=77"]
    assert sys.version_info >= (3, 11)


# ------------------------------------------------------------------ the report's JSON

KERNEL = """target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b, i32 %n) {
  %v = load i32, ptr addrspace(1) %a, align 4
  store i32 %v, ptr addrspace(1) %b, align 4
  ret void
}
"""


def test_report_to_json_is_text_and_as_dict_the_same_document(tmp_path: Path) -> None:
    import json

    import llnoalias
    from llnoalias.cli.entry import main

    report = llnoalias.annotate(KERNEL, path="k.ll").report
    text = report.to_json()
    assert isinstance(text, str)
    doc = report.as_dict()
    assert isinstance(doc, dict) and doc["schema"] == "llnoalias.report/1"
    assert json.loads(text) == doc and doc["summary"]["tagged"] == 2
    # --report writes exactly that text
    src = tmp_path / "k.ll"
    src.write_text(KERNEL)
    text = llnoalias.annotate(KERNEL, path=str(src)).report.to_json()
    with pytest.raises(SystemExit) as done:
        main([str(src), "--no-verify", "-o", str(tmp_path / "out.ll"), "--report", str(tmp_path / "r.json")])
    assert not done.value.code
    assert (tmp_path / "r.json").read_text() == text + "\n"


# ------------------------------------------------------------------ errors, not silence

CMD = [sys.executable, "-m", "llnoalias.cli"]


def _run(args: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, *args], capture_output=True, text=True, timeout=300, **kw)


AMD_GFX942 = KERNEL.replace("i32 %n) {", "i32 %n) #0 {") + 'attributes #0 = { "target-cpu"="gfx942" }\n'


def test_unknown_cpu_is_an_error_with_the_close_names(tmp_path: Path) -> None:
    src = tmp_path / "k.ll"
    src.write_text(AMD_GFX942)
    out = tmp_path / "k.s"
    res = _run(["compile", str(src), "--mcpu", "gfx9999", "-o", str(out)])
    assert res.returncode == 2, res.stderr
    lines = res.stderr.splitlines()
    assert lines[0].startswith(f"llnoalias: error: {src}: 'gfx9999' is not a CPU llvmlite")  # the input named
    assert "amdgcn-amd-amdhsa" in lines[0]
    assert lines[1].startswith("llnoalias: note: did you mean ") and "gfx909" in lines[1]
    assert "not a recognized processor" not in res.stderr  # LLVM's warning became the error
    assert not out.exists()
    # the no-error side: a CPU LLVM knows generates code for it
    ok = _run(["compile", str(src), "--mcpu", "gfx90a", "-o", str(out)])
    assert ok.returncode == 0, ok.stderr
    assert "gfx90a" in out.read_text() and "error" not in ok.stderr


def test_unknown_nvptx_cpu_is_an_error(tmp_path: Path) -> None:
    src = tmp_path / "k.ll"
    src.write_text('target triple = "nvptx64-nvidia-cuda"\n\ndefine ptx_kernel void @k(ptr addrspace(1) %p) {\n'
                   "  store float 1.0, ptr addrspace(1) %p, align 4\n  ret void\n}\n")
    res = _run(["compile", str(src), "--mcpu", "sm_999", "-o", str(tmp_path / "k.ptx")])
    assert res.returncode == 2 and "k.ll: 'sm_999' is not a CPU" in res.stderr, res.stderr
    assert not (tmp_path / "k.ptx").exists()


def test_unknown_cpu_for_an_external_llc(tmp_path: Path) -> None:
    llc = shutil.which("llc-19")
    if llc is None:
        pytest.skip("llc-19 is not installed (apt-get install llvm-19)")
    src = tmp_path / "k.ll"
    src.write_text(AMD_GFX942)
    res = _run(["compile", str(src), "--llc", llc, "--mcpu", "gfx9999", "-o", str(tmp_path / "k.s")])
    assert res.returncode == 2, res.stderr
    assert f"k.ll: 'gfx9999' is not a CPU {llc} knows for amdgcn-amd-amdhsa" in res.stderr
    assert f"'{llc} -mtriple=amdgcn-amd-amdhsa -mcpu=help' lists them" in res.stderr
    assert not (tmp_path / "k.s").exists()


def test_cpu_help_lists_are_read() -> None:
    from llnoalias.backends.cpus import close_names, parse_cpu_help, unknown_cpu

    text = ("Available CPUs for this target:\n\n  gfx90a  - Select the gfx90a processor.\n"
            "  gfx942  - Select the gfx942 processor.\n\nAvailable features for this target:\n\n"
            "  xnack   - Enable XNACK support.\n")
    assert parse_cpu_help(text) == ["gfx90a", "gfx942"]
    assert unknown_cpu("'gfx9999' is not a recognized processor for this target (ignoring processor)\n") == "gfx9999"
    assert unknown_cpu("warning: something else\n") is None
    assert close_names("gfx943", ["gfx942", "gfx90a", "tahiti"])[0] == "gfx942"
    assert close_names("zzz", ["gfx942"]) == []


FIVE = """target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, ptr addrspace(1) %d, i32 %n) {
  %v = load i32, ptr addrspace(1) %a, align 4
  store i32 %v, ptr addrspace(1) %b, align 4
  ret void
}
"""
TWO = """
define amdgpu_kernel void @k2(ptr addrspace(1) %a, ptr addrspace(1) %b) {
  %v = load i32, ptr addrspace(1) %a, align 4
  store i32 %v, ptr addrspace(1) %b, align 4
  ret void
}
"""


def test_may_alias_with_kernels_of_different_arity() -> None:
    """A group applies to each kernel whose arguments it names; only an index that no
    kernel has is an error."""
    import llnoalias

    both = FIVE + TWO
    res = llnoalias.annotate(both, args="noalias", may_alias=["0,3"])
    assert res.changed
    k2 = [a for a in res.report.args if a.kernel == "@k2"]
    assert [a.index for a in k2 if a.rooted] == [0, 1]  # index 3 is not @k2's: its group is @k's only
    with pytest.raises(llnoalias.LLNoaliasError, match=r"names argument 5, but no kernel has that many arguments"):
        llnoalias.annotate(both, args="noalias", may_alias=["0,5"])
    # no kernel at all: no argument roots and nothing to check
    llnoalias.annotate('define void @f(ptr %p) {\n  ret void\n}\n', may_alias=["0,7"])


def test_stats_on_a_c_file_is_an_error(tmp_path: Path) -> None:
    prog = tmp_path / "prog.c"
    prog.write_text('#include <stdio.h>\nint main(void) {\n out:\n  printf("hi\\n");\n  return 0;\n}\n')
    res = _run(["stats", str(prog)])
    assert res.returncode == 2
    assert res.stderr.startswith(f"llnoalias: error: '{prog}' is neither AMDGPU assembly"), res.stderr
    gate = _run(["gate", "--baseline", str(tmp_path / "b.json"), "--update", str(prog)])
    assert gate.returncode == 2 and not (tmp_path / "b.json").exists()
    # assembly with no functions is still read (a warning, exit 0)
    empty = tmp_path / "e.s"
    empty.write_text("\t.text\n")
    res = _run(["stats", str(empty)])
    assert res.returncode == 0 and "no functions found" in res.stderr


# ------------------------------------------------------------------ one error, a note per tool


def test_an_error_with_notes_is_one_line_each() -> None:
    from llnoalias.diagnostics import LLNoaliasError, first_line

    text = LLNoaliasError("no code generator could take the module", notes=["a: x\n  y", "b: z"]).format()
    assert text == ("llnoalias: error: no code generator could take the module\n"
                    "llnoalias: note: a: x y\nllnoalias: note: b: z\n")
    said = "/usr/bin/llc-19: error: /usr/bin/llc-19: <stdin>:3:63: error: expected value token\nnext\n"
    assert first_line(said, "/usr/bin/llc-19") == "<stdin>:3:63: error: expected value token"


# ------------------------------------------------------------------ help, llc spellings, versions

BOX = set("┏┓┗┛┃━│─┡┩╇┼├┤└┘┌┐╭╮╰╯")


def test_top_level_help_shows_annotates_options_and_every_command() -> None:
    res = _run(["--help"])
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "Usage: llnoalias [annotate] [OPTIONS] [IN...]" in out
    for option in ("--lds", "--args", "--may-alias", "--regions", "-o, --output", "--stats", "--report",
                   "--remarks", "--no-verify", "--out-dir", "-j, --jobs", "--version"):
        assert option in out, option
    for command in ("annotate", "compile", "explain", "gate", "stats"):
        assert f"\n  {command} " in out, command


def test_the_plain_command_line_keeps_its_fast_path() -> None:
    from llnoalias.cli.entry import parse_fast

    assert parse_fast(["k.ll", "-o", "out.ll", "--lds", "all"], stdin_is_pipe=False) is not None
    for argv in (["--help"], ["--version"], ["compile", "k.ll", "-mcpu=gfx942"]):
        assert parse_fast(argv, stdin_is_pipe=False) is None


def _fake_llc(tmp_path: Path) -> Path:
    """An llc that writes its own command line as the output (``-o OUT`` is in it)."""
    fake = tmp_path / "fake-llc"
    fake.write_text('#!/bin/sh\nout=""; all="$*"; while [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then out="$2"; fi; '
                    'shift; done\necho "$all" > "$out"\n')
    fake.chmod(0o755)
    return fake


@pytest.mark.parametrize("spelling", [
    ["-mcpu=gfx90a", "-mtriple=amdgcn-amd-amdhsa", "-filetype=obj", "-O2"],
    ["-mcpu", "gfx90a", "-mtriple", "amdgcn-amd-amdhsa", "-filetype", "obj", "-O", "2"],
    ["--mcpu=gfx90a", "--triple=amdgcn-amd-amdhsa", "--emit=obj", "-O2"],
])
def test_compile_takes_llcs_spellings(tmp_path: Path, spelling: list[str]) -> None:
    src = tmp_path / "k.ll"
    src.write_text(AMD_GFX942)
    out = tmp_path / "k.out"
    res = _run(["compile", str(src), "--llc", str(_fake_llc(tmp_path)), *spelling, "-o", str(out)])
    assert res.returncode == 0, res.stderr
    argv = out.read_text().split()
    assert argv[:4] == ["-O2", "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-filetype=obj"]


def test_compile_with_llcs_spellings_through_llvmlite(tmp_path: Path) -> None:
    src = tmp_path / "k.ll"
    src.write_text(AMD_GFX942)
    out = tmp_path / "k.s"
    res = _run(["compile", str(src), "-mcpu=gfx90a", "-filetype=asm", "-O3", "-o", str(out)])
    assert res.returncode == 0, res.stderr
    assert '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"' in out.read_text()
    bad = _run(["compile", str(src), "-O7", "-o", str(out)])
    assert bad.returncode == 2 and "-O" in bad.stderr


def test_version_says_compiled_or_pure_and_llvmlites_llvm() -> None:
    import llvmlite
    import llvmlite.binding as llvm

    res = _run(["--version"])
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == f"llnoalias {__import__('llnoalias').__version__}"
    from llnoalias.compiled import TWINS, load

    if all(load(t.key) is not None for t in TWINS):
        assert lines[1].strip().startswith(f"compiled ({len(TWINS)} of {len(TWINS)} C extensions: body_reader")
    llvm_version = ".".join(map(str, llvm.llvm_version_info))
    assert f"llvmlite {llvmlite.__version__} with LLVM {llvm_version}" in res.stdout
    import os

    pure = _run(["--version"], env={**os.environ, "LLNOALIAS_PURE": "1"})
    assert pure.stdout.splitlines()[1].strip().startswith("pure Python (LLNOALIAS_PURE is set")
    if all(load(t.key) is not None for t in TWINS):
        # one twin blocked by its key: named as blocked, not as a failed build
        one = _run(["--version"], env={**os.environ, "LLNOALIAS_PURE": "fixpoint"})
        assert one.stdout.splitlines()[1].strip().endswith("pure Python for fixpoint, LLNOALIAS_PURE is set)")


def test_compile_verbose_names_the_code_generator(tmp_path: Path) -> None:
    import llvmlite.binding as llvm

    src = tmp_path / "k.ll"
    src.write_text(AMD_GFX942)
    res = _run(["compile", str(src), "-v", "-o", str(tmp_path / "k.s")])
    assert res.returncode == 0, res.stderr
    llvm_version = ".".join(map(str, llvm.llvm_version_info))
    assert f"note: code generated by llvmlite {__import__('llvmlite').__version__}'s LLVM {llvm_version}" in res.stderr
    assert "note: llnoalias " in res.stderr
    quiet = _run(["compile", str(src), "-o", str(tmp_path / "k.s")])
    assert "code generated by" not in quiet.stderr
    llc = shutil.which("llc-19")
    if llc is None:
        pytest.skip("llc-19 is not installed (apt-get install llvm-19)")
    res = _run(["compile", str(src), "-v", "--llc", "llc-19", "-o", str(tmp_path / "k.s")])
    assert res.returncode == 0, res.stderr
    assert f"note: code generated by {llc} (LLVM 19." in res.stderr


# ------------------------------------------------------------------ plain text off a terminal


def test_stats_tables_off_a_terminal_are_plain_aligned_columns(tmp_path: Path) -> None:
    src = tmp_path / "k.ll"
    long_name = "k_" + "x" * 120
    src.write_text(FIVE.replace("@k(", f"@{long_name}("))
    res = _run([str(src), "--args", "noalias", "--no-verify", "--stats", "-o", str(tmp_path / "o.ll")])
    assert res.returncode == 0, res.stderr
    err = res.stderr
    assert not BOX & set(err), err
    lines = err.splitlines()
    assert any(ln.startswith("domain") and "tagged" in ln and "untagged" in ln for ln in lines)
    # the long name is on one line, not wrapped at 80 columns
    assert any(f"@{long_name}  0  %a" in ln for ln in lines), err
    # right-aligned counts line up under their header
    head = next(ln for ln in lines if ln.startswith("domain") and "untagged" in ln)
    total = next(ln for ln in lines if ln.startswith("total"))
    assert len(head) == len(total) and total.endswith("2         0")


def test_stats_command_tables_off_a_terminal(tmp_path: Path) -> None:
    s = tmp_path / "k.s"
    s.write_text("\t.text\n\t.globl k\n\t.type k,@function\nk:\n\ts_waitcnt vmcnt(0)\n\ts_endpgm\n")
    res = _run(["stats", str(s)])
    assert res.returncode == 0, res.stderr
    assert not BOX & set(res.stdout), res.stdout
    assert res.stdout.splitlines() == [f"{s} (amdgpu)", "function  waits  vmcnt  vmcnt_zero  lds_dma",
                                       "k             1      1           1        0",
                                       "total         1      1           1        0"]


def test_plain_table_keeps_long_reasons_whole() -> None:
    from rich.table import Table

    from llnoalias.cli.render import plain_table

    t = Table(title="t")
    t.add_column("count", justify="right")
    t.add_column("reason")
    t.add_row("3", "r" * 300)
    t.add_row("12", "short")
    assert plain_table(t) == "t\ncount  reason\n    3  " + "r" * 300 + "\n   12  short\n"
