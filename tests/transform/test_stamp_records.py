"""A kernel stamped from a template (``function_pass.FunctionPass._stamp``): its argument
records are ``StampedArgRecord``s that read, compare, show and pickle as the records the
lean way makes; its first line is taken from its define line's where that is right and
looked up where not; and a run of kernels stamped in one call gives what stamping each
alone gives (the "stamp-runs" row of tests/support/fast_paths.py)."""

from __future__ import annotations

import json
import pickle

import pytest

import llnoalias
from llnoalias import reasons
from llnoalias.report.record import ArgRecord
from llnoalias.transform import function_pass
from llnoalias.transform.attributes import LineArgRecord, StampedArgRecord

HEAD = 'target triple = "amdgcn-amd-amdhsa"\n\n'
PARAMS = "ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b, ptr addrspace(1) %c"
BODY = "  %x = load i32, ptr addrspace(1) %a, align 4\n  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void"


def kernel(name: str, before: str = "") -> str:
    return f"define amdgpu_kernel void @{name}({PARAMS}) {{\n{before}{BODY}\n}}\n"


def _records(text: str, monkeypatch: pytest.MonkeyPatch, templates: bool = True) -> list[ArgRecord]:
    with monkeypatch.context() as m:
        m.setattr(function_pass, "TEMPLATES", templates)
        return llnoalias.annotate(text, path="t.ll").report.args


def test_reads_as_the_lean_way_s_record(monkeypatch: pytest.MonkeyPatch) -> None:
    text = HEAD + "\n".join(kernel(f"k{i}") for i in range(4))
    got, want = _records(text, monkeypatch), _records(text, monkeypatch, templates=False)
    assert [type(r).__name__ for r in got[6:]] == ["StampedArgRecord"] * 6  # (@k2 and @k3)
    assert [type(r) for r in want] == [LineArgRecord, LineArgRecord, ArgRecord] * 4
    for r, w in zip(got, want, strict=True):
        assert r == w and w == r and not r != w
        assert r.as_dict() == w.as_dict() and repr(r) == repr(w)
        assert (r.kernel, r.index, r.name, r.rooted, r.reason, r.readonly, r.writeonly, r.added, r.code) == (
            w.kernel, w.index, w.name, w.rooted, w.reason, w.readonly, w.writeonly, w.added, w.code)
        back = pickle.loads(pickle.dumps(r))
        assert type(back) is type(w) and back == w
    a, b, c = got[9:]
    assert isinstance(a, StampedArgRecord) and isinstance(c, StampedArgRecord)
    assert reasons.NO_READ.matches(a.writeonly) and a.writeonly == "no: read at line 22"
    assert b.readonly == "no: written at line 23" and not c.rooted and c.code == "not-noalias"
    assert a != got[6] and a.unstamped() != got[6]  # (another kernel's)


def test_a_field_set_is_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    text = HEAD + "\n".join(kernel(f"k{i}") for i in range(4))
    got = _records(text, monkeypatch)
    a, other = got[6], got[9]
    assert isinstance(a, StampedArgRecord) and a.spec is other.spec  # type: ignore[attr-defined]
    a.writeonly = "changed"
    a.index = 7
    assert (a.writeonly, a.index, a.readonly) == ("changed", 7, "proved")
    assert other.writeonly == "no: read at line 22" and other.index == 0
    back = pickle.loads(pickle.dumps(a))
    assert type(back) is LineArgRecord and back == a and back.writeonly == "changed" and back.index == 7


def test_a_kernel_spaced_otherwise_has_its_own_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """The body's first line is the define line's and the template's distance from it
    where that is right; where not (lines before the body, a kernel at the end), the
    records still name the kernel's own lines."""
    befores = ["", "", "", "  ; a comment\n\n", "", "entry:\n", ""]
    text = HEAD + "\n".join(kernel(f"k{i}", before) for i, before in enumerate(befores))
    got, want = _records(text, monkeypatch), _records(text, monkeypatch, templates=False)
    assert sum(type(r) is StampedArgRecord for r in got) == 3 * 5
    assert [r.as_dict() for r in got] == [w.as_dict() for w in want]
    lines = text.split("\n")
    for i in range(len(befores)):
        load = next(n for n, t in enumerate(lines, 1) if t.startswith(f"define amdgpu_kernel void @k{i}("))
        load += 1 + befores[i].count("\n")
        assert got[3 * i].writeonly == f"no: read at line {load}"


@pytest.mark.parametrize("every", [False, True])
def test_a_run_as_each_alone(every: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Kernels of one template, broken by others (another body, another define line,
    another kernel's text between), stamped in runs or each alone: the same output and
    report."""
    # (as long, the load and store of the other argument: its records and edits differ)
    other_body = kernel("o1").replace("(1) %a, align", "(1) %t, align").replace("(1) %b, align", "(1) %a, align")
    other_body = other_body.replace("(1) %t, align", "(1) %b, align")
    other_line = kernel("o2").replace("%c)", "%d)")
    parts = [kernel(f"k{i}") for i in range(3)] + [other_body] + [kernel(f"k{i}") for i in range(3, 5)]
    parts += [other_line, kernel("k5"), "@g = global i32 0\n", kernel("k6")]
    text = HEAD + "\n".join(parts)

    def outcome(runs: bool) -> tuple[str, str]:
        with monkeypatch.context() as m:
            m.setattr(function_pass, "STAMP_RUNS", runs)
            m.setattr(function_pass, "STAMP_EVERY", every)
            res = llnoalias.annotate(text, path="t.ll", args="noalias")
            return res.text, json.dumps(res.report.as_dict(), sort_keys=True, default=str)

    assert outcome(True) == outcome(False)
    assert outcome(True)[0].count(", !invariant.load !") == 9
