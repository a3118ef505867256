#!/usr/bin/env python3
"""Which annotated outputs changed: a digest of llnoalias's output per input and option set.

Runs ``llnoalias.annotate`` in-process over every ``.ll`` file under ``fixtures/`` with
several option sets and records, per (file, option set), a SHA-256 of the output text (or
of the error message for a file that is rejected). Saved once before a change and compared
after it, it names every output that moved, so a change that should touch nothing (a
refactor, a speed-up) can be shown to touch nothing, and one that should touch a few files
shows which.

    python scripts/output_digest.py --json before.json
    python scripts/output_digest.py --compare before.json      # exit 1 when anything moved

Nothing here changes a file except ``--json OUT``.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import llnoalias  # noqa: E402
from llnoalias import LLNoaliasError  # noqa: E402

CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "all": {"lds": "all", "args": "noalias"},
    "all-noregions": {"lds": "all", "args": "noalias", "regions": False},
    "lds-off": {"lds": "off", "args": "noalias"},
}


def inputs(root: str) -> list[str]:
    return sorted(glob.glob(os.path.join(root, "fixtures", "**", "*.ll"), recursive=True))


def digest(path: str, options: dict[str, Any]) -> str:
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8", "surrogateescape")
    try:
        out = llnoalias.annotate(text, path=os.path.basename(path), **options).text
    except LLNoaliasError as exc:
        out = "error: " + exc.format()
    return hashlib.sha256(out.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def collect(root: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for path in inputs(root):
        rel = os.path.relpath(path, root)
        for name, options in CONFIGS.items():
            found[f"{rel} [{name}]"] = digest(path, options)
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", metavar="OUT", help="save the digests")
    ap.add_argument("--compare", metavar="BEFORE", help="compare with saved digests; exit 1 on a change")
    args = ap.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    now = collect(root)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(now, fh, indent=1, sort_keys=True)
    if not args.compare:
        print(f"{len(now)} outputs digested")
        return 0
    with open(args.compare) as fh:
        before: dict[str, str] = json.load(fh)
    moved = sorted(k for k in now if k in before and before[k] != now[k])
    new = sorted(k for k in now if k not in before)
    gone = sorted(k for k in before if k not in now)
    for label, keys in (("changed", moved), ("new", new), ("gone", gone)):
        for k in keys:
            print(f"{label}: {k}")
    print(f"{len(now)} outputs: {len(moved)} changed, {len(new)} new, {len(gone)} gone")
    return 1 if moved or gone else 0


if __name__ == "__main__":
    sys.exit(main())
