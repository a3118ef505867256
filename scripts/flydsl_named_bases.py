#!/usr/bin/env python3
"""Rewrite a single-base FlyDSL module into the "named-base" LDS shape (derived, not FlyDSL output).

FlyDSL 0.4.2's ``fx.SharedAllocator(static=False)`` places every LDS sub-buffer of a kernel
in ONE external dynamic-LDS global and carves them by constant offsets::

    @__dynamic_shared_0 = external dso_local addrspace(3) global [0 x i8], align 1024
    ... getelementptr i8, ptr addrspace(3) @__dynamic_shared_0, i32 %x                 ; sub-buffer at 0
    ... ptrtoint (ptr addrspace(3) getelementptr (i8, ptr addrspace(3)
                  @__dynamic_shared_0, i32 65536) to i32)                             ; sub-buffer at 65536

FlyDSL's alias-scope pull request (ROCm/FlyDSL#519, closed unmerged; /work/shared/seeds/001*)
instead gives each sub-buffer its own name, ``fx.get_dyn_shared(sym_name=...)``, lowered to a
distinct ``@name = external addrspace(3) global [0 x i8]``. All such globals start at the same
runtime address (the start of dynamic LDS), so each sub-buffer is still carved by its offset.
FlyDSL 0.4.2 has no ``sym_name`` on ``get_dyn_shared`` and no ``fly-attach-lds-alias-scope``
pass, so this script produces that shape from the real single-base module:

* the base's definition becomes one definition per sub-buffer (same linkage, type and
  alignment), named ``@<base>_sub<k>`` (k = 0, 1, ... by ascending offset) or by ``--names``;
* every ``getelementptr [flags] (i8, ptr addrspace(3) @<base>, iN C)`` constant expression
  becomes the same expression on the sub-buffer whose offset is ``C`` (the offset is kept);
* every other use of ``@<base>`` (a bare operand) names the sub-buffer at offset 0.

That mapping is what FlyDSL's carving means: a sub-buffer's offset is always the constant
GEP on the base, and per-access offsets are added on top. (Checked for the fp8 GEMM: the
single-base module and the static-allocator module of the same kernel are identical line
for line once ``@__shared_alloc_<k>`` and the sub-buffer at offset ``16384*k`` are named
alike; see fixtures/corpus/README.md.) No metadata is added: the output is the PR's shape
*before* its alias-scope pass, the input llnoalias is meant to annotate.

The rewrite is textual and deterministic (same input, same bytes); a header comment says
what was done. Exit status 2 with ``FILE:LINE:COL: error:`` when the input has no such
base, or more than one without ``--base``, or the wrong number of ``--names``.

Usage::

    python scripts/flydsl_named_bases.py IN.ll -o OUT.ll [--base NAME] [--names a,b,...]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

_DEF = re.compile(
    r"^@(?P<name>[-a-zA-Z$._][-a-zA-Z$._0-9]*) = (?P<mid>[^\n]*?)addrspace\(3\) global \[0 x i8\](?P<tail>[^\n]*)$",
    re.M,
)


class RewriteError(Exception):
    def __init__(self, line: int, col: int, msg: str) -> None:
        super().__init__(msg)
        self.line, self.col, self.msg = line, col, msg


def _const_gep(base: str) -> re.Pattern[str]:
    return re.compile(
        r"getelementptr (?P<flags>(?:inbounds |nuw |nusw |inrange\([^)]*\) )*)\(i8, ptr addrspace\(3\) @"
        + re.escape(base)
        + r", (?P<ity>i32|i64) (?P<off>-?\d+)\)"
    )


def _bare(base: str) -> re.Pattern[str]:
    return re.compile(r"@" + re.escape(base) + r"(?![-a-zA-Z$._0-9])")


def rewrite(text: str, base: str | None = None, names: list[str] | None = None) -> str:
    defs = [m for m in _DEF.finditer(text) if "external" in m.group("mid")]
    if base is None:
        if len(defs) != 1:
            raise RewriteError(1, 1, f"expected exactly one external [0 x i8] addrspace(3) global, found {len(defs)}; use --base")
        base_def = defs[0]
    else:
        found = [m for m in defs if m.group("name") == base]
        if not found:
            raise RewriteError(1, 1, f"no external [0 x i8] addrspace(3) global named @{base}")
        base_def = found[0]
    base = base_def.group("name")
    gep = _const_gep(base)
    body_start = base_def.end()
    offsets = sorted({0} | {int(m.group("off")) for m in gep.finditer(text, body_start)})
    if names is not None and len(names) != len(offsets):
        line = text.count("\n", 0, base_def.start()) + 1
        raise RewriteError(line, 1, f"--names gives {len(names)} names for {len(offsets)} sub-buffers at offsets {offsets}")
    sub = {off: (names[k] if names else f"{base}_sub{k}") for k, off in enumerate(offsets)}
    for n in sub.values():
        if re.search(r"@" + re.escape(n) + r"(?![-a-zA-Z$._0-9])", text):
            raise RewriteError(1, 1, f"the name @{n} is already used in the module")

    head, body = text[: base_def.start()], text[body_start:]
    # Constant GEPs first (they contain the base name), through a placeholder so that the
    # bare-name pass below cannot touch them.
    body = gep.sub(lambda m: f"getelementptr {m.group('flags')}(i8, ptr addrspace(3) \x00{m.group('off')}\x00, {m.group('ity')} {m.group('off')})", body)
    body = _bare(base).sub(f"@{sub[0]}", body)
    body = re.sub(r"\x00(-?\d+)\x00", lambda m: f"@{sub[int(m.group(1))]}", body)
    new_defs = "\n".join(
        f"@{sub[off]} = {base_def.group('mid')}addrspace(3) global [0 x i8]{base_def.group('tail')}" for off in offsets
    )
    header = (
        "; DERIVED by scripts/flydsl_named_bases.py (not FlyDSL output): the single dynamic-LDS base\n"
        f"; @{base} split into {len(offsets)} named external [0 x i8] bases, one per sub-buffer, each\n"
        "; still carved by its offset (the shape of FlyDSL PR #519 before its alias-scope pass):\n"
        + "".join(f";   @{sub[off]} -> offset {off}\n" for off in offsets)
    )
    return header + head + new_defs + body


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--base", help="the single-base global to split (default: the only external [0 x i8] LDS global)")
    ap.add_argument("--names", help="comma-separated names for the sub-buffers, in ascending offset order")
    a = ap.parse_args(argv)
    text = Path(a.input).read_text(encoding="utf-8")
    try:
        out = rewrite(text, a.base, a.names.split(",") if a.names else None)
    except RewriteError as e:
        print(f"{a.input}:{e.line}:{e.col}: error: {e.msg}", file=sys.stderr)
        return 2
    tmp = Path(a.output + ".tmp")
    tmp.write_text(out, encoding="utf-8")
    tmp.replace(a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
