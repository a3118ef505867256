#!/usr/bin/env python3
"""What the annotate path's own check (design section 4b) does to LDS-DMA modules.

For each module: the ``vmcnt`` waits, spills and races of the input, of the default output as
it was before the check (``--no-check``: the annotated text), and of the default output now
(the text ``check.best.choose`` keeps: per function the input's lines where the claims add a
race, spills or waits), all compiled and judged by the code generator a verdict uses
(``codegen.verdict_codegen``: Triton's LLVM for a module with explicit waits); and the wall
time of the command line with and without the check (the median of ``--repeat`` runs, in a
subprocess each). A module that names no GPU is compiled for ``--mcpu`` (gfx950: every DMA
size).

    python scripts/bench_selfcheck.py [PATHS...] [--mcpu gfx950] [--repeat 3] [--json FILE]
    python scripts/bench_selfcheck.py --generated 1:40 --repeat 0

Without paths: ``fixtures/dma/`` and the corpus modules with an LDS-DMA.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from llnoalias.api import annotate  # noqa: E402
from llnoalias.backends.target import detect  # noqa: E402
from llnoalias.check.best import choose, measure  # noqa: E402
from llnoalias.check.checker import check_text, has_lds_dma  # noqa: E402
from llnoalias.diagnostics import LLNoaliasError  # noqa: E402
from llnoalias.options import AnnotateOptions  # noqa: E402


def read(path: str) -> str:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="surrogateescape") as fh:  # type: ignore[operator]
        return str(fh.read())


def default_paths() -> list[str]:
    out = [os.path.join(ROOT, "fixtures", "dma", f) for f in sorted(os.listdir(os.path.join(ROOT, "fixtures", "dma")))
           if f.endswith(".ll")]
    corpus = os.path.join(ROOT, "fixtures", "corpus")
    for sub in sorted(os.listdir(corpus)):
        folder = os.path.join(corpus, sub)
        if os.path.isdir(folder):
            out += [os.path.join(folder, f) for f in sorted(os.listdir(folder))
                    if f.endswith((".ll", ".ll.gz")) and has_lds_dma(read(os.path.join(folder, f)))]
    return out


def totals(text: str, path: str, mcpu: str | None) -> dict[str, int]:
    res = check_text(text, path, mcpu=mcpu)
    m = measure(res).values()
    return {"vmcnt": sum(x.vmcnt for x in m), "spills": sum(x.spills for x in m), "races": len(res.races)}


def cli_seconds(path: str, mcpu: str | None, check: bool, repeat: int, options: AnnotateOptions) -> float:
    cmd = [sys.executable, "-m", "llnoalias", path, "-o", os.devnull, "-q", "--no-verify",
           "--lds", options.lds, "--args", options.args]
    cmd += [] if check else ["--no-check"]
    cmd += ["--mcpu", mcpu] if mcpu else []
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def one(path: str, mcpu: str, repeat: int, options: AnnotateOptions | None = None) -> dict[str, object]:
    text = read(path)
    rel = os.path.relpath(path, ROOT)
    row: dict[str, object] = {"module": rel}
    try:
        detect(text, None, None)
        cpu = None
    except LLNoaliasError:
        cpu = mcpu
    options = options or AnnotateOptions()
    annotated = annotate(text, path=rel, options=options).text
    try:
        row["input"] = totals(text, rel, cpu)
        row["before"] = totals(annotated, rel, cpu) if annotated != text else row["input"]
        chosen = choose(annotated, text, rel, mcpu=cpu) if annotated != text else None
        row["after"] = totals(chosen.text, rel, cpu) if chosen and chosen.text != text else row["input"]
        row["kept_input"] = sorted(chosen.withdrawn) if chosen else []
    except LLNoaliasError as exc:
        row["error"] = exc.message.splitlines()[0]
        return row
    if repeat:
        path_run = path
        if path.endswith(".gz"):
            with tempfile.NamedTemporaryFile("w", suffix=".ll", delete=False, encoding="utf-8",
                                             errors="surrogateescape") as fh:
                fh.write(text)
                path_run = fh.name
        try:
            row["seconds_no_check"] = round(cli_seconds(path_run, cpu, False, repeat, options), 3)
            row["seconds_check"] = round(cli_seconds(path_run, cpu, True, repeat, options), 3)
        finally:
            if path_run != path:
                os.unlink(path_run)
    return row


def generated(spec: str, repeat: int, options: AnnotateOptions, fence: bool = True) -> list[dict[str, object]]:
    """``one`` on the kernels ``scripts/dma_kernels.py`` generates from ``SEED:COUNT``."""
    from dma_kernels import generate_many  # type: ignore[import-not-found]

    seed, count = (int(x) for x in spec.split(":"))
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-selfcheck-") as work:
        for k in generate_many(seed, count, fence):
            path = os.path.join(work, f"{k.name}.ll")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(k.text)
            row = one(path, k.mcpu, repeat, options)
            row["module"] = k.name
            rows.append(row)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--mcpu", default="gfx950", help="the GPU of a module that names none")
    ap.add_argument("--repeat", type=int, default=3, help="CLI runs per timing (0: no timing)")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--lds", default="dynamic")
    ap.add_argument("--args", default="auto")
    ap.add_argument("--no-fence", action="store_true", help="generated kernels without sched.barrier fences")
    ap.add_argument("--generated", metavar="SEED:COUNT",
                    help="the kernels of scripts/dma_kernels.py (each for its own GPU) instead of files")
    args = ap.parse_args(argv)
    options = AnnotateOptions(lds=args.lds, args=args.args)
    if args.generated:
        rows = generated(args.generated, args.repeat, options, fence=not args.no_fence)
    else:
        rows = [one(p, args.mcpu, args.repeat, options) for p in (args.paths or default_paths())]
    print(f"{'module':66} {'vmcnt in/before/after':>22} {'spills':>9} {'races':>9} {'s no-check/check':>17}")
    worse = 0
    for r in rows:
        if "error" in r:
            print(f"{r['module']:66} error: {r['error']}")
            continue
        i, b, a = r["input"], r["before"], r["after"]
        assert isinstance(i, dict) and isinstance(b, dict) and isinstance(a, dict)
        # what --best decides per function: races first, then spills, then vmcnt waits
        worse += (a["races"], a["spills"], a["vmcnt"]) > (i["races"], i["spills"], i["vmcnt"])
        secs = f"{r['seconds_no_check']:.2f}/{r['seconds_check']:.2f}" if "seconds_check" in r else ""
        print(f"{r['module']:66} {i['vmcnt']:>6}/{b['vmcnt']:>6}/{a['vmcnt']:>6}   "
              f"{i['spills']}/{b['spills']}/{a['spills']:<3} {i['races']}/{b['races']}/{a['races']:<4} {secs:>17}")
    print(f"{worse} module(s) whose default output is worse than the input (races, then spills, then vmcnt)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
