"""The scope writer keeps little per domain: a fresh domain's scopes are read back from
the lines written when asked for (``MetadataWriter.scopes``), a fresh domain's lists are
dropped once ``_write_scopes`` has written all its accesses (``MetadataWriter.forget``,
the ``forget-lists`` shortcut from ``pipeline.FORGET_FROM`` domains on), and the appended lines reach the output without being joined
first (``Editor.encoded``). None of it changes a byte of the output."""

from __future__ import annotations

import pytest

import llnoalias
from llnoalias.fileio import decode
from llnoalias.ir.editor import Editor
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from llnoalias.transform import pipeline
from llnoalias.transform.metadata import MetadataWriter
from tests.support.files import all_fixtures
from tests.support.switches import switch_shortcut, twin

HEAD = 'target triple = "amdgcn-amd-amdhsa"\n\n@smem = addrspace(3) global [64 x i32] undef, align 4\n\n'


def _kernel(n: int, args: int) -> str:
    params = ", ".join(f"ptr addrspace(1) noalias %p{i}" for i in range(args))
    body = "".join(f"  %x{i} = load i32, ptr addrspace(1) %p{i}, align 4\n" for i in range(args - 1))
    body += f"  store i32 %x0, ptr addrspace(1) %p{args - 1}, align 4\n"
    if n % 3 == 0:  # the LDS domain: its decisions are in many kernels, not one stretch
        body += (f"  %l = load i32, ptr addrspace(3) @smem, align 4\n"
                 f"  store i32 %l, ptr addrspace(3) getelementptr (i32, ptr addrspace(3) @smem, i32 {n % 5 + 1}),"
                 " align 4\n")
    if n % 2 == 0:  # an access of two keys
        body += ("  %s = select i1 true, ptr addrspace(1) %p0, ptr addrspace(1) %p1\n"
                 "  store i32 1, ptr addrspace(1) %s, align 4\n")
    return f"define amdgpu_kernel void @k{n}({params}) {{\n{body}  ret void\n}}\n"


MANY = HEAD + "\n".join(_kernel(n, 2 + n % 4) for n in range(40))


def _out(text: str, forget: bool, monkeypatch: pytest.MonkeyPatch, **options: object) -> tuple[str, object]:
    with monkeypatch.context() as m:
        switch_shortcut(m, "forget-lists", forget)
        # (sizes: every plan forgets, a batch of one instruction)
        m.setattr(pipeline, "FORGET_FROM", 0)
        m.setattr(pipeline, "BATCH", 1 if forget else 4096)
        res = llnoalias.annotate(text, **options)  # type: ignore[arg-type]
        return res.text, res.report.as_dict()


@pytest.mark.parametrize("options", [{}, {"lds": "all", "args": "noalias"}])
def test_forgetting_lists_changes_nothing(options: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    got = _out(MANY, True, monkeypatch, **options)
    assert got[0].count("!noalias") > 40
    assert got == _out(MANY, False, monkeypatch, **options)


def test_lists_forgotten_as_domains_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a batch of one instruction, a kernel's domain is forgotten once the next
    kernel's accesses start: few memos are alive at any time (a small domain's lists are
    kept in its record, dropped with it, unless something else asks for them)."""
    seen: list[int] = []
    forget_all = MetadataWriter.forget_all

    def spy(self: MetadataWriter, domains: list[str]) -> None:
        forget_all(self, domains)
        seen.append(len(self._own_lists))

    monkeypatch.setattr(MetadataWriter, "forget_all", spy)
    _out(MANY, True, monkeypatch, lds="all")
    assert len(seen) >= 30
    assert max(seen) <= 3


def test_fixtures_forgetting(monkeypatch: pytest.MonkeyPatch) -> None:
    for path in all_fixtures()[::5]:
        with open(path, "rb") as fh:
            text = decode(fh.read())
        try:
            want = _out(text, False, monkeypatch, lds="all", args="noalias")
        except llnoalias.LLNoaliasError:
            continue
        assert _out(text, True, monkeypatch, lds="all", args="noalias") == want, path


def _writer(text: str = "define void @f() {\n  ret void\n}\n") -> tuple[MetadataWriter, Editor]:
    mod = parse_module(SourceFile("t.ll", text))
    ed = Editor(mod.source)
    return MetadataWriter(mod, ed), ed


def test_forget_drops_one_domain() -> None:
    w, _ = _writer()
    a = w.domain_scopes("llnoalias.args.a", ["x", "y"])
    b = w.domain_scopes("llnoalias.args.b", ["x", "y", "z"])
    la = w.list_node((a[0],))
    lb = w.list_node((b[1], b[2]))
    mixed = w.list_node((a[1], b[0]))  # an instruction of both domains: kept with a's
    w.forget("llnoalias.args.a")
    w.forget("llnoalias.args.nothing")  # not a domain: nothing
    assert w.list_node((b[1], b[2])) == lb  # b's lists stay
    assert lb != la != mixed
    with pytest.raises(AssertionError, match="forgotten"):
        w.list_node((a[0],))
    with pytest.raises(AssertionError, match="forgotten"):
        w.list_node((a[1], b[0]))
    nid = w.next_id
    assert w.list_node((b[0],)) == nid  # new lists still take the next id


def test_fresh_scopes_read_back_when_asked() -> None:
    w, ed = _writer()
    w.domain_scopes("llnoalias.args.a", ["x", "y"])
    assert w._scopes == {}  # not kept as made
    assert w.scopes == {("llnoalias.args.a", "x"): w.domains["llnoalias.args.a"] + 1,
                        ("llnoalias.args.a", "y"): w.domains["llnoalias.args.a"] + 2}
    # a second call for the domain finds them (no new line)
    lines = len(list(ed.appended_lines()))
    assert w.domain_scopes("llnoalias.args.a", ["y", "z"]) == [w.domains["llnoalias.args.a"] + 2, w.next_id - 1]
    assert len(list(ed.appended_lines())) == lines + 1


@pytest.mark.parametrize("text", ["a\nb", "a\r\nb\r\n", "a\nb\n", ""])
def test_encoded_is_chunks(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from llnoalias.ir import editor

    if twin("body_reader") is None:
        pytest.skip("the compiled splice is not built")
    monkeypatch.setattr(editor, "PACK", 2)
    ed = Editor(SourceFile("t.ll", text))
    ed.insert(len(text), "<end>", order=1)
    ed.insert(len(text), "<end0>")
    ed.insert(0, "<start>")
    for i in range(5):
        ed.append_line(f"!{i} = !{{}}")
    made = list(ed.edits)
    data = ed.encoded()
    assert ed.edits == made  # the appended lines' edits are gone again
    assert data == "".join(ed.chunks()).encode()
    assert data is not None and data.endswith(ed.src.newline.join(f"!{i} = !{{}}" for i in range(5)).encode()
                                              + ed.src.newline.encode())


@pytest.mark.parametrize("at", [0, 5, 30])
def test_a_domain_holding_anothers_key(at: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Small domains are kept out of ``ids`` only while every key is its own domain's: a
    domain holding a key of another (no plan has one) gets the ids the long way gives."""
    write = pipeline._write_scopes

    def odd(p: pipeline.Plan, writer: MetadataWriter) -> pipeline.Plan:
        items = list(p.domain_keys.items())
        items.insert(at, ("llnoalias.odd", [items[1][1][0], items[2][1][-1], items[-1][1][0]]))
        return write(pipeline.Plan(p.decisions, dict(items)), writer)

    monkeypatch.setattr(pipeline, "_write_scopes", odd)
    got = _out(MANY, True, monkeypatch, lds="all")
    assert "llnoalias.odd" in got[0]
    assert got == _out(MANY, False, monkeypatch, lds="all")


@pytest.mark.parametrize("names", [["x"], ["x", "y"], ["x", "y", "z"], ["p", "q", "r", "s"]])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_fresh_domain_writes_the_long_ways_lines(names: list[str], newline: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A new domain's lines written as one block read line by line as ``scope`` writes them."""
    text = f"define void @f() {{{newline}  ret void{newline}}}{newline}"
    fast, fed = _writer(text)
    got = fast.domain_scopes("llnoalias.args.k", names)
    with monkeypatch.context() as m:
        switch_shortcut(m, "fresh-domains", False)
        slow, sed = _writer(text)
        want = slow.domain_scopes("llnoalias.args.k", names)
    assert got == want == list(range(fast.domains["llnoalias.args.k"] + 1, fast.next_id))
    assert list(fed.appended_lines()) == list(sed.appended_lines())
    assert len(list(fed.appended_lines())) == len(names) + 1
    assert "".join(fed.chunks()) == "".join(sed.chunks())
    assert fast.scopes == slow.scopes
    # not new: nothing written
    assert fast.fresh_domain("llnoalias.args.k", ["w"]) == -1
    assert fast.fresh_domain("llnoalias.args.other", []) == -1
    assert len(list(fed.appended_lines())) == len(names) + 1


def _small_kernel(n: int) -> str:
    """A kernel of small plain domains' accesses: repeated keys, an access of two keys and one
    with scopes of its own (kept by ``attach``, or not mergeable)."""
    body = ("  %x = load i32, ptr addrspace(1) %a, align 4\n"
            "  %y = load i32, ptr addrspace(1) %a, align 4\n"
            "  store i32 %x, ptr addrspace(1) %b, align 4\n")
    if n % 3 == 0:
        body += "  store i32 %y, ptr addrspace(1) %c, align 4, !noalias !0\n"
    if n % 4 == 1:
        body += ("  %t = icmp eq i32 %x, 0\n  %s = select i1 %t, ptr addrspace(1) %b, ptr addrspace(1) %c\n"
                 "  store i32 2, ptr addrspace(1) %s, align 4\n")
    body += "  store i32 %y, ptr addrspace(1) %c, align 4\n"
    params = "ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b, ptr addrspace(1) noalias %c"
    return f"define amdgpu_kernel void @s{n}({params}) {{\n{body}  ret void\n}}\n"


SMALL = (HEAD + "\n".join(_small_kernel(n) for n in range(70))
         + '\n!0 = !{!1}\n!1 = distinct !{!1, !2, !"x"}\n!2 = distinct !{!2, !"d"}\n')


@pytest.mark.parametrize("options", [{}, {"lds": "all", "args": "noalias"}])
def test_many_kernels_written_a_batch_at_a_time(options: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    """Kernels of repeated keys, accesses of two keys and scopes of their own (kept by
    ``attach``, or not mergeable), written one instruction at a time with each domain
    forgotten as it ends, give what one batch gives; a second run changes nothing."""
    def out(batch: int) -> tuple[str, object]:
        with monkeypatch.context() as m:
            m.setattr(pipeline, "BATCH", batch)
            m.setattr(pipeline, "FORGET_FROM", 0)
            res = llnoalias.annotate(SMALL, **options)  # type: ignore[arg-type]
            return res.text, res.report.as_dict()

    got = out(1)
    assert got[0].count("!alias.scope") > 200
    assert got == out(1 << 30)
    assert llnoalias.annotate(got[0], **options).text == got[0]  # type: ignore[arg-type]


def test_append_block_reads_as_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    from llnoalias.ir import editor

    monkeypatch.setattr(editor, "PACK", 3)
    for nl in ("\n", "\r\n"):
        ed = Editor(SourceFile("t.ll", f"x{nl}"))
        want = []
        for i in range(7):
            block = [f"!{i} = !{{}}", f"!{i + 100} = !{{}}"]
            ed.append_block(nl.join(block))
            ed.append_line(f"!{i + 200} = !{{}}")
            want += [*block, f"!{i + 200} = !{{}}"]
        assert list(ed.appended_lines()) == want
        assert "".join(ed.chunks()) == f"x{nl}" + nl.join(want) + nl
