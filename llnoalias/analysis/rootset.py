"""The set of roots (SPEC section 1) as the analysis reads it: LDS roots by global name,
argument roots by kernel. Which buffers become roots is decided in
:mod:`llnoalias.transform.roots`."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.lexer import unquote_name
from ..ir.model import Argument, Function
from .lattice import Root

LDS_DOMAIN = "llnoalias.lds"
LDS_ADDRSPACE = 3
#: pointer attributes that make an argument a pointer to a private copy, not a binding
NOT_A_BINDING = {"byval", "byref", "sret", "inalloca", "preallocated"}


def args_domain(kernel: Function) -> str:
    return f"llnoalias.args.{unquote_name(kernel.name)}"


@dataclass
class KernelArgs:
    kernel: Function
    domain: str
    #: argument index -> its root (members of a --may-alias group share one)
    roots: dict[int, Root] = field(default_factory=dict)
    #: argument index -> why it is not a root (for --stats and explain)
    not_rooted: dict[int, str] = field(default_factory=dict)
    #: argument indices in a --may-alias group: never given noalias
    grouped: set[int] = field(default_factory=set)


@dataclass
class RootSet:
    lds: dict[str, Root] = field(default_factory=dict)
    kernels: dict[str, KernelArgs] = field(default_factory=dict)
    #: addrspace(3) globals that are not roots, and why
    lds_skipped: dict[str, str] = field(default_factory=dict)

    def arg_root(self, fn: Function, arg: Argument) -> Root | None:
        ka = self.kernels.get(fn.name)
        return None if ka is None else ka.roots.get(arg.index)
