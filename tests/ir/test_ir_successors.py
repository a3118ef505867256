"""The IR model's control-flow graph: ``Function.successors`` lists, per block, the blocks
its terminator names (``br``, ``switch``, ``indirectbr``, ``callbr``, ``invoke``; none for
``ret``/``unreachable``), and ``instr_blocks`` each instruction's block as
``Instruction.block`` gives it; both made once and dropped when the body is set again."""

from __future__ import annotations

from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile

TEXT = """\
define void @f(i1 %c, i32 %n, ptr %p) {
entry:
  br i1 %c, label %loop, label %"odd name"

loop:
  %i = phi i32 [ 0, %entry ], [ %j, %loop ]
  %j = add i32 %i, 1
  %d = icmp eq i32 %j, %n
  br i1 %d, label %exit, label %loop

"odd name":
  switch i32 %n, label %exit [
    i32 0, label %loop
    i32 1, label %7
  ]

7:
  indirectbr ptr %p, [label %exit, label %loop]

exit:
  ret void
}

define void @g() {
  unreachable
}
"""


def test_successors_are_the_terminators_labels() -> None:
    mod = parse_module(SourceFile("f.ll", TEXT))
    f, g = mod.functions
    assert f.blocks == ["%entry", "%loop", '%"odd name"', "%7", "%exit"]
    assert f.successors == [[1, 2], [4, 1], [4, 1, 3], [4, 1], []]
    assert f.instr_blocks == [inst.block for inst in f.instrs]
    assert g.successors == [[]]


def test_successors_are_made_once_and_follow_the_body() -> None:
    mod = parse_module(SourceFile("f.ll", TEXT))
    f = mod.functions[0]
    assert f.successors is f.successors
    f.instrs = f.instrs[:1]  # the body set again (as releasing it does): the graph follows it
    assert f.successors == [[1, 2], [], [], [], []]
