"""The Triton compile hook (design section 9): annotate the ``llir`` stage before code generation.

    >>> import llnoalias.triton
    >>> llnoalias.triton.enable(lds="all")      # every later triton compile is annotated
    >>> llnoalias.triton.disable()

:func:`enable` installs a hook as ``triton.knobs.runtime.add_stages_inspection_hook``.
Triton calls that hook two ways:

- with no arguments, for a ``(key, hash)`` pair that ``triton.compile`` appends to its cache
  key and ``JITFunction`` adds to a kernel's specialization. Ours names llnoalias's version, a
  digest of its source files and the options, so a kernel compiled with other options or by
  another llnoalias is not taken from the cache;
- with ``(backend, stages, options, language, capability)`` from a backend's ``add_stages``:
  we replace ``stages["llir"]`` with a function that runs the original and passes its text
  through :func:`llnoalias.annotate` before the next stage (``amdgcn`` or ``ptx``) reads it.

With ``check=True`` (AMD GPUs), the annotated IR is compiled with Triton's own LLVM and judged
as ``llnoalias check`` judges it (design section 4b): in a function where it races and the
unannotated IR does not, the kernel keeps the unannotated function, with a
:class:`LLNoaliasWarning` that names it (a debug mode: it compiles each kernel twice more).

A hook that was installed before ours is kept and called first (its key is part of ours), and
:func:`disable` puts it back. When the text cannot be annotated the compile goes on with the
unannotated text and a :class:`LLNoaliasWarning` says why: the hook never breaks a compile
unless ``strict=True``. Importing this module does not import Triton; :func:`enable` does.
"""

from __future__ import annotations

import hashlib
import re
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .options import ARGS, LDS, MAY_ALIAS, REGIONS, AnnotateOptions

#: the first function a module defines, to name the kernel in warnings
_KERNEL_NAME = re.compile(r"^define [^@\n]*@\"?([-\w.$]+)", re.MULTILINE)

#: a compile stage as a backend's ``add_stages`` writes it: ``(module, metadata) -> module``
Stage = Callable[[Any, dict[str, Any]], Any]


class LLNoaliasWarning(UserWarning):
    """The hook left one kernel's LLVM IR unannotated (the message says why)."""


@dataclass(frozen=True)
class _Hook:
    """What Triton calls: see the module's docstring for the two ways."""

    options: AnnotateOptions
    strict: bool
    previous: Any  # the hook that was installed before ours, or None
    #: check the annotated AMDGPU code with Triton's LLVM (``enable(check=True)``)
    check: bool = False

    def key(self) -> str:
        o = self.options
        may_alias = ";".join(",".join(map(str, g)) for g in o.may_alias)
        return (f"llnoalias-{_version()}-{_source_digest()}-lds={o.lds}-args={o.args}"
                f"-may_alias={may_alias}-regions={int(o.regions)}-strict={int(self.strict)}"
                f"-check={int(self.check)}")

    def __call__(self, *args: Any) -> Any:
        if not args:
            key = self.key()
            if self.previous is not None:
                prev_key, _ = self.previous()
                key = f"{prev_key}+{key}"
            return key, hashlib.sha256(key.encode("utf-8")).hexdigest()
        if self.previous is not None:
            self.previous(*args)
        stages = args[1]
        inner = stages.get("llir")
        if inner is not None:
            arch = getattr(args[2], "arch", None) if len(args) > 2 else None
            stages["llir"] = self.wrap(inner, arch if isinstance(arch, str) else None)
        return None

    def wrap(self, inner: Stage, arch: str | None = None) -> Stage:
        def llir_then_annotate(src: Any, metadata: dict[str, Any]) -> Any:
            text = inner(src, metadata)
            out = self.annotate(text, metadata)
            if self.check and isinstance(out, str) and out is not text and arch and arch.startswith("gfx"):
                return self.checked(out, text, arch)
            return out

        return llir_then_annotate

    def checked(self, annotated: str, original: str, arch: str) -> str:
        """``annotated`` less llnoalias's claims in the functions where Triton's LLVM compiles
        it to an LDS-DMA race the unannotated IR does not have (``check.selfcheck``)."""
        from .check.selfcheck import checked_compile
        from .diagnostics import LLNoaliasError

        kernel = _KERNEL_NAME.search(original)
        path = f"<triton llir {kernel.group(1)}>" if kernel else "<triton llir>"
        try:
            sc = checked_compile(annotated, original, path, mcpu=arch, codegen="triton")
        except LLNoaliasError as err:
            if self.strict:
                raise
            warnings.warn(f"llnoalias: the check could not run, kernel left unannotated: {err.format()}",
                          LLNoaliasWarning, stacklevel=2)
            return original
        for fn, race in sc.withdrawn.items():
            warnings.warn(f"llnoalias: {path}: withdrew the claims in {fn}: Triton's LLVM compiled it to an "
                          f"LDS access (line {race.access.ir_line}) that runs while the LDS-DMA at line "
                          f"{race.dma.ir_line} may still write its bytes", LLNoaliasWarning, stacklevel=2)
        return sc.text or annotated

    def annotate(self, text: Any, metadata: dict[str, Any]) -> Any:
        """The stage's output annotated; the output itself when it cannot be."""
        if not isinstance(text, str):  # a Triton whose llir stage returns a module object
            warnings.warn(f"llnoalias: the llir stage returned {type(text).__name__}, not "
                          "LLVM IR text; kernel left unannotated", LLNoaliasWarning, stacklevel=2)
            return text
        from .api import annotate
        from .diagnostics import LLNoaliasError

        kernel = _KERNEL_NAME.search(text)
        path = f"<triton llir {kernel.group(1)}>" if kernel else "<triton llir>"
        try:
            return annotate(text, path=path, options=self.options, report=False).text
        except LLNoaliasError as err:
            if self.strict:
                raise
            warnings.warn(f"llnoalias: kernel left unannotated: {err.format()}",
                          LLNoaliasWarning, stacklevel=2)
        except Exception as err:  # a bug in llnoalias must not cost the user the compile
            if self.strict:
                raise
            warnings.warn(f"llnoalias: kernel left unannotated after an internal error "
                          f"({type(err).__name__}: {err}); please report it",
                          LLNoaliasWarning, stacklevel=2)
        return text


def _version() -> str:
    from . import __version__

    return __version__


@cache
def _source_digest() -> str:
    """A digest of llnoalias's own source files, so that an edited checkout (same version)
    does not reuse kernels that an older one annotated. Computed once per process."""
    h = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for p in sorted(root.rglob("*.py")):
        h.update(p.relative_to(root).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _knobs() -> Any:
    try:
        import triton
    except ImportError as err:
        raise ImportError("llnoalias.triton needs Triton: pip install triton (from a checkout of "
                          "llnoalias, pip install -e '.[triton]' installs it as the extra) "
                          f"(importing triton failed: {err})") from err
    knobs = getattr(triton, "knobs", None)
    runtime = getattr(knobs, "runtime", None)
    if runtime is None or not hasattr(runtime, "add_stages_inspection_hook"):
        raise ImportError(f"this Triton ({getattr(triton, '__version__', '?')}) has no "
                          "triton.knobs.runtime.add_stages_inspection_hook, which llnoalias.triton "
                          "needs (it is tested with Triton 3.9)")
    return runtime


def enable(*, lds: str = LDS.default, args: str = ARGS.default,
           may_alias: Iterable[str | Iterable[int]] = MAY_ALIAS.default, regions: bool = REGIONS.default,
           options: AnnotateOptions | None = None, strict: bool = False, check: bool = False) -> None:
    """Annotate the LLVM IR of every later Triton compile in this process.

    The keywords are :func:`llnoalias.annotate`'s (``options=`` instead of the four);
    ``strict=True`` lets an annotation error fail the compile instead of warning; ``check=True``
    judges each AMD kernel's annotated code with Triton's own LLVM and keeps the unannotated
    form of a function that races only with llnoalias's claims. Bad options raise here, not at
    the first compile. Calling it again replaces the options.
    """
    if options is None:
        options = AnnotateOptions(lds=lds, args=args, may_alias=tuple(may_alias),
                                  regions=regions)
    elif not isinstance(options, AnnotateOptions):
        raise TypeError(f"options must be an AnnotateOptions, not {type(options).__name__}")
    if not isinstance(regions, bool) or not isinstance(strict, bool) or not isinstance(check, bool):
        raise TypeError("regions, strict and check must be True or False")
    runtime = _knobs()
    current = runtime.add_stages_inspection_hook
    previous = current.previous if isinstance(current, _Hook) else current
    runtime.add_stages_inspection_hook = _Hook(options, strict, previous, check)


def disable() -> None:
    """Remove the hook (a hook installed before :func:`enable` comes back); a no-op when it
    is not installed or Triton is missing."""
    try:
        runtime = _knobs()
    except ImportError:
        return
    current = runtime.add_stages_inspection_hook
    if isinstance(current, _Hook):
        runtime.add_stages_inspection_hook = current.previous


def enabled() -> AnnotateOptions | None:
    """The options of the installed hook, or ``None`` when it is not installed."""
    try:
        runtime = _knobs()
    except ImportError:
        return None
    current = runtime.add_stages_inspection_hook
    return current.options if isinstance(current, _Hook) else None


__all__ = ["LLNoaliasWarning", "disable", "enable", "enabled"]
