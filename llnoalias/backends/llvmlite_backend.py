"""llvmlite's LLVM, always in a child process.

llvmlite's LLVM aborts the whole process on some inputs (an assertion, an
``llvm_unreachable``: seen with ``llvm.amdgcn.raw.ptr.buffer.load.async.lds`` on LLVM 22)
and a module may emit code only once (a second emission from the same parsed module
aborts). So every use here starts one child (``_llvmlite_child.py``), hands it the text
through files in a temporary directory, waits with a timeout, and reads back a JSON
result: a child that aborts, hangs or prints junk never takes llnoalias down.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile

from ..diagnostics import LLNoaliasError, pass_on
from . import pending_check
from .bridge import bridge
from .child_result import CheckResult, ChildOutcome, _first_line, key_lines, read_result
from .cpus import parse_cpu_help, unknown_cpu, unknown_cpu_error
from .pending_check import CHILD_SCRIPT, PendingCheck

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CHILD_SCRIPT", "CheckResult", "ChildOutcome", "PendingCheck", "check_module", "emit", "key_lines"]


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
                [*pending_check._child_command(), workdir],
                env=pending_check._child_env(),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout,
            )
            returncode = proc.returncode
            stderr = proc.stderr
        except OSError as exc:  # the child could not be started
            raise pending_check._not_started(exc) from None
        except subprocess.TimeoutExpired as exc:
            # subprocess.run has killed and reaped the child.
            timed_out = True
            returncode = None
            stderr = exc.stderr or b""
        result = read_result(workdir)
        data: bytes | None = None
        out_path = os.path.join(workdir, "out.bin")
        if returncode == 0 and result.get("ok") and os.path.exists(out_path):
            with open(out_path, "rb") as fh:
                data = fh.read()
        return ChildOutcome(result=result, data=data, returncode=returncode, timed_out=timed_out,
                            stderr=stderr.decode("utf-8", "replace"))


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


def generator_name(about: dict[str, str]) -> str:
    """``llvmlite 0.50.0's LLVM 22.1.0`` from what a child said about itself."""
    lite, llvm = about.get("llvmlite", ""), about.get("llvm", "")
    return f"llvmlite{' ' + lite if lite else ''}'s LLVM{' ' + llvm if llvm else ''}"


def known_cpus(triple: str, timeout: float = 60.0) -> list[str]:
    """The CPUs llvmlite's LLVM knows for ``triple`` (its ``-mcpu=help`` list); empty
    when it cannot say."""
    return parse_cpu_help(_run_child({"op": "cpus", "triple": triple}, {}, timeout).stderr)


def emit(ir_text: str, triple: str, cpu: str, kind: str = "asm", timeout: float = 300.0,
         *, verify: bool = True, use_bridge: bool | None = None, optimize: bool = False,
         rewrites: list[str] | None = None, about: dict[str, str] | None = None, level: int = 3) -> bytes:
    """Generate ``kind`` (``asm`` or ``obj``) for ``triple``/``cpu`` at ``-O{level}`` (default 3).

    One child process, one parse, one emission. ``verify=False`` hands the module to the
    code generator without running the verifier first (LLVM may then abort; the child
    takes that). The module goes through :func:`.bridge.bridge` first (``use_bridge``
    as in :func:`check_module`); the names of the rewrites applied are appended to
    ``rewrites`` when it is given. ``optimize`` runs LLVM's ``-O3`` middle end before
    code generation. ``about`` gets ``llvmlite`` and ``llvm``, the versions that ran.
    Raises ``LLNoaliasError`` for anything that goes wrong, and
    :class:`.cpus.UnknownCPUError` when LLVM does not know ``cpu`` (or a function's
    ``"target-cpu"``), where it would have generated code for a generic processor.
    """
    if kind not in ("asm", "obj"):
        raise LLNoaliasError(f"unknown output kind '{kind}' (expected asm or obj)")
    if kind == "obj" and triple.startswith("nvptx"):
        raise LLNoaliasError(
            "llvmlite's LLVM cannot write an NVPTX object: PTX is text; write .ptx with --emit asm, "
            "or ask for a cubin (-o OUT.cubin or --emit obj) which goes through ptxas (--ptxas PATH)")
    ir_text, applied = bridge(ir_text, active=use_bridge)
    if rewrites is not None:
        rewrites.extend(applied)
    outcome = _run_child({"op": "emit", "input": "input.ll", "triple": triple, "cpu": cpu,
                          "kind": kind, "verify": verify, "opt": optimize, "level": level},
                         {"input.ll": ir_text}, timeout)
    r = outcome.result
    if about is not None:
        about.update({k: str(r[k]) for k in ("llvmlite", "llvm") if r.get(k)})
    where = f"{triple}{' -mcpu=' + cpu if cpu else ''}"
    unknown = unknown_cpu(outcome.stderr)
    if unknown is not None:
        # before anything else: LLVM also aborts on some modules for a generic processor
        raise unknown_cpu_error(unknown, triple, generator_name({k: str(r.get(k, "")) for k in ("llvmlite", "llvm")}),
                                known_cpus(triple))
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
        # LLVM's own warnings.
        # LLVM repeats a warning once per function and subtarget: say each line once.
        seen: list[str] = []
        for line in outcome.stderr.splitlines():
            if line.strip() and line not in seen:
                seen.append(line)
        pass_on("".join(f"{line}\n" for line in seen))
    return outcome.data

