"""The baseline comparison behind ``llnoalias gate`` (llnoalias.stats.gate)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.stats import counters as asmstats
from llnoalias.stats import gate
from llnoalias.stats.counters import collect
from llnoalias.stats.gate import Tolerance, compare
from tests.support.files import DATA

DATA = DATA / "asm"


def stats(text: str, path: str = "out/k.s") -> asmstats.FileStats:
    return collect(text, path)


def kernel(name: str, *lines: str) -> str:
    body = "".join(f"\t{line}\n" for line in lines)
    return f"\t.type {name},@function\n{name}:\n{body}\ts_endpgm\n"


VM3 = kernel("k", "s_waitcnt vmcnt(0)", "s_waitcnt vmcnt(0)", "s_waitcnt vmcnt(1)")
VM4 = kernel("k", "s_waitcnt vmcnt(0)", "s_waitcnt vmcnt(0)", "s_waitcnt vmcnt(1)", "s_waitcnt vmcnt(0)")


def row(result: gate.GateResult, kernel_name: str, counter: str) -> gate.GateRow:
    return next(r for r in result.rows if r.kernel == kernel_name and r.counter == counter)


# ------------------------------------------------------------------ tolerance


@pytest.mark.parametrize(
    ("text", "value", "percent", "shown"),
    [("0", 0.0, False, "0"), ("2", 2.0, False, "2"), ("5%", 5.0, True, "5%"), (" 2.5 % ", 2.5, True, "2.5%")],
)
def test_tolerance_parse(text: str, value: float, percent: bool, shown: str) -> None:
    tol = Tolerance.parse(text)
    assert (tol.value, tol.percent, str(tol)) == (value, percent, shown)


@pytest.mark.parametrize("text", ["", "-1", "abc", "1.5", "5%%", "%5"])
def test_tolerance_rejects(text: str) -> None:
    with pytest.raises(LLNoaliasError, match="invalid --tolerance"):
        Tolerance.parse(text)


def test_tolerance_limits() -> None:
    assert Tolerance(2).limit(10) == 12
    assert Tolerance(10, percent=True).limit(20) == pytest.approx(22.0)
    assert Tolerance(50, percent=True).limit(0) == 0


# ------------------------------------------------------------------ compare


def test_unchanged_passes() -> None:
    result = compare([stats(VM3)], [stats(VM3)])
    assert result.passed
    assert result.moved() == []
    assert {r.verdict for r in result.rows} == {"same"}


def test_growth_fails_with_zero_tolerance() -> None:
    result = compare([stats(VM3)], [stats(VM4)])
    assert not result.passed
    r = row(result, "k", "vmcnt")
    assert (r.baseline, r.now, r.delta, r.limit, r.verdict) == (3, 4, 1, 3, "fail")
    assert row(result, "k", "vmcnt_zero").verdict == "fail"
    assert row(result, "k", "waits").verdict == "fail"
    assert {(f.kernel, f.counter) for f in result.failures} == {("k", "vmcnt"), ("k", "vmcnt_zero"), ("k", "waits")}


def test_absolute_tolerance() -> None:
    assert compare([stats(VM3)], [stats(VM4)], Tolerance(1)).passed
    r = row(compare([stats(VM3)], [stats(VM4)], Tolerance(1)), "k", "vmcnt")
    assert r.verdict == "grew"


def test_percent_tolerance() -> None:
    # vmcnt 3 -> 4 is +33%: 30% fails, 34% passes.
    assert not compare([stats(VM3)], [stats(VM4)], Tolerance(30, percent=True), ["vmcnt"]).passed
    assert compare([stats(VM3)], [stats(VM4)], Tolerance(34, percent=True), ["vmcnt"]).passed
    # vmcnt_zero 2 -> 3 is +50%: with every counter gated, 49% fails and 50% passes.
    result = compare([stats(VM3)], [stats(VM4)], Tolerance(49, percent=True))
    assert [f.counter for f in result.failures] == ["vmcnt_zero"]
    assert compare([stats(VM3)], [stats(VM4)], Tolerance(50, percent=True)).passed


def test_shrinking_passes() -> None:
    result = compare([stats(VM4)], [stats(VM3)])
    assert result.passed
    assert row(result, "k", "vmcnt").verdict == "shrank"


def test_counter_missing_in_baseline_compares_against_zero() -> None:
    base = stats(kernel("k", "s_waitcnt lgkmcnt(0)"))
    now = stats(kernel("k", "s_waitcnt lgkmcnt(0)", "s_waitcnt vmcnt(0)"))
    result = compare([base], [now])
    r = row(result, "k", "vmcnt")
    assert (r.baseline, r.now, r.verdict) == (0, 1, "fail")


def test_a_gone_kernel_fails_a_new_one_does_not() -> None:
    """A function of the baseline that is no longer built fails the gate (it
    passed, so a kernel that vanished from the build went unseen); a new one does not."""
    base = stats(kernel("old", "s_waitcnt vmcnt(0)"))
    now = stats(kernel("fresh", "s_waitcnt vmcnt(0)", "s_waitcnt vmcnt(0)"))
    result = compare([base], [now])
    assert not result.passed and result.failures == []
    assert result.vanished == [("out/k.s", "old")]
    assert not compare([base], [now], allow_missing=True).passed  # that is for files not given
    assert compare([stats(kernel("old"))], [stats(kernel("old") + kernel("fresh"))]).passed
    # one with no counters at all is gone too
    assert compare([stats(kernel("old") + kernel("k"))], [stats(kernel("k"))]).vanished == [("out/k.s", "old")]
    assert row(result, "fresh", "vmcnt").verdict == "new"
    assert row(result, "fresh", "vmcnt").baseline is None
    assert row(result, "old", "vmcnt").verdict == "gone"
    assert row(result, "old", "vmcnt").now is None


def test_informational_counters_never_fail() -> None:
    base = stats(kernel("k", "buffer_load_dword v1, s[4:7], 0 offen lds"))
    now = stats(kernel("k", "buffer_load_dword v1, s[4:7], 0 offen lds", "global_load_lds_dword v0, s[0:1]"))
    result = compare([base], [now])
    assert result.passed
    r = row(result, "k", "lds_dma")
    assert (r.gated, r.verdict) == (False, "grew")


def test_ptx_more_nc_loads_passes_more_plain_loads_fails() -> None:
    def ptx(*lines: str) -> str:
        return ".version 7.5\n.target sm_80\n.visible .entry k()\n{\n" + "".join(f"\t{x};\n" for x in lines) + "}\n"

    base = stats(ptx("ld.global.f32 %f1, [%rd1]", "ld.global.nc.f32 %f2, [%rd2]"), "k.ptx")
    better = stats(ptx("ld.global.nc.f32 %f1, [%rd1]", "ld.global.nc.f32 %f2, [%rd2]"), "k.ptx")
    worse = stats(ptx("ld.global.f32 %f1, [%rd1]", "ld.global.f32 %f2, [%rd2]"), "k.ptx")
    assert compare([base], [better]).passed
    result = compare([base], [worse])
    assert not result.passed
    assert [(f.counter, f.baseline, f.now) for f in result.failures] == [("ld.global", 1, 2)]


def test_explicit_counters() -> None:
    result = compare([stats(VM3)], [stats(VM4)], counters=["lgkmcnt"])
    assert result.passed
    assert row(result, "k", "vmcnt").verdict == "grew"
    result = compare([stats(VM3)], [stats(VM4)], counters=["vmcnt"])
    assert [(f.counter) for f in result.failures] == ["vmcnt"]


def test_matching_by_basename_and_by_kernel_name() -> None:
    base = stats(VM3, "build/a/k.s")
    assert not compare([base], [stats(VM4, "./out/k.s")]).passed  # same base name
    assert not compare([base], [stats(VM4, "out/k-noannot.s")]).passed  # same kernel name
    result = compare([base], [stats(VM4, "out/k-noannot.s")])
    assert result.missing_files == []
    assert row(result, "k", "vmcnt").file == "out/k-noannot.s"


def test_ambiguous_kernel_names_are_new() -> None:
    base = [stats(VM3, "gfx942/k.s"), stats(VM3, "gfx950/k.s")]
    result = compare(base, [stats(VM4, "other/x.s")])
    assert not result.passed and not result.failures  # both baseline files are gone
    assert compare(base, [stats(VM4, "other/x.s")], allow_missing=True).passed
    assert row(result, "k", "vmcnt").verdict == "new"
    assert sorted(result.missing_files) == ["gfx942/k.s", "gfx950/k.s"]
    assert result.new_files == ["other/x.s"]


def test_files_are_kept_apart() -> None:
    base = [stats(VM3, "gfx942/k.s"), stats(VM4, "gfx950/k.s")]
    now = [stats(VM4, "gfx942/k.s"), stats(VM4, "gfx950/k.s")]
    result = compare(base, now)
    assert [(f.file, f.counter) for f in result.failures if f.counter == "vmcnt"] == [("gfx942/k.s", "vmcnt")]


def test_real_samples_plain_build_fails_against_annotated_baseline() -> None:
    annotated = collect((DATA / "gate_annotated.s").read_text(), "out/pipeline.s")
    plain = collect((DATA / "gate_plain.s").read_text(), "out/pipeline.s")
    assert compare([annotated], [annotated]).passed
    result = compare([annotated], [plain])
    assert not result.passed
    r = row(result, "lds_pipeline", "vmcnt")
    assert (r.baseline, r.now) == (1, 4)
    assert row(result, "copy", "vmcnt").verdict == "same"
    assert compare([plain], [annotated]).passed


def test_result_to_dict() -> None:
    doc = compare([stats(VM3)], [stats(VM4)], Tolerance(10, percent=True), baseline_path="b.json").to_dict()
    assert doc["schema"] == "llnoalias.gate/1"
    assert doc["passed"] is False
    assert doc["failures"] == 3
    assert doc["tolerance"] == "10%"
    vm = next(r for r in doc["rows"] if r["counter"] == "vmcnt")
    assert vm == {
        "file": "out/k.s", "kernel": "k", "counter": "vmcnt", "baseline": 3, "now": 4, "delta": 1,
        "limit": pytest.approx(3.3), "gated": True, "verdict": "fail",
    }


# ------------------------------------------------------------------ baseline files


def test_update_and_load_baseline(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    gate.update_baseline(str(path), [stats(VM3)])
    doc = json.loads(path.read_text())
    assert doc["schema"] == "llnoalias.stats/1"
    assert doc["files"][0]["kernels"]["k"]["vmcnt"] == 3
    loaded = gate.load_baseline(str(path))
    assert loaded[0].kernels["k"]["vmcnt"] == 3
    assert [p.name for p in tmp_path.iterdir()] == ["base.json"]  # no temporary left


def test_update_keeps_permissions(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    path.write_text("{}")
    os.chmod(path, 0o640)
    gate.update_baseline(str(path), [stats(VM3)])
    assert (path.stat().st_mode & 0o777) == 0o640


def test_missing_baseline(tmp_path: Path) -> None:
    with pytest.raises(LLNoaliasError, match="does not exist"):
        gate.load_baseline(str(tmp_path / "nope.json"))


def test_bad_baseline(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    path.write_text('{"schema": "something/else"}')
    with pytest.raises(LLNoaliasError, match="not an llnoalias stats file"):
        gate.load_baseline(str(path))


# ------------------------------------------------------------------ PTX stores and spills


def ptx(*body: str) -> str:
    lines = "".join(f"\t{b}\n" for b in body)
    return f".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry acc()\n{{\n{lines}\tret;\n}}\n"


ST2 = ptx("st.global.f32 [%rd1], %f1;", "st.global.f32 [%rd2], %f2;", "st.shared.f32 [%r1], %f1;")
ST5 = ptx(*["st.global.f32 [%rd1], %f1;"] * 5, *["st.shared.f32 [%r1], %f1;"] * 3)
SPILL = ptx("st.global.f32 [%rd1], %f1;", "st.global.f32 [%rd2], %f2;", "st.shared.f32 [%r1], %f1;",
            "st.local.u32 [%rd9], %r1;", "ld.local.u32 %r1, [%rd9];")


def test_more_global_stores_fail_the_gate_more_shared_stores_do_not() -> None:
    result = compare([stats(ST2, "k.ptx")], [stats(ST5, "k.ptx")])
    assert not result.passed
    assert row(result, "acc", "st.global").verdict == "fail"
    assert (row(result, "acc", "st.shared").verdict, row(result, "acc", "st.shared").gated) == ("grew", False)
    # fewer stores (what --args noalias does to an accumulation loop) passes
    back = compare([stats(ST5, "k.ptx")], [stats(ST2, "k.ptx")])
    assert back.passed and row(back, "acc", "st.global").verdict == "shrank"


def test_spills_fail_the_gate() -> None:
    result = compare([stats(ST2, "k.ptx")], [stats(SPILL, "k.ptx")])
    assert {r.counter for r in result.failures} == {"st.local", "ld.local"}
    assert compare([stats(ST2, "k.ptx")], [stats(SPILL, "k.ptx")], Tolerance(1)).passed


def test_a_baseline_from_before_the_store_counters_does_not_fail() -> None:
    """A baseline written before st.global and the local counters were counted lacks them:
    they are new there, not grown from 0; a counter the baseline's file has (0 or not) and an
    older counter absent from it still compare as before."""
    old_doc = json.loads(asmstats.to_json([stats(ST2, "k.ptx")]))
    for entry in old_doc["files"]:
        for counts in [*entry["kernels"].values(), entry["total"]]:
            for key in asmstats.LATER_KEYS:
                counts.pop(key, None)
    old = asmstats.from_dict(old_doc)
    result = compare(old, [stats(SPILL, "k.ptx")])
    assert result.passed
    stores = ("st.global", "st.shared", "ld.local", "st.local")
    assert {row(result, "acc", k).verdict for k in stores} == {"new"}
    assert row(result, "acc", "st.global").now == 2
    # the same baseline written now knows them: the spills fail
    assert not compare([stats(ST2, "k.ptx")], [stats(SPILL, "k.ptx")]).passed
    # an older counter missing from the baseline still compares against 0
    old_doc["files"][0]["kernels"]["acc"].pop("ld.global")
    more = ptx("ld.global.f32 %f1, [%rd1];", "st.global.f32 [%rd1], %f1;", "st.global.f32 [%rd2], %f2;")
    assert row(compare(asmstats.from_dict(old_doc), [stats(more, "k.ptx")]), "acc", "ld.global").verdict == "fail"
