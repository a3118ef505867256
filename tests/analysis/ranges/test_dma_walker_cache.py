"""analysis/ranges/addresses.py's Walker keeps ``_may_be_zero``'s answer per name; an answer
is reused only where the walk's depth limit would not have cut the walk short, so every
answer equals a fresh walker's in any order of questions, on both sides of the limit."""

from __future__ import annotations

import random

import pytest

from llnoalias.analysis.ranges import addresses
from llnoalias.analysis.ranges.addresses import Walker
from llnoalias.ir.datalayout import layout_of
from llnoalias.ir.model import LocalRef
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from llnoalias.ir.types import Type

N = addresses._DEPTH + 12


def _module() -> str:
    # %z0 folds to 0 (x - x); %zK = and %z(K-1), %y folds to 0 through its first operand:
    # a walk from %zK needs K + 1 levels
    lines = ["define void @f(i32 %x, i32 %y) {", "entry:", "  %z0 = sub i32 %x, %x"]
    lines += [f"  %z{k} = and i32 %z{k - 1}, %y" for k in range(1, N)]
    lines += ["  ret void", "}", ""]
    return "\n".join(lines)


def _walker() -> Walker:
    mod = parse_module(SourceFile("chain.ll", _module()))
    fn = mod.functions[0]
    return Walker(mod, fn, layout_of(mod))


def _ask(w: Walker, k: int, depth: int) -> bool:
    return w._may_be_zero(Type("int", bits=32), LocalRef(f"%z{k}"), depth)


def test_the_chain_crosses_the_depth_limit() -> None:
    # without the limit every %zK folds; with it, the long ones are "not known"
    assert _ask(_walker(), 3, 0) is True
    assert _ask(_walker(), N - 1, 0) is False
    assert _ask(_walker(), 10, addresses._DEPTH - 5) is False


@pytest.mark.parametrize("seed", range(6))
def test_cached_answers_equal_fresh_ones(seed: int) -> None:
    rng = random.Random(seed)
    w = _walker()
    questions = [(rng.randrange(N), rng.randrange(addresses._DEPTH + 3)) for _ in range(60)]
    for k, depth in questions:
        assert _ask(w, k, depth) == _ask(_walker(), k, depth), (k, depth)
