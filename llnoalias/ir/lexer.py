"""Tokens of LLVM's textual IR, for one instruction or one top-level line at a time.

The lexer is deliberately forgiving: anything it does not recognise becomes an
``other`` token, so syntax from a newer LLVM never stops the tool; the parser decides
what such a token means (usually: "this value is unknown").
"""

from __future__ import annotations

import re
from collections import namedtuple

from .lazyre import lazy

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms

# The one spelling of LLVM's identifiers (LangRef, "Identifiers"), for every regex of the
# package that reads one: a name is NAME_START then NAME_CHAR repeated, a number, or quoted.
#: one character of an unquoted name or number
NAME_CHAR = r"[-a-zA-Z$._0-9]"
#: the first character of an unquoted name (not a number)
NAME_START = r"[-a-zA-Z$._]"
#: an unquoted name or number as the printer writes it after a sigil: ``NAME_CHAR`` repeated
BARE_NAME = NAME_CHAR + "+"
#: a quoted name's body, quotes included (``%"a b"``)
QUOTED_NAME = r'"[^"]*"'
#: no identifier character follows (the end of a word that a name could go on from)
NAME_END = "(?!" + NAME_CHAR + ")"
#: one character of a metadata name (``!llvm.loop``, ``!\22``: a backslash too)
MD_NAME_CHAR = r"[-a-zA-Z$._0-9\\]"
#: a local (``%x``, ``%0``, ``%"a b"``): quoted or bare
LOCAL_NAME = "%(?:" + QUOTED_NAME + "|" + BARE_NAME + ")"
#: an ``icmp``'s predicate, group 1 (``icmp samesign ult``: ``ult``; ``icmp_predicate``)
ICMP_HEAD = r"\bicmp\s+(?:samesign\s+)?"
ICMP_PREDICATE = ICMP_HEAD + "([a-z]+)"
_ICMP_RE = lazy(ICMP_PREDICATE)

_NAME = "(?:" + QUOTED_NAME + "|" + NAME_START + NAME_CHAR + r"*|\d+)"

_TOKEN_RE = lazy(
    r"""
    (?P<ws>\s+)
  | (?P<local>%""" + _NAME + r""")
  | (?P<global>@""" + _NAME + r""")
  | (?P<mdstring>!"[^"]*")
  | (?P<metadata>!""" + MD_NAME_CHAR + r"""+)
  | (?P<cstring>c"[^"]*")
  | (?P<string>"[^"]*")
  | (?P<attrgrp>\#\d+)
  | (?P<hex>[su]?0x[KLMHR]?[0-9A-Fa-f]+)
  | (?P<float>[-+]?\d+\.\d*(?:[eE][-+]?\d+)?)
  | (?P<int>[-+]?\d+)
  | (?P<ellipsis>\.\.\.)
  | (?P<label>""" + BARE_NAME + r""":)
  | (?P<word>[a-zA-Z_$.]""" + NAME_CHAR + r"""*)
  | (?P<comdat>\$""" + _NAME + r""")
  | (?P<summary>\^\d+)
  | (?P<comment>;[^\n]*)
  | (?P<punct>[()\[\]{}<>,=*|!:])
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)


if TYPE_CHECKING:
    from typing import NamedTuple

    class Token(NamedTuple):
        kind: str
        text: str
        start: int
        end: int
else:
    Token = namedtuple("Token", "kind text start end")


def tokenize(text: str, base: int = 0) -> list[Token]:
    """Split ``text`` into tokens; offsets are ``base`` + index into ``text``.

    Comments (``;`` to end of line outside strings) are skipped: an instruction split over
    lines may carry a comment on every line but its last, and what follows is still code.
    """
    out: list[Token] = []
    append = out.append
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup
        if kind == "ws" or kind == "comment":
            continue
        tok = m.group()
        assert kind is not None
        append(Token(kind, tok, base + m.start(), base + m.end()))
    return out


def split_comment(line: str) -> str:
    """The code part of one line: everything before a ``;`` that is not inside a string."""
    semi = line.find(";")
    if semi < 0:
        return line
    quote = line.find('"')
    if quote < 0 or quote > semi:
        return line[:semi]
    in_str = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_str = not in_str
        elif ch == ";" and not in_str:
            return line[:i]
    return line


def bracket_balance(code: str) -> int:
    """Opening minus closing brackets ``( [ {`` outside strings."""
    if '"' not in code:
        return (
            code.count("(") + code.count("[") + code.count("{")
            - code.count(")") - code.count("]") - code.count("}")
        )
    depth = 0
    in_str = False
    for ch in code:
        if ch == '"':
            in_str = not in_str
        elif in_str:
            continue
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
    return depth


def icmp_predicate(text: str, start: int = 0, end: int | None = None) -> str | None:
    """The predicate of the ``icmp`` in ``text[start:end]`` (``ult``, ``eq``...), or None."""
    m = _ICMP_RE.search(text, start, len(text) if end is None else end)
    return m.group(1) if m else None


def unquote_name(token: str) -> str:
    """``%"a b"`` -> ``a b``; ``%x`` -> ``x`` (the sigil is dropped)."""
    body = token[1:]
    if body.startswith('"') and body.endswith('"') and len(body) >= 2:
        return body[1:-1]
    return body


_PLAIN_NAME_RE = lazy(NAME_START + NAME_CHAR + r"*|\d+")


_ESCAPE_RE = lazy(r"\\([0-9A-Fa-f]{2})")


def _escape_name(body: str) -> str:
    return "".join(ch if 0x20 <= ord(ch) < 0x7F and ch not in '"\\' else f"\\{ord(ch):02X}" for ch in body)


def canon_name(token: str) -> str:
    """One spelling per name: ``@"lds.a"``, ``@lds.a`` and ``@"lds\2Ea"`` are the same
    global; a name that needs quotes keeps them, with only the escapes it needs."""
    if len(token) > 3 and token[1] == '"' and token[-1] == '"':
        body = token[2:-1]
        if "\\" in body:
            try:
                raw = _ESCAPE_RE.sub(lambda m: chr(int(m.group(1), 16)), body)
            except ValueError:
                return token
            body = raw
            if not (_PLAIN_NAME_RE.fullmatch(body) and not body.isdigit()):
                return f'{token[0]}"{_escape_name(body)}"'
        if _PLAIN_NAME_RE.fullmatch(body) and not body.isdigit():
            return token[0] + body
    return token
