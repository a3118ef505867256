"""Functions spelled as one read before, made from it in one call: a module of many small
kernels repeats one kernel's define line and body under other names. Once a function of a
known define line (``shapes.LineShape``) had its body made again from one spelled alike
(``body_reader._body_plain``'s memo), the reader keeps a ``Template`` of it; from then on,
at each define line at a line's start, ``copy_kernels`` (compiled: ``_body_reader.kernels_copy``)
makes every function after it that is spelled the same but for its name, as
``TopLevelReader._add_shaped`` and ``body_reader.copy_body`` would make it, and hands back the
line where the reading goes on. A line it does not take is read as before."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..compiled import load
from .body_reader import copy_body
from .model import Argument, Function, Instruction
from .shapes import BodyCopy

#: the compiled reader (``_body_reader.c``: ``kernels_copy``), or None
_cscan = load("body_reader")

#: every slot of a ``Function``: first the nine of each function's own (name, line, start,
#: arguments, header's end and the body's four containers), then those the template's
#: functions share (``Template.fn_vals``)
FUNCTION_SLOTS = ("name", "line", "start", "args", "header_end", "_instrs", "_by_name", "_blocks", "_block_offsets",
                  "cc", "fn_attr_groups", "fn_attrs_inline", "_pending", "deferred_lines", "is_kernel", "_header_text",
                  "own_attrs_text", "source", "_cfg", "arg_shape")
#: every slot of an ``Argument``: its insertion point (from the '(' after the function's name), then the rest
ARGUMENT_SLOTS = ("insert_at", "name", "index", "type", "attrs", "named")
#: the functions' slots that each function has its own of (``FUNCTION_SLOTS[:OWN]``)
OWN = 9

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-$._")

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from typing import Any

    #: what ``copy_kernels`` reads: the define line's text before the '@' and from the '(' to
    #: its end, the body's text (its lines after the define line up to the '}' line) and its
    #: number of lines, the body as ``BodyCopy`` (rows, block names, block starts), the
    #: ``Function`` class, its ``FUNCTION_SLOTS`` and the values of those the functions share,
    #: the ``Argument`` class, its ``ARGUMENT_SLOTS`` and per argument its insertion point from
    #: the '(' and its other slots' values, and the header's end from just after the '('
    Template = tuple[str, str, str, int, tuple[tuple[str | None, str, int, int, int], ...], tuple[str, ...],
                     tuple[int, ...], type, tuple[str, ...], tuple[object, ...], type, tuple[str, ...],
                     tuple[tuple[Any, ...], ...], int]


def make_template(raw: str, at: int, lp: int, fn: Function, body: str, copy: BodyCopy) -> Template:
    """The template of ``fn``, just made (``_add_shaped``) from its define line ``raw`` (its
    '@' at ``at``, its name's '(' at ``lp``) with its body ``body`` made again from ``copy``."""
    rows, block_names, block_rels, nlines = copy
    base = fn.start + lp + 1
    fn_vals = tuple([None] * OWN + [getattr(fn, slot) for slot in FUNCTION_SLOTS[OWN:]])
    arg_vals = tuple([(a.insert_at - base, *[getattr(a, slot) for slot in ARGUMENT_SLOTS[1:]]) for a in fn.args])
    return (raw[:at], raw[lp:], body, nlines, rows, block_names, block_rels, Function, FUNCTION_SLOTS, fn_vals,
            Argument, ARGUMENT_SLOTS, arg_vals, fn.header_end - base)


def _laid(cls: type, names: tuple[str, ...], vals: tuple[object, ...] | list[object]) -> Any:
    obj: Any = object.__new__(cls)
    for name, value in zip(names, vals, strict=True):
        setattr(obj, name, value)
    return obj


def copy_kernels(text: str, pos: int, line: int, tpl: Template, instruction: type[Instruction],
                 functions: list[Function], by_name: dict[str, Function],
                 globals_: Mapping[str, object]) -> tuple[int, int, int]:
    """From the define line at ``pos`` (``line`` its index) on, make each function whose
    define line is ``tpl``'s but for its plain name, whose body is ``tpl``'s, whose '}' line
    holds only the '}' and whose name no function or global before it has, and add it to
    ``functions`` and ``by_name``; the empty lines after each are passed over. Returns how
    many were made and the offset and index of the line where the reading goes on (the
    reference of ``_body_reader.kernels_copy``)."""
    (pre, suffix, body, nlines, rows, block_names, block_rels, fn_cls, fn_names, fn_vals, arg_cls, arg_names,
     arg_vals, header_rel) = tpl
    n = len(text)
    count = 0
    while text.startswith(pre, pos):
        at = pos + len(pre)
        if text[at:at + 1] != "@":
            break
        lp = at + 1
        while lp < n and text[lp] in _NAME_CHARS:
            lp += 1
        if lp == at + 1 or "0" <= text[at + 1] <= "9" or text[lp:lp + 1] != "(" or not text.startswith(suffix, lp):
            break
        body_start = lp + len(suffix) + 1
        if text[body_start - 1:body_start] != "\n" or not text.startswith(body, body_start):
            break
        close = body_start + len(body)
        if text[close:close + 1] != "}" or text[close + 1:close + 2] not in ("\n", ""):
            break
        name = text[at:lp]
        if name in by_name or name in globals_:
            break  # a redefinition: the reader reports it
        base = lp + 1
        args = [_laid(arg_cls, arg_names, (base + row[0], *row[1:])) for row in arg_vals]
        own: list[object] = [name, line + 1, pos, args, base + header_rel, [], {}, [], []]
        fn = _laid(fn_cls, fn_names, own + list(fn_vals[OWN:]))
        copy_body(instruction, fn, body_start, rows, block_names, block_rels, own[6], own[5], own[7],  # type: ignore[arg-type]
                  own[8])  # type: ignore[arg-type]
        functions.append(fn)
        by_name[name] = fn
        count += 1
        line += nlines + 2
        pos = min(close + 2, n)
        while pos < n and text[pos] == "\n":
            pos += 1
            line += 1
    return count, pos, line


#: ``copy_kernels``, compiled where it is
kernels: Callable[..., tuple[int, int, int]] | None = _cscan.kernels_copy if _cscan is not None else None

__all__ = ["ARGUMENT_SLOTS", "FUNCTION_SLOTS", "copy_kernels", "kernels", "make_template"]
