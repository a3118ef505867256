"""The LDS-DMA table (``analysis.memory.intrinsics.LDS_DMA``) and its four users.

Each row's spellings are the intrinsic as LLVM declares it (IntrinsicsAMDGPU.td; the
``async`` forms are LLVM 24's). The users must read the same rows: the memory-intrinsic
table (what gets tagged), the regions (the bytes a DMA writes), the DMA address summaries
and the code-generator safety rules (design section 4b). An LDS-DMA that one of them missed
was a hole: its LDS destination's accesses kept their scopes while the DMA had none, the
state in which LLVM 21 and later put no vmcnt wait between them.
"""

from __future__ import annotations

import re

import pytest

import llnoalias
from llnoalias.analysis.memory.intrinsics import (
    LDS_DMA,
    LDS_DMA_TEXT,
    LdsDma,
    lds_dma,
    memory_intrinsic,
)
from llnoalias.transform.dma_addresses import dma_operands
from llnoalias.transform.dma_safety import UNTRACED
from tests.support.lds_dma import call_args

ROWS = [(row, name) for row in LDS_DMA for name in row.names]
IDS = [name.removeprefix("llvm.amdgcn.") for _, name in ROWS]

#: names that are not LDS-DMAs, some of them close
NOT_DMA = ("llvm.amdgcn.raw.ptr.buffer.load.i32", "llvm.amdgcn.raw.ptr.buffer.load.v4i32",
           "llvm.amdgcn.struct.buffer.load.f32", "llvm.amdgcn.global.load.tr.b64.v2i32",
           "llvm.amdgcn.ds.read.tr4.b64.v2i32", "llvm.amdgcn.cluster.load.async.to.lds.b32",
           "llvm.amdgcn.global.store.async.from.lds.b32", "llvm.memcpy.p3.p1.i64")




def _kernel(row: LdsDma, name: str, lds: str, extra: str = "", offset: int = 8) -> str:
    src_ty = row.signature.split(", ")[row.source]
    if name.endswith(".p7"):
        src_ty = "ptr addrspace(7)"
    sig = row.signature if not name.endswith(".p7") else row.signature.replace("ptr addrspace(1)", src_ty, 1)
    call = call_args(row, name, lds, offset=offset).replace(row.signature.split(", ")[row.source], src_ty, 1)
    return ('target triple = "amdgcn-amd-amdhsa"\n'
            "@A = external addrspace(3) global [0 x i8], align 1024\n"
            "@B = external addrspace(3) global [0 x i8], align 1024\n"
            f"define amdgpu_kernel void @k({src_ty} %src, ptr addrspace(1) %o, i32 %n) {{\n"
            f"{extra}"
            f"  call void @{name}({call}) ; dma\n"
            "  %x = load i32, ptr addrspace(3) @A, align 4 ; readA\n"
            "  %y = load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @B, i32 4096), align 4 ; readB\n"
            "  %s = add i32 %x, %y\n"
            "  store i32 %s, ptr addrspace(1) %o, align 4\n"
            "  ret void\n}\n"
            f"declare void @{name}({sig})\n")


def _records(text: str) -> dict[tuple[str, str], tuple[bool, str, str]]:
    res = llnoalias.annotate(text, lds="all", args="noalias", regions=True)
    lines = text.splitlines()
    out: dict[tuple[str, str], tuple[bool, str, str]] = {}
    for a in res.report.accesses:
        line = lines[a.line - 1]
        if ";" in line:
            dom = "lds" if a.domain == "llnoalias.lds" else "args"
            out[(line.rsplit(";", 1)[1].strip(), dom)] = (a.tagged, a.reason, a.range_note)
    return out


# ------------------------------------------------------------------ the table itself


def test_every_spelling_is_its_own_rows_and_nothing_else_is_a_dma() -> None:
    assert len({name for _, name in ROWS}) == len(ROWS)
    for row, name in ROWS:
        assert lds_dma(name) is row, name
    for name in NOT_DMA:
        assert lds_dma(name) is None and dma_operands(name) is None, name
        assert not LDS_DMA_TEXT.search(f"call void @{name}("), name


def test_every_row_is_laid_out_as_its_signature_says() -> None:
    for row, name in ROWS:
        types = [t.strip() for t in row.signature.split(", ")]
        assert types[row.lds] == "ptr addrspace(3)", name
        assert types[row.source] in ("ptr addrspace(1)", "ptr addrspace(8)", "<4 x i32>"), name
        assert (types[row.source] == "<4 x i32>") == (row.opaque == (row.source,)), name
        assert row.size is None or types[row.size] == "i32"
        assert types[row.offset] == "i32" and types[-1] == "i32"  # the last operand: aux / cache policy
        assert (row.size is None) == row.per_lane == (row.counter == "asynccnt"), name
        if row.size is None:
            assert row.lane_bytes(name, None) == int(name.rpartition(".b")[2]) // 8
        if not row.llvm22:  # LLVM 24's async form: the same operands as the LLVM 22 form without "async"
            twin = lds_dma(name.replace(".async", ""))
            assert twin is not None and twin.llvm22, name
            assert (twin.signature, twin.size, twin.offset, twin.opaque) == (row.signature, row.size, row.offset,
                                                                               row.opaque)


# ------------------------------------------------------------------ the users read the same rows


@pytest.mark.parametrize(("row", "name"), ROWS, ids=IDS)
def test_users_agree(row: LdsDma, name: str) -> None:
    entry = memory_intrinsic(name)
    assert entry is not None and entry.default_effect == "lds_w", name  # tagged as an LDS-DMA
    assert entry.opaque == row.opaque
    assert LDS_DMA_TEXT.search(f"  call void @{name}(")  # dma_safety's look for a DMA in the text
    # dma_addresses / dma_safety: the LDS pointer and the size, for the DMAs whose waits the
    # alias metadata decides
    want = (row.lds, row.size) if row.counter == "vmcnt" else None
    assert dma_operands(name) == want
    # regions: one wave's M0 window (size 4, offset 8: [0, 8 + 64 * 4)); a per-lane DMA has none
    got = _records(_kernel(row, name, "@A"))
    assert got[("dma", "lds")][0], got[("dma", "lds")]
    note = got[("dma", "lds")][2]
    if row.per_lane:
        assert note.startswith("no range"), note
    else:
        assert note.startswith("bytes [0, 264)"), note


@pytest.mark.parametrize(("row", "name"), [(r, n) for r, n in ROWS if r.counter == "vmcnt"],
                         ids=[i for (r, _), i in zip(ROWS, IDS, strict=True) if r.counter == "vmcnt"])
def test_an_untraced_dma_leaves_its_function_without_lds_scopes(row: LdsDma, name: str) -> None:
    """Design section 4b, rule (a), for every spelling: a DMA whose LDS destination is not
    traced (an integer address) stays without a scope, so no LDS access of its function
    gets one. Before the table, ``raw``/``struct.buffer.load.async.lds`` (``<4 x i32>``
    resource) and ``load.async.to.lds`` were in no list that finds accesses: the reads of
    @A and @B kept their scopes beside a DMA without one."""
    text = _kernel(row, name, "%p", extra="  %p = inttoptr i32 %n to ptr addrspace(3)\n")
    got = _records(text)
    assert not got[("dma", "lds")][0]
    for read in ("readA", "readB"):
        tagged, reason, _ = got[(read, "lds")]
        assert not tagged and reason.startswith(UNTRACED.split(":")[0]), (read, reason)


def test_a_traced_dma_of_every_spelling_keeps_the_reads_of_another_buffer_scoped() -> None:
    """The twin: with the DMA's destination traced (@A), the read of @B is told apart."""
    for row, name in ROWS:
        got = _records(_kernel(row, name, "@A"))
        assert got[("readB", "lds")][0], (name, got[("readB", "lds")])


# ------------------------------------------------------------------ LLVM 22 (llvmlite) knows each row


def _llvm() -> object:
    binding = pytest.importorskip("llvmlite.binding", reason="llvmlite is needed to ask LLVM 22")
    binding.initialize_all_targets()
    binding.initialize_all_asmprinters()
    return binding


def _verifies(binding: object, text: str) -> str:
    try:
        binding.parse_assembly(text).verify()
    except RuntimeError as exc:
        return str(exc)
    return ""


@pytest.mark.parametrize(("row", "name"), [(r, n) for r, n in ROWS if r.llvm22],
                         ids=[i for (r, _), i in zip(ROWS, IDS, strict=True) if r.llvm22])
def test_llvm22_knows_the_intrinsic_with_the_tables_operands(row: LdsDma, name: str) -> None:
    """The declaration with the table's operands verifies, one with other operands does not
    (so LLVM knows the name: an unknown ``llvm.*`` name verifies with any operands)."""
    binding = _llvm()
    text = _kernel(row, name, "@A")
    assert _verifies(binding, text) == ""
    wrong = re.sub(rf"declare void @{re.escape(name)}\(.*\)", f"declare void @{name}(i64)", text)
    wrong = wrong.replace(f"call void @{name}(", f"call void @{name}(i64 0) ; ", 1)
    assert "Intrinsic has incorrect argument type" in _verifies(binding, wrong)


def _asm(binding: object, text: str, cpu: str) -> list[str]:
    mod = binding.parse_assembly(text)
    mod.verify()
    tm = binding.Target.from_triple("amdgcn-amd-amdhsa").create_target_machine(cpu=cpu, opt=2)
    return [ln.strip() for ln in tm.emit_assembly(mod).splitlines()
            if re.match(r"\s+(buffer_|global_|ds_|s_wait)", ln)]


def test_llvm22_waits_with_vmcnt_for_the_m0_forms_and_not_at_all_for_gfx1250s() -> None:
    """What ``counter`` says, measured: the M0 forms (gfx950) are followed by a vmcnt wait
    before a read of LDS that carries no metadata; gfx1250's per-lane
    ``global.load.async.to.lds.bN`` by none (the program waits with ``s.wait.asynccnt``)."""
    binding = _llvm()
    for row, name in ROWS:
        if not row.llvm22 or name.endswith(".p7"):
            continue
        cpu = "gfx950" if row.counter == "vmcnt" else "gfx1250"
        # through an argument, not @A: LLVM's module-LDS lowering scopes the accesses of LDS
        # variables itself (the state rule (c) of dma_safety is about)
        text = _kernel(row, name, "%l", offset=0).replace("i32 %n)", "i32 %n, ptr addrspace(3) %l)")
        text = text.replace("ptr addrspace(3) @A, align 4 ; readA", "ptr addrspace(3) %l, align 4 ; readA")
        text = text.replace("load i32, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @B, i32 4096), align 4 ; readB",
                            "add i32 %n, 1")
        lines = _asm(binding, text, cpu)  # the read is lane 0's element
        dma = next(i for i, ln in enumerate(lines) if " lds" in ln or "_lds_" in ln)
        read = next(i for i, ln in enumerate(lines) if ln.startswith(("ds_read", "ds_load")))
        assert dma < read, (name, lines)
        waits = [ln for ln in lines[dma + 1:read] if "vmcnt" in ln or "loadcnt" in ln or "asynccnt" in ln]
        assert bool(waits) == (row.counter == "vmcnt"), (name, lines)
