"""LLVM optimization remarks (YAML) for every access a run looked at (design section 8).

The format is the one ``opt -pass-remarks-output=FILE`` writes, so LLVM's own tools
(``llvm-remarkutil``, ``opt-viewer``) read it::

    --- !Passed
    Pass:            llnoalias
    Name:            Tagged
    DebugLoc:        { File: 'k.hip', Line: 12, Column: 3 }
    Function:        kernel
    Args:
      - String:          'load tagged in '
      - Domain:          llnoalias.lds
      ...
    ...

One document per access and domain: ``!Passed`` when the access got scopes, ``!Missed``
with the reason when it did not. ``DebugLoc`` comes from the instruction's ``!dbg``
attachment (``!DILocation`` -> its scope's ``file:`` -> ``!DIFile``) when there is one.
"""

from __future__ import annotations

import re

from ..ir.model import Module
from .record import AccessRecord, Report

PASS_NAME = "llnoalias"

_PLAIN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.$]*\Z")
_HEX_ESCAPE_RE = re.compile(r"\\([0-9A-Fa-f]{2})")
_FIELD_RE = {k: re.compile(r"\b" + k + r":\s*(-?\d+)") for k in ("line", "column")}
_REF_RE = {k: re.compile(r"\b" + k + r":\s*!(\d+)") for k in ("scope", "file")}
_STR_FIELD_RE = re.compile(r'\bfilename:\s*"((?:[^"\\]|\\.)*)"')


def _printable(text: str) -> str:
    """Text a YAML reader takes: one line, no control characters, no lone surrogates."""
    out = []
    for ch in text:
        o = ord(ch)
        if ch in "\r\n\t":
            out.append(" ")
        elif o < 0x20 or o == 0x7F or 0xD800 <= o <= 0xDFFF or o in (0xFEFF, 0xFFFE, 0xFFFF):
            out.append("?")
        else:
            out.append(ch)
    return re.sub(r" {2,}", " ", "".join(out))


def quote(text: str) -> str:
    """A YAML scalar as LLVM writes it: plain when safe, else single-quoted ('' inside)."""
    text = _printable(text)
    if _PLAIN_RE.match(text) and text.lower() not in ("true", "false", "null", "yes", "no", "on", "off", "y", "n"):
        return text
    return "'" + text.replace("'", "''") + "'"


def squote(text: str) -> str:
    """Always single-quoted, the way LLVM writes ``String`` arguments."""
    return "'" + _printable(text).replace("'", "''") + "'"


def _key(name: str) -> str:
    # LLVM's YAML writer pads "Key:" to 17 columns.
    return f"{name}:" + " " * max(16 - len(name), 1)


def _unescape_md(text: str) -> str:
    """``\\22`` style escapes of a metadata string back to characters."""
    if "\\" not in text:
        return text
    raw = _HEX_ESCAPE_RE.sub(lambda m: chr(int(m.group(1), 16)), text)
    try:
        return raw.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return raw


def function_name(name: str) -> str:
    """``@"a b"`` -> ``a b``; ``@\\01foo`` mangling escape dropped, as LLVM does."""
    body = name[1:] if name[:1] in "@%" else name
    if len(body) >= 2 and body[0] == '"' and body[-1] == '"':
        body = _unescape_md(body[1:-1])
    return body[1:] if body.startswith("\x01") else body


class DebugLocations:
    """Resolve ``!dbg !N`` ids to (file, line, column) through the module's metadata."""

    def __init__(self, module: Module | None) -> None:
        self.module = module
        self._cache: dict[int, tuple[str, int, int] | None] = {}

    def _text(self, mid: int) -> str:
        if self.module is None:
            return ""
        return self.module.metadata_text(mid) or ""

    def _file_of_scope(self, mid: int) -> str | None:
        seen: set[int] = set()
        cur: int | None = mid
        while cur is not None and cur not in seen and len(seen) < 64:
            seen.add(cur)
            text = self._text(cur)
            if "DIFile(" in text:
                m = _STR_FIELD_RE.search(text)
                return _unescape_md(m.group(1)) if m else None
            mf = _REF_RE["file"].search(text)
            if mf is not None:
                ftext = self._text(int(mf.group(1)))
                m = _STR_FIELD_RE.search(ftext)
                if m is not None:
                    return _unescape_md(m.group(1))
            ms = _REF_RE["scope"].search(text)
            cur = int(ms.group(1)) if ms else None
        return None

    def resolve(self, dbg: int | None) -> tuple[str, int, int] | None:
        if dbg is None or self.module is None:
            return None
        if dbg in self._cache:
            return self._cache[dbg]
        result: tuple[str, int, int] | None = None
        text = self._text(dbg)
        if "DILocation(" in text:
            ml = _FIELD_RE["line"].search(text)
            mc = _FIELD_RE["column"].search(text)
            ms = _REF_RE["scope"].search(text)
            fname = self._file_of_scope(int(ms.group(1))) if ms else None
            if fname is not None:
                result = (fname, int(ml.group(1)) if ml else 0, int(mc.group(1)) if mc else 0)
        self._cache[dbg] = result
        return result


def _args(a: AccessRecord) -> list[tuple[str, str]]:
    what = a.opcode
    if a.tagged:
        args = [("String", f"{what} tagged in "), ("Domain", a.domain), ("String", " with scope ")]
        for i, s in enumerate(a.scopes):
            if i:
                args.append(("String", ", "))
            args.append(("Scope", s))
    else:
        args = [("String", f"{what} not tagged in "), ("Domain", a.domain), ("String", ": "),
                ("Reason", a.reason or "no reason recorded")]
        if a.code:
            args += [("String", " ["), ("Code", a.code), ("String", "]")]
    if a.range_note:
        args += [("String", "; byte range: "), ("Reason", a.range_note)]
    args += [("String", " (IR line "), ("IRLine", str(a.line)), ("String", ": "),
             ("Instruction", a.text), ("String", ")")]
    return args


def remark(a: AccessRecord, locs: DebugLocations) -> str:
    lines = [f"--- !{'Passed' if a.tagged else 'Missed'}",
             _key("Pass") + PASS_NAME,
             _key("Name") + ("Tagged" if a.tagged else "Untagged")]
    loc = locs.resolve(a.dbg)
    if loc is not None:
        lines.append(_key("DebugLoc") + f"{{ File: {quote(loc[0])}, Line: {loc[1]}, Column: {loc[2]} }}")
    lines.append(_key("Function") + quote(function_name(a.function)))
    lines.append("Args:")
    for k, v in _args(a):
        value = v if k == "IRLine" else (squote(v) if k in ("String", "Reason", "Instruction") else quote(v))
        lines.append("  - " + _key(k) + value)
    lines.append("...")
    return "\n".join(lines) + "\n"


def remarks_yaml(report: Report, module: Module | None = None) -> str:
    """Every access of ``report`` as an LLVM remark; ``module`` resolves ``!dbg``."""
    locs = DebugLocations(module)
    return "".join(remark(a, locs) for a in report.accesses)
