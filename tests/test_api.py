"""The public Python API (design section 9): ``llnoalias.annotate`` in a DSL's process."""

from __future__ import annotations

import subprocess
import sys

import pytest

import llnoalias
from llnoalias.transform.pipeline import annotate_text
from tests.support.files import ROOT

FIXTURE = ROOT / "fixtures" / "lds" / "two_bases_int.ll"


def test_annotate_matches_the_pipeline() -> None:
    text = FIXTURE.read_text()
    got = llnoalias.annotate(text, path="k.ll")
    want = annotate_text(text, "k.ll", llnoalias.AnnotateOptions())
    assert got.changed and got.text == want.text
    assert "!alias.scope" in got.text
    assert got.report.as_dict() == want.report.as_dict()
    assert got.report.as_dict()["path"] == "k.ll"


def test_keywords_are_the_cli_options() -> None:
    # a second kernel with two pointer arguments, for --may-alias 0,1 to name (the
    # fixture's kernel has one argument; an index past every kernel's is an error)
    text = FIXTURE.read_text() + (
        "\ndefine amdgpu_kernel void @k2(ptr addrspace(1) %a, ptr addrspace(1) %b) {\n"
        "  %v = load i32, ptr addrspace(1) %a, align 4\n  store i32 %v, ptr addrspace(1) %b, align 4\n"
        "  ret void\n}\n")
    off = llnoalias.annotate(text, lds="off", args="off")
    assert not off.changed and off.text == text
    opts = llnoalias.AnnotateOptions(lds="all", args="noalias", may_alias=((0, 1),), regions=False)
    a = llnoalias.annotate(text, lds="all", args="noalias", may_alias=["0,1"], regions=False)
    b = llnoalias.annotate(text, options=opts)
    assert a.text == b.text


@pytest.mark.parametrize("kwargs", [{"lds": "some"}, {"args": "restrict"}, {"may_alias": ["0"]},
                                    {"may_alias": ["a,b"]}, {"may_alias": [(-1, 2)]}])
def test_bad_options_raise_value_error(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        llnoalias.annotate(FIXTURE.read_text(), **kwargs)  # type: ignore[arg-type]


def test_bad_ir_raises_with_a_located_message() -> None:
    with pytest.raises(llnoalias.LLNoaliasError) as info:
        llnoalias.annotate("define void @k() {\n  %a = add i32 %nope, 1\n  ret void\n}\n", path="bad.ll")
    assert info.value.format().startswith("llnoalias: bad.ll:2:")
    with pytest.raises(TypeError):
        llnoalias.annotate(b"define void @k() { ret void }")  # type: ignore[arg-type]


def test_annotate_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    llnoalias.annotate(FIXTURE.read_text(), lds="all", args="noalias")
    out, err = capsys.readouterr()
    assert out == "" and err == ""


def test_import_is_cheap_and_the_annotate_path_loads_no_backend() -> None:
    code = ("import sys, llnoalias\n"
            "assert 'llnoalias.transform' not in sys.modules\n"
            "llnoalias.annotate(open(sys.argv[1]).read())\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('rich', 'click', 'llvmlite')\n"
            "       or m.startswith(('llnoalias.backends', 'llnoalias.cli', 'llnoalias.stats'))]\n"
            "assert not bad, bad\n")
    proc = subprocess.run([sys.executable, "-c", code, str(FIXTURE)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_unknown_attribute() -> None:
    with pytest.raises(AttributeError):
        llnoalias.no_such_thing  # noqa: B018


def test_a_large_module_is_annotated_with_the_collector_off_and_its_state_restored(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from llnoalias import api
    seen: list[bool] = []
    real_annotate = api.annotate_text

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return real_annotate(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "annotate_text", spy)
    assert gc.isenabled()
    threshold = gc.get_threshold()
    small = FIXTURE.read_text()
    big = small + "\n" + ";" * api.LARGE_INPUT + "\n"  # a long comment: large, same module
    tags = llnoalias.annotate(small).text.count("!alias.scope")
    assert tags and llnoalias.annotate(big).text.count("!alias.scope") == tags
    assert seen == [True, False]  # a small module leaves the collector as it is
    assert gc.isenabled() and gc.get_threshold() == threshold
    with pytest.raises(llnoalias.LLNoaliasError):  # restored when the input is bad too
        llnoalias.annotate("define void @f() {\n  ret void\n" + ";" * api.LARGE_INPUT)
    assert gc.isenabled()
    gc.disable()  # a caller that turned it off itself keeps it off
    try:
        llnoalias.annotate(big)
        assert not gc.isenabled() and seen[-1] is False
    finally:
        gc.enable()


EXISTING_NOT_A_LIST = """target triple = "amdgcn-amd-amdhsa"
@a = addrspace(3) global [64 x i32] undef, align 4
@b = addrspace(3) global [64 x i32] undef, align 4

define amdgpu_kernel void @k(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %in) {
  %x = load i32, ptr addrspace(3) @a, align 4, !alias.scope !0
  %y = load i32, ptr addrspace(3) @b, align 4
  %z = load i32, ptr addrspace(1) %in, align 4, !noalias !1
  store i32 %x, ptr addrspace(3) @b, align 4
  %w = load i32, ptr addrspace(1) %in, align 4, !noalias !2
  store i32 %y, ptr addrspace(1) %out, align 4
  ret void
}

!0 = !{!"not a scope list"}
!1 = distinct !{!1}
!2 = !{}
"""


@pytest.mark.parametrize("kw", [{}, {"lds": "all", "args": "noalias"}])
def test_existing_metadata_that_is_no_list_keeps_its_access_untagged(kw: dict[str, str]) -> None:
    """An access whose own ``!alias.scope``/``!noalias`` is not a plain list of scopes keeps
    its metadata and gets no claim, in every domain it has; the others are tagged as usual,
    and an empty list is merged with."""
    got = llnoalias.annotate(EXISTING_NOT_A_LIST, path="k.ll", **kw)
    lines = got.text.splitlines()
    assert "  %x = load i32, ptr addrspace(3) @a, align 4, !alias.scope !0" in lines
    assert "  %z = load i32, ptr addrspace(1) %in, align 4, !noalias !1, !invariant.load !3" in lines
    w = next(ln for ln in lines if ln.startswith("  %w = load"))
    assert "!alias.scope" in w and "!noalias !2" not in w
    records = {(r.line, r.domain.split(".")[1]): r for r in got.report.accesses}
    untagged = [(6, "lds"), (8, "args")] if kw else [(8, "args")]
    for key in untagged:
        assert not records[key].tagged
        assert records[key].rule == "existing !alias.scope/!noalias is not a plain list of scopes"
        assert records[key].blocker == f"line {key[0]}: the access's own metadata"
    assert sorted(k for k, r in records.items() if not r.tagged) == untagged
    assert len(records) == (6 if kw else 3)


def test_report_false_releases_the_bodies_unless_asked_not_to() -> None:
    """``report=False`` frees the parsed bodies before returning; ``release=False`` (the
    command line, which ends next) leaves them, and the output is the same."""
    text = ('target triple = "amdgcn-amd-amdhsa"\n'
            "define amdgpu_kernel void @k(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b) {\n"
            "  %x = load i32, ptr addrspace(1) %a, align 4\n  store i32 %x, ptr addrspace(1) %b, align 4\n"
            "  ret void\n}\n")
    freed = llnoalias.annotate(text, report=False)
    kept = llnoalias.annotate(text, report=False, release=False)
    assert freed.text == kept.text != text
    assert freed.module.functions[0].instrs == []
    assert [i.opcode for i in kept.module.functions[0].instrs] == ["load", "store", "ret"]


@pytest.mark.parametrize("kw", [{"args": "off"}, {"lds": "all"}, {"may_alias": ["0,1"]}, {"regions": False},
                                {"args": "auto"}, {"lds": "dynamic"}])
def test_keywords_beside_options_are_refused_not_ignored(kw: dict[str, object]) -> None:
    """``annotate(ir, options=o, args="off")`` once ran with ``o`` alone and said nothing; a
    keyword given beside ``options=`` is an error, its default spelt out included."""
    ir = FIXTURE.read_text()
    with pytest.raises(TypeError, match=rf"not both: {next(iter(kw))}=.* beside options="):
        llnoalias.annotate(ir, options=llnoalias.AnnotateOptions(args="noalias"), **kw)  # type: ignore[arg-type]
    assert llnoalias.annotate(ir, options=llnoalias.AnnotateOptions(args="noalias")).text


@pytest.mark.parametrize("may_alias", ["0,2", (0, 2), ["0,2"], [(0, 2)]])
def test_may_alias_takes_one_group_as_a_string_or_a_tuple_of_indices(may_alias: object) -> None:
    ir = "define amdgpu_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c) {\n  ret void\n}\n"
    res = llnoalias.annotate(ir, args="noalias", may_alias=may_alias)  # type: ignore[arg-type]
    assert llnoalias.AnnotateOptions(may_alias=may_alias).may_alias == ((0, 2),)  # type: ignore[arg-type]
    assert res.text.count(" noalias ") == 1 and "noalias readonly %b" in res.text  # %a and %c may share one
