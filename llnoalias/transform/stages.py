"""The annotate pipeline's named stages, in the order they run, and the text of what each
concluded (``llnoalias --print-after STAGE``, in the manner of LLVM's ``-print-after``).

The pipeline (``pipeline._analyse``) stays the call chain it is; at each point where a
stage's conclusions exist, it hands them to a :class:`StageLog` when one was asked for,
which turns them into lines at once (later stages rebind keys and rewrite reasons, so the
text is made where the conclusion is still the stage's own). Nothing here prints: the
command line writes :meth:`StageLog.text` to stderr.

A block per stage and function, ``*** after STAGE: @fn ***``, then one line per access and
domain, in the order of the module's text::

    *** after provenance: @k ***
    line 12: %x = load float, ptr addrspace(3) %p, align 4 [lds] -> @smem
    line 15: store float %x, ptr addrspace(3) %q, align 4 [lds] -> unknown [REASON] (BLOCKER)

``[lds]`` / ``[args]`` is the domain (the kernel's argument domain for ``args``). A stage
that concludes nothing for a function prints no block for it; a module-wide stage that
concludes nothing prints its header with ``(nothing)``.
"""

from __future__ import annotations

from .. import reasons
from ..analysis.provenance.lattice import Root
from ..analysis.provenance.rootset import LDS_DOMAIN
from ..ir.lexer import split_comment
from ..ir.model import Function
from ..plain import Record
from .scopes import Decision, Plan, Region, ScopeKey, noalias_keys

#: how the range notes begin (``reasons.NO_RANGE``), and what the printout says for none
_NO_RANGE = reasons.NO_RANGE.text


class Stage(Record):
    """One named stage: what runs it, whether it concludes per function or over the
    module, and what it concludes."""

    _FIELDS = ("name", "runs", "unit", "concludes")

    def __init__(self, name: str, runs: str, unit: str, concludes: str) -> None:
        self.name = name
        self.runs = runs
        self.unit = unit
        self.concludes = concludes


#: The stages of one annotation run, in the order they run (``pipeline._analyse``).
STAGES: tuple[Stage, ...] = (
    Stage("provenance", "scopes.plan_function", "function",
          "each access's root(s) in each domain it concerns, or why its pointer is unknown"),
    Stage("ranges", "regions.RegionSplitter.measure", "function",
          "each LDS access with one root: the bytes [lo, hi) of the root it can touch, or why none "
          "(with --regions)"),
    Stage("regions", "regions.merge_regions", "module",
          "each LDS root's regions, and the scope(s) each of its accesses holds (with --regions)"),
    Stage("dma-safety", "dma_safety.lowered/guard/rescue/residual/static_lds", "module",
          "the claims the LDS-DMA rules withdrew or changed, with the reason"),
    Stage("scopes", "scopes.finish, pipeline._write_scopes", "module",
          "each domain's scopes; each access's !alias.scope and !noalias as written, or why none"),
)

STAGE_NAMES: tuple[str, ...] = tuple(s.name for s in STAGES)


def parse_stage_names(values: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The stages named by ``--print-after`` values (each a name, a comma list, or ``all``),
    in pipeline order. ``ValueError`` naming the stages for an unknown name."""
    wanted: set[str] = set()
    for value in values:
        for name in value.split(","):
            name = name.strip()
            if name == "all":
                wanted.update(STAGE_NAMES)
            elif name in STAGE_NAMES:
                wanted.add(name)
            else:
                raise ValueError(f"unknown stage {name!r}; the stages are {', '.join(STAGE_NAMES)} (or all)")
    return tuple(n for n in STAGE_NAMES if n in wanted)


def _domain(domain: str) -> str:
    if domain == LDS_DOMAIN:
        return "lds"
    # an LDS-DMA's domain of its own (``dma_safety.scope_dmas``)
    return "dma" if domain.startswith("llnoalias.dma.") else "args"


def _root(r: Root) -> str:
    """A root as the IR names it: ``@smem``, ``%a``, ``%a+%b`` for a ``--may-alias`` group."""
    return "+".join(r.members) if r.members else r.name


def _key(k: ScopeKey) -> str:
    if isinstance(k, Region):
        return f"{_root(k.root)}[{k.lo},{k.hi}){' spanning' if k.spanning else ''}"
    return _root(k)


def _code(d: Decision) -> str:
    inst = d.access.inst
    src = inst.function.source
    text = src.text[inst.start:inst.end] if src is not None else inst.opcode
    # the whole instruction without its metadata attachments, spaces collapsed
    return " ".join(split_comment(text).strip().split(", !")[0].split())


def _head(d: Decision) -> str:
    return f"line {d.access.inst.line}: {_code(d)} [{_domain(d.domain)}]"


def _why(d: Decision) -> str:
    return f"[{d.reason}]" + (f" ({d.blocker})" if d.blocker else "")


class StageLog:
    """Collects the text of the stages asked for, as the pipeline reaches them."""

    def __init__(self, names: tuple[str, ...] | list[str]) -> None:
        self.names = parse_stage_names(list(names))
        self._wanted = frozenset(self.names)
        #: (stage, function or "module", lines), in the order they were concluded
        self.blocks: list[tuple[str, str, list[str]]] = []
        #: the key lists of the decisions before a module stage that changes them
        self._before: dict[int, tuple[ScopeKey, ...]] = {}
        #: the decisions the LDS-DMA rules changed (``dma_step``)
        self._changed: set[int] = set()

    def wants(self, name: str) -> bool:
        return name in self._wanted

    def restart(self) -> None:
        """The analysis runs again (integers loaded from memory turned out to be addresses,
        ``ModuleAnalysis.settle``): only the second run's conclusions stand."""
        self.blocks.clear()
        self._before.clear()
        self._changed.clear()

    def _block(self, stage: str, where: str, lines: list[str], always: bool = False) -> None:
        if lines or always:
            self.blocks.append((stage, where, lines or ["(nothing)"]))

    # ------------------------------------------------ per function (FunctionPass)
    def provenance(self, fn: Function, made: list[Decision]) -> None:
        """After ``plan_function``: each decision's roots, or why it has none."""
        if not self.wants("provenance"):
            return
        lines = []
        for d in made:
            if d.roots:
                lines.append(f"{_head(d)} -> {', '.join(_root(r) for r in d.roots)}")
            else:
                lines.append(f"{_head(d)} -> unknown {_why(d)}")
        self._block("provenance", fn.name, lines)

    def ranges(self, fn: Function, made: list[Decision]) -> None:
        """After ``RegionSplitter.measure``: each LDS decision's byte range or why none."""
        if not self.wants("ranges"):
            return
        lines = []
        for d in made:
            if d.domain != LDS_DOMAIN:
                continue
            if not d.roots:
                lines.append(f"{_head(d)} -> {_NO_RANGE} [no root]")
            elif d.byte_range is not None:
                lo, hi = d.byte_range
                lines.append(f"{_head(d)} -> {_root(d.roots[0])} bytes [{lo}, {hi})")
            else:
                note = d.range_note.removeprefix(f"{_NO_RANGE}: ") or "not measured"
                lines.append(f"{_head(d)} -> {_NO_RANGE} [{note}]")
        self._block("ranges", fn.name, lines)

    def no_ranges(self, fn: Function, made: list[Decision]) -> None:
        """``--no-regions``: nothing is measured."""
        if self.wants("ranges") and any(d.domain == LDS_DOMAIN for d in made):
            self._block("ranges", fn.name, ["(not measured: --no-regions)"])

    # ------------------------------------------------ over the module (pipeline)
    def regions(self, p: Plan, ran: bool) -> None:
        """After ``merge_regions``: each root's regions, each ranged access's scopes."""
        if not self.wants("regions"):
            return
        if not ran:
            self._block("regions", "module", ["(not run: --no-regions)"])
            return
        per_root: dict[int, tuple[Root, list[Region]]] = {}
        by_fn: dict[str, list[str]] = {}
        for d in p.decisions:
            if d.domain != LDS_DOMAIN or not d.keys:
                continue
            if len(d.roots) != 1:
                line = f"{_head(d)} -> {', '.join(_key(k) for k in d.keys)} (several roots: no region)"
                by_fn.setdefault(d.access.inst.function.name, []).append(line)
                continue
            root = d.roots[0]
            entry = per_root.setdefault(id(root), (root, []))
            regions = [k for k in d.keys if isinstance(k, Region)]
            for k in regions:
                if k not in entry[1]:
                    entry[1].append(k)
            if regions:
                what = ", ".join(_key(k) for k in d.keys)
            elif d.byte_range is not None:
                what = f"{_root(root)} (the root's only region)"
            else:
                what = f"{_root(root)} ({_NO_RANGE}: the root's own scope)"
            by_fn.setdefault(d.access.inst.function.name, []).append(f"{_head(d)} -> {what}")
        summary = []
        for root, regions in per_root.values():
            plain = sorted((k for k in regions if not k.spanning), key=lambda k: (k.lo, k.hi))
            span = sorted((k for k in regions if k.spanning), key=lambda k: (k.lo, k.hi))
            if not plain:
                summary.append(f"{_root(root)}: one region (keeps its own scope)")
                continue
            text = f"{_root(root)}: {len(plain)} regions " + " ".join(f"[{k.lo},{k.hi})" for k in plain)
            if span:
                text += "; spanning " + " ".join(f"[{k.lo},{k.hi})" for k in span)
            summary.append(text)
        self._block("regions", "module", summary, always=True)
        for fn, lines in by_fn.items():
            self._block("regions", fn, lines)

    def before_dma(self, p: Plan) -> None:
        """Before the LDS-DMA rules: the keys each decision holds."""
        if self.wants("dma-safety"):
            self._before = {id(d): tuple(d.keys) for d in p.decisions}

    def dma_step(self, p: Plan, last: bool = False) -> None:
        """After some of the LDS-DMA rules: which decisions they changed since
        ``before_dma`` (or ``after_finish``). They run around ``finish``, which withdraws
        the claims of lonely domains and is the ``scopes`` stage's, so its changes are
        left out; after the ``last`` rule the changes are written."""
        if not self.wants("dma-safety"):
            return
        for d in p.decisions:
            old = self._before.get(id(d))
            if old is not None and old != tuple(d.keys):
                self._changed.add(id(d))
        if not last:
            return
        by_fn: dict[str, list[str]] = {}
        for d in p.decisions:
            if id(d) not in self._changed:
                continue
            if d.keys:
                line = f"{_head(d)} -> changed to {', '.join(_key(k) for k in d.keys)}"
            else:
                line = f"{_head(d)} -> withdrawn {_why(d)}"
            by_fn.setdefault(d.access.inst.function.name, []).append(line)
        self._changed.clear()
        if not by_fn:
            self._block("dma-safety", "module", ["(no claim changed)"])
        for fn, lines in by_fn.items():
            self._block("dma-safety", fn, lines)

    def after_finish(self, p: Plan) -> None:
        """Right after ``finish``: the keys the LDS-DMA rules after it are compared with."""
        if self.wants("dma-safety"):
            self._before = {id(d): tuple(d.keys) for d in p.decisions}

    def scopes(self, p: Plan) -> None:
        """After the scopes are written: each domain's scopes, each access's lists."""
        if not self.wants("scopes"):
            return
        summary = [f"domain {dom}: " + ", ".join(_key(k) for k in keys) for dom, keys in p.domain_keys.items()]
        self._block("scopes", "module", summary, always=True)
        by_fn: dict[str, list[str]] = {}
        for d in p.decisions:
            if d.keys:
                na = noalias_keys(d, p.domain_keys.get(d.domain, []))
                line = (f"{_head(d)} -> scope {', '.join(_key(k) for k in d.keys)}; "
                        f"noalias {', '.join(_key(k) for k in na) or '(none)'}")
            else:
                line = f"{_head(d)} -> none {_why(d)}"
            by_fn.setdefault(d.access.inst.function.name, []).append(line)
        for fn, lines in by_fn.items():
            self._block("scopes", fn, lines)

    def text(self) -> str:
        """Every block, the stages in pipeline order, each stage's blocks in the order
        they were concluded (the module's function order)."""
        order = {n: i for i, n in enumerate(STAGE_NAMES)}
        out: list[str] = []
        for stage, where, lines in sorted(self.blocks, key=lambda b: order[b[0]]):
            out.append(f"*** after {stage}: {where} ***")
            out.extend(lines)
        return "\n".join(out) + "\n" if out else ""


__all__ = ["STAGES", "STAGE_NAMES", "Stage", "StageLog", "parse_stage_names"]
