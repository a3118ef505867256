#!/usr/bin/env python3
"""Run ``llnoalias check`` over every module of ``fixtures/`` that has an LDS-DMA: as given,
and after llnoalias with the defaults and with ``--lds all --args noalias``.

Prints one row per module and variant (producer, races, LDS-DMA instructions, vmcnt waits by
cause) and, per module, the races llnoalias's output has that its input has not. ``--json``
writes the rows. The test suite runs it (``tests/check/test_check_corpus.py``); its figures go into
the issue notes (races found in real inputs, with the producer).

    .venv/bin/python scripts/check_corpus.py [-j 2] [--json rows.json] [PATH...]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from llnoalias.api import annotate  # noqa: E402
from llnoalias.check.checker import check_text, has_lds_dma  # noqa: E402
from llnoalias.diagnostics import LLNoaliasError  # noqa: E402
from llnoalias.options import AnnotateOptions  # noqa: E402

VARIANTS: dict[str, AnnotateOptions | None] = {
    "input": None,
    "defaults": AnnotateOptions(),
    "all": AnnotateOptions(lds="all", args="noalias"),
}


def read(path: str) -> str:
    if path.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8", errors="surrogateescape") as fh:
            return fh.read()
    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        return fh.read()


def modules(root: str = os.path.join(ROOT, "fixtures")) -> list[str]:
    """Every ``.ll``/``.ll.gz`` under ``root`` that calls an LDS-DMA intrinsic (error fixtures
    left out: they are not modules; and Triton's pipelined kernels and its gfx1250 modules, whose explicit
    waits need Triton's LLVM: ``scripts/pipeline_mutants.py`` judges them and their wait mutants)."""
    out = []
    for dirpath, _, files in os.walk(root):
        if os.sep + "errors" in dirpath or dirpath.endswith((os.path.join("triton39", "pipelines"),
                                                             os.path.join("triton39", "gfx1250"))):
            continue
        for f in files:
            if f.endswith((".ll", ".ll.gz")):
                p = os.path.join(dirpath, f)
                if has_lds_dma(read(p)):
                    out.append(p)
    return sorted(out)


def producer(path: str) -> str:
    rel = os.path.relpath(path, os.path.join(ROOT, "fixtures"))
    parts = rel.split(os.sep)
    return parts[1] if parts[0] == "corpus" and len(parts) > 2 else parts[0]


def check_one(path: str, variant: str) -> dict[str, object]:
    text = read(path)
    rel = os.path.relpath(path, ROOT)
    row: dict[str, object] = {"module": rel, "producer": producer(path), "variant": variant}
    opts = VARIANTS[variant]
    try:
        if opts is not None:
            text = annotate(text, path=rel, options=opts).text
        try:
            res = check_text(text, rel)
        except LLNoaliasError as exc:
            if "names no CPU" not in exc.message:
                raise
            # a hand-written fixture without "target-cpu": the GPU that has every DMA size
            res = check_text(text, rel, mcpu="gfx950")
    except LLNoaliasError as exc:
        row["error"] = exc.message
        return row
    causes: dict[str, int] = {}
    for w in res.waits:
        causes[w.cause] = causes.get(w.cause, 0) + 1
    row.update(dmas=sum(f.dmas for f in res.functions), races=len(res.races), waits=len(res.waits),
               causes=causes, unmapped=sum(f.unmapped for f in res.functions),
               race_lines=sorted({(r.function, r.dma.ir_line, r.access.ir_line) for r in res.races}))
    return row


def run(paths: Sequence[str], variants: Sequence[str] = tuple(VARIANTS), jobs: int = 2) -> list[dict[str, object]]:
    tasks = [(p, v) for p in paths for v in variants]
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        return list(pool.map(lambda t: check_one(*t), tasks))


def new_races(rows: Sequence[dict[str, object]]) -> list[str]:
    """Races an output variant has that the same module's input has not."""
    base = {r["module"]: set(map(tuple, r.get("race_lines", []))) for r in rows  # type: ignore[arg-type]
            if r["variant"] == "input" and "error" not in r}
    out = []
    for r in rows:
        if r["variant"] == "input" or "error" in r or r["module"] not in base:
            continue
        extra = set(map(tuple, r.get("race_lines", []))) - base[r["module"]]  # type: ignore[arg-type]
        for fn, dma, acc in sorted(extra):
            out.append(f"{r['module']} ({r['variant']}): {fn}: access line {acc} races the LDS-DMA at line {dma}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    rows = run(args.paths or modules(), jobs=args.jobs)
    print(f"{'module':72} {'variant':8} {'races':>5} {'dmas':>5} {'waits':>5}  causes")
    for r in rows:
        if "error" in r:
            print(f"{r['module']:72} {r['variant']:8} error: {r['error']}")
            continue
        causes = ", ".join(f"{k} {v}" for k, v in sorted(r["causes"].items()))  # type: ignore[attr-defined]
        print(f"{r['module']:72} {r['variant']:8} {r['races']:>5} {r['dmas']:>5} {r['waits']:>5}  {causes}")
    extra = new_races(rows)
    print(f"\n{len(extra)} races in llnoalias's output that its input has not")
    for line in extra:
        print("  " + line)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
