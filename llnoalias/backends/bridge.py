"""The version bridge: a copy of a module that llvmlite's LLVM (22.1) can read (design section 7).

Producers write IR for other LLVM versions than the one inside llvmlite: clang-19 calls
intrinsics with LLVM 19's signatures, Triton 3.9 and IREE 3.13 write LLVM 24's. :func:`bridge`
rewrites the text *handed to llvmlite's LLVM* (verification of annotated output,
``compile``, ``stats X.ll``) so that LLVM 22 parses, verifies and generates code for
it. It is never applied to what llnoalias writes: the annotated output stays
byte-preserving (design section 5), and the same rewrites are applied to the input and the output
of a verification, so a module llnoalias broke still fails.

Much of newer LLVMs' syntax needs nothing: LLVM 22.1 reads ``captures(...)``,
``nocreateundeforpoison``, ``samesign``, ``nusw``/``nuw`` GEP flags, ``splat(...)`` and
``ptrtoaddr`` (``tests/backends/test_bridge.py`` holds it to that), and clang-19's
``raw.ptr.buffer.load.lds`` / ``global.load.lds`` calls verify as they are; what it
lacks is below.

Every rewrite is one :class:`Rewrite` entry in :data:`REWRITES`: its name, what it
matches, why it is sound and how it rewrites. A rewrite keeps line numbers (text that
is added goes on the line it belongs to; a dropped line becomes an empty line), so
llvmlite's ``LINE:COL`` in an error points at the user's line. The module is pure: no
process, no file, no output; it imports only the standard library,
:mod:`llnoalias.diagnostics`, ``ir.lazyre`` and the LDS-DMA table (``LDS_DMA``: the
asynchronous forms and their LLVM 22 twins).
"""

from __future__ import annotations

import bisect
import itertools
import os
import re
import struct
from collections.abc import Callable, Iterable

from ..analysis.memory.intrinsics import ASYNC_LDS, COUNTER_WAITS, LDS_DMA
from ..diagnostics import LLNoaliasError
from ..ir.lazyre import LazyPattern, lazy

#: Set ``LLNOALIAS_BRIDGE=0`` to hand llvmlite the module exactly as it is.
ENV_SWITCH = "LLNOALIAS_BRIDGE"


class BridgeError(LLNoaliasError):
    """The module uses something LLVM 22 lacks and no rewrite can stand in for."""


class Rewrite:
    """One entry of the table. (A plain class: a dataclass costs every start.)"""

    __slots__ = ("name", "matches", "sound", "how", "needle", "apply", "changes_sync")

    def __init__(self, name: str, matches: str, sound: str, how: str, needle: str,
                 apply: Callable[[str], tuple[str, int]], changes_sync: str = "") -> None:
        self.name = name
        #: What it matches, in words.
        self.matches = matches
        #: Why the rewritten module means the same to code generation.
        self.sound = sound
        #: How it rewrites, in words.
        self.how = how
        #: A substring without which the rewrite has nothing to do (a cheap test first).
        self.needle = needle
        #: ``text -> (new text, number of places rewritten)``.
        self.apply = apply
        #: What of the program's synchronization the rewrite changes, in words ("" for nothing):
        #: code generated from the rewritten module waits where LLVM 22 decides, not where the
        #: program does, so no verdict about its waits may rest on it (design section 7;
        #: :mod:`.sync` finds where).
        self.changes_sync = changes_sync

    def __repr__(self) -> str:
        return f"Rewrite({self.name!r})"


# --------------------------------------------------------------------------- helpers


def _split_args(text: str, start: int) -> tuple[list[str], int] | None:
    """Split the argument list that opens at ``text[start] == '('`` at its top-level
    commas; return the pieces and the index of the closing ``')'``, None when unbalanced."""
    depth = 0
    pieces: list[str] = []
    piece_start = start + 1
    i = start
    in_string = False
    while i < len(text):
        ch = text[i]
        if in_string:
            in_string = ch != '"'
        elif ch == '"':
            in_string = True
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
            if depth == 0:
                pieces.append(text[piece_start:i])
                return ([p.strip() for p in pieces] if any(p.strip() for p in pieces) else []), i
        elif ch == "," and depth == 1:
            pieces.append(text[piece_start:i])
            piece_start = i + 1
        elif ch == "\n":
            return None
        i += 1
    return None


_PARAM_ATTRS = frozenset({"noundef", "signext", "zeroext", "inreg", "immarg", "nonnull"})


def _value_of(arg: str, ty: str) -> str | None:
    """``'i32 noundef %11'`` -> ``'%11'``: the operand of a call argument of type ``ty``."""
    if not arg.startswith(ty + " "):
        return None
    words = arg[len(ty):].split()
    while words and words[0] in _PARAM_ATTRS:
        words.pop(0)
    return " ".join(words) or None


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _blank(line: str) -> str:
    """An empty line in place of ``line``, keeping its line ending."""
    return line[len(line.rstrip("\r\n")):]


# --------------------------------------------------------------------------- rewrites

_VERSIONED_TRIPLE_RE = lazy(
    r'^([ \t]*target[ \t]+triple[ \t]*=[ \t]*")(?:amdgpu|amdgcn)\d+\.[0-9A-Za-z.]+(-[^"\r\n]*")', re.MULTILINE)


def _versioned_triple(text: str) -> tuple[str, int]:
    """``_VERSIONED_TRIPLE_RE.subn(r"\1amdgcn\2", text)``, tried only at the starts of the
    lines that hold the word ``triple`` (a match is one line) rather than at every line's."""
    out: list[str] = []
    last = 0
    count = 0
    pos = text.find("triple")
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        m = _VERSIONED_TRIPLE_RE.match(text, start) if start >= last else None
        if m is not None:
            out.append(text[last:m.start()])
            out.append(m.expand(r"\1amdgcn\2"))
            last = m.end()
            count += 1
        end = text.find("\n", pos)
        if end < 0:
            break
        pos = text.find("triple", end)
    if not count:
        return text, 0
    out.append(text[last:])
    return "".join(out), count


#: The floating-point types whose constants the literal rewrites below spell.
_FP_WIDTH = {"half": 16, "bfloat": 16, "float": 32, "double": 64}
#: A type keyword, not part of a name (``%float.1``, ``@double``, ``%struct.half``).
#: The wider types are matched too, so that their constants are left alone rather than
#: read as the type named before them.
_FP_TYPE_RE = lazy(r'(?<![\w.$%@!"-])(half|bfloat|float|double|x86_fp80|fp128|ppc_fp128)(?![\w.$-])')


def _candidate_lines(text: str, finder: LazyPattern) -> tuple[list[str], list[int]]:
    """``text``'s lines (``_lines``) and, in order, the indices of those a match of
    ``finder`` starts on. ``finder`` is a pattern that begins with a literal (which the
    regex engine scans for quickly, unlike a character set or a look-behind) and matches a piece
    of every token a rewrite looks for: a token is never split by a line break, so every
    line with a token is among these."""
    m = finder.search(text)
    if m is None:
        return [], []
    lines = _lines(text)
    starts = list(itertools.accumulate(map(len, lines), initial=0))
    todo: list[int] = []
    while m is not None:
        i = bisect.bisect_right(starts, m.start()) - 1
        todo.append(i)
        m = finder.search(text, starts[i + 1])  # the next line on
    return lines, todo


def _fp_literals(text: str, token_re: LazyPattern,
                 convert: Callable[[str, re.Match[str]], str | None], finder: LazyPattern) -> tuple[str, int]:
    """Replace each ``token_re`` match on a line of code by ``convert(type, match)``.

    The type is the last floating-point type named before the token on its line: the
    token's own (``float f0x3FC00000``, ``splat (float -inf)``) or, where the operand is
    written without one, the instruction's (``fmul float %4, f0x3FB8AA3B``,
    ``phi float [ -inf, %bb ]``). Tokens inside a quoted string, comment lines, and tokens
    with no type before them are left alone (LLVM 22 then names them itself).

    Only the lines ``finder`` points at are looked at (``_candidate_lines``)."""
    lines, todo = _candidate_lines(text, finder)
    if not todo:
        return text, 0
    count = 0
    for i in todo:
        lines[i], n = fp_literals_of_line(lines[i], token_re, convert)
        count += n
    return "".join(lines), count


def fp_literals_of_line(line: str, token_re: LazyPattern,
                        convert: Callable[[str, re.Match[str]], str | None]) -> tuple[str, int]:
    """``_fp_literals`` on one line: the line with its tokens converted, and how many."""
    if line.lstrip().startswith(";"):
        return line, 0
    count = 0
    pieces: list[str] = []
    last = 0
    for m in token_re.finditer(line):
        before = line[:m.start()]
        if before.count('"') % 2:
            continue
        types = _FP_TYPE_RE.findall(before)
        new = convert(types[-1], m) if types else None
        if new is None:
            continue
        pieces.append(line[last:m.start()])
        pieces.append(new)
        last = m.end()
        count += 1
    if not count:
        return line, 0
    pieces.append(line[last:])
    return "".join(pieces), count


def _spell(ty: str, bits: int) -> str:
    """LLVM 22's hexadecimal spelling of the ``ty`` constant with bit pattern ``bits``."""
    if ty == "half":
        return f"0xH{bits:04X}"
    if ty == "bfloat":
        return f"0xR{bits:04X}"
    if ty == "float":
        # LLVM writes a float constant as the double with the same value.
        value = struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]
        bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    return f"0x{bits:016X}"


_FLOAT_BITS_RE = lazy(r"(?<=[\s,(\[<])f0x([0-9A-Fa-f]+)\b")
#: the lines one may be on (``_candidate_lines``)
_FLOAT_BITS_FINDER = lazy(r"f0x[0-9A-Fa-f]")


def bits_literal(ty: str, m: re.Match[str]) -> str | None:
    """LLVM 22's spelling of a ``_FLOAT_BITS_RE`` token of type ``ty``, or None."""
    bits = int(m.group(1), 16)
    return _spell(ty, bits) if ty in _FP_WIDTH and bits < 1 << _FP_WIDTH[ty] else None


def _float_bits(text: str) -> tuple[str, int]:
    return _fp_literals(text, _FLOAT_BITS_RE, bits_literal, _FLOAT_BITS_FINDER)


#: ``+inf``/``-inf`` and the preferred quiet NaNs ``+qnan``/``-qnan`` (the sign is required).
_FLOAT_SPECIAL_RE = lazy(r"(?<=[\s,(\[<])([+-])(inf|qnan)\b")
_FLOAT_SPECIAL_FINDER = lazy(r"[+-](?:inf|qnan)")
#: Their bit patterns, positive sign: all-ones exponent, and for qnan only the quiet bit.
_FP_SPECIAL_BITS = {
    ("half", "inf"): 0x7C00, ("half", "qnan"): 0x7E00,
    ("bfloat", "inf"): 0x7F80, ("bfloat", "qnan"): 0x7FC0,
    ("float", "inf"): 0x7F800000, ("float", "qnan"): 0x7FC00000,
    ("double", "inf"): 0x7FF0000000000000, ("double", "qnan"): 0x7FF8000000000000,
}


def _float_special(text: str) -> tuple[str, int]:
    if ("inf" not in text and "qnan" not in text) or _FLOAT_SPECIAL_FINDER.search(text) is None:
        return text, 0
    return _fp_literals(text, _FLOAT_SPECIAL_RE, special_literal, _FLOAT_SPECIAL_FINDER)


def special_literal(ty: str, m: re.Match[str]) -> str | None:
    """LLVM 22's spelling of a ``_FLOAT_SPECIAL_RE`` token of type ``ty``, or None."""
    if ty not in _FP_WIDTH:
        return None
    bits = _FP_SPECIAL_BITS[ty, m.group(2)]
    if m.group(1) == "-":
        bits |= 1 << (_FP_WIDTH[ty] - 1)
    return _spell(ty, bits)


#: A decimal constant as LLVM's lexer reads one: ``[-+]?[0-9]+[.][0-9]*([eE][-+]?[0-9]+)?``.
_FLOAT_DECIMAL_RE = lazy(r"(?<=[\s,(\[<])([-+]?[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?)(?=[\s,)\]>]|$)")
#: A cheap first look for one (a digit, a point, no name character after it). Each begins with
#: the point, a literal the regex engine scans for quickly, and looks back for the digit: one
#: that begins with ``[0-9]`` is tried at every character (ten times as long on a large module).
_DECIMAL_GATE_RE = lazy(r"\.(?<=[0-9]\.)(?![A-Za-z_$.])")
_FLOAT_DECIMAL_FINDER = lazy(r"\.(?<=[0-9]\.)")
#: Significand bits (with the hidden one) and largest exponent of the types LLVM 22 reads a
#: decimal into only when it is exact; the smallest normal exponent is ``1 - emax``.
_FP_FORMAT = {"half": (11, 15), "bfloat": (8, 127), "float": (24, 127)}


def round_decimal(literal: str, ty: str) -> int | None:
    """The bit pattern of the ``ty`` value nearest to the decimal ``literal``, ties to the
    even one: what newer LLVM's parser makes of it (``APFloat::convertFromString`` with
    ``NearestTiesToEven`` in the type's own semantics, not through double). None where
    newer LLVM rejects it too: a value that overflows the type or rounds to zero."""
    from fractions import Fraction

    precision, emax = _FP_FORMAT[ty]
    emin = 1 - emax
    value = Fraction(literal)
    sign = 1 << (_FP_WIDTH[ty] - 1) if literal.lstrip().startswith("-") else 0
    mag = abs(value)
    if mag == 0:
        return sign
    exp = mag.numerator.bit_length() - mag.denominator.bit_length()
    if Fraction(2) ** exp > mag:
        exp -= 1  # now 2**exp <= mag < 2**(exp+1)
    exp = max(exp, emin)
    quantum = Fraction(2) ** (exp - precision + 1)
    whole, rest = divmod(mag, quantum)
    n = int(whole)
    if rest * 2 > quantum or (rest * 2 == quantum and n % 2):
        n += 1
    if n == 1 << precision:
        n >>= 1
        exp += 1
    if n == 0 or exp > emax:
        return None
    if n < 1 << (precision - 1):  # subnormal (exp == emin)
        return sign | n
    return sign | ((exp + emax) << (precision - 1)) | (n - (1 << (precision - 1)))


def _llvm22_reads_exactly(literal: str, ty: str) -> bool:
    """LLVM 22 reads a decimal as the nearest double and takes it only where that double
    is exact in the type ("floating point constant invalid for type" otherwise)."""
    value = float(literal)
    if value != value or value in (float("inf"), float("-inf")):
        return False
    if ty == "float":
        fmt = "<f"
    elif ty == "half":
        fmt = "<e"
    else:  # bfloat: a float whose low 16 bits are zero
        try:
            bits = struct.unpack("<I", struct.pack("<f", value))[0]
        except OverflowError:
            return False
        return bits & 0xFFFF == 0 and struct.unpack("<f", struct.pack("<I", bits))[0] == value
    try:
        return struct.unpack(fmt, struct.pack(fmt, value))[0] == value
    except OverflowError:
        return False


def _float_decimal(text: str) -> tuple[str, int]:
    # Most decimals are exact in every type (0.0, 0.5, 1.0): look at the lines only when one
    # is not, so that a module without any costs one scan of the text.
    if _DECIMAL_GATE_RE.search(text) is None:
        return text, 0
    # each distinct literal once (a module repeats a few constants many times): when all are
    # exact, _fp_literals would change nothing
    if all(all(_llvm22_reads_exactly(literal, ty) for ty in _FP_FORMAT) for literal in _decimal_literals(text)):
        return text, 0
    return _fp_literals(text, _FLOAT_DECIMAL_RE, decimal_literal, _FLOAT_DECIMAL_FINDER)


def _decimal_literals(text: str) -> set[str]:
    """The ``_FLOAT_DECIMAL_RE`` tokens of ``text``, each once, found from its points
    (``_FLOAT_DECIMAL_FINDER``) without splitting the text into lines: each token the search of
    a line (``_fp_literals``) finds, and perhaps more (one at a line's start, which the text's
    line break before it lets the look-behind see): a gate that is never looser."""
    literals: set[str] = set()
    match = _FLOAT_DECIMAL_RE.match
    for m in _FLOAT_DECIMAL_FINDER.finditer(text):
        s = m.start()  # the point: the digits before it, and a sign before them, begin the token
        while s > 0 and text[s - 1] in _DIGITS:
            s -= 1
        if s > 0 and text[s - 1] in "+-":
            s -= 1  # (a token can begin only there: after a sign, the look-behind fails)
        got = match(text, s)
        if got is not None:
            literals.add(got.group(1))
    return literals


_DIGITS = frozenset("0123456789")


def decimal_literal(ty: str, m: re.Match[str]) -> str | None:
    """LLVM 22's spelling of a ``_FLOAT_DECIMAL_RE`` token of type ``ty`` that it would not
    read exactly, or None."""
    if ty not in _FP_FORMAT or _llvm22_reads_exactly(m.group(1), ty):
        return None
    bits = round_decimal(m.group(1), ty)
    return None if bits is None else _spell(ty, bits)


_RSRC_RE = lazy(r"@llvm\.amdgcn\.make\.buffer\.rsrc\.(p\d+)\(")


def _make_buffer_rsrc(text: str) -> tuple[str, int]:
    count = 0
    out: list[str] = []
    fresh = 0
    for line in _lines(text):
        m = _RSRC_RE.search(line)
        if m is None:
            out.append(line)
            continue
        split = _split_args(line, m.end() - 1)
        if split is None or len(split[0]) != 4:
            out.append(line)
            continue
        args, close = split
        new_name = f"@llvm.amdgcn.make.buffer.rsrc.p8.{m.group(1)}("
        if line.lstrip().startswith("declare"):
            if not args[2].startswith("i32"):
                out.append(line)
                continue
            args[2] = "i64" + args[2][3:]
            out.append(line[:m.start()] + new_name + ", ".join(args) + line[close:])
            count += 1
            continue
        value = _value_of(args[2], "i32")
        if value is None:
            out.append(line)
            continue
        tmp = f"%llnoalias.bridge.rsrc.{fresh}"
        fresh += 1
        args[2] = f"i64 {tmp}"
        body = line[:m.start()] + new_name + ", ".join(args) + line[close:]
        indent = body[:len(body) - len(body.lstrip())]
        # The widening goes on the same line, before the call: line numbers stay.
        out.append(f"{indent}{tmp} = zext i32 {value} to i64 {body.lstrip()}")
        count += 1
    return "".join(out), count


_RSRC_NREC_RE = lazy(r"@llvm\.amdgcn\.make\.buffer\.rsrc\.(p\d+)\.(p\d+)\.i(\d+)\(")
_INT_LITERAL_RE = lazy(r"-?[0-9]+")


def _make_buffer_rsrc_nrec(text: str) -> tuple[str, int]:
    declared = set(re.findall(r"^[ \t]*declare\b[^\n]*@llvm\.amdgcn\.make\.buffer\.rsrc\.(p\d+\.p\d+)\(",
                              text, re.MULTILINE))
    count = 0
    out: list[str] = []
    fresh = 0
    for line in _lines(text):
        m = _RSRC_NREC_RE.search(line)
        width = int(m.group(3)) if m else 0
        split = _split_args(line, m.end() - 1) if m and 0 < width <= 64 else None
        if m is None or split is None or len(split[0]) != 4:
            out.append(line)
            continue
        args, close = split
        ty = f"i{width}"
        pair = f"{m.group(1)}.{m.group(2)}"
        new_name = f"@llvm.amdgcn.make.buffer.rsrc.{pair}("
        if line.lstrip().startswith("declare"):
            if not (args[2] == ty or args[2].startswith(ty + " ")):
                out.append(line)
                continue
            if pair in declared:
                out.append(_blank(line))  # LLVM 22's name is declared already
            else:
                declared.add(pair)
                args[2] = "i64" + args[2][len(ty):]
                out.append(line[:m.start()] + new_name + ", ".join(args) + line[close:])
            count += 1
            continue
        value = _value_of(args[2], ty)
        if value is None:
            out.append(line)
            continue
        prefix = ""
        if width == 64:
            pass
        elif _INT_LITERAL_RE.fullmatch(value):
            args[2] = f"i64 {int(value) & ((1 << width) - 1)}"
        else:
            tmp = f"%llnoalias.bridge.nrec.{fresh}"
            fresh += 1
            args[2] = f"i64 {tmp}"
            prefix = f"{tmp} = zext {ty} {value} to i64 "
        body = line[:m.start()] + new_name + ", ".join(args) + line[close:]
        indent = body[:len(body) - len(body.lstrip())]
        # A widening goes on the same line, before the call: line numbers stay.
        out.append(f"{indent}{prefix}{body.lstrip()}")
        count += 1
    return "".join(out), count


#: LLVM 24's asynchronous LDS loads and the LLVM 22 intrinsic that issues the same load:
#: the rows of ``LDS_DMA`` that have an ``older`` twin.
_ASYNC_LDS = {name: d.older for d in LDS_DMA if d.older for name in d.names}
_ASYNC_LDS_RE = lazy(r"@(" + "|".join(re.escape(n) for n in _ASYNC_LDS) + r")\b")


def _async_lds(text: str) -> tuple[str, int]:
    declared = set(re.findall(r"^[ \t]*declare\b[^\n]*@(llvm\.amdgcn\.[\w.]+)\(", text, re.MULTILINE))
    count = 0
    out: list[str] = []
    for line in _lines(text):
        if _ASYNC_LDS_RE.search(line) is None:
            out.append(line)
            continue
        m = _ASYNC_LDS_RE.search(line)
        assert m is not None
        plain = _ASYNC_LDS[m.group(1)]
        if line.lstrip().startswith("declare") and plain in declared:
            out.append(_blank(line))  # the plain form is declared already
        else:
            out.append(_ASYNC_LDS_RE.sub(lambda mm: f"@{_ASYNC_LDS[mm.group(1)]}", line))
        count += 1
    return "".join(out), count


_ASYNCMARK_RE = lazy(r"@llvm\.amdgcn\.(?:wait\.)?asyncmark\(")
_ASYNCMARK_CALL_RE = lazy(
    r"^[ \t]*(?:(?:tail|musttail|notail)[ \t]+)?call[ \t]+void[ \t]+@llvm\.amdgcn\.(?:wait\.)?asyncmark\(")


def _asyncmark(text: str) -> tuple[str, int]:
    count = 0
    out: list[str] = []
    for line in _lines(text):
        if _ASYNCMARK_RE.search(line) and (_ASYNCMARK_CALL_RE.match(line) or line.lstrip().startswith("declare")):
            out.append(_blank(line))
            count += 1
        else:
            out.append(line)
    return "".join(out), count


REWRITES: tuple[Rewrite, ...] = (
    Rewrite(
        name="amdgpu-versioned-triple",
        matches='target triple = "amdgpu9.50-amd-amdhsa" (Triton 3.x / LLVM 24 spell the GPU version in the arch)',
        sound="the arch is AMDGPU either way; the CPU it names is taken by llnoalias.backends.target "
              "(amdgpu9.50 -> gfx950) and handed to the code generator separately",
        how="the arch becomes amdgcn: amdgcn-amd-amdhsa",
        needle="target triple",
        apply=_versioned_triple,
    ),
    Rewrite(
        name="float-bits-literal",
        matches="a floating-point constant written as its bit pattern, 'half f0x3C00', also as an "
                "operand without its own type ('fmul float %4, f0x3FB8AA3B', Triton 3.9) (newer LLVM's "
                "literal; LLVM 22 says 'expected value token')",
        sound="the same bits in LLVM 22's hexadecimal spelling: the same value; an operand without "
              "a type has the instruction's type, the last one named before it on the line",
        how="half 0xH...., bfloat 0xR...., float/double as the 16-digit double of the same value",
        needle="f0x",
        apply=_float_bits,
    ),
    Rewrite(
        name="float-special-literal",
        matches="+inf/-inf and +qnan/-qnan constants ('float -inf', 'phi float [ -inf, %bb ]', "
                "Triton 3.9; LLVM 22 says 'expected value token')",
        sound="LLVM 24 defines them as the infinities and the preferred quiet NaNs (quiet bit set, "
              "no other payload bit); the same bits in LLVM 22's hexadecimal spelling are the same value",
        how="the hexadecimal constant of the type named last before it on the line, as float-bits-literal",
        needle="",  # "inf" and "qnan" share no substring: always look
        apply=_float_special,
    ),
    Rewrite(
        name="float-decimal-inexact",
        matches="a decimal half, bfloat or float constant that is not exact in its type "
                "('splat (float -8.780000e+01)', IREE 3.13; LLVM 22: 'floating point constant invalid "
                "for type'); also as an operand without its own type",
        sound="newer LLVM's parser reads it as the value of the type nearest to the decimal, ties to "
              "even (APFloat::convertFromString, NearestTiesToEven, in the type's own semantics); the "
              "bridge computes that value exactly (fractions, not through double) and writes its bits; "
              "double constants and decimals LLVM 22 reads as they are are left alone",
        how="the hexadecimal constant of those bits, as float-bits-literal (float -8.780000e+01 -> "
            "float 0xC055F33340000000)",
        needle=".",
        apply=_float_decimal,
    ),
    Rewrite(
        name="amdgcn-make-buffer-rsrc-i64",
        matches="llvm.amdgcn.make.buffer.rsrc.pN(ptr, i16, i32 num_records, i32) of LLVM 19 "
                "(LLVM 22: 'Intrinsic has incorrect argument type!')",
        sound="LLVM 22 widened num_records to i64 and overloads the result type (.p8.pN); "
              "num_records is unsigned, so the zero-extended value is the same descriptor",
        how="@llvm.amdgcn.make.buffer.rsrc.p8.pN(..., i64 %llnoalias.bridge.rsrc.K, ...) with "
            "'%llnoalias.bridge.rsrc.K = zext i32 X to i64' on the same line before the call",
        needle="llvm.amdgcn.make.buffer.rsrc.p",
        apply=_make_buffer_rsrc,
    ),
    Rewrite(
        name="amdgcn-make-buffer-rsrc-overloaded-num-records",
        matches="llvm.amdgcn.make.buffer.rsrc.pA.pB.iN(ptr, i16, iN num_records, i32): newer LLVM "
                "overloads num_records (IREE 3.13 writes .p7.p1.i32; LLVM 22: 'Intrinsic has incorrect "
                "argument type!')",
        sound="newer LLVM defines a num_records narrower than the descriptor's field as zero-extended "
              "(llvm-project PR 213180); LLVM 22's form takes i64, so the zero-extended value is the "
              "same descriptor",
        how="@llvm.amdgcn.make.buffer.rsrc.pA.pB(..., i64 X, ...): a constant is written widened, "
            "another value through '%llnoalias.bridge.nrec.K = zext iN X to i64' on the same line "
            "before the call; a declaration that then repeats one already there is dropped",
        needle="llvm.amdgcn.make.buffer.rsrc.p",
        apply=_make_buffer_rsrc_nrec,
    ),
    Rewrite(
        name="amdgcn-async-lds-load",
        matches="llvm.amdgcn.{raw,struct}[.ptr].buffer.load.async.lds and global.load.async.lds "
                "(LLVM 24; LLVM 22 lacks them, verifies them as a malformed buffer.load and aborts "
                "in code generation)",
        sound="the plain .lds intrinsic takes the same arguments and issues the same LDS-DMA load "
              "(buffer_load_dword ... lds / global_load_lds_*); its completion is tracked by "
              "SIInsertWaitcnts (vmcnt) instead of by asyncmark, which only adds waits",
        how="the name loses '.async'; a declaration that then repeats one already there is dropped",
        needle=".async.lds",
        apply=_async_lds,
        changes_sync="asynchronous LDS-DMA loads, retired by explicit waits",
    ),
    Rewrite(
        name="amdgcn-asyncmark",
        matches="calls to llvm.amdgcn.asyncmark() and llvm.amdgcn.wait.asyncmark(i16 N) (LLVM 24), and "
                "their declarations",
        sound="they order only the asynchronous loads, which amdgcn-async-lds-load has turned into "
              "loads the code generator waits for itself (vmcnt before a read of the LDS they write)",
        how="the line becomes an empty line",
        needle="asyncmark",
        apply=_asyncmark,
        changes_sync="explicit LDS-DMA waits",
    ),
)

#: Intrinsics of newer LLVMs that LLVM 22 lacks and no rewrite above replaces.
_UNBRIDGED_RE = lazy(r"@(llvm\.amdgcn\.[\w.]*async[\w.]*|llvm\.amdgcn\.(?:wait\.)?asyncmark)\b")
#: ... except these, which LLVM 22 has: the asynchronous LDS operations of the catalogue
#: (``ASYNC_LDS``, ``COUNTER_WAITS``) that LLVM 22 knows (``llvm22``).
_LLVM22_ASYNC = lazy(
    r"(?:" + "|".join([a.pattern for a in ASYNC_LDS if a.llvm22 and "async" in a.pattern]
                      + [w.pattern for w in COUNTER_WAITS if w.llvm22 and "async" in w.pattern]) + r")$")


def enabled() -> bool:
    """Whether the bridge is on (``LLNOALIAS_BRIDGE=0`` turns it off)."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "off", "no", "false")


def bridge(text: str, *, active: bool | None = None) -> tuple[str, list[str]]:
    """Return the text to hand llvmlite's LLVM and the names of the rewrites applied.

    ``active=None`` follows :func:`enabled`. Raises :class:`BridgeError` when the module
    calls an intrinsic that LLVM 22 lacks and no rewrite stands in for.
    """
    if "\x00" in text:
        # Not a rewrite of syntax: llvmlite hands the text to LLVM as a C string, which ends at
        # the first NUL. llnoalias reads a NUL only in a comment (LLVM skips a comment's bytes),
        # where a space stands for it exactly.
        text = text.replace("\x00", " ")
    if not (enabled() if active is None else active):
        return text, []
    text, done = apply_rewrites(text, [(r.name, r.needle, r.apply) for r in REWRITES])
    applied = [name for name, _ in done]
    if "async" in text or "asyncmark" in text:
        for m in _UNBRIDGED_RE.finditer(text):
            if not _LLVM22_ASYNC.match(m.group(1)):
                raise BridgeError(
                    f"the module calls '{m.group(1)}', which llvmlite's LLVM (22) lacks and which llnoalias "
                    "has no equivalent for; use --llc PATH with an LLVM that knows it")
    return text, applied


def apply_rewrites(text: str, rewrites: Iterable[tuple[str, str, Callable[[str], tuple[str, int]]]]
                   ) -> tuple[str, list[tuple[str, int]]]:
    """Each ``(name, needle, apply)`` in turn, where its needle is in the text: the text
    and the ``(name, places rewritten)`` of those that changed something. (The bench's copy
    for opt-19 runs some of these and its own through here too.)"""
    applied: list[tuple[str, int]] = []
    for name, needle, apply in rewrites:
        if needle not in text:
            continue
        text, n = apply(text)
        if n:
            applied.append((name, n))
    return text, applied


def describe() -> list[dict[str, str]]:
    """The table, for documentation and ``--verbose``."""
    return [{"name": r.name, "matches": r.matches, "sound": r.sound, "how": r.how,
             "changes_sync": r.changes_sync} for r in REWRITES]


__all__ = ["ENV_SWITCH", "REWRITES", "BridgeError", "Rewrite", "apply_rewrites", "bridge", "describe", "enabled"]
