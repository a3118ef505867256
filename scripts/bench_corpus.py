#!/usr/bin/env python3
"""The corpus in process: every module of ``fixtures/corpus/`` (``.ll`` and ``.ll.gz``)
through ``llnoalias.annotate`` with the defaults and with ``--lds all --args noalias``, the
best of ``--repeat`` runs each, summed per corpus folder and option set.

    python scripts/bench_corpus.py [--repeat 3] [--against CHECKOUT] [--json OUT]

What a change to the per-function work costs or saves on real modules (FlyDSL, Triton,
IREE, clang-19), apart from start-up and the code generator (no ``--verify``, no check).
``--against CHECKOUT`` runs the same measurement in another checkout (its ``.venv``, the
code before a change: ``git worktree add ../before REV`` and ``make install`` there), one
run of each in turn, and prints both columns and says whether any output differs between
them (a digest per module and option set).
"""

from __future__ import annotations

import argparse
import collections
import glob
import gzip
import hashlib
import json
import os
import subprocess
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: the option sets: name -> annotate's keyword arguments
CONFIGS: dict[str, dict[str, Any]] = {"default": {}, "all": {"lds": "all", "args": "noalias"}}


def measure(root: str, repeat: int) -> dict[str, tuple[str, float]]:
    """Per ``path [config]``: the output's digest and the best time of ``repeat`` runs."""
    import gc

    import llnoalias
    from llnoalias.options import GC_YOUNG_THRESHOLD

    gc.set_threshold(GC_YOUNG_THRESHOLD, 50, 100)  # (as the command line runs)
    corpus = os.path.join(root, "fixtures", "corpus")
    paths = sorted(glob.glob(os.path.join(corpus, "**", "*.ll"), recursive=True)
                   + glob.glob(os.path.join(corpus, "**", "*.ll.gz"), recursive=True))
    out: dict[str, tuple[str, float]] = {}
    for path in paths:
        with (gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")) as fh:
            text = fh.read().decode("utf-8", "surrogateescape")
        for name, options in CONFIGS.items():
            best, digest = float("inf"), ""
            for _ in range(repeat):
                start = time.perf_counter()
                try:
                    got = llnoalias.annotate(text, path=os.path.basename(path), **options).text
                except llnoalias.LLNoaliasError as exc:
                    got = "error: " + exc.format()
                best = min(best, time.perf_counter() - start)
                digest = hashlib.sha256(got.encode("utf-8", "surrogateescape")).hexdigest()[:16]
            out[f"{os.path.relpath(path, corpus)} [{name}]"] = (digest, best)
    return out


def _in(checkout: str, repeat: int) -> dict[str, tuple[str, float]]:
    """``measure`` run by ``checkout``'s own interpreter, on its own code."""
    python = os.path.join(checkout, ".venv", "bin", "python")
    got = subprocess.run([python, os.path.join(ROOT, "scripts", "bench_corpus.py"), "--child", checkout,
                          "--repeat", str(repeat)], cwd=checkout, check=True, capture_output=True, text=True)
    return {k: (v[0], v[1]) for k, v in json.loads(got.stdout).items()}


def _folders(runs: dict[str, tuple[str, float]]) -> dict[tuple[str, str], float]:
    sums: dict[tuple[str, str], float] = collections.defaultdict(float)
    for key, (_, seconds) in runs.items():
        folder, config = key.split("/", 1)[0], key.rsplit("[", 1)[1].rstrip("]")
        sums[(folder, config)] += seconds
    return sums


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--against", default=None, metavar="CHECKOUT")
    ap.add_argument("--json", default=None, metavar="OUT", help="save the per-module figures")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        sys.path.insert(0, args.child)
        print(json.dumps(measure(args.child, args.repeat)))
        return
    # one run of each checkout in turn, ``--repeat`` times, so that a machine others share
    # slows both alike; per module and option set the best run
    before: dict[str, tuple[str, float]] | None = {} if args.against else None
    after: dict[str, tuple[str, float]] = {}
    for _ in range(args.repeat):
        for runs, checkout in ((before, args.against), (after, ROOT)):
            if runs is None or checkout is None:
                continue
            for key, (digest, seconds) in _in(os.path.abspath(checkout), 1).items():
                if key not in runs or seconds < runs[key][1]:
                    runs[key] = (digest, seconds)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"after": after, "before": before}, fh, indent=0)
    sums, old = _folders(after), _folders(before) if before is not None else {}
    print(f"{len(after)} outputs (modules x option sets), best of {args.repeat}, "
          f"load average {os.getloadavg()[0]:.2f}")
    print("| folder | options | " + ("before | " if before is not None else "") + "this checkout |"
          + (" ratio |" if before is not None else ""))
    print("|---|---|" + ("---|---|---|" if before is not None else "---|"))
    for (folder, config), seconds in sorted(sums.items()):
        row = f"| {folder} | {config} | "
        if before is not None:
            was = old.get((folder, config), 0.0)
            row += f"{was * 1000:.0f} ms | {seconds * 1000:.0f} ms | {seconds / was:.2f}x |" if was else "- |"
        else:
            row += f"{seconds * 1000:.0f} ms |"
        print(row)
    total = sum(sums.values())
    if before is not None:
        was = sum(old.values())
        moved = sorted(k for k in after if k not in before or before[k][0] != after[k][0])
        print(f"all: {was:.2f} s -> {total:.2f} s ({total / was:.2f}x); outputs that differ: {len(moved)}")
        for key in moved[:20]:
            print(f"  {key}")
    else:
        print(f"all: {total:.2f} s")


if __name__ == "__main__":
    main()
