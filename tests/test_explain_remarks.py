"""``llnoalias explain`` and ``--remarks``: every access is shown, every untagged one
names a reason, and the remarks are LLVM's own YAML format (read by llvm-remarkutil)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
from conftest import FIXTURES, all_fixtures, fixture_id, run_cli

from llnoalias.fileio import read_input
from llnoalias.options import AnnotateOptions
from llnoalias.report.explain import explain
from llnoalias.report.remarks import function_name, quote, remarks_yaml
from llnoalias.transform.pipeline import annotate_text

CORPUS = all_fixtures()
OPTIONS = [AnnotateOptions(), AnnotateOptions(lds="all", args="noalias")]
REMARKUTIL = next((p for p in (shutil.which("llvm-remarkutil-19"), "/usr/lib/llvm-19/bin/llvm-remarkutil",
                               shutil.which("llvm-remarkutil")) if p and os.path.exists(p)), None)
SMEM_G = os.path.join(FIXTURES, "corpus", "clang19", "hip_smem_O3_g.ll")


@pytest.mark.parametrize("path", CORPUS, ids=[fixture_id(p) for p in CORPUS])
def test_every_untagged_access_names_a_reason(path: str) -> None:
    text = read_input(path)
    for opts in OPTIONS:
        res = annotate_text(text, path, opts)
        for a in res.report.accesses:
            if not a.tagged:
                assert a.reason.strip(), f"{path}:{a.line}: untagged without a reason ({a.domain})"
        shown = explain(res.report, res.module)
        n = sum(len(acc.domains) for f in shown for acc in f.accesses)
        assert n == len(res.report.accesses)
        for f in shown:
            for acc in f.accesses:
                for _, tagged, scopes, reason in acc.domains:
                    assert (tagged and scopes) or (not tagged and reason.strip())
        yaml = remarks_yaml(res.report, res.module)
        assert yaml.count("\n--- !Missed") + yaml.startswith("--- !Missed") == len(res.report.untagged)
        assert yaml.count("--- !Passed") == len(res.report.tagged)
        for doc in yaml.split("--- !Missed")[1:]:
            assert re.search(r"- Reason: +'[^']", doc), doc


def test_explain_plain_text_and_json() -> None:
    path = os.path.join(FIXTURES, "lds", "or_sub_xor.ll")
    res = run_cli(["explain", path])
    assert res.exit_code == 0, res.stderr
    out = res.stdout.decode()
    assert "not tagged" in out and "tagged, scope" in out
    assert re.search(r"line \d+: ", out)
    res = run_cli(["explain", "--json", path])
    data = json.loads(res.stdout)
    assert data["schema"] == "llnoalias.explain/1"
    reasons = [d["reason"] for f in data["functions"] for a in f["accesses"] for d in a["domains"] if not d["tagged"]]
    assert reasons and all(reasons)
    assert any("or" in r for r in reasons)


def test_explain_shows_source_lines_from_dbg() -> None:
    res = run_cli(["explain", "--json", SMEM_G])
    data = json.loads(res.stdout)
    sources = [a["source"] for f in data["functions"] for a in f["accesses"]]
    assert any(s and s.startswith("hip_smem.hip:") for s in sources)


def test_explain_bad_input_is_exit_2() -> None:
    res = run_cli(["explain", "-"], input_bytes=b"define void @f() {\n  %x = add i32 %nope, 1\n  ret void\n}\n")
    assert res.exit_code == 2
    assert re.match(r"llnoalias: <stdin>:2:\d+: error: ", res.stderr)


def test_remarks_format_mirrors_opt(tmp_path) -> None:
    out = tmp_path / "r.yaml"
    res = run_cli([SMEM_G, "--no-verify", "-o", str(tmp_path / "o.ll"), "--remarks", str(out)])
    assert res.exit_code == 0, res.stderr
    text = out.read_text()
    first = text.split("...\n")[0].splitlines()
    assert first[0] in ("--- !Passed", "--- !Missed")
    assert first[1] == "Pass:            llnoalias"
    assert re.fullmatch(r"Name: {12}(Tagged|Untagged)", first[2])
    assert re.fullmatch(r"DebugLoc: {8}\{ File: hip_smem\.hip, Line: \d+, Column: \d+ \}", first[3])
    assert first[4].startswith("Function:        ")
    assert first[5] == "Args:"
    assert all(line.startswith("  - ") for line in first[6:])
    assert "--- !Missed" in text and "Reason:" in text


def test_remarks_quoting() -> None:
    assert quote("plain_name") == "plain_name"
    assert quote("it's") == "'it''s'"
    assert quote("a: b") == "'a: b'"
    assert function_name('@"helper; fn"') == "helper; fn"
    assert function_name('@"\\01foo"') == "foo"


@pytest.mark.skipif(REMARKUTIL is None, reason="llvm-remarkutil is not installed (apt-get install llvm-19)")
@pytest.mark.parametrize("name", ["clang19/hip_smem_O3_g.ll", "odd/quoted_names.ll", "triton/amd_attn_gfx950_async.ll",
                                  "odd/crlf_bom_latin1.ll"])
def test_llvm_remarkutil_reads_the_remarks(name: str, tmp_path) -> None:
    path = os.path.join(FIXTURES, "corpus", name)
    res = annotate_text(read_input(path), path, AnnotateOptions(lds="all", args="noalias"))
    yaml = tmp_path / "r.yaml"
    yaml.write_bytes(remarks_yaml(res.report, res.module).encode("utf-8"))
    n = len(res.report.accesses)
    assert n > 0
    bs = tmp_path / "r.bitstream"
    proc = subprocess.run([REMARKUTIL, "yaml2bitstream", str(yaml), "-o", str(bs)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run([REMARKUTIL, "count", "--parser=yaml", "--group-by=function", str(yaml)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    total = sum(int(line.rsplit(",", 1)[1]) for line in proc.stdout.splitlines()[1:] if line.strip())
    assert total == n
    proc = subprocess.run([REMARKUTIL, "bitstream2yaml", str(bs), "-o", "-"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("--- !") == n
