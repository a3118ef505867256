"""The code-generation target of a module: its triple and its CPU, read cheaply from text.

Nothing here parses the module: two regular expressions find ``target triple = "..."``
and the ``"target-cpu"="..."`` string attributes (in attribute groups or written on a
function), which is all ``compile`` needs to pick a back end.

Triple spellings
----------------
- ``amdgcn-amd-amdhsa`` (clang, LLVM <= 22) is kept as it is.
- Triton 3.x writes the AMDGPU architecture with a version, ``amdgpu9.50-amd-amdhsa``.
  LLVM 22 (llvmlite's) and llc-19 only know ``amdgcn``, so the arch becomes ``amdgcn``
  and the version becomes a CPU name by the rule::

      amdgpuMAJOR.MINORSTEP      ->  gfx MAJOR MINOR STEP      amdgpu9.50   -> gfx950
                                                               amdgpu9.42   -> gfx942
                                                               amdgpu9.0a   -> gfx90a
      amdgpuMAJOR.MINOR.STEP     ->  gfx MAJOR MINOR STEP      amdgpu12.0.1 -> gfx1201
                                                               amdgpu9.4.2  -> gfx942
      amdgpuMAJOR.MINOR          ->  gfx MAJOR MINOR 0         amdgpu11.5   -> gfx1150

  i.e. the digits after the major version are the minor version and the stepping, one
  character each, the stepping in hexadecimal (``amdgpu9.0.10`` -> ``gfx90a``, the way
  AMD's processor names spell it). ``amdgcn9.50`` is read the same way.
- ``nvptx64-nvidia-cuda`` and ``nvptx-nvidia-cuda`` are kept; their CPU is the
  ``"target-cpu"="sm_90"`` attribute.

A module without a triple (Triton's NVPTX modules, FlyDSL's) takes ``--triple``, or the one
its code implies, read by the analysis (``analysis.memory.accesses.code_family``, which the
regions use too): the ``ptx_kernel``/``ptx_device`` calling conventions, ``!nvvm.annotations``
or an ``llvm.nvvm.*`` intrinsic give ``nvptx64-nvidia-cuda``; an ``amdgpu_*`` calling
convention or an ``llvm.amdgcn.*`` intrinsic ``amdgcn-amd-amdhsa``; code with both is not
guessed. :attr:`Target.note` says which, for the CLI to print. ``--triple`` given with a module that has one replaces it.

The CPU is, first to last: ``--mcpu``, the module's ``"target-cpu"`` attribute, the CPU
implied by a versioned AMDGPU triple, the CPU its intrinsics need (:mod:`.gpu_needs`:
``sm_90a`` for wgmma, ``sm_100a`` for tcgen05, gfx950 for the CDNA4 MFMAs;
:attr:`Target.cpu_note` says why). An AMDGPU module with none of them is an error (the
code generator would silently pick a generic, wrong CPU) that names what its intrinsics do
say (an MFMA: a CDNA GPU); an NVPTX module with none is left to the code generator's default
(``codegen.DEFAULT_NVPTX_CPU``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ..diagnostics import LLNoaliasError
from ..ir.facts import AMDGPU, NVPTX, code_family, code_family_reason, is_pre_gcn, target_family

_TRIPLE_RE = re.compile(r'^[ \t]*target[ \t]+triple[ \t]*=[ \t]*"([^"\r\n]*)"', re.MULTILINE)
_CPU_RE = re.compile(r'"target-cpu"[ \t]*=[ \t]*"([^"\r\n]*)"')
_AMD_VERSIONED_RE = re.compile(r"^(?:amdgpu|amdgcn)(\d+)\.([0-9A-Za-z.]+)$")



@dataclass(frozen=True)
class Target:
    """Where a module's code is generated for."""

    #: The triple handed to the code generator (normalised: ``amdgcn-amd-amdhsa``).
    triple: str
    #: The CPU (``gfx942``, ``sm_90``); empty for an NVPTX module that names none.
    cpu: str
    #: ``amdgpu`` or ``nvptx``.
    family: str
    #: The triple as the module spells it (or as --triple / the inference gave it).
    source_triple: str
    #: How the triple was found when the module has none (one line for stderr), else "".
    note: str = ""
    #: Why the CPU is the one its intrinsics need, when the module names none, else "".
    cpu_note: str = ""

    @property
    def is_amdgpu(self) -> bool:
        return self.family == AMDGPU

    @property
    def is_nvptx(self) -> bool:
        return self.family == NVPTX


def read_triple(text: str) -> str | None:
    """The module's ``target triple`` string, or None when it has none."""
    m = _TRIPLE_RE.search(text)
    return m.group(1) if m else None


def read_cpus(text: str) -> list[str]:
    """Every distinct ``"target-cpu"`` value in the module, most frequent first."""
    counts = Counter(m.group(1) for m in _CPU_RE.finditer(text) if m.group(1))
    return [cpu for cpu, _ in counts.most_common()]


def read_cpu(text: str) -> str | None:
    """The module's ``"target-cpu"`` (the most frequent one), or None."""
    cpus = read_cpus(text)
    return cpus[0] if cpus else None


def amdgpu_version_to_gfx(version: str) -> str | None:
    """``"9.50"`` -> ``"gfx950"``, ``"12.0.1"`` -> ``"gfx1201"``; None when unreadable."""
    major, _, rest = version.partition(".")
    if not major.isdigit() or not rest:
        return None
    parts = rest.split(".")
    if len(parts) == 1:
        tail = parts[0].lower()
        if len(tail) == 1 and tail.isdigit():
            tail += "0"  # amdgpu11.5 -> gfx1150
        if len(tail) != 2 or not tail[0].isdigit() or not all(c in "0123456789abcdef" for c in tail[1]):
            return None
        return f"gfx{int(major)}{tail}"
    if len(parts) == 2:
        minor, step = parts
        if not (minor.isdigit() and int(minor) < 10):
            return None
        if step.isdigit() and int(step) < 16:
            return f"gfx{int(major)}{minor}{int(step):x}"
        if len(step) == 1 and step.lower() in "abcdef":
            return f"gfx{int(major)}{minor}{step.lower()}"
    return None


def normalize_triple(triple: str) -> tuple[str, str, str | None]:
    """Return ``(triple for the code generator, family, CPU the triple implies)``.

    The family is ``ir.facts.target_family``'s, the analysis's. Raises ``LLNoaliasError``
    for a triple that is neither AMDGPU nor NVPTX, and for an AMD GPU before GCN
    (``ir.facts.PRE_GCN_ARCHES``: AMDGPU to the analysis, nothing to generate code for here).
    """
    arch, sep, rest = triple.partition("-")
    arch_l = arch.lower()
    family = target_family(triple)  # the analysis's reading of a triple; the arch must also be one LLVM takes
    if family == AMDGPU and arch_l in ("amdgcn", "amdgpu"):
        return ("amdgcn" + sep + rest, AMDGPU, None)
    m = _AMD_VERSIONED_RE.match(arch_l) if family == AMDGPU else None
    if m:
        cpu = amdgpu_version_to_gfx(f"{m.group(1)}.{m.group(2)}")
        if cpu is None:
            raise LLNoaliasError(
                f"cannot read the AMDGPU version in the target triple '{triple}'; "
                "pass --mcpu (for example --mcpu=gfx942)")
        return ("amdgcn" + sep + rest, AMDGPU, cpu)
    if family == NVPTX and arch_l in ("nvptx64", "nvptx"):
        return (triple, NVPTX, None)
    if is_pre_gcn(triple):
        raise LLNoaliasError(
            f"the module's target triple '{triple}' is an AMD GPU before GCN (LLVM's r600 target), which has "
            "none of what llnoalias compile generates and checks code for (flat addressing, buffer and LDS-DMA "
            "intrinsics, vmcnt waits); llnoalias compile generates code for GCN and later AMD GPUs (amdgcn-*) "
            "and NVPTX (nvptx64-*). Annotating it works as for any AMDGPU module (llnoalias IN -o OUT)")
    raise LLNoaliasError(
        f"the module's target triple '{triple}' is not an AMDGPU (amdgcn-*) or NVPTX (nvptx64-*) "
        "target; llnoalias compile generates code for GPUs only")


NVPTX_TRIPLE = "nvptx64-nvidia-cuda"
AMDGPU_TRIPLE = "amdgcn-amd-amdhsa"

def infer_triple(text: str) -> tuple[str, str] | None:
    """The triple a module without one implies, and why; None when nothing (or both
    families) says. The family is the analysis's (``code_family``, which ``module_family``
    uses for a module without a triple), so the code generator and the regions read the
    same module as the same GPU."""
    family = code_family(text)
    if family == "other":
        return None
    triple = NVPTX_TRIPLE if family == NVPTX else AMDGPU_TRIPLE
    return triple, code_family_reason(text, family)


def detect(text: str, mcpu: str | None = None, triple: str | None = None) -> Target:
    """Find the module's target: its normalised triple, family and CPU.

    ``mcpu`` (the ``--mcpu`` flag) overrides whatever the module says; so does
    ``triple`` (``--triple``). A module without a triple gets the one
    :func:`infer_triple` finds, with :attr:`Target.note` saying so.
    """
    note = ""
    source = triple.strip() if triple and triple.strip() else read_triple(text)
    if source is None or not source.strip():
        inferred = infer_triple(text)
        if inferred is None:
            both = all(code_family_reason(text, f) for f in (AMDGPU, NVPTX))
            says = "its code has both AMDGPU and NVPTX marks" if both else "nothing in it says which GPU it is for"
            raise LLNoaliasError(
                f"the module has no 'target triple' and {says}; pass "
                "--triple (for example --triple=amdgcn-amd-amdhsa or --triple=nvptx64-nvidia-cuda) or add "
                'a line target triple = "..." so llnoalias knows which code generator to use')
        source, why = inferred
        note = f"the module has no 'target triple'; using {source} because {why} (--triple chooses another)"
    normalized, family, implied = normalize_triple(source.strip())
    cpu = mcpu or read_cpu(text) or implied or ""
    _check_family(cpu, family, source.strip(), from_flag=bool(triple and triple.strip()), cpu_from_flag=bool(mcpu))
    cpu_note = ""
    if not cpu:
        cpu, cpu_note = _cpu_from_intrinsics(text, family, source)
    return Target(triple=normalized, cpu=cpu, family=family, source_triple=source, note=note,
                  cpu_note=cpu_note)


_GPU_OF = {AMDGPU: ("AMDGPU", AMDGPU_TRIPLE), NVPTX: ("NVPTX", NVPTX_TRIPLE)}


def _cpu_family(cpu: str) -> str | None:
    """The family a CPU name belongs to by its spelling (``gfx942``, ``sm_90a``), or None."""
    low = cpu.lower()
    if low.startswith("gfx") and low[3:4].isdigit():
        return AMDGPU
    if low.startswith("sm_") and low[3:4].isdigit():
        return NVPTX
    return None


def _check_family(cpu: str, family: str, triple: str, from_flag: bool, cpu_from_flag: bool) -> None:
    """A CPU of the other GPU family: the triple and the CPU disagree. When ``--triple`` chose
    the triple and the CPU came from the module, the triple is what is wrong (not the CPU,
    which the code generator would otherwise report as unknown)."""
    other = _cpu_family(cpu)
    if other is None or other == family:
        return
    kind, _ = _GPU_OF[family]
    other_kind, other_triple = _GPU_OF[other]
    where = "--mcpu" if cpu_from_flag else "the module's \"target-cpu\""
    if from_flag and not cpu_from_flag:
        raise LLNoaliasError(
            f"--triple '{triple}' is an {kind} triple, but {where} '{cpu}' is an {other_kind} GPU; "
            f"pass --triple {other_triple} (or leave --triple out: the module says which GPU it is for)")
    what = "--triple" if from_flag else "the module's target triple"
    raise LLNoaliasError(
        f"{what} '{triple}' is an {kind} triple, but {where} '{cpu}' is an {other_kind} GPU; "
        f"pass --mcpu with an {kind} GPU, or --triple {other_triple}")


def _cpu_from_intrinsics(text: str, family: str, source: str) -> tuple[str, str]:
    """The CPU a module that names none needs, and the note saying why; ``("", "")`` for an
    NVPTX module whose intrinsics say nothing. Raises for an AMDGPU module they say nothing
    about, and for a module that needs two GPUs at once."""
    from . import gpu_needs  # its patterns are compiled only for a module that names no CPU

    kind = "AMDGPU" if family == AMDGPU else "NVPTX"
    try:
        inferred = gpu_needs.infer(text, family)
    except gpu_needs.Conflict as exc:
        raise LLNoaliasError(
            f"the {kind} module names no GPU and its intrinsics need two at once: {exc}; "
            "pass --mcpu to choose one") from None
    if inferred is not None:
        cpu, why = inferred
        return cpu, (f"the {kind} module names no GPU (no \"target-cpu\" attribute); generating code for "
                     f"{cpu} because {why}; --mcpu chooses another")
    if family == AMDGPU:
        found, example = gpu_needs.hints(text)
        said = "".join(f"; {h}" for h in found)
        raise LLNoaliasError(
            f"the AMDGPU module (triple '{source}') names no CPU: no \"target-cpu\" attribute{said}; "
            f"pass --mcpu (for example --mcpu={example})")
    return "", ""
