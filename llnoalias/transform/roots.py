"""Roots (SPEC section 1): the buffers that get scopes.

LDS roots are ``addrspace(3)`` globals chosen by ``--lds``; argument roots are kernel
pointer arguments chosen by ``--args``, with ``--may-alias`` groups sharing one root.
"""

from __future__ import annotations

from ..analysis.lattice import Root
from ..analysis.rootset import (
    LDS_ADDRSPACE,
    LDS_DOMAIN,
    NOT_A_BINDING,
    KernelArgs,
    RootSet,
    args_domain,
)
from ..ir.lexer import unquote_name
from ..ir.model import Argument, Module
from ..options import AnnotateOptions


def is_binding_candidate(arg: Argument) -> str | None:
    """None when ``arg`` can be an argument root; else the reason it cannot."""
    if not arg.type.is_pointer:
        return "not a pointer"
    if arg.type.addrspace in (3, 5):
        return "points to LDS/private memory"
    bad = NOT_A_BINDING & {a.split("(")[0] for a in arg.attrs}
    if bad:
        return f"{sorted(bad)[0]} argument"
    return None


def find_roots(mod: Module, options: AnnotateOptions) -> RootSet:
    rs = RootSet()
    if options.lds != "off":
        for g in mod.globals.values():
            if g.kind != "variable" or g.addrspace != LDS_ADDRSPACE:
                continue
            dynamic = g.is_external and g.is_zero_sized
            if options.lds == "all" or dynamic:
                rs.lds[g.name] = Root(LDS_DOMAIN, unquote_name(g.name), "lds", (g.name,))
            else:
                rs.lds_skipped[g.name] = "sized (static) LDS global; --lds all includes it"
    else:
        for g in mod.globals.values():
            if g.kind == "variable" and g.addrspace == LDS_ADDRSPACE:
                rs.lds_skipped[g.name] = "--lds off"
    for fn in mod.functions:
        if not fn.is_kernel:
            continue
        ka = KernelArgs(fn, args_domain(fn))
        rs.kernels[fn.name] = ka
        chosen: dict[int, Argument] = {}
        for arg in fn.args:
            why = is_binding_candidate(arg)
            if why is not None:
                if arg.type.is_pointer:
                    ka.not_rooted[arg.index] = why
                continue
            if options.args == "off":
                ka.not_rooted[arg.index] = "--args off"
            elif options.args == "auto" and "noalias" not in arg.attrs:
                ka.not_rooted[arg.index] = "not noalias in the input (--args noalias roots it)"
            else:
                chosen[arg.index] = arg
        grouped: dict[int, int] = {}
        for gi, group in enumerate(options.may_alias):
            for idx in group:
                if idx < len(fn.args):
                    grouped.setdefault(idx, gi)
                    ka.grouped.add(idx)
        made: dict[int, Root] = {}
        for idx, arg in sorted(chosen.items()):
            group_of = grouped.get(idx)
            if group_of is None:
                ka.roots[idx] = Root(ka.domain, _arg_label(arg), "arg", (arg.name,), idx)
                continue
            if group_of not in made:
                members = [a for i, a in sorted(chosen.items()) if grouped.get(i) == group_of]
                label = "+".join(_arg_label(a) for a in members)
                made[group_of] = Root(ka.domain, label, "arg", tuple(a.name for a in members), idx)
            ka.roots[idx] = made[group_of]
    return rs


def _arg_label(arg: Argument) -> str:
    return unquote_name(arg.name) if arg.named else f"arg{arg.index}"
