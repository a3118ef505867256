"""Value records without :mod:`dataclasses`.

Every command-line run imports the classes it uses; a ``@dataclass`` costs each start the
``dataclasses`` module (with ``inspect``: about 10 ms) and the generated methods it
compiles (about 1 ms a class). The classes on the annotate and check paths are plain
classes instead: :class:`Record` gives them the equality, ``repr`` and ``asdict`` a
dataclass had, :class:`ValueRecord` also the hash of a frozen one. A subclass names its
fields in ``_FIELDS`` (usually ``_FIELDS = __slots__``) and writes its ``__init__``.
"""

from __future__ import annotations

from operator import attrgetter

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Record:
    """Equality, ``repr`` and a plain ``dict`` by the field names in ``_FIELDS``, as a
    ``@dataclass`` has them. Mutable, so not hashable."""

    __slots__ = ()
    _FIELDS: tuple[str, ...] = ()
    #: the fields' values as a tuple, made once per class (``attrgetter`` builds the tuple in
    #: C: equality and hashing are on the analysis's hot paths, e.g. scope keys)
    _values_of: Callable[[object], tuple[object, ...]] = staticmethod(lambda obj: ())

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names = cls._FIELDS
        if len(names) >= 2:
            cls._values_of = staticmethod(attrgetter(*names))
        elif names:
            one = attrgetter(names[0])
            cls._values_of = staticmethod(lambda obj: (one(obj),))

    def _values(self) -> tuple[object, ...]:
        return self._values_of(self)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        get = self._values_of
        return bool(get(self) == get(other))

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


class ValueRecord(Record):
    """A :class:`Record` whose fields are not changed once it is made: hashed by value, as
    a ``@dataclass(frozen=True)``."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]  # Record: None
        return hash(self._values_of(self))
