#!/usr/bin/env python3
"""Latency on one kernel: what a user waits for when llnoalias runs once per kernel.

    python scripts/bench_latency.py [--runs 21] [--file fixtures/corpus/clang19/hip_gemm_O3.ll]
                                    [--llc PATH]

Runs ``llc -O3 FILE``, ``llnoalias --no-verify FILE -o OUT`` and ``llnoalias FILE -o OUT``
(verified with llvmlite's LLVM) round-robin, --runs times each, and prints the median wall
and CPU (user+sys, children included) time of each, side by side, and as ratios to llc;
``python -c pass`` shows what starting the interpreter costs (an editable install's
import hook adds about 25 ms of it to every run). The rows marked "installed" run the same
code as a regular ``pip install`` would: a throwaway virtual environment whose only
``.pth`` puts this checkout and this environment's site-packages on ``sys.path``, without
the editable install's import hook, started as the console script starts. On a loaded machine the CPU column is
the steadier one; the wall column shows the checking child's overlap only where a core
is free. The issue's bar:
``--no-verify`` no slower than llc, at most 2x with verification.

Python writes no bytecode when PYTHONDONTWRITEBYTECODE is set; every run would then compile
llnoalias's sources first, which an installed copy never does. The runs here clear it and
start with one warm-up run of each command.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = os.path.join(ROOT, "fixtures", "corpus", "clang19", "hip_gemm_O3.ll")


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, user+sys CPU of the command and its children) in seconds."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.decode(errors='replace')[:2000]}")
    return wall, usage.ru_utime + usage.ru_stime


def find_llc(explicit: str | None) -> str:
    for cand in [explicit, "llc-19", "/usr/lib/llvm-19/bin/llc", "llc"]:
        if cand and (shutil.which(cand) or os.path.exists(cand)):
            return shutil.which(cand) or cand
    sys.exit("llc not found (install llvm-19 or pass --llc PATH)")


def installed_python(tmp: str) -> str:
    """A Python that finds llnoalias as a regular install does: a fresh virtual environment
    (no pip) whose one ``.pth`` names this checkout and this environment's site-packages
    (llvmlite, click, rich), and no editable-install hook."""
    import site
    import sysconfig

    venv = os.path.join(tmp, "installed")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    py = os.path.join(venv, "bin", "python")
    purelib = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    ours = [p for p in site.getsitepackages() if os.path.isdir(p)] or [sysconfig.get_paths()["purelib"]]
    with open(os.path.join(purelib, "llnoalias-bench.pth"), "w", encoding="utf-8") as fh:
        fh.write("\n".join([ROOT, *ours]) + "\n")
    return py


#: what the console script ``llnoalias`` runs
SCRIPT = "import sys\nfrom llnoalias.cli import main\nsys.exit(main())"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--file", default=DEFAULT)
    ap.add_argument("--llc", default=None)
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    llc = find_llc(args.llc)
    with tempfile.TemporaryDirectory() as tmp:
        out_s = os.path.join(tmp, "out.s")
        out_ll = os.path.join(tmp, "out.ll")
        llnoalias = [sys.executable, "-c", SCRIPT]
        inst = installed_python(tmp)
        installed = [inst, "-c", SCRIPT]
        commands = {
            "llc -O3": [llc, "-O3", args.file, "-o", out_s],
            "llnoalias --no-verify": [*llnoalias, "--no-verify", args.file, "-o", out_ll],
            "llnoalias (verified)": [*llnoalias, args.file, "-o", out_ll],
            # what any Python program pays before its first line (with this install's .pth hooks)
            "python -c pass": [sys.executable, "-c", "pass"],
            "installed: --no-verify": [*installed, "--no-verify", args.file, "-o", out_ll],
            "installed: verified": [*installed, args.file, "-o", out_ll],
            "installed: python -c pass": [inst, "-c", "pass"],
        }
        for cmd in commands.values():
            timed(cmd, env)  # warm-up: bytecode, page cache
        walls: dict[str, list[float]] = {k: [] for k in commands}
        cpus: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(args.runs):
            for name, cmd in commands.items():
                wall, cpu = timed(cmd, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
    with open(args.file, encoding="utf-8", errors="replace") as fh:
        n_lines = sum(1 for _ in fh)
    print(f"{os.path.relpath(args.file, ROOT)}: {n_lines} lines; median of {args.runs} runs "
          f"({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f})")
    print(f"{'':26} {'wall ms':>9} {'x llc':>7} {'cpu ms':>9} {'x llc':>7}")
    base_wall = statistics.median(walls["llc -O3"])
    base_cpu = statistics.median(cpus["llc -O3"])
    for name in commands:
        w = statistics.median(walls[name])
        c = statistics.median(cpus[name])
        print(f"{name:26} {w * 1e3:9.1f} {w / base_wall:7.2f} {c * 1e3:9.1f} {c / base_cpu:7.2f}")


if __name__ == "__main__":
    main()
