"""Function bodies read where they are used (``parse_module_deferred``): a large
module split between processes has each body read by the process that analyses it. A body
read later is the body the one-pass parse reads; a bad module is reported as the one-pass
parse reports it; and the parent leaves unread the bodies a worker analysed."""

from __future__ import annotations

import glob
import os
from collections.abc import Callable

import pytest

import llnoalias
from llnoalias.diagnostics import LLNoaliasError
from llnoalias.ir.model import Function
from llnoalias.ir.parser import BodyMismatch, parse_module, parse_module_deferred
from llnoalias.ir.source import SourceFile
from llnoalias.transform import pipeline, workers
from tests.support.files import DATA, FIXTURES

ROOT = os.path.dirname(FIXTURES)
FILES = sorted({*glob.glob(os.path.join(FIXTURES, "**", "*.ll"), recursive=True),
                *glob.glob(os.path.join(DATA, "**", "*.ll"), recursive=True)})


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def _body(fn: Function) -> tuple[object, ...]:
    return ([(i.name, i.opcode, i.start, i.end, i.opstart) for i in fn.instrs], sorted(fn.by_name),
            list(fn.blocks), list(fn.block_offsets))


def _error(text: str) -> str | None:
    try:
        parse_module(SourceFile("t.ll", text))
    except LLNoaliasError as e:
        return e.format()
    return None


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_a_body_read_later_is_the_body_read_at_once(path: str) -> None:
    """Every fixture and corpus file: the same functions, each body (read in reverse
    order, so none is read where the one-pass parse reads it) the same, and the same
    verdict on the whole module."""
    text = _read(path)
    want = _error(text)
    try:
        mod, bodies = parse_module_deferred(SourceFile(path, text))
        for fn in reversed(mod.functions):
            fn.instrs  # noqa: B018 - read the body
        bodies.check()
    except (LLNoaliasError, BodyMismatch) as e:
        # the deferred parse may stop elsewhere; it must not pass a module the one-pass
        # parse rejects, nor reject one it passes other than by a body that ends elsewhere
        assert want is not None or isinstance(e, BodyMismatch), (path, e)
        return
    assert want is None, (path, want)
    one = parse_module(SourceFile(path, text))
    assert [f.name for f in mod.functions] == [f.name for f in one.functions]
    for a, b in zip(mod.functions, one.functions, strict=True):
        assert not a.body_pending
        assert _body(a) == _body(b), (path, a.name)


@pytest.fixture
def split_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker per function, and every body read where it is used."""
    monkeypatch.setattr(workers, "MIN_GROUP_INSTRUCTIONS", 1)
    monkeypatch.setattr(workers, "MIN_AVERAGE_INSTRUCTIONS", 0)
    monkeypatch.setattr(pipeline, "DEFER_CHARS", 0)


KERNEL = """define amdgpu_kernel void @k{n}(ptr addrspace(1) %out) {{
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(3) @lds_a, i32 %t
  store i32 {n}, ptr addrspace(3) %p, align 4
  %q = getelementptr i32, ptr addrspace(3) @lds_b, i32 %t
  %v = load i32, ptr addrspace(3) %q, align 4
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}}
"""
HEAD = """target triple = "amdgcn-amd-amdhsa"
@lds_a = internal addrspace(3) global [256 x i32] undef, align 4
@lds_b = internal addrspace(3) global [256 x i32] undef, align 4
declare i32 @llvm.amdgcn.workitem.id.x()
"""


def _module(n: int, bad: dict[int, tuple[str, str]] | None = None) -> str:
    """``n`` kernels; ``bad`` replaces a text in the kernel of that number."""
    parts = [HEAD]
    for k in range(n):
        body = KERNEL.format(n=k)
        if bad and k in bad:
            old, new = bad[k]
            assert old in body
            body = body.replace(old, new)
        parts.append(body)
    return "\n".join(parts)


@pytest.mark.forks
def test_the_parent_leaves_a_workers_bodies_unread(split_everything: None) -> None:
    text = _module(6)
    one = llnoalias.annotate(text, path="t.ll", lds="all")
    many = llnoalias.annotate(text, path="t.ll", lds="all", jobs=3)
    assert many.text == one.text
    assert many.report.as_dict() == one.report.as_dict()
    assert many.module is not None and one.module is not None
    pending = [fn for fn in many.module.functions if fn.body_pending]
    assert pending, "every body was read in the parent"
    # read now, each is the body the one-pass parse read
    for fn in pending:
        assert _body(fn) == _body(one.module.functions_by_name[fn.name])


BAD = {
    "an undefined value in a worker's body": {5: ("%v = load i32, ptr addrspace(3) %q", "%v = load i32, ptr addrspace(3) %nope")},
    "an undefined global in a worker's body": {4: ("@lds_b, i32 %t", "@lds_c, i32 %t")},
    "an undefined value in the parent's body": {0: ("store i32 %v,", "store i32 %w,")},
    "a name defined twice": {3: ("%q = getelementptr", "%p = getelementptr")},
    "two bad bodies: the first is reported": {2: ("%v = load i32, ptr addrspace(3) %q", "%v = load i32, ptr addrspace(3) %x2"),
                                            5: ("%v = load i32, ptr addrspace(3) %q", "%v = load i32, ptr addrspace(3) %x5")},
    "a bad body before a bad top-level line": {2: ("store i32 %v,", "store i32 %w,"),
                                              3: ("ret void\n}", "ret void\n}\nwhat is this")},
    "a bad body after a bad top-level line": {1: ("ret void\n}", "ret void\n}\nwhat is this"),
                                             4: ("store i32 %v,", "store i32 %w,")},
    "a body with no '}'": {3: ("ret void\n}", "ret void")},
    "the last body with no '}'": {5: ("ret void\n}", "ret void")},
}


@pytest.mark.forks
@pytest.mark.parametrize("case", BAD)
def test_a_bad_module_is_reported_as_one_pass_reports_it(split_everything: None, case: str) -> None:
    text = _module(6, BAD[case])
    want = _error(text)
    assert want is not None
    for jobs in (1, 3):
        with pytest.raises(LLNoaliasError) as got:
            llnoalias.annotate(text, path="t.ll", lds="all", jobs=jobs)
        assert got.value.format() == want, (case, jobs)


@pytest.mark.forks
def test_a_body_that_ends_elsewhere_is_read_in_one_pass(split_everything: None,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Should reading a body end elsewhere than the top-level pass found its '}' (both take
    the first '}' in column 0 today; the check guards the two against drifting apart), the
    run starts again in one pass and gives what one process gives."""
    set_pending = Function.set_pending

    def drifting(self: Function, read: Callable[[], None], lines: int) -> None:
        def read_elsewhere() -> None:
            read()
            if self.name == "@k4":
                raise BodyMismatch(self.name)

        set_pending(self, read_elsewhere, lines)

    text = _module(6)
    one = llnoalias.annotate(text, path="t.ll", lds="all")
    monkeypatch.setattr(Function, "set_pending", drifting)
    mod, _ = parse_module_deferred(SourceFile("t.ll", text))
    with pytest.raises(BodyMismatch):
        mod.functions_by_name["@k4"].instrs  # noqa: B018 - read the body
    many = llnoalias.annotate(text, path="t.ll", lds="all", jobs=3)
    assert many.text == one.text
    assert many.report.as_dict() == one.report.as_dict()
    assert many.module is not None and not any(fn.body_pending for fn in many.module.functions)
