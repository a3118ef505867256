"""The bounds that keep the reader's work bounded on any input (design section 6).

- ``MAX_INT_BITS``: an integer type is ``i1`` to ``i8388608``, as LLVM's
  ``IntegerType::MAX_INT_BITS`` allows; ``i0`` or a wider one is a located error, as in
  LLVM's lexer ("bitwidth for integer type out of range"). Nothing later (type sizes,
  the range analysis, the compiled domain) ever sees a wider integer.
- ``MAX_NESTING``: brackets nested more than 4096 deep on one line are a located error.
  LLVM 19's parser reads about 5000 nested constant expressions and overflows its stack
  at 8000; llnoalias reads any depth up to the limit without recursion that the input
  can exhaust.
- ``MAX_ADDRSPACE``: an address space is a 24-bit integer, as LLVM's parser requires
  ("invalid address space, must be a 24-bit integer"); ``addrspace(N)`` with a larger
  ``N`` is a located error, so no address space past 24 bits reaches the range analysis
  (whose compiled twin reads it as a C ``long``).
- ``MAX_DIGITS``: a number (a constant, a metadata id, a value number) of more than 4300
  decimal digits in code is a located error: Python converts no longer decimal string (its
  ``int_max_str_digits``) and arithmetic on such numbers is what the bound is there to stop.
  LLVM reads longer constants (an ``i8388608`` has up to 2.5 million digits); no producer
  writes one.
- ``PARSE_DEPTH``: the operand and type readers, which recurse, stop at 64 nested
  constant expressions, aggregates or types: deeper text is read as unknown (the
  instruction is unparsed, the type is ``other``), which the analysis answers with no
  claim. LLVM's own output nests a handful of levels.

``first_hostile`` finds the first violation of the first four in file order; the
compiled reader (``_body_reader.hostile``) and the pure-Python code here give the same answer
for the first two, and the address spaces and long numbers are searched by the same Python
code in both modes.
"""

from __future__ import annotations

from itertools import accumulate

from .. import compiled
from .lazyre import lazy

#: the compiled reader (``_body_reader.c``), or None: the Python code here
_cscan = compiled.load("body_reader")


MAX_INT_BITS = 1 << 23
MAX_NESTING = 4096
MAX_ADDRSPACE = (1 << 24) - 1
MAX_DIGITS = 4300
PARSE_DEPTH = 64

# A candidate integer type: 'i' and a digit run that is 0, or has 7 digits or more once
# its leading zeros are dropped (i1 to i999999 are always in range), not followed by a
# character that would make it a longer word or a label.
_WIDTH_RE = lazy(r"i(?:0+(?![0-9])|0*[1-9][0-9]{6,})(?![-a-zA-Z$._0-9:])")
#: a character before the 'i' that makes it part of a name, not a type keyword
_NAME_BEFORE = frozenset("-$._%@!#^\\abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
# The strings and the comment of one line (a string ends at its quote or at the line's end).
_SKIP_RE = lazy(r'"[^"\n]*"?|;[^\n]*')
_BRACKET_RE = lazy(r'"[^"\n]*"?|;[^\n]*|[\[\](){}<>]')
_NOT_BRACKET_RE = lazy(r'"[^"\n]*"?|;[^\n]*|[^\[\](){}<>";\n]+')
# A candidate address space past 24 bits: 8 digits or more once leading zeros are dropped.
_ADDRSPACE_RE = lazy(r"addrspace[ \t]*\([ \t]*(0*[1-9][0-9]{7,})")
_DIGITS_RE = lazy(r"[0-9]*")
#: a character before a digit run that makes it part of a name (``@a7``, ``i32``, ``0x7f``)
_WORD_BEFORE = frozenset("$._abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\\")
_DELTA = {"(": 1, "[": 1, "{": 1, "<": 1, ")": -1, "]": -1, "}": -1, ">": -1}


def first_hostile(text: str) -> tuple[int, str] | None:
    """The offset and message of the first integer width out of range or the first bracket
    nested deeper than ``MAX_NESTING`` on its line, in file order, or None."""
    long_number = _first_long_number(text)
    extra = [long_number] if long_number is not None else []
    if _cscan is not None:
        # (the compiled scan finds the address spaces too, at their '(')
        got = _cscan.hostile(text, MAX_INT_BITS, MAX_NESTING, MAX_ADDRSPACE)
        if got is None and not extra:
            return None
        offset, what = min([got, *extra] if got is not None else extra)
        return offset, _message(text, offset, what)
    space = _first_addrspace(text) if "addrspace" in text else None
    found = [f for f in (_first_width(text), _first_deep(text), space, *extra) if f is not None]
    if not found:
        return None
    offset, what = min(found)
    return offset, _message(text, offset, what)


def _message(text: str, offset: int, what: int) -> str:
    if what == 0:
        end = offset + 1
        while end < len(text) and text[end].isdigit() and end - offset < 24:
            end += 1
        word = text[offset:end] + ("..." if end < len(text) and text[end].isdigit() else "")
        return f"bitwidth for integer type out of range: '{word}' (LLVM's integer types are i1 to i{MAX_INT_BITS})"
    if what == 2:
        end = offset
        while end < len(text) and text[end].isdigit() and end - offset < 24:
            end += 1
        word = text[offset:end] + ("..." if end < len(text) and text[end].isdigit() else "")
        return f"invalid address space, must be a 24-bit integer: '{word}'"
    if what == 3:
        end = _DIGITS_RE.match(text, offset).end()  # type: ignore[union-attr]
        return f"number of {end - offset} digits: longer than llnoalias reads ({MAX_DIGITS} digits)"
    return f"brackets nested more than {MAX_NESTING} deep (the most llnoalias reads)"


def _in_code(text: str, line_start: int, offset: int) -> bool:
    """Is ``offset`` outside the strings and the comment of its line?"""
    for m in _SKIP_RE.finditer(text, line_start, offset + 1):
        if m.start() <= offset < m.end():
            return False
    return True


def _first_width(text: str) -> tuple[int, int] | None:
    for m in _WIDTH_RE.finditer(text):
        at = m.start()
        if at > 0 and text[at - 1] in _NAME_BEFORE:
            continue
        digits = text[at + 1:m.end()].lstrip("0")
        # (by its length first: Python refuses to convert more than 4300 digits)
        if 0 < len(digits) <= 7 and int(digits) <= MAX_INT_BITS:
            continue
        if _in_code(text, text.rfind("\n", 0, at) + 1, at):
            return at, 0
    return None


def _first_addrspace(text: str) -> tuple[int, int] | None:
    """The first ``addrspace(N)`` (outside names, strings and comments) whose ``N`` is past
    ``MAX_ADDRSPACE``: the offset of ``N``."""
    for m in _ADDRSPACE_RE.finditer(text):
        at = m.start()
        if at > 0 and text[at - 1] in _NAME_BEFORE:
            continue
        digits = m.group(1).lstrip("0")
        if len(digits) <= 8 and int(digits) <= MAX_ADDRSPACE:
            continue
        if _in_code(text, text.rfind("\n", 0, at) + 1, at):
            return m.start(1), 2
    return None


def too_long(digits: str) -> bool:
    """Is the decimal ``digits`` longer than ``MAX_DIGITS``?"""
    return len(digits) > MAX_DIGITS


def _first_long_number(text: str) -> tuple[int, int] | None:
    """The first run of more than ``MAX_DIGITS`` digits in code that is not part of a name:
    its offset. Such a run holds a character at a multiple of half the limit: the text is
    sampled there, and only a digit found is looked at closer."""
    step = (MAX_DIGITS + 1) // 2
    n = len(text)
    at = step - 1
    while at < n:
        if not "0" <= text[at] <= "9":
            at += step
            continue
        start = at
        while start > 0 and "0" <= text[start - 1] <= "9":
            start -= 1
        end = _DIGITS_RE.match(text, at).end()  # type: ignore[union-attr]
        if end - start > MAX_DIGITS and not (start > 0 and text[start - 1] in _WORD_BEFORE) \
                and _in_code(text, text.rfind("\n", 0, start) + 1, start):
            return start, 3
        at = max(end, at + step)
    return None


def _first_deep(text: str) -> tuple[int, int] | None:
    """The first bracket that opens level ``MAX_NESTING + 1`` of its line (levels are
    counted from the line's start, strings and the comment left out)."""
    # Only a line longer than the limit can nest that deep, and such a line holds a whole
    # window of half the limit's length that is aligned to a multiple of it: one search
    # for a line break per window finds every such line.
    step = (MAX_NESTING + 1) // 2
    find, rfind = text.find, text.rfind
    n = len(text)
    at = 0
    while at < n:
        if find("\n", at, at + step) >= 0:
            at += step
            continue
        start = rfind("\n", 0, at) + 1
        end = find("\n", at)
        if end < 0:
            end = n
        at = end + 1
        if end - start <= MAX_NESTING:
            continue
        brackets = _NOT_BRACKET_RE.sub("", text[start:end])
        if len(brackets) <= MAX_NESTING or max(accumulate(map(_DELTA.__getitem__, brackets))) <= MAX_NESTING:
            continue
        depth = 0
        for m in _BRACKET_RE.finditer(text, start, end):
            d = _DELTA.get(m.group())
            if d is None:
                continue
            depth += d
            if depth > MAX_NESTING:
                return m.start(), 1
    return None


__all__ = ["MAX_ADDRSPACE", "MAX_DIGITS", "MAX_INT_BITS", "MAX_NESTING", "PARSE_DEPTH", "first_hostile", "too_long"]
