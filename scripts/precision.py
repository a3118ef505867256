#!/usr/bin/env python3
"""How many accesses llnoalias tags on real compiler output, per corpus file.

Runs the analysis in-process (``llnoalias.annotate``) over every ``.ll`` file under
``fixtures/corpus/`` with two option sets: ``all`` (``lds="all", args="noalias"``) and
``default`` (no options), and prints, per file and option set, the number of access
records (an access counts once per domain that concerns it), how many are tagged, and the
untagged ones by their most frequent reason.

    python scripts/precision.py                      # the table
    python scripts/precision.py --json OUT.json      # also save the numbers
    python scripts/precision.py --compare BEFORE.json  # tagged/total before -> now

Nothing here changes a file except ``--json OUT``.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
from collections import Counter
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import llnoalias  # noqa: E402
from llnoalias import LLNoaliasError  # noqa: E402

CONFIGS: dict[str, dict[str, Any]] = {
    "all": {"lds": "all", "args": "noalias"},
    "default": {},
}


def _group(reason: str) -> str:
    """A reason without its line numbers and value names, so that alike ones group."""
    r = re.sub(r"line \d+", "line N", reason)
    return r[:110]


def measure(path: str, kw: dict[str, Any]) -> dict[str, Any]:
    raw = open(path, "rb").read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    try:
        res = llnoalias.annotate(text, path=path, **kw)
    except LLNoaliasError as e:
        return {"error": e.format().splitlines()[0]}
    recs = res.report.accesses
    untagged = [a for a in recs if not a.tagged]
    reasons = Counter(_group(a.reason) for a in untagged)
    return {
        "total": len(recs),
        "tagged": len(recs) - len(untagged),
        "untagged": len(untagged),
        "reasons": dict(reasons.most_common()),
    }


def run(root: str) -> dict[str, dict[str, Any]]:
    files = sorted(glob.glob(os.path.join(root, "**", "*.ll"), recursive=True))
    out: dict[str, dict[str, Any]] = {}
    for f in files:
        rel = os.path.relpath(f, root)
        out[rel] = {name: measure(f, kw) for name, kw in CONFIGS.items()}
    return out


def _cell(m: dict[str, Any]) -> str:
    if "error" in m:
        return "error"
    return f"{m['tagged']}/{m['total']}"


def print_table(data: dict[str, dict[str, Any]]) -> None:
    print(f"{'file':42} {'config':8} {'tagged/total':>13} {'untagged':>8}  top reason")
    for f, per in data.items():
        for name, m in per.items():
            if "error" in m:
                print(f"{f:42} {name:8} {'error':>13} {'':>8}  {m['error']}")
                continue
            top = next(iter(m["reasons"].items()), None)
            top_s = f"{top[1]}x {top[0]}" if top else ""
            print(f"{f:42} {name:8} {_cell(m):>13} {m['untagged']:>8}  {top_s}")
    print()
    for name in CONFIGS:
        t = sum(per[name].get("tagged", 0) for per in data.values())
        n = sum(per[name].get("total", 0) for per in data.values())
        print(f"total {name}: {t}/{n} tagged")


def print_compare(before: dict[str, dict[str, Any]], now: dict[str, dict[str, Any]]) -> None:
    print(f"{'file':42} {'config':8} {'before':>13} {'after':>13}  change")
    for f in sorted(set(before) | set(now)):
        for name in CONFIGS:
            b = before.get(f, {}).get(name)
            a = now.get(f, {}).get(name)
            bs = _cell(b) if b else "-"
            as_ = _cell(a) if a else "-"
            delta = ""
            if b and a and "error" not in b and "error" not in a:
                d = a["tagged"] - b["tagged"]
                delta = f"{d:+d}" if d else ""
            print(f"{f:42} {name:8} {bs:>13} {as_:>13}  {delta}")
    print()
    for name in CONFIGS:
        for label, data in (("before", before), ("after", now)):
            t = sum(per.get(name, {}).get("tagged", 0) for per in data.values())
            n = sum(per.get(name, {}).get("total", 0) for per in data.values())
            print(f"total {name} {label}: {t}/{n} tagged")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                   "fixtures", "corpus"))
    ap.add_argument("--json", dest="json_out", help="save the numbers to this file")
    ap.add_argument("--compare", help="a file saved with --json: print before -> now")
    ns = ap.parse_args(argv)
    data = run(ns.root)
    if ns.json_out:
        with open(ns.json_out, "w") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
    if ns.compare:
        with open(ns.compare) as fh:
            print_compare(json.load(fh), data)
    else:
        print_table(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
