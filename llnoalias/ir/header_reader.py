"""The function header reader: a ``define`` line's calling convention, name, parameters
(types, attributes, names, and where an attribute would be inserted) and attribute groups.
The common header is read by one pattern; any other by the tokenizer."""

from __future__ import annotations

from .lazyre import lazy
from .lexer import canon_name, tokenize
from .lines import LineReader, error_at
from .model import Argument, Function
from .numbering import number_of
from .types import Type, TypeParser, type_of

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
    r'(?P<pre>define\b[^"@;(]*(?:\([^"@;()]*\)[^"@;(]*)*)@(?P<name>[-a-zA-Z$._][-a-zA-Z$._0-9]*)'
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
    r"[ \t\n]+(?P<name>%[-a-zA-Z$._0-9]+)[ \t\n]*")
# the words the lexer makes of such attributes (ints and parentheses are not words)
_ATTR_WORD_RE = lazy(r"[a-z_][a-z_0-9]*")
_DIGIT_LETTER_RE = lazy(r"[0-9][a-z_]")


class HeaderReader(LineReader):
    """Reads one function header into a ``Function`` (no body yet)."""

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
        pre_text = m.group("pre")
        if _PLAIN_PRE_RE.match(pre_text):
            cc = _calling_convention(pre_text.split()[1:])  # the lexer's tokens, all words
        else:
            cc = _calling_convention([t.text for t in tokenize(pre_text)[1:]])
        tail_text = code[m.end("args") + 1:]
        if _PLAIN_TAIL_RE.match(tail_text):
            # words and attribute groups only: the lexer's tokens, without the lexer
            words = tail_text.split()
            groups = tuple(w for w in words if w[0] == "#")
            inline = tuple(w for w in words if w[0] != "#" and w != "{")
        else:
            tail = tokenize(tail_text)
            groups = tuple(t.text for t in tail if t.kind == "attrgrp")
            inline = tuple(t.text for t in tail if t.kind in ("word", "string"))
        fn = Function("@" + m.group("name"), lineno, off, cc, args, close, groups, inline)
        fn.header_text = code
        fn.own_attrs_text = code[close - start:]
        fn.is_kernel = cc in KERNEL_CCS
        fn.source = self.src
        return fn


__all__ = ["KERNEL_CCS", "KERNEL_CC_NUMBERS", "HeaderReader"]
