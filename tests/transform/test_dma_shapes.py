"""design section 4b, the four shapes where a rule that predicts the code generator broke:
a scoped DMA on one arm of a branch, a DMA that refills its buffer before a loop
back edge, two equal integer chains the code generator merges, and an assembly comment taken
for a wait. Each is compiled as given and after llnoalias (defaults and ``--lds all --args
noalias``) with llvmlite's LLVM 22.1 for gfx942 and gfx950 (and ``llc-19`` for gfx942 where
it is installed), and the output must keep a ``vmcnt`` wait between the DMA and the read
wherever the input had one. Unlike ``test_dma_waits.lost_waits``, the assembly is read over
its control flow: every path of branches and loop back edges, with the in-order queue of
vector-memory operations carried along.

Each shape has a twin where the claim stays (the DMA dominates the read with no back edge,
two chains that compute different integers, a real wait after a comment), so that the fix
is shown to be the idea and not a ban.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from llnoalias import reasons
from llnoalias.options import AnnotateOptions
from llnoalias.transform.pipeline import annotate_text
from tests.support.dma_ir import DMA_RE, DS_RE, LOWERED, VMEM_RE, WAIT_RE, dma, kernel, read

pytestmark = pytest.mark.slow

_LABEL_OP = re.compile(r"^s_(c?branch)\w*\s+(\S+)")


def lost_waits_cfg(asm: str) -> list[str]:
    """The LDS accesses that some path of their function's control flow reaches while an
    LDS-DMA is still in the ``vmcnt`` queue (every path: branches, loop back edges; the
    queue holds at most 64 operations, as the counter does)."""
    bad: set[str] = set()
    funcs: list[tuple[str, list[str]]] = []
    for raw in asm.splitlines():
        line = raw.split(";")[0].strip()
        if not line:
            continue
        if line.endswith(":") and not line.startswith("."):
            funcs.append((line[:-1], []))
        elif funcs and not (line.startswith(".") and not line.endswith(":")):
            funcs[-1][1].append(line)
    for name, ins in funcs:
        labels = {ln[:-1]: n for n, ln in enumerate(ins) if ln.endswith(":")}
        seen: set[tuple[int, tuple[bool, ...]]] = set()
        todo: list[tuple[int, tuple[bool, ...]]] = [(0, ())]
        while todo:
            pc, q = todo.pop()
            while pc < len(ins) and (pc, q) not in seen:
                seen.add((pc, q))
                line = ins[pc]
                m = WAIT_RE.match(line)
                if m:
                    k = int(m.group(1)) if m.group(1) is not None else int(m.group(2), 0)
                    q = () if k == 0 else q[len(q) - k:] if k < len(q) else q
                elif VMEM_RE.match(line):
                    q = (q + (bool(DMA_RE.match(line)),))[-64:]
                elif DS_RE.match(line) and any(q):
                    bad.add(f"{name}: {line}")
                if line.startswith("s_endpgm") or line.startswith("s_setpc"):
                    break
                b = _LABEL_OP.match(line)
                if b is not None and b.group(2) in labels:
                    if b.group(1) == "branch":
                        pc = labels[b.group(2)]
                        continue
                    todo.append((labels[b.group(2)], q))
                pc += 1
    return sorted(bad)


def test_the_checker_follows_branches_and_back_edges() -> None:
    join = ("k:\n\ts_cbranch_scc1 .LBB0_2\n\tbuffer_load_dword v0, s[0:3], 0 offen lds\n"
            ".LBB0_2:\n\tds_read_b32 v1, v0\n\ts_endpgm\n")
    waited = join.replace(".LBB0_2:\n", ".LBB0_2:\n\ts_waitcnt vmcnt(0)\n")
    loop = (".LBB0_1:\n\tds_read_b32 v1, v0\n\tbuffer_load_dword v0, s[0:3], 0 offen lds\n"
            "\ts_cbranch_scc1 .LBB0_1\n\ts_endpgm\n")
    assert lost_waits_cfg(join) == ["k: ds_read_b32 v1, v0"]
    assert lost_waits_cfg(waited) == []
    assert lost_waits_cfg("k:\n" + loop) == ["k: ds_read_b32 v1, v0"]
    assert lost_waits_cfg("k:\n" + loop.replace("\tds_read", "\ts_waitcnt vmcnt(0)\n\tds_read")) == []


def _llvmlite(cpu: str):
    def compile_(text: str) -> str:
        pytest.importorskip("llvmlite", reason="llvmlite is not installed: the embedded LLVM cannot compile")
        from llnoalias.backends.codegen import generate

        return generate(text, emit="asm", mcpu=cpu).decode()
    return compile_


def _llc19(cpu: str):
    def compile_(text: str) -> str:
        llc = shutil.which("llc-19")
        if llc is None:
            pytest.skip("llc-19 is not installed (apt-get install llvm-19)")
        if cpu != "gfx942":
            pytest.skip(f"llc-19 (LLVM 19) does not know {cpu}")
        proc = subprocess.run([llc, "-O3", "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={cpu}", "-o", "-"],
                              input=text, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout
    return compile_


COMPILERS = {f"{name}-{cpu}": make(cpu) for name, make in (("llvmlite", _llvmlite), ("llc19", _llc19))
             for cpu in ("gfx942", "gfx950")}

BARRIER = "  call void @llvm.amdgcn.s.barrier()\n"
LOOP_END = "  %n = add i32 %i, 1\n  %c = icmp ult i32 %n, %base\n  br i1 %c, label %loop, label %exit\nexit:\n"
#: ``@A + %base`` as an integer, spelt twice (``tag``: the names' suffix, ``var``: the term);
#: the terms are masked below 4096 once (``MASK``: %bm, %vm), so that @B's read at 65536
#: (``dma_ir.OTHER``; @A and @B are one dynamic LDS root) is proved apart from every access
#: here and gives the domain its second scope
def _int_chain(tag: str, var: str = "%bm") -> str:
    return (f"  %ai{tag} = ptrtoint ptr addrspace(3) @A to i32\n  %ad{tag} = add i32 %ai{tag}, {var}\n"
            f"  %p{tag} = inttoptr i32 %ad{tag} to ptr addrspace(3)\n")


MASK = "  %bm = and i32 %base, 4092\n  %vm = and i32 %v, 4092\n"


#: name -> (body, whether the read keeps its LDS scope after llnoalias)
SHAPES: dict[str, tuple[str, bool]] = {
    # 1. a scoped DMA on one arm, a read of its first dword after the join
    "join": ("  %c = icmp eq i32 %base, 0\n  br i1 %c, label %then, label %else\nthen:\n" + dma()
             + "  br label %join\nelse:\n  %g = load i32, ptr addrspace(1) %q, align 4\n"
             "  store i32 %g, ptr addrspace(1) %o, align 4\n  br label %join\njoin:\n" + read("x", "@A"), False),
    # its twin: the DMA before the branch dominates the read, no back edge between them
    "join_dominated": (dma() + "  %c = icmp eq i32 %base, 0\n  br i1 %c, label %then, label %else\nthen:\n"
                       "  %g = load i32, ptr addrspace(1) %q, align 4\n  store i32 %g, ptr addrspace(1) %o, align 4\n"
                       "  br label %join\nelse:\n  br label %join\njoin:\n" + read("x", "@A"), True),
    # 2. a single buffer refilled at the end of the body (after a bare barrier), read at the
    # top of the next iteration (LLVM 22 loses this wait when the read keeps the scope)
    "loop_refill": ("  br label %loop\nloop:\n  %i = phi i32 [0, %0], [%i1, %loop]\n"
                    "  %acc = phi i32 [0, %0], [%acc1, %loop]\n  %x = load i32, ptr addrspace(3) @A, align 4\n"
                    "  %acc1 = add i32 %acc, %x\n" + BARRIER + dma().replace("i32 %v,", "i32 %i,")
                    + "  %i1 = add i32 %i, 1\n  %done = icmp eq i32 %i1, %base\n"
                    "  br i1 %done, label %exit, label %loop\nexit:\n  store i32 %acc1, ptr addrspace(1) %o, align 4\n",
                    False),
    # the same with the read's value stored in the loop (LLVM 22 happens to wait here)
    "loop_refill_store": ("  br label %loop\nloop:\n  %i = phi i32 [0, %0], [%n, %loop]\n" + BARRIER + read("x", "@A")
                          + BARRIER + dma() + LOOP_END, False),
    # the same at the loop header, the DMA in the latch
    "loop_header": (dma() + "  br label %loop\nloop:\n  %i = phi i32 [0, %0], [%n, %latch]\n" + read("x", "@A")
                    + "  %c0 = icmp eq i32 %x, 7\n  br i1 %c0, label %exit, label %latch\nlatch:\n" + BARRIER + dma()
                    + LOOP_END.replace("%loop, label %exit\nexit:", "%loop, label %exit\nexit:"), False),
    # 3. two separate but equal integer chains, the read 4 bytes past the DMA's pointer
    "equal_ints": (MASK + _int_chain("d") + dma("%pd") + _int_chain("r")
                   + "  %q4 = getelementptr i8, ptr addrspace(3) %pr, i32 4\n" + read("x", "%q4"), False),
    # its twin: the chains differ in their variable terms (%base, %v): other objects to BasicAA
    "other_ints": (MASK + _int_chain("d") + dma("%pd") + _int_chain("r", "%vm")
                   + "  %q4 = getelementptr i8, ptr addrspace(3) %pr, i32 4\n" + read("x", "%q4"), True),
    # 4. an assembly comment that reads like a wait
    "asm_comment": (dma() + '  call void asm sideeffect "; s_waitcnt vmcnt(0)", ""()\n'
                    + read("x", "getelementptr (i8, ptr addrspace(3) @A, i32 4)"), False),
    # its twin: a real wait statement after a comment statement
    "asm_wait": (dma() + '  call void asm sideeffect "; note\\0As_waitcnt vmcnt(0)", ""()\n'
                 + read("x", "getelementptr (i8, ptr addrspace(3) @A, i32 4)"), True),
    # found by a generator of branchy kernels: a branch on ``%base == 0`` (here its mask's)
    # lets GVN put 0 for it in the arm, where the DMA's ``inttoptr(ptrtoint @A + %bm)`` folds to @A and
    # alias analysis tells the read of @A + 4 apart from its window
    "zero_branch": (MASK + "  %c = icmp eq i32 %bm, 0\n  br i1 %c, label %then, label %join\nthen:\n" + _int_chain("d")
                    + dma("%pd") + read("x", "getelementptr (i8, ptr addrspace(3) @A, i32 4)")
                    + "  br label %join\njoin:\n", False),
    # its twin: the branch tests another value, %base stays unknown (rule (b) case (2) keeps)
    "other_branch": (MASK + "  %c = icmp eq i32 %v, 0\n  br i1 %c, label %then, label %join\nthen:\n" + _int_chain("d")
                     + dma("%pd") + read("x", "getelementptr (i8, ptr addrspace(3) @A, i32 4)")
                     + "  br label %join\njoin:\n", True),
}


#: why the read of each shape that loses its claim loses it
WHY = {"join": reasons.LDS_DMA_ORDER, "loop_refill": reasons.LDS_DMA_ORDER, "loop_header": reasons.LDS_DMA_ORDER,
       "loop_refill_store": reasons.LDS_DMA_ORDER,
       "equal_ints": reasons.LDS_DMA_WINDOW, "asm_comment": reasons.LDS_DMA_WINDOW,
       "zero_branch": reasons.LDS_DMA_WINDOW}


def shape_text(name: str) -> str:
    return kernel(SHAPES[name][0]).replace(
        "declare i32 @llvm.amdgcn.workitem.id.x()",
        "declare i32 @llvm.amdgcn.workitem.id.x()\ndeclare void @llvm.amdgcn.s.barrier()")


OPTIONS = {"defaults": AnnotateOptions(), "all": AnnotateOptions(lds="all", args="noalias")}


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("opts", OPTIONS)
def test_output_waits_wherever_the_input_did(compiler: str, shape: str, opts: str) -> None:
    text = shape_text(shape)
    asm_in = COMPILERS[compiler](text)
    assert DMA_RE.search(asm_in, re.M) or any(DMA_RE.match(ln.strip()) for ln in asm_in.splitlines())
    lost_in = lost_waits_cfg(asm_in)
    assert lost_in == [], f"the input itself loses a wait ({compiler}): {lost_in}"
    out = annotate_text(text, "k.ll", OPTIONS[opts]).text
    assert "llnoalias.lds" in out  # claims were made (the @B read at the least)
    assert lost_waits_cfg(COMPILERS[compiler](out)) == [], out


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("opts", OPTIONS)
def test_which_reads_keep_their_scope(shape: str, opts: str) -> None:
    """The claim goes in the four shapes and stays in their twins (a test that can fail
    both ways: a rule that withdrew every claim beside a DMA fails the twins)."""
    res = annotate_text(shape_text(shape), "k.ll", OPTIONS[opts])
    [x] = [a for a in res.report.accesses if a.text.startswith("%x = load") and a.domain == "llnoalias.lds"]
    assert x.tagged == SHAPES[shape][1], (x.reason, x.blocker)
    line = next(ln for ln in res.text.splitlines() if ln.lstrip().startswith("%x = load"))
    assert ("!alias.scope" in line) == SHAPES[shape][1], line
    if not SHAPES[shape][1]:
        assert x.reason.startswith(WHY[shape].text), x.reason
        assert "buffer.load.lds" in x.blocker, x.blocker


@pytest.mark.parametrize(("asm", "waits"), [
    ("s_waitcnt vmcnt(0)", True),
    ("s_waitcnt vmcnt(0) lgkmcnt(0)", True),
    ("s_waitcnt vmcnt(0) & lgkmcnt(0)", True),
    ("s_waitcnt 0", True),
    ("s_wait_loadcnt 0x0", True),
    ("; note\\0As_waitcnt vmcnt(0)", True),
    ("s_nop 0\\ns_waitcnt vmcnt(0)", True),
    ("s_nop 0\ns_waitcnt vmcnt(0)", True),
    ("; s_waitcnt vmcnt(0)", False),
    ("// s_waitcnt vmcnt(0)", False),
    ("# s_waitcnt vmcnt(0)", False),
    ("/* s_waitcnt vmcnt(0) */", False),
    ("s_nop 0 ; s_waitcnt vmcnt(0)", False),
    ("s_nop 0 /* x\\0A */ s_waitcnt vmcnt(0)", False),
    ("s_waitcnt vmcnt(1)", False),
    ("s_waitcnt lgkmcnt(0)", False),
    ("v_mov_b32 v0, s_waitcnt", False),
])
def test_a_wait_is_a_statement_never_a_comment(asm: str, waits: bool) -> None:
    from llnoalias.analysis.memory.waits import asm_waits

    assert asm_waits(asm) is waits


# ------------------------------------------------- noalias arguments (LLVM 24's kernel-argument lowering)

UNTRACED_NOALIAS = kernel("  %d = load ptr addrspace(3), ptr addrspace(1) %q, align 4\n" + dma("%d") + read("x", "@A")).replace(
    "ptr addrspace(1) %o, ptr addrspace(1) %q, i32 %v, i32 %base) {",
    "ptr addrspace(1) noalias %o, ptr addrspace(1) %q, i32 %v, i32 %base) {")
_LDS_ACCESS = re.compile(r"^(\s*(?:%\S+ = load [^\n]*|store [^\n]*)ptr addrspace\(3\) [^\n]*?)$", re.M)


def lowering24(text: str) -> str:
    """What LLVM 24's kernel-argument lowering does to a kernel with a ``noalias`` pointer
    argument, as far as the wait pass sees it (LLVM 22 has no such step): an LDS access
    whose object it can tell apart from the argument gets a ``!noalias`` of the argument's
    scope (here every LDS load and store that has none)."""
    def add(m: re.Match[str]) -> str:
        line = m.group(1)
        return line if "!noalias" in line else line + ", !noalias !902"
    return (_LDS_ACCESS.sub(add, text) + '\n!900 = distinct !{!900, !"kernarg"}\n'
            '!901 = distinct !{!901, !900, !"o"}\n!902 = !{!901}\n')


@pytest.mark.parametrize("cpu", ["gfx942", "gfx950"])
@pytest.mark.parametrize("opts", OPTIONS)
def test_untraced_dma_is_scoped_under_noalias_arguments(cpu: str, opts: str) -> None:
    """An untraced DMA beside a read of @A, in a kernel with a noalias argument: after LLVM
    24's lowering (simulated) the read has a !noalias and is checked only against scoped
    DMAs. The input so compiled loses the wait; llnoalias's output scopes the DMA (a domain
    of its own, or the argument domain under --args noalias) and keeps it."""
    compile_ = _llvmlite(cpu)
    assert lost_waits_cfg(compile_(lowering24(UNTRACED_NOALIAS)))
    res = annotate_text(UNTRACED_NOALIAS, "k.ll", OPTIONS[opts])
    dma_line = next(ln for ln in res.text.splitlines() if "call void @llvm.amdgcn.raw.ptr.buffer.load.lds(" in ln)
    assert "!alias.scope" in dma_line
    read_line = next(ln for ln in res.text.splitlines() if ln.lstrip().startswith("%x = load"))
    assert "!" not in read_line  # rule (a) stays
    assert lost_waits_cfg(compile_(lowering24(res.text))) == [], res.text
    # without a noalias argument anywhere, the DMA is left as it was
    plain = UNTRACED_NOALIAS.replace("noalias %o", "%o")
    out = annotate_text(plain, "k.ll").text
    assert "llnoalias.dma" not in out
    assert "!alias.scope" not in next(ln for ln in out.splitlines() if "buffer.load.lds(ptr addrspace(8) %r" in ln)


def test_own_dma_scope_is_reported() -> None:
    res = annotate_text(UNTRACED_NOALIAS, "k.ll")
    recs = [a for a in res.report.accesses if a.domain.startswith("llnoalias.dma.")]
    assert [(a.domain, a.tagged, a.opcode) for a in recs] == [
        ("llnoalias.dma.k.1", True, "llvm.amdgcn.raw.ptr.buffer.load.lds")]
    # running llnoalias on its own output changes nothing
    assert annotate_text(res.text, "k.ll").text == res.text


def test_lowered_dma_keeps_noalias_off_its_kernel_and_warns() -> None:
    """Rule (c): the DMA into @b (static, addressed directly) cannot be scoped, so
    --args noalias adds no noalias to its kernel, and the input's own noalias %o is warned
    of at the DMA's line. The twin through inttoptr gets noalias on %r as before."""

    text = LOWERED.replace("OFFSET", "1024")
    res = annotate_text(text, "k.ll", AnnotateOptions(lds="all", args="noalias"))
    assert not any("noalias" in r.added for r in res.report.args if r.kernel == "@k"), res.report.args
    assert res.report.warnings == [] or all("noalias pointer arguments" not in w[2] for w in res.report.warnings)
    given = text.replace("ptr addrspace(1) %o, i32 %v) #0", "ptr addrspace(1) noalias %o, i32 %v) #0")
    dma_at = next(n for n, ln in enumerate(given.splitlines(), 1) if "call void @llvm.amdgcn.raw.ptr.buffer" in ln)
    for o in (AnnotateOptions(), AnnotateOptions(lds="all", args="noalias")):
        warned = annotate_text(given, "k.ll", o)
        hits = [w for w in warned.report.warnings if "noalias pointer arguments (%o)" in w[2]]
        assert [w[0] for w in hits] == [dma_at], warned.report.warnings
        line = next(ln for ln in warned.text.splitlines() if "call void @llvm.amdgcn.raw.ptr.buffer" in ln)
        assert "!" not in line
    twin = text.replace("getelementptr (i8, ptr addrspace(3) @b, i32 1024),", "%db,").replace(
        "  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(",
        "  %pb = ptrtoint ptr addrspace(3) @b to i32\n  %ab = add i32 %pb, 1024\n"
        "  %db = inttoptr i32 %ab to ptr addrspace(3)\n  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(", 1)
    assert "%db = inttoptr" in twin
    kept = annotate_text(twin, "k.ll", AnnotateOptions(lds="all", args="noalias"))
    assert any("noalias" in r.added for r in kept.report.args if r.kernel == "@k" and r.name == "%r")
