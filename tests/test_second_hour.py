"""A new user's second hour (issue 33): mistyped subcommands, I/O edges, -Werror and --quiet.

Each case runs the console entry in a subprocess, as a user or CI would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
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
