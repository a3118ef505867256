"""An external ``llc``: ``llc -O3 -mtriple=T -mcpu=C -filetype=asm|obj [EXTRA] -o OUT -``."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence

from ..diagnostics import LLNoaliasError
from . import tools as _tools


def command(llc_path: str, triple: str, cpu: str, kind: str, extra_args: Sequence[str], out: str) -> list[str]:
    """The command line ``run`` uses (the module comes on stdin)."""
    argv = [llc_path, "-O3", f"-mtriple={triple}"]
    if cpu:
        argv.append(f"-mcpu={cpu}")
    argv += [f"-filetype={kind}", *extra_args, "-o", out, "-"]
    return argv


def run(llc_path: str, ir_text: str, triple: str, cpu: str, kind: str = "asm",
        extra_args: Sequence[str] = (), *, timeout: float | None = None) -> bytes:
    """Generate ``kind`` (``asm``/``obj``) with the ``llc`` at ``llc_path`` (path or name).

    ``-mtriple`` overrides the module's triple, so a Triton ``amdgpu9.50-...`` module
    reaches an LLVM that knows only ``amdgcn``. A failing llc raises
    :class:`~llnoalias.backends.ExternalToolError` with llc's stderr and exit status.
    """
    if kind not in ("asm", "obj"):
        raise LLNoaliasError(f"unknown output kind '{kind}' (expected asm or obj)")
    exe = _tools.resolve("llc", llc_path)
    with tempfile.TemporaryDirectory(prefix="llnoalias-llc-") as tmp:
        out = os.path.join(tmp, "out.o" if kind == "obj" else "out.s")
        _tools.run("llc", command(exe, triple, cpu, kind, extra_args, out),
                   ir_text.encode("utf-8", "surrogateescape"), timeout)
        try:
            with open(out, "rb") as fh:
                return fh.read()
        except FileNotFoundError:
            raise LLNoaliasError(f"llc ('{exe}') exited with status 0 but wrote no output") from None
