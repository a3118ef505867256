"""llvmlite's LLVM, always in a child process.

llvmlite's LLVM aborts the whole process on some inputs (an assertion, an
``llvm_unreachable``: seen with ``llvm.amdgcn.raw.ptr.buffer.load.async.lds`` on LLVM 22)
and a module may emit code only once (a second emission from the same parsed module
aborts). So every use here starts one child (``_llvmlite_child.py``), hands it the text
through files in a temporary directory, waits with a timeout, and reads back a JSON
result: a child that aborts, hangs or prints junk never takes llnoalias down.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

from ..diagnostics import LLNoaliasError, pass_on
from ..plain import Record
from . import signal_name
from .bridge import BridgeError, bridge

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from typing import Any

CHILD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_llvmlite_child.py")


def _child_command() -> list[str]:
    """The command that starts the child; tests replace it to simulate a crash or a hang.

    The child needs the standard library and llvmlite only, so it starts without ``site``
    (``-S``: no ``.pth`` hooks, such as the 25 ms of an editable install's) and is told
    where llvmlite is (``LLNOALIAS_CHILD_PATH``, see :func:`_child_env`); where that
    cannot be found it starts as any Python program does."""
    return [sys.executable, "-S", CHILD_SCRIPT] if _llvmlite_dir() else [sys.executable, CHILD_SCRIPT]


_LLVMLITE_DIR: list[str | None] = []


def _llvmlite_dir() -> str | None:
    """The folder that holds the ``llvmlite`` package (found, not imported), or None."""
    if not _LLVMLITE_DIR:
        found: str | None = None
        try:
            import importlib.util

            spec = importlib.util.find_spec("llvmlite")
            if spec is not None and spec.origin and os.path.basename(spec.origin) == "__init__.py":
                found = os.path.dirname(os.path.dirname(spec.origin))
        except (ImportError, ValueError):
            pass
        _LLVMLITE_DIR.append(found)
    return _LLVMLITE_DIR[0]


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    where = _llvmlite_dir()
    if where:
        env["LLNOALIAS_CHILD_PATH"] = where
    return env


class ChildOutcome(Record):
    """What came back from one child run."""

    __slots__ = ("result", "data", "returncode", "timed_out", "stderr")
    _FIELDS = __slots__

    def __init__(self, result: dict[str, Any], data: bytes | None, returncode: int | None, timed_out: bool,
                 stderr: str) -> None:
        #: The child's JSON result (possibly a partial one written before a crash).
        self.result = result
        #: Emitted bytes (``emit`` only, when the child succeeded).
        self.data = data
        self.returncode = returncode
        self.timed_out = timed_out
        self.stderr = stderr

    @property
    def crashed(self) -> bool:
        return not self.timed_out and self.returncode != 0

    def death(self) -> str:
        """How the child ended, in words: 'SIGABRT', 'exit status 1', 'timeout'."""
        if self.timed_out:
            return "timed out"
        if self.returncode is not None and self.returncode < 0:
            return signal_name(-self.returncode)
        return f"exit status {self.returncode}"

    def last_words(self) -> str:
        """What the child said that explains its death (see :func:`key_lines`)."""
        return key_lines(self.stderr)



def key_lines(stderr: str) -> str:
    """The lines of a dying LLVM's stderr worth one message: an unknown CPU warning, then
    the ``LLVM ERROR``/assertion line; else the last line."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    picked: list[str] = []
    for needle in ("is not a recognized processor", "LLVM ERROR", "Assertion"):
        hit = next((ln for ln in lines if needle in ln), None)
        if hit and hit not in picked:
            picked.append(hit)
    if not picked and lines:
        picked.append(lines[-1])
    return "; ".join(picked[:2])


def _run_child(request: dict[str, Any], files: dict[str, str], timeout: float) -> ChildOutcome:
    with tempfile.TemporaryDirectory(prefix="llnoalias-llvmlite-") as workdir:
        for name, text in files.items():
            with open(os.path.join(workdir, name), "wb") as fh:
                fh.write(text.encode("utf-8", "surrogateescape"))
        with open(os.path.join(workdir, "request.json"), "w", encoding="utf-8") as fh:
            json.dump(request, fh)
        timed_out = False
        returncode: int | None
        try:
            proc = subprocess.run(
                [*_child_command(), workdir],
                env=_child_env(),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout,
            )
            returncode = proc.returncode
            stderr = proc.stderr
        except subprocess.TimeoutExpired as exc:
            # subprocess.run has killed and reaped the child.
            timed_out = True
            returncode = None
            stderr = exc.stderr or b""
        result: dict[str, Any] = {}
        try:
            with open(os.path.join(workdir, "result.json"), encoding="utf-8") as fh:
                loaded = json.load(fh)
            if isinstance(loaded, dict):
                result = loaded
        except (OSError, ValueError):
            pass
        data: bytes | None = None
        out_path = os.path.join(workdir, "out.bin")
        if returncode == 0 and result.get("ok") and os.path.exists(out_path):
            with open(out_path, "rb") as fh:
                data = fh.read()
        return ChildOutcome(result=result, data=data, returncode=returncode, timed_out=timed_out,
                            stderr=stderr.decode("utf-8", "replace"))


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


class CheckResult(Record):
    """What llvmlite's LLVM said about an input module and its rewritten output."""

    __slots__ = ("input_readable", "input_verified", "output_checked", "output_ok", "message", "input_message",
                 "crashed", "timed_out", "returncode", "death", "stage", "stderr", "rewrites")
    _FIELDS = __slots__

    def __init__(self, input_readable: bool = False, input_verified: bool = False, output_checked: bool = False,
                 output_ok: bool = False, message: str = "", input_message: str = "", crashed: bool = False,
                 timed_out: bool = False, returncode: int | None = None, death: str = "", stage: str = "",
                 stderr: str = "", rewrites: tuple[str, ...] = ()) -> None:
        #: The input parsed. False: llvmlite's LLVM cannot read it (newer or older syntax).
        self.input_readable = input_readable
        #: The input parsed and passed the verifier.
        self.input_verified = input_verified
        #: The output was parsed (it is only tried when the input was readable).
        self.output_checked = output_checked
        #: The output parsed and passed the verifier.
        self.output_ok = output_ok
        #: llvmlite's first line about the output (parse or verifier error), else empty.
        self.message = message
        #: llvmlite's first line about the input (parse or verifier error), else empty.
        self.input_message = input_message
        #: The child died (signal or non-zero exit) before it finished.
        self.crashed = crashed
        #: The child ran past the timeout and was killed.
        self.timed_out = timed_out
        #: The child's return code (negative: killed by that signal); None on timeout.
        self.returncode = returncode
        #: How the child died, in words ("SIGABRT", "exit status 1", "timed out"), else empty.
        self.death = death
        #: Where the child was when it died ("parse-input", "verify-output", ...).
        self.stage = stage
        #: The child's stderr (LLVM's assertion text when it aborted).
        self.stderr = stderr
        #: The bridge's rewrites applied to the copy llvmlite's LLVM read (see :mod:`.bridge`).
        self.rewrites = rewrites

    @property
    def verified(self) -> bool:
        """The check could be made: the child finished and read the input."""
        return self.input_readable and not self.crashed and not self.timed_out

    @property
    def regression(self) -> bool:
        """The input verified and the output did not: llnoalias broke the module."""
        return self.verified and self.input_verified and not self.output_ok

    def reason(self) -> str:
        """Why the output could not be verified, for one note on stderr."""
        if self.timed_out:
            return f"it took longer than the timeout while at '{self.stage or 'start'}'"
        if self.crashed:
            words = key_lines(self.stderr)
            tail = f": {words}" if words else ""
            return f"it crashed with {self.death} while at '{self.stage or 'start'}'{tail}"
        if not self.input_readable:
            return self.input_message or "it does not parse"
        return ""


def _child_text(text: str, use_bridge: bool | None = None) -> tuple[str, list[str]]:
    """A module's text as it is handed to the child, and the bridge's rewrites applied to
    it: the one place where that text is prepared (input and output of a check, the module
    of an emission). Raises :class:`.bridge.BridgeError` for a module the bridge refuses."""
    return bridge(text, active=use_bridge)


def _check_result(outcome: ChildOutcome, rewrites: tuple[str, ...] = ()) -> CheckResult:
    r = outcome.result
    res = CheckResult(
        input_readable=bool(r.get("input_readable", False)),
        input_verified=bool(r.get("input_verified", False)),
        output_checked=bool(r.get("output_checked", False)),
        output_ok=bool(r.get("output_ok", False)),
        message=_first_line(str(r.get("message", ""))),
        input_message=_first_line(str(r.get("input_message", ""))),
        crashed=outcome.crashed or (not outcome.timed_out and r.get("stage") != "done"),
        timed_out=outcome.timed_out,
        returncode=outcome.returncode,
        death=outcome.death() if (outcome.timed_out or outcome.returncode != 0) else "",
        stage=str(r.get("stage", "")),
        stderr=outcome.stderr,
        rewrites=rewrites,
    )
    if res.crashed and not res.death:
        res.death = "no result"
    if res.crashed or res.timed_out:
        # Whatever the child found out before it died about the output is not trusted.
        res.output_ok = False
    return res


class PendingCheck:
    """A check of one module in a child started before its texts exist.

    Loading llvmlite's LLVM costs a child about as long as annotating a kernel costs the
    parent, so the CLI starts the child first (:meth:`start`), hands it the input as soon
    as it has read it (:meth:`send_input`: the child parses and verifies it while the
    parent annotates) and the output when it is written (:meth:`finish`). When the output
    equals the input, :meth:`cancel` ends the child. An abort, a hang or junk in the child
    is contained as in :func:`check_module`.
    """

    def __init__(self, use_bridge: bool | None = None) -> None:
        #: ``use_bridge`` as in :func:`check_module`; the input's rewrites and the
        #: bridge's refusal (which ends the check with the bridge's message) are kept
        self.use_bridge = use_bridge
        self.rewrites: tuple[str, ...] = ()
        self.bridge_error: str | None = None
        self.workdir = tempfile.mkdtemp(prefix="llnoalias-llvmlite-")
        self._stderr = open(os.path.join(self.workdir, "stderr.txt"), "w+b")
        self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            [*_child_command(), self.workdir, "--stream"], stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=self._stderr, env=_child_env())

    @classmethod
    def start(cls, use_bridge: bool | None = None) -> PendingCheck:
        return cls(use_bridge)

    def _tell(self, name: str, text: str) -> None:
        if self.bridge_error is not None:
            return
        try:
            text, applied = _child_text(text, self.use_bridge)
        except BridgeError as exc:
            self.bridge_error = exc.message
            return
        if name == "input":
            self.rewrites = tuple(applied)
        with open(os.path.join(self.workdir, f"{name}.ll"), "wb") as fh:
            fh.write(text.encode("utf-8", "surrogateescape"))
        proc = self.proc
        if proc is not None and proc.stdin is not None:
            try:
                proc.stdin.write(f"{name}\n".encode())
                proc.stdin.flush()
            except (BrokenPipeError, OSError):
                pass  # the child is gone: finish() says how

    def send_input(self, text: str) -> None:
        """Hand over the input: the child parses and verifies it now."""
        self._tell("input", text)

    def finish(self, output_text: str, timeout: float = 120.0) -> CheckResult:
        """Hand over the output and wait (at most ``timeout`` s) for the verdict."""
        self._tell("output", output_text)
        if self.bridge_error is not None:
            self.cancel()
            return CheckResult(input_message=self.bridge_error, stage="bridge")
        proc = self.proc
        assert proc is not None, "finish() after cancel()"
        timed_out = False
        returncode: int | None
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        try:
            returncode = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            timed_out = True
            returncode = None
        self.proc = None
        self._stderr.seek(0)
        stderr = self._stderr.read()
        result: dict[str, Any] = {}
        try:
            with open(os.path.join(self.workdir, "result.json"), encoding="utf-8") as fh:
                loaded = json.load(fh)
            if isinstance(loaded, dict):
                result = loaded
        except (OSError, ValueError):
            pass
        self._cleanup()
        return _check_result(ChildOutcome(result=result, data=None, returncode=returncode, timed_out=timed_out,
                                          stderr=stderr.decode("utf-8", "replace")), self.rewrites)

    def cancel(self) -> None:
        """No check is needed: end the child and remove its files."""
        proc = self.proc
        self.proc = None
        if proc is not None:
            with contextlib.suppress(OSError):
                proc.kill()
            with contextlib.suppress(OSError):
                if proc.stdin is not None:
                    proc.stdin.close()
            proc.wait()
        self._cleanup()

    def _cleanup(self) -> None:
        with contextlib.suppress(OSError):
            self._stderr.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


def check_module(input_text: str, output_text: str, timeout: float = 120.0, *,
                 use_bridge: bool | None = None) -> CheckResult:
    """Parse and verify ``input_text``, then ``output_text``, in one child process.

    Both go through the same :func:`.bridge.bridge` first (``use_bridge=False``: not at
    all; None: unless ``LLNOALIAS_BRIDGE=0``); the output llnoalias writes is untouched.
    """
    pending = PendingCheck.start(use_bridge)
    try:
        pending.send_input(input_text)
        return pending.finish(output_text, timeout=timeout)
    finally:
        if pending.proc is not None:
            pending.cancel()


def emit(ir_text: str, triple: str, cpu: str, kind: str = "asm", timeout: float = 300.0,
         *, verify: bool = True, use_bridge: bool | None = None, optimize: bool = False,
         rewrites: list[str] | None = None) -> bytes:
    """Generate ``kind`` (``asm`` or ``obj``) for ``triple``/``cpu`` at ``-O3``.

    One child process, one parse, one emission. ``verify=False`` hands the module to the
    code generator without running the verifier first (LLVM may then abort; the child
    takes that). The module goes through :func:`.bridge.bridge` first (``use_bridge``
    as in :func:`check_module`); the names of the rewrites applied are appended to
    ``rewrites`` when it is given. ``optimize`` runs LLVM's ``-O3`` middle end before
    code generation. Raises ``LLNoaliasError`` for anything that goes wrong.
    """
    if kind not in ("asm", "obj"):
        raise LLNoaliasError(f"unknown output kind '{kind}' (expected asm or obj)")
    if kind == "obj" and triple.startswith("nvptx"):
        raise LLNoaliasError(
            "llvmlite's LLVM cannot write an NVPTX object: PTX is text; write .ptx with --emit asm, "
            "or ask for a cubin (-o OUT.cubin or --emit obj) which goes through ptxas (--ptxas PATH)")
    ir_text, applied = _child_text(ir_text, use_bridge)
    if rewrites is not None:
        rewrites.extend(applied)
    outcome = _run_child({"op": "emit", "input": "input.ll", "triple": triple, "cpu": cpu,
                          "kind": kind, "verify": verify, "opt": optimize}, {"input.ll": ir_text}, timeout)
    r = outcome.result
    where = f"{triple}{' -mcpu=' + cpu if cpu else ''}"
    if outcome.timed_out:
        raise LLNoaliasError(
            f"llvmlite's LLVM did not finish generating code for {where} within {timeout:g} s "
            f"(stopped at '{r.get('stage', 'start')}'); try --llc PATH")
    if outcome.crashed or r.get("stage") != "done":
        words = outcome.last_words()
        raise LLNoaliasError(
            f"llvmlite's LLVM crashed ({outcome.death()}) while generating code for {where} "
            f"(at '{r.get('stage', 'start')}')" + (f": {words}" if words else "")
            + "; try an external code generator with --llc PATH")
    if not r.get("ok") or outcome.data is None:
        err = r.get("error", "")
        msg = _first_line(str(r.get("message", ""))) or "no message"
        if err == "parse":
            raise LLNoaliasError(
                f"llvmlite's LLVM cannot read this module: {msg}; try --llc PATH with an LLVM that knows its syntax")
        if err == "verify":
            raise LLNoaliasError(f"the module does not pass llvmlite's LLVM verifier: {msg}")
        if err == "target":
            raise LLNoaliasError(f"llvmlite's LLVM has no code generator for {where}: {msg}")
        raise LLNoaliasError(f"llvmlite's LLVM failed to generate code for {where}: {msg}")
    if outcome.stderr.strip():
        # LLVM's own warnings ("'gfx9999' is not a recognized processor ...").
        # LLVM repeats a warning once per function and subtarget: say each line once.
        seen: list[str] = []
        for line in outcome.stderr.splitlines():
            if line.strip() and line not in seen:
                seen.append(line)
        pass_on("".join(f"{line}\n" for line in seen))
    return outcome.data

