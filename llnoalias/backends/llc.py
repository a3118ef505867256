"""An external ``llc``: ``llc -O3 -mtriple=T -mcpu=C -filetype=asm|obj [EXTRA] -o OUT -``."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Sequence

from ..diagnostics import LLNoaliasError
from . import ExternalToolError
from . import tools as _tools
from .cpus import parse_cpu_help, unknown_cpu, unknown_cpu_error

_VERSION_RE = re.compile(r"LLVM version (\S+)")


def _ask(argv: list[str], timeout: float = 30.0) -> str:
    """What a quick question to an llc printed, stdout then stderr ("" when it cannot be
    run; ``-mcpu=help`` answers on stderr, ``--version`` on stdout)."""
    try:
        proc = subprocess.run(argv, input=b"", capture_output=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return ""
    return (proc.stdout + proc.stderr).decode("utf-8", "replace")


def known_cpus(llc_path: str, triple: str) -> list[str]:
    """The CPUs the llc at ``llc_path`` knows for ``triple`` (its ``-mcpu=help``)."""
    return parse_cpu_help(_ask([llc_path, f"-mtriple={triple}", "-mcpu=help"]))


def version(llc_path: str) -> str:
    """The LLVM version of the llc at ``llc_path`` (``19.1.7``), or "" when it does not say."""
    m = _VERSION_RE.search(_ask([llc_path, "--version"]))
    return m.group(1) if m else ""


def command(llc_path: str, triple: str, cpu: str, kind: str, extra_args: Sequence[str], out: str,
            level: int = 3) -> list[str]:
    """The command line ``run`` uses (the module comes on stdin)."""
    argv = [llc_path, f"-O{level}", f"-mtriple={triple}"]
    if cpu:
        argv.append(f"-mcpu={cpu}")
    argv += [f"-filetype={kind}", *extra_args, "-o", out, "-"]
    return argv


def run(llc_path: str, ir_text: str, triple: str, cpu: str, kind: str = "asm",
        extra_args: Sequence[str] = (), *, timeout: float | None = None, level: int = 3) -> bytes:
    """Generate ``kind`` (``asm``/``obj``) with the ``llc`` at ``llc_path`` (path or name).

    ``-mtriple`` overrides the module's triple, so a Triton ``amdgpu9.50-...`` module
    reaches an LLVM that knows only ``amdgcn``. A failing llc raises
    :class:`~llnoalias.backends.ExternalToolError` with llc's stderr and exit status.
    """
    if kind not in ("asm", "obj"):
        raise LLNoaliasError(f"unknown output kind '{kind}' (expected asm or obj)")
    exe = _tools.resolve("llc", llc_path)

    def no_unknown_cpu(stderr: bytes) -> bytes:
        text = stderr.decode("utf-8", "replace")
        unknown = unknown_cpu(text)
        if unknown is not None:
            raise unknown_cpu_error(unknown, triple, exe, known_cpus(exe, triple),
                                    f"{exe} -mtriple={triple} -mcpu=help")
        return stderr

    with tempfile.TemporaryDirectory(prefix="llnoalias-llc-") as tmp:
        out = os.path.join(tmp, "out.o" if kind == "obj" else "out.s")
        try:
            _tools.run("llc", command(exe, triple, cpu, kind, extra_args, out, level),
                       ir_text.encode("utf-8", "surrogateescape"), timeout, check=no_unknown_cpu)
        except ExternalToolError as exc:
            no_unknown_cpu(exc.stderr)  # a generic processor may fail where the real one would not
            raise
        try:
            with open(out, "rb") as fh:
                return fh.read()
        except FileNotFoundError:
            raise LLNoaliasError(f"llc ('{exe}') exited with status 0 but wrote no output") from None
