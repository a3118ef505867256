"""The structurizer's flag blocks, threaded: each way into one goes straight to where it leads.

AMDGPU's control-flow structurizer joins a loop's latch and its exit test in a *flow block* that
holds nothing but a test of a flag each way in has set (``s_mov_b32 s38, 0`` on the latch,
``s_mov_b32 s38, -1`` where the header leaves the loop)::

    .LBB0_12:                ; %Flow
        s_and_b32 vcc_lo, exec_lo, s38
        s_cbranch_vccnz .LBB0_18     ; the exit
    .LBB0_13:                ; the loop's header (the back edge)

or, where the flag is tested through ``scc`` (the prologue's wave-specialized copies of FlyDSL's
gfx1250 GEMMs: ``s_mov_b32 s0, -1`` where wave 1 takes its copy, ``s_mov_b32 s0, 0`` where it
does not)::

    .LBB0_8:                 ; %Flow270
        s_and_b32 s0, s0, exec_lo
        s_cselect_b32 s0, 1, 0
        s_cmp_lg_u32 s0, 1
        s_cbranch_scc1 .LBB0_10      ; taken where the flag is clear

Read as a graph, the header may leave through the flow block and come straight back: an iteration
that runs nothing (no copy issued, no wait), which no wave runs, yet the replay of the queues
(``asm.sync``) would count it. Here a way into such a block whose flag is a constant set in the
block it comes from goes to the one successor that constant selects; the flow block keeps only the
ways in whose flag is not known. Only blocks that hold the test and instructions that touch no
memory, counter or barrier are threaded (``_INERT``).
"""

from __future__ import annotations

import dataclasses

from .reader import OTHER, AsmFunction, AsmInst

#: instructions a flow block may hold beside its test and branch
_INERT = frozenset({"s_delay_alu", "s_nop", "s_set_vgpr_msb"})
_BRANCHES = {"s_cbranch_vccnz": True, "s_cbranch_vccz": False}
#: the scc branches, by the scc they are taken on
_SCC_BRANCHES = {"s_cbranch_scc1": True, "s_cbranch_scc0": False}


def _inert(inst: AsmInst) -> bool:
    """Whether a flow block's instruction is neither its test nor anything the replay reads: a
    hint, vector arithmetic, or a scalar move of a constant into a register that is no flag (the
    code generator hoists the next block's constants and addresses into the flow block)."""
    if inst.mnemonic in _INERT:
        return True
    if inst.mnemonic.startswith("v_") and inst.kind == OTHER and not inst.mnemonic.startswith("v_cmp"):
        # vector arithmetic hoisted from the next block: no memory, and none of vcc, exec, scc
        return not any("vcc" in o or "exec" in o for o in inst.operands)
    if inst.mnemonic != "s_mov_b32" or len(inst.operands) != 2:
        return False
    dst, v = inst.operands
    return dst.startswith("s") and dst[1:].isdigit() and v.lstrip("-").isdigit()


def _scc_test(tests: list[AsmInst], br: AsmInst) -> tuple[str, bool] | None:
    """The flag ``sF`` and whether the branch is taken where it is set, of ``s_and_b32 sX, sF,
    exec_lo`` (``sX`` may be ``sF``), ``s_cselect_b32 sX, 1, 0``, ``s_cmp_{eq,lg}_u32 sX, {0,1}``,
    ``s_cbranch_scc{0,1}``; None for any other sequence."""
    if len(tests) != 3 or br.mnemonic not in _SCC_BRANCHES:
        return None
    a, sel, cmp = tests
    if a.mnemonic != "s_and_b32" or len(a.operands) != 3 or "exec_lo" not in a.operands[1:]:
        return None
    dst = a.operands[0]
    flags = [o for o in a.operands[1:] if o != "exec_lo"]
    if len(flags) != 1:
        return None
    flag = flags[0]
    if sel.mnemonic != "s_cselect_b32" or sel.operands != (dst, "1", "0"):
        return None
    if cmp.mnemonic not in ("s_cmp_eq_u32", "s_cmp_lg_u32") or len(cmp.operands) != 2 or cmp.operands[0] != dst:
        return None
    if cmp.operands[1] not in ("0", "1"):
        return None
    # scc after the compare, where the flag is set (sX is 1 then)
    scc_if_set = (cmp.operands[1] == "1") == (cmp.mnemonic == "s_cmp_eq_u32")
    return flag, scc_if_set == _SCC_BRANCHES[br.mnemonic]


def _flag_test(fn: AsmFunction, b: int) -> tuple[str, int, int] | None:
    """``(flag, taken, fallthrough)`` of a flow block: its one ``s_and`` of ``exec`` with a
    scalar flag into ``vcc`` and the branch on it, or its test of the flag through ``scc``
    (``_scc_test``); ``taken`` is where the branch goes where the flag is set. None where the
    block holds anything else."""
    blk = fn.blocks[b]
    insts = fn.insts[blk.first:blk.last + 1]
    if not insts or len(blk.succs) != 2:
        return None
    br = insts[-1]
    if br.target is None or br.target not in fn.labels:
        return None
    tests = [i for i in insts[:-1] if not _inert(i)]
    on_set = _BRANCHES.get(br.mnemonic)
    if on_set is None:
        got = _scc_test(tests, br)
        if got is None:
            return None
        y, on_set = got
    else:
        if len(tests) != 1:
            return None
        a = tests[0]
        if a.mnemonic not in ("s_and_b32", "s_and_b64") or len(a.operands) != 3:
            return None
        dst, x, y = a.operands
        if dst not in ("vcc_lo", "vcc") or x not in ("exec_lo", "exec"):
            return None
    written = {t.operands[0] for t in tests if t.operands} | {y}
    if any(i.operands and i.operands[0] in written for i in insts[:-1] if i not in tests):
        return None  # a move into the flag or the test's register: the test reads what the block set
    target = fn.block_of(fn.labels[br.target])
    other = [s for s in blk.succs if s != target]
    if target not in blk.succs or len(other) != 1:
        return None
    taken, fall = (target, other[0]) if on_set else (other[0], target)
    return y, taken, fall


def _flag_at_end(insts: list[AsmInst], flag: str) -> bool | None:
    """Whether the last write of ``flag`` in ``insts`` sets it to all ones (True) or zero
    (False); None where it is written otherwise or not at all."""
    for inst in reversed(insts):
        if flag not in inst.dests and not (inst.operands and inst.operands[0] == flag):
            continue
        if inst.mnemonic in ("s_mov_b32", "s_mov_b64") and len(inst.operands) == 2:
            v = inst.operands[1]
            if v == "0":
                return False
            if v in ("-1", "0xffffffff", "exec_lo", "exec"):
                return True
        return None
    return None


def thread_flag_blocks(fn: AsmFunction) -> AsmFunction:
    """``fn`` with every way into a flow block whose flag is known sent to its successor (see the
    module's docstring); ``fn`` itself where there is none."""
    preds: list[list[int]] = [[] for _ in fn.blocks]
    for b, blk in enumerate(fn.blocks):
        for s in blk.succs:
            preds[s].append(b)
    succs = [list(blk.succs) for blk in fn.blocks]
    changed = False
    for f in range(len(fn.blocks)):
        test = _flag_test(fn, f)
        if test is None:
            continue
        flag, taken, fall = test
        for p in preds[f]:
            if p == f:
                continue
            pb = fn.blocks[p]
            got = _flag_at_end(fn.insts[pb.first:pb.last + 1], flag)
            if got is None:
                continue
            to = taken if got else fall
            succs[p] = list(dict.fromkeys(to if s == f else s for s in succs[p]))
            changed = True
    if not changed:
        return fn
    blocks = [dataclasses.replace(blk, succs=tuple(ss)) for blk, ss in zip(fn.blocks, succs, strict=True)]
    return dataclasses.replace(fn, blocks=blocks)


__all__ = ["thread_flag_blocks"]
