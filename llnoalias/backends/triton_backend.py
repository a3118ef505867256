"""Triton's bundled LLVM (``--codegen triton``): the code generator Triton's users ship with.

Triton 3.9 bundles LLVM 24 as a Python extension (``triton._C.libtriton.llvm``) and has no
``llc``; its AMD and NVIDIA back ends call ``translate_to_asm`` in process. So does this
module, in a child Python process that imports Triton (as llvmlite's LLVM runs in one,
:mod:`.llvmlite_backend`): LLVM 24 aborts the process on a module it cannot parse
(``LLVM ERROR: failed to parse IR``), and that must not take llnoalias down.

LLVM 24 reads every newer spelling the version bridge (:mod:`.bridge`, written for LLVM 22)
rewrites, and LLVM's reader upgrades most older intrinsic signatures. Not LLVM 19's
``llvm.amdgcn.make.buffer.rsrc`` with an ``i32`` record count (clang 19's and IREE's modules:
"intrinsic argument 2 type expected i64, but got i32", then "Broken module found"): the bridge's
two rewrites of that intrinsic (:data:`LLVM24_REWRITES`) are applied to the copy handed to it,
and only those. ``translate_to_asm`` generates code at ``-O3``: ``-O`` levels other than 3 are
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
#: the rewrites of :mod:`.bridge` that LLVM 24 needs too (older signatures its reader rejects)
LLVM24_REWRITES = ("amdgcn-make-buffer-rsrc-i64", "amdgcn-make-buffer-rsrc-overloaded-num-records")

#: the child: reads ``in.ll`` and ``request.json`` from its folder, writes ``out.bin`` and
#: ``result.json``
_CHILD = r"""
import json, os, sys
work = sys.argv[1]
req = json.load(open(os.path.join(work, "request.json")))
import triton
from triton._C.libtriton import llvm
llvm.init_targets()
# Triton takes a str it encodes as UTF-8: bytes that are not UTF-8 (a Latin-1 comment) become U+FFFD
ir = open(os.path.join(work, "in.ll"), encoding="utf-8", errors="replace").read().removeprefix("\ufeff")
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


def bridged(ir_text: str) -> tuple[str, list[str]]:
    """The copy of ``ir_text`` LLVM 24 reads, and the names of the rewrites applied."""
    from .bridge import REWRITES, apply_rewrites

    text, done = apply_rewrites(ir_text, [(r.name, r.needle, r.apply) for r in REWRITES if r.name in LLVM24_REWRITES])
    return text, [name for name, _ in done]


def emit(ir_text: str, triple: str, cpu: str, kind: str, timeout: float = 300.0, *, level: int = 3,
         about: dict[str, str] | None = None, rewrites: list[str] | None = None) -> bytes:
    """Generate assembly (``kind="asm"``) or an object (``"obj"``) with Triton's LLVM; the bridge
    rewrites it needed are appended to ``rewrites``."""
    require()
    ir_text, done = bridged(ir_text)
    if rewrites is not None:
        rewrites += done
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
