"""The regex fast paths of the operand parser must read exactly what the tokenizing
parser reads, on every instruction of every fixture they accept."""

from __future__ import annotations

import pytest

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.fileio import decode
from llnoalias.ir import operands, operands_fast
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from tests.support.files import all_fixtures, fixture_id

PATHS = all_fixtures()


def _shape(ops: operands.Ops) -> tuple[object, ...]:
    # the full parser does not type the operands of instructions it reads generically
    typed = ops.kind != "other"
    return (ops.kind, ops.flags, [(repr(t) if typed else "", repr(v)) for t, v in ops.operands],
            [repr(v) for v in ops.incoming], repr(ops.callee), repr(ops.result_type))


@pytest.mark.parametrize("path", PATHS, ids=[fixture_id(p) for p in PATHS])
def test_fast_paths_agree_with_the_full_parser(path: str) -> None:
    text = decode(open(path, "rb").read())
    try:
        mod = parse_module(SourceFile(path, text))
    except LLNoaliasError:
        pytest.skip("not a module llnoalias reads (a bad-input fixture)")
    fast_count = 0
    for fn in mod.functions:
        for inst in fn.instrs:
            fast = operands_fast.read_fast(mod, inst)
            if fast is None:
                continue
            fast_count += 1
            full = operands._parse(mod, inst)
            assert _shape(fast) == _shape(full), mod.text[inst.start:inst.end]
    assert fast_count or not any(fn.instrs for fn in mod.functions)
