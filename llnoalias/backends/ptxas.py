"""NVIDIA's ``ptxas``: ``ptxas -arch=sm_90 [EXTRA] -o out.cubin in.ptx``."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence

from ..diagnostics import LLNoaliasError
from . import tools as _tools

_PTX_TARGET_RE = re.compile(r"^\s*\.target\s+(sm_[0-9]+[a-z]?)", re.MULTILINE)


def ptx_target(ptx_text: str) -> str | None:
    """The ``.target sm_XX`` a PTX file was written for, or None."""
    m = _PTX_TARGET_RE.search(ptx_text)
    return m.group(1) if m else None


def run(ptxas_path: str, ptx_text: str, arch: str, extra_args: Sequence[str] = (),
        *, timeout: float | None = None) -> bytes:
    """Assemble PTX into a cubin for ``arch`` (``sm_90``); return the cubin's bytes.

    A missing ptxas raises ``LLNoaliasError``; a failing one
    :class:`~llnoalias.backends.ExternalToolError` with its stderr and exit status.
    """
    try:
        exe = _tools.resolve("ptxas", ptxas_path)
    except LLNoaliasError as exc:
        raise LLNoaliasError(
            f"{exc.message}; a cubin needs NVIDIA's ptxas (CUDA toolkit): pass --ptxas PATH, "
            "or write PTX instead (-o OUT.ptx / --emit asm)") from None
    arch = arch or ptx_target(ptx_text) or ""
    if not arch:
        raise LLNoaliasError("no GPU architecture for ptxas: pass --mcpu (for example --mcpu=sm_90)")
    with tempfile.TemporaryDirectory(prefix="llnoalias-ptxas-") as tmp:
        src = os.path.join(tmp, "in.ptx")
        out = os.path.join(tmp, "out.cubin")
        with open(src, "wb") as fh:
            fh.write(ptx_text.encode("utf-8", "surrogateescape"))
        _tools.run("ptxas", [exe, f"-arch={arch}", *extra_args, "-o", out, src], None, timeout)
        try:
            with open(out, "rb") as fh:
                return fh.read()
        except FileNotFoundError:
            raise LLNoaliasError(f"ptxas ('{exe}') exited with status 0 but wrote no cubin") from None


def registers(ptx_text: str, arch: str = "", ptxas_path: str = "ptxas", *, timeout: float | None = 120.0) -> str:
    """What ``ptxas -v`` says about each function of ``ptx_text`` (registers, stack frame,
    spill bytes): its stderr, for ``stats.counters.ptxas_registers``. Raises
    ``LLNoaliasError`` when ptxas is missing or fails."""
    exe = _tools.resolve("ptxas", ptxas_path)
    arch = arch or ptx_target(ptx_text) or ""
    if not arch:
        raise LLNoaliasError("the PTX names no target (.target sm_XX)")
    said: list[bytes] = []

    def keep(stderr: bytes) -> bytes:
        said.append(stderr)
        return b""

    with tempfile.TemporaryDirectory(prefix="llnoalias-ptxas-") as tmp:
        src = os.path.join(tmp, "in.ptx")
        with open(src, "wb") as fh:
            fh.write(ptx_text.encode("utf-8", "surrogateescape"))
        _tools.run("ptxas", [exe, f"-arch={arch}", "-v", "-o", os.path.join(tmp, "out.cubin"), src], None,
                   timeout, check=keep)
    return b"".join(said).decode("utf-8", "replace")
