"""Named stages and ``--print-after STAGE``: the stage table, the command-line option
(names, errors, several stages, ``-j``), and that printing a stage never changes the output.
What each stage concludes on real code is checked by the FileCheck fixtures in
``fixtures/stages``."""

from __future__ import annotations

import os
import re

import pytest

import llnoalias
from llnoalias.transform import pipeline, workers
from llnoalias.transform.pipeline import PIPELINE
from llnoalias.transform.stages import STAGE_NAMES, StageLog, parse_stage_names
from tests.support.files import DATA, FIXTURES
from tests.support.run import run_cli

HIP_SMEM = os.path.join(FIXTURES, "corpus", "clang19", "hip_smem_O3.ll")
HEADER = re.compile(r"^\*\*\* after ([a-z-]+): (\S+) \*\*\*$")

#: the second function reads an integer from memory and uses it as an LDS offset, the third
#: stores an LDS address: the analysis runs twice (``ModuleAnalysis.settle``)
with open(os.path.join(DATA, "settle_loaded.ll"), encoding="utf-8") as _fh:
    LOADED = _fh.read()


def _headers(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in map(HEADER.match, text.splitlines()) if m]


def _stages_of(text: str) -> list[str]:
    """The stages in the order their blocks come, each once."""
    out: list[str] = []
    for stage, _ in _headers(text):
        if stage not in out:
            out.append(stage)
    return out


# ------------------------------------------------------------------ the pipeline
def test_the_pipeline_is_the_stages_in_order() -> None:
    assert tuple(s.name for s in PIPELINE) == (*STAGE_NAMES, "write")
    assert STAGE_NAMES == ("provenance", "ranges", "arguments", "regions", "dma-safety", "scopes", "dma-scopes")
    assert all(s.concludes and s.runs and s.unit in ("function", "module") for s in PIPELINE)
    assert [s.unit for s in PIPELINE] == ["function"] * 3 + ["module"] * 5


def test_the_stages_run_in_the_pipelines_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop runs the stages in the tuple's order: the per-function ones for each
    function in turn, then each module stage once."""
    calls: list[str] = []
    for stage in PIPELINE:
        def spy(*args: object, _stage: object = stage, _run: object = stage.run) -> object:
            calls.append(_stage.name)  # type: ignore[attr-defined]
            return _run(*args)  # type: ignore[operator]
        monkeypatch.setattr(stage, "run", spy)
    with open(HIP_SMEM, encoding="utf-8") as f:
        llnoalias.annotate(f.read(), lds="all", stages=StageLog(["all"]))
    assert calls[:3] == ["provenance", "ranges", "arguments"]
    assert calls[-5:] == ["regions", "dma-safety", "scopes", "dma-scopes", "write"]
    assert set(calls[:-5]) == {"provenance", "ranges", "arguments"} and len(calls[:-5]) % 3 == 0


def test_the_help_names_every_stage() -> None:
    from llnoalias.cli.options import STAGES_HELP

    assert STAGES_HELP == ", ".join(STAGE_NAMES)
    res = run_cli(["annotate", "--help"])
    assert "--print-after" in res.stdout.decode()


@pytest.mark.parametrize(("given", "wanted"), [
    (["ranges"], ("ranges",)),
    (["scopes,provenance"], ("provenance", "scopes")),
    (["regions", "provenance", "regions"], ("provenance", "regions")),
    (["all"], STAGE_NAMES),
    (["ranges, all"], STAGE_NAMES),
])
def test_stage_names_parse_into_pipeline_order(given: list[str], wanted: tuple[str, ...]) -> None:
    assert parse_stage_names(given) == wanted


def test_an_unknown_stage_name_lists_the_stages() -> None:
    with pytest.raises(ValueError) as exc:
        parse_stage_names(["provenance,range"])
    assert "'range'" in str(exc.value)
    assert all(name in str(exc.value) for name in STAGE_NAMES)


# ------------------------------------------------------------------ the command line
def test_bad_stage_name_is_a_usage_error() -> None:
    res = run_cli([HIP_SMEM, "--no-verify", "--print-after", "lanes"])
    assert res.exit_code == 2
    assert "--print-after" in res.stderr and "'lanes'" in res.stderr
    assert all(name in res.stderr for name in STAGE_NAMES)
    assert res.stdout == b""


def test_bad_stage_name_touches_no_output(tmp_path: object) -> None:
    out = os.path.join(str(tmp_path), "out.ll")
    res = run_cli([HIP_SMEM, "--no-verify", "--print-after", "provenance,bogus", "-o", out])
    assert res.exit_code == 2
    assert not os.path.exists(out)


def test_several_stages_repeated_or_in_a_comma_list() -> None:
    one = run_cli([HIP_SMEM, "--no-verify", "--lds", "all", "--print-after", "scopes",
                   "--print-after", "provenance", "--print-after", "ranges"])
    two = run_cli([HIP_SMEM, "--no-verify", "--lds", "all", "--print-after", "ranges,scopes,provenance"])
    assert one.exit_code == two.exit_code == 0
    assert one.stderr == two.stderr
    assert _stages_of(one.stderr) == ["provenance", "ranges", "scopes"]
    # one block per function of the module for provenance, in the module's order
    fns = [h[1] for h in _headers(one.stderr) if h[0] == "provenance"]
    assert fns == ["@_Z5carvePfPKfS1_i", "@_Z11named_basesPfPKfj", "@_Z8pipelinePfPKfii", "@_Z4miscP4PairPKS_Pii"]


def test_all_stages_and_the_line_format() -> None:
    res = run_cli([HIP_SMEM, "--no-verify", "--lds", "all", "--print-after", "all"])
    assert res.exit_code == 0, res.stderr
    assert _stages_of(res.stderr) == list(STAGE_NAMES)
    for line in res.stderr.splitlines():
        if line.startswith("***") or line.startswith("llnoalias:"):
            continue
        # an access line, an argument's line, a module stage's summary, or "(nothing)" /
        # "(no claim changed)"
        assert (re.match(r"line \d+: .+ \[(lds|args)\] -> .+", line) or re.match(r"%\S+ -> .+", line)
                or line.startswith(("@", "domain ", "("))), line


def test_no_stage_text_without_the_option() -> None:
    res = run_cli([HIP_SMEM, "--no-verify", "--lds", "all"])
    assert res.exit_code == 0
    assert "*** after" not in res.stderr


def test_no_regions_says_the_region_stages_did_not_run() -> None:
    res = run_cli([HIP_SMEM, "--no-verify", "--no-regions", "--print-after", "ranges,regions"])
    assert res.exit_code == 0, res.stderr
    assert "(not measured: --no-regions)" in res.stderr
    assert "*** after regions: module ***\n(not run: --no-regions)" in res.stderr
    assert " bytes [" not in res.stderr


def test_several_inputs_refuse_the_printer(tmp_path: object) -> None:
    res = run_cli([HIP_SMEM, HIP_SMEM, "--out-dir", str(tmp_path), "--print-after", "provenance"])
    assert res.exit_code == 2
    assert "--print-after takes a single input" in res.stderr


OPTION_SETS = [[], ["--lds", "all", "--args", "noalias"], ["--lds", "all", "--no-regions"]]
OUTPUT_FILES = [HIP_SMEM, *(os.path.join(FIXTURES, "stages", f) for f in sorted(os.listdir(os.path.join(FIXTURES, "stages")))),
                os.path.join(FIXTURES, "dma", "window_no_claim.ll"),
                os.path.join(FIXTURES, "corpus", "flydsl", "cut_fp8_buffer_load_i32.ll")]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: " ".join(o) or "default")
@pytest.mark.parametrize("path", OUTPUT_FILES, ids=lambda p: os.path.relpath(p, FIXTURES))
def test_the_output_is_the_same_with_a_printer(path: str, options: list[str]) -> None:
    plain = run_cli([path, "--no-verify", *options])
    printed = run_cli([path, "--no-verify", *options, "--print-after", "all"])
    assert plain.exit_code == printed.exit_code == 0, printed.stderr
    assert printed.stdout == plain.stdout
    assert "*** after scopes: module ***" in printed.stderr


def test_the_report_is_the_same_with_a_printer() -> None:
    with open(HIP_SMEM, encoding="utf-8") as f:
        text = f.read()
    plain = llnoalias.annotate(text, lds="all", args="noalias")
    log = StageLog(["all"])
    printed = llnoalias.annotate(text, lds="all", args="noalias", stages=log)
    assert printed.text == plain.text
    assert printed.report.as_dict() == plain.report.as_dict()
    assert log.text().startswith("*** after provenance: @_Z5carvePfPKfS1_i ***\n")


# ------------------------------------------------------------------ -j and the second run
@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Workers for every function (no least size, bodies read where analysed), forks counted."""
    counted: list[int] = []
    monkeypatch.setattr(workers, "MIN_GROUP_INSTRUCTIONS", 1)
    monkeypatch.setattr(workers, "MIN_AVERAGE_INSTRUCTIONS", 0)
    monkeypatch.setattr(pipeline, "DEFER_CHARS", 0)
    fork_map = workers.fork_map

    def counting(groups, work, local):  # type: ignore[no-untyped-def]
        counted.append(len(groups) - 1)
        return fork_map(groups, work, local)

    monkeypatch.setattr(workers, "fork_map", counting)
    return counted


@pytest.mark.forks
def test_jobs_with_a_printer_run_in_one_process(forks: list[int], tmp_path: object) -> None:
    outs = {}
    for name, extra in (("plain", []), ("printed", ["--print-after", "all"])):
        out = os.path.join(str(tmp_path), f"{name}.ll")
        res = run_cli([HIP_SMEM, "--no-verify", "--lds", "all", "-j", "3", "-o", out, *extra])
        assert res.exit_code == 0, res.stderr
        with open(out, encoding="utf-8") as f:
            outs[name] = (f.read(), res.stderr)
    assert forks and forks[0] >= 1  # the plain run did fork
    assert len(forks) == 1  # the printed one did not
    assert outs["printed"][0] == outs["plain"][0]
    one = run_cli([HIP_SMEM, "--no-verify", "--lds", "all", "-j", "1", "--print-after", "all"])
    assert outs["printed"][1] == one.stderr


@pytest.mark.forks
def test_the_api_with_jobs_and_a_printer(forks: list[int]) -> None:
    with open(HIP_SMEM, encoding="utf-8") as f:
        text = f.read()
    many = llnoalias.annotate(text, lds="all", jobs=3)
    log = StageLog(["provenance"])
    printed = llnoalias.annotate(text, lds="all", jobs=3, stages=log)
    assert len(forks) == 1
    assert printed.text == many.text
    assert len(_headers(log.text())) == 4


def test_only_the_second_run_is_printed() -> None:
    """Once a store is seen to write an address, the analysis runs again: the stages print
    what that run concluded, once per function."""
    log = StageLog(["provenance", "scopes"])
    res = llnoalias.annotate(LOADED, stages=log)
    assert any("treated as addresses" in n for n in res.report.notes)
    text = log.text()
    assert [h for h in _headers(text) if h[0] == "provenance"] == [
        ("provenance", "@plain"), ("provenance", "@reads"), ("provenance", "@writes")]
    line = next(x for x in text.splitlines() if "store i8 3," in x and "[lds] -> unknown" in x)
    assert "integer loaded from memory" in line
    assert "store i8 3, ptr addrspace(3) %p, align 1 [lds] -> none [" in text



def test_the_fast_command_line_leaves_the_printer_to_click() -> None:
    from llnoalias.cli.entry import parse_fast

    assert parse_fast([HIP_SMEM, "--print-after", "ranges"], stdin_is_pipe=False) is None
    assert parse_fast([HIP_SMEM, "--print-after=all"], stdin_is_pipe=False) is None
