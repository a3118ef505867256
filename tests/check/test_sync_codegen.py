"""Verdicts on the program as it will run (design section 7): a module with
explicit LDS-DMA waits is judged by a code generator that keeps them (Triton's LLVM, or
``--llc``), or not at all: ``check``, compile's self-check, ``--best`` and ``--repair`` exit 2
with the construct and the LLVM it needs where none is at hand. Plain ``compile --no-check``
keeps the bridge and says the waits were rewritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llnoalias.backends import triton_backend
from tests.support.explicit_waits import (
    ASYNC_LOAD_AT,
    MARK_AT,
    READ_LINE,
    async_waited,
    marked_plain,
)
from tests.support.run import run_cli

KEEP = "needs a code generator that keeps them: install Triton (--codegen triton) or give --llc with LLVM 24+"


@pytest.fixture
def no_triton(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(triton_backend, "available", lambda: False)


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.usefixtures("no_triton")
@pytest.mark.parametrize("command", [
    ["check"], ["compile", "--args", "noalias", "-o", "OUT"], ["compile", "--best", "--args", "noalias", "-o", "OUT"],
    ["compile", "--repair", "-o", "OUT"], ["annotate", "--best", "--args", "noalias", "-o", "OUT"], ["annotate", "--repair", "-o", "OUT"]])
def test_without_a_code_generator_that_keeps_the_waits_no_verdict(tmp_path: Path, command: list[str]) -> None:
    src = _write(tmp_path, "m.ll", marked_plain())
    out = tmp_path / "out"
    res = run_cli([*[str(out) if a == "OUT" else a for a in command], src])
    assert res.exit_code == 2, res.stderr
    line, col = MARK_AT
    assert f"{src}:{line}:{col}: error: llvm.amdgcn.wait.asyncmark (explicit LDS-DMA waits) {KEEP}" in res.stderr
    assert not out.exists(), "no output written"


@pytest.mark.usefixtures("no_triton")
def test_the_first_construct_is_named(tmp_path: Path) -> None:
    src = _write(tmp_path, "a.ll", async_waited())
    res = run_cli(["check", src])
    assert res.exit_code == 2
    line, col = ASYNC_LOAD_AT
    assert f"{src}:{line}:{col}: error: llvm.amdgcn.raw.ptr.buffer.load.async.lds (" in res.stderr


@pytest.mark.slow
@pytest.mark.usefixtures("no_triton")
def test_plain_compile_keeps_the_bridge_and_says_the_waits_were_rewritten(tmp_path: Path) -> None:
    pytest.importorskip("llvmlite", reason="llvmlite's LLVM generates the code")
    src = _write(tmp_path, "a.ll", async_waited(wait=False))
    out = tmp_path / "a.s"
    res = run_cli(["compile", "--no-check", src, "-o", str(out)])
    assert res.exit_code == 0, res.stderr
    assert "rewrote the module's synchronization" in res.stderr and "amdgcn-asyncmark" in res.stderr
    # why no verdict may rest on it: LLVM 22 waits for the load itself, though the program does not
    asm = out.read_text()
    assert asm.index("s_waitcnt vmcnt(0)") < asm.index("ds_read_b32")


needs_triton = pytest.mark.skipif(not triton_backend.available(), reason="Triton (its LLVM 24) is not installed")


@pytest.mark.slow
@needs_triton
def test_with_triton_the_program_is_judged_as_it_runs(tmp_path: Path) -> None:
    from llnoalias.check.checker import check_text

    waited = _write(tmp_path, "w.ll", async_waited())
    res = run_cli(["check", "--json", waited])
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["generator"]["generator"] == "triton"
    assert "judged with Triton's LLVM" in res.stderr
    # the wait removed: a race under Triton's LLVM (LLVM 22 through the bridge waits by itself)
    unwaited = _write(tmp_path, "u.ll", async_waited(wait=False))
    assert run_cli(["check", unwaited]).exit_code == 1
    judged = check_text(async_waited(wait=False), unwaited)
    assert judged.generator["generator"] == "triton" and judged.racing_functions() == {"k"}
    assert {r.access.ir_line for r in judged.races} == {READ_LINE}


@pytest.mark.slow
@needs_triton
def test_compiles_self_check_writes_the_code_it_judged(tmp_path: Path) -> None:
    src = _write(tmp_path, "w.ll", async_waited())
    out = tmp_path / "w.s"
    res = run_cli(["compile", "-v", "--args", "noalias", src, "-o", str(out)])
    assert res.exit_code == 0, res.stderr
    assert "Triton" in res.stderr and "rewrote the module's synchronization" not in res.stderr
    assert "buffer_load_dword" in out.read_text()
