"""Value records without :mod:`dataclasses`.

Every command-line run imports the classes it uses; a ``@dataclass`` costs each start the
``dataclasses`` module (with ``inspect``: about 10 ms) and the generated methods it
compiles (about 1 ms a class). The classes on the annotate and check paths are plain
classes instead; :class:`Record` gives those that are results (reports, check results)
the equality, ``repr`` and ``asdict`` a dataclass had.
"""

from __future__ import annotations

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from typing import Any


class Record:
    """Equality, ``repr`` and a plain ``dict`` by the field names in ``_FIELDS`` (a
    subclass sets ``__slots__`` and ``_FIELDS = __slots__`` and writes its ``__init__``).
    Mutable, so not hashable, as a plain ``@dataclass``."""

    __slots__ = ()
    _FIELDS: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, f) for f in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclasses were

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS)
        return f"{self.__class__.__name__}({inner})"

    def as_dict(self) -> dict[str, Any]:
        """The fields as a ``dict``; lists and dicts are copied (as ``dataclasses.asdict``)."""
        out: dict[str, Any] = {}
        for f in self._FIELDS:
            v = getattr(self, f)
            out[f] = list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v
        return out
