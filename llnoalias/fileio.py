"""Reading inputs and writing outputs without ever losing what the user had.

Text is decoded as UTF-8 with ``surrogateescape`` so that any byte that is not UTF-8
(a Latin-1 comment, a stray byte in a string constant) survives the round trip byte for
byte. Outputs are written the way LLVM's tools write them (design section 6), and only once
the whole run has succeeded: a regular file (or a new one) through a temporary file in its
directory renamed over it; ``-`` to stdout; a device (``/dev/null``), FIFO or socket, and
the descriptors of ``/dev/stdout``, ``/dev/fd/N`` and ``/proc``, written through, never
replaced; a symlink followed, its final target replaced (or created) and the link kept.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
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
            if sys.stdin is None:  # llnoalias - <&-
                raise LLNoaliasError("cannot read '<stdin>': standard input is closed")
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


def _replace_atomically(path: str, data: Data, name: str) -> None:
    """Replace the regular file ``path`` (or create it) with ``data``: a temporary file in
    its directory, then a rename. On any failure (or Ctrl-C) the temporary file is removed
    and an existing ``path`` is left exactly as it was. ``name``: the path as the user gave
    it, for messages."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = _make_temporary(directory)
    except FileNotFoundError:
        raise LLNoaliasError(f"cannot write '{name}': directory '{directory}' does not exist") from None
    except PermissionError:
        raise LLNoaliasError(f"cannot write '{name}': directory '{directory}' is not writable") from None
    except OSError as exc:
        raise LLNoaliasError(f"cannot write '{name}': {exc.strerror or exc}") from None
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
            raise LLNoaliasError(f"cannot write '{name}': {exc.strerror or exc}") from None
        raise


#: paths that name one of this process's descriptors: written through as they are (a
#: rename would replace what the shell redirected to, or fail inside ``/proc``)
_STDOUT_PATHS = ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")
_STDERR_PATHS = ("/dev/stderr", "/dev/fd/2", "/proc/self/fd/2")


def _is_descriptor_path(path: str) -> bool:
    return path.startswith(("/dev/fd/", "/proc/")) or path in ("/dev/stdout", "/dev/stderr", "/dev/stdin")


def _write_through(path: str, data: Data) -> None:
    """Write ``data`` into ``path`` as it is (a device, a FIFO, a descriptor), never replacing
    it. The bytes are all made before it is opened, so that nothing is written at all when
    making them fails (a FIFO's reader sees the whole output or none of it)."""
    payloads = list(_payloads(data))
    if path in _STDOUT_PATHS:
        write_stdout(b"".join(payloads))
        return
    try:
        if path in _STDERR_PATHS:
            sys.stderr.flush()
            for payload in payloads:
                sys.stderr.buffer.write(payload)
            sys.stderr.buffer.flush()
            return
        # No O_CREAT: what was a device or FIFO when looked at is never made a regular file
        # here, and no O_TRUNC: a device has nothing to truncate.
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "wb") as fh:
            for payload in payloads:
                fh.write(payload)
    except BrokenPipeError:
        raise LLNoaliasError(f"cannot write '{path}': its reader closed it") from None
    except OSError as exc:
        raise LLNoaliasError(f"cannot write '{path}': {exc.strerror or exc}") from None


def write_atomic(path: str, data: Data) -> None:
    """Write ``data`` to the file ``path`` as LLVM's tools write an output (design section 6).

    A regular file, or a new one, is replaced atomically (:func:`_replace_atomically`).
    A symlink is followed: its final target is replaced (a dangling link's target is
    created), in the target's directory, and the link is kept. A device (``/dev/null``),
    FIFO or socket, and a path naming a descriptor (``/dev/stdout``, ``/dev/fd/N``), is
    written through and never replaced. A directory is an error. ``-`` is a file named
    ``-`` here; :func:`write_output` takes it as stdout.
    """
    if _is_descriptor_path(path):
        _write_through(path, data)
        return
    try:
        st = os.stat(path)  # follows symlinks: what the path names in the end
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        raise LLNoaliasError(f"cannot write '{path}': a part of it is not a directory") from None
    except OSError as exc:
        raise LLNoaliasError(f"cannot write '{path}': {exc.strerror or exc}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise LLNoaliasError(f"cannot write '{path}': it is a directory")
    if st is not None and not stat.S_ISREG(st.st_mode):
        _write_through(path, data)
        return
    # A regular file, a new one, or a symlink to either (a dangling one included): replace
    # or create the final target, where the link points, and keep the link.
    target = os.path.realpath(path) if os.path.islink(path) else path
    _replace_atomically(target, data, path)


class StdoutClosed(Exception):
    """stdout was closed by its reader (``llnoalias in.ll | head``): end quietly.

    Not an ``OSError``, so that click lets it through to ``cli.main``."""


def write_stdout(data: Data) -> None:
    """Write to stdout; a closed pipe raises ``StdoutClosed``, any other failure (a full disk,
    a closed descriptor) an ``LLNoaliasError``."""
    try:
        if sys.stdout is None:  # llnoalias in.ll >&-
            raise OSError(errno.EBADF, "standard output is closed")
        sys.stdout.flush()
        for payload in _payloads(data):
            sys.stdout.buffer.write(payload)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        raise StdoutClosed() from None
    except OSError as exc:
        raise LLNoaliasError(stdout_failure(exc)) from None


def stdout_failure(exc: OSError) -> str:
    """The message for a write to stdout that failed other than by a closed pipe."""
    return f"cannot write '<stdout>': {exc.strerror or exc}"


class ClosedStream(io.RawIOBase):
    """What ``sys.stdout`` becomes when the descriptor was closed (``>&-``): writing to it
    fails as writing to a closed descriptor does, so that a run that prints ends in one
    error line instead of a traceback, and a run that writes only files is not affected."""

    def writable(self) -> bool:
        return True

    def write(self, b: object) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


def write_output(path: str | None, data: Data) -> None:
    """Write to ``path`` (:func:`write_atomic`), or to stdout when ``path`` is None or ``-``."""
    if path is None or path == "-":
        write_stdout(data)
    else:
        write_atomic(path, data)
