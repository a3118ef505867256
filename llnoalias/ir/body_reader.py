"""The function body reader: labels, result names and opcodes of every instruction, and
the check that every ``%value`` and ``@symbol`` a body uses is defined. The common lines are
read by one ``findall``; the rest line by line. Everything inside an instruction beyond its
result name and opcode is left for ``operands.parse``."""

from __future__ import annotations

import re

from .. import compiled, shortcuts
from .lazyre import lazy
from .lexer import BARE_NAME, bracket_balance, canon_name, split_comment
from .lines import LineReader, Lines, entry_number, error_at
from .model import Function, Instruction
from .numbering import NO_VALUE, TERMINATORS, Numbering, next_number, number_of, produces_value
from .shapes import LineShape

#: the compiled reader (``_body_reader.c``), or None: the Python code here
_cscan = compiled.load("body_reader")

_BODY_LINE_RE = lazy(
    r'[ \t]*(?:'
    r'(?P<blank>(?:;[^\n]*)?\r?$)'
    r'|(?P<end>\}[ \t\r]*(?:;[^\n]*)?$)'
    r'|(?P<dbg>\#)'
    r'|(?P<label>(?:"[^"]*"|' + BARE_NAME + r'):)(?=[ \t\r]*(?:;|$))'
    r'|(?:(?P<res>%(?:"[^"]*"|' + BARE_NAME + r'))[ \t]*=[ \t]*)?(?:(?:tail|musttail|notail)[ \t]+)?(?P<op>[a-z_][a-z_0-9]*)'
    r'(?=[ \t\r,(]|$)(?<!define)(?<!declare)'
    r'|(?P<bad>\S+))',
    re.M,
)
# One row per line of a function body, for the fast path of ``_body``: every line
# matches exactly one alternative (the last takes anything), so row k is line k. Only
# the common shapes are read here; a line in ``other`` goes (with the lines that continue
# it) to the line-by-line scanner, which handles (or reports) everything else. The
# instruction comes first because it is the common row; no blank, label or debug line
# can match it.
_BODY_ROW_RE = lazy(
    r'(?P<pre>[ \t]*(?:(?P<res>%' + BARE_NAME + r')[ \t]*=[ \t]*)?(?:(?:tail|musttail|notail)[ \t]+)?)'
    r'(?P<op>[a-z_][a-z_0-9]*)(?=[ \t\r,(\n])(?<!define)(?<!declare)'
    r'(?P<tail>(?:[^\n;]*[^\n;\[({, \t\r])?)[ \t\r]*\n'
    r'|[ \t]*(?:;[^\n]*)?\r?\n'
    r'|(?P<label>[ \t]*' + BARE_NAME + r'):[ \t\r]*(?:;[^\n]*)?\n'
    r'|(?P<dbg>[ \t]*\#[^\n]*)\n'
    r'|(?P<other>[^\n]*)\n',
)
_BODY_END_RE = lazy(r"\}[ \t\r]*(?:;[^\n]*)?$", re.M)
#: what may follow a '}' for ``_BODY_END_RE`` to match it alone: a line feed, the text's end
_LINE_END = ("\n", "")
_OPCODES: dict[str, str] = {}


def _intern_opcode(op: str) -> str:
    got = _OPCODES.get(op)
    if got is None:
        got = _OPCODES[op] = op
    return got

_OP_RE = lazy(r"[a-z_]+")
#: the terminators a body that opens and closes on one line may be (one instruction: its last)
_LONE_TERMINATORS = frozenset(("ret", "unreachable", "br"))


def _closing_brace(code: str) -> int:
    """The index of the first '}' at depth 0 outside strings in ``code``, or -1."""
    depth = 0
    in_str = False
    for k, ch in enumerate(code):
        if ch == '"':
            in_str = not in_str
        elif in_str:
            continue
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if ch == "}" and depth == 0:
                return k
            depth -= 1
    return -1


#: what a line that continues the instruction before it starts with (no instruction, label or
#: '}' starts so): a string, an opening or closing bracket, a comma
_GOES_ON = frozenset('"[(<{,)]>')

_REF_SCAN_RE = lazy(r';[^\n]*|"[^"]*"|([%@](?:"[^"]*"|' + BARE_NAME + r'))')
_PLAIN_REF_RE = lazy(r"[%@]" + BARE_NAME)


class BodyReader(LineReader):
    """Reads the instructions of one body (after its header)."""

    def _body(self, fn: Function, i: int, def_off: int) -> int:
        """Record the instructions of a body starting at line ``i``; returns the line after
        its closing '}'."""
        done = self._body_fast(fn, i, def_off)
        return done if done is not None else self._body_lines(fn, i, def_off)

    def _body_fast(self, fn: Function, i: int, def_off: int) -> int | None:
        """The common case in one ``findall``: the lines up to the first line that is a
        '}' in column 0 are read from one row each when they are blank or comment lines,
        unquoted labels, debug records or one-line instructions without a ';' (no
        comment, and no string that holds one); any other line (and the lines that
        continue it) goes to the line-by-line scanner. Returns the line after the
        function's '}', or None (nothing recorded) when the body needs the line-by-line
        scanner from its start (a name defined twice, an unclosed debug record, no '}'
        line), which then finds (and reports) the same as it would have. A function whose
        define line was read before but for its name (``fn.arg_shape``) tries
        ``_body_plain`` first. None for every body where the shortcut ``body-fast`` is off."""
        if not shortcuts.ON["body-fast"]:
            return None
        shape = fn.arg_shape
        text = self.src.text
        lines = self.lines
        if i >= lines.n:
            return None
        starts = lines.starts
        body_start = starts[i]
        nl = text.find("\n}", body_start - 1)  # (``_body_end``, inlined)
        if nl < 0 or text[nl + 2:nl + 3] not in _LINE_END and not _BODY_END_RE.match(text, nl + 1):
            return None
        end_start = nl + 1
        if shape is not None and _cscan is not None:
            done = _body_plain(self, fn, i, shape, body_start, end_start)
            if done is not None:
                return done
        if _cscan is not None:
            return self._body_compiled(fn, i, def_off, body_start, end_start)
        rows = _BODY_ROW_RE.findall(text, body_start, end_start)
        end_line = i + len(rows)
        if end_line >= lines.n or starts[end_line] != end_start:
            return None
        defined: set[str] = {a.name for a in fn.args}
        num = Numbering(entry_number(fn))
        number = num.next  # (num's fields, kept here while the loop reads rows)
        after_term = False
        # the numbered names read since ``number`` was last brought up to date: it is needed
        # only for an unnamed value or block, which compilers' output hardly ever has
        numbered: list[str] = []
        instrs = fn.instrs
        by_name = fn.by_name
        blocks = fn.blocks
        block_offsets = fn.block_offsets
        names = self.names
        opcodes = _OPCODES
        intern = _intern_opcode
        skip_to = -1  # the rows of lines the line-by-line scanner has read
        for (pre, res, op, tail, label, dbg, other), start in zip(rows, starts[i:end_line], strict=True):
            if op and '"' in tail and tail.count('"') & 1:
                op = ""  # a string that goes on to the next line: the line-by-line scanner reads it
                other = tail
            if op:
                if start < skip_to:
                    continue
                if not blocks or after_term:
                    # an unnamed block: the entry, or one after a terminator
                    if numbered:
                        number = next_number(numbered, number)
                    bname = f"%{number}"
                    number += 1
                    after_term = False
                    bname = names.setdefault(bname, bname)
                    if bname in defined:
                        return self._undo_fast(fn)
                    blocks.append(bname)
                    block_offsets.append(start)
                    defined.add(bname)
                opstart = start + len(pre)
                opcode = opcodes.get(op) or intern(op)
                end = opstart + len(op) + len(tail)
                if res:
                    name = names.setdefault(res, res)
                    if name in defined:
                        return self._undo_fast(fn)
                    defined.add(name)
                    if "0" <= res[1] <= "9":
                        numbered.append(res)
                    inst = by_name[name] = Instruction(name, opcode, start, end, fn, opstart)
                elif opcode in NO_VALUE or not produces_value(opcode, tail):
                    inst = Instruction(None, opcode, start, end, fn, opstart)
                else:
                    # an unnamed value: it takes the next number, as in LLVM's parser
                    if numbered:
                        number = next_number(numbered, number)
                    name = f"%{number}"
                    number += 1
                    name = names.setdefault(name, name)
                    if name in defined:
                        return self._undo_fast(fn)
                    defined.add(name)
                    inst = by_name[name] = Instruction(name, opcode, start, end, fn, opstart)
                instrs.append(inst)
                if opcode in TERMINATORS:
                    after_term = True
            elif start < skip_to:
                continue
            elif dbg:
                code = dbg if ";" not in dbg else split_comment(dbg)
                if bracket_balance(code) > 0:
                    return self._undo_fast(fn)
            elif label:
                lname = "%" + label.lstrip(" \t")
                lname = names.setdefault(lname, lname)
                if lname in defined:
                    return self._undo_fast(fn)
                defined.add(lname)
                blocks.append(lname)
                block_offsets.append(start)
                after_term = False
                if "0" <= lname[1] <= "9":
                    numbered.append(lname)
            elif other:
                if numbered:
                    number = next_number(numbered, number)
                num.next, num.after_term = number, after_term
                nxt, ended = self._scan_lines(fn, lines.line_of(start), def_off, defined, body_start, True, num)
                if ended:
                    return nxt
                number, after_term = num.next, num.after_term
                skip_to = starts[nxt] if nxt < lines.n else len(text)
        if not blocks:
            fn.blocks = ["entry"]
        self._check_refs(body_start, end_start, defined)
        return end_line + 1

    def _body_end(self, i: int) -> int | None:
        """Where the first line from line ``i`` on that is a '}' in column 0 starts (the end
        of a body that begins at line ``i``, as the fast path finds it), or None."""
        if i >= self.lines.n:
            return None
        text = self.src.text
        nl = text.find("\n}", self.lines.starts[i] - 1)
        if nl < 0 or text[nl + 2:nl + 3] not in _LINE_END and not _BODY_END_RE.match(text, nl + 1):
            return None
        return nl + 1

    def _body_compiled(self, fn: Function, i: int, def_off: int, body_start: int, end_start: int) -> int | None:
        """``_body_fast`` with the compiled loop: ``_body_reader.body_rows`` reads the plain rows
        and stops at each debug record or other line, which is read here as there."""
        assert _cscan is not None
        text = self.src.text
        lines = self.lines
        starts = lines.starts
        end_line = i + text.count("\n", body_start, end_start)
        if end_line >= lines.n or starts[end_line] != end_start:
            return None
        defined: set[str] = {a.name for a in fn.args}
        first = entry_number(fn)  # the number an unnamed entry block takes
        # (the body's lists themselves: the properties would first read a deferred body, and
        # this is that reading)
        instrs, by_name, blocks, block_offsets = fn._instrs, fn._by_name, fn._blocks, fn._block_offsets
        names = self.names
        rows = _cscan.body_rows
        pos, line, after = body_start, i, False
        while pos < end_start:
            status, pos, line, first, after_term = rows(
                text, pos, end_start, line, Instruction, fn, defined, names, _OPCODES, by_name, instrs,
                blocks, block_offsets, first, after)
            after = bool(after_term)
            if status == 2:
                return self._undo_fast(fn)
            if status == 0:
                break
            m = _BODY_ROW_RE.match(text, pos, end_start)
            if m is None or m.group("op") or m.group("label") or not (m.group("dbg") or m.group("other")):
                return self._undo_fast(fn)  # not what the compiled loop leaves: read it line by line
            dbg = m.group("dbg")
            if dbg:
                code = dbg if ";" not in dbg else split_comment(dbg)
                if bracket_balance(code) > 0:
                    return self._undo_fast(fn)
                line += 1
                pos = starts[line]
                continue
            num = Numbering(first)
            num.after_term = after
            nxt, ended = self._scan_lines(fn, line, def_off, defined, body_start, True, num)
            if ended:
                return nxt
            first, after = num.next, num.after_term
            line = nxt
            pos = starts[nxt] if nxt < lines.n else len(text)
        if not blocks:
            fn.blocks = ["entry"]
        self._check_refs(body_start, end_start, defined)
        return end_line + 1

    @staticmethod
    def _undo_fast(fn: Function) -> None:
        fn.instrs.clear()
        fn.by_name.clear()
        fn.blocks.clear()
        fn.block_offsets.clear()
        return None

    def _body_lines(self, fn: Function, i: int, def_off: int) -> int:
        return self._scan_lines(fn, i, def_off)[0]

    def _scan_lines(self, fn: Function, i: int, def_off: int, defined: set[str] | None = None,
                    body_start: int | None = None, single: bool = False,
                    num: Numbering | None = None, first: int | None = None) -> tuple[int, bool]:
        """The general scanner: one regex match per line reads the label, result name and
        opcode; continued instructions, quoted names and errors are handled here. It
        reads a body from line ``i`` to its '}', or with ``single`` one line (with the
        lines that continue it) of a body that starts at ``body_start``, whose names so
        far are ``defined`` and whose numbering stands at ``num``; ``first``: where on line
        ``i`` the body starts (after the '{' of a define that goes on). Returns the next line
        and whether the body ended."""
        src = self.src
        text = src.text
        lines = self.lines
        starts = lines.starts
        n = lines.n
        tlen = len(text)
        find = text.find
        if defined is None:
            defined = {a.name for a in fn.args}
        if num is None:
            num = Numbering(entry_number(fn))
        if body_start is None:
            body_start = first if first is not None else starts[i] if i < n else tlen
        instrs = fn.instrs
        by_name = fn.by_name
        blocks = fn.blocks
        block_offsets = fn.block_offsets
        line_match = _BODY_LINE_RE.match
        intern = _intern_opcode
        opcodes = _OPCODES
        names = self.names
        while i < n:
            start = starts[i]
            if first is not None:
                start, first = first, None
            eol = starts[i + 1] - 1 if i + 1 < n else tlen
            m = line_match(text, start, eol)
            if m is None:
                off = start + len(text[start:eol]) - len(text[start:eol].lstrip())
                raise error_at(src, off, "expected an instruction")
            kind = m.lastgroup
            if kind == "blank":
                i += 1
                if single:
                    return i, False
                continue
            if kind == "end":
                fn.blocks = blocks or ["entry"]
                self._check_refs(body_start, start, defined)
                return i + 1, True
            if kind == "dbg":
                # a debug record: #dbg_value(...), possibly continued over lines
                code = split_comment(text[start:eol])
                _, j = self._logical(i, code) if bracket_balance(code) > 0 else (code, i)
                i = j + 1
                if single:
                    return i, False
                continue
            if kind == "label":
                label = canon_name("%" + m.group("label")[:-1])
                label = names.setdefault(label, label)
                if label in defined:
                    raise error_at(src, m.start("label"), f"redefinition of label '{label}'")
                defined.add(label)
                blocks.append(label)
                block_offsets.append(start)
                num.after_term = False
                number = number_of(label)
                if number >= num.next:
                    num.next = number + 1
                i += 1
                if single:
                    return i, False
                continue
            if kind == "bad":
                off = m.start("bad")
                word = m.group("bad")
                if word.startswith("define") or word.startswith("declare"):
                    raise error_at(src, def_off, "expected '}' to close the function body before this definition")
                if word[0] in _GOES_ON and instrs and instrs[-1].function is fn and (
                        not block_offsets or block_offsets[-1] <= instrs[-1].start):
                    # the instruction before goes on here (its asm string, its switch table)
                    j, end = _continued(lines, i, start, start + len(split_comment(text[start:eol]).rstrip()))
                    instrs[-1]._len = end - instrs[-1].start
                    i = j + 1
                    if single:
                        return i, False
                    continue
                raise error_at(src, off, "expected an instruction")
            # an instruction
            if not blocks or num.after_term:
                # an unnamed block: the entry, or one after a terminator
                bname = f"%{num.next}"
                bname = names.setdefault(bname, bname)
                if bname in defined:
                    raise error_at(src, start, f"redefinition of value '{bname}' (the number of this unnamed block)")
                num.next += 1
                num.after_term = False
                blocks.append(bname)
                block_offsets.append(start)
                defined.add(bname)
            res = m.group("res")
            op = m.group("op")
            opcode = opcodes.get(op) or intern(op)
            name: str | None = None
            if res is not None:
                rname = canon_name(res) if res[1] == '"' else res
                # one string per distinct name: %5 recurs in every function
                rname = names.setdefault(rname, rname)
                if rname in defined:
                    raise error_at(src, m.start("res"), f"redefinition of value '{rname}'")
                defined.add(rname)
                name = rname
                number = number_of(rname)
                if number >= num.next:
                    num.next = number + 1
            # where the code ends: before a comment and trailing blanks
            semi = find(";", start, eol)
            if semi >= 0:
                code_end = start + len(split_comment(text[start:eol]))
            else:
                code_end = eol
            while code_end > start and text[code_end - 1] in " \t\r":
                code_end -= 1
            j, code_end = _continued(lines, i, start, code_end)
            if name is None and opcode not in NO_VALUE and produces_value(opcode, text[m.end("op"):code_end]):
                # an unnamed value: it takes the next number, as in LLVM's parser
                name = f"%{num.next}"
                name = names.setdefault(name, name)
                if name in defined:
                    raise error_at(src, m.start("op"), f"redefinition of value '{name}' (the number of this unnamed value)")
                num.next += 1
                defined.add(name)
            if opcode in TERMINATORS:
                num.after_term = True
            inst = Instruction(name, opcode, start, code_end, fn, m.start("op"))
            instrs.append(inst)
            if name is not None:
                by_name[name] = inst
            i = j + 1
            if single:
                return i, False
        raise error_at(src, def_off, "expected '}' to close the function body before the end of the file")

    def _check_refs(self, start: int, end: int, defined: set[str]) -> None:
        """Every %value and @symbol used in the body [start, end) must be defined (one
        regex pass over the body; positions are looked up only for an error)."""
        text = self.src.text
        # No quoted name: every plain-looking name (comments and strings included, a
        # superset of the uses) is checked at once, and only a miss is looked at closely.
        plain: set[str] | None
        if _cscan is not None:
            plain = _cscan.undefined_refs(text, start, end, defined)  # None: a quoted name
            if plain is not None and not plain:
                return  # every name the body uses is defined in it
        elif text.find('%"', start, end) < 0 and text.find('@"', start, end) < 0:
            plain = set(_PLAIN_REF_RE.findall(text, start, end))
            plain.difference_update(defined)
        else:
            plain = None
        if plain is not None:
            named_types = self.mod.named_types
            if all(p[0] == "@" or p in named_types for p in plain):
                for p in plain:
                    # confirmed by the exact scan at the end, only if still undefined
                    self.pending_plain.setdefault(p, []).append((start, end))
                return
        # (in the order of their first use: which undefined value is reported must not
        # depend on the order of a set)
        refs = dict.fromkeys(_REF_SCAN_RE.findall(text, start, end))
        refs.pop("", None)
        for ref in refs:
            name = canon_name(ref)
            if ref[0] == "%":
                if name not in defined:
                    self.pending_local_refs.append((name, self._ref_position(ref, start, end)))
            else:
                seen = self.pending_globals.get(name)
                if seen is None or start < seen[0]:  # (bodies read on demand come in any order)
                    self.pending_globals[name] = (start, end, ref)

    def _exact_globals(self, start: int, end: int) -> dict[str, str]:
        """The @symbols that the body [start, end) uses, by canonical name."""
        refs = set(_REF_SCAN_RE.findall(self.src.text, start, end))
        return {canon_name(r): r for r in refs if r.startswith("@")}

    def _ref_position(self, ref: str, start: int, end: int) -> int:
        for m in _REF_SCAN_RE.finditer(self.src.text, start, end):
            if m.group(1) == ref:
                return m.start(1)
        return start


def _body_plain(self: BodyReader, fn: Function, i: int, shape: LineShape, body_start: int,
                end_start: int) -> int | None:
    """``BodyReader._body_compiled`` for the common body, from line ``i`` (at ``body_start``)
    to the '}' line at ``end_start`` (``_body_end``), of a function whose define line was read
    before but for its name (``shape``: its arguments' names and entry number): read by one
    call of the compiled loop when its rows are all plain, its references checked by one
    more. None (nothing recorded) for any other body."""
    assert _cscan is not None
    text = self.src.text
    lines = self.lines
    nlines = text.count("\n", body_start, end_start)
    end_line = i + nlines
    if end_line >= lines.n or lines.starts[end_line] != end_start:
        return None
    defined = set(shape.names)
    if _cscan.body_rows(text, body_start, end_start, i, Instruction, fn, defined, self.names, _OPCODES,
                        fn._by_name, fn._instrs, fn._blocks, fn._block_offsets, shape.entry, False)[0] != 0:
        return self._undo_fast(fn)
    if not fn._blocks:
        fn.blocks = ["entry"]
    refs = _cscan.undefined_refs(text, body_start, end_start, defined)
    if refs is None or refs:
        self._check_refs(body_start, end_start, defined)
    return end_line + 1


def _continued(lines: Lines, i: int, start: int, code_end: int) -> tuple[int, int]:
    """The last line of the instruction whose code on line ``i`` runs from ``start`` to
    ``code_end``, and where its code ends there. It goes on to the next line inside a
    string (an inline-asm string of several lines: LLVM's strings hold line breaks),
    after an opening bracket or a comma (switch tables, hand-split calls and phis), and
    onto a line that starts with what only continues an instruction (``_GOES_ON``: a
    string, a bracket, a comma)."""
    text = lines.text
    n = lines.n
    first = text[start:code_end]
    in_str = first.count('"') % 2 == 1
    bal = bracket_balance(first)
    tail = first[-1:] if first else ""
    j = i
    while j + 1 < n:
        raw = lines.line(j + 1)
        if in_str:
            # the string goes on: to its closing quote, then code again
            quote = raw.find('"')
            j += 1
            if quote < 0:
                code_end = lines.starts[j] + len(raw.rstrip("\r"))
                continue
            rest = split_comment(raw[quote + 1:])
            in_str = rest.count('"') % 2 == 1
            bal += bracket_balance(rest)
            code = raw[:quote + 1] + rest
            code_end = lines.starts[j] + len(code.rstrip())
            tail = code.rstrip()[-1:]
            continue
        more = split_comment(raw)
        ms = more.strip()
        if bal > 0 or tail == ",":
            if ms == "}" and not more.startswith(" ") or not ms and bal <= 0:
                break
        elif not ms or ms[0] not in _GOES_ON:
            break
        j += 1
        bal += bracket_balance(more)
        if more.count('"') % 2 == 1:
            in_str = True
        if ms:
            tail = ms[-1]
            code_end = lines.code_end(j) if not in_str else lines.starts[j] + len(raw.rstrip("\r"))
    return j, code_end


def body_inline(self: BodyReader, fn: Function, j: int, pos: int, def_off: int) -> int:
    """The body of a function whose define's last line ``j`` goes on after the '{' at
    ``pos``: the first instruction there and the rest on the lines below, or the whole
    body there (``define i32 @a() { ret i32 0 }``: read when it is one terminator).
    Returns the line after the body."""
    src = self.src
    text = src.text
    lines = self.lines
    eol = lines.starts[j + 1] - 1 if j + 1 < lines.n else len(text)
    code = split_comment(text[pos:eol])
    close = _closing_brace(code)
    if close < 0:
        return self._scan_lines(fn, j, def_off, first=pos)[0]
    if code[close + 1:].strip():
        raise error_at(src, pos + close + 1 + len(code[close + 1:]) - len(code[close + 1:].lstrip()),
                       "llnoalias reads nothing after the '}' that closes a function body on its line")
    seg = code[:close].rstrip()
    s = seg.lstrip()
    lead = pos + len(seg) - len(s)
    if not s:
        raise error_at(src, pos + close, "function body requires at least one basic block")
    m = _OP_RE.match(s)
    op = m.group() if m else ""
    if op not in _LONE_TERMINATORS:
        raise error_at(src, lead, "llnoalias reads a body on the line of its '{' only when it is one "
                       "terminator ('{ ret i32 0 }'): put the instructions on lines of their own")
    defined = {a.name for a in fn.args}
    block = f"%{entry_number(fn)}"
    block = self.names.setdefault(block, block)
    defined.add(block)
    fn.blocks.append(block)
    fn.block_offsets.append(lead)
    fn.instrs.append(Instruction(None, _OPCODES.get(op) or _intern_opcode(op), lead, lead + len(s), fn, lead))
    self._check_refs(lead, lead + len(s), defined)
    return j + 1


__all__ = ["BodyReader", "body_inline"]
