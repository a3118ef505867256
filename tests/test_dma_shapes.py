"""SPEC section 4b, the four shapes where a rule that predicts the code generator broke
(issue 30): a scoped DMA on one arm of a branch, a DMA that refills its buffer before a loop
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
from test_dma_waits import _DMA, _DS, _VMEM, _WAIT, dma, kernel, read

from llnoalias import reasons
from llnoalias.options import AnnotateOptions
from llnoalias.transform.pipeline import annotate_text

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
                m = _WAIT.match(line)
                if m:
                    k = int(m.group(1)) if m.group(1) is not None else int(m.group(2), 0)
                    q = () if k == 0 else q[len(q) - k:] if k < len(q) else q
                elif _VMEM.match(line):
                    q = (q + (bool(_DMA.match(line)),))[-64:]
                elif _DS.match(line) and any(q):
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
#: ``@A + %base`` as an integer, spelt twice (``tag``: the names' suffix, ``var``: the term)
def _int_chain(tag: str, var: str = "%base") -> str:
    return (f"  %ai{tag} = ptrtoint ptr addrspace(3) @A to i32\n  %ad{tag} = add i32 %ai{tag}, {var}\n"
            f"  %p{tag} = inttoptr i32 %ad{tag} to ptr addrspace(3)\n")


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
    # 2. a single buffer refilled at the end of the body, read by the next iteration
    "loop_refill": ("  br label %loop\nloop:\n  %i = phi i32 [0, %0], [%n, %loop]\n" + BARRIER + read("x", "@A")
                    + BARRIER + dma() + LOOP_END, False),
    # the same at the loop header, the DMA in the latch
    "loop_header": (dma() + "  br label %loop\nloop:\n  %i = phi i32 [0, %0], [%n, %latch]\n" + read("x", "@A")
                    + "  %c0 = icmp eq i32 %x, 7\n  br i1 %c0, label %exit, label %latch\nlatch:\n" + BARRIER + dma()
                    + LOOP_END.replace("%loop, label %exit\nexit:", "%loop, label %exit\nexit:"), False),
    # 3. two separate but equal integer chains, the read 4 bytes past the DMA's pointer
    "equal_ints": (_int_chain("d") + dma("%pd") + _int_chain("r")
                   + "  %q4 = getelementptr i8, ptr addrspace(3) %pr, i32 4\n" + read("x", "%q4"), False),
    # its twin: the chains differ in their variable terms (%base, %v): other objects to BasicAA
    "other_ints": (_int_chain("d") + dma("%pd") + _int_chain("r", "%v")
                   + "  %q4 = getelementptr i8, ptr addrspace(3) %pr, i32 4\n" + read("x", "%q4"), True),
    # 4. an assembly comment that reads like a wait
    "asm_comment": (dma() + '  call void asm sideeffect "; s_waitcnt vmcnt(0)", ""()\n'
                    + read("x", "getelementptr (i8, ptr addrspace(3) @A, i32 4)"), False),
    # its twin: a real wait statement after a comment statement
    "asm_wait": (dma() + '  call void asm sideeffect "; note\\0As_waitcnt vmcnt(0)", ""()\n'
                 + read("x", "getelementptr (i8, ptr addrspace(3) @A, i32 4)"), True),
}


#: why the read of each shape that loses its claim loses it
WHY = {"join": reasons.LDS_DMA_ORDER, "loop_refill": reasons.LDS_DMA_ORDER, "loop_header": reasons.LDS_DMA_ORDER,
       "equal_ints": reasons.LDS_DMA_WINDOW, "asm_comment": reasons.LDS_DMA_WINDOW}


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
    assert _DMA.search(asm_in, re.M) or any(_DMA.match(ln.strip()) for ln in asm_in.splitlines())
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
    from llnoalias.transform.dma_flow import asm_waits

    assert asm_waits(asm) is waits
