"""Roots (design section 1): the buffers that get scopes.

LDS roots are ``addrspace(3)`` globals chosen by ``--lds``; argument roots are kernel
pointer arguments chosen by ``--args``, with ``--may-alias`` groups sharing one root.
"""

from __future__ import annotations

from .. import reasons, shortcuts
from ..analysis.provenance.lattice import Root
from ..analysis.provenance.rootset import (
    LDS_DOMAIN,
    NOT_A_BINDING,
    KernelArgs,
    RootSet,
)
from ..diagnostics import LLNoaliasError
from ..ir.facts import LDS_ADDRSPACE, PRIVATE_ADDRSPACE
from ..ir.lexer import unquote_name
from ..ir.model import Argument, Function, Module
from ..options import AnnotateOptions


def is_binding_candidate(arg: Argument) -> str | None:
    """None when ``arg`` can be an argument root; else the reason it cannot."""
    if not arg.type.is_pointer:
        return reasons.NOT_A_POINTER.text
    if arg.type.addrspace in (LDS_ADDRSPACE, PRIVATE_ADDRSPACE):
        return reasons.LDS_OR_PRIVATE_POINTER.text
    bad = NOT_A_BINDING & {a.split("(")[0] for a in arg.attrs}
    if bad:
        return reasons.ATTRIBUTE_ARGUMENT.format(attribute=sorted(bad)[0])
    return None


#: why a pointer argument is not a root under ``--args auto``, and a sized LDS global under
#: ``--lds dynamic``: the two defaults a flag changes (see :func:`missed_roots`)
NOT_NOALIAS_REASON = reasons.NOT_NOALIAS.text
STATIC_LDS_REASON = reasons.STATIC_LDS.text


def _names(names: list[str], most: int = 3) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def missed_roots(rs: RootSet) -> list[str]:
    """What the default options left out that a flag would make roots, as sentences that
    end in the flag: pointer kernel arguments not ``noalias`` in the input (``--args
    auto``), counted only in a kernel where they would give two scopes or more (one
    argument alone has nothing to be told apart from), and sized (static) ``addrspace(3)``
    globals (``--lds dynamic``; one alone can still be split into regions). Plain clang
    output has both and no dynamic LDS, so its defaults tag nothing: the command line says
    so when a run changed nothing, and ``explain`` when nothing was tagged."""
    hints: list[str] = []
    kernels: list[str] = []
    count = 0
    for name, ka in rs.kernels.items():
        not_rooted = ka.not_rooted
        if not not_rooted:
            continue  # (a module of many small kernels: most)
        auto = sum(1 for why in not_rooted.values() if why == NOT_NOALIAS_REASON)
        if auto and auto + len(ka.roots) >= 2:
            kernels.append(name)
            count += auto
    if count:
        hints.append(f"{count} pointer argument{'s' if count != 1 else ''} of {_names(kernels)} "
                     f"{'are' if count != 1 else 'is'} not noalias in the input; --args noalias makes "
                     "them roots (a promise that a kernel's pointer arguments never reach the same "
                     "buffer; --may-alias I,J for those that may)")
    static = [name for name, why in rs.lds_skipped.items() if why == STATIC_LDS_REASON]
    if static:
        hints.append(f"{len(static)} sized (static) addrspace(3) global{'s' if len(static) != 1 else ''} "
                     f"({_names(static)}) "
                     + ("are not roots; --lds all makes them roots" if len(static) != 1
                        else "is not a root; --lds all makes it one"))
    return hints


def check_may_alias(mod: Module, options: AnnotateOptions) -> None:
    """Refuse a ``--may-alias`` index past the arguments of every kernel: it names no
    argument, so the arguments the user meant would keep their ``noalias`` (a wrong claim
    when they do share a buffer). In a module with several kernels a group applies to each
    kernel whose arguments it names (its other indices are ignored there); only an index
    that no kernel has is an error. A module without kernels has no argument roots, and
    nothing to check."""
    if not options.may_alias:
        return
    kernels = [fn for fn in mod.functions if fn.is_kernel]
    if not kernels:
        return
    most = max(kernels, key=lambda fn: len(fn.args))
    for group in options.may_alias:
        past = [i for i in group if i >= len(most.args)]
        if not past:
            continue
        spec = ",".join(map(str, group))
        names = ("argument " if len(past) == 1 else "arguments ") + ", ".join(map(str, past))
        if len(kernels) == 1:
            where = f"kernel {most.name} has {_arguments(len(most.args))}"
        else:
            shown = ", ".join(f"{fn.name} {len(fn.args)}" for fn in kernels[:4])
            more = f", and {len(kernels) - 4} more" if len(kernels) > 4 else ""
            where = (f"no kernel has that many arguments (the most: {most.name} with "
                     f"{_arguments(len(most.args))}; {shown}{more})")
        raise LLNoaliasError(
            f"--may-alias {spec} names {names}, but {where}", mod.source.location(most.start))


def _arguments(n: int) -> str:
    if n == 0:
        return "no arguments"
    return "1 argument (index 0)" if n == 1 else f"{n} arguments (indices count from 0: 0 to {n - 1})"


def find_roots(mod: Module, options: AnnotateOptions) -> RootSet:
    check_may_alias(mod, options)
    rs = RootSet()
    if options.lds != "off":
        dynamic_names: list[str] = []
        for g in mod.globals.values():
            if g.kind != "variable" or g.addrspace != LDS_ADDRSPACE:
                continue
            dynamic = g.is_external and g.is_zero_sized
            if dynamic:
                dynamic_names.append(g.name)
            if options.lds == "all" or dynamic:
                rs.lds[g.name] = Root(LDS_DOMAIN, unquote_name(g.name), "lds", (g.name,))
            else:
                rs.lds_skipped[g.name] = STATIC_LDS_REASON
        if len(dynamic_names) > 1:
            _one_dynamic_root(rs, dynamic_names)
    else:
        for g in mod.globals.values():
            if g.kind == "variable" and g.addrspace == LDS_ADDRSPACE:
                rs.lds_skipped[g.name] = reasons.LDS_OFF.text
    # Why each argument is not a root (``_NOT_A_POINTER``: not a pointer, not listed), or
    # None for a root, by the ids of its type and attribute set: the kernels of a module
    # share a few of each (a header's are read once per text), and every one is alive for
    # this call (the module holds it), so an id names one object here. (Both memos keep
    # nothing where the ``roots-memo`` shortcut is off.)
    memo = dict if shortcuts.ON["roots-memo"] else shortcuts.NoMemo
    why_of: dict[tuple[int, int], str | None] = memo()
    # What the loop below finds for the arguments of a kernel, by the id of the shape they
    # were made from (``Function.arg_shape``: the same for kernels whose arguments have the
    # same names, types, attributes and indices; alive while its functions are): why each
    # argument is not a root (one dict, shared by those kernels: read only from here on),
    # and the label and members of each root, by index.
    plans: dict[int, tuple[dict[int, str], list[tuple[int, str, tuple[str, ...]]]]] = memo()
    args_mode = options.args
    may_alias = options.may_alias
    kernels = rs.kernels
    for fn in mod.functions:
        if not fn.is_kernel:
            continue
        name = fn.name
        # (``args_domain``: a plain name's ``unquote_name`` is its text after the sigil)
        domain = "llnoalias.args." + (name[1:] if name[1:2] != '"' else unquote_name(name))
        shape = fn.arg_shape
        if shape is not None and not may_alias:
            plan = plans.get(id(shape))
            if plan is not None:
                roots: dict[int, Root] = {}
                for idx, label, members in plan[1]:
                    roots[idx] = Root(domain, label, "arg", members, idx)
                kernels[name] = KernelArgs(fn, domain, roots, plan[0])
                continue
        ka = KernelArgs(fn, domain)
        kernels[name] = ka
        chosen: list[Argument] = []  # (in the order of their indices, as ``fn.args``)
        not_rooted = ka.not_rooted
        for arg in fn.args:
            key = (id(arg.type), id(arg.attrs))
            if key in why_of:
                why = why_of[key]
            else:
                why = why_of[key] = _why_not(arg, args_mode)
            if why is None:
                chosen.append(arg)
            elif why is not _NOT_A_POINTER:
                not_rooted[arg.index] = why
        if may_alias:
            _group_roots(ka, fn, chosen, may_alias)
            continue
        made: list[tuple[int, str, tuple[str, ...]]] = [(arg.index, _arg_label(arg), (arg.name,)) for arg in chosen]
        if shape is not None:
            plans[id(shape)] = (dict(not_rooted), made)
        roots = ka.roots
        for idx, label, members in made:
            roots[idx] = Root(domain, label, "arg", members, idx)
    return rs


#: the name of the one root of a module's dynamic LDS variables when it has several
#: (``_one_dynamic_root``); a module with one keeps its name
DYNAMIC_LDS_ROOT = "dynamic LDS"


def _one_dynamic_root(rs: RootSet, names: list[str]) -> None:
    """Make the dynamic LDS variables ``names`` (two or more) one root: every external
    zero-sized ``addrspace(3)`` global starts at the start of dynamic LDS (HIP and CUDA
    semantics; LLVM's module-LDS lowering gives them all one address), so their names tell
    nothing apart. Their accesses are told apart by their bytes from that common start
    only, as the regions of this one root (design section 2b); without regions they share
    its scope. The root keeps the place of the first of them among the LDS roots."""
    root = Root(LDS_DOMAIN, DYNAMIC_LDS_ROOT, "lds", tuple(names))
    for name in names:
        rs.lds[name] = root


#: ``_why_not`` of an argument that is not a pointer (not listed among those not rooted)
_NOT_A_POINTER = reasons.NOT_A_POINTER.text


def _why_not(arg: Argument, args_mode: str) -> str | None:
    """Why ``arg`` is not an argument root under ``--args args_mode`` (``_NOT_A_POINTER``
    when it is no pointer), or None when it is one. It depends on the argument's type and
    attributes alone."""
    why = is_binding_candidate(arg)
    if why is not None:
        return why if arg.type.is_pointer else _NOT_A_POINTER
    if args_mode == "off":
        return reasons.ARGS_OFF.text
    if args_mode == "auto" and "noalias" not in arg.attrs:
        return NOT_NOALIAS_REASON
    return None


def _group_roots(ka: KernelArgs, fn: Function, chosen: list[Argument],
                 may_alias: tuple[tuple[int, ...], ...]) -> None:
    """The roots of a kernel's ``chosen`` arguments under ``--may-alias``: the members of a
    group share one."""
    grouped: dict[int, int] = {}
    for gi, group in enumerate(may_alias):
        for idx in group:
            if idx < len(fn.args):
                grouped.setdefault(idx, gi)
    if grouped:
        ka.grouped = set(grouped)  # (rebound: ``KernelArgs`` starts with a shared empty one)
    made: dict[int, Root] = {}
    for arg in chosen:
        idx = arg.index
        group_of = grouped.get(idx)
        if group_of is None:
            ka.roots[idx] = Root(ka.domain, _arg_label(arg), "arg", (arg.name,), idx)
            continue
        if group_of not in made:
            members = [a for a in chosen if grouped.get(a.index) == group_of]
            label = "+".join(_arg_label(a) for a in members)
            made[group_of] = Root(ka.domain, label, "arg", tuple(a.name for a in members), idx)
        ka.roots[idx] = made[group_of]


def _arg_label(arg: Argument) -> str:
    return unquote_name(arg.name) if arg.named else f"arg{arg.index}"
