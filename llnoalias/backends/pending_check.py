"""The checking child that starts before the texts it checks exist.

Loading llvmlite's LLVM costs a child about as long as annotating a kernel costs the
parent, so the CLI starts the child first (:meth:`PendingCheck.start`), hands it the input
as soon as it has read it (:meth:`~PendingCheck.send_input`: the child parses and verifies
it while the parent annotates) and the output when it is written
(:meth:`~PendingCheck.finish`). When the output equals the input,
:meth:`~PendingCheck.cancel` ends the child.

Starting the child is on the critical path of every verified run, so this module imports
nothing but ``os`` and ``sys``: the child is spawned with ``os.posix_spawn`` (no
``subprocess``, whose import costs about 7 ms, nor ``tempfile``, another 7 ms), and what
only the verdict needs (:mod:`json`, the bridge, :mod:`.child_result`) is imported
while the child works. An abort, a hang or junk in the child is contained as in
:func:`.llvmlite_backend.check_module`.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from .child_result import CheckResult

CHILD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_llvmlite_child.py")


def _child_command() -> list[str]:
    """The command that starts the child; tests replace it to simulate a crash or a hang.

    The child needs the standard library and llvmlite only, so it starts without ``site``
    (``-S``: no ``.pth`` hooks, such as the 25 ms of an editable install's) and is told
    where llvmlite is (``LLNOALIAS_CHILD_PATH``, see :func:`_child_env`); where that
    cannot be found it starts as any Python program does. It is imported from its folder
    (the folder a script's run puts first on ``sys.path``) rather than run as a script,
    which Python compiles afresh at every start (1.5 ms, on the verified run's critical
    path): imported, it runs from the bytecode an install writes."""
    if not _llvmlite_dir():
        return [sys.executable, CHILD_SCRIPT]
    return [sys.executable, "-S", "-c", _CHILD_IMPORT, os.path.dirname(CHILD_SCRIPT)]


#: the child started from its bytecode: ``python -S -c _CHILD_IMPORT FOLDER ARGS...`` runs
#: as ``python -S FOLDER/_llvmlite_child.py ARGS...`` would
_CHILD_IMPORT = ("import sys; sys.path.insert(0, sys.argv.pop(1)); import _llvmlite_child as c; "
                 "sys.exit(c.main(sys.argv))")


_LLVMLITE_DIR: list[str | None] = []


def _llvmlite_dir() -> str | None:
    """The ``sys.path`` folder that holds the ``llvmlite`` package (found, not imported),
    or None (then the child finds it as any Python program does)."""
    if not _LLVMLITE_DIR:
        found: str | None = None
        for entry in sys.path:
            if entry and os.path.isfile(os.path.join(entry, "llvmlite", "__init__.py")):
                found = os.path.abspath(entry)
                break
        _LLVMLITE_DIR.append(found)
    return _LLVMLITE_DIR[0]


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    where = _llvmlite_dir()
    if where:
        env["LLNOALIAS_CHILD_PATH"] = where
    return env


def _make_workdir() -> str:
    """A new private folder for the child's files (``tempfile.mkdtemp`` without importing
    ``tempfile``; it is the fallback where ``$TMPDIR`` or ``/tmp`` cannot be used)."""
    base = os.environ.get("TMPDIR") or "/tmp"
    for _ in range(10):
        path = os.path.join(base, "llnoalias-llvmlite-" + os.urandom(8).hex())
        try:
            os.mkdir(path, 0o700)
            return path
        except FileExistsError:
            continue
        except OSError:
            break
    import tempfile

    return tempfile.mkdtemp(prefix="llnoalias-llvmlite-")


def _remove_workdir(path: str) -> None:
    try:
        for name in os.listdir(path):
            os.unlink(os.path.join(path, name))
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError:
        import shutil

        shutil.rmtree(path, ignore_errors=True)


def _bridges(text: str, active: bool | None) -> bool:
    """Does the bridge change ``text`` (or refuse it)? (``BridgeError`` is raised.)"""
    from .bridge import bridge

    return "\x00" in text or bool(bridge(text, active=active)[1])


class ChildTimeout(Exception):
    """:meth:`Child.wait` ran past its timeout."""


class Child:
    """A started child process: ``pid``, the write end of its stdin (``stdin``, a file
    descriptor, or None once closed), ``returncode`` once it has been waited for.

    Its stdout is a pipe the parent only reads to see it end: when the child exits, the
    pipe's end wakes :meth:`wait` at once (no polling), with a timeout."""

    def __init__(self, argv: list[str], env: dict[str, str], stderr_fd: int) -> None:
        stdin_r, stdin_w = os.pipe()
        out_r, out_w = os.pipe()
        try:
            self.pid = os.posix_spawn(argv[0], argv, env, file_actions=[
                (os.POSIX_SPAWN_DUP2, stdin_r, 0), (os.POSIX_SPAWN_DUP2, out_w, 1),
                (os.POSIX_SPAWN_DUP2, stderr_fd, 2)])
        except BaseException:
            for fd in (stdin_r, stdin_w, out_r, out_w):
                os.close(fd)
            raise
        os.close(stdin_r)
        os.close(out_w)
        self.stdin: int | None = stdin_w
        self._out: int | None = out_r
        self.returncode: int | None = None

    def write_line(self, line: str) -> bool:
        """Send one line on the child's stdin; False when the child is gone."""
        if self.stdin is None:
            return False
        try:
            os.write(self.stdin, f"{line}\n".encode())
            return True
        except OSError:  # BrokenPipeError: the child is gone
            return False

    def close_stdin(self) -> None:
        if self.stdin is not None:
            fd, self.stdin = self.stdin, None
            try:
                os.close(fd)
            except OSError:
                pass

    def wait(self, timeout: float | None = None) -> int:
        """The child's return code (negative: killed by that signal); raises
        :class:`ChildTimeout` when it has not ended within ``timeout`` seconds."""
        if self.returncode is not None:
            return self.returncode
        if self._out is not None:
            import select
            import time

            deadline = None if timeout is None else time.monotonic() + timeout
            while True:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                ready, _, _ = select.select([self._out], [], [], left)
                if not ready:
                    raise ChildTimeout
                try:
                    chunk = os.read(self._out, 65536)
                except OSError:
                    chunk = b""
                if not chunk:  # the child's end of the pipe closed: it is exiting
                    break
        _, status = os.waitpid(self.pid, 0)
        self.returncode = os.waitstatus_to_exitcode(status)
        self._close_out()
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            import signal

            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._close_out()  # wait() then reaps it without reading the pipe

    def _close_out(self) -> None:
        if self._out is not None:
            fd, self._out = self._out, None
            os.close(fd)


def _not_started(exc: OSError) -> Exception:
    """The child that runs llvmlite's LLVM could not be started (its folder, or the
    process): one error (design section 6), which says how annotating goes on without it."""
    from ..diagnostics import LLNoaliasError

    what = f"'{exc.filename}': " if exc.filename else ""
    return LLNoaliasError(f"cannot start the child process that runs llvmlite's LLVM: {what}"
                          f"{exc.strerror or exc} (annotating without the check: --no-verify)")


class PendingCheck:
    """A check of one module in a child started before its texts exist (see the module's
    docstring)."""

    def __init__(self, use_bridge: bool | None = None) -> None:
        #: ``use_bridge`` as in :func:`.llvmlite_backend.check_module`; the input's
        #: rewrites and the bridge's refusal (which ends the check with the bridge's
        #: message) are kept
        self.use_bridge = use_bridge
        self.rewrites: tuple[str, ...] = ()
        self.bridge_error: str | None = None
        #: the input as the child read it, where the bridge changed it (else None): where an
        #: error against the input is located (``input_error``)
        self.bridged_input: str | None = None
        #: whether the bridge rewrote what the child reads: with it off (``LLNOALIAS_BRIDGE=0``)
        #: a module LLVM 22 rejects may be one only a newer LLVM reads, so no error is made of it
        self.bridge_active = True
        #: whether the child reads the input as it is (the bridge changed nothing in it): then
        #: an output that adds only text the bridge leaves alone is handed over as it is too
        self.input_as_is = False
        try:
            self.workdir = _make_workdir()
        except OSError as exc:
            raise _not_started(exc) from None
        try:
            self._stderr = open(os.path.join(self.workdir, "stderr.txt"), "w+b")  # noqa: SIM115 - closed in _cleanup
        except OSError as exc:
            _remove_workdir(self.workdir)
            raise _not_started(exc) from None
        try:
            self.proc: Child | None = Child([*_child_command(), self.workdir, "--stream"], _child_env(),
                                            self._stderr.fileno())
        except BaseException as exc:
            self._cleanup()
            if isinstance(exc, OSError):
                raise _not_started(exc) from None
            raise

    @classmethod
    def start(cls, use_bridge: bool | None = None) -> PendingCheck:
        return cls(use_bridge)

    def _tell(self, name: str, text: str, written: str | None = None) -> None:
        if self.bridge_error is not None:
            return
        from .bridge import BridgeError, bridge, enabled

        self.bridge_active = enabled() if self.use_bridge is None else self.use_bridge
        try:
            # every text handed to a child goes through the bridge (as emit's module does), but
            # for an output that is an input the bridge left as it was plus ``written``, text
            # the bridge leaves as it is: each rewrite changes tokens within a line, and the
            # input's lines held none (its tokens are all the output's but for those written)
            if name != "output" or not self.input_as_is or written is None or _bridges(written, self.use_bridge):
                original = text
                text, applied = bridge(text, active=self.use_bridge)
                if name == "input":
                    self.input_as_is = not applied and "\x00" not in original
        except BridgeError as exc:
            self.bridge_error = exc.message
            return
        if name == "input":
            self.rewrites = tuple(applied)
            if applied:
                self.bridged_input = text
        with open(os.path.join(self.workdir, f"{name}.ll"), "wb") as fh:
            fh.write(text.encode("utf-8", "surrogateescape"))
        if self.proc is not None:
            self.proc.write_line(name)  # False: the child is gone; finish() says how

    def send_input(self, text: str) -> None:
        """Hand over the input: the child parses and verifies it now."""
        self._tell("input", text)

    def finish(self, output_text: str, timeout: float = 120.0, written: str | None = None) -> CheckResult:
        """Hand over the output and wait (at most ``timeout`` s) for the verdict. ``written``:
        all the text the output holds that the input did not (``AnnotateResult.written``),
        where it is known: with an input the bridge left as it was, and ``written`` that it
        leaves as it is too, the output is not searched again."""
        self._tell("output", output_text, written)
        return self._verdict(timeout)

    def finish_input(self, timeout: float = 120.0) -> CheckResult:
        """Wait (at most ``timeout`` s) for the input's verdict alone: the output is the
        input (nothing changed), there is nothing more to check."""
        return self._verdict(timeout)

    def _verdict(self, timeout: float) -> CheckResult:
        # What reading the verdict needs (json with it) is imported while the child checks
        # the output.
        from .child_result import CheckResult, ChildOutcome, _check_result, read_result

        if self.bridge_error is not None:
            self.cancel()
            return CheckResult(input_message=self.bridge_error, stage="bridge")
        proc = self.proc
        assert proc is not None, "finish() after cancel()"
        proc.close_stdin()
        timed_out = False
        returncode: int | None
        try:
            returncode = proc.wait(timeout=timeout)
        except ChildTimeout:
            proc.kill()
            proc.wait()
            timed_out = True
            returncode = None
        self.proc = None
        self._stderr.seek(0)
        stderr = self._stderr.read()
        result = read_result(self.workdir)
        self._cleanup()
        return _check_result(ChildOutcome(result=result, data=None, returncode=returncode, timed_out=timed_out,
                                          stderr=stderr.decode("utf-8", "replace")), self.rewrites)

    def cancel(self) -> None:
        """End the child without a verdict (nothing changed, or the run failed)."""
        proc = self.proc
        self.proc = None
        if proc is not None:
            proc.kill()
            proc.close_stdin()
            proc.wait()
        self._cleanup()

    def _cleanup(self) -> None:
        try:
            self._stderr.close()
        except OSError:
            pass
        _remove_workdir(self.workdir)
