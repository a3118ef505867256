"""Triton's bundled LLVM (``--codegen triton``): the code generator Triton's users ship with.

Triton 3.9 bundles LLVM 24 as a Python extension (``triton._C.libtriton.llvm``) and has no
``llc``; its AMD and NVIDIA back ends call ``translate_to_asm`` in process. So does this
module, in a child Python process that imports Triton (as llvmlite's LLVM runs in one,
:mod:`.llvmlite_backend`): LLVM 24 aborts the process on a module it cannot parse
(``LLVM ERROR: failed to parse IR``), and that must not take llnoalias down.

LLVM 24 reads every newer spelling the version bridge (:mod:`.bridge`, written for LLVM 22)
rewrites, so the module goes to it as it is; older intrinsic signatures are upgraded by LLVM's
own reader. ``translate_to_asm`` generates code at ``-O3``: ``-O`` levels other than 3 are
refused rather than silently ignored.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile

from ..diagnostics import LLNoaliasError
from . import ExternalToolError

#: what ``--codegen`` takes
CODEGENS = ("llvmlite", "triton")

#: the child: reads ``in.ll`` and ``request.json`` from its folder, writes ``out.bin`` and
#: ``result.json``
_CHILD = r"""
import json, os, sys
work = sys.argv[1]
req = json.load(open(os.path.join(work, "request.json")))
import triton
from triton._C.libtriton import llvm
llvm.init_targets()
ir = open(os.path.join(work, "in.ll"), encoding="utf-8", errors="surrogateescape").read()
out = llvm.translate_to_asm(ir, req["triple"], req["cpu"], req.get("features", ""), [], True,
                            req["kind"] == "obj", False)
data = out if isinstance(out, bytes) else out.encode("utf-8", "surrogateescape")
open(os.path.join(work, "out.bin"), "wb").write(data)
json.dump({"ok": True, "triton": triton.__version__}, open(os.path.join(work, "result.json"), "w"))
"""


def available() -> bool:
    """Is Triton installed (without importing it)?"""
    try:
        return importlib.util.find_spec("triton") is not None
    except (ImportError, ValueError):
        return False


def require() -> None:
    """An error that says how to get Triton when it is not installed."""
    if not available():
        raise LLNoaliasError(
            "--codegen triton needs Triton (its bundled LLVM generates the code), and Triton is not installed "
            f"in this Python ({sys.executable}); pip install triton, or use --codegen llvmlite or --llc PATH")


def emit(ir_text: str, triple: str, cpu: str, kind: str, timeout: float = 300.0, *, level: int = 3,
         about: dict[str, str] | None = None) -> bytes:
    """Generate assembly (``kind="asm"``) or an object (``"obj"``) with Triton's LLVM."""
    require()
    if level != 3:
        raise LLNoaliasError(f"--codegen triton generates code at -O3 only (Triton's translate_to_asm); got -O{level}")
    with tempfile.TemporaryDirectory(prefix="llnoalias-triton-") as work:
        with open(os.path.join(work, "in.ll"), "wb") as fh:
            fh.write(ir_text.encode("utf-8", "surrogateescape"))
        with open(os.path.join(work, "request.json"), "w", encoding="utf-8") as fh:
            json.dump({"triple": triple, "cpu": cpu or "", "kind": kind}, fh)
        try:
            proc = subprocess.run([sys.executable, "-c", _CHILD, work], stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise LLNoaliasError(f"Triton's LLVM did not finish within {timeout:g} s") from None
        out = os.path.join(work, "out.bin")
        if proc.returncode != 0 or not os.path.exists(out):
            said = proc.stderr.decode("utf-8", "replace").splitlines()
            llvm_lines = [ln for ln in said if "LLVM ERROR" in ln or "error:" in ln]
            raise ExternalToolError("Triton's LLVM", proc.returncode or 1,
                                    "\n".join(llvm_lines or said[-20:]) + "\n")
        with open(os.path.join(work, "result.json"), encoding="utf-8") as fh:
            result = json.load(fh)
        if about is not None:
            about.update(generator="triton", triton=str(result.get("triton", "")))
        with open(out, "rb") as fh:
            return fh.read()
