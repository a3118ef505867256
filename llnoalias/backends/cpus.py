"""The CPUs a code generator knows, and the error for one it does not.

LLVM takes an unknown ``-mcpu`` with a warning only (``'gfx9999' is not a recognized
processor for this target (ignoring processor)``) and generates code for a generic
processor, which is wrong for every real GPU. :func:`unknown_cpu` finds that warning in
what a code generator said; :func:`unknown_cpu_error` makes it the error ``compile`` and
``stats`` stop with, naming the CPUs that come close. The list is the one LLVM prints for
``-mcpu=help`` (:func:`parse_cpu_help`): the code generator that ran is asked, so a CPU
is judged by the LLVM that would have generated the code."""

from __future__ import annotations

import difflib
import re

from ..diagnostics import LLNoaliasError

_UNRECOGNIZED_RE = re.compile(r"'([^'\n]*)' is not a recognized processor for this target")
_CPU_LINE_RE = re.compile(r"^\s+(\S+)\s+- ")


def unknown_cpu(stderr: str) -> str | None:
    """The CPU an LLVM tool's stderr says it did not recognise, or None."""
    m = _UNRECOGNIZED_RE.search(stderr)
    return m.group(1) if m else None


def without_unknown_cpu_lines(stderr: str) -> str:
    """``stderr`` less the lines about an unrecognised processor (the error says it)."""
    return "".join(ln for ln in stderr.splitlines(keepends=True) if not _UNRECOGNIZED_RE.search(ln))


def parse_cpu_help(text: str) -> list[str]:
    """The CPU names of ``-mcpu=help``'s "Available CPUs for this target:" section."""
    names: list[str] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("Available CPUs"):
            inside = True
            continue
        if inside and line.startswith("Available "):
            break
        m = _CPU_LINE_RE.match(line) if inside else None
        if m:
            names.append(m.group(1))
    return names


def close_names(cpu: str, known: list[str], n: int = 3) -> list[str]:
    """The known CPUs that come closest to ``cpu`` (none when nothing is close)."""
    return difflib.get_close_matches(cpu, known, n=n, cutoff=0.6)


class UnknownCPUError(LLNoaliasError):
    """The code generator does not know the CPU; never worth retrying with another one
    silently (an older llc would not know it either, or would know a different list)."""


def unknown_cpu_error(cpu: str, triple: str, generator: str, known: list[str],
                      listing: str = "") -> UnknownCPUError:
    """``'gfx9999' is not a CPU GENERATOR knows for TRIPLE``, with the close names as a
    note and, when given, the command that lists them all (``listing``)."""
    notes: list[str] = []
    near = close_names(cpu, known)
    if near:
        notes.append("did you mean " + ", ".join(near) + "?")
    if known:
        notes.append(f"{generator} knows {len(known)} CPUs for {triple}"
                     + (f"; '{listing}' lists them" if listing else ""))
    return UnknownCPUError(
        f"'{cpu}' is not a CPU {generator} knows for {triple} (LLVM would generate code for a "
        "generic processor); pass --mcpu with one it knows", notes=notes)


__all__ = ["UnknownCPUError", "close_names", "parse_cpu_help", "unknown_cpu", "unknown_cpu_error",
           "without_unknown_cpu_lines"]
