"""A new user's second hour (SPEC sections 6 and 8): mistyped subcommands, I/O edges, -Werror and --quiet.

Each case runs the console entry in a subprocess, as a user or CI would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

CMD = [sys.executable, "-m", "llnoalias.cli"]

KERNEL = """target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b, i32 %n) {
  %v = load i32, ptr addrspace(1) %a, align 4
  store i32 %v, ptr addrspace(1) %b, align 4
  ret void
}
"""


def _run(args: list[str], **kw) -> subprocess.CompletedProcess:
    kw.setdefault("capture_output", True)
    return subprocess.run([*CMD, *args], text=True, timeout=300, **kw)


# ------------------------------------------------------------------ mistyped subcommands


@pytest.mark.parametrize("word, meant", [("complie", "compile"), ("stat", "stats"), ("explian", "explain"),
                                         ("gates", "gate"), ("anotate", "annotate")])
def test_a_mistyped_subcommand_is_an_error_with_did_you_mean(tmp_path: Path, word: str, meant: str) -> None:
    (tmp_path / "x.ll").write_text(KERNEL)
    res = _run([word, "x.ll", "-o", "y.s"], cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    assert res.stderr == (f"llnoalias: error: '{word}' is neither a command nor a file "
                          f"(did you mean '{meant}'?)\n")
    assert not (tmp_path / "y.s").exists()


def test_a_file_named_like_a_typo_is_still_an_input(tmp_path: Path) -> None:
    (tmp_path / "complie").write_text(KERNEL)
    res = _run(["complie", "--no-verify"], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith('target triple = "amdgcn-amd-amdhsa"')


def test_a_missing_input_far_from_any_command_is_no_such_file(tmp_path: Path) -> None:
    for word in ("kernel", "compile.ll"):
        res = _run([word], cwd=tmp_path)
        assert res.returncode == 2
        assert res.stderr == f"llnoalias: error: cannot open '{word}': no such file\n"


def test_did_you_mean_offers_every_command_of_the_click_group(capsys: pytest.CaptureFixture[str]) -> None:
    """The names come from the group: a command added to it later is offered, and the fast
    path's list of subcommands (which must not import click) stays the group's."""
    import click

    from llnoalias.cli import entry
    from llnoalias.cli.main import cli

    ctx = click.Context(cli)
    assert set(entry._COMMANDS) == set(cli.list_commands(ctx))

    @click.command("frobnicate")
    def frob() -> None:
        pass

    cli.add_command(frob)
    try:
        with pytest.raises(SystemExit) as done:
            cli.main(["frobnicat", "x.ll"], standalone_mode=False)
        assert done.value.code == 2
    finally:
        cli.commands.pop("frobnicate")
    assert capsys.readouterr().err == ("llnoalias: error: 'frobnicat' is neither a command nor a file "
                                       "(did you mean 'frobnicate'?)\n")


# ------------------------------------------------------------------ I/O edges


def _shell(cmd: str, cwd: Path) -> subprocess.CompletedProcess:
    """``cmd`` with ``@LL`` standing for the console entry, through sh (for ``<&-``, ``>&-``)."""
    ll = " ".join(f"'{c}'" for c in CMD)
    return subprocess.run(["sh", "-c", cmd.replace("@LL", ll)], cwd=cwd, capture_output=True, text=True, timeout=300)


def _one_error_line(res: subprocess.CompletedProcess, message: str) -> None:
    assert res.returncode == 2, res.stderr
    assert res.stderr == f"llnoalias: error: {message}\n"


@pytest.mark.parametrize("pure", ["", "1"])
def test_stdin_closed_is_one_error_line(tmp_path: Path, pure: str) -> None:
    res = _shell(f"LLNOALIAS_PURE={pure} @LL - --no-verify <&-", tmp_path)
    _one_error_line(res, "cannot read '<stdin>': standard input is closed")


@pytest.mark.parametrize("args", [["k.ll", "--no-verify"], ["explain", "k.ll"], ["--help"]])
def test_stdout_closed_is_one_error_line(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "k.ll").write_text(KERNEL)
    res = _shell(f"@LL {' '.join(args)} >&-", tmp_path)
    _one_error_line(res, "cannot write '<stdout>': standard output is closed")


def test_stdout_closed_does_not_matter_when_nothing_is_written_there(tmp_path: Path) -> None:
    (tmp_path / "k.ll").write_text(KERNEL)
    res = _shell("@LL k.ll --no-verify -o out.ll >&-", tmp_path)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "out.ll").read_text().startswith('target triple = "amdgcn-amd-amdhsa"')


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize("args", [["k.ll", "--no-verify"], ["explain", "k.ll"], ["--help"]])
def test_stdout_on_a_full_disk_is_one_error_line(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "k.ll").write_text(KERNEL)
    res = _shell(f"@LL {' '.join(args)} > /dev/full", tmp_path)
    _one_error_line(res, "cannot write '<stdout>': No space left on device")


def test_a_closed_pipe_still_ends_quietly(tmp_path: Path) -> None:
    (tmp_path / "k.ll").write_text(KERNEL * 1)
    res = _shell("@LL k.ll --no-verify | head -c 1 >/dev/null", tmp_path)
    assert res.returncode == 0 and res.stderr == ""


def test_a_checking_child_that_cannot_start_is_one_error_line(tmp_path: Path) -> None:
    """The child that runs llvmlite's LLVM cannot be executed (no permission): exit 2, one
    line that names --no-verify, the output not written."""
    (tmp_path / "k.ll").write_text(KERNEL)
    bad = tmp_path / "not-executable"
    bad.write_text("#!/bin/sh\n")
    bad.chmod(0o644)
    script = ("import sys\nfrom llnoalias.backends import pending_check\n"
              f"pending_check._child_command = lambda: [{str(bad)!r}]\n"
              "from llnoalias.cli.entry import main\nmain(sys.argv[1:])\n")
    res = subprocess.run([sys.executable, "-c", script, "k.ll", "-o", "out.ll"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    _one_error_line(res, f"cannot start the child process that runs llvmlite's LLVM: '{bad}': Permission denied "
                         "(annotating without the check: --no-verify)")
    assert not (tmp_path / "out.ll").exists()


# ------------------------------------------------------------------ where llnoalias and LLVM read a file apart


@pytest.mark.parametrize("pure", ["", "1"])
def test_binary_garbage_reaches_the_terminal_escaped(tmp_path: Path, pure: str) -> None:
    """An escape sequence, a bell, a backspace and bytes that are not UTF-8: the error shows
    each as \\xNN, nothing a terminal would act on, and the caret under the shown column."""
    (tmp_path / "g.ll").write_bytes(b"\x1b[2J\x1b[31mhello\x07\x08 world\xff\xfe\n")
    res = subprocess.run([*CMD, "g.ll"], cwd=tmp_path, capture_output=True, timeout=300,
                         env={**__import__("os").environ, "LLNOALIAS_PURE": pure})
    assert res.returncode == 2
    err = res.stderr.decode("ascii")  # all of it printable ASCII
    assert all(32 <= ord(c) < 127 for c in err.replace("\n", "")), err
    assert err.splitlines()[1] == "\\x1b[2J\\x1b[31mhello\\x07\\x08 world\\xff\\xfe"
    # the ELF header of a binary: a NUL outside a comment, escaped, the caret under it
    (tmp_path / "a.out").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00")
    res = subprocess.run([*CMD, "a.out"], cwd=tmp_path, capture_output=True, timeout=300)
    lines = res.stderr.decode("ascii").splitlines()
    assert res.returncode == 2 and lines[0].endswith("a.out:1:8: error: unexpected NUL byte: this is not textual LLVM IR")
    assert lines[1] == "\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00"
    assert lines[2] == " " * len("\\x7fELF\\x02\\x01\\x01") + "^"


def test_printable_escapes_what_a_terminal_acts_on() -> None:
    from llnoalias.diagnostics import Location, format_diagnostic, printable

    assert printable("plain\ttext é ü 中") == "plain\ttext é ü 中"
    assert printable("a\x1bb\rc\x00d\x9be\udcff\ufeff") == "a\\x1bb\\x0dc\\x00d\\x9be\\xff\\ufeff"
    out = format_diagnostic("error", "bad '\x1b'", Location("f\x07.ll", 1, 3, "\x1b\x1bX"))
    assert out == "llnoalias: f\\x07.ll:1:3: error: bad '\\x1b'\n\\x1b\\x1bX\n        ^\n"


def test_the_nul_byte_in_a_comment_reaches_llvmlite_as_a_space() -> None:
    """llvmlite hands LLVM a C string: a NUL would end the module there; in a comment (the only
    place llnoalias reads one) a space stands for it exactly."""
    from llnoalias.backends.bridge import bridge

    text, _ = bridge("; a \x00 b\ndefine void @f() {\n  ret void\n}\n", active=False)
    assert "\x00" not in text and text.startswith("; a   b\ndefine void @f()")


AMD_CPU = KERNEL.replace("i32 %n) {", "i32 %n) #0 {") + 'attributes #0 = { "target-cpu"="gfx942" }\n'


def test_a_wrong_triple_is_reported_as_a_bad_triple_not_a_bad_cpu(tmp_path: Path) -> None:
    (tmp_path / "k.ll").write_text(AMD_CPU.replace('target triple = "amdgcn-amd-amdhsa"\n', ""))
    res = _run(["compile", "k.ll", "--triple", "nvptx64-nvidia-cuda", "-o", "k.s"], cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr == ("llnoalias: error: k.ll: --triple 'nvptx64-nvidia-cuda' is an NVPTX triple, but the module's "
                          "\"target-cpu\" 'gfx942' is an AMDGPU GPU; pass --triple amdgcn-amd-amdhsa (or leave "
                          "--triple out: the module says which GPU it is for)\n")
    # an --mcpu of the other family with the module's own triple: the pair is named, both ways out
    (tmp_path / "k.ll").write_text(KERNEL)
    res = _run(["compile", "k.ll", "--mcpu", "sm_90", "-o", "k.s"], cwd=tmp_path)
    assert res.returncode == 2 and "is an AMDGPU triple, but --mcpu 'sm_90' is an NVPTX GPU" in res.stderr
    assert not (tmp_path / "k.s").exists()


# ------------------------------------------------------------------ -Werror and --quiet

#: a producer scoped the LDS read and not the DMA, whose destination cannot be traced: one warning
WARNS = """target triple = "amdgcn-amd-amdhsa"
@A = external addrspace(3) global [0 x i8], align 16

define amdgpu_kernel void @k(ptr addrspace(8) %r, ptr addrspace(1) %q, ptr addrspace(1) %out, i32 %v) {
entry:
  %d = load ptr addrspace(3), ptr addrspace(1) %q, align 4
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) %d, i32 4, i32 %v, i32 0, i32 0, i32 0)
  %x = load float, ptr addrspace(3) @A, align 4, !alias.scope !2
  store float %x, ptr addrspace(1) %out, align 4
  ret void
}

declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32)

!0 = distinct !{!0, !"producer"}
!1 = distinct !{!1, !0, !"A"}
!2 = !{!1}
"""

#: the click path (the subcommand spelled out) and the fast path (the plain command line)
PATHS = [pytest.param(["annotate"], id="click"), pytest.param([], id="fast")]


@pytest.mark.parametrize("via", PATHS)
@pytest.mark.parametrize("flag", ["-Werror", "--warnings-as-errors"])
def test_warnings_as_errors_fails_the_run_and_writes_nothing(tmp_path: Path, via: list[str], flag: str) -> None:
    (tmp_path / "k.ll").write_text(WARNS)
    plain = _run([*via, "k.ll", "--no-verify", "-o", "out.ll"], cwd=tmp_path)
    assert plain.returncode == 0 and plain.stderr.count(": warning: LDS-DMA without !alias.scope") == 1, plain.stderr
    (tmp_path / "out.ll").write_text("kept\n")
    res = _run([*via, "k.ll", "--no-verify", "-o", "out.ll", flag], cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    assert "k.ll:7:3: error: LDS-DMA without !alias.scope" in res.stderr and "warning:" not in res.stderr
    assert res.stderr.endswith("llnoalias: error: k.ll: 1 warning treated as error (--warnings-as-errors); "
                               "nothing was written\n")
    assert (tmp_path / "out.ll").read_text() == "kept\n"
    # an input without warnings passes as before
    (tmp_path / "ok.ll").write_text(KERNEL)
    ok = _run([*via, "ok.ll", "--no-verify", "-o", "ok.out.ll", flag], cwd=tmp_path)
    assert ok.returncode == 0 and (tmp_path / "ok.out.ll").exists()


def test_warnings_as_errors_fails_each_file_of_a_batch(tmp_path: Path) -> None:
    (tmp_path / "k.ll").write_text(WARNS)
    (tmp_path / "ok.ll").write_text(KERNEL)
    res = _run(["k.ll", "ok.ll", "--no-verify", "--out-dir", "out", "-Werror", "-j", "2"], cwd=tmp_path)
    assert res.returncode == 2
    assert "k.ll: 1 warning treated as error" in res.stderr
    assert not (tmp_path / "out" / "k.ll").exists() and (tmp_path / "out" / "ok.ll").exists()


@pytest.mark.parametrize("via", PATHS)
@pytest.mark.parametrize("flag", ["-q", "--quiet"])
def test_quiet_prints_no_notes_and_keeps_warnings(tmp_path: Path, via: list[str], flag: str) -> None:
    (tmp_path / "k.ll").write_text(WARNS)
    loud = _run([*via, "k.ll", "--no-verify", "-o", "out.ll"], cwd=tmp_path)
    assert "note: k.ll: nothing was changed" in loud.stderr
    res = _run([*via, "k.ll", "--no-verify", "-o", "out.ll", flag], cwd=tmp_path)
    assert res.returncode == 0
    assert "note:" not in res.stderr and res.stderr.count("warning:") == 1
    assert (tmp_path / "out.ll").read_text() == (tmp_path / "k.ll").read_text()
    # an error is still said
    err = _run([*via, "k.ll", "--no-verify", "--may-alias", "0,9", flag], cwd=tmp_path)
    assert err.returncode == 2 and "error:" in err.stderr
