"""``llnoalias explain`` and ``--remarks``: every access is shown, every untagged one
names a reason, and the remarks are LLVM's own YAML format (read by llvm-remarkutil)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from llnoalias.fileio import read_input
from llnoalias.options import AnnotateOptions
from llnoalias.report.explain import explain
from llnoalias.report.remarks import function_name, quote, remarks_yaml
from llnoalias.transform.pipeline import annotate_text
from tests.support.files import FIXTURES, all_fixtures, fixture_id
from tests.support.run import run_cli

CORPUS = all_fixtures(errors=False)
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
                # the rule and where it applied, never a bare "unknown"
                assert a.blocker.strip(), f"{path}:{a.line}: no blocking instruction ({a.reason})"
                assert a.rule.strip() and not re.search(r"(^|: )unknown$", a.rule), (path, a.line, a.rule)
                if a.rule.startswith("unknown provenance"):
                    assert "line " in a.reason or a.blocker.startswith("@"), (path, a.line, a.reason)
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


@pytest.mark.slow
@pytest.mark.skipif(REMARKUTIL is None, reason="llvm-remarkutil is not installed (apt-get install llvm-19)")
@pytest.mark.parametrize("name", ["clang19/hip_smem_O3_g.ll", "odd/quoted_names.ll", "triton/amd_attn_gfx950_async.ll",
                                  "odd/crlf_latin1.ll"])
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


BLOCKERS = """target triple = "amdgcn-amd-amdhsa"

@lds_a = external addrspace(3) global [0 x i8], align 16
@lds_b = external addrspace(3) global [0 x i8], align 16

define amdgpu_kernel void @k(i32 %n) {
  %a = ptrtoint ptr addrspace(3) @lds_a to i32
  %x = or i32 %a, %n
  %p = inttoptr i32 %x to ptr addrspace(3)
  store i8 1, ptr addrspace(3) %p, align 1
  store i8 2, ptr addrspace(3) %p, align 1
  %q = getelementptr i8, ptr addrspace(3) %p, i32 4
  store i8 3, ptr addrspace(3) %q, align 1
  %y = xor i32 %a, %n
  %r = inttoptr i32 %y to ptr addrspace(3)
  store i8 4, ptr addrspace(3) %r, align 1
  store i8 5, ptr addrspace(3) @lds_a, align 1
  store i8 6, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @lds_b, i32 64), align 1
  ret void
}
"""


def test_blockers_most_costly_first(tmp_path) -> None:
    """The untagged accesses grouped by the instruction that blocked them. (The two tagged
    stores reach bytes 0 and 64 of the dynamic LDS block: apart, so each keeps its scope.)"""
    res = annotate_text(BLOCKERS, "b.ll", AnnotateOptions())
    rows = res.report.blockers()
    assert [(w, acc) for w, _, acc, _ in rows] == [
        ("@k line 8: `%x = or i32 %a, %n`", 3), ("@k line 14: `%y = xor i32 %a, %n`", 1)]
    assert "or without 'disjoint'" in rows[0][1]
    summary = res.report.as_dict()["summary"]["untagged_by_blocker"]
    assert summary[0]["accesses"] == 3 and summary[0]["where"].startswith("@k line 8")
    src = tmp_path / "b.ll"
    src.write_text(BLOCKERS)
    out = run_cli(["explain", "--summary", str(src)])
    assert out.exit_code == 0
    text = out.stdout.decode()
    assert text.index("line 8: `%x = or") < text.index("line 14: `%y = xor")
    data = json.loads(run_cli(["explain", "--summary", "--json", str(src)]).stdout)
    assert data["blockers"][0]["accesses"] == 3
    # the per-access reason names the rule and the instruction
    one = next(a for a in res.report.untagged if a.line == 10)
    assert one.reason == ("unknown provenance: or without 'disjoint' on an address "
                          "(line 8: `%x = or i32 %a, %n`)")
