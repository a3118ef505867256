"""The byte-preservation property (design section 5), as a function the tests share.

``strip_additions(inp, out)`` removes from ``out`` exactly what llnoalias may add to
``inp`` and returns the rest, which must equal ``inp``:

- attachments ``, !alias.scope !N`` / ``, !noalias !N`` / ``, !invariant.load !N``
  whose ``!N`` is new (above every id of the input);
- a reference ``!alias.scope !OLD`` that was replaced by a new merged list ``!NEW``
  (restored to ``!OLD``; the new list must hold every id of the old one);
- attributes inserted on ``define`` lines (``noalias``, ``readonly``, ``writeonly``...);
- the metadata lines appended at the end (``!N = ...`` with new ids), and the line
  ending put in front of them when the input did not end with one.

Anything else that differs survives the stripping and makes the comparison fail.
"""

from __future__ import annotations

import difflib
import re

_ID_RE = re.compile(r"!(\d+)")
_ATTACH_RE = re.compile(r",\s*!(alias\.scope|noalias|invariant\.load)(?![-a-zA-Z$._0-9])\s*!(\d+)")
_MD_LINE_RE = re.compile(r"!(\d+) = (?:distinct )?!\{(.*)\}\Z")
ARG_ATTRS = {"noalias", "readonly", "writeonly", "readnone", "nocapture", "captures(none)", "noundef", "nonnull"}


def max_id(text: str) -> int:
    best = -1
    for m in _ID_RE.finditer(text):
        best = max(best, int(m.group(1)))
    return best


class NotPreserved(AssertionError):
    pass


def _list_ids(body: str) -> set[int]:
    return {int(x) for x in _ID_RE.findall(body)}


def _restore_attachments(in_line: str, out_line: str, limit: int, new_md: dict[int, str],
                         old_lists: dict[int, str]) -> str:
    in_refs = {m.group(1): m.group(2) for m in _ATTACH_RE.finditer(in_line)}
    parts: list[str] = []
    pos = 0
    for m in _ATTACH_RE.finditer(out_line):
        kind, nid = m.group(1), int(m.group(2))
        if nid <= limit:
            continue
        if nid not in new_md:
            raise NotPreserved(f"attachment !{kind} !{nid} refers to a node that was not appended")
        parts.append(out_line[pos:m.start()])
        if kind in in_refs:
            # a merged list replaced the old reference: it must keep every old scope
            old = int(in_refs[kind])
            if old in old_lists and not _list_ids(old_lists[old]) <= _list_ids(new_md[nid]):
                raise NotPreserved(f"merged !{kind} !{nid} lost scopes of !{old}")
            parts.append(m.group()[: m.start(2) - m.start()] + str(old))
        pos = m.end()
    parts.append(out_line[pos:])
    return "".join(parts)


def _only_attribute_insertions(in_line: str, out_line: str) -> bool:
    sm = difflib.SequenceMatcher(None, in_line, out_line, autojunk=False)
    for op, _i1, _i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        if op != "insert":
            return False
        words = out_line[j1:j2].split()
        if not words or any(w not in ARG_ATTRS for w in words):
            return False
    return True


def strip_additions(inp: str, out: str) -> str:
    """``out`` without llnoalias's additions (see the module docstring)."""
    if inp == out:
        return out
    limit = max_id(inp)
    in_lines = inp.split("\n")
    out_lines = out.split("\n")
    # lines of the input that correspond one to one; the rest of out is appended
    body = len(in_lines) - 1 if inp.endswith("\n") else len(in_lines)
    if inp == "":
        body = 0
    appended = out_lines[body:]
    if appended and appended[-1] == "":
        appended = appended[:-1]
    new_md: dict[int, str] = {}
    for line in appended:
        m = _MD_LINE_RE.match(line.rstrip("\r"))
        if m is None or int(m.group(1)) <= limit:
            raise NotPreserved(f"appended line is not a new metadata node: {line!r}")
        new_md[int(m.group(1))] = m.group(2)
    old_lists: dict[int, str] = {}
    for line in in_lines:
        m = _MD_LINE_RE.match(line.strip().rstrip("\r"))
        if m is not None:
            old_lists[int(m.group(1))] = m.group(2)

    def _restore_line(a: str, b: str) -> str:
        if a != b:
            b = _restore_attachments(a, b, limit, new_md, old_lists)
            if a != b and _only_attribute_insertions(a, b):
                b = a
        return b

    if not inp.endswith("\n") and inp != "" and len(out_lines) > body:
        # the line ending written before the appended lines ("\r\n" leaves its "\r")
        last = out_lines[body - 1]
        if last.endswith("\r") and _restore_line(in_lines[body - 1], last[:-1]) == in_lines[body - 1]:
            out_lines[body - 1] = last[:-1]

    restored = [_restore_line(in_lines[k], out_lines[k]) for k in range(min(body, len(out_lines)))]
    text = "\n".join(restored)
    if inp.endswith("\n"):
        text += "\n"
    return text


def assert_preserved(inp: str, out: str) -> None:
    got = strip_additions(inp, out)
    if got != inp:
        for n, (a, b) in enumerate(zip(inp.split("\n"), got.split("\n"), strict=False), 1):
            if a != b:
                raise NotPreserved(f"line {n} changed:\n  in:  {a!r}\n  out: {b!r}")
        raise NotPreserved(f"length differs: {len(inp)} vs {len(got)} characters")
