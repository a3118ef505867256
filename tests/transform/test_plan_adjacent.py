"""The writer (``pipeline._write_scopes``) gives an instruction all its scopes at once: it
merges the decisions of one instruction (one per domain) only where they are adjacent
in the plan, as every planner makes them. This holds that up on every fixture, corpus
file and test module, under the option sets that add decisions (``--lds all``, ``--args
noalias``, ``--regions``): a plan whose decisions of one instruction were apart would
get two ``!alias.scope`` attachments on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.options import AnnotateOptions
from llnoalias.transform import pipeline
from llnoalias.transform.scopes import Plan
from tests.support.files import LL_FILES, ll_id

OPTIONS = [AnnotateOptions(), AnnotateOptions(lds="all", args="noalias"), AnnotateOptions(regions=True)]


def apart(p: Plan) -> list[str]:
    """The instructions whose tagged decisions are not one stretch of ``p.decisions``."""
    ended: set[int] = set()
    last = None
    bad = []
    for d in p.decisions:
        if not d.keys:
            continue
        inst = d.inst
        if inst is not last:
            if id(inst) in ended:
                bad.append(f"line {inst.line}")
            if last is not None:
                ended.add(id(last))
            last = inst
    return bad


def test_apart_finds_a_split_instruction() -> None:
    """The check itself: decisions A, B, A of one plan are apart."""
    text = ('target triple = "amdgcn-amd-amdhsa"\n'
            "define amdgpu_kernel void @k(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b) {\n"
            "  %x = load i32, ptr addrspace(1) %a, align 4\n  store i32 %x, ptr addrspace(1) %b, align 4\n"
            "  ret void\n}\n")
    seen: list[Plan] = []
    real = pipeline._write_scopes

    def spy(p: Plan, writer: pipeline.MetadataWriter) -> Plan:
        seen.append(p)
        return real(p, writer)

    mp = pytest.MonkeyPatch()
    mp.setattr(pipeline, "_write_scopes", spy)
    try:
        pipeline.annotate_text(text)
    finally:
        mp.undo()
    p = seen[0]
    assert len(p.decisions) == 2 and apart(p) == []
    p.decisions.append(p.decisions[0])
    assert apart(p) == [f"line {p.decisions[0].inst.line}"]


@pytest.mark.parametrize("path", LL_FILES, ids=ll_id)
def test_decisions_of_one_instruction_are_adjacent(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = path.read_text(errors="surrogateescape")
    real = pipeline._write_scopes
    bad: list[str] = []

    def checked(p: Plan, writer: pipeline.MetadataWriter) -> Plan:
        bad.extend(apart(p))
        return real(p, writer)

    monkeypatch.setattr(pipeline, "_write_scopes", checked)
    ran = 0
    for options in OPTIONS:
        try:
            pipeline.annotate_text(text, str(path), options)
        except LLNoaliasError:
            continue  # (bad input on purpose)
        ran += 1
    assert not bad, f"decisions of one instruction apart: {bad[:5]}"
    if not ran:
        pytest.skip("bad input on purpose: no plan")
