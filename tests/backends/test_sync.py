"""Which bridge rewrites change a module's synchronization, where, and the code generator a
verdict then needs (design section 7): nothing here compiles."""

from __future__ import annotations

import pytest

from llnoalias.backends import codegen, triton_backend
from llnoalias.backends.bridge import REWRITES
from llnoalias.backends.sync import sync_change
from llnoalias.diagnostics import LLNoaliasError
from tests.support.explicit_waits import ASYNC_LOAD_AT, MARK_AT, async_waited, marked_plain
from tests.support.files import ROOT

BRIDGE = ROOT / "fixtures" / "bridge"


def test_the_rewrites_that_change_synchronization_say_so() -> None:
    # the two that turn LLVM 24's asynchronous loads and their explicit waits into what LLVM 22
    # waits for itself; every other rewrite only respells a constant, a triple or a signature
    changing = {r.name for r in REWRITES if r.changes_sync}
    assert changing == {"amdgcn-async-lds-load", "amdgcn-asyncmark"}
    for name in changing:
        change = sync_change((BRIDGE / f"{name}.ll").read_text())
        assert change is not None and change.rewrite in changing, name


def test_sync_change_names_the_first_construct_and_where_it_is() -> None:
    change = sync_change(async_waited())
    assert change is not None
    assert (change.line, change.col) == ASYNC_LOAD_AT
    assert change.construct == "llvm.amdgcn.raw.ptr.buffer.load.async.lds"
    change = sync_change(marked_plain())
    assert change is not None and change.rewrite == "amdgcn-asyncmark"
    assert (change.line, change.col) == MARK_AT and change.construct == "llvm.amdgcn.wait.asyncmark"
    assert change.what == "explicit LDS-DMA waits"


@pytest.mark.parametrize("name", ["float-bits-literal", "amdgpu-versioned-triple", "amdgcn-make-buffer-rsrc-i64"])
def test_rewrites_of_spelling_change_no_synchronization(name: str) -> None:
    assert sync_change((BRIDGE / f"{name}.ll").read_text()) is None


def test_a_verdict_takes_tritons_llvm_for_explicit_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(triton_backend, "available", lambda: True)
    notes: list[str] = []
    assert codegen.verdict_codegen(async_waited(), "a.ll", "llvmlite", None, notes) == "triton"
    assert len(notes) == 1 and "line 7" in notes[0] and "Triton's LLVM" in notes[0]
    # a module the bridge only respells keeps its code generator; so do --llc and --codegen triton
    plain = (BRIDGE / "float-bits-literal.ll").read_text()
    assert codegen.verdict_codegen(plain, "p.ll", "llvmlite", None, notes) == "llvmlite"
    assert codegen.verdict_codegen(async_waited(), "a.ll", "llvmlite", "/usr/bin/llc-24", notes) == "llvmlite"
    assert len(notes) == 1


def test_no_code_generator_that_keeps_the_waits_is_a_located_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(triton_backend, "available", lambda: False)
    with pytest.raises(LLNoaliasError) as info:
        codegen.verdict_codegen(marked_plain(), "m.ll", "llvmlite", None, [])
    err = info.value
    assert err.exit_code == 2 and err.location is not None
    assert (err.location.line, err.location.col) == MARK_AT
    assert err.message.startswith("llvm.amdgcn.wait.asyncmark (explicit LDS-DMA waits) needs a code generator "
                                  "that keeps them: install Triton (--codegen triton) or give --llc with LLVM 24+")
    assert err.format().startswith(f"llnoalias: m.ll:{MARK_AT[0]}:{MARK_AT[1]}: error: ")


def test_code_generated_through_such_a_rewrite_says_so() -> None:
    said = codegen.sync_note(["amdgpu-versioned-triple", "amdgcn-asyncmark"])
    assert said is not None and "explicit LDS-DMA waits" in said and "amdgcn-asyncmark" in said
    assert codegen.sync_note(["amdgpu-versioned-triple", "float-bits-literal"]) is None
