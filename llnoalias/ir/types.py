"""LLVM types as llnoalias needs them: what is a pointer, in which address space, and
how many bytes a type occupies under the module's data layout.

Typed pointers (LLVM 14: ``float addrspace(3)*``) and opaque pointers
(``ptr addrspace(3)``) parse to the same ``ptr`` kind.
"""

from __future__ import annotations

from collections.abc import Sequence

from .lexer import Token, tokenize
from .limits import PARSE_DEPTH

FLOAT_BITS = {"half": 16, "bfloat": 16, "float": 32, "double": 64, "x86_fp80": 80, "fp128": 128, "ppc_fp128": 128}


class Type:
    __slots__ = ("kind", "bits", "addrspace", "elem", "count", "fields", "packed", "name")

    def __init__(
        self,
        kind: str,
        *,
        bits: int = 0,
        addrspace: int = 0,
        elem: Type | None = None,
        count: int = 0,
        fields: tuple[Type, ...] = (),
        packed: bool = False,
        name: str = "",
    ) -> None:
        self.kind = kind  # int float ptr vector array struct named func void label metadata token other
        self.bits = bits
        self.addrspace = addrspace
        self.elem = elem
        self.count = count
        self.fields = fields
        self.packed = packed
        self.name = name

    def __repr__(self) -> str:
        if self.kind == "int":
            return f"i{self.bits}"
        if self.kind == "ptr":
            return "ptr" if self.addrspace == 0 else f"ptr addrspace({self.addrspace})"
        if self.kind in ("vector", "array"):
            o, c = ("<", ">") if self.kind == "vector" else ("[", "]")
            return f"{o}{self.count} x {self.elem!r}{c}"
        if self.kind == "struct":
            inner = ", ".join(repr(f) for f in self.fields)
            return f"<{{ {inner} }}>" if self.packed else f"{{ {inner} }}"
        if self.kind == "named":
            return self.name
        return self.name or self.kind

    @property
    def is_pointer(self) -> bool:
        return self.kind == "ptr"

    def contains_pointer(self, named: dict[str, Type] | None = None, _depth: int = 0) -> bool:
        """True when a value of this type can hold a pointer (unknown types: True)."""
        if self.kind == "ptr":
            return True
        if self.kind in ("vector", "array") and self.elem is not None:
            return self.elem.contains_pointer(named, _depth + 1)
        if self.kind == "struct":
            return any(f.contains_pointer(named, _depth + 1) for f in self.fields)
        if self.kind == "named":
            if named is None or self.name not in named or _depth > 32:
                return True
            return named[self.name].contains_pointer(named, _depth + 1)
        return self.kind in ("other", "func", "token")


VOID = Type("void")
OTHER = Type("other")


class TypeParser:
    """Parses one type starting at ``tokens[pos]``; ``parse`` returns (type, next pos) or None."""

    def __init__(self, tokens: Sequence[Token]) -> None:
        self.toks = tokens

    def _text(self, pos: int) -> str:
        return self.toks[pos].text if pos < len(self.toks) else ""

    def parse(self, pos: int, depth: int = 0) -> tuple[Type, int] | None:
        """The type at ``pos``; None where there is none, or where it nests deeper than
        ``PARSE_DEPTH`` (the reader's recursion is bounded: such a type is unknown)."""
        if depth > PARSE_DEPTH:
            return None
        base = self._base(pos, depth)
        if base is None:
            return None
        ty, pos = base
        return self._suffixes(ty, pos)

    def _addrspace(self, pos: int) -> tuple[int, int] | None:
        # addrspace ( N )  -- N may also be a quoted name like "global" in newer LLVM
        if self._text(pos) != "addrspace" or self._text(pos + 1) != "(":
            return None
        tok = self.toks[pos + 2] if pos + 2 < len(self.toks) else None
        if tok is None or self._text(pos + 3) != ")":
            return None
        try:
            space = int(tok.text)
        except ValueError:
            space = -1  # a symbolic address space: treat as unknown
        return space, pos + 4

    def _suffixes(self, ty: Type, pos: int) -> tuple[Type, int]:
        while True:
            t = self._text(pos)
            if t == "*":
                ty = Type("ptr", addrspace=0, elem=ty)
                pos += 1
            elif t == "addrspace" and self._text(pos + 1) == "(":
                got = self._addrspace(pos)
                if got is None or self._text(got[1]) != "*":
                    return ty, pos
                ty = Type("ptr", addrspace=got[0], elem=ty)
                pos = got[1] + 1
            elif t == "(":
                # A function type: ret (params...)
                depth = 0
                while pos < len(self.toks):
                    tt = self._text(pos)
                    if tt in "([{<":
                        depth += 1
                    elif tt in ")]}>":
                        depth -= 1
                        if depth == 0:
                            pos += 1
                            break
                    pos += 1
                ty = Type("func", elem=ty)
            else:
                return ty, pos

    def _base(self, pos: int, depth: int) -> tuple[Type, int] | None:
        if pos >= len(self.toks):
            return None
        tok = self.toks[pos]
        t = tok.text
        if tok.kind == "word":
            if t[0] == "i" and t[1:].isdigit():
                return Type("int", bits=int(t[1:])), pos + 1
            if t in FLOAT_BITS:
                return Type("float", bits=FLOAT_BITS[t], name=t), pos + 1
            if t == "ptr":
                got = self._addrspace(pos + 1)
                if got is not None:
                    return Type("ptr", addrspace=got[0]), got[1]
                return Type("ptr"), pos + 1
            if t in ("void", "label", "metadata", "token", "x86_mmx", "x86_amx", "opaque"):
                return Type(t if t in ("void", "label", "metadata", "token") else "other", name=t), pos + 1
            if t == "target" and self._text(pos + 1) == "(":
                level, p = 0, pos + 1
                while p < len(self.toks):
                    if self._text(p) == "(":
                        level += 1
                    elif self._text(p) == ")":
                        level -= 1
                        if level == 0:
                            break
                    p += 1
                return Type("other", name="target"), p + 1
            return None
        if tok.kind == "local":
            return Type("named", name=t), pos + 1
        if t == "[":
            return self._sequence(pos, "array", "]", depth)
        if t == "<":
            if self._text(pos + 1) == "{":
                sgot = self._struct(pos + 1, True, depth)
                if sgot is None or self._text(sgot[1]) != ">":
                    return None
                return sgot[0], sgot[1] + 1
            return self._sequence(pos, "vector", ">", depth)
        if t == "{":
            return self._struct(pos, False, depth)
        return None

    def _sequence(self, pos: int, kind: str, close: str, depth: int) -> tuple[Type, int] | None:
        p = pos + 1
        if self._text(p) == "vscale" and self._text(p + 1) == "x":
            p += 2
        try:
            count = int(self._text(p))
        except ValueError:
            return None
        if self._text(p + 1) != "x":
            return None
        got = self.parse(p + 2, depth + 1)
        if got is None or self._text(got[1]) != close:
            return None
        return Type(kind, count=count, elem=got[0]), got[1] + 1

    def _struct(self, pos: int, packed: bool, depth: int) -> tuple[Type, int] | None:
        p = pos + 1
        fields: list[Type] = []
        if self._text(p) == "}":
            return Type("struct", fields=(), packed=packed), p + 1
        while True:
            got = self.parse(p, depth + 1)
            if got is None:
                return None
            fields.append(got[0])
            p = got[1]
            if self._text(p) == ",":
                p += 1
                continue
            if self._text(p) == "}":
                return Type("struct", fields=tuple(fields), packed=packed), p + 1
            return None


_TYPE_CACHE: dict[str, Type] = {}


def type_of(text: str) -> Type:
    """The type that ``text`` spells, as ``TypeParser`` reads it (read once per text)."""
    ty = _TYPE_CACHE.get(text)
    if ty is None:
        got = TypeParser(tokenize(text)).parse(0)
        ty = got[0] if got is not None else OTHER
        _TYPE_CACHE[text] = ty
    return ty
