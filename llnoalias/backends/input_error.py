"""What llvmlite's LLVM said against an input, as an error located in the input file.

The checking child reads the input as the bridge rewrote it (``<string>``, design section 7);
the bridge keeps line numbers, so a parse error's ``<string>:LINE:COL`` is the input's
line, and its column is the input's wherever the bridge left that line as it was (LLVM
counts bytes; the column here counts characters). A verifier error has no position: it
prints the instruction (``%x = load i32, ptr %p, align 4, !range !0``) or the function
(``ptr @f``) it is about, as LLVM prints it; the input's line that holds it is looked for
(design section 6). Imported only when a check went against the input.
"""

from __future__ import annotations

import re

from ..diagnostics import LLNoaliasError, Location
from ..ir.lexer import BARE_NAME

TYPE_CHECKING = False  # ``typing`` is not imported at run time
if TYPE_CHECKING:
    from .child_result import CheckResult

_POSITION_RE = re.compile(r"<string>:(\d+):(\d+):\s*(?:error:\s*)?(.*)")
_RESULT_RE = re.compile(r"(%" + BARE_NAME + r"|%\"[^\"]*\")\s*=\s*(?:(?:tail|musttail|notail)\s+)?([a-z_]+)")
_FUNCTION_RE = re.compile(r"(?:ptr\s+)?(@" + BARE_NAME + r"|@\"[^\"]*\")$")


def newer_rules(res: CheckResult) -> list[str] | None:
    """For an input LLVM read but whose verifier rejected it: the rules of LLVM 22's
    verifier that LLVM 19's lacks that every error is (``verifier_rules``), or None."""
    if not res.input_readable:
        return None
    from .verifier_rules import newer_verifier_rules

    return newer_verifier_rules(res.input_detail or res.input_message)


def input_error(res: CheckResult, text: str, path: str, bridged: str | None = None) -> LLNoaliasError:
    """The error for an input LLVM rejected (``CheckResult.input_rejected``): ``text`` is the input
    as llnoalias read it, ``bridged`` the copy the child read where the bridge changed it."""
    full = res.input_detail or res.input_message
    lines = [ln for ln in full.splitlines() if ln.strip()]
    first = lines[0].strip() if lines else "llvmlite's LLVM rejects this module"
    src_lines = text.splitlines()
    m = _POSITION_RE.match(first)
    if m is not None:
        line, col, message = int(m.group(1)), int(m.group(2)), m.group(3)
        col = _column(src_lines, bridged.splitlines() if bridged is not None else None, line, col)
        what = "llvmlite's LLVM cannot read this module"
    else:
        message = first.rstrip("!") if first.endswith("!") and not first.endswith("!!") else first
        line, col = _find(src_lines, [ln.strip() for ln in lines[1:3]])
        what = "the module does not pass llvmlite's LLVM verifier"
    source = src_lines[line - 1] if 0 < line <= len(src_lines) else ""
    notes = [f"{', '.join(res.rewrites)} rewrote the copy LLVM read (docs/bridge.md)"] if res.rewrites else []
    return LLNoaliasError(f"{what}: {message} (--no-verify skips the check)", Location(path, line, col, source),
                          notes=notes)


def _column(src: list[str], bridged: list[str] | None, line: int, col: int) -> int:
    """The character column in the input's ``line`` of LLVM's byte column ``col`` there."""
    if not 0 < line <= len(src):
        return col
    here = src[line - 1]
    there = bridged[line - 1] if bridged is not None and line <= len(bridged) else here
    if there != here:
        # the bridge changed this line: the token at the column, looked for in the input's line
        chars = len(there.encode("utf-8", "surrogateescape")[:col - 1].decode("utf-8", "replace"))
        token = re.match(r"\S+", there[chars:])
        at = here.find(token.group()) if token else -1
        return at + 1 if at >= 0 else len(here) - len(here.lstrip()) + 1
    return len(here.encode("utf-8", "surrogateescape")[:col - 1].decode("utf-8", "replace")) + 1


def _find(src: list[str], printed: list[str]) -> tuple[int, int]:
    """The input's line and column of what a verifier message prints after its first line
    (an instruction or a function as LLVM prints it); 1:1 when it is not found."""
    stripped = [ln.strip() for ln in src]
    for shown in printed:
        if not shown:
            continue
        hit = _line_of(src, stripped, shown)
        if hit is not None:
            return hit + 1, len(src[hit]) - len(src[hit].lstrip()) + 1
    return 1, 1


def _line_of(src: list[str], stripped: list[str], shown: str) -> int | None:
    if shown in stripped:
        return stripped.index(shown)
    m = _RESULT_RE.match(shown)
    if m is not None:
        pattern = re.compile(r"\s*" + re.escape(m.group(1)) + r"\s*=\s*(?:(?:tail|musttail|notail)\s+)?"
                             + re.escape(m.group(2)) + r"\b")
        return next((k for k, ln in enumerate(src) if pattern.match(ln)), None)
    f = _FUNCTION_RE.match(shown)
    if f is not None:
        # its definition or declaration, else its first use
        pattern = re.compile(r"\s*(?:define|declare)\b.*?" + re.escape(f.group(1)) + r"\s*\(")
        hit = next((k for k, ln in enumerate(src) if pattern.match(ln)), None)
        use = re.compile(re.escape(f.group(1)) + r"\b")
        return hit if hit is not None else next((k for k, ln in enumerate(src) if use.search(ln)), None)
    # an instruction without a result: what LLVM prints before the attributes it adds
    head = re.split(r",\s*(?:align|!)", shown, maxsplit=1)[0]
    return next((k for k, s in enumerate(stripped) if s.startswith(head)), None) if len(head) > 3 else None


__all__ = ["input_error", "newer_rules"]
