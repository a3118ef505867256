"""The module scanner: one pass over the lines builds the ``Module``.

It checks the structure llnoalias relies on (balanced function bodies, no instruction
outside a function, every ``%value`` and ``@symbol`` used is defined, no value defined
twice) and reports the first violation as ``FILE:LINE:COL: error:``. Everything inside an
instruction beyond its result name and opcode is left for ``operands.parse``: an
instruction llnoalias does not understand is never an error.
"""

from __future__ import annotations

import bisect
import re
from array import array

from ..diagnostics import LLNoaliasError
from .lexer import bracket_balance, canon_name, split_comment, tokenize
from .model import Argument, Declaration, Function, Global, Instruction, Module
from .source import BOM, SourceFile
from .types import Type, TypeParser, type_of

_NAME = r'(?:"[^"]*"|[-a-zA-Z$._0-9]+)'
_RESULT_RE = re.compile(r"(%" + _NAME + r")\s*=\s*([a-z_]+)")
_OPCODE_RE = re.compile(r"[a-z_]+")
_BODY_LINE_RE = re.compile(
    r'[ \t]*(?:'
    r'(?P<blank>(?:;[^\n]*)?\r?$)'
    r'|(?P<end>\}[ \t\r]*(?:;[^\n]*)?$)'
    r'|(?P<dbg>\#)'
    r'|(?P<label>(?:"[^"]*"|[-a-zA-Z$._0-9]+):)(?=[ \t\r]*(?:;|$))'
    r'|(?:(?P<res>%(?:"[^"]*"|[-a-zA-Z$._0-9]+))[ \t]*=[ \t]*)?(?:(?:tail|musttail|notail)[ \t]+)?(?P<op>[a-z_][a-z_0-9]*)'
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
_BODY_ROW_RE = re.compile(
    r'(?P<pre>[ \t]*(?:(?P<res>%[-a-zA-Z$._0-9]+)[ \t]*=[ \t]*)?(?:(?:tail|musttail|notail)[ \t]+)?)'
    r'(?P<op>[a-z_][a-z_0-9]*)(?=[ \t\r,(\n])(?<!define)(?<!declare)'
    r'(?P<tail>(?:[^\n;]*[^\n;\[({, \t\r])?)[ \t\r]*\n'
    r'|[ \t]*(?:;[^\n]*)?\r?\n'
    r'|(?P<label>[ \t]*[-a-zA-Z$._0-9]+):[ \t\r]*(?:;[^\n]*)?\n'
    r'|(?P<dbg>[ \t]*\#[^\n]*)\n'
    r'|(?P<other>[^\n]*)\n',
)
_BODY_END_RE = re.compile(r"\}[ \t\r]*(?:;[^\n]*)?$", re.M)
_OPCODES: dict[str, str] = {}


def _intern_opcode(op: str) -> str:
    got = _OPCODES.get(op)
    if got is None:
        got = _OPCODES[op] = op
    return got


_REF_SCAN_RE = re.compile(r';[^\n]*|"[^"]*"|([%@](?:"[^"]*"|[-a-zA-Z$._0-9]+))')
_PLAIN_REF_RE = re.compile(r"[%@][-a-zA-Z$._0-9]+")
_MD_DEF_RE = re.compile(r"!(\d+)\s*=")
_MD_ID_RE = re.compile(r"!(\d+)")
_NAMED_MD_RE = re.compile(r"!([-a-zA-Z$._\\][-a-zA-Z$._0-9\\]*)\s*=")
_ATTR_GROUP_RE = re.compile(r"attributes\s+(#\d+)\s*=")
_TRIPLE_RE = re.compile(r'target\s+triple\s*=\s*"([^"]*)"')
_LAYOUT_RE = re.compile(r'target\s+datalayout\s*=\s*"([^"]*)"')
# A line that can only start a new top-level entity (never continue an open bracket).
_NEW_ENTITY_RE = re.compile(r"\s*(?:![-a-zA-Z$._0-9\\]+\s*=|@" + _NAME + r"\s*=|(?:define|declare|attributes)\b)")

TOP_LEVEL_WORDS = {"source_filename", "target", "module", "attributes", "declare", "define",
                   "uselistorder", "uselistorder_bb", "deplibs"}

INSTRUCTION_WORDS = {
    "ret", "br", "switch", "indirectbr", "invoke", "resume", "unreachable", "cleanupret", "catchret",
    "catchswitch", "callbr", "fneg", "add", "fadd", "sub", "fsub", "mul", "fmul", "udiv", "sdiv", "fdiv",
    "urem", "srem", "frem", "shl", "lshr", "ashr", "and", "or", "xor", "extractelement",
    "insertelement", "shufflevector", "extractvalue", "insertvalue", "alloca", "load", "store", "fence",
    "cmpxchg", "atomicrmw", "getelementptr", "trunc", "zext", "sext", "fptrunc", "fpext", "fptoui",
    "fptosi", "uitofp", "sitofp", "ptrtoint", "inttoptr", "bitcast", "addrspacecast", "icmp", "fcmp",
    "phi", "select", "freeze", "call", "tail", "musttail", "notail", "va_arg", "landingpad", "catchpad",
    "cleanuppad",
}

LINKAGES = {"private", "internal", "available_externally", "linkonce", "weak", "common", "appending",
            "extern_weak", "linkonce_odr", "weak_odr", "external"}

KERNEL_CCS = {"amdgpu_kernel", "ptx_kernel", "spir_kernel"}
KERNEL_CC_NUMBERS = {"71": "ptx_kernel", "91": "amdgpu_kernel", "76": "spir_kernel"}


class _Lines:
    """Line start offsets of a text, kept in an array (no copy of the lines themselves:
    a line's text is sliced when it is needed). ``line(j)`` keeps a trailing ``\r``."""

    def __init__(self, text: str) -> None:
        self.text = text
        starts = array("q", [0])
        append = starts.append
        find = text.find
        pos = find("\n")
        while pos >= 0:
            append(pos + 1)
            pos = find("\n", pos + 1)
        self.starts = starts
        self.n = len(starts)

    def line_of(self, offset: int) -> int:
        """Index of the line that holds ``offset``."""
        return bisect.bisect_right(self.starts, offset) - 1

    def code_end(self, j: int) -> int:
        """Offset just after the code of line ``j`` (before a comment and trailing blanks)."""
        return self.starts[j] + len(split_comment(self.line(j)).rstrip())

    def line(self, j: int) -> str:
        start = self.starts[j]
        end = self.starts[j + 1] - 1 if j + 1 < self.n else len(self.text)
        return self.text[start:end]


def _calling_convention(words: list[str]) -> str:
    """The calling convention among the words between ``define`` and the name."""
    cc = ""
    for k, word in enumerate(words):
        if word in KERNEL_CCS or (word.endswith("cc") and word != "cc") or word.startswith("amdgpu_") \
                or word.startswith("ptx_"):
            cc = word if cc == "" else cc
        elif word == "cc" and k + 1 < len(words):
            cc = KERNEL_CC_NUMBERS.get(words[k + 1], "cc " + words[k + 1])
    return cc


# The common function header: a plain name, and parameters that are each a simple type,
# attribute words (with a parenthesised argument at most) and a plain name.
_HEADER_RE = re.compile(
    r'(?P<pre>define\b[^"@;(]*(?:\([^"@;()]*\)[^"@;(]*)*)@(?P<name>[-a-zA-Z$._][-a-zA-Z$._0-9]*)'
    r'\((?P<args>[^()"]*(?:\([^()"]*\)[^()"]*)*)\)[^"();]*\Z')
_PARAM_RE = re.compile(r"(?:[^,()]|\([^()]*\))+")
_SIMPLE_TYPE = r"(?:ptr(?:[ \t]+addrspace\(\d+\))?|i\d+|half|bfloat|float|double)"
_SIMPLE_PARAM_RE = re.compile(
    r"[ \t\n]*(?P<type>" + _SIMPLE_TYPE + r"|<\d+[ \t]+x[ \t]+" + _SIMPLE_TYPE + r">)"
    r"(?P<attrs>(?:[ \t\n]+[a-z_][a-z_0-9]*(?:\([a-z_0-9 ,]*\))?(?:[ \t]+\d+)?)*)"
    r"[ \t\n]+(?P<name>%[-a-zA-Z$._0-9]+)[ \t\n]*")
# the words the lexer makes of such attributes (ints and parentheses are not words)
_ATTR_WORD_RE = re.compile(r"[a-z_][a-z_0-9]*")
_DIGIT_LETTER_RE = re.compile(r"[0-9][a-z_]")


def _blank_comment(line: str) -> str:
    """``line`` with its comment turned into blanks (same length)."""
    code = split_comment(line)
    return code if len(code) == len(line) else code + " " * (len(line) - len(code))


def _entry_number(fn: Function) -> int:
    """The number an unnamed entry block takes: the next after the numbered arguments."""
    return sum(1 for a in fn.args if not a.named or a.name[1:].isdigit())


def _error(src: SourceFile, offset: int, message: str) -> LLNoaliasError:
    return LLNoaliasError(message, src.location(offset))


def parse_module(src: SourceFile) -> Module:
    return _ModuleParser(src).run()


class _ModuleParser:
    def __init__(self, src: SourceFile) -> None:
        self.src = src
        self.mod = Module(src)
        self.pending_global_refs: list[tuple[str, int]] = []
        self.pending_local_refs: list[tuple[str, int]] = []
        self.pending_globals: dict[str, tuple[int, int, str]] = {}
        self.pending_plain: dict[str, list[tuple[int, int]]] = {}
        self.names: dict[str, str] = {}

    # ---------------------------------------------------------------- entry
    def run(self) -> Module:
        text = self.src.text
        if text.startswith("BC\xc0\xde") or text.startswith("\x42\x43\udcc0\udcde"):
            raise LLNoaliasError(f"{self.src.path}: this is LLVM bitcode; llnoalias reads textual IR "
                                 "(run llvm-dis first)")
        if "\x00" in text:
            raise _error(self.src, text.index("\x00"), "unexpected NUL byte: this is not textual LLVM IR")
        lines = _Lines(text)
        self.lines = lines
        self.src.adopt_line_starts(lines.starts)
        n = lines.n
        i = 0
        while i < n:
            raw = lines.line(i)
            start = lines.starts[i]
            if i == 0 and raw.startswith(BOM):
                raw = raw[1:]
                start += 1
            stripped = raw.strip()
            if not stripped or stripped[0] == ";":
                i += 1
                continue
            i = self._top_level(i, raw, start)
        self._resolve_pending()
        self._find_kernels()
        self._max_metadata_id()
        return self.mod

    # ------------------------------------------------------------ top level
    def _logical(self, i: int, code: str) -> tuple[str, int]:
        """Join following lines while brackets are open; returns (code, last line index).

        A bracket left open until the end of the file, or until a line that starts a new
        top-level entity, is an error (else it would swallow every line after it, and the
        lines llnoalias appends with them)."""
        lines = self.lines
        bal = bracket_balance(code)
        j = i
        while bal > 0:
            if j + 1 >= lines.n or _NEW_ENTITY_RE.match(lines.line(j + 1)):
                off = lines.starts[i] + len(code) - len(code.lstrip())
                raise _error(self.src, off, "unbalanced brackets: a '(', '[' or '{' opened here is never closed")
            j += 1
            more = split_comment(lines.line(j))
            code = code + "\n" + more
            bal += bracket_balance(more)
        return code, j

    def _top_level(self, i: int, raw: str, start: int) -> int:
        src = self.src
        code = split_comment(raw)
        lead = len(code) - len(code.lstrip())
        s = code.strip()
        off = start + lead
        first = s[0]
        lineno = i + 1
        if first == "@":
            code2, j = self._logical(i, code)
            self._global(code2, off, lineno)
            return j + 1
        if first == "!":
            code2, j = self._logical(i, code)
            m = _MD_DEF_RE.match(s)
            if m:
                mid = int(m.group(1))
                if mid in self.mod.metadata:
                    raise _error(src, off, f"redefinition of metadata '!{mid}'")
                self.mod.metadata[mid] = off
                if j != i:
                    self.mod.metadata_ends[mid] = self.lines.code_end(j)
                return j + 1
            m2 = _NAMED_MD_RE.match(s)
            if m2:
                end = self.lines.code_end(j)
                self.mod.named_metadata[m2.group(1)] = (off, end)
                return j + 1
            raise _error(src, off, "expected a metadata definition '!N = ...' or '!name = ...'")
        if first == "%":
            code2, j = self._logical(i, code)
            m = re.match(r"(%" + _NAME + r")\s*=\s*type\b", s)
            if m:
                toks = tokenize(code2)
                # tokens: %T = type <type>
                got = TypeParser(toks).parse(3) if len(toks) > 3 else None
                self.mod.named_types[canon_name(m.group(1))] = got[0] if got else Type("other", name="opaque")
                return j + 1
            if _RESULT_RE.match(s):
                raise _error(src, off, "instruction outside of a function")
            raise _error(src, off, "expected a top-level entity")
        if first in "$^":
            code2, j = self._logical(i, code)
            return j + 1
        if first == "}":
            raise _error(src, off, "unexpected '}' outside of a function")
        if first == "#":
            raise _error(src, off, "debug record outside of a function")
        m = _OPCODE_RE.match(s)
        word = m.group() if m else ""
        if word == "define":
            return self._function(i, raw, start, off)
        if word == "declare":
            code2, j = self._logical(i, code)
            self._declare(code2, off, lineno)
            return j + 1
        if word == "attributes":
            code2, j = self._logical(i, code)
            ma = _ATTR_GROUP_RE.match(s)
            if ma:
                end = self.lines.code_end(j)
                self.mod.attribute_groups[ma.group(1)] = (off, end)
            return j + 1
        if word == "target":
            mt = _TRIPLE_RE.match(s)
            if mt:
                self.mod.triple = mt.group(1)
            ml = _LAYOUT_RE.match(s)
            if ml:
                self.mod.datalayout = ml.group(1)
            return i + 1
        if word in TOP_LEVEL_WORDS:
            code2, j = self._logical(i, code)
            return j + 1
        if word in INSTRUCTION_WORDS:
            raise _error(src, off, "instruction outside of a function")
        raise _error(src, off, "expected a top-level entity (this does not look like LLVM IR)")

    def _global(self, code: str, off: int, lineno: int) -> None:
        toks = tokenize(code.strip(), off)
        name = canon_name(toks[0].text)
        if name in self.mod.globals or name in self.mod.functions_by_name:
            raise _error(self.src, off, f"redefinition of global '{name}'")
        if len(toks) < 3 or toks[1].text != "=":
            raise _error(self.src, off, f"expected '=' after '{name}'")
        pos = 2
        linkage = ""
        addrspace = 0
        kind = "variable"
        is_constant = False
        while pos < len(toks):
            t = toks[pos].text
            if t in LINKAGES:
                linkage = t
            elif t == "addrspace" and pos + 3 < len(toks) and toks[pos + 1].text == "(":
                try:
                    addrspace = int(toks[pos + 2].text)
                except ValueError:
                    addrspace = -1
                pos += 3
            elif t in ("global", "constant"):
                is_constant = t == "constant"
                pos += 1
                break
            elif t in ("alias", "ifunc"):
                kind = t
                pos += 1
                break
            pos += 1
        gty: Type | None = None
        has_init = False
        refs_globals = False
        if kind == "variable":
            got = TypeParser(toks).parse(pos)
            if got is not None:
                gty, pos = got
                # An initializer follows unless the next token is ',' (section, align...) or the end.
                has_init = pos < len(toks) and toks[pos].text != ","
                if has_init:
                    depth = 0
                    for t2 in toks[pos:]:
                        if t2.text in "([{<":
                            depth += 1
                        elif t2.text in ")]}>":
                            depth -= 1
                        elif t2.text == "," and depth == 0:
                            break
                        elif t2.kind == "global":
                            refs_globals = True
                            self.pending_global_refs.append((canon_name(t2.text), t2.start))
        else:
            for t2 in toks[pos:]:
                if t2.kind == "global":
                    self.pending_global_refs.append((canon_name(t2.text), t2.start))
        self.mod.globals[name] = Global(name, lineno, off, addrspace, gty, linkage, has_init, is_constant,
                                        refs_globals, kind)

    def _declare(self, code: str, off: int, lineno: int) -> None:
        toks = tokenize(code.strip(), off)
        for k, t in enumerate(toks):
            if t.kind == "global" and k + 1 < len(toks) and toks[k + 1].text == "(":
                ret = None
                # the return type is the longest type parse that ends right before the name
                for p in range(1, k):
                    got = TypeParser(toks).parse(p)
                    if got is not None and got[1] == k:
                        ret = got[0]
                        break
                dname = canon_name(t.text)
                if dname not in self.mod.declarations:
                    self.mod.declarations[dname] = Declaration(dname, lineno, ret)
                return
        raise _error(self.src, off, "expected a function name in 'declare'")

    # ------------------------------------------------------------- functions
    def _function(self, i: int, raw: str, start: int, off: int) -> int:
        src = self.src
        lines = self.lines
        n = lines.n
        # The header runs until the '{' that opens the body. Its comments are blanked,
        # not cut, so that an offset into it is an offset into the line's text: where an
        # attribute is added to a parameter on a later line.
        code = _blank_comment(raw)
        j = i
        bal = bracket_balance(code)
        while not (bal == 1 and code.rstrip().endswith("{")):
            if bal > 1 and code.rstrip().endswith("{"):
                break
            j += 1
            if j >= n:
                raise _error(src, off, "expected '{' to start the function body")
            more = _blank_comment(lines.line(j))
            ms = more.strip()
            if ms.startswith("define") or ms.startswith("declare"):
                raise _error(src, off, "expected '{' to start the function body")
            code = code + "\n" + more
            bal += bracket_balance(more)
        fn = self._header(code[: code.rstrip().rfind("{")], start, i + 1, off)
        if fn.name in self.mod.functions_by_name or fn.name in self.mod.globals:
            raise _error(src, off, f"redefinition of function '{fn.name}'")
        self.mod.functions.append(fn)
        self.mod.functions_by_name[fn.name] = fn
        return self._body(fn, j + 1, off)

    def _header(self, code: str, start: int, lineno: int, off: int) -> Function:
        fast = self._header_fast(code, start, lineno, off)
        if fast is not None:
            return fast
        toks = tokenize(code, start)
        name_idx = -1
        for k, t in enumerate(toks):
            if t.kind == "global" and k + 1 < len(toks) and toks[k + 1].text == "(":
                name_idx = k
                break
        if name_idx < 0:
            raise _error(self.src, off, "expected a function name in 'define'")
        cc = _calling_convention([t.text for t in toks[1:name_idx]])
        # arguments: split between the parens at depth 1
        k = name_idx + 2
        depth = 1
        arg_toks: list[list] = [[]]
        close_idx = -1
        while k < len(toks):
            t = toks[k]
            if t.text in "([{<":
                depth += 1
            elif t.text in ")]}>":
                depth -= 1
                if depth == 0:
                    close_idx = k
                    break
            if depth == 1 and t.text == ",":
                arg_toks.append([])
            else:
                arg_toks[-1].append(t)
            k += 1
        if close_idx < 0:
            raise _error(self.src, off, "expected ')' to close the argument list")
        args: list[Argument] = []
        implicit = 0
        for idx, atoks in enumerate(a for a in arg_toks if a):
            if atoks[0].text == "...":
                continue
            got = TypeParser(atoks).parse(0)
            aty = got[0] if got else Type("other")
            pos = got[1] if got else 1
            attrs: set[str] = set()
            named = atoks[-1].kind == "local" and len(atoks) > pos
            body = atoks[pos:-1] if named else atoks[pos:]
            prev = ""
            for t in body:
                if t.kind == "word":
                    attrs.add(t.text)
                elif t.kind == "string":
                    attrs.add(t.text)
                elif t.text == "(" and prev:
                    pass
                prev = t.text
            if named:
                aname = canon_name(atoks[-1].text)
                insert_at = atoks[-1].start
            else:
                aname = f"%{implicit}"
                implicit += 1
                insert_at = atoks[-1].end
            args.append(Argument(aname, idx, aty, attrs, insert_at, named))
        groups = tuple(t.text for t in toks[close_idx + 1:] if t.kind == "attrgrp")
        inline = tuple(t.text for t in toks[close_idx + 1:] if t.kind in ("word", "string"))
        fn = Function(canon_name(toks[name_idx].text), lineno, off, cc, args, toks[close_idx].end, groups, inline)
        fn.header_text = code
        fn.own_attrs_text = code[toks[close_idx].end - start:]
        fn.is_kernel = cc in KERNEL_CCS
        fn.source = self.src
        return fn

    def _header_fast(self, code: str, start: int, lineno: int, off: int) -> Function | None:
        """``_header`` for the common header, without tokenizing its parameters: each is
        a simple type, plain attribute words and a name. None for any other header."""
        m = _HEADER_RE.match(code)
        if m is None:
            return None
        args: list[Argument] = []
        params = m.group("args")
        base = start + m.start("args")
        if params.strip():
            pieces = list(_PARAM_RE.finditer(params))
            if sum(len(pm.group()) + 1 for pm in pieces) != len(params) + 1:
                return None  # something between the parameters that the pattern did not read
            for idx, pm in enumerate(pieces):
                am = _SIMPLE_PARAM_RE.fullmatch(pm.group())
                if am is None:
                    return None
                attr_text = am.group("attrs")
                if _DIGIT_LETTER_RE.search(attr_text):
                    return None  # '0x10', '16x': the lexer's tokens are not plain words there
                aty = type_of(am.group("type"))
                attrs = set(_ATTR_WORD_RE.findall(attr_text))
                args.append(Argument(am.group("name"), idx, aty, attrs, base + pm.start() + am.start("name")))
        close = start + m.end("args") + 1  # just after the ')'
        pre = tokenize(m.group("pre"))
        cc = _calling_convention([t.text for t in pre[1:]])
        tail = tokenize(code[m.end("args") + 1:])
        groups = tuple(t.text for t in tail if t.kind == "attrgrp")
        inline = tuple(t.text for t in tail if t.kind in ("word", "string"))
        fn = Function("@" + m.group("name"), lineno, off, cc, args, close, groups, inline)
        fn.header_text = code
        fn.own_attrs_text = code[close - start:]
        fn.is_kernel = cc in KERNEL_CCS
        fn.source = self.src
        return fn

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
        line), which then finds (and reports) the same as it would have."""
        text = self.src.text
        lines = self.lines
        starts = lines.starts
        if i >= lines.n:
            return None
        body_start = starts[i]
        nl = text.find("\n}", body_start - 1)
        if nl < 0:
            return None
        end_start = nl + 1
        if not _BODY_END_RE.match(text, end_start):
            return None
        rows = _BODY_ROW_RE.findall(text, body_start, end_start)
        end_line = i + len(rows)
        if end_line >= lines.n or starts[end_line] != end_start:
            return None
        defined: set[str] = {a.name for a in fn.args}
        implicit = _entry_number(fn)
        instrs = fn.instrs
        by_name = fn.by_name
        blocks = fn.blocks
        block_offsets = fn.block_offsets
        names = self.names
        opcodes = _OPCODES
        intern = _intern_opcode
        skip_to = -1  # the rows of lines the line-by-line scanner has read
        for (pre, res, op, tail, label, dbg, other), start in zip(rows, starts[i:end_line], strict=True):
            if op:
                if start < skip_to:
                    continue
                if not blocks:
                    blocks.append(f"%{implicit}")
                    block_offsets.append(start)
                    defined.add(f"%{implicit}")
                opstart = start + len(pre)
                opcode = opcodes.get(op) or intern(op)
                end = opstart + len(op) + len(tail)
                if res:
                    name = names.setdefault(res, res)
                    if name in defined:
                        return self._undo_fast(fn)
                    defined.add(name)
                    inst = by_name[name] = Instruction(name, opcode, start, end, fn, opstart)
                else:
                    inst = Instruction(None, opcode, start, end, fn, opstart)
                instrs.append(inst)
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
            elif other:
                nxt, ended = self._scan_lines(fn, lines.line_of(start), def_off, defined, body_start, True)
                if ended:
                    return nxt
                skip_to = starts[nxt] if nxt < lines.n else len(text)
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
                    body_start: int | None = None, single: bool = False) -> tuple[int, bool]:
        """The general scanner: one regex match per line reads the label, result name and
        opcode; continued instructions, quoted names and errors are handled here. It
        reads a body from line ``i`` to its '}', or with ``single`` one line (with the
        lines that continue it) of a body that starts at ``body_start``, whose names so
        far are ``defined``. Returns the next line and whether the body ended."""
        src = self.src
        text = src.text
        lines = self.lines
        starts = lines.starts
        n = lines.n
        tlen = len(text)
        find = text.find
        if defined is None:
            defined = {a.name for a in fn.args}
        implicit = _entry_number(fn)
        if body_start is None:
            body_start = starts[i] if i < n else tlen
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
            eol = starts[i + 1] - 1 if i + 1 < n else tlen
            m = line_match(text, start, eol)
            if m is None:
                off = start + len(text[start:eol]) - len(text[start:eol].lstrip())
                raise _error(src, off, "expected an instruction")
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
                    raise _error(src, m.start("label"), f"redefinition of label '{label}'")
                defined.add(label)
                blocks.append(label)
                block_offsets.append(start)
                i += 1
                if single:
                    return i, False
                continue
            if kind == "bad":
                off = m.start("bad")
                word = m.group("bad")
                if word.startswith("define") or word.startswith("declare"):
                    raise _error(src, def_off, "expected '}' to close the function body before this definition")
                raise _error(src, off, "expected an instruction")
            # an instruction
            if not blocks:
                blocks.append(f"%{implicit}")
                block_offsets.append(start)
                defined.add(f"%{implicit}")
            res = m.group("res")
            op = m.group("op")
            opcode = opcodes.get(op) or intern(op)
            name: str | None = None
            if res is not None:
                rname = canon_name(res) if res[1] == '"' else res
                # one string per distinct name: %5 recurs in every function
                rname = names.setdefault(rname, rname)
                if rname in defined:
                    raise _error(src, m.start("res"), f"redefinition of value '{rname}'")
                defined.add(rname)
                name = rname
            # where the code ends: before a comment and trailing blanks
            semi = find(";", start, eol)
            if semi >= 0:
                code_end = start + len(split_comment(text[start:eol]))
            else:
                code_end = eol
            while code_end > start and text[code_end - 1] in " \t\r":
                code_end -= 1
            j = i
            # An instruction continues on the next line only after an opening bracket or a
            # comma (switch tables, hand-split calls and phis).
            last = text[code_end - 1]
            if last in "[({," and (last == "," or bracket_balance(text[start:code_end]) > 0):
                bal = bracket_balance(text[start:code_end])
                tail = last
                while (bal > 0 or tail == ",") and j + 1 < n:
                    more = split_comment(lines.line(j + 1))
                    ms = more.strip()
                    if ms == "}" and not more.startswith(" ") or not ms and bal <= 0:
                        break
                    j += 1
                    bal += bracket_balance(more)
                    if ms:
                        tail = ms[-1]
                if j != i:
                    code_end = lines.code_end(j)
            inst = Instruction(name, opcode, start, code_end, fn, m.start("op"))
            instrs.append(inst)
            if name is not None:
                by_name[name] = inst
            i = j + 1
            if single:
                return i, False
        raise _error(src, def_off, "expected '}' to close the function body before the end of the file")

    def _check_refs(self, start: int, end: int, defined: set[str]) -> None:
        """Every %value and @symbol used in the body [start, end) must be defined (one
        regex pass over the body; positions are looked up only for an error)."""
        text = self.src.text
        if text.find('%"', start, end) < 0 and text.find('@"', start, end) < 0:
            # No quoted name: every plain-looking name (comments and strings included, a
            # superset of the uses) is checked at once, and only a miss is looked at closely.
            plain = set(_PLAIN_REF_RE.findall(text, start, end))
            plain.difference_update(defined)
            named_types = self.mod.named_types
            if all(p[0] == "@" or p in named_types for p in plain):
                for p in plain:
                    # confirmed by the exact scan at the end, only if still undefined
                    self.pending_plain.setdefault(p, []).append((start, end))
                return
        refs = set(_REF_SCAN_RE.findall(text, start, end))
        refs.discard("")
        for ref in refs:
            name = canon_name(ref)
            if ref[0] == "%":
                if name not in defined:
                    self.pending_local_refs.append((name, self._ref_position(ref, start, end)))
            elif name not in self.pending_globals:
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

    def _resolve_pending(self) -> None:
        mod = self.mod
        for ref, pos in self.pending_local_refs:
            if ref not in mod.named_types:
                raise _error(self.src, pos, f"use of undefined value '{ref}'")
        for ref, pos in self.pending_global_refs:
            if not mod.is_defined_symbol(ref):
                raise _error(self.src, pos, f"use of undefined value '{ref}'")
        undefined: list[tuple[int, str]] = []
        for name, (start, end, ref) in self.pending_globals.items():
            if not mod.is_defined_symbol(name):
                undefined.append((self._ref_position(ref, start, end), name))
                break
        for name, spans in self.pending_plain.items():
            if mod.is_defined_symbol(name):
                continue
            # seen by the plain scan of a body, which also reads comments and strings:
            # an error only where the exact scan finds it used
            for start, end in spans:
                used = self._exact_globals(start, end).get(name)
                if used is not None:
                    undefined.append((self._ref_position(used, start, end), name))
                    break
        if undefined:
            pos, name = min(undefined)
            raise _error(self.src, pos, f"use of undefined value '{name}'")

    def _find_kernels(self) -> None:
        mod = self.mod
        span = mod.named_metadata.get("nvvm.annotations")
        if span is None:
            return
        text = mod.text[span[0]:span[1]]
        for mid_s in _MD_ID_RE.findall(text[text.find("=") + 1:]):
            node_text = mod.metadata_text(int(mid_s))
            if node_text is None or '!"kernel"' not in node_text:
                continue
            for tok in tokenize(node_text):
                if tok.kind == "global":
                    fn = mod.functions_by_name.get(canon_name(tok.text))
                    if fn is not None:
                        fn.is_kernel = True
                    break

    def _max_metadata_id(self) -> None:
        # Every '!N' anywhere (strings included: a superset only raises the bound).
        best = -1
        for m in _MD_ID_RE.finditer(self.src.text):
            v = int(m.group(1))
            if v > best:
                best = v
        self.mod.max_metadata_id = best
