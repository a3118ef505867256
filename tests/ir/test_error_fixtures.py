"""Error fixtures (``fixtures/errors/*.ll``): each holds one marker on the line that fails,
``; expected-error@COL {{message fragment}}`` (or ``@+N:COL`` / ``@-N:COL`` for an error on
another line, or ``; expected-no-error``); the format is in ``fixtures/errors/README.md``
and ``tests/support/error_fixtures.py`` reads it.

For every fixture: the API (``annotate_text``, with the compiled and the pure-Python
reader) raises the error at the marker's line and column with a message holding the
fragment; the CLI exits 2 with ``FILE:LINE:COL: error:``, the source line and a caret on
stderr, and leaves an existing output file as it was and no other file behind; a whole
batch of the fixtures in a fresh process gives the same errors under several hash seeds
in both modes. A wrong line, column or message fails with a diff of two renderings of the
diagnostic (what the marker asks for, what llnoalias said)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.fileio import decode
from llnoalias.transform.pipeline import annotate_text
from tests.support.error_fixtures import (
    ERRORS_DIR,
    Expected,
    FixtureError,
    api_options,
    expected_of,
    fixture_paths,
    head_block,
    message_of,
    parse_markers,
    read_text,
    relpath,
    render,
    want_rendering,
)
from tests.support.files import ROOT
from tests.support.preserve import assert_preserved
from tests.support.run import run_cli
from tests.support.switches import switch_twin

PATHS = fixture_paths()
IDS = [p.stem for p in PATHS]
READERS = [pytest.param(False, id="compiled"), pytest.param(True, id="pure")]
PRECIOUS = b"precious\n"
#: the message of a failed comparison: which side of the diff is which
DIFF = "llnoalias's diagnostic (+) is not the one the marker asks for (-)"


def _api_error(text: str, name: str, args: tuple[str, ...]) -> LLNoaliasError | None:
    try:
        annotate_text(text, name, api_options(args))
    except LLNoaliasError as err:
        return err
    return None


def check_api(path: Path, pure: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``annotate_text`` on the fixture gives what its marker says."""
    exp = expected_of(path)
    text = read_text(path)
    if pure:  # the pure-Python reader, as LLNOALIAS_PURE selects it (the batch test runs that for real)
        switch_twin(monkeypatch, "body_reader", None)
    err = _api_error(text, path.name, exp.args)
    if exp.line is None:
        assert err is None, f"{path.name}: expected no error, got:\n{err.format() if err else ''}"
        return
    assert err is not None, f"{path.name}: read without error, but its marker (line {exp.marker_line}) expects one"
    assert err.exit_code == 2
    loc = err.location
    assert loc is not None, f"{path.name}: an error without a position: {err.format()}"
    got = "\n".join(err.format().split("\n")[:3])
    assert got == want_rendering(exp, path.name, err.message, text), DIFF
    # the position's own source line is the file's line at that position
    assert loc.source_line.rstrip("\r\n") == text.split("\n")[loc.line - 1].rstrip("\r")


@pytest.mark.parametrize("pure", READERS)
@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_api_error_at_the_marker(path: Path, pure: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    check_api(path, pure, monkeypatch)


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_cli_error_at_the_marker_exit_2_output_untouched(path: Path, tmp_path: Path) -> None:
    exp = expected_of(path)
    data = path.read_bytes()
    src = tmp_path / path.name
    src.write_bytes(data)
    out = tmp_path / "out.ll"
    out.write_bytes(PRECIOUS)
    res = run_cli([*exp.args, str(src), "-o", str(out)])
    if exp.line is None:
        assert res.exit_code == 0, res.stderr
        assert "error:" not in res.stderr, res.stderr
        assert_preserved(decode(data), decode(out.read_bytes()))
        assert run_cli(["explain", *exp.args, str(src)]).exit_code == 0
        return
    assert res.exit_code == 2, res.stderr
    assert "Traceback" not in res.stderr
    block = head_block(res.stderr, str(src))
    assert block is not None, f"no 'llnoalias: {src}:LINE:COL: error:' on stderr:\n{res.stderr}"
    assert block == want_rendering(exp, str(src), message_of(block), decode(data)), DIFF
    assert out.read_bytes() == PRECIOUS
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name, "out.ll"])
    assert src.read_bytes() == data
    # explain reads the input the same way and fails the same way
    res = run_cli(["explain", *exp.args, str(src)])
    assert res.exit_code == 2, res.stderr
    assert head_block(res.stderr, str(src)) == block


@pytest.mark.slow
@pytest.mark.parametrize("pure", ["", "1"], ids=["compiled", "pure"])
@pytest.mark.parametrize("seed", ["1", "2", "3", "4"])
def test_batch_in_a_fresh_process_under_several_hash_seeds(tmp_path: Path, pure: str, seed: str) -> None:
    """All fixtures in one run (``-j 1 --out-dir``): each error as its marker says, in file
    order whatever the hash seed, in the compiled and the pure-Python mode; an output only
    for the fixtures that expect no error."""
    outdir = tmp_path / "out"
    outdir.mkdir()
    env = {**os.environ, "LLNOALIAS_PURE": pure, "PYTHONHASHSEED": seed}
    env.pop("NO_COLOR", None)
    # one option set for all: the fixtures with a RUN line of their own are left out
    paths = [p for p in PATHS if not expected_of(p).args]
    names = [relpath(p) for p in paths]
    proc = subprocess.run([sys.executable, "-m", "llnoalias", "--no-verify", "-j", "1", *names,
                           "--out-dir", str(outdir)], capture_output=True, env=env, cwd=ROOT, timeout=120)
    stderr = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr[-3000:]
    got, want, differ = [], [], []
    for path, name in zip(paths, names, strict=True):
        exp = expected_of(path)
        if exp.line is None:
            continue
        block = head_block(stderr, name) or f"(no error for {name})"
        wanted = want_rendering(exp, name, message_of(block) if ": error: " in block else "", read_text(path))
        if block != wanted:  # only the fixtures that differ, each whole in the diff
            got.append(block)
            want.append(wanted)
            differ.append(name)
    assert "\n\n".join(got) == "\n\n".join(want), f"{DIFF}: {', '.join(differ)}"
    ok = sorted(p.name for p in paths if expected_of(p).line is None)
    assert sorted(p.name for p in outdir.iterdir()) == ok
    assert proc.returncode == (2 if len(ok) < len(paths) else 0)


# ------------------------------------------------------ the runner fails loudly


def test_there_are_fixtures_and_each_names_its_case() -> None:
    assert len(PATHS) >= 20, ERRORS_DIR
    assert (ERRORS_DIR / "README.md").exists()
    for path in PATHS:
        # (after a byte order mark, in the one fixture that is about it)
        text = read_text(path).removeprefix("\ufeff")
        assert text.startswith("; "), f"{path.name}: start with a comment that says what it tests"


GOOD = "define void @f() {\n  %x = add i32 %y, 1 ; expected-error@16 {{use of undefined value '%y'}}\n  ret void\n}\n"


@pytest.mark.parametrize("text, what", [
    ("define void @f() {\n  ret void\n}\n", "0 markers (none)"),
    (GOOD + "; expected-no-error\n", "2 markers (line 2, line 5)"),
    ("; expected-error@+1:1 {{x}}\n" + GOOD, "2 markers (line 1, line 3)"),
    (GOOD.replace("@16 ", "16 "), "a malformed marker"),
    (GOOD.replace("expected-error@16", "expected-error@+1"), "a malformed marker"),
    (GOOD.replace("{{use of undefined value '%y'}}", "{{ }}"), "an empty {{}}"),
    (GOOD.replace("@16", "@+9:1"), "outside the file"),
    (GOOD.replace("@16", "@-2:1"), "outside the file"),
    (GOOD.replace("expected-error@16", "expected-eror@16").replace("; ", "; expected-warning@1 {{w}} "),
     "a malformed marker"),
    ("define void @f() { expected-no-error\n", "must sit in a ';' comment"),
])
def test_a_fixture_without_exactly_one_good_marker_is_refused(text: str, what: str) -> None:
    with pytest.raises(FixtureError, match=f"t.ll.*{re.escape(what)}"):
        parse_markers(text, "t.ll")


@pytest.mark.parametrize("run", ["; RUN: llnoalias --lds all\n", "; RUN: opt %s\n", "; RUN: llnoalias %s %s\n",
                                 "; RUN: llnoalias %s\n; RUN: llnoalias --lds all %s\n"])
def test_a_bad_run_line_is_refused(run: str) -> None:
    with pytest.raises(FixtureError, match="at most one '; RUN: llnoalias OPTIONS %s' line"):
        parse_markers(run + GOOD, "t.ll")


def test_a_run_line_gives_the_options_to_the_api_and_the_cli() -> None:
    exp = parse_markers("; RUN: llnoalias --args noalias --may-alias 0,9 --lds all %s\n" + GOOD, "t.ll")
    assert exp.args == ("--args", "noalias", "--may-alias", "0,9", "--lds", "all")
    opts = api_options(exp.args)
    assert (opts.args, opts.may_alias, opts.lds, opts.regions) == ("noalias", ((0, 9),), "all", True)
    assert api_options(()) == api_options(("--lds", "dynamic"))


def test_the_marker_forms() -> None:
    assert parse_markers(GOOD, "t.ll") == Expected("t.ll", 2, 16, "use of undefined value '%y'", 2)
    assert parse_markers("; expected-error@+2:5 {{a {b}}}\nx\ny\n", "t.ll") == Expected("t.ll", 3, 5, "a {b}", 1)
    assert parse_markers("x\ny ; expected-error@-1:1 {{m}}\n", "t.ll") == Expected("t.ll", 1, 1, "m", 2)
    assert parse_markers("; expected-no-error\n", "t.ll") == Expected("t.ll", None, 0, "", 1)


@pytest.mark.parametrize("change, shows", [
    (("@16", "@17"), "t.ll:2:17: error:"),                      # a wrong column
    (("@16", "@+1:16"), "t.ll:3:16: error:"),                   # a wrong line
    (("'%y'}}", "'%z'}}"), "{{use of undefined value '%z'}}"),  # a wrong message
    (("expected-error@16 {{use of undefined value '%y'}}", "expected-no-error"), "expected no error"),
])
def test_a_wrong_marker_fails_with_a_diff(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          change: tuple[str, str], shows: str) -> None:
    """The runner's own check fails on a marker that is off by one column, one line, or
    names another message, and the failure shows the expected and the actual diagnostic."""
    path = tmp_path / "t.ll"
    path.write_text(GOOD)
    check_api(path, False, monkeypatch)
    path.write_text(GOOD.replace(*change))
    with pytest.raises(AssertionError) as info:
        check_api(path, False, monkeypatch)
    said = str(info.value)
    assert shows in said, said
    if "expected no error" not in shows:
        assert "+ llnoalias: t.ll:2:16: error: use of undefined value '%y'" in said, said  # what llnoalias said


def test_render_puts_the_caret_under_the_column() -> None:
    assert render("f.ll", 2, 4, "m", "a\n\tbcd\n") == "llnoalias: f.ll:2:4: error: m\n\tbcd\n\t  ^"
