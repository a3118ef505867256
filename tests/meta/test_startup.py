"""Start-up: a run imports only what it uses. No timings here (the machines are
shared and noisy); what is checked is which modules a fresh process has loaded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from llnoalias.cli.entry import FastRun, parse_fast
from tests.support.files import ROOT

FIXTURE = ROOT / "fixtures" / "corpus" / "clang19" / "hip_gemm_O3.ll"
#: what the annotate path must not load: the CLI's libraries, llvmlite, the code
#: generators and assembly counters, and modules only other commands need
HEAVY = ("rich", "click", "llvmlite", "llnoalias.backends", "llnoalias.stats", "llnoalias.report.remarks",
         "llnoalias.report.explain", "tempfile", "subprocess")


#: standard modules that cost a start several ms each and that nothing on the annotate or
#: check path needs at run time (``typing`` only for annotations, under TYPE_CHECKING)
SLOW_STDLIB = ("typing", "dataclasses", "inspect")


def _modules_after(code: str, *args: str) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", code + "\nimport sys, json\n"
                           "print(json.dumps(sorted(sys.modules)))", *args],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _heavy(mods: list[str]) -> list[str]:
    return [m for m in mods if any(m == h or m.startswith(h + ".") for h in HEAVY)]


def test_the_api_loads_nothing_heavy() -> None:
    mods = _modules_after("import sys, llnoalias\nllnoalias.annotate(open(sys.argv[1]).read())", str(FIXTURE))
    assert not _heavy(mods), _heavy(mods)
    assert not [m for m in mods if m.startswith("llnoalias.cli")]
    assert not [m for m in mods if m in SLOW_STDLIB], [m for m in mods if m in SLOW_STDLIB]


def test_import_llnoalias_loads_nothing() -> None:
    mods = _modules_after("import llnoalias")
    assert [m for m in mods if m.startswith("llnoalias")] == ["llnoalias"]


def test_the_plain_command_line_does_not_import_click(tmp_path: Path) -> None:
    out = tmp_path / "out.ll"
    code = ("import sys\nfrom llnoalias.cli.entry import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    assert not e.code, e.code\n")
    mods = _modules_after(code, "--no-verify", "--lds", "all", str(FIXTURE), "-o", str(out))
    assert not _heavy(mods), _heavy(mods)
    assert not [m for m in mods if m in SLOW_STDLIB]
    assert out.read_text() == __import__("llnoalias").annotate(FIXTURE.read_text(), lds="all").text


def test_the_checked_command_line_loads_no_slow_standard_modules(tmp_path: Path) -> None:
    """With verification the parent starts the checking child (another process) through
    :mod:`llnoalias.backends.pending_check`, which spawns it without ``subprocess`` or
    ``tempfile`` (7 ms each) and reads its verdict without the rest of the backend; none of
    ``typing``, ``dataclasses``, ``inspect`` either."""
    out = tmp_path / "out.ll"
    code = ("import sys\nfrom llnoalias.cli.entry import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    assert not e.code, e.code\n")
    mods = _modules_after(code, "--lds", "all", str(FIXTURE), "-o", str(out))
    assert "llnoalias.backends.pending_check" in mods
    assert not [m for m in mods if m in ("subprocess", "tempfile", "llnoalias.backends.llvmlite_backend")]
    assert not [m for m in mods if m in SLOW_STDLIB], [m for m in mods if m in SLOW_STDLIB]


def test_regexes_of_the_operand_reader_compile_on_first_use() -> None:
    mods = _modules_after("import llnoalias.ir.operands_fast as f\n"
                          "assert all(type(v).__name__ != 'Pattern' for v in vars(f).values())")
    assert "llnoalias.ir.operands_fast" in mods


@pytest.mark.parametrize("argv, expected", [
    (["in.ll"], FastRun(path="in.ll")),
    (["in.ll", "-o", "out.ll", "--no-verify"], FastRun(path="in.ll", output="out.ll", no_verify=True)),
    (["--lds=all", "--args", "noalias", "--no-regions", "-", "-o", "-"],
     FastRun(lds="all", args="noalias", regions=False, output="-")),
    (["--may-alias", "0,1", "--may-alias=2,3", "x.ll"], FastRun(path="x.ll", may_alias=["0,1", "2,3"])),
    (["--stats", "--report", "r.json", "--remarks", "r.yaml", "x.ll"],
     FastRun(path="x.ll", show_stats=True, report_path="r.json", remarks_path="r.yaml")),
    (["--no-verify"], FastRun(no_verify=True)),
    (["-j", "2", "x.ll"], FastRun(path="x.ll", jobs=2)),
    (["--jobs=1", "x.ll"], FastRun(path="x.ll", jobs=1)),
])
def test_fast_path_reads_plain_command_lines(argv: list[str], expected: FastRun) -> None:
    assert parse_fast(argv, stdin_is_pipe=False) == expected


@pytest.mark.parametrize("argv", [
    ["--help"], ["-h"], ["--version"], ["compile", "x.ll"], ["annotate", "x.ll"], ["a.ll", "b.ll"],
    ["--out-dir", "d", "x.ll"], ["-j", "-1", "x.ll"], ["-j", "two", "x.ll"], ["-j2", "x.ll"],
    ["-j", "1", "--jobs", "2", "x.ll"], ["--lds", "bogus", "x.ll"], ["--lds"],
    ["--may-alias", "0", "x.ll"], ["-o", "--stats", "x.ll"], ["--no-verify", "--no-verify", "x.ll"],
    ["-oout.ll", "x.ll"], ["--", "x.ll"], ["--regions", "--no-regions", "x.ll"], ["--bogus", "x.ll"],
    ["x.ll", "stats"], ["-o", "a", "-o", "b", "x.ll"],
])
def test_anything_else_goes_to_click(argv: list[str]) -> None:
    assert parse_fast(argv, stdin_is_pipe=False) is None


def test_no_arguments_is_a_filter_only_on_a_pipe() -> None:
    assert parse_fast([], stdin_is_pipe=True) == FastRun()
    assert parse_fast([], stdin_is_pipe=False) is None


@pytest.mark.slow
@pytest.mark.parametrize("argv", [
    ["--no-verify", "--lds", "all", str(FIXTURE)],
    ["--no-verify", "--may-alias", "0,1", "--args", "noalias", str(FIXTURE)],
    ["--no-verify", "-j", "2", str(FIXTURE)],
    ["--no-verify", str(ROOT / "no-such-file.ll")],
])
def test_fast_path_and_click_give_the_same_run(argv: list[str]) -> None:
    runs = []
    for env in ({}, {"LLNOALIAS_NO_FAST_CLI": "1"}):
        proc = subprocess.run([sys.executable, "-m", "llnoalias", *argv], capture_output=True,
                              env={**__import__("os").environ, **env}, cwd=ROOT)
        runs.append((proc.returncode, proc.stdout, proc.stderr))
    assert runs[0] == runs[1]


def test_regex_cache_gives_what_re_compile_gives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    from llnoalias.ir import lazyre

    cache = tmp_path / "cache.marshal"
    monkeypatch.setattr(lazyre, "_cache_file", lambda: str(cache))
    monkeypatch.setattr(lazyre, "_cache", None)
    monkeypatch.setattr(lazyre.sys, "dont_write_bytecode", False)
    monkeypatch.delenv("LLNOALIAS_NO_RE_CACHE", raising=False)
    patterns = [(r"(?P<name>%[-a-zA-Z$._0-9]+)\s*=\s*(\w+)", 0), (r"^\}[ \t]*$", re.M),
                (r"x{2,5}?[^\n]*(a|b)+", re.S), (r"\bi(\d+)\s+(-?\d+)", 0)]
    fresh = [lazyre.compile_cached(p, f) for p, f in patterns]
    lazyre._save()
    monkeypatch.setattr(lazyre, "_cache", None)
    cached = [lazyre.compile_cached(p, f) for p, f in patterns]
    assert lazyre._cache is not None and len(lazyre._cache) == len(patterns)
    text = "%a.1 = add i32 7, 8\n}\nxxxab i64 -3\n"
    for (p, f), one, two in zip(patterns, fresh, cached, strict=True):
        ref = re.compile(p, f)
        for got in (one, two):
            assert (got.pattern, got.flags, got.groups, got.groupindex) == (ref.pattern, ref.flags, ref.groups,
                                                                          ref.groupindex)
            assert [m.span() for m in got.finditer(text)] == [m.span() for m in ref.finditer(text)]
    cache.write_bytes(b"junk")
    monkeypatch.setattr(lazyre, "_cache", None)
    assert lazyre.compile_cached(*patterns[0]).pattern == patterns[0][0]


def test_the_console_script_ends_without_teardown_but_loses_nothing(tmp_path: Path) -> None:
    """The console script's plain run ends with ``os._exit`` (no interpreter teardown):
    its output on a pipe is complete, its status 0, and the regex cache it filled is saved."""
    import os

    cache = tmp_path / "re.marshal"
    code = ("import sys\nfrom llnoalias.ir import lazyre\n"
            f"lazyre._cache_file = lambda: {str(cache)!r}\n"
            "from llnoalias.cli.entry import main\nmain()\nraise SystemExit('main() returned')\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "LLNOALIAS_NO_RE_CACHE")}
    proc = subprocess.run([sys.executable, "-c", code, "--no-verify", "--lds", "all", str(FIXTURE)],
                          capture_output=True, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode() == __import__("llnoalias").annotate(FIXTURE.read_text(), lds="all").text
    assert cache.exists() and cache.stat().st_size > 0
