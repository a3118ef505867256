"""``--best`` (design section 4b): per function, llnoalias's claims or the input's lines,
whichever compiles better.

Both modules are compiled and checked (``check_text``: the located copy, whose instructions are
the module's). Per function of the assembly, in this order:

1. **Races.** The form without a race the other lacks: a race of the annotated module that the
   input has not (same LDS-DMA and access lines) keeps the input's lines; a race of the input
   that the claims remove keeps the claims.
2. **Spills.** Fewer spilled registers (``.vgpr_spill_count`` + ``.sgpr_spill_count``).
3. **Waits.** Fewer ``vmcnt`` waits (gfx12: ``loadcnt``).
4. Otherwise the claims stay (the code is the same: they cost nothing here, and another code
   generator downstream may use them).

The functions that keep the input's lines get them back with :func:`.selfcheck.withdraw`.
Nothing here prints: each :class:`Choice` says what was kept and why.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..asm.reader import WAIT, read_amdgpu
from ..backends.target import detect
from ..ir.model import Module
from ..ir.parser import parse_module
from ..ir.source import SourceFile
from ..options import CODEGEN
from .checker import CheckResult, check_text
from .judge import Race, Unproven

KEPT_CLAIMS, KEPT_INPUT = "llnoalias", "input"


@dataclass(frozen=True, slots=True)
class Measure:
    """One function of one build: its races (as keys), spills and ``vmcnt`` waits."""

    races: frozenset[tuple[int, int]] = frozenset()
    spills: int = 0
    vmcnt: int = 0
    #: the pairs the check could neither tell apart nor witness (as keys)
    unproven: frozenset[tuple[int, int]] = frozenset()


@dataclass(frozen=True, slots=True)
class Choice:
    function: str
    kept: str
    why: str
    input: Measure
    annotated: Measure

    def line(self) -> str:
        """The line ``--best`` prints for the function."""
        what = "kept llnoalias's claims" if self.kept == KEPT_CLAIMS else "kept the input's lines"
        a, b = self.input, self.annotated
        return (f"{self.function}: {what} ({self.why}; input/annotated: spills {a.spills}/{b.spills}, "
                f"vmcnt waits {a.vmcnt}/{b.vmcnt}, races {len(a.races)}/{len(b.races)})")


@dataclass(slots=True)
class BestChoice:
    """The chosen text, per function what was kept, and the check of each build."""

    text: str
    choices: list[Choice] = field(default_factory=list)
    annotated: CheckResult | None = None
    input: CheckResult | None = None

    @property
    def withdrawn(self) -> set[str]:
        return {c.function for c in self.choices if c.kept == KEPT_INPUT}


def _race_key(r: Race | Unproven) -> tuple[int, int]:
    return r.dma.ir_line or -r.dma.asm_line, r.access.ir_line or -r.access.asm_line


def measure(res: CheckResult) -> dict[str, Measure]:
    """Per function of ``res``'s assembly: races, spills and ``vmcnt`` waits."""
    races: dict[str, set[tuple[int, int]]] = {}
    for r in res.races:
        races.setdefault(r.function, set()).add(_race_key(r))
    doubts: dict[str, set[tuple[int, int]]] = {}
    for u in res.unproven:
        doubts.setdefault(u.function, set()).add(_race_key(u))
    out: dict[str, Measure] = {}
    for fn in read_amdgpu(res.asm):
        spills = 0
        for key in (".vgpr_spill_count", ".sgpr_spill_count"):
            value = fn.resources.get(key)
            spills += value if isinstance(value, int) else 0
        vmcnt = sum(1 for i in fn.insts if i.kind == WAIT and ("vmcnt" in i.wait or "loadcnt" in i.wait))
        out[fn.name] = Measure(frozenset(races.get(fn.name, ())), spills, vmcnt, frozenset(doubts.get(fn.name, ())))
    return out


def decide(name: str, inp: Measure, ann: Measure) -> Choice:
    """The rule of the module docstring for one function."""
    if ann.races - inp.races:
        return Choice(name, KEPT_INPUT, "the claims add an LDS-DMA race", inp, ann)
    if inp.races - ann.races:
        return Choice(name, KEPT_CLAIMS, "the claims remove an LDS-DMA race of the input", inp, ann)
    if ann.unproven - inp.unproven - inp.races:
        return Choice(name, KEPT_INPUT, "the claims add an LDS-DMA pair the check cannot prove apart", inp, ann)
    if ann.spills != inp.spills:
        fewer = ann.spills < inp.spills
        return Choice(name, KEPT_CLAIMS if fewer else KEPT_INPUT,
                      "fewer spills with the claims" if fewer else "the claims cost spills", inp, ann)
    if ann.vmcnt != inp.vmcnt:
        fewer = ann.vmcnt < inp.vmcnt
        return Choice(name, KEPT_CLAIMS if fewer else KEPT_INPUT,
                      "fewer vmcnt waits with the claims" if fewer else "the claims cost vmcnt waits", inp, ann)
    return Choice(name, KEPT_CLAIMS, "the same spills and vmcnt waits", inp, ann)


def choose(annotated: str, original: str, path: str, *, mcpu: str | None = None, triple: str | None = None,
           llc: str | None = None, codegen: str = CODEGEN.default, timeout: float = 300.0) -> BestChoice:
    """Compile and check both forms and choose per function (see the module's docstring).
    A module that is not AMDGPU, or that llnoalias did not change, keeps ``annotated``."""
    if annotated == original or not detect(annotated, mcpu, triple).is_amdgpu:
        return BestChoice(annotated)
    from .selfcheck import withdraw

    orig_mod = parse_module(SourceFile(path, original))

    def run(text: str, module: Module | None = None) -> CheckResult:
        return check_text(text, path, mcpu=mcpu, triple=triple, llc=llc, codegen=codegen, timeout=timeout,
                          module=module)

    with ThreadPoolExecutor(2) as pool:
        f_ann = pool.submit(run, annotated)
        f_inp = pool.submit(run, original, orig_mod)
        ann, inp = f_ann.result(), f_inp.result()
    m_ann, m_inp = measure(ann), measure(inp)
    out = BestChoice(annotated, annotated=ann, input=inp)
    for name in list(m_ann) + [n for n in m_inp if n not in m_ann]:
        out.choices.append(decide(name, m_inp.get(name, Measure()), m_ann.get(name, Measure())))
    if out.withdrawn:
        out.text = withdraw(annotated, orig_mod, out.withdrawn)
    return out


__all__ = ["KEPT_CLAIMS", "KEPT_INPUT", "BestChoice", "Choice", "Measure", "choose", "decide", "measure"]
