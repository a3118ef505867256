"""``Reason.__call__`` (how the range solver's C twin fills a reason) makes what
``Reason.format`` makes with the same fields: text and code, for every reason."""

from __future__ import annotations

import pytest

from llnoalias import reasons
from llnoalias.reasons import REASONS, Reason, Said


def _values(r: Reason) -> list[object]:
    # a message with a code of its own in odd places (a nested field's code is the result's)
    return [Said(f"inner {i} {{x}}", "inner-code") if i % 2 else f"v{i}" for i in range(len(r.fields))]


@pytest.mark.parametrize("code", list(REASONS))
def test_call_equals_format(code: str) -> None:
    r = REASONS[code]
    values = _values(r)
    made = r(*values)
    want = r.format(**dict(zip(r.fields, values, strict=True)))
    assert type(made) is Said
    assert made == want
    assert made.code == want.code


def test_a_nested_reason_carries_the_inner_code() -> None:
    inner = reasons.MAY_WRAP("mul", " (line 3)")
    outer = reasons.OFFSET_NO_RANGE(inner)
    assert outer == "offset with no range: mul may wrap around (line 3)"
    assert outer.code == inner.code == reasons.MAY_WRAP.code
    # a plain str carries no code: the outer reason's own
    assert reasons.OFFSET_NO_RANGE(str(inner)).code == reasons.OFFSET_NO_RANGE.code


def test_braces_in_values_are_not_read_as_fields() -> None:
    assert reasons.OFFSET_NO_RANGE("{0} {why}") == "offset with no range: {0} {why}"


def test_wrong_number_of_values() -> None:
    with pytest.raises(ValueError):
        reasons.MAY_WRAP("mul")
