"""Issue 46, "tried as a new user would": each friction replayed through the command line
(in-process, as ``run_cli`` runs it), with what it must say instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.run import run_cli

KERNEL = """target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b, i32 %n) {
  %v = load i32, ptr addrspace(1) %a, align 4
  store i32 %v, ptr addrspace(1) %b, align 4
  ret void
}
"""

#: a producer scoped the LDS read and not the DMA, whose destination cannot be traced: one warning
#: per function (``@k0`` .. ``@kN`` with ``functions(N)``)
_WARN_FN = """
define amdgpu_kernel void @k{i}(ptr addrspace(8) %r, ptr addrspace(1) %q, ptr addrspace(1) %out, i32 %v) {{
entry:
  %d = load ptr addrspace(3), ptr addrspace(1) %q, align 4
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) %d, i32 4, i32 %v, i32 0, i32 0, i32 0)
  %x = load float, ptr addrspace(3) @A, align 4, !alias.scope !2
  store float %x, ptr addrspace(1) %out, align 4
  ret void
}}
"""


def warns(n: int = 1) -> str:
    return ('target triple = "amdgcn-amd-amdhsa"\n@A = external addrspace(3) global [0 x i8], align 16\n'
            + "".join(_WARN_FN.format(i=i) for i in range(n))
            + "\ndeclare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, "
              "i32, i32, i32)\n\n!0 = distinct !{!0, !\"producer\"}\n!1 = distinct !{!1, !0, !\"A\"}\n!2 = !{!1}\n")


# ------------------------------------------------------------------ 1. warnings whole, repeats capped


@pytest.mark.parametrize("quiet", [[], ["-q"]])
def test_a_warning_is_never_cut_at_a_colon_into_notes(tmp_path: Path, quiet: list[str]) -> None:
    (tmp_path / "k.ll").write_text(warns())
    res = run_cli(["annotate", str(tmp_path / "k.ll"), "--no-verify", "-o", "/dev/null", *quiet])
    assert res.exit_code == 0, res.stderr
    head = next(ln for ln in res.stderr.splitlines() if ": warning: " in ln)
    assert head.endswith("LDS-DMA without !alias.scope in a function whose LDS accesses carry alias metadata "
                         "(!alias.scope, !noalias or !tbaa): LLVM 21 and later put no vmcnt wait between them; "
                         "llnoalias cannot scope it (its LDS destination is not traced)"), head
    assert "note: LLVM 21" not in res.stderr and "note: llnoalias cannot" not in res.stderr


def test_repeated_warnings_are_capped_with_a_count(tmp_path: Path) -> None:
    from llnoalias.cli.run import MAX_ALIKE

    n = MAX_ALIKE + 7
    (tmp_path / "k.ll").write_text(warns(n))
    res = run_cli(["annotate", str(tmp_path / "k.ll"), "--no-verify", "-o", "/dev/null"])
    assert res.exit_code == 0, res.stderr
    assert res.stderr.count(": warning: LDS-DMA without") == MAX_ALIKE, res.stderr
    assert "k.ll: and 7 more warnings like it (--report FILE lists them all)" in res.stderr
    # -Werror counts every one of them
    werr = run_cli(["annotate", str(tmp_path / "k.ll"), "--no-verify", "-o", "/dev/null", "-Werror"])
    assert werr.exit_code == 2
    assert f"k.ll: {n} warnings treated as errors" in werr.stderr, werr.stderr
