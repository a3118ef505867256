"""Each stage run alone (``pipeline.run_until``, ``--stop-after STAGE``), as ``xdsl-opt -p``
runs a pass: the stages before it run, none after it, and its result prints what
``--print-after`` prints for it in a whole run."""

from __future__ import annotations

import glob
import os

import pytest

import llnoalias
from llnoalias import LLNoaliasError
from llnoalias.options import AnnotateOptions
from llnoalias.transform import pipeline
from llnoalias.transform.stages import STAGE_NAMES, PerFunction, Result, StageLog
from tests.support.files import DATA, FIXTURES
from tests.support.run import run_cli

STAGE_FIXTURES = sorted(glob.glob(os.path.join(FIXTURES, "stages", "*.ll")))
SETTLE = os.path.join(DATA, "settle_loaded.ll")
OPTION_SETS: list[dict[str, object]] = [
    {},
    {"lds": "all", "args": "noalias"},
    {"lds": "all", "regions": False},
]


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("path", [*STAGE_FIXTURES, SETTLE], ids=os.path.basename)
@pytest.mark.parametrize("opts", OPTION_SETS, ids=["default", "all-noalias", "no-regions"])
def test_each_stage_alone_prints_what_the_whole_run_prints(path: str, opts: dict[str, object]) -> None:
    text = _read(path)
    options = AnnotateOptions(**opts)  # type: ignore[arg-type]
    for stage in STAGE_NAMES:
        log = StageLog([stage])
        llnoalias.annotate(text, options=options, stages=log)
        alone = pipeline.run_until(text, stage, options)
        assert isinstance(alone, Result)
        assert alone.stage == stage
        assert alone.text() == log.text(), (stage, path)


def test_a_stage_alone_runs_no_later_stage(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[str] = []
    for stage in pipeline.PIPELINE[3:]:
        def spy(*args: object, _stage: object = stage, _run: object = stage.run) -> object:
            ran.append(_stage.name)  # type: ignore[attr-defined]
            return _run(*args)  # type: ignore[operator]
        monkeypatch.setattr(stage, "run", spy)
    got = pipeline.run_until(_read(STAGE_FIXTURES[0]), "ranges", AnnotateOptions(lds="all"))
    assert isinstance(got, PerFunction) and got.stage == "ranges"
    assert ran == []
    pipeline.run_until(_read(STAGE_FIXTURES[0]), "dma-safety", AnnotateOptions(lds="all"))
    assert ran == ["regions", "dma-safety"]


def test_results_are_snapshots_later_stages_do_not_change() -> None:
    """A stage's result keeps what it concluded: the scopes stage's withdrawals (a domain
    of one scope) do not show in the provenance stage's result."""
    text = _read(os.path.join(FIXTURES, "stages", "provenance_gep_phi.ll"))
    alone = pipeline.run_until(text, "provenance", AnnotateOptions(lds="all"))
    log = StageLog(["provenance", "scopes"])
    llnoalias.annotate(text, lds="all", stages=log)
    assert log.results["provenance"].text() == alone.text()


def test_an_unknown_stage_is_refused() -> None:
    with pytest.raises(ValueError, match="the stages are provenance"):
        pipeline.run_until("", "write")
    with pytest.raises(LLNoaliasError):
        pipeline.run_until("this is not IR\n", "provenance")


# ------------------------------------------------------------------ --stop-after
@pytest.mark.parametrize("stage", STAGE_NAMES)
def test_stop_after_prints_the_stage_and_writes_nothing_else(stage: str, tmp_path: object) -> None:
    path = STAGE_FIXTURES[-1]
    out = os.path.join(str(tmp_path), "out.ll")
    report = os.path.join(str(tmp_path), "report.json")
    res = run_cli([path, "--no-verify", "--lds", "all", "--stop-after", stage, "-o", out, "--report", report])
    assert res.exit_code == 0, res.stderr
    assert not os.path.exists(out) and not os.path.exists(report)
    assert res.stderr == ""
    printed = run_cli([path, "--no-verify", "--lds", "all", "--print-after", stage, "-o", os.devnull])
    assert res.stdout.decode() == printed.stderr
    assert res.stdout.decode().startswith(f"*** after {stage}: ")


def test_stop_after_takes_one_known_stage_and_one_input(tmp_path: object) -> None:
    res = run_cli([STAGE_FIXTURES[0], "--stop-after", "all"])
    assert res.exit_code == 2
    assert "unknown stage 'all'" in res.stderr
    res = run_cli([STAGE_FIXTURES[0], STAGE_FIXTURES[1], "--stop-after", "ranges", "--out-dir", str(tmp_path)])
    assert res.exit_code == 2
    assert "--stop-after takes a single input" in res.stderr
    assert os.listdir(str(tmp_path)) == []


def test_stop_after_reports_bad_input() -> None:
    res = run_cli(["-", "--stop-after", "provenance"], input_bytes=b"define void @f( {\n")
    assert res.exit_code != 0
    assert res.stdout == b""
    assert "error" in res.stderr


def test_the_fast_command_line_leaves_stop_after_to_click() -> None:
    from llnoalias.cli.entry import parse_fast

    assert parse_fast([STAGE_FIXTURES[0], "--stop-after", "ranges"], stdin_is_pipe=False) is None
    assert parse_fast([STAGE_FIXTURES[0], "--stop-after=scopes"], stdin_is_pipe=False) is None
