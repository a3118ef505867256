"""Code generation for ``llnoalias compile`` (and ``stats`` on ``.ll`` input).

One function, :func:`generate`: it reads the module's target (:mod:`.target`), picks
the back end (llvmlite's LLVM in a child process, or ``--llc PATH``) and, for an NVPTX
object, turns the PTX into a cubin with ``ptxas``.

llvmlite's LLVM reads the module through the version bridge (:mod:`.bridge`). When
neither the bridge nor llvmlite can take the module, an ``llc`` found on this machine
(:func:`llc_candidates`) gets it. Nothing here prints: what the user should hear (the
triple that was inferred, the rewrites, the llc that was used) is appended to ``notes``.
"""

from __future__ import annotations

import dataclasses
import os
import shutil

from ..diagnostics import LLNoaliasError, Location, first_line
from ..options import CODEGEN, CODEGENS
from . import ExternalToolError, llvmlite_backend, triton_backend
from . import llc as llc_backend
from . import ptxas as ptxas_backend
from .cpus import UnknownCPUError
from .target import Target, detect

EMIT_KINDS = ("asm", "obj")

#: ``LLNOALIAS_LLC=PATH`` names the llc to fall back on first.
LLC_ENV = "LLNOALIAS_LLC"
#: Names looked up on PATH after ``$LLNOALIAS_LLC``, newest LLVM first after plain ``llc``.
LLC_NAMES = ("llc", *(f"llc-{v}" for v in range(24, 18, -1)))
#: The GPU for an NVPTX module that names none (Triton keeps its target outside the IR):
#: PTX for sm_80 also runs, compiled by the driver, on every later GPU.
DEFAULT_NVPTX_CPU = "sm_80"
#: ROCm's LLVM, looked at last.
ROCM_LLC = "/opt/rocm/llvm/bin/llc"


def llc_candidates() -> list[str]:
    """The llc executables on this machine, in the order the fallback tries them:
    ``$LLNOALIAS_LLC``, then ``llc``, ``llc-24`` .. ``llc-19`` on PATH, then ROCm's.
    The same file reached under two names is listed once."""
    found: list[str] = []
    seen: set[str] = set()
    env = os.environ.get(LLC_ENV, "").strip()
    names = ([env] if env else []) + list(LLC_NAMES)
    paths = [shutil.which(n) if os.sep not in n else (n if os.access(n, os.X_OK) else None) for n in names]
    paths.append(ROCM_LLC if os.access(ROCM_LLC, os.X_OK) else None)
    for path in paths:
        if not path or os.path.isdir(path):
            continue
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            found.append(path)
    return found


#: how the note of :func:`sync_note` starts (the CLI names the file before it, as before a bridge note)
SYNC_NOTE = "the version bridge rewrote the module's synchronization"
#: what the error and the note say the code generator must be
KEEPING_LLVM = "install Triton (--codegen triton) or give --llc with LLVM 24+"


def verdict_codegen(text: str, path: str, codegen: str = CODEGEN.default, llc: str | None = None,
                    notes: list[str] | None = None) -> str:
    """The code generator a *verdict* on ``text``'s waits is made with (``check``, compile's
    self-check, ``--best``, ``--repair``; design section 7): ``codegen`` itself, unless the
    version bridge would have to change the module's synchronization for llvmlite's LLVM
    (``bridge.sync_change``: explicit ``asyncmark`` waits, asynchronous LDS loads), where
    ``triton`` is taken when Triton is installed (said in ``notes``). ``llc`` (when given)
    and ``triton`` keep the module's waits as they are. Where no code generator that keeps
    them is at hand, a located ``LLNoaliasError`` (exit 2) names the construct: never a
    verdict on a program whose synchronization was changed."""
    if llc or codegen == "triton":
        return codegen
    from .sync import sync_change

    change = sync_change(text)
    if change is None:
        return _newer_only(text, path, codegen, notes)
    at = f"line {change.line}"
    if triton_backend.available():
        if notes is not None:
            notes.append(f"the module has {change.what} ({change.construct}, {at}) that llvmlite's LLVM (22) "
                         "cannot keep: its code is generated and judged with Triton's LLVM (--codegen triton)")
        return "triton"
    lines = text.splitlines()
    source = lines[change.line - 1] if change.line <= len(lines) else ""
    raise LLNoaliasError(f"{change.construct} ({change.what}) needs a code generator that keeps them: "
                         f"{KEEPING_LLVM}", Location(path, change.line, change.col, source))


def _newer_only(text: str, path: str, codegen: str, notes: list[str] | None) -> str:
    """``triton`` for a module that calls an asynchronous LDS operation LLVM 22 does not have and
    the bridge does not rewrite (gfx1250's five-group tensor operations, which LLVM 22 rejects as
    a broken module) when Triton is installed, a located error when it is not; else ``codegen``."""
    from ..analysis.memory.intrinsics import newer_than_llvm22

    got = newer_than_llvm22(text)
    if got is None:
        return codegen
    name, line, col = got
    if not triton_backend.available():
        lines = text.splitlines()
        raise LLNoaliasError(f"{name} is newer than llvmlite's LLVM (22), which rejects it: {KEEPING_LLVM}",
                             Location(path, line, col, lines[line - 1] if line <= len(lines) else ""))
    if notes is not None:
        notes.append(f"the module calls {name} (line {line}), which llvmlite's LLVM (22) rejects: "
                     "its code is generated and judged with Triton's LLVM (--codegen triton)")
    return "triton"


def sync_note(rewrites: list[str]) -> str | None:
    """The note for code generated through bridge rewrites that change synchronization
    (None when none of ``rewrites`` does): the code does not wait where the program does."""
    from .bridge import REWRITES

    changed = [r for r in REWRITES if r.changes_sync and r.name in rewrites]
    if not changed:
        return None
    what = "; ".join(f"{r.name}: {r.changes_sync}" for r in changed)
    return (f"{SYNC_NOTE} for llvmlite's LLVM (22) ({what}); "
            "LLVM 22 puts its own vmcnt waits, so the code does not wait where the program does: "
            f"to keep its waits, {KEEPING_LLVM}")


def generate(ir_text: str, *, emit: str = "asm", mcpu: str | None = None, llc: str | None = None,
             llc_args: tuple[str, ...] = (), ptxas: str | None = None, timeout: float = 300.0,
             triple: str | None = None, optimize: bool = False, notes: list[str] | None = None,
             fallback: bool = True, used: dict[str, str] | None = None, level: int = 3,
             codegen: str = CODEGEN.default) -> bytes:
    """Generate assembly (``emit="asm"``: AMDGPU ``.s`` or NVPTX PTX) or an object
    (``emit="obj"``: an AMDGPU ELF ``.o`` or an NVPTX cubin) from one module's text.

    ``mcpu`` overrides the module's ``"target-cpu"``, ``triple`` its triple (a module
    without one gets the one its kernels imply); ``llc`` (a path or a name on PATH)
    replaces llvmlite's LLVM with an external ``llc`` that also gets ``llc_args``;
    ``ptxas`` is the ptxas that makes cubins (default: ``ptxas`` on PATH). ``optimize``
    runs LLVM's ``-O3`` middle end first (llvmlite only; an llc runs its own ``-O3``
    code generation). ``fallback`` lets a module llvmlite cannot take go to an llc found
    by :func:`llc_candidates`. Lines for the user go to ``notes`` (dropped when None).
    ``level`` is the code generator's optimisation level (llc's ``-O0`` .. ``-O3``).
    ``codegen`` picks the embedded LLVM: ``llvmlite`` (22) or ``triton`` (Triton's bundled LLVM 24,
    :mod:`.triton_backend`; no fallback, no bridge); ``llc`` overrides both.
    ``used`` gets which code generator ran: ``generator`` (``llvmlite`` or ``llc``), with
    ``llvmlite`` and ``llvm`` (versions) or ``llc`` (its path).

    Raises ``LLNoaliasError``, or ``backends.ExternalToolError`` (a subclass) when
    ``llc`` or ``ptxas`` fails.
    """
    said: list[str] = notes if notes is not None else []
    if level not in (0, 1, 2, 3):
        raise LLNoaliasError(f"unknown code generation level -O{level} (expected 0 to 3)")
    if emit not in EMIT_KINDS:
        raise LLNoaliasError(f"unknown --emit '{emit}' (expected asm or obj)")
    if codegen not in CODEGENS:
        raise LLNoaliasError(f"unknown --codegen '{codegen}' (expected {' or '.join(CODEGENS)})")
    if codegen == "triton" and llc:
        raise LLNoaliasError("--codegen triton and --llc both name the code generator: pass one")
    if codegen == "triton" and optimize:
        raise LLNoaliasError("--opt runs llvmlite's middle end; it does not go with --codegen triton")
    if llc_args and not llc:
        raise LLNoaliasError(
            "extra arguments after '--' are for an external llc; pass --llc PATH to use one "
            f"(got: {' '.join(llc_args)})")
    target = detect(ir_text, mcpu, triple)
    if target.note:
        said.append(target.note)
    if target.cpu_note:
        said.append(target.cpu_note)
    if target.is_nvptx and not target.cpu:
        if emit == "obj":
            raise LLNoaliasError(
                "the NVPTX module names no GPU (no \"target-cpu\" attribute); a cubin needs one: "
                "pass --mcpu (for example --mcpu=sm_90)")
        said.append(f"the NVPTX module names no GPU (no \"target-cpu\" attribute); generating PTX for "
                    f"{DEFAULT_NVPTX_CPU}, which later GPUs run too; pass --mcpu (for example --mcpu=sm_90) to "
                    "choose another")
        target = dataclasses.replace(target, cpu=DEFAULT_NVPTX_CPU)
    run = _Codegen(ir_text, target, llc, llc_args, timeout, optimize, fallback, said,
                   used if used is not None else {}, level, codegen)
    if target.is_nvptx and emit == "obj":
        ptx = run("asm").decode("utf-8", "surrogateescape")
        arch = target.cpu or ptxas_backend.ptx_target(ptx) or ""
        return ptxas_backend.run(ptxas or "ptxas", ptx, arch, timeout=timeout)
    return run(emit)


class _Codegen:
    """One module's code generation: llvmlite (bridged), then an llc found here."""

    def __init__(self, ir_text: str, target: Target, llc: str | None, llc_args: tuple[str, ...],
                 timeout: float, optimize: bool, fallback: bool, notes: list[str], used: dict[str, str],
                 level: int = 3, codegen: str = CODEGEN.default):
        self.ir_text = ir_text
        self.codegen = codegen
        self.target = target
        self.llc = llc
        self.llc_args = llc_args
        self.timeout = timeout
        self.optimize = optimize
        self.fallback = fallback
        self.notes = notes
        self.used = used
        self.level = level

    def __call__(self, kind: str) -> bytes:
        t = self.target
        if self.llc:
            self.used.update(generator="llc", llc=self.llc)
            return llc_backend.run(self.llc, self.ir_text, t.triple, t.cpu, kind, self.llc_args,
                                   timeout=self.timeout, level=self.level)
        about: dict[str, str] = {}
        if self.codegen == "triton":
            done: list[str] = []
            data = triton_backend.emit(self.ir_text, t.triple, t.cpu, kind, self.timeout, level=self.level,
                                       about=about, rewrites=done)
            self.used.update(about)
            if done:
                self.notes.append("Triton's LLVM read the module through the version bridge: " + ", ".join(done))
            return data
        rewrites: list[str] = []
        try:
            data = llvmlite_backend.emit(self.ir_text, t.triple, t.cpu, kind, self.timeout,
                                         optimize=self.optimize, rewrites=rewrites, about=about,
                                         level=self.level)
        except (ExternalToolError, UnknownCPUError):
            raise
        except LLNoaliasError as exc:
            if not self.fallback:
                raise
            return self._fall_back(kind, exc, llvmlite_backend.generator_name(about))
        self.used.update(generator="llvmlite", **about)
        if rewrites:
            self.notes.append("llvmlite's LLVM read the module through the version bridge: "
                              + ", ".join(rewrites))
            said = sync_note(rewrites)
            if said:
                self.notes.append(said)
        return data

    def _fall_back(self, kind: str, failure: LLNoaliasError, llvmlite_name: str) -> bytes:
        candidates = llc_candidates()
        if not candidates:
            raise failure
        tried: list[str] = []
        t = self.target
        for exe in candidates:
            try:
                data = llc_backend.run(exe, self.ir_text, t.triple, t.cpu, kind, timeout=self.timeout,
                                       level=self.level)
            except UnknownCPUError:
                tried.append(f"{exe}: does not know the CPU '{t.cpu}'")
                continue
            except LLNoaliasError as exc:
                said = exc.stderr_text if isinstance(exc, ExternalToolError) else exc.message
                tried.append(f"{exe}: {first_line(said, exe) or exc.message}")
                continue
            self.notes.append(f"llvmlite's LLVM could not take the module ({failure.message}); "
                              f"generated code with {exe} instead")
            if self.optimize:
                self.notes.append(f"--opt runs llvmlite's middle end only; {exe} ran its -O{self.level} code generation")
            self.used.update(generator="llc", llc=exe)
            return data
        n = len(tried)
        raise LLNoaliasError(
            f"no code generator could take the module: {llvmlite_name} and the "
            f"{'llc' if n == 1 else f'{n} llc'} found on this machine failed",
            exit_code=failure.exit_code, notes=[_llvmlite_note(llvmlite_name, failure.message), *tried])


def _llvmlite_note(name: str, message: str) -> str:
    """llvmlite's failure as a note under its name and versions, without the advice to try
    an llc (every llc here was tried)."""
    message = message.split("; try ", 1)[0]
    own = "llvmlite's LLVM "
    return name + " " + message[len(own):] if message.startswith(own) else f"{name}: {message}"
