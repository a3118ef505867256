"""The public Python API (design section 9): what a DSL compiler calls in its own process, and
what the command line calls for every file.

    >>> import llnoalias
    >>> result = llnoalias.annotate(ir_text, lds="all", args="noalias")
    >>> result.text, result.changed, result.report.to_json()   # the --report JSON text; .as_dict() for the dict

Bad input raises :class:`llnoalias.LLNoaliasError` (its ``format()`` is the
``FILE:LINE:COL: error:`` message the command line prints); bad options raise ``ValueError``.
Nothing here prints, reads files, or starts a process.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable

from .options import ARGS, LDS, MAY_ALIAS, REGIONS, AnnotateOptions
from .transform.pipeline import AnnotateResult, annotate_text
from .transform.stages import StageLog
from .transform.workers import usable_cpus


class _Default(str):
    """A keyword's default, told apart from the same word given (``args="auto"``)."""


class _NoGroups(tuple):
    """``may_alias``'s default, told apart from a ``()`` given."""


_LDS_DEFAULT = _Default(LDS.default)
_ARGS_DEFAULT = _Default(ARGS.default)
_NO_GROUPS = _NoGroups(MAY_ALIAS.default)


def annotate(text: str, *, lds: str = _LDS_DEFAULT, args: str = _ARGS_DEFAULT,
             may_alias: Iterable[str | Iterable[int]] | str = _NO_GROUPS, regions: bool = REGIONS.default,
             path: str = "<string>", options: AnnotateOptions | None = None,
             report: bool = True, jobs: int = 1, stages: StageLog | None = None,
             release: bool = True) -> AnnotateResult:
    """Annotate one module's text and return the result.

    The keyword arguments are the command line's options (their defaults too:
    ``llnoalias.options.OPTIONS``):

    - ``lds``: ``"dynamic"`` (external zero-sized ``addrspace(3)`` globals), ``"all"``, ``"off"``;
    - ``args``: ``"auto"`` (kernel pointer arguments already ``noalias``), ``"noalias"``
      (every kernel pointer argument, IREE's bindings rule), ``"off"``;
    - ``may_alias``: groups of argument indices that may share a buffer, each ``"0,2"`` or
      ``(0, 2)`` (``["0,2", "1,3"]``; one group may be given alone: ``may_alias="0,2"``): they
      get no ``noalias`` and share one scope;
    - ``regions``: split one LDS buffer into byte-range regions (design section 2b);
    - ``path``: the name diagnostics and the report use for this text;
    - ``options``: an :class:`AnnotateOptions` instead of the four keywords above (with it,
      any of them given is a ``TypeError``, not silently dropped);
    - ``report``: ``False`` keeps only the report's summary and frees the parsed module
      early (for very large modules), unless ``release`` is ``False`` (a caller that ends
      next: freeing takes time and lowers no peak);
    - ``jobs``: processes that may analyse the functions of a large module (about 20,000
      instructions each at the least): 1 (the default) keeps the whole run in the calling
      process, 0 means one per CPU it may use (at most ``AUTO_JOBS_LIMIT``). Workers are
      forked, so only where ``fork`` exists and the caller runs no other thread; elsewhere
      the run stays in-process. The result does not depend on it.
    - ``stages``: a :class:`llnoalias.transform.stages.StageLog` made with the names of the
      stages to see (``StageLog(["ranges"])``); after the call its ``text()`` is what each
      concluded (``--print-after``). The run then stays in the calling process.

    The result has ``text`` (the rewritten module; equal to ``text`` when nothing was
    tagged), ``changed``, ``report`` (what ``--report`` writes: ``report.to_json()``, the JSON text;
    ``report.as_dict()`` is the same as a ``dict``) and
    ``chunks()`` to stream the text. The output is not verified here: a DSL that wants the
    check hands ``result.text`` to its own LLVM, as it would hand the input. Nor is it compiled:
    the command line's own check of a module with an LDS-DMA (per function the input's lines
    where the claims add a race, spills or ``vmcnt`` waits) is
    ``llnoalias.check.best.choose(result.text, text, path).text``.
    """
    if options is None:
        options = AnnotateOptions(lds=lds, args=args, may_alias=may_alias, regions=regions)
    else:
        given = [f"{name}={value!r}" for name, value, unset in (
            ("lds", lds, lds is _LDS_DEFAULT), ("args", args, args is _ARGS_DEFAULT),
            ("may_alias", may_alias, may_alias is _NO_GROUPS), ("regions", regions, regions == REGIONS.default))
            if not unset]
        if given:
            raise TypeError(f"annotate() takes the options as options= or as keywords, not both: "
                            f"{', '.join(given)} beside options= (put it in the AnnotateOptions)")
    if not isinstance(text, str):
        raise TypeError(f"annotate() takes the module's text as str, not {type(text).__name__}")
    if jobs < 0:
        raise ValueError(f"jobs must be 0 (one per CPU) or more, not {jobs}")
    if jobs == 0:
        jobs = min(usable_cpus(), AUTO_JOBS_LIMIT)
    if len(text) < LARGE_INPUT or not gc.isenabled():
        return annotate_text(text, path, options, want_report=report, jobs=jobs, stages=stages, release=release)
    # A large module makes millions of small objects that live until the module is
    # written and hold no cycles (a 240k-line run's collections found 11 objects in all):
    # every collection rescans the survivors for nothing, 5-7% of the run even with a
    # young generation of 100,000 (the command line's setting). The collector is off for
    # the call (forked workers inherit that) and back on when it returns, when any cycle
    # the call left is collected as usual.
    gc.disable()
    try:
        return annotate_text(text, path, options, want_report=report, jobs=jobs, stages=stages, release=release)
    finally:
        gc.enable()


#: ``jobs=0`` uses one process per CPU, up to this many: each worker adds the pages it
#: writes to the run's memory (about a third of the parent's, measured with one worker)
AUTO_JOBS_LIMIT = 8

#: inputs of at least this many characters are annotated with the cyclic collector off
#: (smaller ones leave it as the caller has it)
LARGE_INPUT = 1 << 20


__all__ = ["AnnotateOptions", "AnnotateResult", "annotate"]
