"""The settings of one annotation run, as the CLI and the library share them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

LDS_MODES = ("dynamic", "all", "off")
ARGS_MODES = ("auto", "noalias", "off")


@dataclass(frozen=True)
class AnnotateOptions:
    """What one annotation run does; each field is one option of the command line."""

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

    def __post_init__(self) -> None:
        if self.lds not in LDS_MODES:
            raise ValueError(f"lds must be one of {', '.join(LDS_MODES)}, not {self.lds!r}")
        if self.args not in ARGS_MODES:
            raise ValueError(f"args must be one of {', '.join(ARGS_MODES)}, not {self.args!r}")
        object.__setattr__(self, "may_alias", parse_may_alias(self.may_alias))


def parse_may_alias(groups: Iterable[str | Iterable[int]]) -> tuple[tuple[int, ...], ...]:
    """``--may-alias`` groups, each ``"0,2"`` or ``(0, 2)``: sorted, at least two indices >= 0.
    Raises ``ValueError`` with the message the command line shows."""
    out: list[tuple[int, ...]] = []
    for spec in groups:
        try:
            parts = spec.split(",") if isinstance(spec, str) else list(spec)
            idx = tuple(sorted({int(p) for p in parts if not (isinstance(p, str) and p.strip() == "")}))
        except (TypeError, ValueError):
            raise ValueError(f"'{spec}' is not a comma-separated list of argument indices") from None
        if len(idx) < 2 or any(i < 0 for i in idx):
            raise ValueError(f"'{spec}' must name at least two argument indices (>= 0)")
        out.append(idx)
    return tuple(out)
