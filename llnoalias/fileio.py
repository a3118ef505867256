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
from collections.abc import Iterable, Iterator

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


Data = bytes | str | Iterable[str]


#: streamed text is encoded and written in pieces of about this many characters: an
#: annotated module streams as hundreds of thousands of small chunks (the stretches between
#: edits and the edits), and one encode and one write per chunk cost a large module's run
#: about 0.1 s
BATCH_CHARS = 1 << 20


def _payloads(data: Data) -> Iterator[bytes]:
    if isinstance(data, bytes):
        yield data
    elif isinstance(data, str):
        yield encode(data)
    else:
        batch: list[str] = []
        size = 0
        for chunk in data:
            batch.append(chunk)
            size += len(chunk)
            if size >= BATCH_CHARS:
                yield encode("".join(batch))
                batch.clear()
                size = 0
        if batch:
            yield encode("".join(batch))


def _make_temporary(directory: str) -> tuple[int, str]:
    """``tempfile.mkstemp(prefix=".llnoalias-", suffix=".tmp", dir=directory)``, without
    importing ``tempfile`` (with ``shutil``, ``random`` and the compressors: a few ms of
    every run's start)."""
    for _ in range(100):
        tmp = os.path.join(directory, f".llnoalias-{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in '{directory}'")


def write_atomic(path: str, data: Data) -> None:
    """Replace ``path`` with ``data`` atomically: a temporary file, then a rename.

    On any failure (or Ctrl-C) the temporary file is removed and an existing ``path``
    is left exactly as it was.
    """
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = _make_temporary(directory)
    except FileNotFoundError:
        raise LLNoaliasError(f"cannot write '{path}': directory '{directory}' does not exist") from None
    except PermissionError:
        raise LLNoaliasError(f"cannot write '{path}': directory '{directory}' is not writable") from None
    except OSError as exc:
        raise LLNoaliasError(f"cannot write '{path}': {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            for payload in _payloads(data):
                fh.write(payload)
        # Keep the permissions of the file being replaced; a new file gets the usual
        # 0666 less the umask (mkstemp's 0600 would surprise a user).
        try:
            mode = os.stat(path).st_mode & 0o7777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        with contextlib.suppress(OSError):
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise LLNoaliasError(f"cannot write '{path}': {exc.strerror or exc}") from None
        raise


class StdoutClosed(Exception):
    """stdout was closed by its reader (``llnoalias in.ll | head``): end quietly.

    Not an ``OSError``, so that click lets it through to ``cli.main``."""


def write_stdout(data: Data) -> None:
    """Write to stdout; a closed pipe raises ``StdoutClosed``."""
    try:
        sys.stdout.flush()
        for payload in _payloads(data):
            sys.stdout.buffer.write(payload)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        raise StdoutClosed() from None


def write_output(path: str | None, data: Data) -> None:
    """Write to ``path`` atomically, or to stdout when ``path`` is None or ``-``."""
    if path is None or path == "-":
        write_stdout(data)
    else:
        write_atomic(path, data)
