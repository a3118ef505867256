#!/usr/bin/env python3
"""LLVM 19's own CodeGen tests for AMDGPU and NVPTX through annotate, against opt-19.

Gets ``llvm/test/CodeGen/AMDGPU`` and ``llvm/test/CodeGen/NVPTX`` of LLVM 19.1.7 (Debian's
``llvm-toolchain-19`` source package, through ``apt-get source`` with a ``deb-src`` entry
for bookworm, into ``--cache``; or ``--src DIR``, a tree already unpacked), runs every
``.ll`` file through annotate in-process as the command line does (``run_annotate``: the
reader, the analysis, and with the defaults the check of the input and output by
llvmlite's LLVM), with the defaults and with ``--lds all --args noalias``, and sorts
each file into one class:

- ``kept``: accepted, nothing claimed, the output is the input byte for byte;
- ``verified``: accepted, something claimed, and ``opt-19 -passes=verify`` reads the output;
- ``both-reject``: rejected by llnoalias and by opt-19 (an invalid test input);
- ``reader-gap``: rejected by llnoalias while opt-19 reads it (a construct we cannot read);
- ``missing-error``: accepted by llnoalias while opt-19 rejects it (an error we do not give);
- ``broken-output``: accepted, something claimed, and opt-19 rejects the output (a bug);
- ``changed-unclaimed``: nothing claimed but the output differs from the input (a bug).

It prints the count of each class and the files of the bad ones (the last four).

    python scripts/llvm19_codegen_tests.py                    # download (once) and run
    python scripts/llvm19_codegen_tests.py --src llvm-toolchain-19_19.1.7
    python scripts/llvm19_codegen_tests.py --json OUT.json    # also save every file's class
    python scripts/llvm19_codegen_tests.py -j 4               # four files at a time

Not a unit test: it takes minutes (``tests/scripts/test_llvm19_codegen_tests.py`` tests
the classification on three small files).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from llnoalias import LLNoaliasError  # noqa: E402
from llnoalias.options import AnnotateOptions  # noqa: E402

PACKAGE = "llvm-toolchain-19"
TOP = "llvm-toolchain-19_19.1.7"
FOLDERS = ("llvm/test/CodeGen/AMDGPU", "llvm/test/CodeGen/NVPTX")
SOURCES_ENTRY = "/etc/apt/sources.list.d/llnoalias-bookworm-src.sources"
DEB_SRC = """Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""

#: the option sets each file is annotated with (each also checked with llvmlite's LLVM, as the
#: command line checks it)
CONFIGS: dict[str, AnnotateOptions] = {
    "default": AnnotateOptions(),
    "all": AnnotateOptions(lds="all", args="noalias"),
}
BAD = ("reader-gap", "missing-error", "broken-output", "changed-unclaimed")
CLASSES = ("kept", "verified", "both-reject", *BAD)


def fetch(cache: str) -> str:
    """The unpacked tree under ``cache``, downloaded and unpacked (the two folders only)
    when it is not there yet. Needs root for the ``deb-src`` entry and ``apt-get update``."""
    top = os.path.join(cache, TOP)
    if all(os.path.isdir(os.path.join(top, f)) for f in FOLDERS):
        return top
    os.makedirs(cache, exist_ok=True)
    tarballs = glob.glob(os.path.join(cache, f"{PACKAGE}_*.orig.tar.xz"))
    if not tarballs:
        if not os.path.exists(SOURCES_ENTRY) and not _has_deb_src():
            with open(SOURCES_ENTRY, "w", encoding="utf-8") as fh:
                fh.write(DEB_SRC)
        # (a plain update: one restricted to the new entry would drop the other lists)
        subprocess.run(["apt-get", "update", "-q"], check=True)
        subprocess.run(["apt-get", "source", "--download-only", PACKAGE], cwd=cache, check=True)
        tarballs = glob.glob(os.path.join(cache, f"{PACKAGE}_*.orig.tar.xz"))
    if not tarballs:
        raise SystemExit(f"no {PACKAGE} source tarball in {cache}")
    subprocess.run(["tar", "-xJf", tarballs[0], *(f"{TOP}/{f}" for f in FOLDERS)], cwd=cache, check=True)
    return top


def _has_deb_src() -> bool:
    for path in glob.glob("/etc/apt/sources.list.d/*") + ["/etc/apt/sources.list"]:
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except OSError:
            continue
        if "deb-src" in text and "bookworm" in text:
            return True
    return False


def opt_verifies(path: str, opt: str) -> tuple[bool, str]:
    """Whether ``opt -passes=verify`` reads and verifies ``path``, and its first error line."""
    proc = subprocess.run([opt, "-passes=verify", "-disable-output", path], capture_output=True, text=True,
                          errors="replace", timeout=300)
    first = next((ln.strip() for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr.strip()[:200])
    return proc.returncode == 0, first


def annotate_one(path: str, options: AnnotateOptions, verify: bool) -> tuple[str | None, bool, str]:
    """Annotate ``path`` as the command line does: (output text or None when rejected,
    whether anything was claimed, the error or the notes)."""
    from llnoalias.cli.run import run_annotate

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            _, result = run_annotate(path, options, verify=verify, want_report=False)
        except LLNoaliasError as exc:
            return None, False, exc.format().splitlines()[0]
        except SystemExit as exc:  # a path of the command line that exits itself
            return None, False, f"exit {exc.code}: {err.getvalue().strip()[:200]}"
    return result.text, bool(result.changed), err.getvalue().strip()


def classify(path: str, opt: str, verify: bool = True) -> dict[str, Any]:
    """One file's class (``CLASSES``) and what decided it."""
    opt_ok, opt_msg = opt_verifies(path, opt)
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as fh:
        original = fh.read()
    row: dict[str, Any] = {"path": path, "opt": opt_ok}
    worst = "kept"
    for name, options in CONFIGS.items():
        text, changed, said = annotate_one(path, options, verify=verify)
        if text is None:
            cls = "both-reject" if not opt_ok else "reader-gap"
            row[name] = said
        elif not opt_ok:
            cls = "missing-error"
            row[name] = f"accepted; opt-19: {opt_msg}"
        elif not changed:
            cls = "kept" if text == original else "changed-unclaimed"
        else:
            with tempfile.NamedTemporaryFile("w", suffix=".ll", delete=False, encoding="utf-8",
                                             errors="surrogateescape") as fh:
                fh.write(text)
            try:
                ok, msg = opt_verifies(fh.name, opt)
            finally:
                os.unlink(fh.name)
            cls = "verified" if ok else "broken-output"
            if not ok:
                row[name] = f"output: {msg}"
        worst = max(worst, cls, key=CLASSES.index)  # the worst class any option set gives
    row["class"] = worst
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", help="an unpacked llvm-toolchain-19 tree (the folder that holds llvm/)")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/llnoalias/llvm19"),
                    help="where the source package is downloaded and unpacked (default %(default)s)")
    ap.add_argument("--opt", default=shutil.which("opt-19") or "opt-19", help="opt-19 (default %(default)s)")
    ap.add_argument("--no-verify", action="store_true", help="leave out the check by llvmlite's LLVM")
    ap.add_argument("--only", help="only the files whose path contains this")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="files classified side by side (default 1)")
    ap.add_argument("--json", help="save every file's row here")
    ap.add_argument("files", nargs="*", help="these files instead of the two folders")
    ns = ap.parse_args(argv)
    if not shutil.which(ns.opt) and not os.path.exists(ns.opt):
        raise SystemExit(f"{ns.opt} not found (apt-get install llvm-19)")
    files = ns.files
    if not files:
        top = ns.src or fetch(ns.cache)
        for folder in FOLDERS:
            files += sorted(glob.glob(os.path.join(top, folder, "**", "*.ll"), recursive=True))
    if ns.only:
        files = [f for f in files if ns.only in f]
    rows = []
    if ns.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor
        from functools import partial

        with ProcessPoolExecutor(ns.jobs) as pool:
            for k, row in enumerate(pool.map(partial(classify, opt=ns.opt, verify=not ns.no_verify), files,
                                             chunksize=8), 1):
                rows.append(row)
                if k % 200 == 0:
                    print(f"... {k}/{len(files)}", file=sys.stderr, flush=True)
    else:
        for k, path in enumerate(files, 1):
            rows.append(classify(path, ns.opt, verify=not ns.no_verify))
            if k % 200 == 0:
                print(f"... {k}/{len(files)}", file=sys.stderr, flush=True)
    counts = Counter(r["class"] for r in rows)
    print(f"{len(rows)} files: " + ", ".join(f"{c} {counts.get(c, 0)}" for c in CLASSES))
    for cls in BAD:
        for r in rows:
            if r["class"] == cls:
                why = next((r[n] for n in CONFIGS if n in r), "")
                print(f"{cls}: {r['path']}: {why}")
    if ns.json:
        with open(ns.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)
    return 1 if any(counts.get(c) for c in BAD) else 0


if __name__ == "__main__":
    sys.exit(main())
