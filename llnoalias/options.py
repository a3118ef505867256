"""The settings of one annotation run, as the CLI and the library share them."""

from __future__ import annotations

from collections.abc import Iterable

from .plain import ValueRecord

LDS_MODES = ("dynamic", "all", "off")
ARGS_MODES = ("auto", "noalias", "off")
#: the garbage collector's young-generation threshold of a large run (Python's default is
#: 700): the command line sets it for its whole run, ``annotate()`` for a large module's call
GC_YOUNG_THRESHOLD = 100_000


class AnnotateOptions(ValueRecord):
    """What one annotation run does; each field is one option of the command line.

    Immutable, compared and hashed by value. A plain class, not a frozen dataclass: the
    ``dataclasses`` module and the code it generates cost every command-line run about
    10 ms of start-up."""

    __slots__ = ("lds", "args", "may_alias", "regions")
    _FIELDS = __slots__

    #: Which ``addrspace(3)`` globals are roots: ``dynamic`` (external zero-sized),
    #: ``all`` (sized ones too) or ``off``.
    lds: str
    #: Which kernel pointer arguments are roots: ``auto`` (those already ``noalias``),
    #: ``noalias`` (every pointer argument: the bindings rule) or ``off``.
    args: str
    #: Groups of argument indices that may share a buffer (``--may-alias 0,2``).
    may_alias: tuple[tuple[int, ...], ...]
    #: Split one root into byte-range regions (SPEC section 2b).
    regions: bool

    def __init__(self, lds: str = "dynamic", args: str = "auto",
                 may_alias: Iterable[str | Iterable[int]] = (), regions: bool = True) -> None:
        if lds not in LDS_MODES:
            raise ValueError(f"lds must be one of {', '.join(LDS_MODES)}, not {lds!r}")
        if args not in ARGS_MODES:
            raise ValueError(f"args must be one of {', '.join(ARGS_MODES)}, not {args!r}")
        set_ = object.__setattr__
        set_(self, "lds", lds)
        set_(self, "args", args)
        set_(self, "may_alias", parse_may_alias(may_alias))
        set_(self, "regions", regions)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: AnnotateOptions is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: AnnotateOptions is immutable")

    def replace(self, **changes: object) -> AnnotateOptions:
        """A copy with the given fields changed (what ``dataclasses.replace`` did)."""
        unknown = set(changes) - set(self._FIELDS)
        if unknown:
            raise TypeError(f"AnnotateOptions has no field {sorted(unknown)[0]!r}")
        values = self.as_dict()
        values.update(changes)
        return AnnotateOptions(**values)

    def __reduce__(self) -> tuple[object, ...]:
        return (AnnotateOptions, self._values())


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
