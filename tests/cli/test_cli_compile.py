"""``llnoalias compile``: the command around codegen.generate."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from llnoalias.cli.compile import compile_command, emit_for_output
from tests.support.files import ROOT

pytestmark = pytest.mark.slow

AMD_KERNEL = """\
target triple = "amdgcn-amd-amdhsa"

@lds_a = external addrspace(3) global [0 x i8], align 16
@lds_b = external addrspace(3) global [0 x i8], align 16

define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %i) #0 {
entry:
  %a = getelementptr inbounds i32, ptr addrspace(3) @lds_a, i32 %i
  %v = load i32, ptr addrspace(3) %a, align 4
  %b = getelementptr inbounds i32, ptr addrspace(3) @lds_b, i32 %i
  store i32 %v, ptr addrspace(3) %b, align 4
  store i32 %v, ptr addrspace(1) %p, align 4
  ret void
}

attributes #0 = { "target-cpu"="gfx942" }
"""

NVPTX_KERNEL = """\
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %p) #0 {
  %v = load float, ptr addrspace(1) %p, align 4
  %w = fmul float %v, 2.0
  store float %w, ptr addrspace(1) %p, align 4
  ret void
}

attributes #0 = { "target-cpu"="sm_80" }
"""


def _invoke(args: list[str], stdin: str | None = None) -> Result:
    return CliRunner().invoke(compile_command, args, input=stdin, catch_exceptions=False)


@pytest.fixture
def amd_ll(tmp_path: Path) -> Path:
    p = tmp_path / "k.ll"
    p.write_text(AMD_KERNEL)
    return p


@pytest.mark.parametrize(("out", "kind"), [
    (None, "asm"), ("-", "asm"), ("a.s", "asm"), ("a.ptx", "asm"), ("a.o", "obj"), ("a.cubin", "obj"),
    ("A.O", "obj"), ("a.out", "asm"), ("dir.o/a", "asm"),
])
def test_emit_from_extension(out: str | None, kind: str) -> None:
    assert emit_for_output(out) == kind


def test_compile_to_assembly_file(amd_ll: Path, tmp_path: Path) -> None:
    out = tmp_path / "k.s"
    res = _invoke([str(amd_ll), "-o", str(out), "--no-annotate"])
    assert res.exit_code == 0, res.output
    asm = out.read_text()
    assert "s_endpgm" in asm and "gfx942" in asm


def test_compile_object_from_extension_and_emit_flag(amd_ll: Path, tmp_path: Path) -> None:
    out = tmp_path / "k.o"
    assert _invoke([str(amd_ll), "-o", str(out), "--no-annotate"]).exit_code == 0
    assert out.read_bytes()[:4] == b"\x7fELF"
    out2 = tmp_path / "k.o.txt"
    assert _invoke([str(amd_ll), "-o", str(out2), "--emit", "obj", "--no-annotate"]).exit_code == 0
    assert out2.read_bytes()[:4] == b"\x7fELF"


def test_compile_stdin_to_stdout_with_mcpu() -> None:
    text = AMD_KERNEL.replace('"target-cpu"="gfx942"', "nounwind")
    res = _invoke(["-", "--no-annotate", "--mcpu", "gfx90a"], stdin=text)
    assert res.exit_code == 0
    assert "amdgcn-amd-amdhsa--gfx90a" in res.stdout and "s_endpgm" in res.stdout


def test_compile_nvptx(tmp_path: Path) -> None:
    src = tmp_path / "k.ll"
    src.write_text(NVPTX_KERNEL)
    out = tmp_path / "k.ptx"
    assert _invoke([str(src), "-o", str(out), "--no-annotate"]).exit_code == 0
    ptx = out.read_text()
    assert ".entry k(" in ptx and ".target sm_80" in ptx


def test_missing_cpu_fails_and_keeps_output(tmp_path: Path) -> None:
    src = tmp_path / "k.ll"
    src.write_text(AMD_KERNEL.replace('"target-cpu"="gfx942"', "nounwind"))
    out = tmp_path / "k.s"
    out.write_text("previous\n")
    res = _invoke([str(src), "-o", str(out), "--no-annotate"])
    assert res.exit_code == 2
    assert res.stderr.startswith("llnoalias: error: ") and "--mcpu" in res.stderr
    assert out.read_text() == "previous\n"


def test_missing_input() -> None:
    res = _invoke(["/nonexistent/k.ll", "--no-annotate"])
    assert res.exit_code == 2
    assert "cannot open '/nonexistent/k.ll'" in res.stderr


def test_failing_llc_gives_back_its_stderr_and_status(amd_ll: Path, tmp_path: Path) -> None:
    fake = tmp_path / "llc"
    fake.write_text('#!/bin/sh\necho "$@" > "$(dirname "$0")/args"\ncat >/dev/null\n'
                    'printf "llc: error: not today\\n" >&2\nexit 3\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    out = tmp_path / "k.s"
    out.write_text("previous\n")
    res = _invoke([str(amd_ll), "-o", str(out), "--no-annotate", "--llc", str(fake), "--", "-x86-asm-syntax=intel"])
    assert res.exit_code == 3
    assert res.stderr == "llc: error: not today\n"
    assert out.read_text() == "previous\n"
    args = (tmp_path / "args").read_text().split()
    assert args[:4] == ["-O3", "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=asm"]
    assert "-x86-asm-syntax=intel" in args


def test_extra_args_without_llc_are_refused(amd_ll: Path) -> None:
    res = _invoke([str(amd_ll), "--no-annotate", "--", "-stats"])
    assert res.exit_code == 2 and "--llc" in res.stderr


def test_compile_annotates_by_default(amd_ll: Path, tmp_path: Path) -> None:
    out = tmp_path / "k.s"
    res = _invoke([str(amd_ll), "-o", str(out)])
    assert res.exit_code == 0, res.stderr
    assert "s_endpgm" in out.read_text()


# --- --triple, an inferred triple, the llc search, --opt ---------------------

TRITON_NV_NO_TRIPLE = NVPTX_KERNEL.replace('target triple = "nvptx64-nvidia-cuda"\n', "")

# LLVM 22 cannot read this (an attribute it does not know) and no rewrite bridges it.
UNREADABLE = AMD_KERNEL.replace("attributes #0 = {", "attributes #0 = { frobnicate_newer_attr")


def test_triple_is_inferred_with_a_note(tmp_path: Path) -> None:
    src = tmp_path / "k.ll"
    src.write_text(TRITON_NV_NO_TRIPLE)
    res = _invoke([str(src), "-o", str(tmp_path / "k.ptx")])
    assert res.exit_code == 0, res.stderr
    assert "note: the module has no 'target triple'; using nvptx64-nvidia-cuda because" in res.stderr
    assert ".target sm_80" in (tmp_path / "k.ptx").read_text()


def test_triple_flag(tmp_path: Path) -> None:
    src = tmp_path / "k.ll"
    src.write_text(AMD_KERNEL.replace('target triple = "amdgcn-amd-amdhsa"\n', ""))
    res = _invoke([str(src), "-o", str(tmp_path / "k.s"), "--triple", "amdgpu9.42-amd-amdhsa"])
    assert res.exit_code == 0, res.stderr
    assert "no 'target triple'" not in res.stderr
    assert '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"' in (tmp_path / "k.s").read_text()


def _fake_llc_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> Path:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / name
    # writes its own command line as the "assembly": -o OUT is the second-to-last argument
    fake.write_text('#!/bin/sh\nfor a; do prev2="$prev"; prev="$a"; done\n'
                    'out=""; while [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then out="$2"; fi; shift; done\n'
                    'echo "; fake llc" > "$out"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(bindir))
    monkeypatch.delenv("LLNOALIAS_LLC", raising=False)
    from llnoalias.backends import codegen

    monkeypatch.setattr(codegen, "ROCM_LLC", str(tmp_path / "no-rocm" / "llc"))
    return fake


def test_unreadable_module_falls_back_to_an_llc_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _fake_llc_on_path(tmp_path, monkeypatch, "llc-24")
    src = tmp_path / "k.ll"
    src.write_text(UNREADABLE)
    res = _invoke([str(src), "-o", str(tmp_path / "k.s"), "--no-annotate"])
    assert res.exit_code == 0, res.stderr
    assert (tmp_path / "k.s").read_text() == "; fake llc\n"
    assert f"generated code with {fake} instead" in res.stderr
    assert "llvmlite's LLVM could not take the module" in res.stderr


def test_llc_env_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from llnoalias.backends import codegen

    _fake_llc_on_path(tmp_path, monkeypatch, "llc")
    mine = tmp_path / "mine-llc"
    mine.write_text("#!/bin/sh\nexit 0\n")
    mine.chmod(0o755)
    monkeypatch.setenv("LLNOALIAS_LLC", str(mine))
    assert codegen.llc_candidates() == [str(mine), str(tmp_path / "bin" / "llc")]


def test_failing_fallback_keeps_llvmlites_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _fake_llc_on_path(tmp_path, monkeypatch, "llc-20")
    fake.write_text('#!/bin/sh\necho "llc-20: error: unknown attribute" >&2\nexit 1\n')
    src = tmp_path / "k.ll"
    src.write_text(UNREADABLE)
    res = _invoke([str(src), "-o", str(tmp_path / "k.s"), "--no-annotate"])
    assert res.exit_code == 2
    # one error line, then a note per tool tried, not one chained line
    lines = res.stderr.splitlines()
    assert lines[0].startswith(f"llnoalias: error: {src}: no code generator could take the module: llvmlite")
    assert "'s LLVM" in lines[1] and "cannot read this module" in lines[1] and lines[1].startswith("llnoalias: note: ")
    assert lines[2] == f"llnoalias: note: {fake}: unknown attribute"
    assert len(lines) == 3
    assert not (tmp_path / "k.s").exists()


def test_no_llc_anywhere_gives_llvmlites_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_llc_on_path(tmp_path, monkeypatch, "not-an-llc")
    src = tmp_path / "k.ll"
    src.write_text(UNREADABLE)
    res = _invoke([str(src), "-o", str(tmp_path / "k.s"), "--no-annotate"])
    assert res.exit_code == 2 and "cannot read this module" in res.stderr and "llc found" not in res.stderr


def test_opt_runs_the_middle_end(tmp_path: Path) -> None:
    # An unused internal function: code generation alone emits it, -O3's GlobalDCE removes it.
    src = tmp_path / "k.ll"
    src.write_text(NVPTX_KERNEL + "\ndefine internal void @unused_helper() {\n  ret void\n}\n")
    plain = _invoke([str(src), "-o", str(tmp_path / "a.s")])
    opt = _invoke([str(src), "-o", str(tmp_path / "b.s"), "--opt"])
    assert plain.exit_code == 0 and opt.exit_code == 0, plain.stderr + opt.stderr
    assert "unused_helper" in (tmp_path / "a.s").read_text()
    optimized = (tmp_path / "b.s").read_text()
    assert "unused_helper" not in optimized and ".entry k(" in optimized


def test_verbose_names_the_bridge_rewrites(tmp_path: Path) -> None:
    src = ROOT / "fixtures" / "bridge" / "amdgcn-async-lds-load.ll"
    quiet = _invoke([str(src), "-o", str(tmp_path / "a.s")])
    loud = _invoke([str(src), "-o", str(tmp_path / "b.s"), "-v"])
    assert quiet.exit_code == 0 and loud.exit_code == 0, quiet.stderr
    assert "read the module through the version bridge" not in quiet.stderr
    assert "version bridge: amdgcn-async-lds-load, amdgcn-asyncmark" in loud.stderr
    # ... but that its synchronization was rewritten is said without -v (no verdict rests on it)
    assert "the version bridge rewrote the module's synchronization" in quiet.stderr
