"""Reading inputs and writing outputs without ever losing what the user had.

Text is decoded as UTF-8 with ``surrogateescape`` so that any byte that is not UTF-8
(a Latin-1 comment, a stray byte in a string constant) survives the round trip byte for
byte. Outputs are written to a temporary file in the target's directory and renamed over
the target only once the whole run has succeeded.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile

from .diagnostics import LLNoaliasError

ENCODING = "utf-8"
ERRORS = "surrogateescape"


def decode(data: bytes) -> str:
    return data.decode(ENCODING, ERRORS)


def encode(text: str) -> bytes:
    return text.encode(ENCODING, ERRORS)


def display_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def read_input(path: str) -> str:
    """Read ``path`` (``-`` for stdin) as text that round-trips byte for byte."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as fh:
                data = fh.read()
    except FileNotFoundError:
        raise LLNoaliasError(f"cannot open '{path}': no such file") from None
    except IsADirectoryError:
        raise LLNoaliasError(f"cannot read '{path}': it is a directory") from None
    except PermissionError:
        raise LLNoaliasError(f"cannot read '{path}': permission denied") from None
    except OSError as exc:
        raise LLNoaliasError(f"cannot read '{path}': {exc.strerror or exc}") from None
    return decode(data)


def write_atomic(path: str, data: bytes | str) -> None:
    """Replace ``path`` with ``data`` atomically: a temporary file, then a rename.

    On any failure (or Ctrl-C) the temporary file is removed and an existing ``path``
    is left exactly as it was.
    """
    payload = encode(data) if isinstance(data, str) else data
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".llnoalias-", suffix=".tmp", dir=directory)
    except FileNotFoundError:
        raise LLNoaliasError(f"cannot write '{path}': directory '{directory}' does not exist") from None
    except PermissionError:
        raise LLNoaliasError(f"cannot write '{path}': directory '{directory}' is not writable") from None
    except OSError as exc:
        raise LLNoaliasError(f"cannot write '{path}': {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        # Keep the permissions of the file being replaced, if there is one.
        with contextlib.suppress(OSError):
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise LLNoaliasError(f"cannot write '{path}': {exc.strerror or exc}") from None
        raise


def write_output(path: str | None, data: bytes | str) -> None:
    """Write to ``path`` atomically, or to stdout when ``path`` is None or ``-``."""
    if path is None or path == "-":
        payload = encode(data) if isinstance(data, str) else data
        sys.stdout.buffer.write(payload)
        sys.stdout.buffer.flush()
    else:
        write_atomic(path, data)
