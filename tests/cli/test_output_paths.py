"""Output paths as LLVM's tools treat them (design section 6), through the real
command line: a device or FIFO is written through and never replaced, a symlink is
followed (its target replaced, the link kept), ``-`` is stdout for ``-o``, ``--report`` and
``--remarks``, ``--out-dir`` is created; a failed run leaves each of them as it was."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.support.files import FIXTURES

pytestmark = pytest.mark.slow

CMD = [sys.executable, "-m", "llnoalias.cli"]
GOOD = os.path.join(FIXTURES, "lds", "two_bases_int.ll")
BAD = b"define void @k() {\n  %x = add i32 %nope, 1\n  ret void\n}\n"
#: the fast path (no click) and click read the plain command line each their own way
FAST = {"LLNOALIAS_NO_FAST_CLI": ""}
CLICK = {"LLNOALIAS_NO_FAST_CLI": "1"}


def run(args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, *args], capture_output=True, timeout=timeout, cwd=cwd,
                          env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def expected() -> bytes:
    """What a plain run writes to stdout: the bytes every other kind of output must get."""
    res = run(["--no-verify", GOOD])
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.fixture
def bad(tmp_path: Path) -> str:
    p = tmp_path / "bad.ll"
    p.write_bytes(BAD)
    return str(p)


def leftovers(*dirs: Path) -> list[str]:
    return [p.name for d in dirs for p in d.iterdir() if p.name.startswith(".llnoalias-")]


def assert_failed(res: subprocess.CompletedProcess) -> None:
    assert res.returncode == 2, res.stderr
    assert b"bad.ll:2:" in res.stderr and b"error:" in res.stderr, res.stderr
    assert b"Traceback" not in res.stderr


# ------------------------------------------------------------------ devices


def _make_device(path: Path, minor: int) -> None:
    """A character device like /dev/null (1, 3) or /dev/full (1, 7), or a skip."""
    if os.geteuid() != 0:
        pytest.skip("making a character device (mknod) needs root")
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        fd = os.open(path, os.O_WRONLY)
    except OSError as exc:
        pytest.skip(f"no usable character device in the temporary directory: {exc}")
    os.close(fd)


def _is_device(path: Path) -> bool:
    return stat.S_ISCHR(os.lstat(path).st_mode)


@pytest.mark.parametrize("env", [FAST, CLICK], ids=["fast", "click"])
def test_a_device_is_written_through_never_replaced(tmp_path: Path, env: dict[str, str], bad: str) -> None:
    null = tmp_path / "null"
    _make_device(null, 3)
    res = run(["--no-verify", GOOD, "-o", str(null), "--stats"], env=env)
    assert res.returncode == 0, res.stderr
    assert _is_device(null), "the device was replaced by a file"
    assert res.stdout == b""
    assert b"roots in" in res.stderr and b"accesses" in res.stderr  # -o /dev/null --stats: stats only
    assert_failed(run(["--no-verify", bad, "-o", str(null)], env=env))
    assert _is_device(null)
    assert leftovers(tmp_path) == []


def test_a_device_really_gets_the_bytes(tmp_path: Path, bad: str) -> None:
    """/dev/full refuses every write: an error shows the output went into the device (a
    rename over it would have succeeded), and a failed run never got as far as writing."""
    full = tmp_path / "full"
    _make_device(full, 7)
    res = run(["--no-verify", GOOD, "-o", str(full)])
    assert res.returncode == 2
    assert res.stderr.startswith(b"llnoalias: error: cannot write") and b"space" in res.stderr, res.stderr
    assert _is_device(full)
    res = run(["--no-verify", bad, "-o", str(full)])
    assert_failed(res)
    assert b"cannot write" not in res.stderr
    assert _is_device(full)


# ----------------------------------------------------------------- symlinks


@pytest.mark.parametrize("env", [FAST, CLICK], ids=["fast", "click"])
def test_a_symlink_is_followed_and_kept(tmp_path: Path, env: dict[str, str], expected: bytes, bad: str) -> None:
    """The link lives in one directory and points (relatively) into another: the target is
    replaced in its own directory, with its permissions, and the link stays a link."""
    (tmp_path / "real").mkdir()
    (tmp_path / "links").mkdir()
    target = tmp_path / "real" / "out.ll"
    target.write_bytes(b"previous\n")
    target.chmod(0o640)
    link = tmp_path / "links" / "out.ll"
    link.symlink_to(os.path.join("..", "real", "out.ll"))
    assert_failed(run(["--no-verify", bad, "-o", str(link)], env=env))
    assert link.is_symlink() and target.read_bytes() == b"previous\n"
    res = run(["--no-verify", GOOD, "-o", str(link)], env=env)
    assert res.returncode == 0, res.stderr
    assert link.is_symlink() and os.readlink(link) == os.path.join("..", "real", "out.ll")
    assert target.read_bytes() == expected
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert leftovers(tmp_path / "real", tmp_path / "links") == []


def test_a_chain_of_symlinks_replaces_the_last_target(tmp_path: Path, expected: bytes) -> None:
    target = tmp_path / "t.ll"
    target.write_bytes(b"x")
    (tmp_path / "b").symlink_to("t.ll")
    (tmp_path / "a").symlink_to("b")
    res = run(["--no-verify", GOOD, "-o", str(tmp_path / "a")])
    assert res.returncode == 0, res.stderr
    assert os.readlink(tmp_path / "a") == "b" and os.readlink(tmp_path / "b") == "t.ll"
    assert target.read_bytes() == expected


def test_a_dangling_symlink_gets_its_target_created(tmp_path: Path, expected: bytes, bad: str) -> None:
    (tmp_path / "sub").mkdir()
    link = tmp_path / "out.ll"
    link.symlink_to(os.path.join("sub", "new.ll"))
    assert_failed(run(["--no-verify", bad, "-o", str(link)]))
    assert link.is_symlink() and not (tmp_path / "sub" / "new.ll").exists()
    res = run(["--no-verify", GOOD, "-o", str(link)])
    assert res.returncode == 0, res.stderr
    assert link.is_symlink() and (tmp_path / "sub" / "new.ll").read_bytes() == expected
    # a link into a directory that does not exist is an error, not a replaced link
    gone = tmp_path / "gone.ll"
    gone.symlink_to(os.path.join("nodir", "x.ll"))
    res = run(["--no-verify", GOOD, "-o", str(gone)])
    assert res.returncode == 2 and b"does not exist" in res.stderr, res.stderr
    assert gone.is_symlink()


def test_report_and_remarks_follow_symlinks(tmp_path: Path, bad: str) -> None:
    rep, rem = tmp_path / "rep.json", tmp_path / "rem.yaml"
    rep.write_text("old report")
    rem.write_text("old remarks")
    (tmp_path / "r").symlink_to("rep.json")
    (tmp_path / "m").symlink_to("rem.yaml")
    args = ["--report", str(tmp_path / "r"), "--remarks", str(tmp_path / "m"), "-o", str(tmp_path / "sink.ll")]
    assert_failed(run(["--no-verify", bad, *args]))
    assert rep.read_text() == "old report" and rem.read_text() == "old remarks"
    res = run(["--no-verify", GOOD, *args])
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "r").is_symlink() and (tmp_path / "m").is_symlink()
    assert json.loads(rep.read_text())["schema"] == "llnoalias.report/1"
    assert rem.read_text().startswith("--- !")


def test_gate_baseline_through_a_symlink(tmp_path: Path) -> None:
    ptx = tmp_path / "k.ptx"
    ptx.write_text(".visible .entry k()\n{\n\tld.global.nc.f32 %f1, [%rd1];\n\tst.global.f32 [%rd2], %f1;\n"
                   "\tret;\n}\n")
    base = tmp_path / "base.json"
    base.write_text("{}")
    (tmp_path / "b").symlink_to("base.json")
    res = run(["gate", "--update", "--baseline", str(tmp_path / "b"), str(ptx)])
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "b").is_symlink()
    assert json.loads(base.read_text())["schema"] == "llnoalias.stats/1"


# -------------------------------------------------------------------- FIFOs


def _reader(path: Path, got: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(path, "rb") as fh:
            got.append(fh.read())

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("env", [FAST, CLICK], ids=["fast", "click"])
def test_a_fifo_is_written_through(tmp_path: Path, env: dict[str, str], expected: bytes) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    t = _reader(fifo, got)
    res = run(["--no-verify", GOOD, "-o", str(fifo)], env=env, timeout=60)
    t.join(30)
    assert res.returncode == 0, res.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got == [expected]
    assert leftovers(tmp_path) == []


def test_a_failed_run_writes_nothing_into_a_fifo(tmp_path: Path, bad: str) -> None:
    """A reader is there (a writer would get in), and after the failed run it finds no
    writer and no bytes; the FIFO is still a FIFO."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        for args in (["-o", str(fifo)], ["-o", str(tmp_path / "sink.ll"), "--report", str(fifo)],
                     ["-o", str(tmp_path / "sink.ll"), "--remarks", str(fifo)]):
            assert_failed(run(["--no-verify", bad, *args], timeout=60))
            try:
                data = os.read(fd, 1 << 16)
            except BlockingIOError:
                data = b""
            assert data == b""
    finally:
        os.close(fd)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_compile_writes_through_a_fifo(tmp_path: Path) -> None:
    pytest.importorskip("llvmlite", reason="compile generates code with llvmlite's LLVM")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    t = _reader(fifo, got)
    src = os.path.join(FIXTURES, "corpus", "clang19", "hip_smem_O3.ll")
    res = run(["compile", src, "-o", str(fifo)], timeout=120)
    t.join(30)
    assert res.returncode == 0, res.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got and b"s_endpgm" in got[0]


# ---------------------------------------------------------------- '-' is stdout


def test_dash_is_stdout_for_o_report_and_remarks(tmp_path: Path, expected: bytes, bad: str) -> None:
    res = run(["--no-verify", GOOD, "-o", "-"], cwd=tmp_path)
    assert res.returncode == 0 and res.stdout == expected
    for env in (FAST, CLICK):
        res = run(["--no-verify", GOOD, "-o", "out.ll", "--report", "-"], env=env, cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        assert json.loads(res.stdout)["schema"] == "llnoalias.report/1"
        assert (tmp_path / "out.ll").read_bytes() == expected
        res = run(["--no-verify", GOOD, "-o", "sink.ll", "--remarks", "-"], env=env, cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        assert res.stdout.startswith(b"--- !")
        assert_failed(run(["--no-verify", bad, "-o", "sink.ll", "--report", "-"], env=env, cwd=tmp_path))
        assert not (tmp_path / "-").exists()
    (tmp_path / "out.ll").write_bytes(b"previous")
    res = run(["--no-verify", bad, "-o", "out.ll", "--report", "-", "--remarks", "r.yaml"], cwd=tmp_path)
    assert_failed(res)
    assert res.stdout == b"" and (tmp_path / "out.ll").read_bytes() == b"previous"
    assert not (tmp_path / "r.yaml").exists() and not (tmp_path / "-").exists()


def test_report_to_dev_stdout_on_a_pipe(tmp_path: Path) -> None:
    res = run(["--no-verify", GOOD, "-o", str(tmp_path / "o.ll"), "--report", "/dev/stdout"])
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["schema"] == "llnoalias.report/1"


@pytest.mark.parametrize("env", [FAST, CLICK], ids=["fast", "click"])
def test_two_documents_on_stdout_are_refused(tmp_path: Path, env: dict[str, str]) -> None:
    for args in (["--report", "-"], ["-o", "-", "--remarks", "-"], ["-o", "x.ll", "--report", "-", "--remarks", "-"]):
        res = run(["--no-verify", GOOD, *args], env=env, cwd=tmp_path)
        assert res.returncode == 2 and b"would both be written to stdout" in res.stderr, res.stderr
        assert res.stdout == b""
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ --out-dir


def test_out_dir_is_created(tmp_path: Path, expected: bytes, bad: str) -> None:
    out = tmp_path / "new" / "deeper"
    assert_failed(run(["--no-verify", bad, "--out-dir", str(out)]))
    assert not (tmp_path / "new").exists()  # every input failed: nothing made
    other = os.path.join(FIXTURES, "lds", "one_base.ll")
    res = run(["--no-verify", GOOD, other, "--out-dir", str(out), "-j", "2"])
    assert res.returncode == 0, res.stderr
    assert (out / "two_bases_int.ll").read_bytes() == expected
    assert (out / "one_base.ll").exists()


def test_out_dir_under_a_file_is_an_error(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    res = run(["--no-verify", GOOD, "--out-dir", str(afile / "sub")])
    assert res.returncode == 2 and b"is not a directory" in res.stderr, res.stderr
    assert afile.read_text() == "x"


def test_out_dir_follows_a_symlinked_output(tmp_path: Path, expected: bytes) -> None:
    out = tmp_path / "o"
    out.mkdir()
    (tmp_path / "keep.ll").write_bytes(b"old")
    (out / "two_bases_int.ll").symlink_to(tmp_path / "keep.ll")
    res = run(["--no-verify", GOOD, "--out-dir", str(out)])
    assert res.returncode == 0, res.stderr
    assert (out / "two_bases_int.ll").is_symlink() and (tmp_path / "keep.ll").read_bytes() == expected


def test_output_that_is_a_directory_is_an_error(tmp_path: Path) -> None:
    res = run(["--no-verify", GOOD, "-o", str(tmp_path)])
    assert res.returncode == 2 and b"is a directory" in res.stderr, res.stderr
