"""The LDS-DMA catalogue (``analysis.memory.intrinsics.LDS_DMA``) is the one place its facts
live: the GPU inference of ``compile`` (``backends/gpu_needs``), the version bridge
(``backends/bridge``), the assembly reader (``asm/reader``) and docs/intrinsics.md read
each row's columns (``wide``, ``older``/``llvm22``, ``mnemonics``), so a row's change is
what they do, and the generated page is never stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from llnoalias.analysis.memory import intrinsics_doc
from llnoalias.analysis.memory.intrinsics import LDS_DMA, LdsDma
from llnoalias.asm import reader
from llnoalias.backends import gpu_needs
from llnoalias.backends.bridge import BridgeError, bridge
from tests.support.files import ROOT

DOC = ROOT / "docs" / "intrinsics.md"
ROWS = [(row, name) for row in LDS_DMA for name in row.names]
IDS = [name.removeprefix("llvm.amdgcn.") for _, name in ROWS]


def _module(row: LdsDma, name: str, size: int) -> str:
    args = []
    for i, ty in enumerate(t.strip() for t in row.signature.split(", ")):
        args.append(f"{ty} %lds" if i == row.lds else f"{ty} %src" if i == row.source else
                    f"{ty} {size}" if i == row.size else f"{ty} 0")
    params = ", ".join(t for t in row.signature.split(", "))
    return (f'target triple = "amdgcn-amd-amdhsa"\n'
            f"declare void @{name}({params})\n"
            f"define amdgpu_kernel void @k({row.signature.split(', ')[row.source]} %src, ptr addrspace(3) %lds) {{\n"
            f"  call void @{name}({', '.join(args)})\n  ret void\n}}\n")


def test_docs_intrinsics_md_is_made_from_the_table() -> None:
    assert DOC.read_text(encoding="utf-8") == intrinsics_doc.markdown(), (
        "docs/intrinsics.md is stale: run `python -m llnoalias.analysis.memory.intrinsics_doc`")
    for row in LDS_DMA:
        for name in row.names:
            assert f"`{name}`" in DOC.read_text(encoding="utf-8")


def test_the_doc_main_writes_the_page(tmp_path: Path) -> None:
    out = tmp_path / "intrinsics.md"
    assert intrinsics_doc.main([str(out)]) == 0
    assert out.read_text(encoding="utf-8") == intrinsics_doc.markdown()


def test_the_assembly_reader_counts_the_mnemonics_of_the_vmcnt_rows() -> None:
    """asm/ is below analysis/ and cannot import the table: its list must equal the rows'."""
    want = {m for row in LDS_DMA if row.counter == "vmcnt" for m in row.mnemonics}
    assert set(reader.DMA_MNEMONICS) == want
    for m in want:
        assert reader._classify(m + "_dword", ("v1", "v2", "off"))[0] == reader.DMA


@pytest.mark.parametrize(("row", "name"), ROWS, ids=IDS)
def test_gpu_needs_infers_from_the_wide_column(row: LdsDma, name: str) -> None:
    if row.size is None:
        return  # the name says the size: nothing to infer from an operand
    wide = gpu_needs.infer(_module(row, name, 16), "amdgpu")
    if row.wide:
        assert wide is not None and wide[0] in row.wide, wide
    else:
        assert wide is None
    assert gpu_needs.infer(_module(row, name, 4), "amdgpu") is None


@pytest.mark.parametrize(("row", "name"), ROWS, ids=IDS)
def test_the_bridge_follows_the_llvm22_and_older_columns(row: LdsDma, name: str) -> None:
    text = _module(row, name, 4)
    if row.llvm22:
        out, applied = bridge(text, active=True)
        assert f"@{name}(" in out and "amdgcn-async-lds-load" not in applied
        return
    if row.older is None:
        with pytest.raises(BridgeError, match="lacks"):
            bridge(text, active=True)
        return
    out, applied = bridge(text, active=True)
    assert "amdgcn-async-lds-load" in applied
    assert f"@{name}" not in out and out.count(f"@{row.older}(") == 2
    older = next(r for r in LDS_DMA if row.older in r.names)
    assert older.llvm22 and older.signature == row.signature
