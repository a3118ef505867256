"""The GPU a module needs, read from the intrinsics it calls, for a module that names none.

Triton keeps the GPU out of its NVPTX modules (the target machine carries it) and FlyDSL
writes AMDGPU modules without a ``"target-cpu"``. Some intrinsics exist on one GPU (or
one generation) only; LLVM 22 then cannot select them for any other and aborts
(``Cannot select: intrinsic %llvm.nvvm.wgmma.commit_group.sync.aligned``). Such a module
says which GPU it needs, and :func:`infer` reads it.

Each :class:`Need` is a family of intrinsics (and, on NVPTX, the same PTX instructions in
inline asm strings) with the CPUs, among a short list of candidates, that LLVM 22.1 (the
one inside llvmlite) selects it for. The module needs a CPU in every family it uses; the
first candidate that satisfies them all is taken. The CPU lists were measured with llvmlite
0.50 (a one-call kernel per family, code generated for sm_80, sm_90, sm_90a, sm_100,
sm_100a, sm_100f, sm_103a, sm_110a, sm_120a; gfx90a, gfx942, gfx950, gfx1100, gfx1200,
gfx1250) and agree with NVPTXIntrinsics.td's predicates (``hasSM90a`` for wgmma and
setmaxnreg, tcgen05 for the Blackwell data-centre GPUs) and IntrinsicsAMDGPU's gfx950-only
MFMAs. The families of the Hopper generation (``elect.sync``, ``fence.proxy.async``,
``cp.async.bulk``, ...) also need PTX 8.0, which LLVM 22 gives sm_90a but not plain sm_90:
they take sm_90a too.

NVPTX: ``sm_90a`` for wgmma (Hopper's warpgroup MMA, sm_90a only), setmaxnreg and the
Hopper-generation families; ``sm_100a`` for tcgen05 (Blackwell's tensor memory) and float
``redux.sync``; ``sm_100`` for ``clusterlaunchcontrol``. A module with wgmma and tcgen05
needs two GPUs at once: no inference, the error says so.

AMDGPU: gfx950 is the only GPU LLVM 22 selects the CDNA4 MFMAs for (``mfma.scale.*``,
``*.f8f6f4``, ``mfma.f32.16x16x32.f16``/``bf16``, ``32x32x16``, ``mfma.i32.16x16x64.i8``,
``32x32x32.i8``), the transposing LDS reads ``ds.read.tr{4,6,8,16}``, ``permlane32.swap`` (FlyDSL's row
reductions; ``permlane16.swap`` gfx1250 has too) and the 12- and 16-byte LDS-DMA loads
(``global.load.lds`` / ``buffer.load.lds`` with size 12 or 16): a module that calls one is
for gfx950, and that is inferred; the tensor data mover (``tensor.load.to.lds``,
``tensor.store.from.lds``, ``s.wait.tensorcnt``) is gfx1250's. Intrinsics that several GPUs have (the older
MFMAs: every CDNA GPU; WMMA: RDNA 3 and 4) infer nothing; :func:`hints` names them for the
error that asks for ``--mcpu``.

``--mcpu`` and a ``"target-cpu"`` in the module always win over what is inferred here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..analysis.memory.intrinsics import LDS_DMA


@dataclass(frozen=True)
class Need:
    """A family of intrinsics and the candidate CPUs LLVM 22 generates code for it on."""

    #: What the family is, for the note ("Hopper's warpgroup MMA").
    what: str
    #: The CPUs, in order of preference, that have it.
    cpus: tuple[str, ...]
    #: Matches a call of one of its intrinsics; group 1 is the intrinsic's name.
    intrinsic: re.Pattern[str]
    #: Matches the PTX instruction in an inline asm string (NVPTX only), else None.
    asm: re.Pattern[str] | None = None


def _nvvm(family: str, what: str, cpus: tuple[str, ...]) -> Need:
    return Need(what, cpus, re.compile(rf"@(llvm\.nvvm\.(?:{family})[\w.]*)"),
                re.compile(rf"(?<![\w.%])((?:{family})[\w.:]*)"))


_HOPPER_GEN = ("sm_90a", "sm_100", "sm_100a")
NVPTX_NEEDS: tuple[Need, ...] = (
    _nvvm(r"wgmma\.", "Hopper's warpgroup MMA, sm_90a only", ("sm_90a",)),
    _nvvm(r"setmaxnreg\.", "setmaxnreg, sm_90a and Blackwell's sm_100a", ("sm_90a", "sm_100a")),
    _nvvm(r"tcgen05\.", "Blackwell's tensor-memory MMA, sm_100a and sm_103a", ("sm_100a",)),
    _nvvm(r"redux\.sync\.f", "a float redux.sync: sm_100a", ("sm_100a",)),
    _nvvm(r"clusterlaunchcontrol\.", "cluster launch control: sm_100 and later", ("sm_100", "sm_100a")),
    _nvvm(r"elect\.sync|fence\.proxy\.|fence\.mbarrier_init|cp\.async\.bulk\.|barrier\.cluster\.|griddepcontrol\.",
          "an instruction of sm_90 and later with PTX 8.0 (LLVM 22 gives sm_90a PTX 8.0)", _HOPPER_GEN),
)

#: The order in which an NVPTX module's candidates are tried.
NVPTX_CANDIDATES: tuple[str, ...] = ("sm_90a", "sm_100", "sm_100a")

#: The LDS-DMAs whose 12- and 16-byte sizes only some GPUs have (``LdsDma.wide``, one row
#: of ``LDS_DMA`` each): a call of one with size 12 or 16.
_WIDE_DMAS = tuple(d for d in LDS_DMA if d.wide)
_LDS_DMA_WIDE = re.compile(
    r"@(" + "|".join(re.escape(n) for d in _WIDE_DMAS for n in d.names) + r")"
    r"\([^,\n]*,[^,\n]*,\s*i32\s+(?:immarg\s+)?(?:12|16)\s*,")
_WIDE_CPUS = tuple(c for c in _WIDE_DMAS[0].wide if all(c in d.wide for d in _WIDE_DMAS))
AMDGPU_NEEDS: tuple[Need, ...] = (
    Need("a CDNA4 MFMA, gfx950 only", ("gfx950",), re.compile(
        r"@(llvm\.amdgcn\.(?:mfma\.scale\.[\w.]+|mfma\.[\w.]*f8f6f4[\w.]*|mfma\.f32\.(?:16x16x32|32x32x16)\.b?f16"
        r"|mfma\.i32\.(?:16x16x64|32x32x32)\.i8)\b)")),
    Need("a transposing LDS read, gfx950 only", ("gfx950",),
         re.compile(r"@(llvm\.amdgcn\.ds\.read\.tr(?:4|6|8|16)\.[\w.]+)")),
    Need(f"a 12- or 16-byte LDS-DMA load, {' and '.join(_WIDE_CPUS)} only", _WIDE_CPUS, _LDS_DMA_WIDE),
    # permlane16.swap is gfx950's and gfx1250's; permlane32.swap only gfx950's (LLVM 22).
    Need("a 32-lane row swap, gfx950 only", ("gfx950",), re.compile(r"@(llvm\.amdgcn\.permlane32\.swap)\b")),
    # the tensor data mover and its counter (IntrinsicsAMDGPU.td: gfx1250's; FlyDSL's gfx1250
    # GEMMs name no target-cpu)
    Need("the tensor data mover, gfx1250 only", ("gfx1250",), re.compile(
        r"@(llvm\.amdgcn\.(?:tensor\.load\.to\.lds|tensor\.store\.from\.lds|s\.wait\.tensorcnt)[\w.]*)")),
)
AMDGPU_CANDIDATES: tuple[str, ...] = ("gfx950", "gfx1250")

#: Intrinsics that narrow an AMDGPU module's GPU down to a family but not to one GPU (or,
#: unmeasured for inference, to one): what each says, and the GPU the error's example
#: names. The first that matches gives the example; a WMMA of gfx1250's shapes (K of 4, 32,
#: 64 or 128: LLVM 22 selects ``wmma.f32.16x16x4.f32`` and ``16x16x32.f16`` for gfx1250
#: and not for gfx1100, gfx1200 or gfx942) is gfx1250's and is not also named as RDNA's.
_AMDGPU_HINTS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"@(llvm\.amdgcn\.(?:wmma\.[\w]+\.16x16x(?:4|32|64|128)\.[\w.]+|wmma\.scale[\w.]*"
                r"|swmmac\.[\w]+\.16x16x(?:64|128)\.[\w.]+))"),
     "a WMMA of gfx1250 (its shapes with K of 4, 32, 64 or 128)", "gfx1250"),
    (re.compile(r"@(llvm\.amdgcn\.s?mfma\.[\w.]+)"), "an MFMA: a CDNA GPU (gfx908, gfx90a, gfx942, gfx950)",
     "gfx942"),
    (re.compile(r"@(llvm\.amdgcn\.swmmac?\.[\w.]+|llvm\.amdgcn\.wmma\.[\w.]+)"),
     "a WMMA: an RDNA 3 or 4 GPU (gfx11xx, gfx12xx)", "gfx1200"),
)

#: the example of the error that asks for ``--mcpu`` when no intrinsic suggests one
DEFAULT_EXAMPLE = "gfx942"

_ASM_RE = re.compile(r'\basm\b[^"\n]*"([^"\n]*)"')
_ESCAPE_RE = re.compile(r"\\[0-9A-Fa-f]{2}")


class Conflict(Exception):
    """The module needs two GPUs at once (wgmma and tcgen05, say)."""

    def __init__(self, found: list[tuple[Need, str]]) -> None:
        super().__init__("; ".join(f"{name} ({need.what})" for need, name in found))
        self.found = found


def _asm_texts(text: str) -> list[str]:
    return [_ESCAPE_RE.sub(" ", m.group(1)) for m in _ASM_RE.finditer(text)]


def _found(text: str, needs: tuple[Need, ...], with_asm: bool) -> list[tuple[Need, str]]:
    """Each family the module uses, with the first intrinsic (or asm instruction) of it."""
    asm = _asm_texts(text) if with_asm and "asm" in text else []
    found: list[tuple[Need, str]] = []
    for need in needs:
        m = need.intrinsic.search(text)
        if m is not None:
            found.append((need, f"@{m.group(1)}"))
            continue
        if need.asm is not None:
            for body in asm:
                a = need.asm.search(body)
                if a is not None:
                    found.append((need, f"'{a.group(1)}' in inline asm"))
                    break
    return found


def infer(text: str, family: str) -> tuple[str, str] | None:
    """``(cpu, why)`` for a module of ``family`` (``"amdgpu"``/``"nvptx"``) that names no
    CPU, where its intrinsics say which; None where they say nothing. Raises
    :class:`Conflict` when they ask for two GPUs at once."""
    if family == "nvptx":
        if "nvvm." not in text and "asm" not in text:
            return None
        needs, candidates, with_asm = NVPTX_NEEDS, NVPTX_CANDIDATES, True
    else:
        if "llvm.amdgcn." not in text:
            return None
        needs, candidates, with_asm = AMDGPU_NEEDS, AMDGPU_CANDIDATES, False
    found = _found(text, needs, with_asm)
    if not found:
        return None
    for cpu in candidates:
        if all(cpu in need.cpus for need, _ in found):
            name, need = found[0][1], found[0][0]
            return cpu, f"it uses {name} ({need.what})"
    raise Conflict(found)


def hints(text: str) -> tuple[list[str], str]:
    """What an AMDGPU module's intrinsics say about its GPU when they do not name one, and
    the GPU to give as the example of ``--mcpu`` (from the first hint; ``gfx942`` without)."""
    out: list[str] = []
    example = ""
    for pattern, what, cpu in _AMDGPU_HINTS:
        m = pattern.search(text)
        if m is None or (example == "gfx1250" and cpu == "gfx1200"):
            continue
        out.append(f"it calls @{m.group(1)} ({what})")
        example = example or cpu
    return out, example or DEFAULT_EXAMPLE
