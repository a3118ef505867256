"""Code generators behind ``llnoalias compile``.

- :mod:`.llvmlite_backend`: the LLVM inside llvmlite, always in a child process (it
  aborts the whole process on some inputs), for checking modules and emitting code.
- :mod:`.llc`: an external ``llc``.
- :mod:`.ptxas`: NVIDIA's ``ptxas``, PTX to cubin.

An external tool that fails raises :class:`ExternalToolError`, which carries the tool's
own stderr and exit status so that the CLI can hand both back unchanged (design section 6).
"""

from __future__ import annotations

from ..diagnostics import LLNoaliasError


def signal_name(signum: int) -> str:
    """``6`` -> ``"SIGABRT"``; a number that names no signal -> ``"signal N"``."""
    import signal  # here, not at import: every verified run imports this package

    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def exit_status(returncode: int) -> int:
    """A child's return code as a shell would report it (killed by signal N -> 128+N)."""
    if returncode < 0:
        return 128 + (-returncode)
    return returncode


class ExternalToolError(LLNoaliasError):
    """An external tool (``llc``, ``ptxas``) failed.

    ``stderr`` holds the tool's stderr byte for byte; ``exit_code`` is the tool's exit
    status (128+N when a signal N killed it), which the CLI exits with.
    """

    def __init__(self, tool: str, returncode: int, stderr: bytes | str):
        self.tool = tool
        self.returncode = returncode
        self.stderr: bytes = stderr.encode("utf-8", "surrogateescape") if isinstance(stderr, str) else stderr
        status = exit_status(returncode)
        if returncode < 0:
            message = f"{tool} was killed by {signal_name(-returncode)}"
        else:
            message = f"{tool} failed with exit status {returncode}"
        super().__init__(message, exit_code=status if status != 0 else 1)

    @property
    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", "replace")

    def format(self) -> str:
        """The tool's own stderr; a line of ours only when the tool said nothing."""
        text = self.stderr_text
        if text and not text.endswith("\n"):
            text += "\n"
        if not text.strip() or self.returncode < 0:
            text += super().format()
        return text


__all__ = ["ExternalToolError", "exit_status", "signal_name"]
