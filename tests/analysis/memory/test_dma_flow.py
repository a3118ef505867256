"""analysis/memory/waits.WaitFlow finds whether a wait for every vector-memory operation
follows an instruction in its block by bisecting the waits' and the blocks' indices; on
random functions (waits of every form, waits that are not full ones, branches) it equals a
walk down the block from the instruction."""

from __future__ import annotations

import random

import pytest

from llnoalias.analysis.memory.waits import WaitFlow
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile

HEAD = """declare void @llvm.amdgcn.s.waitcnt(i32)
declare void @llvm.amdgcn.s.wait.loadcnt(i16)
declare void @llvm.amdgcn.s.barrier()
"""

#: (line, is a full wait)
LINES = [
    ("  call void @llvm.amdgcn.s.waitcnt(i32 0)", True),
    ("  call void @llvm.amdgcn.s.wait.loadcnt(i16 0)", True),
    ('  call void asm sideeffect "s_waitcnt vmcnt(0)", ""()', True),
    ("  call void @llvm.amdgcn.s.waitcnt(i32 3)", False),
    ("  call void @llvm.amdgcn.s.barrier()", False),
]


def _function(rng: random.Random) -> tuple[str, list[bool]]:
    """A function of random blocks, and per instruction whether it is a full wait."""
    nb = rng.randint(1, 5)
    lines = ["define void @f(i32 %x, i1 %c) {"]
    waits: list[bool] = []
    v = 0
    for b in range(nb):
        lines.append(f"b{b}:")
        for _ in range(rng.randint(0, 12)):
            if rng.random() < 0.5:
                line, full = rng.choice(LINES)
            else:
                line, full = f"  %v{v} = add i32 %x, {v}", False
                v += 1
            lines.append(line)
            waits.append(full)
        if b == nb - 1:
            lines.append("  ret void")
        else:
            lines.append(f"  br i1 %c, label %b{rng.randrange(nb)}, label %b{b + 1}")
        waits.append(False)
    lines.append("}")
    return HEAD + "\n".join(lines) + "\n", waits


@pytest.mark.parametrize("seed", range(8))
def test_kill_after_equals_a_walk_down_the_block(seed: int) -> None:
    rng = random.Random(seed)
    checked = kills = 0
    for _ in range(40):
        text, waits = _function(rng)
        mod = parse_module(SourceFile("f.ll", text))
        fn = mod.functions[-1]
        flow = WaitFlow(mod, fn)
        blocks = [inst.block for inst in fn.instrs]
        assert flow.kills == [n for n, w in enumerate(waits) if w]
        for n in range(len(fn.instrs)):
            m = n + 1
            walked = False
            while m < len(fn.instrs) and blocks[m] == blocks[n]:
                walked = walked or waits[m]
                m += 1
            assert flow.kill_after(n) == walked, (text, n)
            checked += 1
            kills += walked
    assert checked > 300 and 50 < kills < checked
