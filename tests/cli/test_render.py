"""``--stats`` tables: a module with thousands of kernels gets the first rows and a count,
not a table of thousands of lines."""

from __future__ import annotations

import io

from rich.console import Console

from llnoalias.cli.render import print_stats
from llnoalias.transform.pipeline import annotate_text

KERNEL = """define amdgpu_kernel void @k{n}(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b) {{
  %v = load i32, ptr addrspace(1) %a, align 4
  store i32 %v, ptr addrspace(1) %b, align 4
  ret void
}}
"""


def _stats(kernels: int, max_rows: int) -> str:
    text = 'target triple = "amdgcn-amd-amdhsa"\n' + "".join(KERNEL.format(n=n) for n in range(kernels))
    report = annotate_text(text, "many.ll").report
    out = io.StringIO()
    print_stats(report, Console(file=out, width=200, highlight=False), max_rows=max_rows)
    return out.getvalue()


def test_long_tables_are_cut_with_a_count() -> None:
    shown = _stats(30, max_rows=10)
    # 60 argument roots and 60 arguments: 10 rows of each, and what was left out
    assert "... and 50 more roots" in shown
    assert "... and 50 more arguments" in shown
    assert "@k4" in shown and "@k29" not in shown


def test_short_tables_are_whole() -> None:
    shown = _stats(3, max_rows=10)
    assert "more roots" not in shown and "more arguments" not in shown
    assert "@k2" in shown
