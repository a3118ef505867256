"""Code generation for ``llnoalias compile`` (and ``stats`` on ``.ll`` input).

One function, :func:`generate`: it reads the module's target (:mod:`llnoalias.target`),
picks the back end (llvmlite's LLVM in a child process, or ``--llc PATH``) and, for an
NVPTX object, turns the PTX into a cubin with ``ptxas``.
"""

from __future__ import annotations

from ..diagnostics import LLNoaliasError, note
from . import llc as llc_backend
from . import llvmlite_backend
from . import ptxas as ptxas_backend
from .target import Target, detect

EMIT_KINDS = ("asm", "obj")


def generate(ir_text: str, *, emit: str = "asm", mcpu: str | None = None, llc: str | None = None,
             llc_args: tuple[str, ...] = (), ptxas: str | None = None, timeout: float = 300.0) -> bytes:
    """Generate assembly (``emit="asm"``: AMDGPU ``.s`` or NVPTX PTX) or an object
    (``emit="obj"``: an AMDGPU ELF ``.o`` or an NVPTX cubin) from one module's text.

    ``mcpu`` overrides the module's ``"target-cpu"``; ``llc`` (a path or a name on PATH)
    replaces llvmlite's LLVM with an external ``llc`` that also gets ``llc_args``;
    ``ptxas`` is the ptxas that makes cubins (default: ``ptxas`` on PATH).

    Raises ``LLNoaliasError``, or ``backends.ExternalToolError`` (a subclass) when
    ``llc`` or ``ptxas`` fails.
    """
    if emit not in EMIT_KINDS:
        raise LLNoaliasError(f"unknown --emit '{emit}' (expected asm or obj)")
    if llc_args and not llc:
        raise LLNoaliasError(
            "extra arguments after '--' are for an external llc; pass --llc PATH to use one "
            f"(got: {' '.join(llc_args)})")
    target = detect(ir_text, mcpu)
    if target.is_nvptx and not target.cpu:
        if emit == "obj":
            raise LLNoaliasError(
                "the NVPTX module names no GPU (no \"target-cpu\" attribute); a cubin needs one: "
                "pass --mcpu (for example --mcpu=sm_90)")
        note("the NVPTX module names no GPU (no \"target-cpu\" attribute); the PTX is for the code "
             "generator's default target; pass --mcpu (for example --mcpu=sm_90) to choose one")
    if target.is_nvptx and emit == "obj":
        ptx = _codegen(ir_text, target, "asm", llc, llc_args, timeout).decode("utf-8", "surrogateescape")
        arch = target.cpu or ptxas_backend.ptx_target(ptx) or ""
        return ptxas_backend.run(ptxas or "ptxas", ptx, arch, timeout=timeout)
    return _codegen(ir_text, target, emit, llc, llc_args, timeout)


def _codegen(ir_text: str, target: Target, kind: str, llc: str | None, llc_args: tuple[str, ...],
             timeout: float) -> bytes:
    if llc:
        return llc_backend.run(llc, ir_text, target.triple, target.cpu, kind, llc_args, timeout=timeout)
    return llvmlite_backend.emit(ir_text, target.triple, target.cpu, kind, timeout)
