"""Running an external tool: find it, run it with a timeout, turn failures into errors."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence

from ..diagnostics import LLNoaliasError, pass_on
from . import ExternalToolError


def resolve(tool: str, path: str) -> str:
    """The executable for ``path`` (a path or a name looked up on PATH), or an error."""
    if os.sep in path or (os.altsep and os.altsep in path):
        if not os.path.exists(path):
            raise LLNoaliasError(f"cannot run {tool}: '{path}' does not exist")
        if os.path.isdir(path) or not os.access(path, os.X_OK):
            raise LLNoaliasError(f"cannot run {tool}: '{path}' is not an executable file")
        return path
    found = shutil.which(path)
    if found is None:
        raise LLNoaliasError(f"cannot run {tool}: '{path}' is not on PATH; pass the tool's full path")
    return found


def run(tool: str, argv: Sequence[str], stdin: bytes | None, timeout: float | None,
        check: Callable[[bytes], bytes] | None = None) -> bytes:
    """Run ``argv``; return its stdout. A non-zero exit raises :class:`ExternalToolError`.
    ``check`` sees the stderr of a run that succeeded before it is passed on: it may
    raise, and returns what is still to be passed on."""
    try:
        proc = subprocess.run(list(argv), input=stdin if stdin is not None else b"",
                              capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise LLNoaliasError(f"{tool} ('{argv[0]}') did not finish within {timeout:g} s") from None
    except OSError as exc:
        raise LLNoaliasError(f"cannot run {tool} '{argv[0]}': {exc.strerror or exc}") from None
    if proc.returncode != 0:
        raise ExternalToolError(tool, proc.returncode, proc.stderr)
    stderr = check(proc.stderr) if check is not None and proc.stderr else proc.stderr
    if stderr:
        # The tool's own warnings, as it wrote them.
        pass_on(stderr)
    return proc.stdout
