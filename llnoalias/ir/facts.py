"""What the facts of a module are read with: the target families, the meaning of the
address spaces (``LDS_ADDRSPACE``, ...), and the reading of a family from a triple or from
code, which the analysis and the code generator's target (``backends/target.py``) share.

The facts themselves (family, data layout, static and dynamic LDS variables) are one
``model.ModuleFacts`` per module, on ``Module.facts``, made on first use, so no part caches
a fact of its own on the module. What an analysis concludes (a function's work-group bounds
among it) is the analysis's, kept in ``analysis.ranges.analyses.FunctionAnalyses``.
"""

from __future__ import annotations

import re

from .lazyre import lazy

#: The target families (``ModuleFacts.family``): the triple's, or the one the code implies.
AMDGPU = "amdgpu"
NVPTX = "nvptx"
OTHER = "other"

#: What the address spaces mean (AMDGPU's and NVPTX's numbers agree on these).
GENERIC_ADDRSPACE = 0
#: AMDGPU's LDS, NVPTX's shared memory: the memory the LDS scopes and the LDS-DMA rules are about
LDS_ADDRSPACE = 3
#: private (scratch) memory: no kernel argument's buffer is there
PRIVATE_ADDRSPACE = 5
#: NVPTX's ``shared::cluster``: shared memory too
NVPTX_SHARED_CLUSTER_ADDRSPACE = 7


#: how a triple's architecture starts, by the family it names (``amdgpu9.50`` is Triton's
#: spelling of ``amdgcn`` with a version; ``r600``: see :data:`PRE_GCN_ARCHES`)
_ARCH_FAMILIES = ((("amdgcn", "amdgpu", "r600"), AMDGPU), (("nvptx",), NVPTX))
#: the architectures of AMD GPUs before GCN (LLVM's ``r600`` target: the R600 to Northern
#: Islands generations). One answer everywhere: they are AMDGPU (the analysis reads their
#: address spaces as AMDGPU's, LDS in 3, and annotates them as such), but they have none of
#: what ``compile`` generates and checks code for (flat addressing, buffer and LDS-DMA
#: intrinsics, ``s_waitcnt vmcnt``), so ``backends.target`` refuses them and says so.
PRE_GCN_ARCHES = ("r600",)


def target_family(triple: str) -> str:
    """The family a triple names: ``AMDGPU`` (``amdgcn``, ``amdgpu``, ``r600``), ``NVPTX``,
    or ``OTHER``. The one reading of a triple's family: ``Module.facts`` and the code
    generator's target (``backends.target``) both ask it."""
    t = triple.lower()
    for starts, family in _ARCH_FAMILIES:
        if t.startswith(starts):
            return family
    return OTHER


def is_pre_gcn(triple: str) -> bool:
    """Does ``triple`` name an AMD GPU before GCN (:data:`PRE_GCN_ARCHES`)?"""
    return triple.lower().startswith(PRE_GCN_ARCHES)


_AMDGPU_MARK_RE = lazy(r"\bamdgpu_(?:kernel|cs|ps|vs|gs|hs|ls|es|gfx)\b|@llvm\.amdgcn\.")
_NVPTX_MARK_RE = lazy(r"\bptx_(?:kernel|device)\b|@llvm\.nvvm\.|^!nvvm\.annotations\b", re.M)
#: why a module's code is for a family, most telling first: (pattern, the reason in words)
_WHY = {
    "nvptx": ((lazy(r"\bptx_kernel\b"), "its kernels use the ptx_kernel calling convention"),
              (lazy(r"^!nvvm\.annotations\b", re.M), "it has !nvvm.annotations"),
              (lazy(r"\bptx_device\b"), "its functions use the ptx_device calling convention"),
              (lazy(r"@llvm\.nvvm\."), "it calls llvm.nvvm.* intrinsics")),
    "amdgpu": ((lazy(r"\bamdgpu_kernel\b"), "its kernels use the amdgpu_kernel calling convention"),
               (lazy(r"\bamdgpu_(?:cs|ps|vs|gs|hs|ls|es|gfx)\b"), "its functions use an amdgpu_* calling convention"),
               (lazy(r"@llvm\.amdgcn\."), "it calls llvm.amdgcn.* intrinsics")),
}


def code_family(text: str) -> str:
    """The target family a module's code can only be compiled for, whatever its triple says:
    an ``amdgpu_*`` calling convention or an ``llvm.amdgcn.*`` intrinsic means AMDGPU (no
    other backend lowers them), ``ptx_kernel``/``ptx_device`` or ``llvm.nvvm.*`` (or
    ``!nvvm.annotations``) NVPTX; both or neither: ``other``. The one inference of a
    family from code: ``module_family`` and the code generator's triple
    (``backends.target.infer_triple``) both ask it."""
    # (each pattern only where the text holds the words it needs: a search for a pattern that
    # begins with a word boundary tries every position, 14 ms on a 10k-line module)
    amd = ("amdgpu_" in text or "@llvm.amdgcn." in text) and _AMDGPU_MARK_RE.search(text) is not None
    nv = ("ptx_" in text or "nvvm." in text) and _NVPTX_MARK_RE.search(text) is not None
    return AMDGPU if amd and not nv else (NVPTX if nv and not amd else OTHER)


def code_family_reason(text: str, family: str) -> str:
    """Why ``code_family`` says ``family`` for ``text`` (a phrase for a note), or ""."""
    for rx, why in _WHY.get(family, ()):
        if rx.search(text):
            return why
    return ""


def reaches_lds(family: str, addrspace: int) -> bool:
    """Can a pointer in ``addrspace`` reach LDS / shared memory?"""
    if family == AMDGPU:
        return addrspace in (GENERIC_ADDRSPACE, LDS_ADDRSPACE)
    if family == NVPTX:
        return addrspace in (GENERIC_ADDRSPACE, LDS_ADDRSPACE, NVPTX_SHARED_CLUSTER_ADDRSPACE)
    return True


def reaches_global(family: str, addrspace: int) -> bool:
    """Can a pointer in ``addrspace`` reach a kernel argument's buffer?"""
    if family in (AMDGPU, NVPTX):
        return addrspace not in (LDS_ADDRSPACE, PRIVATE_ADDRSPACE) and not (
            family == NVPTX and addrspace == NVPTX_SHARED_CLUSTER_ADDRSPACE)
    return True


__all__ = ["AMDGPU", "GENERIC_ADDRSPACE", "LDS_ADDRSPACE", "NVPTX", "NVPTX_SHARED_CLUSTER_ADDRSPACE", "OTHER",
           "PRE_GCN_ARCHES", "PRIVATE_ADDRSPACE", "code_family", "code_family_reason", "is_pre_gcn", "reaches_global",
           "reaches_lds", "target_family"]
