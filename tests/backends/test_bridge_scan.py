"""backends/bridge.py looks only at the lines where a rewrite's token may be (found by a
quick search of the whole text) and tries the versioned-triple pattern only at the starts
of lines naming ``triple``; both give what the rewrite over every line gives. Checked
against the straightforward forms on texts with tokens at line starts, in strings and
comments, after \\r, \\x1c and \\u2028 line breaks, and at the end of a text without one."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest

from llnoalias.backends import bridge
from tests.support.files import ROOT


def _fp_literals_every_line(text: str, token_re: bridge.LazyPattern,
                            convert: Callable[[str, re.Match[str]], str | None]) -> tuple[str, int]:
    """The rewrite as it read every line (the reference): the same conversion of a line,
    on each of the lines ``str.splitlines`` finds rather than the ones a search points at."""
    count = 0
    out: list[str] = []
    for line in text.splitlines(keepends=True):
        new, n = bridge.fp_literals_of_line(line, token_re, convert)
        out.append(new)
        count += n
    return "".join(out), count


PIECES = ["  %a = fmul float %x, f0x3FB8AA3B", "f0x3C00 half", "  store half f0x3C00, ptr %p",
          "  %b = fadd double %y, -inf", "+qnan", "  %c = select i1 %q, float +inf, float 1.5",
          "  %d = fmul float %z, 0.1", "0.1, float", "; float f0x3F800000", '  call void @f(ptr @"s f0x1")',
          "  %e = phi float [ -inf, %bb ], [ 2.5e-3, %cc ]", "float f0x7F800000 x", "  ret void",
          'target triple = "amdgpu9.42-amd-amdhsa"', '  target triple = "amdgcn9.50-amd-amdhsa"',
          '; target triple = "amdgpu9.42-amd-amdhsa"', "triple", "x target triple"]
BREAKS = ["\n", "\r\n", "\r", "\x1c", "\u2028", "\n\n"]


def _texts() -> list[str]:
    rng = random.Random(7)
    texts = []
    for _ in range(300):
        n = rng.randrange(1, 9)
        parts = [rng.choice(PIECES) + rng.choice(BREAKS) for _ in range(n)]
        if rng.random() < 0.3:
            parts[-1] = parts[-1].rstrip("\r\n\x1c\u2028")
        texts.append("".join(parts))
    for path in sorted((ROOT / "fixtures" / "corpus").rglob("*.ll"))[:40]:
        texts.append(path.read_text(encoding="utf-8", errors="surrogateescape"))
    return texts


TEXTS = _texts()


@pytest.mark.parametrize("name", ["bits", "special", "decimal"])
def test_literal_rewrites_equal_the_line_by_line_form(name: str) -> None:
    token_re, convert, rewrite = {
        "bits": (bridge._FLOAT_BITS_RE, bridge.bits_literal, bridge._float_bits),
        "special": (bridge._FLOAT_SPECIAL_RE, bridge.special_literal, bridge._float_special),
        "decimal": (bridge._FLOAT_DECIMAL_RE, bridge.decimal_literal, bridge._float_decimal),
    }[name]
    changed = 0
    for text in TEXTS:
        want = _fp_literals_every_line(text, token_re, convert)
        assert rewrite(text) == want, text
        changed += want[1] > 0
    assert changed > 10  # the texts exercise the rewrite


def test_versioned_triple_equals_the_whole_text_substitution() -> None:
    plain = re.compile(bridge._VERSIONED_TRIPLE_RE.pattern, re.MULTILINE)
    changed = 0
    for text in TEXTS:
        want = plain.subn(r"\1amdgcn\2", text)
        assert bridge._versioned_triple(text) == want, text
        changed += want[1] > 0
    assert changed > 10
