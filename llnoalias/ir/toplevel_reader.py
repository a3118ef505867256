"""The top-level reader: globals, declarations, named types, metadata nodes and named
metadata, attribute groups, the target lines; function definitions are handed to the
header and body readers. At the end it resolves the references every reader collected and
finds the kernels ``!nvvm.annotations`` names."""

from __future__ import annotations

import re

from .. import shortcuts
from .body_reader import BodyReader, body_inline
from .datalayout import layout_error
from .header_reader import _NAME_RE, HeaderReader
from .lazyre import lazy
from .lexer import bracket_balance, canon_name, split_comment, tokenize
from .limits import MAX_DIGITS, too_long
from .lines import NAME, blank_comment, error_at
from .model import Argument, Declaration, Function, Global
from .operands import CONSTEXPR_OPS
from .shapes import LineShape
from .types import Type, TypeParser

_RESULT_RE = lazy(r"(%" + NAME + r")\s*=\s*([a-z_]+)")
_OPCODE_RE = lazy(r"[a-z_]+")
_MD_DEF_RE = lazy(r"!(\d+)\s*=")
_MD_ID_RE = lazy(r"!(\d+)")
_NAMED_MD_RE = lazy(r"!([-a-zA-Z$._\\][-a-zA-Z$._0-9\\]*)\s*=")
_ATTR_GROUP_RE = lazy(r"attributes\s+(#\d+)\s*=")
_TRIPLE_RE = lazy(r'target\s+triple\s*=\s*"([^"]*)"')
_LAYOUT_RE = lazy(r'target\s+datalayout\s*=\s*"([^"]*)"')

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


#: what a line after a global starts with when it is a top-level entity of its own
_NO_GLOBAL_GOES_ON = frozenset("@!%$^#}")

#: the instruction words no constant starts with (the others, ``getelementptr``, ``bitcast``...,
#: may start a global's initializer on its next line)
_NO_CONSTANT_WORDS = frozenset(INSTRUCTION_WORDS - CONSTEXPR_OPS)

def body_brace(code: str) -> int:
    """The index in ``code`` (a define's text, its comments blanked) of the '{' that opens the
    body: the first at depth 0 after the parameters' ')'; -1 when it is not there yet."""
    toks = tokenize(code)
    k = next((k for k, t in enumerate(toks) if t.kind == "global" and k + 1 < len(toks) and toks[k + 1].text == "("),
             -1)
    if k < 0:
        return -1
    depth = 0
    for t in toks[k + 1:]:
        text = t.text
        if text == "{" and depth == 0:
            return t.start
        if text in "([{<":
            depth += 1
        elif text in ")]}>":
            depth -= 1
    return -1


class BodyMismatch(Exception):
    """A body read on demand ended elsewhere than the top-level pass found its '}' (a
    line that begins with '}' inside the body): the module must be read in one pass."""


class TopLevelReader(HeaderReader, BodyReader):
    """Reads the module's top-level entities, one at a time."""

    #: leave function bodies to be read when first asked for (``parse_module_deferred``)
    defer = False

    def _top_level(self, i: int, raw: str, start: int) -> int:
        src = self.src
        code = split_comment(raw)
        lead = len(code) - len(code.lstrip())
        s = code.strip()
        off = start + lead
        first = s[0]
        lineno = i + 1
        if first == "@":
            code2, j = self._global_lines(i, code)
            self._global(code2, off, lineno)
            return j + 1
        if first == "!":
            code2, j = self._logical(i, code)
            m = _MD_DEF_RE.match(s)
            if m:
                if too_long(m.group(1)):
                    raise error_at(src, off + 1, f"number of {len(m.group(1))} digits: longer than llnoalias "
                                   f"reads ({MAX_DIGITS} digits)")
                mid = int(m.group(1))
                if mid in self.mod.metadata:
                    raise error_at(src, off, f"redefinition of metadata '!{mid}'")
                self.mod.metadata[mid] = off
                if j != i:
                    self.mod.metadata_ends[mid] = self.lines.code_end(j)
                return j + 1
            m2 = _NAMED_MD_RE.match(s)
            if m2:
                end = self.lines.code_end(j)
                self.mod.named_metadata[m2.group(1)] = (off, end)
                return j + 1
            raise error_at(src, off, "expected a metadata definition '!N = ...' or '!name = ...'")
        if first == "%":
            code2, j = self._logical(i, code)
            m = re.match(r"(%" + NAME + r")\s*=\s*type\b", s)
            if m:
                toks = tokenize(code2)
                # tokens: %T = type <type>
                got = TypeParser(toks).parse(3) if len(toks) > 3 else None
                self.mod.named_types[canon_name(m.group(1))] = got[0] if got else Type("other", name="opaque")
                return j + 1
            if _RESULT_RE.match(s):
                raise error_at(src, off, "instruction outside of a function")
            raise error_at(src, off, "expected a top-level entity")
        if first in "$^":
            code2, j = self._logical(i, code)
            return j + 1
        if first == "}":
            raise error_at(src, off, "unexpected '}' outside of a function")
        if first == "#":
            raise error_at(src, off, "debug record outside of a function")
        m = _OPCODE_RE.match(s)
        word = m.group() if m else ""
        if word == "define":
            if not shortcuts.ON["define-line"]:  # (the shortcut off: every header's lines joined)
                return self._function_lines(i, raw, start, off)
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
                bad = layout_error(ml.group(1))
                if bad is not None:
                    raise error_at(src, off + ml.start(1) + bad[0], f"invalid data layout: {bad[1]}")
                self.mod.datalayout = ml.group(1)
            return i + 1
        if word in TOP_LEVEL_WORDS:
            code2, j = self._logical(i, code)
            return j + 1
        if word in INSTRUCTION_WORDS:
            raise error_at(src, off, "instruction outside of a function")
        raise error_at(src, off, "expected a top-level entity (this does not look like LLVM IR)")

    def _global_lines(self, i: int, code: str) -> tuple[str, int]:
        """``_logical`` for a global, which also goes on to the lines after it that start no
        top-level entity (``@a = addrspace(1) constant [4 x bfloat]`` with its initializer on
        the next line: LLVM reads tokens, not lines). A blank or comment line ends it."""
        code, j = self._logical(i, code)
        lines = self.lines
        while j + 1 < lines.n:
            more = split_comment(lines.line(j + 1))
            ms = more.strip()
            if not ms or ms[0] in _NO_GLOBAL_GOES_ON:
                break
            word = _OPCODE_RE.match(ms)
            if word is not None and (word.group() in TOP_LEVEL_WORDS or word.group() in _NO_CONSTANT_WORDS):
                break  # (an instruction outside a function is the error it is below)
            more, j = self._logical(j + 1, more)
            code = code + "\n" + more
        return code, j

    def _global(self, code: str, off: int, lineno: int) -> None:
        toks = tokenize(code.strip(), off)
        name = canon_name(toks[0].text)
        if name in self.mod.globals or name in self.mod.functions_by_name:
            raise error_at(self.src, off, f"redefinition of global '{name}'")
        if len(toks) < 3 or toks[1].text != "=":
            raise error_at(self.src, off, f"expected '=' after '{name}'")
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
        raise error_at(self.src, off, "expected a function name in 'declare'")

    # ------------------------------------------------------------- functions
    def _function(self, i: int, raw: str, start: int, off: int) -> int:
        at = raw.find("@")
        lp = raw.find("(", at) if at >= 0 else -1
        if lp >= 0:
            key = raw[:at] + raw[lp:]
            shape = self.line_shapes.get(key)
            if shape is not None and _NAME_RE.fullmatch(raw, at + 1, lp):
                # a define line whose text but for its name was read before: what the lines
                # below found for it then, with this name (a plain name holds no bracket,
                # brace, ';' or blank: every test below reads the same)
                if type(shape) is tuple:
                    shape = self._line_shape(key, shape)
                assert isinstance(shape, LineShape)
                return self._add_shaped(shape, raw, at, lp, start, i + 1, off)
        code = raw.rstrip()
        if code.endswith("{") and ";" not in raw and bracket_balance(code) >= 1:
            # the common header: on one line, with no comment or string, and the '{' that
            # opens the body at its end (the loop below reads the same, one line)
            code = code[:-1]
            fn = self._header_fast(code, start, i + 1, off)
            if fn is None:
                fn = self._header_tokens(code, start, i + 1, off)
            elif lp >= 0:
                self._remember_line(raw, at, lp, len(code), fn)
            fn.header_text = None  # (the source's text from ``start`` on: not kept twice)
            return self._add_function(fn, i + 1, off)
        return self._function_lines(i, raw, start, off)

    def _add_shaped(self, shape: LineShape, raw: str, at: int, lp: int, start: int, lineno: int, off: int) -> int:
        """``_add_function`` for a define line of a known ``shape`` (``line_shapes``),
        its name at ``raw[at:lp]``: the function as ``_header_fast`` reads it."""
        base = start + lp + 1
        name = raw[at:lp]
        mod = self.mod
        functions_by_name = mod.functions_by_name
        if name in functions_by_name or name in mod.globals:
            raise error_at(self.src, off, f"redefinition of function '{name}'")
        fn = Function(name, lineno, off, shape.cc,
                      [Argument(aname, idx, aty, attrs, base + a) for aname, idx, aty, attrs, a in shape.arg_rows],
                      base + shape.close_rel, shape.groups, shape.inline, None, None, None, shape.is_kernel, None,
                      shape.own_attrs_text, self.src)
        fn.arg_shape = shape
        # (``_add_function``, inlined: one call fewer per function of a known shape)
        mod.functions.append(fn)
        functions_by_name[name] = fn
        if self.defer:
            return self._defer_body(fn, lineno, off)
        done = self._body_fast(fn, lineno, off)
        return done if done is not None else self._body_lines(fn, lineno, off)

    def _function_lines(self, i: int, raw: str, start: int, off: int) -> int:
        """``_function`` for any header: its lines are joined until the '{' that opens the body."""
        src = self.src
        lines = self.lines
        n = lines.n
        # The header runs until the '{' that opens the body. Its comments are blanked,
        # not cut, so that an offset into it is an offset into the line's text: where an
        # attribute is added to a parameter on a later line.
        code = blank_comment(raw)
        j = i
        bal = bracket_balance(code)
        more = code
        while not (bal == 1 and code.rstrip().endswith("{")):
            if bal > 1 and code.rstrip().endswith("{"):
                break
            if "{" in more:
                brace = body_brace(code)
                if brace >= 0:
                    # the body starts on this line, after its '{' (``define i32 @a() { ret i32 0 }``)
                    return self._add_function_inline(self._header(code[:brace], start, i + 1, off), j,
                                                      start + brace + 1, off)
            j += 1
            if j >= n:
                raise error_at(src, off, "expected '{' to start the function body")
            more = blank_comment(lines.line(j))
            ms = more.strip()
            if ms.startswith("define") or ms.startswith("declare"):
                raise error_at(src, off, "expected '{' to start the function body")
            code = code + "\n" + more
            bal += bracket_balance(more)
        fn = self._header(code[: code.rstrip().rfind("{")], start, i + 1, off)
        return self._add_function(fn, j + 1, off)

    def _add_function_inline(self, fn: Function, j: int, pos: int, off: int) -> int:
        """``_add_function`` for a body that starts on line ``j`` (its define's last line) at
        ``pos``, after the '{': read now (``_body_inline``)."""
        mod = self.mod
        if fn.name in mod.functions_by_name or fn.name in mod.globals:
            raise error_at(self.src, off, f"redefinition of function '{fn.name}'")
        mod.functions.append(fn)
        mod.functions_by_name[fn.name] = fn
        return body_inline(self, fn, j, pos, off)

    def _add_function(self, fn: Function, i: int, off: int) -> int:
        """Add ``fn`` (its header read, defined at ``off``) and read its body from line ``i``;
        returns the line after the body."""
        mod = self.mod
        if fn.name in mod.functions_by_name or fn.name in mod.globals:
            raise error_at(self.src, off, f"redefinition of function '{fn.name}'")
        mod.functions.append(fn)
        mod.functions_by_name[fn.name] = fn
        if self.defer:
            return self._defer_body(fn, i, off)
        done = self._body_fast(fn, i, off)  # (``_body``)
        return done if done is not None else self._body_lines(fn, i, off)

    def _defer_body(self, fn: Function, i: int, def_off: int) -> int:
        """Leave the body from line ``i`` to be read when first asked for; returns the line
        after its '}' (found as ``_body_fast`` finds it). A body with no such line is read
        now."""
        end_start = self._body_end(i)
        starts = self.lines.starts
        end_line = -1 if end_start is None else i + self.src.text.count("\n", starts[i], end_start)
        if end_line < 0 or end_line >= self.lines.n or starts[end_line] != end_start:
            return self._body(fn, i, def_off)
        nxt = end_line + 1

        def read() -> None:
            if self._body(fn, i, def_off) != nxt:
                raise BodyMismatch(fn.name)

        fn.set_pending(read, nxt - i)
        return nxt

    def _resolve_pending(self) -> None:
        """Raise the first use of an undefined value in file order, if there is one."""
        mod = self.mod
        undefined: list[tuple[int, str]] = []
        for ref, pos in self.pending_local_refs:
            if ref not in mod.named_types:
                undefined.append((pos, ref))
        for ref, pos in self.pending_global_refs:
            if not mod.is_defined_symbol(ref):
                undefined.append((pos, ref))
        for name, (start, end, ref) in self.pending_globals.items():
            if not mod.is_defined_symbol(name):
                undefined.append((self._ref_position(ref, start, end), name))
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
            raise error_at(self.src, pos, f"use of undefined value '{name}'")

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
        # (findall and one max over the ints: no match object per '!N')
        # (a number too long for int() in code is an error before this; one in a string or a
        # comment is text)
        # (a text without a '!' has none: one search for it, not the pattern's scan)
        text = self.src.text
        self.mod.max_metadata_id = max((int(d) for d in _MD_ID_RE.findall(text) if not too_long(d)),
                                       default=-1) if "!" in text else -1


__all__ = ["INSTRUCTION_WORDS", "LINKAGES", "TOP_LEVEL_WORDS", "TopLevelReader"]
