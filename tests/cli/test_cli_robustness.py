"""The real command line under stress: closed pipes, Ctrl-C, unwritable
places, bad input next to an existing output, odd bytes, very long lines, many files."""

from __future__ import annotations

import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from llnoalias.fileio import decode
from tests.support.files import FIXTURES
from tests.support.preserve import assert_preserved
from tests.support.run import load_script

pytestmark = pytest.mark.slow

CMD = [sys.executable, "-m", "llnoalias.cli"]
BAD = b"define void @k() {\n  %x = add i32 %nope, 1\n  ret void\n}\n"
GOOD = os.path.join(FIXTURES, "lds", "two_bases_int.ll")
ERR_RE = re.compile(r"^llnoalias: (.+):(\d+):(\d+): error: ", re.M)


def run(args: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, *args], capture_output=True, timeout=120, **kw)


def leftovers(directory: str) -> list[str]:
    return [p for p in os.listdir(directory) if p.startswith(".llnoalias-")]


# ------------------------------------------------------------------ pipes


def test_closed_pipe_ends_quietly(tmp_path) -> None:
    big = tmp_path / "big.ll"
    big.write_bytes(load_script("bench_memory").generate(40_000).encode())
    err = tmp_path / "err"
    cmd = " ".join(f"'{c}'" for c in CMD)
    proc = subprocess.run(["bash", "-c", f"set -o pipefail; {cmd} --no-verify '{big}' 2>'{err}' | head -1; "
                           "echo \"status=${PIPESTATUS[0]}\""], capture_output=True, timeout=120)
    out = proc.stdout.decode()
    assert out.startswith('; ModuleID = "bench"\n'), out[:200]
    assert "status=0" in out
    assert err.read_text() == "", err.read_text()


def test_explain_closed_pipe_ends_quietly(tmp_path) -> None:
    src = os.path.join(FIXTURES, "corpus", "clang19", "hip_smem_O0_g.ll")
    cmd = " ".join(f"'{c}'" for c in CMD)
    proc = subprocess.run(["bash", "-c", f"{cmd} explain '{src}' | head -1"], capture_output=True, timeout=60)
    assert proc.stderr == b"", proc.stderr.decode()
    assert proc.stdout.count(b"\n") == 1


# ---------------------------------------------------------------- signals


@pytest.mark.parametrize("delay", [0.8, 1.5, 2.5])
def test_ctrl_c_leaves_no_partial_output(tmp_path, delay: float) -> None:
    big = tmp_path / "big.ll"
    big.write_bytes(load_script("bench_memory").generate(150_000).encode())
    out = tmp_path / "out.ll"
    out.write_bytes(b"; the previous output\n")
    proc = subprocess.Popen([*CMD, "--no-verify", str(big), "-o", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    if proc.returncode == 0:
        # finished before the signal: then the whole output is there
        assert out.read_bytes().startswith(b'; ModuleID = "bench"')
    else:
        # -SIGINT: interrupted while Python was still importing (before main() runs)
        assert proc.returncode in (130, -signal.SIGINT), err.decode()
        if proc.returncode == 130:
            assert b"Traceback" not in err and b"llnoalias: interrupted" in err, err.decode()
        # the signal can land after the rename that completes the output: then the output is
        # whole; never partial
        got = out.read_bytes()
        assert got == b"; the previous output\n" or (
            got.startswith(b'; ModuleID = "bench"') and got == big_annotated(big)), got[:80]
    assert leftovers(str(tmp_path)) == []


def big_annotated(path) -> bytes:
    from llnoalias.transform.pipeline import annotate_text

    return annotate_text(path.read_text(), str(path)).text.encode()


def test_ctrl_c_in_parallel_batch(tmp_path) -> None:
    bench = load_script("bench_memory")
    srcs = []
    for k in range(4):
        p = tmp_path / f"in{k}.ll"
        p.write_bytes(bench.generate(60_000).encode())
        srcs.append(str(p))
    outdir = tmp_path / "out"
    outdir.mkdir()
    proc = subprocess.Popen([*CMD, "--no-verify", "-j", "2", *srcs, "--out-dir", str(outdir)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(2.0)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode in (0, 130), err.decode()
    assert b"Traceback" not in err, err.decode()
    assert leftovers(str(outdir)) == []
    for p in outdir.iterdir():  # whatever was written is whole
        assert_preserved(decode((tmp_path / p.name).read_bytes()), decode(p.read_bytes()))


# ------------------------------------------------------- failed runs, files


def test_unwritable_output_directory_is_a_clear_error(tmp_path) -> None:
    res = run(["--no-verify", GOOD, "-o", str(tmp_path / "missing" / "out.ll")])
    assert res.returncode == 2
    assert re.match(r"llnoalias: error: cannot write .*does not exist", res.stderr.decode())
    afile = tmp_path / "afile"
    afile.write_text("x")
    res = run(["--no-verify", GOOD, "-o", str(afile / "out.ll")])
    assert res.returncode == 2 and res.stderr.startswith(b"llnoalias: error: cannot write"), res.stderr
    assert b"Traceback" not in res.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_read_only_directory(tmp_path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        res = run(["--no-verify", GOOD, "-o", str(ro / "out.ll")])
        assert res.returncode == 2
        assert b"not writable" in res.stderr
    finally:
        ro.chmod(0o700)


def test_existing_output_survives_bad_input(tmp_path) -> None:
    bad = tmp_path / "bad.ll"
    bad.write_bytes(BAD)
    out = tmp_path / "out.ll"
    out.write_bytes(b"precious\n")
    res = run([str(bad), "-o", str(out)])
    assert res.returncode == 2
    m = ERR_RE.match(res.stderr.decode())
    assert m and m.group(1) == str(bad) and m.group(2) == "2", res.stderr
    assert "%nope" in res.stderr.decode() and "^" in res.stderr.decode()
    assert out.read_bytes() == b"precious\n"
    assert leftovers(str(tmp_path)) == []
    # and the other outputs of a run too
    rem = tmp_path / "r.yaml"
    rem.write_bytes(b"old remarks\n")
    res = run([str(bad), "-o", str(out), "--remarks", str(rem), "--report", str(tmp_path / "rep.json")])
    assert res.returncode == 2 and rem.read_bytes() == b"old remarks\n"
    assert not (tmp_path / "rep.json").exists()


def test_missing_input_and_directory_input(tmp_path) -> None:
    res = run([str(tmp_path / "nope.ll")])
    assert res.returncode == 2 and b"no such file" in res.stderr
    res = run([str(tmp_path)])
    assert res.returncode == 2 and b"directory" in res.stderr


def test_bitcode_and_binary_input(tmp_path) -> None:
    res = run(["-"], input=b"BC\xc0\xde\x35\x14\x00\x00")
    assert res.returncode == 2 and b"bitcode" in res.stderr
    res = run(["-"], input=bytes(range(256)) * 4)
    assert res.returncode == 2 and b"Traceback" not in res.stderr


@pytest.mark.parametrize("name", ["odd/crlf_latin1.ll", "odd/quoted_names.ll"])
def test_odd_bytes_round_trip_through_the_cli(tmp_path, name: str) -> None:
    src = os.path.join(FIXTURES, "corpus", name)
    data = open(src, "rb").read()
    out = tmp_path / "out.ll"
    res = run([src, "-o", str(out), "--lds", "all", "--args", "noalias"])
    assert res.returncode == 0, res.stderr
    got = out.read_bytes()
    assert got != data  # something was tagged
    assert_preserved(decode(data), decode(got))
    assert got.startswith(b"\xef\xbb\xbf") == data.startswith(b"\xef\xbb\xbf")
    if b"\r\n" in data:
        assert got.count(b"\n") == got.count(b"\r\n")
    # stdin to stdout gives the same bytes
    res2 = run(["-", "--lds", "all", "--args", "noalias"], input=data)
    assert res2.returncode == 0 and res2.stdout == got


# -------------------------------------------------------------- long lines


def test_one_megabyte_comment_line(tmp_path) -> None:
    src = open(GOOD, "rb").read()
    data = b"; " + b"x\xe9{(" * 262_144 + b"\n" + src
    p = tmp_path / "long.ll"
    p.write_bytes(data)
    res = run(["--no-verify", str(p)])  # run()'s timeout is the guard against a hang
    assert res.returncode == 0, res.stderr
    assert_preserved(decode(data), decode(res.stdout))
    assert res.stdout != data


def test_instruction_with_100k_operands(tmp_path) -> None:
    n = 100_000
    call_args = ", ".join(f"i32 {k}" for k in range(n))
    phi_in = ", ".join(f"[ {k}, %entry ]" for k in range(1))
    text = (
        'target triple = "amdgcn-amd-amdhsa"\n'
        "@lds_a = external addrspace(3) global [0 x i8]\n@lds_b = external addrspace(3) global [0 x i8]\n"
        "declare i32 @sum(...)\n"
        "define amdgpu_kernel void @k() {\nentry:\n"
        f"  %s = call i32 (...) @sum({call_args})\n"
        "  %sw = add i32 %s, 1\n"
        f"  switch i32 %sw, label %done [ {' '.join(f'i32 {k}, label %done' for k in range(1, 20_000))} ]\n"
        "done:\n"
        f"  %ph = phi i32 {phi_in}, [ 0, %entry ]\n"
        "  store i32 %s, ptr addrspace(3) @lds_a, align 4\n"
        # (@lds_b's read at 64: dynamic LDS names start at one address, so only bytes apart
        # make two scopes)
        "  %v = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @lds_b, i32 64), align 4\n"
        "  ret void\n}\n"
    )
    p = tmp_path / "wide.ll"
    p.write_bytes(text.encode())
    res = run(["--no-verify", str(p)])  # run()'s timeout is the guard against a hang
    assert res.returncode == 0, res.stderr.decode()[-2000:]
    assert_preserved(text, decode(res.stdout))
    assert b"!alias.scope" in res.stdout


# -------------------------------------------------------------- many files


def test_parallel_batch_with_one_bad_file(tmp_path) -> None:
    srcs = sorted(glob.glob(os.path.join(FIXTURES, "lds", "*.ll")))[:6]
    bad = tmp_path / "zz_bad.ll"
    bad.write_bytes(BAD)
    outdir = tmp_path / "out"
    outdir.mkdir()
    (outdir / "zz_bad.ll").write_bytes(b"previous\n")
    res = run(["--no-verify", "-j", "3", *srcs, str(bad), "--out-dir", str(outdir)])
    assert res.returncode == 2
    err = res.stderr.decode()
    m = ERR_RE.search(err)
    assert m and m.group(1) == str(bad), err
    assert "summary" in err and "failed" in err
    for s in srcs:
        o = outdir / os.path.basename(s)
        assert o.exists()
        assert_preserved(decode(open(s, "rb").read()), decode(o.read_bytes()))
    assert (outdir / "zz_bad.ll").read_bytes() == b"previous\n"
    assert leftovers(str(outdir)) == []


def test_several_inputs_need_out_dir_and_refuse_o(tmp_path) -> None:
    res = run([GOOD, GOOD.replace("two_bases_int", "one_base")])
    assert res.returncode == 2 and b"--out-dir" in res.stderr
    res = run([GOOD, GOOD.replace("two_bases_int", "one_base"), "-o", str(tmp_path / "x.ll"),
               "--out-dir", str(tmp_path)])
    assert res.returncode == 2 and b"-o" in res.stderr
    assert not (tmp_path / "x.ll").exists()
    res = run([GOOD, GOOD, "--out-dir", str(tmp_path)])
    assert res.returncode == 2 and b"would both be written" in res.stderr
    res = run([GOOD, "--out-dir", str(tmp_path / "missing")])  # created, as LLVM's tools do
    assert res.returncode == 0 and (tmp_path / "missing" / os.path.basename(GOOD)).exists(), res.stderr


def test_serial_batch_matches_single_runs(tmp_path) -> None:
    srcs = sorted(glob.glob(os.path.join(FIXTURES, "lds", "*.ll")))[:4]
    outdir = tmp_path / "o"
    outdir.mkdir()
    res = run(["--no-verify", *srcs, "--out-dir", str(outdir)])
    assert res.returncode == 0, res.stderr
    for s in srcs:
        single = run(["--no-verify", s]).stdout
        assert (outdir / os.path.basename(s)).read_bytes() == single


def test_progress_bar_only_on_a_terminal(tmp_path) -> None:
    if shutil.which("script") is None:
        pytest.skip("no 'script' to run under a pseudo-terminal")
    srcs = sorted(glob.glob(os.path.join(FIXTURES, "lds", "*.ll")))[:3]
    outdir = tmp_path / "o"
    outdir.mkdir()
    res = run(["--no-verify", "-j", "2", *srcs, "--out-dir", str(outdir)])
    assert b"annotating" not in res.stderr  # no bar when stderr is a pipe
    assert res.returncode == 0


@pytest.mark.parametrize("cpus,parallel", [(1, False), (3, True)])
def test_batch_jobs_zero_counts_the_usable_processors(tmp_path, monkeypatch, cpus: int, parallel: bool) -> None:
    """``-j 0`` on a batch runs as many workers as this process may run on (its affinity,
    as a single file's ``-j 0``), not the machine's count."""
    from llnoalias.cli import batch
    from llnoalias.options import AnnotateOptions
    from llnoalias.transform import workers

    srcs = sorted(glob.glob(os.path.join(FIXTURES, "lds", "*.ll")))[:2]
    seen: dict[str, int] = {}

    def fake_parallel(paths, out_dir, options, verify, jobs, policy):  # type: ignore[no-untyped-def]
        seen["jobs"] = jobs
        return batch._run_serial(paths, out_dir, options, verify, policy)

    monkeypatch.setattr(workers, "usable_cpus", lambda: cpus)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(batch, "_run_parallel", fake_parallel)
    results = batch.run_batch(srcs, str(tmp_path), AnnotateOptions(), verify=False, jobs=0, progress=False)
    assert len(results) == 2
    assert seen == ({"jobs": cpus} if parallel else {})
