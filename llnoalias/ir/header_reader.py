"""The function header reader: a ``define`` line's calling convention, name, parameters
(types, attributes, names, and where an attribute would be inserted) and attribute groups.
The common header is read by one pattern; any other by the tokenizer."""

from __future__ import annotations

from .. import compiled, shortcuts
from .lazyre import lazy
from .lexer import BARE_NAME, NAME_CHAR, NAME_START, canon_name, tokenize
from .lines import LineReader, entry_number, error_at
from .model import Argument, Function
from .numbering import number_of
from .shapes import LineShape
from .source import SourceFile
from .types import Type, TypeParser, type_of

#: the compiled reader (``_body_reader.c``: ``header_line``), or None: ``_header_fast`` reads every header
_cscan = compiled.load("body_reader")

KERNEL_CCS = {"amdgpu_kernel", "ptx_kernel", "spir_kernel"}
KERNEL_CC_NUMBERS = {"71": "ptx_kernel", "91": "amdgpu_kernel", "76": "spir_kernel"}


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
_HEADER_RE = lazy(
    r'(?P<pre>define\b[^"@;(]*(?:\([^"@;()]*\)[^"@;(]*)*)@(?P<name>' + NAME_START + NAME_CHAR + r'*)'
    r'\((?P<args>[^()"]*(?:\([^()"]*\)[^()"]*)*)\)[^"();]*\Z')
# A header's text before the name and after the parameters when it holds only plain
# lowercase words (and attribute groups after): whitespace splits it into the lexer's
# tokens (no word here can read as a hex number, an int, a label or a comdat).
_PLAIN_WORD = r"(?![su]?0x)[a-z_][a-z_0-9]*(?![-a-zA-Z$._0-9:])"
_PLAIN_PRE_RE = lazy(r"define(?:[ \t]+" + _PLAIN_WORD + r")*[ \t]*\Z")
_PLAIN_TAIL_RE = lazy(r"(?:[ \t]+(?:" + _PLAIN_WORD + r"|\#\d+(?![-a-zA-Z$._0-9:])))*[ \t]*\{?[ \t]*\Z")
_PARAM_RE = lazy(r"(?:[^,()]+|\([^()]*\))+")
_SIMPLE_TYPE = r"(?:ptr(?:[ \t]+addrspace\(\d+\))?|i\d+|half|bfloat|float|double)"
_SIMPLE_PARAM_RE = lazy(
    r"[ \t\n]*(?P<type>" + _SIMPLE_TYPE + r"|<\d+[ \t]+x[ \t]+" + _SIMPLE_TYPE + r">)"
    r"(?P<attrs>(?:[ \t\n]+[a-z_][a-z_0-9]*(?:\([a-z_0-9 ,]*\))?(?:[ \t]+\d+)?)*)"
    r"[ \t\n]+(?P<name>%" + BARE_NAME + r")[ \t\n]*")
# the words the lexer makes of such attributes (ints and parentheses are not words)
_ATTR_WORD_RE = lazy(r"[a-z_][a-z_0-9]*")
_DIGIT_LETTER_RE = lazy(r"[0-9][a-z_]")


class HeaderReader(LineReader):
    """Reads one function header into a ``Function`` (no body yet)."""

    def __init__(self, src: SourceFile) -> None:
        super().__init__(src)
        #: per define line's text without its name (what is before the '@', then from the
        #: '(' on) that ``_header_fast`` read in this module, its
        #: ``LineShape`` (``TopLevelReader._function`` reads the next such line by it), or,
        #: until a second line asks for it, the first function read from it, its '(' and its
        #: code's end (``_remember_line``, ``_line_shape``)
        self.line_shapes: dict[str, LineShape | tuple[Function, int, int]] = {}

    def _remember_line(self, raw: str, at: int, lp: int, code_len: int, fn: Function) -> None:
        """Keep the shape of ``raw``, a one-line header (its '@' at ``at``, its first '(' after
        that at ``lp``, its code ``code_len`` long: what is before the '{') that
        ``_header_fast`` read as ``fn``: the function, whose shape is made
        only when a second line of it comes (``_line_shape``; most lines of a module whose
        kernels differ in their parameters' names have none). Nothing is kept where the
        shortcut ``line-shapes`` is off."""
        if not shortcuts.ON["line-shapes"]:
            return
        shapes = self.line_shapes
        if len(shapes) >= _SEEN_LIMIT:
            shapes.clear()
        shapes[raw[:at] + raw[lp:]] = (fn, lp, code_len)

    def _line_shape(self, key: str, first: tuple[Function, int, int]) -> LineShape:
        """The ``LineShape`` of the define line ``key`` (``line_shapes``) from ``first``, the
        function read from that line's first instance, its '(' and its code's end (kept there
        by ``_remember_line``): what ``_header_fast`` read from it, offsets from the '('."""
        fn, lp, code_len = first
        text = self.src.text
        base = text.rfind("\n", 0, fn.start) + 1 + lp + 1  # (just after the '(')
        params = [(a.name, a.type, a.attrs, a.insert_at - base) for a in fn.args]
        shape = LineShape(fn.cc, params, fn.fn_attr_groups, fn.fn_attrs_inline, fn.header_end - base,
                          code_len - lp, fn.own_attrs_text, fn.cc in KERNEL_CCS, entry_number(fn))
        self.line_shapes[key] = shape
        return shape

    def _header_line(self, code: str, start: int, lineno: int, off: int) -> Function | None:
        """``_header_fast`` for a header ``code`` that the compiled ``header_line`` splits into
        the parts ``_HEADER_RE`` finds, and whose text before the name, each parameter's text
        before its name and text after the parameters ``_header_fast`` read before
        (``_PRE_SEEN``, ``_PIECES_SEEN``, ``_TAIL_SEEN``: texts its pattern reads): the same
        function, without the pattern or a memo of its whole text (a kernel's parameters'
        names are its own). None for any other header."""
        assert _cscan is not None
        # (the arguments made there, each from its piece's type and attributes)
        got = _cscan.header_line(code, _PIECES_SEEN, Argument, start)
        if got is None:
            return None
        at, lp, close, args = got
        cc = _PRE_SEEN.get(code[:at])
        if cc is None:
            return None
        tail = code[close + 1:]
        attrs_of = _TAIL_SEEN.get(tail)
        if attrs_of is None:
            return None
        return Function(code[at:lp], lineno, off, cc, args, start + close + 1, attrs_of[0], attrs_of[1], None, None,
                        None, cc in KERNEL_CCS, code, tail, self.src)

    def _header(self, code: str, start: int, lineno: int, off: int) -> Function:
        fast = self._header_fast(code, start, lineno, off)
        if fast is not None:
            return fast
        return self._header_tokens(code, start, lineno, off)

    def _header_tokens(self, code: str, start: int, lineno: int, off: int) -> Function:
        """``_header`` by the tokenizer: any header."""
        toks = tokenize(code, start)
        name_idx = -1
        for k, t in enumerate(toks):
            if t.kind == "global" and k + 1 < len(toks) and toks[k + 1].text == "(":
                name_idx = k
                break
        if name_idx < 0:
            raise error_at(self.src, off, "expected a function name in 'define'")
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
            raise error_at(self.src, off, "expected ')' to close the argument list")
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
                number = number_of(aname)
                if number >= implicit:  # a numbered argument: the next unnamed one follows it
                    implicit = number + 1
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
        a simple type, plain attribute words and a name. None for any other header.

        What it reads from the text before the name, the parameters and the text after
        them is kept per distinct text (``_PRE_SEEN`` ...): the kernels of a generated
        module share a few signatures, and reading one is most of a small function's cost.
        A header whose text but for its name was read before (``_SHAPES_SEEN``) is not
        matched again: its name is checked, and the rest is what that reading found. With
        the compiled reader, a header whose parts were all read before (but its names) is
        read by ``_header_line``. None for every header where the shortcut ``header-fast`` is
        off."""
        if not shortcuts.ON["header-fast"]:
            return None
        if _cscan is not None:
            fn = self._header_line(code, start, lineno, off)
            if fn is not None:
                return fn
        at = code.find("@")
        if at >= 0:
            lp = code.find("(", at)
            shape = _SHAPES_SEEN.get(code[:at] + code[lp:]) if lp >= 0 else None
            if shape is not None and _NAME_RE.fullmatch(code, at + 1, lp):
                # (the pattern's text before the name holds no '@', and the name no '(': the
                # match would find the name at [at + 1, lp) and the same groups around it)
                s_cc, s_params, s_groups, s_inline, close_rel = shape
                s_base = start + lp + 1
                s_close = lp + close_rel
                return Function(code[at:lp], lineno, off, s_cc,
                                [Argument(name, idx, aty, attrs, s_base + a)
                                 for idx, (name, aty, attrs, a) in enumerate(s_params)],
                                start + s_close + 1, s_groups, s_inline, None, None, None, s_cc in KERNEL_CCS, code,
                                code[s_close + 1:], self.src)
        m = _HEADER_RE.match(code)
        if m is None:
            return None
        params = m.group("args")
        if params in _PARAMS_SEEN:
            got = _PARAMS_SEEN[params]
        else:
            got = _params(params)
            if len(_PARAMS_SEEN) >= _SEEN_LIMIT:
                _PARAMS_SEEN.clear()
            _PARAMS_SEEN[params] = got
        if got is None:
            return None
        args_at, close_at = m.span("args")
        base = start + args_at
        # the attribute sets of one parameter text are shared, as its names and types are
        # (never changed in place: an argument's attributes are read, and edits go to the text)
        args = [Argument(name, idx, aty, attrs, base + at) for idx, (name, aty, attrs, at) in enumerate(got)]
        close = start + close_at + 1  # just after the ')'
        pre_text = m.group("pre")
        cc = _PRE_SEEN.get(pre_text)
        if cc is None:
            if _PLAIN_PRE_RE.match(pre_text):
                cc = _calling_convention(pre_text.split()[1:])  # the lexer's tokens, all words
            else:
                cc = _calling_convention([t.text for t in tokenize(pre_text)[1:]])
            if len(_PRE_SEEN) >= _SEEN_LIMIT:
                _PRE_SEEN.clear()
            _PRE_SEEN[pre_text] = cc
        tail_text = code[close_at + 1:]
        attrs_of = _TAIL_SEEN.get(tail_text)
        if attrs_of is None:
            attrs_of = _tail(tail_text)
            if len(_TAIL_SEEN) >= _SEEN_LIMIT:
                _TAIL_SEEN.clear()
            _TAIL_SEEN[tail_text] = attrs_of
        groups, inline = attrs_of
        name_at, name_end = m.span("name")
        if len(_SHAPES_SEEN) >= _SEEN_LIMIT:
            _SHAPES_SEEN.clear()
        _SHAPES_SEEN[code[:name_at - 1] + code[name_end:]] = (cc, got, groups, inline, close_at - name_end)
        return Function("@" + m.group("name"), lineno, off, cc, args, close, groups, inline, None, None, None,
                        cc in KERNEL_CCS, code, tail_text, self.src)


#: one entry per distinct text a header was read from (``HeaderReader._header_fast``);
#: emptied when one holds ``_SEEN_LIMIT`` (a module whose every signature differs)
_SEEN_LIMIT = 4096
_PARAMS_SEEN: dict[str, list[tuple[str, Type, set[str], int]] | None] = {}
_PRE_SEEN: dict[str, str] = {}
_TAIL_SEEN: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
#: per common header's text without its name (what is before the '@', then from the '('
#: on), what ``_header_fast`` read from it: the calling convention, the parameters, the
#: attribute groups, the inline attributes, and where the ')' is from the '('
_SHAPES_SEEN: dict[str, tuple[str, list[tuple[str, Type, set[str], int]], tuple[str, ...], tuple[str, ...], int]] = {}
#: per simple parameter's text before its name ('%'), its type and attribute words
#: (``_params``; the sets are shared, as ``_PARAMS_SEEN``'s are)
_PIECES_SEEN: dict[str, tuple[Type, set[str]]] = {}
#: what follows a simple parameter's type and attributes: its name (``_SIMPLE_PARAM_RE``'s end)
_PARAM_NAME_RE = lazy(r"(%" + BARE_NAME + r")[ \t\n]*")
#: a plain function name (``_HEADER_RE``'s ``name``)
_NAME_RE = lazy(NAME_START + NAME_CHAR + r"*")


def _params(params: str) -> list[tuple[str, Type, set[str], int]] | None:
    """The parameters of a common header's parameter text: per parameter its name, type,
    attribute words and the offset of its name in ``params``; None when one is not
    simple (the tokenizer reads the header)."""
    out: list[tuple[str, Type, set[str], int]] = []
    if not params.strip():
        return out
    pieces = list(_PARAM_RE.finditer(params))
    if sum(len(pm.group()) + 1 for pm in pieces) != len(params) + 1:
        return None  # something between the parameters that the pattern did not read
    for pm in pieces:
        piece = pm.group()
        # A simple parameter's one '%' begins its name (its type and attribute words hold
        # none), so what the pattern reads before the name is the same for every name: the
        # type and attributes of a text before a '%' seen before are looked up
        # (``_PIECES_SEEN``), and only the name is matched.
        cut = piece.find("%")
        if cut > 0:
            known = _PIECES_SEEN.get(piece[:cut])
            if known is not None:
                nm = _PARAM_NAME_RE.fullmatch(piece, cut)
                if nm is not None:
                    out.append((nm.group(1), known[0], known[1], pm.start() + cut))
                    continue
        am = _SIMPLE_PARAM_RE.fullmatch(piece)
        if am is None:
            return None
        attr_text = am.group("attrs")
        if _DIGIT_LETTER_RE.search(attr_text):
            return None  # '0x10', '16x': the lexer's tokens are not plain words there
        ty, attrs, name_at = type_of(am.group("type")), set(_ATTR_WORD_RE.findall(attr_text)), am.start("name")
        out.append((am.group("name"), ty, attrs, pm.start() + name_at))
        if len(_PIECES_SEEN) >= _SEEN_LIMIT:
            _PIECES_SEEN.clear()
        _PIECES_SEEN[piece[:name_at]] = (ty, attrs)
    return out


def _tail(tail_text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The attribute groups and inline attributes of a header's text after its parameters."""
    if _PLAIN_TAIL_RE.match(tail_text):
        # words and attribute groups only: the lexer's tokens, without the lexer
        words = tail_text.split()
        return tuple(w for w in words if w[0] == "#"), tuple(w for w in words if w[0] != "#" and w != "{")
    tail = tokenize(tail_text)
    return (tuple(t.text for t in tail if t.kind == "attrgrp"),
            tuple(t.text for t in tail if t.kind in ("word", "string")))

__all__ = ["KERNEL_CCS", "KERNEL_CC_NUMBERS", "HeaderReader"]
