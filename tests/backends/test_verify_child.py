"""The checking child that starts before the texts exist: it is ended when no
check is needed, contains what goes wrong in it, and its direct calls into llvmlite's
library say what llvmlite.binding says."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from llnoalias.backends import pending_check
from llnoalias.backends.llvmlite_backend import PendingCheck, check_module
from llnoalias.cli.run import run_annotate
from llnoalias.options import AnnotateOptions
from tests.support.files import ROOT

GEMM = (ROOT / "fixtures" / "corpus" / "clang19" / "hip_gemm_O3.ll").read_text()


def test_cancel_ends_the_child_and_removes_its_files() -> None:
    pending = PendingCheck.start()
    proc, workdir = pending.proc, pending.workdir
    pending.send_input(GEMM)
    pending.cancel()
    assert proc is not None and proc.returncode is not None
    assert not os.path.exists(workdir)


def test_finish_after_the_input_is_checked() -> None:
    pending = PendingCheck.start()
    pending.send_input(GEMM)
    res = pending.finish(GEMM.replace("ret void", "ret i32 0", 1))
    assert res.input_verified and not res.output_ok and res.regression
    assert "doesn't match function result type" in res.message
    assert not os.path.exists(pending.workdir)


def test_a_child_that_dies_before_the_input_is_contained(monkeypatch: pytest.MonkeyPatch) -> None:
    code = "import resource, os; resource.setrlimit(resource.RLIMIT_CORE, (0, 0)); os.abort()"
    monkeypatch.setattr(pending_check, "_child_command", lambda: [sys.executable, "-c", code])
    pending = PendingCheck.start()
    pending.send_input(GEMM)
    res = pending.finish(GEMM)
    assert res.crashed and not res.verified and not res.regression and res.death == "SIGABRT"


def test_unchanged_output_checks_the_input_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing changed: the child gives the input's verdict (input LLVM rejects is an error even
    then) without waiting for an output, and is gone with its files."""
    path = tmp_path / "plain.ll"
    path.write_text("define void @f() {\n  ret void\n}\n")
    started: list[PendingCheck] = []
    real_start = PendingCheck.start

    def spy() -> PendingCheck:
        started.append(real_start())
        return started[-1]

    monkeypatch.setattr(PendingCheck, "start", staticmethod(spy))
    verdicts: list[object] = []
    real_finish_input = PendingCheck.finish_input

    def spy_finish(self: PendingCheck, timeout: float = 120.0) -> object:
        verdicts.append(real_finish_input(self, timeout))
        return verdicts[-1]

    monkeypatch.setattr(PendingCheck, "finish_input", spy_finish)
    _, result = run_annotate(str(path), AnnotateOptions())
    assert not result.changed
    assert started and started[0].proc is None and not os.path.exists(started[0].workdir)
    [res] = verdicts
    assert res.input_verified and not res.output_checked and not res.crashed  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["hip_gemm_O3.ll", "cuda_gemm_O3.ll"])
def test_direct_calls_say_what_llvmlite_binding_says(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = ROOT / "fixtures" / "corpus" / "clang19" / name
    if not path.exists():
        pytest.skip(f"no {name}")
    text = path.read_text()
    cases = [(text, text), (text, text.replace("ret void", "ret i32 0", 1)), ("junk\n", "junk\n"),
             (text, text.replace("define", "defne", 1))]
    seen = []
    for binding in ("", "1"):
        monkeypatch.setenv("LLNOALIAS_CHILD_BINDING", binding)
        seen.append([(r.input_readable, r.input_verified, r.output_ok, r.message, r.input_message, r.crashed)
                     for r in (check_module(a, b) for a, b in cases)])
    assert seen[0] == seen[1]
    assert seen[0][0][:3] == (True, True, True)


@pytest.mark.parametrize("result", [
    {"op": "check", "stage": "done", "input_readable": True, "output_ok": False, "message": ""},
    {"message": 'error: expected \'"\' \\ here\n\tnext line \x01 \u00e9 \u2603 \U0001F600', "n": 3, "x": None},
    {"nested": ["not", "flat"], "stage": "emit"},  # not flat: the json module writes it
])
def test_the_childs_result_writer_is_json(result: dict[str, object]) -> None:
    """The child writes its result without importing json (it costs its start ~10 ms);
    what it writes must read back as the same dict."""
    import json

    from llnoalias.backends._llvmlite_child import _dumps

    assert json.loads(_dumps(result)) == result  # type: ignore[arg-type]


_INEXACT = "\ndefine float @inexact() {\n  ret float 0.1\n}\n"  # LLVM 22: "floating point constant invalid"


def _bridged(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the bridge is asked about, from here on (their first 40 characters)."""
    from llnoalias.backends import bridge

    asked: list[str] = []
    real = bridge.bridge

    def spy(text: str, *, active: bool | None = None) -> tuple[str, list[str]]:
        asked.append(text[:40])
        return real(text, active=active)

    monkeypatch.setattr(bridge, "bridge", spy)
    return asked


@pytest.mark.parametrize(("source", "added", "asked_about"), [
    # nothing to rewrite in the input or in what was written: the output is handed over as it is
    (GEMM, "\n!99 = !{}\n", ["input", "written"]),
    # what was written needs a rewrite: the output is bridged (and so it verifies)
    (GEMM, _INEXACT, ["input", "written", "output"]),
    # the input needed one: so does the output, whatever was written
    (GEMM + _INEXACT, "\n!99 = !{}\n", ["input", "output"]),
], ids=["plain", "written-needs-it", "input-needs-it"])
def test_the_output_is_searched_again_only_where_it_can_need_the_bridge(
        source: str, added: str, asked_about: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _bridged(monkeypatch)
    pending = PendingCheck.start()
    pending.send_input(source)
    res = pending.finish(source + added, written=added)
    assert res.input_verified and res.output_ok, res.message
    texts = {"input": source[:40], "written": added[:40], "output": (source + added)[:40]}
    assert asked == [texts[k] for k in asked_about]
