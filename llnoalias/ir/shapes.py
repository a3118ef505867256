"""What a common define line says but for its name, kept per module by the header reader
(``HeaderReader.line_shapes``) so that the next line of that shape costs a lookup, and
held by each function read from it (``Function.arg_shape``)."""

from __future__ import annotations

from .types import Type


class LineShape:
    """What a common define line says but for its name (``HeaderReader.line_shapes``): what
    ``HeaderReader._header_fast`` read from it, where its code ends, its arguments' names
    and the number an unnamed entry block takes after them."""

    __slots__ = ("cc", "params", "groups", "inline", "close_rel", "code_len", "own_attrs_text", "is_kernel",
                 "names", "entry", "arg_rows")

    def __init__(self, cc: str, params: list[tuple[str, Type, set[str], int]], groups: tuple[str, ...],
                 inline: tuple[str, ...], close_rel: int, code_len: int, own_attrs_text: str,
                 is_kernel: bool, entry: int) -> None:
        self.cc = cc
        self.params = params
        self.groups = groups
        self.inline = inline
        #: the ')' that closes the parameters, from just after the '('
        self.close_rel = close_rel
        #: the header's code (the line without its '{' and what follows), from the '('
        self.code_len = code_len
        self.own_attrs_text = own_attrs_text
        self.is_kernel = is_kernel
        self.names = frozenset(p[0] for p in params)
        #: the number an unnamed entry block takes (``lines.entry_number``)
        self.entry = entry
        #: ``params`` as the rows ``Argument`` is made from: name, index, type, attributes
        #: and the offset of its insertion point from the '('
        self.arg_rows = tuple((p[0], idx, p[1], p[2], p[3]) for idx, p in enumerate(params))


__all__ = ["LineShape"]
