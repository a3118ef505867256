"""The per-function analyses of one module, made on first request and kept until their
function is released, as LLVM's ``FunctionAnalysisManager`` keeps them: a function's
provenance (``ModuleAnalysis.function``), its ranges (``FunctionRanges``, made here and
nowhere else) and the module's work-group bounds (``workgroup.WorkGroups``).

Every part that asks a function's ranges asks this cache: the LDS-DMA address summaries
(``transform.dma_addresses``), the byte ranges of the regions (``transform.regions``) and
``check``'s footprints, so the ones that run on one function share one ``FunctionRanges``
and its answers.
"""

from __future__ import annotations

from .solver import FunctionRanges
from .workgroup import WorkGroups

TYPE_CHECKING = False  # ``typing`` is not imported at run time (start-up)
if TYPE_CHECKING:
    from ...ir.model import Function
    from ..provenance.solver import FunctionAnalysis, ModuleAnalysis


class FunctionAnalyses:
    """The analyses of ``ma``'s module, per function (see the module's docstring)."""

    __slots__ = ("ma", "mod", "family", "layout", "work_groups", "_ranges")

    def __init__(self, ma: ModuleAnalysis) -> None:
        self.ma = ma
        self.mod = mod = ma.mod
        self.family = mod.facts.family
        self.layout = mod.facts.layout
        #: the work-group bounds read in the module (by function and by their texts)
        self.work_groups = WorkGroups()
        self._ranges: dict[str, FunctionRanges] = {}

    def provenance(self, fn: Function) -> FunctionAnalysis:
        """``fn``'s provenance (the module analysis keeps it)."""
        return self.ma.function(fn)

    def ranges(self, fn: Function, fa: FunctionAnalysis | None = None) -> FunctionRanges:
        """``fn``'s ranges, over its provenance ``fa`` (by default ``provenance(fn)``)."""
        fr = self._ranges.get(fn.name)
        if fr is None:
            fr = self._ranges[fn.name] = FunctionRanges(self.mod, fn, fa if fa is not None else self.ma.function(fn),
                                                        self.family, self.layout, self.work_groups)
        return fr

    def release(self, fn: Function) -> None:
        """Forget ``fn``'s analyses: its ranges, its provenance and parsed operands
        (``ModuleAnalysis.release``); they are made again if asked for."""
        self._ranges.pop(fn.name, None)
        self.ma.release(fn)


__all__ = ["FunctionAnalyses"]
