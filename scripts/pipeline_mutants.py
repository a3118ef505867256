#!/usr/bin/env python3
"""Wait mutants of software-pipelined LDS-DMA modules, judged by ``llnoalias check``.

For each module, each ``llvm.amdgcn.wait.asyncmark(i16 N)`` call, and each gfx1250
``llvm.amdgcn.s.wait.tensorcnt(i16 N)`` / ``s.wait.asynccnt(i16 N)``, is, one at a time,
removed (mutant ``del@L<line>``) and given ``N+1`` (``inc@L<line>``); every
``s.wait.tensorcnt`` (``s.wait.asynccnt``) of a module removed at once is mutant
``delall-tensorcnt`` (``delall-asynccnt``); with ``--waitcnt``
each ``llvm.amdgcn.s.waitcnt`` call is removed as well (``delcnt@L<line>``). A removed call
becomes an empty line, so every mutant keeps the original's line numbers: ``<line>`` and
the lines the checker names are lines of the original file. The original (``original``) and
every mutant are checked in-process with ``check_text(text, path, codegen=...)`` and a table
is printed: module, mutant, races (with a witness), unproven, seconds.

``--truth FILE`` (a JSON list of ``{"module", "mutant", "races", "why"}``, module being the
file's stem) adds a verdict column: ``found`` (races, and the truth says it races), ``missed``
(none found, but it races), ``FALSE`` (races found where it does not race), ``ok`` (neither),
and a summary; the exit status is 1 when any is missed or false. ``--json OUT`` writes every
row, with each race's and unproven pair's JSON.

It imports llnoalias from the environment it runs in:

    /work/main/.venv/bin/python scripts/pipeline_mutants.py fixtures/corpus/triton39/matmul_*_gfx950.ll \\
        [--truth tests/support/data/pipeline_truth.json] [--json out.json] [--codegen triton]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WAIT_RE = re.compile(r"call void @llvm\.amdgcn\.(?:wait\.asyncmark|s\.wait\.tensorcnt|s\.wait\.asynccnt)\(i16 (\d+)\)")
#: gfx1250's own waits (design section 4b): each one's counter names the ``all``-removed mutant
COUNTER_RE = re.compile(r"call void @llvm\.amdgcn\.s\.wait\.(tensorcnt|asynccnt)\(i16 \d+\)")
WAITCNT_RE = re.compile(r"call void @llvm\.amdgcn\.s\.waitcnt\(i32 (-?\d+)\)")
VMCNT_RE = re.compile(r"s_waitcnt(?:_vscnt)?\b[^\n;]*\bvmcnt\((\d+)\)")


def instructions(asm: str) -> list[str]:
    """The instructions of an assembly text: no directives, labels, comments or blank lines
    (so that two compiles that differ only in line tables compare equal)."""
    out = []
    for line in asm.splitlines():
        s = line.split(";", 1)[0].strip()
        if not s or s.startswith(".") or s.endswith(":"):
            continue
        out.append(s)
    return out


@dataclass(frozen=True)
class Mutant:
    """One mutant of a module: its id and its text."""

    id: str
    text: str


def mutants(text: str, waitcnt: bool = False) -> list[Mutant]:
    """The original (``original``) and its wait mutants, in line order: for each
    ``wait.asyncmark(i16 N)``, ``s.wait.tensorcnt(i16 N)`` and ``s.wait.asynccnt(i16 N)`` a
    removal (``del@L<line>``) and ``N+1`` (``inc@L<line>``), then each counter's waits all
    removed (``delall-tensorcnt``, ``delall-asynccnt``, where a module has two or more); with
    ``waitcnt``, each ``s.waitcnt``'s removal (``delcnt@L<line>``). Lines count from 1 and
    keep their numbers (a removed call leaves an empty line)."""
    lines = text.split("\n")
    out = [Mutant("original", text)]
    for i, line in enumerate(lines):
        if line.lstrip().startswith(";"):
            continue
        m = WAIT_RE.search(line)
        if m:
            n = int(m.group(1))
            out.append(Mutant(f"del@L{i + 1}", "\n".join(lines[:i] + [""] + lines[i + 1:])))
            raised = line[:m.start(1)] + str(n + 1) + line[m.end(1):]
            out.append(Mutant(f"inc@L{i + 1}", "\n".join(lines[:i] + [raised] + lines[i + 1:])))
        elif waitcnt and WAITCNT_RE.search(line):
            out.append(Mutant(f"delcnt@L{i + 1}", "\n".join(lines[:i] + [""] + lines[i + 1:])))
    for counter in ("tensorcnt", "asynccnt"):
        hits = [i for i, line in enumerate(lines) if not line.lstrip().startswith(";")
                and (m := COUNTER_RE.search(line)) and m.group(1) == counter]
        if len(hits) > 1:
            gone = set(hits)
            out.append(Mutant(f"delall-{counter}", "\n".join("" if i in gone else x for i, x in enumerate(lines))))
    return out


@dataclass
class Row:
    """The check of one mutant."""

    module: str
    mutant: str
    races: int = 0
    witnessed: int = 0
    unproven: int = 0
    #: the mutant compiled to the original's instructions (None: not known)
    same_asm: bool | None = None
    #: the vmcnt counts of the assembly's waits, in order
    vmcnts: tuple[int, ...] = ()
    seconds: float = 0.0
    error: str = ""
    verdict: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"module": self.module, "mutant": self.mutant, "races": self.races, "witnessed": self.witnessed,
                "unproven": self.unproven, "same_asm": self.same_asm,
                "vmcnts": list(self.vmcnts), "seconds": round(self.seconds, 3), "error": self.error,
                "verdict": self.verdict, **self.details}


def _js(x: Any) -> Any:
    to_json = getattr(x, "to_json", None)
    return to_json() if callable(to_json) else repr(x)


def check_one(module: str, mut: Mutant, path: str, codegen: str, base: list[str] | None = None) -> Row:
    """Check one mutant in-process; ``base``: the original's instructions, to compare with."""
    from llnoalias.check.checker import check_text

    row = Row(module, mut.id)
    t0 = time.perf_counter()
    try:
        res = check_text(mut.text, path, codegen=codegen)
    except Exception as exc:  # bad input or no code generator: say so in the row
        row.error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    else:
        row.races = len(res.races)
        row.witnessed = sum(1 for r in res.races if getattr(r, "witness", None))
        unproven = list(getattr(res, "unproven", []))  # the exact judge (design 4b) has them
        row.unproven = len(unproven)
        row.details = {"race_list": [_js(r) for r in res.races], "unproven_list": [_js(u) for u in unproven]}
        asm = getattr(res, "asm", "") or ""
        row.vmcnts = tuple(int(m.group(1)) for m in VMCNT_RE.finditer(asm))
        if base is not None and asm:
            row.same_asm = instructions(asm) == base
        row.details["instructions"] = instructions(asm) if asm else []
    row.seconds = time.perf_counter() - t0
    return row


def _same(same: bool | None) -> str:
    return "-" if same is None else ("same" if same else "diff")


def load_truth(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """The truth file's entries by (module, mutant)."""
    return {(e["module"], e["mutant"]): e for e in json.loads(path.read_text())}


def judge_row(row: Row, truth: dict[tuple[str, str], dict[str, Any]]) -> str:
    """``found``, ``missed``, ``FALSE``, ``ok``, ``error``, or ``?`` (no truth, and for the
    original: ``FALSE`` if it races, the originals do not)."""
    e = truth.get((row.module, row.mutant))
    if row.error:
        return "error"
    if e is None and row.mutant != "original":
        return "?"
    races = bool(e["races"]) if e is not None else False
    if races:
        return "found" if row.witnessed else "missed"
    return "FALSE" if row.races else "ok"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--json", type=Path, default=None, help="write every row here")
    ap.add_argument("--truth", type=Path, default=None, help="the hand-worked truth (JSON)")
    ap.add_argument("--codegen", default="triton", help="check_text's codegen (default: triton)")
    ap.add_argument("--waitcnt", action="store_true", help="also remove each llvm.amdgcn.s.waitcnt")
    ap.add_argument("--only", nargs="+", default=None, help="mutant ids to run (and always the original)")
    ns = ap.parse_args(argv)
    truth = load_truth(ns.truth) if ns.truth else {}
    rows: list[Row] = []
    print(f"{'module':<44} {'mutant':<12} {'races':>5} {'wit':>4} {'unpr':>5} {'asm':>4} {'sec':>6}  verdict",
          flush=True)
    for f in ns.files:
        text = f.read_text(encoding="utf-8", errors="surrogateescape")
        base: list[str] | None = None
        for mut in mutants(text, ns.waitcnt):
            if ns.only and mut.id != "original" and mut.id not in ns.only:
                continue
            row = check_one(f.stem, mut, str(f), ns.codegen, base)
            if mut.id == "original":
                base = row.details.get("instructions") or None
            row.verdict = judge_row(row, truth) if (truth or row.mutant == "original") else ""
            rows.append(row)
            print(f"{row.module:<44} {row.mutant:<12} {row.races:>5} {row.witnessed:>4} {row.unproven:>5} "
                  f"{_same(row.same_asm):>4} {row.seconds:>6.1f}  {row.verdict}{'  ' + row.error if row.error else ''}", flush=True)
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    print("summary: " + ", ".join(f"{k or 'unjudged'} {v}" for k, v in sorted(counts.items())))
    if ns.json:
        out = []
        for r in rows:
            j = r.to_json()
            j.pop("instructions", None)
            out.append(j)
        ns.json.write_text(json.dumps(out, indent=1) + "\n")
    bad = counts.get("missed", 0) + counts.get("FALSE", 0) + counts.get("error", 0)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
