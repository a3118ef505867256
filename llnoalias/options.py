"""The settings of one annotation run, as the CLI and the library share them."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class AnnotateOptions:
    #: Which ``addrspace(3)`` globals are roots: ``dynamic`` (external zero-sized),
    #: ``all`` (sized ones too) or ``off``.
    lds: str = "dynamic"
    #: Which kernel pointer arguments are roots: ``auto`` (those already ``noalias``),
    #: ``noalias`` (every pointer argument: the bindings rule) or ``off``.
    args: str = "auto"
    #: Groups of argument indices that may share a buffer (``--may-alias 0,2``).
    may_alias: tuple[tuple[int, ...], ...] = field(default_factory=tuple)
    #: Split one root into byte-range regions (SPEC section 2b).
    regions: bool = True
