"""design section 4b in the compiled code: after llnoalias, every LDS access that reads or writes
bytes of an LDS-DMA still in flight is preceded by a ``vmcnt`` wait that retires it.

The kernels are compiled with the embedded LLVM (llvmlite 0.50, LLVM 22.1: its
``SIInsertWaitcnts`` has the per-scope DMA slots) and with ``llc-19`` (no slot logic for
unscoped DMAs: it waits) where it is installed. The assembly is read one straight line at a
time: a DMA (``buffer_load_* ... lds``, ``global_load_lds_*``) enters the in-order ``vmcnt``
queue like every other vector-memory instruction, ``s_waitcnt vmcnt(k)`` leaves the last
``k`` in flight, and a ``ds_read*``/``ds_write*`` that touches the DMA's bytes must find it
retired. Every kernel here is built so that each LDS access after the DMA touches its bytes.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from llnoalias import annotate
from llnoalias.options import AnnotateOptions
from llnoalias.transform.pipeline import annotate_text
from tests.support.dma_ir import (
    DMA_RE,
    DS_RE,
    HEAD,
    LOWERED,
    OTHER,
    PRODUCER_A,
    TAIL,
    VMEM_RE,
    WAIT_RE,
    dma,
    kernel,
    read,
)
from tests.support.run import run_cli

pytestmark = pytest.mark.slow


def lost_waits(asm: str, only: str = "") -> list[str]:
    """The LDS accesses (those matching ``only``, when given) that may run while a DMA of
    their straight line is in flight."""
    bad: list[str] = []
    queue: list[bool] = []  # in-flight vector-memory instructions, oldest first: is it a DMA?
    func = ""
    for raw in asm.splitlines():
        line = raw.split(";")[0].strip()
        if not line:
            continue
        if line.endswith(":") and not line.startswith("."):
            func = line[:-1]
        if line.endswith(":") or line.startswith("s_cbranch") or line.startswith("s_branch") \
                or line.startswith("s_endpgm"):
            queue = []  # a new straight line (a label, a branch): checked on its own
            continue
        m = WAIT_RE.match(line)
        if m:
            k = int(m.group(1)) if m.group(1) is not None else int(m.group(2), 0)
            queue = queue[len(queue) - k:] if k < len(queue) else queue
            if k == 0:
                queue = []
            continue
        if VMEM_RE.match(line):
            queue.append(bool(DMA_RE.match(line)))
            continue
        if DS_RE.match(line) and any(queue) and (not only or re.search(only, line)):
            bad.append(f"{func}: {line}")
    return bad


def _dmas(asm: str) -> int:
    return sum(1 for raw in asm.splitlines() if DMA_RE.match(raw.strip()))


def llvmlite_asm(text: str) -> str:
    pytest.importorskip("llvmlite", reason="llvmlite is not installed: the embedded LLVM cannot compile")
    from llnoalias.backends.codegen import generate

    return generate(text, emit="asm", mcpu="gfx942").decode()


def llc19_asm(text: str) -> str:
    llc = shutil.which("llc-19")
    if llc is None:
        pytest.skip("llc-19 is not installed (apt-get install llvm-19)")
    proc = subprocess.run([llc, "-O3", "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-o", "-"],
                          input=text, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


COMPILERS = {"llvmlite": llvmlite_asm, "llc19": llc19_asm}










def _line_of(text: str, needle: str) -> int:
    return next(n for n, ln in enumerate(text.splitlines(), 1) if needle in ln and "declare" not in ln)


def _sanity(asm: str) -> None:
    assert _dmas(asm) >= 1, asm


# --------------------------------------------------------------- the checker itself


def test_checker_sees_a_lost_wait_and_a_kept_one() -> None:
    lost = "k:\n\tbuffer_load_dword v0, s[0:3], 0 offen lds\n\tds_read_b32 v1, v0\n\ts_endpgm\n"
    kept = "k:\n\tbuffer_load_dword v0, s[0:3], 0 offen lds\n\ts_waitcnt vmcnt(0)\n\tds_read_b32 v1, v0\n"
    later = ("k:\n\tbuffer_load_dword v0, s[0:3], 0 offen lds\n\tglobal_load_dword v2, v[0:1], off\n"
             "\ts_waitcnt vmcnt(1)\n\tds_read_b32 v1, v0\n")
    short = ("k:\n\tbuffer_load_dword v0, s[0:3], 0 offen lds\n\tglobal_load_dword v2, v[0:1], off\n"
             "\ts_waitcnt vmcnt(2)\n\tds_read_b32 v1, v0\n")
    assert lost_waits(lost) == ["k: ds_read_b32 v1, v0"]
    assert lost_waits(kept) == []
    assert lost_waits(later) == []
    assert lost_waits(short) == ["k: ds_read_b32 v1, v0"]


@pytest.mark.parametrize("read_md", [PRODUCER_A, ", !noalias !4", ", !tbaa !5"],
                         ids=["scoped", "noalias_only", "tbaa_only"])
def test_llvm22_loses_the_wait_of_an_unscoped_dma(read_md: str) -> None:
    """The bug the rules answer, measured: LLVM 22.1 gives a read that carries any alias
    metadata no wait for a DMA without !alias.scope; llc-19 waits."""
    text = kernel(dma() + read("x", "@A", read_md))
    assert lost_waits(llvmlite_asm(text)), "LLVM 22 no longer loses this wait: revisit design section 4b"
    assert lost_waits(llc19_asm(text)) == []


# ------------------------------------------------- four tag combinations, input and output


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("dma_md", ["", PRODUCER_A], ids=["dma_bare", "dma_scoped"])
@pytest.mark.parametrize("read_md", ["", PRODUCER_A], ids=["read_bare", "read_scoped"])
@pytest.mark.parametrize("opts", [{}, {"lds": "all", "args": "noalias"}], ids=["defaults", "all"])
def test_four_tag_combinations(compiler: str, dma_md: str, read_md: str, opts: dict) -> None:
    text = kernel(dma(md=dma_md) + read("x", "@A", read_md))
    out = annotate(text, **opts).text
    asm = COMPILERS[compiler](out)
    _sanity(asm)
    assert lost_waits(asm) == [], out


# ------------------------------------------------- other lanes, immediate offsets, writes

SHAPES = {
    # lane 0's own dword, at the DMA's immediate offset
    "imm_offset": dma(imm=64) + read("x", "getelementptr (i8, ptr addrspace(3) @A, i32 64)"),
    # lane 1's dword
    "other_lane": dma() + read("x", "getelementptr (i8, ptr addrspace(3) @A, i32 4)"),
    # every lane's own dword, through a thread id
    "lane_tid": dma() + "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  %t4 = shl i32 %t, 2\n"
    "  %pt = getelementptr i8, ptr addrspace(3) @A, i32 %t4\n" + read("x", "%pt"),
    # writes over the DMA's bytes
    "write_same": dma() + "  store i32 %v, ptr addrspace(3) @A, align 4\n",
    "write_lane": dma() + "  store i32 %v, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @A, i32 8), align 4\n",
    "write_imm": dma(imm=128) + "  store i32 %v, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @A, i32 132), align 4\n",
    # the DMA through an integer address (kept: BasicAA cannot see through inttoptr)
    "inttoptr_dma": "  %ai = ptrtoint ptr addrspace(3) @A to i32\n  %da = add i32 %ai, %base\n"
    "  %dp = inttoptr i32 %da to ptr addrspace(3)\n" + dma("%dp")
    + "  %pb = getelementptr i8, ptr addrspace(3) %dp, i32 4\n" + read("x", "%pb")
    + read("y", "getelementptr (i8, ptr addrspace(3) @A, i32 4)"),
    # integer addresses on both sides, at constant offsets
    "inttoptr_both": "  %ai = ptrtoint ptr addrspace(3) @A to i32\n  %da = add i32 %ai, 64\n"
    "  %dp = inttoptr i32 %da to ptr addrspace(3)\n" + dma("%dp")
    + "  %ra = add i32 %ai, 68\n  %rp = inttoptr i32 %ra to ptr addrspace(3)\n" + read("x", "%rp"),
    # a DMA folded to @A by the code generator: inttoptr(ptrtoint @A + 0)
    "inttoptr_zero": "  %ai = ptrtoint ptr addrspace(3) @A to i32\n  %da = add i32 %ai, 0\n"
    "  %dp = inttoptr i32 %da to ptr addrspace(3)\n" + dma("%dp")
    + read("x", "getelementptr (i8, ptr addrspace(3) @A, i32 4)"),
    # integers the code generator's simplifications fold to ptrtoint(@A): the DMA is @A again
    "inttoptr_and_zero": "  %ai = ptrtoint ptr addrspace(3) @A to i32\n  %z = and i32 %base, 0\n"
    "  %da = add i32 %ai, %z\n  %dp = inttoptr i32 %da to ptr addrspace(3)\n" + dma("%dp")
    + read("x", "getelementptr (i8, ptr addrspace(3) @A, i32 4)"),
    "inttoptr_sub_self": "  %ai = ptrtoint ptr addrspace(3) @A to i32\n  %z = sub i32 %base, %base\n"
    "  %da = add i32 %z, %ai\n  %dp = inttoptr i32 %da to ptr addrspace(3)\n" + dma("%dp")
    + read("x", "getelementptr (i8, ptr addrspace(3) @A, i32 4)"),
}


def _with_b(body: str) -> str:
    return body


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("opts", [{}, {"lds": "all", "args": "noalias"}], ids=["defaults", "all"])
def test_waits_for_lanes_offsets_and_writes(compiler: str, shape: str, opts: dict) -> None:
    text = kernel(_with_b(SHAPES[shape]))
    out = annotate(text, **opts).text
    assert "llnoalias.lds" in out  # claims were made (the @B read at the least)
    asm = COMPILERS[compiler](out)
    _sanity(asm)
    assert lost_waits(asm) == [], out


@pytest.mark.parametrize("shape", ["imm_offset", "other_lane", "write_lane", "write_imm", "inttoptr_zero",
                                   "inttoptr_and_zero", "inttoptr_sub_self"])
def test_without_the_rule_the_wait_is_lost(shape: str) -> None:
    """The rule matters: the same kernels with every access given its buffer's scope (what
    llnoalias wrote before design section 4b) lose the wait in LLVM 22."""
    import llnoalias.transform.pipeline as pl

    text = kernel(_with_b(SHAPES[shape]))
    real = pl.guard
    pl.guard = lambda p, *a: []
    try:
        unguarded = annotate_text(text, "k.ll").text
    finally:
        pl.guard = real
    assert lost_waits(llvmlite_asm(unguarded)), unguarded


def test_inttoptr_dma_keeps_the_claims() -> None:
    """The claim-kept side of rule (b): a read of @A beside an integer-address DMA keeps its
    scope, and the wait is still there; a read 4 bytes past the DMA's own pointer does not
    (BasicAA decomposes both to the same inttoptr and separates them)."""
    res = annotate_text(kernel(_with_b(SHAPES["inttoptr_dma"])), "k.ll")
    recs = {a.text.split(" = ")[0]: a for a in res.report.accesses if a.domain == "llnoalias.lds"}
    assert recs["%y"].tagged and recs["%b"].tagged
    assert not recs["%x"].tagged and recs["%x"].rule.startswith("shares an LDS scope")
    assert lost_waits(llvmlite_asm(res.text)) == []


# ------------------------------------------------- untraced DMA: no scopes, a named reason


UNTRACED = kernel("  %d = load ptr addrspace(3), ptr addrspace(1) %q, align 4\n" + dma("%d")
                  + read("x", "@A"))


def test_untraced_dma_no_scopes_and_a_named_reason(tmp_path) -> None:
    res = annotate_text(UNTRACED, "k.ll")
    lds = [a for a in res.report.accesses if a.domain == "llnoalias.lds" and a.function == "@k"]
    assert lds and not any(a.tagged for a in lds)
    reads = [a for a in lds if a.opcode == "load"]
    assert reads and all(a.rule.startswith("untraced LDS-DMA") for a in reads)
    line = _line_of(UNTRACED, "buffer.load.lds(")
    assert all(f"line {line}:" in a.blocker for a in reads), [a.blocker for a in reads]
    assert not [ln for ln in res.text.split("define amdgpu_kernel void @other")[0].splitlines()
                if "addrspace(3)" in ln and "!alias.scope" in ln]
    src = tmp_path / "k.ll"
    src.write_text(UNTRACED)
    stats = run_cli([str(src), "--stats", "--no-verify", "-o", str(tmp_path / "o.ll")])
    assert "untraced LDS-DMA" in stats.stderr
    report = tmp_path / "r.json"
    remarks = tmp_path / "r.yaml"
    run_cli([str(src), "--no-verify", "--report", str(report), "--remarks", str(remarks), "-o", str(tmp_path / "o.ll")])
    assert "untraced LDS-DMA" in report.read_text()
    assert "untraced LDS-DMA" in remarks.read_text()
    explain = run_cli(["explain", str(src)])
    assert "untraced LDS-DMA" in explain.stdout.decode()
    assert lost_waits(llvmlite_asm(res.text)) == []


def test_input_already_unsafe_warns_with_the_line(tmp_path) -> None:
    """A producer scoped the reads and not the DMA, whose destination cannot be traced:
    llnoalias cannot fix it and says so on stderr (the API carries it in the report)."""
    text = kernel("  %d = load ptr addrspace(3), ptr addrspace(1) %q, align 4\n" + dma("%d")
                  + read("x", "@A", PRODUCER_A))
    res = annotate_text(text, "k.ll")
    line = _line_of(text, "buffer.load.lds(")
    assert [w[0] for w in res.report.warnings] == [line]
    assert res.report.as_dict()["warnings"][0]["line"] == line
    src = tmp_path / "k.ll"
    src.write_text(text)
    cli = run_cli([str(src), "--no-verify", "-o", str(tmp_path / "o.ll")])
    assert cli.exit_code == 0
    assert re.search(rf"k\.ll:{line}:3: warning: LDS-DMA without !alias\.scope", cli.stderr), cli.stderr
    assert cli.stderr.count("warning:") == 1, cli.stderr
    # several inputs (one worker each): each file's warning once, not once per printer
    (tmp_path / "k2.ll").write_text(text)
    batch = run_cli([str(src), str(tmp_path / "k2.ll"), "--no-verify", "--out-dir", str(tmp_path / "out")])
    assert batch.exit_code == 0
    assert sorted(re.findall(r"(k2?\.ll):\d+:3: warning:", batch.stderr)) == ["k.ll", "k2.ll"], batch.stderr
    # the same with a DMA llnoalias can scope says nothing
    ok = annotate_text(kernel(dma() + read("x", "@A", PRODUCER_A)), "k.ll")
    assert ok.report.warnings == []




@pytest.mark.parametrize("compiler", COMPILERS)
def test_static_dma_beside_a_lowered_read_gets_no_lds_scopes(compiler: str) -> None:
    """A DMA to @b + 1024 (imm 256: the wave writes [1280, 1536)) and a read of @b + 1456,
    both addressed directly, so LLVM's module-LDS lowering scopes them and LLVM 22 no longer
    waits between them; the input waits only because the read of @c before it, through an
    integer address, carries no metadata. Under --lds all llnoalias would scope that read (a
    true claim) and take the wait away: in such a function it adds no LDS scopes, and warns."""
    text = LOWERED.replace("OFFSET", "1456")
    asm = COMPILERS[compiler]
    assert lost_waits(asm(text), only="ds_read_b128") == []
    res = annotate_text(text, "k.ll", AnnotateOptions(lds="all", args="noalias"))
    assert "!alias.scope" not in res.text.split("%x = load")[1].splitlines()[0]
    assert [w[0] for w in res.report.warnings] == [_line_of(text, "%y = load")]
    assert lost_waits(asm(res.text), only="ds_read_b128") == []
    lds = [r for r in res.report.accesses if r.domain.endswith("lds") and "%x = load" in r.text]
    assert lds and not lds[0].tagged and "module-LDS lowering" in lds[0].reason


def test_static_dma_through_an_integer_address_keeps_the_claims() -> None:
    """The twin: the DMA reaches @b through ``inttoptr(ptrtoint @b + 1024)``, which the
    module-LDS lowering does not follow (it leaves the DMA's metadata alone, FlyDSL's static
    shape): the rule does not apply, the DMA keeps its scope and the read of @c its own, and
    the read of @b + 1024 (the DMA's bytes) still waits."""
    text = LOWERED.replace("OFFSET", "1024").replace("i32 256, i32 0)", "i32 0, i32 0)").replace(
        "  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) "
        "getelementptr (i8, ptr addrspace(3) @b, i32 1024),",
        "  %pb = ptrtoint ptr addrspace(3) @b to i32\n  %ab = add i32 %pb, 1024\n"
        "  %db = inttoptr i32 %ab to ptr addrspace(3)\n"
        "  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) %db,")
    assert "%db = inttoptr" in text
    res = annotate_text(text, "k.ll", AnnotateOptions(lds="all", args="noalias"))
    assert "!alias.scope" in res.text.split("%x = load")[1].splitlines()[0]
    assert "!alias.scope" in res.text.split("buffer.load.lds(ptr addrspace(8) %r")[1].splitlines()[0]
    assert res.report.warnings == []
    assert lost_waits(llvmlite_asm(res.text), only="ds_read_b128") == []


@pytest.mark.parametrize("options", [AnnotateOptions(args="noalias"), AnnotateOptions(lds="off", args="noalias"),
                                     AnnotateOptions(lds="all", args="noalias")], ids=["defaults", "lds-off", "all"])
def test_lowered_dma_gets_no_metadata_in_any_domain(options: AnnotateOptions) -> None:
    """The lowering replaces a directly addressed static DMA's metadata by the intersection
    with its own scopes: an argument-domain scope alone (--lds off) would leave the DMA
    unscoped after it, and the read of its own bytes without its wait (measured)."""
    text = LOWERED.replace("OFFSET", "1024").replace("i32 256, i32 0)", "i32 0, i32 0)")
    res = annotate_text(text, "k.ll", options)
    dma_line = res.text.split("buffer.load.lds(ptr addrspace(8) %r")[1].splitlines()[0]
    assert "!alias.scope" not in dma_line and "!noalias" not in dma_line
    assert lost_waits(llvmlite_asm(res.text), only="ds_read_b128") == []


def test_producer_scoped_access_outside_the_window_warns(tmp_path) -> None:
    """A producer scoped a read of another lane's bytes (@A + 4) and not the DMA to @A:
    llnoalias scopes the DMA, but alias analysis then tells the read apart from the DMA's
    one-lane window [@A, @A+4), and the producer's scopes stay (llnoalias removes no
    metadata): a warning at the read's line. A read of lane 0's own bytes, which alias
    analysis cannot tell apart from the window, gets none."""
    text = kernel(dma() + read("x", "getelementptr (i8, ptr addrspace(3) @A, i32 4)", PRODUCER_A))
    res = annotate_text(text, "k.ll")
    line = _line_of(text, "%x = load")
    assert [w[0] for w in res.report.warnings] == [line]
    assert "by one lane's window" in res.report.warnings[0][2]
    src = tmp_path / "k.ll"
    src.write_text(text)
    cli = run_cli([str(src), "--no-verify", "-o", str(tmp_path / "o.ll")])
    assert cli.exit_code == 0
    assert re.search(rf"k\.ll:{line}:3: warning: LDS access with the input's own alias metadata", cli.stderr)
    same = annotate_text(kernel(dma() + read("x", "@A", PRODUCER_A)), "k.ll")
    assert same.report.warnings == []
    # unscoped by the producer: llnoalias withholds its own scopes instead, and says nothing
    bare = annotate_text(kernel(dma() + read("x", "getelementptr (i8, ptr addrspace(3) @A, i32 4)")), "k.ll")
    assert bare.report.warnings == []


@pytest.mark.parametrize("compiler", COMPILERS)
def test_input_unsafe_tbaa_dma_scoped_when_traced(compiler: str) -> None:
    """clang's !tbaa on an LDS read is enough for LLVM 22 to skip an unscoped DMA; the DMA
    is traced to @A, so llnoalias scopes it (a domain of one scope) and the wait returns."""
    text = HEAD + """define amdgpu_kernel void @k(ptr addrspace(8) %r, ptr addrspace(1) %o, i32 %v) {
""" + dma() + read("x", "@A", ", !tbaa !5") + "  ret void\n}\n" + TAIL
    if compiler == "llvmlite":
        assert lost_waits(llvmlite_asm(text))
    res = annotate_text(text, "k.ll")
    assert res.report.warnings == []
    assert "!alias.scope" in [ln for ln in res.text.splitlines() if "call void @llvm.amdgcn" in ln][0]
    assert lost_waits(COMPILERS[compiler](res.text)) == []


# ------------------------------------------------- every fixture and corpus file with DMA


def _dma_files() -> list[str]:
    import glob

    out = []
    for path in sorted(glob.glob("fixtures/**/*.ll", recursive=True)):
        with open(path, "rb") as f:
            data = f.read()
        if re.search(rb"call void @llvm\.amdgcn\.[\w.]*lds(\.[\w.]*)?\(", data):
            out.append(path)
    return out


_SCOPE_OF = re.compile(r"!alias\.scope (![0-9]+)")


def _waited_by_llvm(line: str) -> bool:
    """Is the call on ``line`` an LDS-DMA whose waits the code generator places (``vmcnt``),
    rather than one the program waits for itself (gfx1250's ``asynccnt`` and ``tensorcnt``
    operations: LLVM inserts no wait for them, so no metadata can take one away)?"""
    from llnoalias.analysis.memory.intrinsics import async_lds

    m = re.search(r"@(llvm\.amdgcn\.[\w.]+)\(", line)
    row = async_lds(m.group(1)) if m else None
    return row is None or row.counter == "vmcnt"


def unsafe_functions(text: str) -> list[str]:
    """Functions of an output that have an LDS-DMA with no !alias.scope while an LDS access
    carries llnoalias's LDS metadata (rule (a) of design section 4b, read off the text; an
    operation the program waits for itself is not one, ``_waited_by_llvm``)."""
    lds_ids = set()
    dom = re.search(r'^!(\d+) = distinct !\{!\d+, !"llnoalias\.lds"\}', text, re.M)
    if dom:
        for m in re.finditer(r"^!(\d+) = distinct !\{!\d+, !" + dom.group(1) + r", ", text, re.M):
            lds_ids.add(m.group(1))
    lists = {m.group(1): set(re.findall(r"!(\d+)", m.group(2)))
             for m in re.finditer(r"^!(\d+) = !\{([^{}]*)\}$", text, re.M)}
    bad = []
    for fm in re.finditer(r"^define [^\n]*?@([\w.$-]+)\(.*?^\}", text, re.M | re.S):
        body = fm.group(0)
        dmas = [ln for ln in body.splitlines() if re.search(r"call void @llvm\.amdgcn\.[\w.]*lds[\w.]*\(", ln)]
        bare = [ln for ln in dmas if "!alias.scope" not in ln and _waited_by_llvm(ln)]
        ours = False
        for ln in body.splitlines():
            if "addrspace(3)" not in ln or ln in dmas:
                continue
            for m in re.finditer(r"!(?:alias\.scope|noalias) !(\d+)", ln):
                if lists.get(m.group(1), set()) & lds_ids:
                    ours = True
        if bare and ours:
            bad.append(fm.group(1))
    return bad


def test_unsafe_state_reader_sees_it() -> None:
    import llnoalias.transform.pipeline as pl

    real = pl.guard
    pl.guard = lambda p, *a: []
    try:
        text = annotate_text(UNTRACED, "k.ll").text
    finally:
        pl.guard = real
    assert unsafe_functions(text) == ["k"]
    assert unsafe_functions(annotate_text(UNTRACED, "k.ll").text) == []


DMA_FILES = _dma_files()


@pytest.mark.parametrize("path", DMA_FILES, ids=[p.replace("fixtures/", "") for p in DMA_FILES])
@pytest.mark.parametrize("opts", [AnnotateOptions(), AnnotateOptions(lds="all", args="noalias")],
                         ids=["defaults", "all"])
def test_every_dma_file_no_unsafe_function(path: str, opts: AnnotateOptions) -> None:
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    out = annotate_text(text, path, opts).text
    assert unsafe_functions(out) == []


def test_there_are_dma_files() -> None:
    assert len(DMA_FILES) >= 15


# ------------------------------------------------- static LDS and LLVM's own LDS lowering

STATIC = """target triple = "amdgcn-amd-amdhsa"
@S0 = internal addrspace(3) global [1024 x i8] undef, align 16
@S1 = internal addrspace(3) global [1024 x i8] undef, align 16
define amdgpu_kernel void @k(ptr addrspace(8) %r, ptr addrspace(1) %o, i32 %v, i32 %base) {
  %ai = ptrtoint ptr addrspace(3) @S0 to i32
  %da = add i32 %ai, %base
  %dp = inttoptr i32 %da to ptr addrspace(3)
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) %dp, i32 4, i32 %v, i32 0, i32 0, i32 0)
  %x = load i32, ptr addrspace(3) @S0, align 4
  %y = load i32, ptr addrspace(3) @S1, align 4
  %s = add i32 %x, %y
  store i32 %s, ptr addrspace(1) %o
  ret void
}
declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32)
"""


def test_static_lds_lowering_loses_the_wait_and_is_warned_of() -> None:
    """FlyDSL's separate static buffers: LLVM's module-LDS lowering scopes the reads of @S0
    and @S1 and not the DMA through an integer address, so LLVM 22 puts no wait between the
    DMA and the read of @S0 with no llnoalias at all (llc-19 waits). By default llnoalias
    says so with the line; with --lds all it scopes the DMA and the wait comes back."""
    assert lost_waits(llvmlite_asm(STATIC))
    res = annotate_text(STATIC, "s.ll")
    assert [w[0] for w in res.report.warnings] == [8]
    assert "module-LDS lowering" in res.report.warnings[0][2]
    fixed = annotate_text(STATIC, "s.ll", AnnotateOptions(lds="all"))
    assert fixed.report.warnings == []
    assert lost_waits(llvmlite_asm(fixed.text)) == []
    # one static variable only: the lowering makes no scopes, nothing to say
    one = STATIC.replace("@S1", "@S0").replace("@S0 = internal addrspace(3) global [1024 x i8] undef, align 16\n", "", 1)
    assert annotate_text(one, "s.ll").report.warnings == []


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("name", ["window_waited_kept", "window_partial_wait_no_claim"])
def test_loop_fixtures_keep_the_wait(compiler: str, name: str) -> None:
    """The flow part of rule (b): the read of @A+4 (``offset:4``) after the DMA, with a full
    wait between them (claim kept) or only an LDS-counter wait (no claim)."""
    path = f"fixtures/dma/{name}.ll"
    with open(path, encoding="utf-8") as f:
        out = annotate_text(f.read(), path).text
    asm = COMPILERS[compiler](out)
    _sanity(asm)
    assert lost_waits(asm, only=r"offset:4\b") == [], out


def test_dmas_of_one_slot_are_checked_through_the_first() -> None:
    """DMAs with equal scopes share one slot, and LLVM 22 asks alias analysis about the
    slot's first DMA only. Here the first DMA is retired by a full wait; the second, in
    flight, writes the bytes the read takes (its own pointer), but the first's one-lane window
    is provably apart from the read: a producer that scopes all three loses the wait. The
    read shares the scope of both (their wave windows overlap: one region), so llnoalias
    gives it none and the wait stays."""
    second = "getelementptr (i8, ptr addrspace(3) @A, i32 128)"
    body = (dma() + "  call void @llvm.amdgcn.s.waitcnt(i32 0)\n" + dma(second) + read("x", second))
    text = kernel(body).replace("declare i32 @llvm.amdgcn.workitem.id.x()",
                                "declare i32 @llvm.amdgcn.workitem.id.x()\ndeclare void @llvm.amdgcn.s.waitcnt(i32)")
    producer = text.replace("i32 0, i32 0, i32 0)\n", "i32 0, i32 0, i32 0)" + PRODUCER_A + "\n").replace(
        "align 4\n  store i32 %x", "align 4" + PRODUCER_A + "\n  store i32 %x")
    assert lost_waits(llvmlite_asm(producer))
    res = annotate_text(text, "k.ll")
    rec = next(a for a in res.report.accesses if a.text.startswith("%x = load") and a.domain == "llnoalias.lds")
    assert not rec.tagged and rec.rule.startswith("shares an LDS scope"), rec
    assert lost_waits(llvmlite_asm(res.text)) == []


LLC19_WINDOW = """target triple = "amdgcn-amd-amdhsa"
@A = external addrspace(3) global [0 x i8], align 1024
@B = external addrspace(3) global [0 x i8], align 1024
define amdgpu_kernel void @k(ptr addrspace(8) %r, ptr addrspace(1) %o, i32 %v) {
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @A, i32 4), i32 4, i32 %v, i32 0, i32 0, i32 0)MD1
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) @A, i32 4, i32 %v, i32 0, i32 0, i32 0)MD2
  %x = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @A, i32 4), align 4MD1
  store i32 %x, ptr addrspace(1) %o
  ret void
}
""" + OTHER + """declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32)
!0 = distinct !{!0, !"d"}
!1 = distinct !{!1, !0, !"A"}
!2 = distinct !{!2, !0, !"B"}
!6 = distinct !{!6, !0, !"C"}
!3 = !{!1}
!4 = !{!2}
!5 = !{!2, !6}
"""


@pytest.mark.parametrize("compiler", COMPILERS)
def test_window_with_two_slots_also_in_llc19(compiler: str) -> None:
    """Two DMAs into @A with the same scope but different !noalias lists (two slots): the
    read of @A + 4 aliases the first's window, lies outside the second's (@A, whose lane 1
    writes @A + 4), and waits for the first only: llc-19 loses the wait too. Without the
    producer's lists, llnoalias's output keeps it."""
    producer = LLC19_WINDOW.replace("MD1", ", !alias.scope !3, !noalias !4").replace(
        "MD2", ", !alias.scope !3, !noalias !5")
    assert lost_waits(COMPILERS[compiler](producer))
    plain = LLC19_WINDOW.replace("MD1", "").replace("MD2", "")
    out = annotate_text(plain, "k.ll").text
    assert lost_waits(COMPILERS[compiler](out)) == [], out


def test_compile_and_stats_say_it_too(tmp_path) -> None:
    """``compile`` and ``stats`` annotate too: they print the same warning with the line."""
    src = tmp_path / "s.ll"
    src.write_text(STATIC)
    res = run_cli(["compile", str(src), "--mcpu", "gfx942", "-o", str(tmp_path / "s.s")])
    assert res.exit_code == 0, res.stderr
    assert re.search(r"s\.ll:8:3: warning: LDS-DMA through an integer address", res.stderr), res.stderr
    quiet = run_cli(["compile", str(src), "--mcpu", "gfx942", "--lds", "all", "-o", str(tmp_path / "t.s")])
    assert quiet.exit_code == 0, quiet.stderr
    assert "through an integer address" not in quiet.stderr


# ------------------------------------------------- generated straight-line DMA kernels


def _pointer(rng, off: int, tag: str, lines: list[str]) -> str:
    """``@A + off`` in one of the shapes producers write (the variable parts are 0)."""
    k = rng.choice(["gep", "ce", "int", "intvar", "gepvar"])
    if k == "ce":
        return f"getelementptr (i8, ptr addrspace(3) @A, i32 {off})"
    if k == "gep":
        lines.append(f"  %{tag} = getelementptr i8, ptr addrspace(3) @A, i32 {off}")
    elif k == "gepvar":
        lines.append(f"  %{tag}z = and i32 %base, 0\n  %{tag}o = add i32 %{tag}z, {off}\n"
                     f"  %{tag} = getelementptr i8, ptr addrspace(3) @A, i32 %{tag}o")
    elif k == "intvar":
        lines.append(f"  %{tag}z = and i32 %base, 0\n  %{tag}i = ptrtoint ptr addrspace(3) @A to i32\n"
                     f"  %{tag}a = add i32 %{tag}i, %{tag}z\n  %{tag}b = add i32 %{tag}a, {off}\n"
                     f"  %{tag} = inttoptr i32 %{tag}b to ptr addrspace(3)")
    else:
        lines.append(f"  %{tag}i = ptrtoint ptr addrspace(3) @A to i32\n  %{tag}a = add i32 %{tag}i, {off}\n"
                     f"  %{tag} = inttoptr i32 %{tag}a to ptr addrspace(3)")
    return f"%{tag}"


def generated_kernel(rng) -> str:
    """1-3 DMAs into @A (wave windows that all cover bytes [128, 252)), then 1-4 reads and
    writes inside those bytes: every access needs every DMA retired."""
    lines: list[str] = []
    for n in range(rng.randint(1, 3)):
        p = _pointer(rng, rng.choice([0, 4, 8, 16, 32, 60]), f"d{n}", lines)
        lines.append(dma(p, imm=rng.choice([0, 0, 4, 64])).rstrip("\n"))
    for n in range(rng.randint(1, 4)):
        p = _pointer(rng, rng.choice(range(128, 252, 4)), f"a{n}", lines)
        if rng.random() < 0.3:
            lines.append(f"  store i32 %v, ptr addrspace(3) {p}, align 4")
        else:
            lines.append(read(f"x{n}", p).rstrip("\n"))
    return kernel("\n".join(lines) + "\n")


def test_generated_kernels_lose_no_wait() -> None:
    """The issue's adversary in small: generated DMA kernels compiled after llnoalias
    (defaults and --lds all --args noalias) lose no wait; the same kernels with the scopes
    llnoalias wrote before design section 4b lose some (the test can fail)."""
    import random

    import llnoalias.transform.pipeline as pl

    rng = random.Random(4)
    lost = before = 0
    for _ in range(12):
        text = generated_kernel(rng)
        for opts in (AnnotateOptions(), AnnotateOptions(lds="all", args="noalias")):
            out = annotate_text(text, "k.ll", opts).text
            assert lost_waits(llvmlite_asm(out)) == [], out
            real = pl.guard
            pl.guard = lambda p, *a: []
            try:
                old = annotate_text(text, "k.ll", opts).text
            finally:
                pl.guard = real
            before += bool(lost_waits(llvmlite_asm(old)))
        lost += bool(lost_waits(llvmlite_asm(text)))
    assert lost == 0  # the kernels themselves, with no metadata, wait
    assert before > 0


def test_a_module_without_a_triple_gets_the_same_window_rule() -> None:
    """The address summaries read work-group bounds with the module's family as the regions
    do (a FlyDSL module has no triple): the DMA's pointer ``inttoptr(ptrtoint @A + (tid >> 10))``
    folds to @A under AMDGPU's 1024-thread bound, so a read of @A + 4 (another lane's bytes)
    loses its LDS scopes with the triple and without it; before, the triple-less module kept
    the claim (it read the thread id with no bound)."""
    body = ("  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  %z = lshr i32 %t, 10\n"
            "  %pa = ptrtoint ptr addrspace(3) @A to i32\n  %s = add i32 %pa, %z\n"
            "  %p = inttoptr i32 %s to ptr addrspace(3)\n"
            + dma("%p") + read("x", "getelementptr (i8, ptr addrspace(3) @A, i32 4)") + read("y", "@B"))
    text = HEAD + ("define amdgpu_kernel void @k(ptr addrspace(8) %r, ptr addrspace(1) %o, i32 %v) {\n"
                   + body + "  ret void\n}\n" + TAIL)
    bare = text.replace('target triple = "amdgcn-amd-amdhsa"\n', "")
    assert bare != text
    for t in (text, bare):
        [x] = [r for r in annotate_text(t, "k.ll").report.accesses if "%x = load" in r.text]
        assert not x.tagged and "one lane's window" in x.reason, x.reason
