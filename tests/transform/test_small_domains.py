"""A small plain domain's scope and noalias lists are made with its scopes
(``pipeline._write_scopes``, ``SMALL_DOMAIN``): the output is what making each key's lists
when an access first holds it gives, on every fixture and on modules of many kernels."""

from __future__ import annotations

import pytest

import llnoalias
from llnoalias.fileio import decode
from llnoalias.transform import pipeline
from tests.support.files import all_fixtures

HEAD = 'target triple = "amdgcn-amd-amdhsa"\n\n'


def _kernel(n: int, args: int) -> str:
    params = ", ".join(f"ptr addrspace(1) noalias %p{i}" for i in range(args))
    body = "".join(f"  %x{i} = load i32, ptr addrspace(1) %p{i}, align 4\n" for i in range(args - 1))
    body += f"  store i32 %x0, ptr addrspace(1) %p{args - 1}, align 4\n"
    # an access through either of two arguments holds two keys
    body += ("  %s = select i1 true, ptr addrspace(1) %p0, ptr addrspace(1) %p1\n"
             "  store i32 1, ptr addrspace(1) %s, align 4\n  ret void")
    return f"define amdgpu_kernel void @k{n}({params}) {{\n{body}\n}}\n"


MODULES = {
    "many-small": HEAD + "\n".join(_kernel(n, 2 + n % 4) for n in range(12)),
    "past-small": HEAD + "\n".join(_kernel(n, pipeline.SMALL_DOMAIN + n) for n in range(3)),
    "with-lds": HEAD + "@smem = addrspace(3) global [64 x i32] undef, align 4\n\n" + _kernel(0, 3)
    + "define amdgpu_kernel void @l(ptr addrspace(1) noalias %a) {\n"
    "  %x = load i32, ptr addrspace(3) @smem, align 4\n  store i32 %x, ptr addrspace(1) %a, align 4\n"
    "  %y = load i32, ptr addrspace(1) %a, align 4\n"
    "  store i32 %y, ptr addrspace(3) getelementptr (i32, ptr addrspace(3) @smem, i32 1), align 4\n"
    "  ret void\n}\n",
}


def _out(text: str, small: int, monkeypatch: pytest.MonkeyPatch) -> tuple[str, object]:
    monkeypatch.setattr(pipeline, "SMALL_DOMAIN", small)
    res = llnoalias.annotate(text, lds="all", args="noalias")
    return res.text, res.report.as_dict()


@pytest.mark.parametrize("name", sorted(MODULES))
def test_same_lists_as_made_on_first_use(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = MODULES[name]
    got = _out(text, pipeline.SMALL_DOMAIN, monkeypatch)
    assert "!noalias" in got[0]
    assert got == _out(text, 0, monkeypatch)


def test_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    for path in all_fixtures()[::7]:
        with open(path, "rb") as fh:
            text = decode(fh.read())
        try:
            want = _out(text, 0, monkeypatch)
        except llnoalias.LLNoaliasError:
            continue
        assert _out(text, pipeline.SMALL_DOMAIN, monkeypatch) == want, path
