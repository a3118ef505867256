#!/usr/bin/env python3
"""Latency on one kernel: what a user waits for when llnoalias runs once per kernel.

    python scripts/bench_latency.py [--runs 21] [--file fixtures/corpus/clang19/hip_gemm_O3.ll]
                                    [--llc PATH] [--opts=OPTIONS ...] [--no-installed]

Runs ``llc -O3 -mtriple=T -mcpu=C FILE`` (T the file's ``target triple``, C the
``"target-cpu"`` its functions name most, so llc generates code for what the file was
compiled for), and for each ``--opts`` (llnoalias options as one string; repeatable; by
default the defaults, ``--opts=`` alone) ``llnoalias OPTIONS --no-verify FILE -o OUT`` and
``llnoalias OPTIONS FILE -o OUT`` (verified with llvmlite's LLVM, the default), all
round-robin, --runs times each. Prints the median wall and CPU (user+sys, children
included) time of each, side by side, and as ratios to llc. The bars: one kernel no slower
than llc-19 (wall), verified and with ``--opts='--lds all'``.

``python -c pass`` shows what starting the interpreter costs (an editable install's import
hook adds to every run). The rows marked "installed" run the same code as a regular
``pip install`` would: a throwaway virtual environment whose only ``.pth`` puts this
checkout and this environment's site-packages on ``sys.path``, without the editable
install's import hook, started as the console script starts (``--no-installed`` leaves
them out). On a loaded machine the CPU column is the steadier one; the wall column shows
the checking child's overlap only where a core is free.

Python writes no bytecode when PYTHONDONTWRITEBYTECODE is set; every run would then compile
llnoalias's sources first, which an installed copy never does. The runs here clear it and
start with one warm-up run of each command.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shlex
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


_TRIPLE_RE = re.compile(r'^target triple = "([^"]*)"', re.M)
_CPU_RE = re.compile(r'"target-cpu"="([^"]*)"')


def llc_target(text: str) -> list[str]:
    """llc's ``-mtriple``/``-mcpu`` for a module: its ``target triple`` and the
    ``"target-cpu"`` its attribute groups name most. LLVM 22's versioned AMDGPU
    architecture (``amdgpu9.42``, Triton 3.9's only note of its GPU) is llc-19's ``amdgcn``
    and, without a ``"target-cpu"``, the CPU it names (``gfx942``). Without these flags llc
    would generate code for its default target and the generic CPU, not what the file was
    compiled for."""
    flags: list[str] = []
    cpu: str | None = None
    m = _TRIPLE_RE.search(text)
    if m:
        triple = m.group(1)
        v = re.match(r"amdgpu(\d+)\.(\d+)-", triple)
        if v:
            cpu = f"gfx{v.group(1)}{v.group(2)}"
            triple = "amdgcn-" + triple[v.end():]
        flags.append(f"-mtriple={triple}")
    cpus = collections.Counter(_CPU_RE.findall(text))
    if cpus:
        cpu = cpus.most_common(1)[0][0]
    if cpu:
        flags.append(f"-mcpu={cpu}")
    return flags


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


def commands(llc: list[str], opts: list[str], file: str, tmp: str, installed: bool) -> dict[str, list[str]]:
    """The timed commands by row name, llc's first."""
    out_s = os.path.join(tmp, "out.s")
    out_ll = os.path.join(tmp, "out.ll")
    llnoalias = [sys.executable, "-c", SCRIPT]
    cmds = {"llc -O3": [*llc, "-O3", file, "-o", out_s]}
    inst = installed_python(tmp) if installed else None
    for opt in opts:
        words = shlex.split(opt)
        label = f" {opt}" if opt else ""
        cmds[f"llnoalias{label} --no-verify"] = [*llnoalias, *words, "--no-verify", file, "-o", out_ll]
        cmds[f"llnoalias{label} (verified)"] = [*llnoalias, *words, file, "-o", out_ll]
        if inst is not None:
            cmds[f"installed:{label} --no-verify"] = [inst, "-c", SCRIPT, *words, "--no-verify", file, "-o", out_ll]
            cmds[f"installed:{label} (verified)"] = [inst, "-c", SCRIPT, *words, file, "-o", out_ll]
    # what any Python program pays before its first line (with this install's .pth hooks)
    cmds["python -c pass"] = [sys.executable, "-c", "pass"]
    if inst is not None:
        cmds["installed: python -c pass"] = [inst, "-c", "pass"]
    return cmds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--file", default=DEFAULT)
    ap.add_argument("--llc", default=None)
    ap.add_argument("--opts", action="append", default=None, metavar="OPTIONS",
                    help="llnoalias options, one string (--opts='--lds all'); repeatable; default: none")
    ap.add_argument("--no-installed", dest="installed", action="store_false",
                    help="leave out the rows of a regular (non-editable) install")
    args = ap.parse_args()
    opts = args.opts if args.opts is not None else [""]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with open(args.file, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    llc = [find_llc(args.llc), *llc_target(text)]
    with tempfile.TemporaryDirectory() as tmp:
        cmds = commands(llc, opts, args.file, tmp, args.installed)
        for cmd in cmds.values():
            timed(cmd, env)  # warm-up: bytecode, page cache
        walls: dict[str, list[float]] = {k: [] for k in cmds}
        cpus: dict[str, list[float]] = {k: [] for k in cmds}
        for _ in range(args.runs):
            for name, cmd in cmds.items():
                wall, cpu = timed(cmd, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
    print(f"{os.path.relpath(args.file, ROOT)}: {text.count(chr(10))} lines; median of {args.runs} runs, "
          f"round-robin ({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}); "
          f"llc: {' '.join(os.path.basename(w) if i == 0 else w for i, w in enumerate(llc))} -O3")
    width = max(len(k) for k in cmds) + 1
    print(f"{'':{width}} {'wall ms':>9} {'x llc':>7} {'cpu ms':>9} {'x llc':>7}")
    base_wall = statistics.median(walls["llc -O3"])
    base_cpu = statistics.median(cpus["llc -O3"])
    for name in cmds:
        w = statistics.median(walls[name])
        c = statistics.median(cpus[name])
        print(f"{name:{width}} {w * 1e3:9.1f} {w / base_wall:7.2f} {c * 1e3:9.1f} {c / base_cpu:7.2f}")


if __name__ == "__main__":
    main()
