"""The compiled domain functions (llnoalias/analysis/_cdomain.c) give exactly the answers of
their Python originals in ``interval``: on random ranges, offsets and known-bits
facts of every width (those above 64 bits, and ends that do not fit 64 bits, are handed to
the Python code), on the edges of each window, and on facts that contradict themselves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from conftest import assert_pure_mode
from hypothesis import given, settings
from hypothesis import strategies as st

from llnoalias.analysis.ranges import interval
from llnoalias.analysis.ranges import knownbits as kb
from llnoalias.analysis.ranges.interval import Off, Range
from llnoalias.analysis.ranges.knownbits import Known

pytestmark = pytest.mark.skipif(interval.cdomain is None, reason="the compiled domain is not built here")

WIDTHS = [1, 2, 3, 7, 8, 16, 31, 32, 33, 63, 64, 65, 128]


def _edges(w: int) -> list[int]:
    return [0, 1, -1, (1 << w) - 1, 1 << w, (1 << (w - 1)) - 1, -(1 << (w - 1)), -(1 << (w - 1)) - 1,
            (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 64, -(1 << 63), -(1 << 63) - 1, -(1 << 64), 1 << 130]


def ends(w: int) -> st.SearchStrategy[int]:
    return st.one_of(st.integers(-(1 << (w - 1)), (1 << w) - 1), st.integers(-300, 300),
                     st.sampled_from(_edges(w)), st.integers(-(1 << (w + 2)), 1 << (w + 2)))


def masks(w: int) -> st.SearchStrategy[int]:
    return st.one_of(st.integers(0, (1 << w) - 1), st.just(0), st.integers(-255, -1), st.integers(0, 1 << 130))


def _same(compiled: Callable[..., Any], python: Callable[..., Any], *args: Any) -> None:
    def run(f: Callable[..., Any]) -> tuple[str, Any]:
        try:
            return "value", f(*args)
        except Exception as exc:  # the same exception, where Python raises one
            return "raises", type(exc).__name__
    got, want = run(compiled), run(python)
    assert got[0] == want[0], (args, got, want)
    if got[0] == "value":
        assert type(got[1]) is type(want[1]), (args, got, want)
        assert got[1] == want[1] and tuple(got[1]) == tuple(want[1]), (args, got, want)
    else:
        assert got[1] == want[1], (args, got, want)


@settings(max_examples=800, deadline=None)
@given(st.sampled_from(WIDTHS), st.data())
def test_compiled_domain_functions_answer_as_the_python_ones(w: int, data: st.DataObject) -> None:
    lo, hi = data.draw(ends(w)), data.draw(ends(w))
    if data.draw(st.booleans()):
        lo, hi = min(lo, hi), max(lo, hi)
    z, o = data.draw(masks(w)), data.draw(masks(w))
    if data.draw(st.booleans()):
        o &= ~z  # a consistent fact (the other half: facts that contradict themselves)
    kz, ko = data.draw(masks(w)), data.draw(masks(w))
    r = Range(lo, hi, z, o)
    k = Known(kz, ko & ~kz if data.draw(st.booleans()) else ko)
    off = Off("root", lo, hi, z, o, data.draw(st.sampled_from([0, 1, w, 32, 64, 200])))
    _same(interval.known, interval.py_known, r, w)
    _same(interval.with_known, interval.py_with_known, r, k, w)
    _same(interval.off_known, interval.py_off_known, off, w)
    _same(interval.off_with_known, interval.py_off_with_known, off, k, w)


def facts(w: int) -> st.SearchStrategy[Known]:
    return st.builds(Known, masks(w), masks(w))


@settings(max_examples=800, deadline=None)
@given(st.sampled_from(WIDTHS + [0, -1]), st.sampled_from(WIDTHS + [0]), st.data())
def test_compiled_transfers_answer_as_the_python_ones(w: int, sw: int, data: st.DataObject) -> None:
    a = data.draw(facts(max(w, 1)))
    b = data.draw(facts(max(w, 1)))
    if data.draw(st.booleans()):  # consistent facts (the other half: anything)
        a, b = Known(a.zero, a.one & ~a.zero), Known(b.zero, b.one & ~b.zero)
    # shift amounts and constants (a shift of 2**64 bits would only make Python build a huge int)
    c = data.draw(st.integers(-2, 70))
    _same(kb.const, kb.py_const, data.draw(st.sampled_from(_edges(max(w, 1)))), w)
    _same(kb.const, kb.py_const, c, w)
    _same(kb.trunc, kb.py_trunc, a, w)
    _same(kb.zext, kb.py_zext, a, sw, w)
    _same(kb.sext, kb.py_sext, a, sw, w)
    _same(kb.shl, kb.py_shl, a, c, w)
    _same(kb.lshr, kb.py_lshr, a, c, w)
    _same(kb.add_sub, kb.py_add_sub, a, b, w)
    _same(kb.add_sub, kb.py_add_sub, a, b, w, True)
    _same(lambda *x: kb.add_sub(*x, sub=True), lambda *x: kb.py_add_sub(*x, sub=True), a, b, w)
    _same(kb.mul, kb.py_mul, a, b, w)
    # a constant times a constant: the exact product
    ca, cb = kb.py_const(c, max(w, 1)), kb.py_const(c + 3, max(w, 1))
    _same(kb.mul, kb.py_mul, ca, cb, w)


@pytest.mark.parametrize("w", WIDTHS)
def test_compiled_domain_on_the_edges_of_each_window(w: int) -> None:
    for lo in _edges(w):
        for hi in _edges(w):
            for z, o in ((0, 0), (7, 0), (0, 8), ((1 << w) - 1, 0), (0, (1 << w) - 1), (5, 5)):
                r = Range(lo, hi, z, o)
                _same(interval.known, interval.py_known, r, w)
                _same(interval.with_known, interval.py_with_known, r, Known(z, o), w)
                _same(interval.with_known, interval.py_with_known, Range(lo, hi), Known(z, o), w)
                off = Off("root", lo, hi, z, o, w)
                _same(interval.off_known, interval.py_off_known, off, w)
                _same(interval.off_with_known, interval.py_off_with_known, off, Known(z, o), w)


def test_compiled_domain_reads_what_is_not_a_range_as_python_does() -> None:
    assert interval.known("offset with no range: mul may wrap around", 32) == Known(0, 0)
    _same(interval.known, interval.py_known, Range(0, 7), 0)
    _same(interval.with_known, interval.py_with_known, Range(0, 7), Known(0, 0), 0)
    # a multiple of 8 at most 8199 is at most 8192 (the compiled path, 32 bits)
    got = interval.with_known(Range(0, 8199), Known(7, 0), 32)
    assert (got.lo, got.hi) == (0, 8192) and type(got) is Range


def test_pure_mode_loads_no_compiled_domain() -> None:
    code = ("import sys, llnoalias.analysis.ranges.interval as i\n"
            "assert i.cdomain is None and 'llnoalias.analysis._cdomain' not in sys.modules\n"
            "assert i.with_known is i.py_with_known\n"
            "import llnoalias.analysis.ranges.knownbits as kb\n"
            "assert kb.add_sub is kb.py_add_sub\n")
    assert_pure_mode(code)
