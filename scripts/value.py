#!/usr/bin/env python3
"""What llnoalias is worth on the corpus, and what it costs: every module of
``fixtures/corpus/**`` as given (``input``), after llnoalias with the defaults (``defaults``),
with ``--lds all --args noalias`` (``all``), and under ``--best``, through llvmlite's LLVM and
(when Triton is installed) Triton's bundled LLVM.

Per producer (the corpus folder) and variant: modules compiled, modules whose code changed
(instructions other than the input's), waits, ``vmcnt`` waits, ``vmcnt(0)``, VGPRs, SGPRs,
spilled registers (``vgpr_spill`` + ``sgpr_spill``; PTX: ``ld.local`` + ``st.local``) and scratch
bytes. AMDGPU modules are compiled through ``check`` (its located copy compiles to the
module's instructions, design section 4b), so races come with them. ``--best`` is decided from
the input's and the defaults' builds (``check.best.decide``); a module where it keeps the input
in some functions and the claims in others is compiled once more. The regressions (a module
and variant whose spills, ``vmcnt`` waits or races grew over the input's) are listed by name.

    .venv/bin/python scripts/value.py [-j 2] [--codegen llvmlite --codegen triton]
                                      [--write docs/performance.md] [--json rows.json] [PATH...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from check_corpus import read  # noqa: E402  (one reader of corpus files, gzip or not)

from llnoalias.api import annotate  # noqa: E402
from llnoalias.backends import codegen as code_generator  # noqa: E402
from llnoalias.backends import triton_backend  # noqa: E402
from llnoalias.backends.target import detect  # noqa: E402
from llnoalias.check.best import KEPT_INPUT, Measure, decide, measure  # noqa: E402
from llnoalias.check.checker import CheckResult, check_text  # noqa: E402
from llnoalias.check.locate import same_instructions  # noqa: E402
from llnoalias.check.selfcheck import withdraw  # noqa: E402
from llnoalias.diagnostics import LLNoaliasError  # noqa: E402
from llnoalias.ir.parser import parse_module  # noqa: E402
from llnoalias.ir.source import SourceFile  # noqa: E402
from llnoalias.options import AnnotateOptions  # noqa: E402
from llnoalias.stats.counters import collect  # noqa: E402

VARIANTS = ("input", "defaults", "all", "best")
OPTIONS = {"defaults": AnnotateOptions(), "all": AnnotateOptions(lds="all", args="noalias")}
#: the columns of the table: name -> how a file's totals give it
COLUMNS = ("waits", "vmcnt", "vmcnt(0)", "vgpr", "sgpr", "spills", "scratch", "races")
BEGIN, END = "<!-- value.py: begin -->", "<!-- value.py: end -->"


def corpus(root: str = os.path.join(ROOT, "fixtures", "corpus")) -> list[str]:
    out = []
    for dirpath, _, files in os.walk(root):
        out += [os.path.join(dirpath, f) for f in files if f.endswith((".ll", ".ll.gz"))]
    return sorted(out)


def producer(path: str) -> str:
    rel = os.path.relpath(path, os.path.join(ROOT, "fixtures", "corpus"))
    if rel.startswith(".."):
        return os.path.basename(os.path.dirname(path))
    return rel.split(os.sep)[0] if os.sep in rel else "."


def figures(asm: str, races: int) -> dict[str, int]:
    t = collect(asm).total
    return {"waits": t["waits"], "vmcnt": t["vmcnt"] + t["loadcnt"], "vmcnt(0)": t["vmcnt_zero"] + t["loadcnt_zero"],
            "vgpr": t["vgpr"] + t.get("reg", 0), "sgpr": t["sgpr"],
            "spills": t["vgpr_spill"] + t["sgpr_spill"] + t["ld.local"] + t["st.local"],
            "scratch": t["scratch"], "races": races}


class Build:
    """One variant of one module under one code generator."""

    def __init__(self, text: str, asm: str, res: CheckResult | None):
        self.text, self.asm, self.res = text, asm, res
        self.figures = figures(asm, len(res.races) if res is not None else 0)


def build(text: str, rel: str, cg: str, mcpu: str | None) -> Build:
    if detect(text, mcpu, None).is_amdgpu:
        res = check_text(text, rel, mcpu=mcpu, codegen=cg)
        return Build(text, res.asm, res)
    return Build(text, code_generator.generate(text, mcpu=mcpu, codegen=cg).decode("utf-8", "replace"), None)


def _best(inp: Build, ann: Build, rel: str, cg: str, mcpu: str | None) -> Build:
    if inp.res is None or ann.res is None or ann.text == inp.text:
        return ann
    m_inp, m_ann = measure(inp.res), measure(ann.res)
    choices = [decide(n, m_inp.get(n, Measure()), m_ann.get(n, Measure())) for n in m_ann]
    back = {c.function for c in choices if c.kept == KEPT_INPUT}
    if not back:
        return ann
    if back == set(m_ann):
        return inp
    text = withdraw(ann.text, parse_module(SourceFile(rel, inp.text)), back)
    return build(text, rel, cg, mcpu)


def run_one(path: str, cg: str) -> list[dict[str, object]]:
    rel = os.path.relpath(path, ROOT)
    text = read(path)
    mcpu = None
    rows: list[dict[str, object]] = []
    base = {"module": rel, "producer": producer(path), "codegen": cg}
    t0 = time.monotonic()
    try:
        try:
            inp = build(text, rel, cg, mcpu)
        except LLNoaliasError as exc:
            if "names no CPU" not in exc.message:
                raise
            mcpu = "gfx950"
            inp = build(text, rel, cg, mcpu)
        builds = {"input": inp}
        for v, opts in OPTIONS.items():
            builds[v] = build(annotate(text, path=rel, options=opts).text, rel, cg, mcpu)
        builds["best"] = _best(inp, builds["defaults"], rel, cg, mcpu)
    except (LLNoaliasError, OSError) as exc:
        return [{**base, "variant": "input", "error": exc.message if isinstance(exc, LLNoaliasError) else str(exc)}]
    for v in VARIANTS:
        b = builds[v]
        same = b.asm == inp.asm or same_instructions(inp.asm, b.asm)[0]
        rows.append({**base, "variant": v, "changed": not same, **b.figures})
    rows[0]["seconds"] = round(time.monotonic() - t0, 1)
    return rows


def table(rows: Sequence[dict[str, object]], cg: str) -> tuple[str, list[str]]:
    """The markdown table for one code generator, and the regressions in words."""
    ok = [r for r in rows if r["codegen"] == cg and "error" not in r]
    failed = Counter(str(r["producer"]) for r in rows if r["codegen"] == cg and "error" in r)
    producers = sorted({str(r["producer"]) for r in rows if r["codegen"] == cg})
    lines = ["| producer | variant | modules | code changed | " + " | ".join(COLUMNS) + " |",
             "|---|---|---:|---:|" + "---:|" * len(COLUMNS)]
    for p in producers:
        for v in VARIANTS:
            rs = [r for r in ok if r["producer"] == p and r["variant"] == v]
            if not rs:
                continue
            n = f"{len(rs)}" + (f" (+{failed[p]} failed)" if failed[p] and v == "input" else "")
            changed = "" if v == "input" else str(sum(1 for r in rs if r["changed"]))
            sums = [str(sum(int(r[c]) for r in rs)) for c in COLUMNS]  # type: ignore[call-overload]
            lines.append(f"| {p} | {v} | {n} | {changed} | " + " | ".join(sums) + " |")
    regress: list[str] = []
    by_module = {(r["module"], r["variant"]): r for r in ok}
    for (mod, v), r in sorted(by_module.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1]))):
        i = by_module.get((mod, "input"))
        if v == "input" or i is None:
            continue
        if int(r["races"]) < int(i["races"]):  # type: ignore[call-overload]
            continue  # a race removed: the wait it costs is no regression
        worse = [f"{c} {i[c]} -> {r[c]}" for c in ("spills", "vmcnt", "races") if int(r[c]) > int(i[c])]  # type: ignore[call-overload]
        if worse:
            regress.append(f"`{mod}` {v}: " + ", ".join(worse))
    return "\n".join(lines), regress


def markdown(rows: Sequence[dict[str, object]], codegens: Sequence[str]) -> str:
    out = [BEGIN, ""]
    for cg in codegens:
        name = "llvmlite's LLVM 22" if cg == "llvmlite" else "Triton's bundled LLVM 24"
        tab, regress = table(rows, cg)
        out += [f"**{name}** (`--codegen {cg}`):", "", tab, ""]
        out += ["Regressions (spills, `vmcnt` waits or races above the input's):", ""]
        out += [f"- {r}" for r in regress] or ["- none"]
        out.append("")
    errors = sorted({f"`{r['module']}` ({r['codegen']}): {str(r['error']).splitlines()[0][:160]}"
                     for r in rows if "error" in r})
    if errors:
        out += ["Modules that did not compile:", ""] + [f"- {e}" for e in errors] + [""]
    out.append(END)
    return "\n".join(out)


def write_into(path: str, text: str) -> None:
    with open(path, encoding="utf-8") as fh:
        doc = fh.read()
    if BEGIN in doc and END in doc:
        doc = doc[:doc.index(BEGIN)] + text + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip("\n") + "\n\n" + text + "\n"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(doc)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="modules (default: every module of fixtures/corpus)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--codegen", action="append", choices=["llvmlite", "triton"],
                    help="code generators (default: llvmlite, and triton when installed)")
    ap.add_argument("--write", metavar="MD", help="put the tables into MD between the value.py markers")
    ap.add_argument("--json", metavar="OUT", help="write the rows as JSON")
    ap.add_argument("--from-json", metavar="ROWS", help="make the tables from the rows of an earlier --json")
    args = ap.parse_args(argv)
    codegens = args.codegen or (["llvmlite", "triton"] if triton_backend.available() else ["llvmlite"])
    rows: list[dict[str, object]] = []
    if args.from_json:
        with open(args.from_json, encoding="utf-8") as fh:
            rows = json.load(fh)
        codegens = [cg for cg in codegens if any(r["codegen"] == cg for r in rows)]
    else:
        paths = [os.path.abspath(p) for p in args.paths] or corpus()
        jobs = [(p, cg) for cg in codegens for p in paths]
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            for got in pool.map(lambda j: run_one(*j), jobs):
                rows += got
                r = got[0]
                print(f"{r['codegen']:8} {r['module']}: {r.get('error') or r.get('seconds')}", file=sys.stderr)
    text = markdown(rows, codegens)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)
    if args.write:
        write_into(args.write, text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
