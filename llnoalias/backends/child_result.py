"""What a checking or emitting child left behind, and what it means: the records
:mod:`.llvmlite_backend` and :mod:`.pending_check` read a child's result into. Kept apart
from both so that reading a check's verdict imports nothing heavy."""

from __future__ import annotations

import json
import os

from ..plain import Record
from . import signal_name

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from typing import Any


def read_result(workdir: str) -> dict[str, Any]:
    """The JSON result a child left in ``workdir`` (possibly a partial one written before
    it died), or ``{}`` where there is none or it is not a JSON object."""
    try:
        with open(os.path.join(workdir, "result.json"), encoding="utf-8") as fh:
            loaded = json.load(fh)
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


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


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


class CheckResult(Record):
    """What llvmlite's LLVM said about an input module and its rewritten output."""

    __slots__ = ("input_readable", "input_verified", "output_checked", "output_ok", "message", "input_message",
                 "crashed", "timed_out", "returncode", "death", "stage", "stderr", "rewrites", "input_detail")
    _FIELDS = __slots__

    def __init__(self, input_readable: bool = False, input_verified: bool = False, output_checked: bool = False,
                 output_ok: bool = False, message: str = "", input_message: str = "", crashed: bool = False,
                 timed_out: bool = False, returncode: int | None = None, death: str = "", stage: str = "",
                 stderr: str = "", rewrites: tuple[str, ...] = (), input_detail: str = "") -> None:
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
        #: All llvmlite said about the input (a verifier error's second line prints what it is about).
        self.input_detail = input_detail

    @property
    def verified(self) -> bool:
        """The check could be made: the child finished and read the input."""
        return self.input_readable and not self.crashed and not self.timed_out

    @property
    def regression(self) -> bool:
        """The input verified and the output did not: llnoalias broke the module."""
        return self.verified and self.input_verified and not self.output_ok

    @property
    def input_rejected(self) -> bool:
        """llvmlite's LLVM read the input (as the bridge rewrote it) to the end and rejected
        it: it does not parse or does not verify (design section 6). Not where the check
        could not be made (a crash, a timeout) or the bridge named a construct that LLVM 22
        lacks and no rewrite stands in for (``stage == "bridge"``)."""
        if self.stage == "bridge" or self.crashed or self.timed_out:
            return False
        return not self.input_readable or not self.input_verified

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
        input_detail=str(r.get("input_message", "")),
    )
    if res.crashed and not res.death:
        res.death = "no result"
    if res.crashed or res.timed_out:
        # Whatever the child found out before it died about the output is not trusted.
        res.output_ok = False
    return res
