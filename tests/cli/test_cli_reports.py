"""``llnoalias stats`` and ``llnoalias gate`` through click (llnoalias.cli.reports)."""

from __future__ import annotations

import json
import re
import shutil
import sys
import types
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

import llnoalias.api
import llnoalias.backends
from llnoalias.cli.reports import gate_command, stats_command
from llnoalias.diagnostics import LLNoaliasError
from llnoalias.options import AnnotateOptions
from llnoalias.transform import pipeline
from tests.support.files import DATA, ROOT

DATA = DATA / "asm"


@click.group()
def cli() -> None:
    """Stand-in for the real group, which registers the same two commands."""


cli.add_command(stats_command)
cli.add_command(gate_command)


def run(*args: str, stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)


def table_row(output: str, first_cell: str) -> list[str]:
    """The cells of the table row whose first cell is ``first_cell``: off a terminal (as
    here) tables are plain columns, two spaces or more apart, without box characters."""
    assert not set("│┃━─") & set(output), output
    for line in output.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if cells and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no row '{first_cell}' in:\n{output}")


# ------------------------------------------------------------------ stats on assembly


def test_stats_one_file_table() -> None:
    result = run("stats", str(DATA / "gfx942_llc19.s"))
    assert result.exit_code == 0, result.output
    assert "gfx942_llc19.s (amdgpu)" in result.stdout
    header = table_row(result.stdout, "function")
    assert header[:7] == ["function", "waits", "vmcnt", "vmcnt_zero", "lgkmcnt", "lgkmcnt_zero", "lds_dma"]
    # then the registers the assembly's metadata states
    assert header[7:] == ["vgpr", "agpr", "sgpr", "vgpr_spill", "sgpr_spill", "scratch", "occupancy"]
    assert table_row(result.stdout, "dma_loop")[:7] == ["dma_loop", "3", "1", "1", "2", "2", "1"]
    assert table_row(result.stdout, "global_lds")[:7] == ["global_lds", "4", "2", "2", "2", "2", "1"]
    assert table_row(result.stdout, "total")[:7] == ["total", "7", "3", "3", "4", "4", "2"]
    assert result.stderr == ""


def test_stats_json_one_file() -> None:
    result = run("stats", "--json", str(DATA / "sm80_llc19.ptx"))
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["schema"] == "llnoalias.stats/1"
    assert "diff" not in doc
    [entry] = doc["files"]
    assert entry["kind"] == "ptx"
    # the keys of the first schema keep their order and values; the store and local counters follow
    # (then ptxas -v's registers when ptxas is on PATH)
    ptxas_keys = ("reg", "local", "spill_stores", "spill_loads")
    stage = {k: v for k, v in entry["kernels"]["stage"].items() if k not in ptxas_keys}
    total = {k: v for k, v in entry["total"].items() if k not in ptxas_keys}
    assert stage == {"ld.global.nc": 1, "ld.global": 0, "ld.shared": 1, "cp.async": 4,
                     "st.global": 1, "st.shared": 0, "ld.local": 0, "st.local": 0}
    assert total == {"ld.global.nc": 2, "ld.global": 2, "ld.shared": 1, "cp.async": 4,
                     "st.global": 2, "st.shared": 0, "ld.local": 0, "st.local": 0}


def test_stats_two_files_diff() -> None:
    a = str(DATA / "gate_annotated.s")
    b = str(DATA / "gate_plain.s")
    result = run("stats", a, b)
    assert result.exit_code == 0
    header = table_row(result.stdout, "function")
    assert header == ["function", "counter", a, b, "delta"]
    assert table_row(result.stdout, "lds_pipeline") == ["lds_pipeline", "waits", "3", "6", "+3"]
    assert table_row(result.stdout, "total") == ["total", "waits", "5", "8", "+3"]
    doc = json.loads(run("stats", "--json", a, b).stdout)
    assert [f["path"] for f in doc["files"]] == [a, b]
    assert doc["diff"]["a"] == a
    assert doc["diff"]["kernels"]["lds_pipeline"]["vmcnt"] == {"a": 1, "b": 4, "delta": 3}
    assert doc["diff"]["kernels"]["copy"]["vmcnt"] == {"a": 1, "b": 1, "delta": 0}
    assert doc["diff"]["total"]["vmcnt_zero"] == {"a": 2, "b": 5, "delta": 3}


def test_stats_three_files_are_three_tables() -> None:
    files = [str(DATA / n) for n in ("gfx942_llc19.s", "gfx1200_llc19.s", "sm80_llc19.ptx")]
    result = run("stats", *files)
    assert result.exit_code == 0
    for f in files:
        assert f in result.stdout
    doc = json.loads(run("stats", "--json", *files).stdout)
    assert [f["kind"] for f in doc["files"]] == ["amdgpu", "amdgpu", "ptx"]
    assert "diff" not in doc


def test_stats_wide_table_turns_when_narrow(monkeypatch: pytest.MonkeyPatch) -> None:
    # Off a terminal the table takes its own width; the edge-case file has 25 counters,
    # more than fit in 200 columns, so it is shown a row per counter.
    result = run("stats", str(DATA / "edge_cases.s"))
    assert table_row(result.stdout, "counter") == ["counter", "edge_gfx10", "edge.quoted", "edge_gfx12", "total"]
    assert table_row(result.stdout, "vscnt_zero") == ["vscnt_zero", "2", "0", "0", "2"]
    assert table_row(result.stdout, "loadcnt") == ["loadcnt", "0", "0", "3", "3"]


def test_stats_stdin_and_non_utf8() -> None:
    text = b"\t.type k,@function\nk: ; caf\xe9\n\ts_waitcnt vmcnt(0) ; \xff\n\ts_endpgm\n"
    result = run("stats", "--json", "-", stdin=text)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["files"][0]["path"] == "<stdin>"
    assert doc["files"][0]["kernels"]["k"]["vmcnt"] == 1


def test_stats_objdump_listing() -> None:
    doc = json.loads(run("stats", "--json", str(DATA / "listing_addr_first.objdump")).stdout)
    assert doc["files"][0]["kernels"]["pingpong"]["vmcnt"] == 2
    assert doc["files"][0]["kernels"]["store_only"]["waitcnt_encoded_zero"] == 1


def test_stats_missing_file() -> None:
    result = run("stats", "does/not/exist.s")
    assert result.exit_code == 2
    assert result.stderr == "llnoalias: error: cannot open 'does/not/exist.s': no such file\n"
    assert result.stdout == ""


def test_stats_object_file_is_refused(tmp_path: Path) -> None:
    obj = tmp_path / "k.o"
    obj.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)))
    result = run("stats", str(obj))
    assert result.exit_code == 2
    assert result.stderr.startswith("llnoalias: error: ")
    assert "object file" in result.stderr and "llvm-objdump -d" in result.stderr


def test_stats_warns_when_no_functions(tmp_path: Path) -> None:
    f = tmp_path / "empty.s"
    f.write_text("\t.text\n")
    result = run("stats", "--json", str(f))
    assert result.exit_code == 0
    assert "warning" in result.stderr and "no functions found" in result.stderr
    assert json.loads(result.stdout)["files"][0]["kernels"] == {}


def test_stats_stdin_twice() -> None:
    result = run("stats", "-", "-", stdin=b"")
    assert result.exit_code == 2
    assert result.stderr == "llnoalias: error: '-' (stdin) can be given only once\n"


# ------------------------------------------------------------------ stats on .ll (fake backends)

IR = """target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @k(ptr addrspace(1) %p) {
  ret void
}
"""


class FakeBackends:
    """A code generator that 'compiles' annotated IR to fewer waits than plain IR."""

    def __init__(self) -> None:
        self.generate_calls: list[dict[str, Any]] = []
        self.annotate_calls: list[AnnotateOptions | None] = []

    def generate(self, ir_text: str, *, emit: str = "asm", mcpu: str | None = None,
                 llc: str | None = None, timeout: float = 300.0, triple: str | None = None,
                 notes: list[str] | None = None, codegen: str = "llvmlite") -> bytes:
        self.generate_calls.append({"emit": emit, "mcpu": mcpu, "llc": llc, "annotated": "!noalias" in ir_text,
                                    "triple": triple})
        if notes is not None:
            notes.append("a note from the back end")
        waits = 1 if "!noalias" in ir_text else 3
        body = "".join("\tbuffer_load_dword v1, s[4:7], 0 offen lds\n\ts_waitcnt vmcnt(0)\n" for _ in range(waits))
        return f"\t.type k,@function\nk:\n{body}\ts_endpgm\n".encode()

    def annotate(self, text: str, *, path: str = "<stdin>", options: AnnotateOptions | None = None,
                 **kwargs: Any) -> pipeline.AnnotateResult:
        self.annotate_calls.append(options)
        return pipeline.AnnotateResult(text=text + "; !noalias\n")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeBackends:
    backends = FakeBackends()
    module = types.ModuleType("llnoalias.backends.codegen")
    module.generate = backends.generate  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "llnoalias.backends.codegen", module)
    monkeypatch.setattr(llnoalias.backends, "codegen", module, raising=False)
    monkeypatch.setattr(llnoalias.api, "annotate", backends.annotate)
    return backends


def test_stats_triple_reaches_the_back_end_and_notes_are_said_once(tmp_path: Path, fake: FakeBackends) -> None:
    src = tmp_path / "k.ll"
    src.write_text(IR)
    res = CliRunner().invoke(stats_command, [str(src), "--triple", "amdgcn-amd-amdhsa"])
    assert res.exit_code == 0, res.output
    assert [c["triple"] for c in fake.generate_calls] == ["amdgcn-amd-amdhsa"] * 2
    assert res.stderr.count("a note from the back end") == 1


def test_stats_ll_compiles_twice(tmp_path: Path, fake: FakeBackends) -> None:
    src = tmp_path / "k.ll"
    src.write_text(IR)
    result = run("stats", "--json", "--mcpu", "gfx942", "--llc", "/opt/llc", "--args", "noalias", str(src))
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [f["label"] for f in doc["files"]] == ["input", "llnoalias"]
    assert doc["files"][0]["kernels"]["k"]["vmcnt"] == 3
    assert doc["files"][1]["kernels"]["k"]["vmcnt"] == 1
    assert doc["diff"]["kernels"]["k"]["vmcnt"] == {"a": 3, "b": 1, "delta": -2}
    assert fake.generate_calls == [
        {"emit": "asm", "mcpu": "gfx942", "llc": "/opt/llc", "annotated": False, "triple": None},
        {"emit": "asm", "mcpu": "gfx942", "llc": "/opt/llc", "annotated": True, "triple": None},
    ]
    [options] = fake.annotate_calls
    assert options is not None and options.args == "noalias" and options.lds == "dynamic"


def test_stats_ll_table_columns(tmp_path: Path, fake: FakeBackends) -> None:
    src = tmp_path / "k.ll"
    src.write_text(IR)
    result = run("stats", str(src))
    assert result.exit_code == 0, result.output
    assert table_row(result.stdout, "function") == ["function", "counter", "input", "llnoalias", "delta"]
    assert table_row(result.stdout, "k") == ["k", "waits", "3", "1", "-2"]


def test_stats_ir_on_stdin_is_compiled(fake: FakeBackends) -> None:
    result = run("stats", "--json", "-", stdin=IR.encode())
    assert result.exit_code == 0, result.output
    assert [f["label"] for f in json.loads(result.stdout)["files"]] == ["input", "llnoalias"]


def test_stats_two_ll_files_compile_as_is(tmp_path: Path, fake: FakeBackends) -> None:
    a = tmp_path / "a.ll"
    b = tmp_path / "b.ll"
    a.write_text(IR)
    b.write_text(IR + "; !noalias\n")
    doc = json.loads(run("stats", "--json", str(a), str(b)).stdout)
    assert doc["diff"]["kernels"]["k"]["vmcnt"] == {"a": 3, "b": 1, "delta": -2}
    assert fake.annotate_calls == []


def test_stats_ll_codegen_error(tmp_path: Path, fake: FakeBackends, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(ir_text: str, **kwargs: Any) -> bytes:
        raise LLNoaliasError("llc failed: boom", exit_code=3)

    monkeypatch.setattr(sys.modules["llnoalias.backends.codegen"], "generate", broken)
    src = tmp_path / "k.ll"
    src.write_text(IR)
    result = run("stats", str(src))
    assert result.exit_code == 3
    assert result.stderr == f"llnoalias: error: {src}: llc failed: boom\n"  # the input named


def test_stats_ll_without_codegen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llnoalias.backends.codegen", None)
    monkeypatch.delattr(llnoalias.backends, "codegen", raising=False)
    src = tmp_path / "k.ll"
    src.write_text(IR)
    result = run("stats", str(src))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"llnoalias: error: cannot compile '{src}': code generation is not available")


# ------------------------------------------------------------------ stats on .ll (real backends)


@pytest.mark.slow
def test_stats_two_ll_files_with_real_codegen(tmp_path: Path) -> None:
    a = tmp_path / "a.ll"
    b = tmp_path / "b.ll"
    shutil.copy(DATA / "src" / "gfx950_dma.ll", a)
    shutil.copy(DATA / "src" / "gfx950_dma.ll", b)
    result = run("stats", "--json", "--mcpu", "gfx950", str(a), str(b))
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    for entry in doc["files"]:
        assert list(entry["kernels"]) == ["dma_loop", "global_lds"]
        # buffer_load_dwordx4 ... lds and global_load_lds_dwordx4
        assert entry["kernels"]["dma_loop"]["lds_dma"] == 1
        assert entry["kernels"]["global_lds"]["lds_dma"] == 1
        assert entry["total"]["vmcnt"] >= 1
    assert all(v["delta"] == 0 for v in doc["diff"]["total"].values())


@pytest.mark.slow
def test_stats_ll_with_real_codegen_and_annotation(tmp_path: Path) -> None:
    src = tmp_path / "dma.ll"
    shutil.copy(DATA / "src" / "gfx950_dma.ll", src)
    result = run("stats", "--json", "--mcpu", "gfx950", str(src))
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [f["label"] for f in doc["files"]] == ["input", "llnoalias"]
    for entry in doc["files"]:
        assert list(entry["kernels"]) == ["dma_loop", "global_lds"]
        # Annotation moves waits, never the DMA instructions themselves.
        assert entry["total"]["lds_dma"] == 2


# ------------------------------------------------------------------ gate


@pytest.fixture
def build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    shutil.copy(DATA / "gate_annotated.s", tmp_path / "out" / "pipeline.s")
    shutil.copy(DATA / "sm80_llc19.ptx", tmp_path / "out" / "kernels.ptx")
    return tmp_path


def test_gate_missing_baseline(build: Path) -> None:
    result = run("gate", "--baseline", "base.json", "out/pipeline.s")
    assert result.exit_code == 2
    assert result.stderr == "llnoalias: error: baseline 'base.json' does not exist (create it with --update)\n"


def test_gate_update_then_pass_then_fail(build: Path) -> None:
    result = run("gate", "--baseline", "base.json", "--update", "out/pipeline.s", "out/kernels.ptx")
    assert result.exit_code == 0, result.output
    assert "wrote baseline 'base.json' (2 file(s), 5 function(s))" in result.stdout
    doc = json.loads((build / "base.json").read_text())
    assert doc["schema"] == "llnoalias.stats/1"
    assert [f["path"] for f in doc["files"]] == ["out/pipeline.s", "out/kernels.ptx"]
    assert doc["files"][0]["kernels"]["lds_pipeline"]["vmcnt"] == 1

    result = run("gate", "--baseline", "base.json", "out/pipeline.s", "out/kernels.ptx")
    assert result.exit_code == 0, result.output
    assert "gate: ok" in result.stdout

    shutil.copy(DATA / "gate_plain.s", build / "out" / "pipeline.s")
    result = run("gate", "--baseline", "base.json", "out/pipeline.s", "out/kernels.ptx")
    assert result.exit_code == 1
    assert table_row(result.stdout, "file")[1:] == [
        "function", "counter", "baseline", "now", "delta", "limit", "verdict"]
    assert table_row(result.stdout, "out/pipeline.s") == [
        "out/pipeline.s", "lds_pipeline", "waits", "3", "6", "+3", "3", "fail"]
    assert "gate: FAILED, 3 counter(s) grew past the baseline" in result.stdout


def test_gate_no_annotation_build_elsewhere_fails(build: Path) -> None:
    assert run("gate", "--baseline", "base.json", "--update", "out/pipeline.s").exit_code == 0
    (build / "noannot").mkdir()
    shutil.copy(DATA / "gate_plain.s", build / "noannot" / "pipeline-plain.s")
    result = run("gate", "--baseline", "base.json", "--json", "noannot/pipeline-plain.s")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["schema"] == "llnoalias.gate/1"
    assert doc["passed"] is False
    fails = [(r["kernel"], r["counter"], r["baseline"], r["now"]) for r in doc["rows"] if r["verdict"] == "fail"]
    assert fails == [("lds_pipeline", "waits", 3, 6), ("lds_pipeline", "vmcnt", 1, 4),
                     ("lds_pipeline", "vmcnt_zero", 1, 4)]


def test_gate_tolerance_and_counters(build: Path) -> None:
    assert run("gate", "--baseline", "base.json", "--update", "out/pipeline.s").exit_code == 0
    shutil.copy(DATA / "gate_plain.s", build / "out" / "pipeline.s")
    assert run("gate", "--baseline", "base.json", "--tolerance", "2", "out/pipeline.s").exit_code == 1
    assert run("gate", "--baseline", "base.json", "--tolerance", "3", "out/pipeline.s").exit_code == 0
    # vmcnt 1 -> 4 is +300%, waits 3 -> 6 is +100%.
    assert run("gate", "--baseline", "base.json", "--tolerance", "299%", "out/pipeline.s").exit_code == 1
    assert run("gate", "--baseline", "base.json", "--tolerance", "300%", "out/pipeline.s").exit_code == 0
    args = ["gate", "--baseline", "base.json", "--tolerance", "100%", "--counter", "waits", "out/pipeline.s"]
    assert run(*args).exit_code == 0
    assert run("gate", "--baseline", "base.json", "--counter", "lgkmcnt", "out/pipeline.s").exit_code == 0
    assert run("gate", "--baseline", "base.json", "--counter", "vmcnt", "out/pipeline.s").exit_code == 1


def test_gate_unknown_counter_is_an_error(build: Path) -> None:
    """A misspelled --counter must not disarm the gate (design section 7): exit 2, did you mean."""
    assert run("gate", "--baseline", "base.json", "--update", "out/pipeline.s").exit_code == 0
    shutil.copy(DATA / "gate_plain.s", build / "out" / "pipeline.s")
    for typo, meant in (("vmcnts", "vmcnt"), ("vmcnt_zeros", "vmcnt_zero"), ("ld.gobal", "ld.global"),
                        ("vmcnt_typo", "vmcnt")):
        result = run("gate", "--baseline", "base.json", "--counter", typo, "out/pipeline.s")
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"llnoalias: error: unknown counter '{typo}' in --counter (did you mean "
                                        ), result.stderr
        assert f"'{meant}'" in result.stderr.partition("did you mean")[2]
        assert result.stderr.count("\n") == 1 and result.stdout == ""
    # with --update too: the baseline is left as it was
    before = (build / "base.json").read_text()
    assert run("gate", "--baseline", "base.json", "--update", "--counter", "vmcnts", "out/pipeline.s").exit_code == 2
    assert (build / "base.json").read_text() == before
    # a name nothing is close to: no guess, the list
    result = run("gate", "--baseline", "base.json", "--counter", "zzz", "out/pipeline.s")
    assert result.exit_code == 2 and "did you mean" not in result.stderr
    assert "the counters are: waits, vmcnt," in result.stderr


def test_gate_known_counter_absent_from_inputs_warns(build: Path) -> None:
    """A real counter that this target never counts (gfx12's loadcnt on gfx942 code) still
    gates nothing: a warning, not an error; a counter only the inputs have is taken."""
    assert run("gate", "--baseline", "base.json", "--update", "out/pipeline.s").exit_code == 0
    result = run("gate", "--baseline", "base.json", "--counter", "loadcnt", "out/pipeline.s")
    assert result.exit_code == 0
    assert "warning: --counter 'loadcnt' does not occur" in result.stderr
    gate_module = sys.modules["llnoalias.stats.gate"]
    gate_module.check_counters(["asynccnt"], present={"asynccnt"})
    with pytest.raises(LLNoaliasError, match="did you mean 'asynccnt'"):
        gate_module.check_counters(["asyncnt"], present={"asynccnt"})


def _backticked(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def test_gate_default_counters_readme_and_help_agree_with_the_code() -> None:
    """The README and ``gate --help`` name the counters that fail by default and those that
    only report; both lists are the code's (``counters.is_regression_counter``)."""
    from llnoalias.stats import counters as asmstats
    from llnoalias.stats import gate as gate_module
    gated = set(gate_module.default_gated())
    reporting = set(asmstats.KNOWN_KEYS) - gated
    spills = gated & {*asmstats.REGISTER_KEYS, *asmstats.PTX_REGISTER_KEYS}
    ptx_gated = {k for k in gated if k.startswith(("ld.", "st.", "cp."))}
    waits = gated - ptx_gated - spills
    assert all(k == "waits" or "cnt" in k for k in waits)  # "every wait counter"
    readme = (ROOT / "README.md").read_text()
    text = " ".join(readme.split())
    m = re.search(r"Every wait counter, the spills and scratch \((.*?)\), and PTX (.*?) can fail the gate; "
                  r"the others \((.*?)\) only report", text)
    assert m, "the README's gate section no longer states the default counters"
    assert set(_backticked(m.group(1))) == spills
    assert set(_backticked(m.group(2))) == ptx_gated
    assert set(_backticked(m.group(3))) == reporting
    help_text = " ".join(run("gate", "--help").stdout.split())
    m = re.search(r"Default: every wait counter, the spills and scratch \((.*?)\), and PTX (.*?); (.*?) only "
                  r"report", help_text)
    assert m, help_text
    split = r",\s*(?:and\s+)?|\s+and\s+"
    assert set(re.split(split, m.group(1))) == spills
    assert set(re.split(split, m.group(2))) == ptx_gated
    assert set(re.split(split, m.group(3))) == reporting

def test_gate_json_pass(build: Path) -> None:
    assert run("gate", "--baseline", "base.json", "--update", "out/kernels.ptx").exit_code == 0
    result = run("gate", "--baseline", "base.json", "--json", "out/kernels.ptx")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["passed"] is True and doc["failures"] == 0 and doc["updated"] is False
    assert {r["verdict"] for r in doc["rows"]} == {"same"}
    keys = {r["counter"] for r in doc["rows"]}
    # 3 functions x 8 PTX counters, and ptxas -v's 4 when ptxas is on PATH
    assert len(doc["rows"]) == 3 * len(keys) and len(keys) in (8, 12)


def test_gate_update_over_existing_reports_and_rewrites(build: Path) -> None:
    assert run("gate", "--baseline", "base.json", "--update", "out/pipeline.s").exit_code == 0
    shutil.copy(DATA / "gate_plain.s", build / "out" / "pipeline.s")
    result = run("gate", "--baseline", "base.json", "--update", "--json", "out/pipeline.s")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["updated"] is True and doc["passed"] is False
    base = json.loads((build / "base.json").read_text())
    assert base["files"][0]["kernels"]["lds_pipeline"]["vmcnt"] == 4
    assert run("gate", "--baseline", "base.json", "out/pipeline.s").exit_code == 0


def test_gate_rejects_ir(build: Path) -> None:
    (build / "k.ll").write_text(IR)
    (build / "base.json").write_text('{"schema": "llnoalias.stats/1", "files": []}')
    result = run("gate", "--baseline", "base.json", "k.ll")
    assert result.exit_code == 2
    assert result.stderr.startswith("llnoalias: error: 'k.ll' is LLVM IR; gate reads assembly or PTX")


def test_gate_bad_tolerance(build: Path) -> None:
    result = run("gate", "--baseline", "base.json", "--tolerance", "ten", "out/pipeline.s")
    assert result.exit_code == 2
    assert result.stderr == (
        "llnoalias: error: invalid --tolerance 'ten': expected a count N or a percentage N%\n")


def test_gate_bad_baseline(build: Path) -> None:
    (build / "base.json").write_text("{not json")
    result = run("gate", "--baseline", "base.json", "out/pipeline.s")
    assert result.exit_code == 2
    assert result.stderr.startswith("llnoalias: error: baseline 'base.json' is not an llnoalias stats file: not JSON")


def test_gate_unwritable_baseline(build: Path) -> None:
    result = run("gate", "--baseline", "missing-dir/base.json", "--update", "out/pipeline.s")
    assert result.exit_code == 2
    assert "cannot write 'missing-dir/base.json'" in result.stderr


def test_gate_file_left_out_and_all(build: Path) -> None:
    assert run("gate", "--baseline", "base.json", "--update", "out/pipeline.s", "out/kernels.ptx").exit_code == 0
    result = run("gate", "--baseline", "base.json", "out/pipeline.s")
    assert result.exit_code == 1  # a baselined file gone fails
    assert "gate: FAILED, 1 file(s) of the baseline not given (--allow-missing passes)" in result.stdout
    result = run("gate", "--baseline", "base.json", "out/pipeline.s", "--allow-missing")
    assert result.exit_code == 0
    assert result.stderr == "llnoalias: note: 'out/kernels.ptx' is in the baseline but was not given\n"
    # The gone functions are listed (non-zero counts only), with their file.
    assert table_row(result.stdout, "out/kernels.ptx")[1:4] == ["axpy", "ld.global.nc", "1"]
    result = run("gate", "--baseline", "base.json", "--all", "out/pipeline.s", "out/kernels.ptx")
    assert result.exit_code == 0
    assert table_row(result.stdout, "out/pipeline.s") == [
        "out/pipeline.s", "lds_pipeline", "waits", "3", "3", "0", "3", "same"]
