"""The provenance lattice of design section 2.

``BOTTOM`` (nothing known yet, or ``undef``) < ``NONE`` (no address) and ``Root`` (exactly
one buffer) < ``UNKNOWN`` (may point anywhere). Aggregates carry one value per field
(``Agg``), so a struct that holds a pointer hands each field's provenance on.
Roots are interned objects: equal roots are the same object.
"""

from __future__ import annotations


class _Sentinel:
    __slots__ = ("label",)

    def __init__(self, label: str) -> None:
        self.label = label

    def __repr__(self) -> str:
        return self.label


BOTTOM = _Sentinel("bottom")
NONE = _Sentinel("none")
UNKNOWN = _Sentinel("unknown")


class Root:
    """A buffer that gets a scope: an LDS global or a kernel pointer argument (or a group
    of arguments that ``--may-alias`` says may share a buffer)."""

    __slots__ = ("domain", "name", "kind", "members", "index")

    def __init__(self, domain: str, name: str, kind: str, members: tuple[str, ...] = (), index: int = 0) -> None:
        self.domain = domain  # "llnoalias.lds" or "llnoalias.args.<kernel>"
        self.name = name  # the scope's description: global name or argument name
        self.kind = kind  # "lds" or "arg"
        self.members = members  # the arguments or globals it stands for
        self.index = index  # argument index (first member), for ordering

    def __repr__(self) -> str:
        return f"root({self.name})"


Path = tuple[int, ...]


class Agg:
    """Per-field provenance of an aggregate value, nested like the aggregate itself;
    ``default`` covers the fields not listed."""

    __slots__ = ("default", "fields")

    def __init__(self, default: Lat, fields: dict[int, Lat]) -> None:
        self.default = default
        self.fields = fields

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Agg) and self.default is other.default and self.fields == other.fields

    def __hash__(self) -> int:
        return hash((id(self.default), len(self.fields)))

    def __repr__(self) -> str:
        return f"agg({self.default}, {self.fields})"

    def get(self, path: Path) -> Lat:
        cur: Lat = self
        for idx in path:
            if isinstance(cur, Agg):
                cur = cur.fields.get(idx, cur.default)
            else:
                # a scalar standing for a whole sub-aggregate: none, unknown or bottom
                return cur if not isinstance(cur, Root) else UNKNOWN
        return cur

    def set(self, path: Path, value: Lat) -> Agg:
        if not path:
            return value if isinstance(value, Agg) else Agg(value, {})
        head, rest = path[0], path[1:]
        fields = dict(self.fields)
        if rest:
            inner = fields.get(head, self.default)
            inner_agg = inner if isinstance(inner, Agg) else Agg(inner if not isinstance(inner, Root) else UNKNOWN, {})
            fields[head] = inner_agg.set(rest, value)
        else:
            fields[head] = value
        return Agg(self.default, fields)


Lat = _Sentinel | Root | Agg


def join(a: Lat, b: Lat) -> Lat:
    if a is b:
        return a
    if a is BOTTOM:
        return b
    if b is BOTTOM:
        return a
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if isinstance(a, Agg) or isinstance(b, Agg):
        aa = a if isinstance(a, Agg) else (Agg(a, {}) if a is NONE else None)
        bb = b if isinstance(b, Agg) else (Agg(b, {}) if b is NONE else None)
        if aa is None or bb is None:
            return UNKNOWN
        if aa == bb:
            return aa
        keys = set(aa.fields) | set(bb.fields)
        return Agg(join(aa.default, bb.default),
                   {k: join(aa.fields.get(k, aa.default), bb.fields.get(k, bb.default)) for k in keys})
    return UNKNOWN


def has_provenance(v: Lat) -> bool:
    """True when the value may carry an address (root, unknown, or an aggregate holding one)."""
    if v is NONE or v is BOTTOM:
        return False
    if isinstance(v, Agg):
        return has_provenance(v.default) or any(has_provenance(x) for x in v.fields.values())
    return True
