"""The set of roots (design section 1) as the analysis reads it: LDS roots by global name,
argument roots by kernel. Which buffers become roots is decided in
:mod:`llnoalias.transform.roots`."""

from __future__ import annotations

from collections.abc import Iterator, Set

from ...ir.lexer import unquote_name
from ...ir.model import Function
from .lattice import Root

LDS_DOMAIN = "llnoalias.lds"
#: pointer attributes that make an argument a pointer to a private copy, not a binding
NOT_A_BINDING = {"byval", "byref", "sret", "inalloca", "preallocated"}


def args_domain(kernel: Function) -> str:
    name = kernel.name
    # (a plain name's ``unquote_name`` is its text after the sigil)
    return "llnoalias.args." + (name[1:] if name[1:2] != '"' else unquote_name(name))


#: ``KernelArgs.grouped`` of a kernel that no --may-alias group concerns
_NONE_GROUPED: frozenset[int] = frozenset()


# Plain classes, not dataclasses: decorating one costs about 1 ms at every start.


class KernelArgs:
    # (slots: a module of many small kernels has one each)
    __slots__ = ("kernel", "domain", "roots", "not_rooted", "grouped")

    def __init__(self, kernel: Function, domain: str, roots: dict[int, Root] | None = None,
                 not_rooted: dict[int, str] | None = None) -> None:
        self.kernel = kernel
        self.domain = domain
        #: argument index -> its root (members of a --may-alias group share one)
        self.roots: dict[int, Root] = {} if roots is None else roots
        #: argument index -> why it is not a root (for --stats and explain); read only once
        #: the roots are found: kernels of one define line share one (``transform.roots``)
        self.not_rooted: dict[int, str] = {} if not_rooted is None else not_rooted
        #: argument indices in a --may-alias group: never given noalias (one shared empty
        #: set until a group names one: a module of many kernels has one ``KernelArgs``
        #: each, and few --may-alias; rebound, never changed in place)
        self.grouped: Set[int] = _NONE_GROUPED


class RootSet:
    def __init__(self) -> None:
        self.lds: dict[str, Root] = {}
        self.kernels: dict[str, KernelArgs] = {}
        #: addrspace(3) globals that are not roots, and why
        self.lds_skipped: dict[str, str] = {}

    def domains_of(self, fn: Function) -> list[str]:
        """The domains that concern ``fn``'s accesses: the LDS one when the module has LDS
        roots, and its own when it is a kernel with argument roots."""
        out: list[str] = []
        if self.lds:
            out.append(LDS_DOMAIN)
        ka = self.kernels.get(fn.name)
        if ka is not None and ka.roots:
            out.append(ka.domain)
        return out

    def all_roots(self) -> Iterator[Root]:
        """Every root once: the LDS roots (a module's several dynamic LDS variables share
        one), then each kernel's (the members of a ``--may-alias`` group share one)."""
        lds = self.lds
        if lds:
            # (the dynamic LDS variables of a module with several share one root)
            seen_lds: set[int] = set()
            for r in lds.values():
                if id(r) not in seen_lds:
                    seen_lds.add(id(r))
                    yield r
        for ka in self.kernels.values():
            seen: set[int] = set()
            for r in ka.roots.values():
                if id(r) not in seen:
                    seen.add(id(r))
                    yield r
