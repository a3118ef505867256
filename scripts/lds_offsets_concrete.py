#!/usr/bin/env python3
"""Check the range analysis on a straight-line kernel by running it: every LDS address of
every thread must lie in the offset range llnoalias computes (FlyDSL's GEMMs).

A small interpreter runs the integer instructions that feed the addresses (``add`` ...
``xor``, ``sdiv``/``srem``/``udiv``/``urem``, shifts, ``icmp``, ``select``, casts,
``smin``/``smax``/``umin``/``umax``, ``getelementptr``/``inttoptr`` off one dynamic LDS
global) for every thread id of the work-group, with a few work-group ids and kernel
argument values (extracted aggregate fields are drawn the same way), the global placed at
two base addresses. An execution with undefined behaviour (division by zero, an over-wide
shift) is skipped. What it cannot evaluate (a loaded value, a phi) is left out, so the
check covers the addresses it could compute; it says how many.

With ``--asm FILE...`` it also replays the vmcnt queue (``tests/support/vmcnt_sim.py``) over the
compiled assembly with the per-wave bytes of every LDS-DMA and LDS read, computed the same
way (one work-group id and argument set); straight-line assembly only.

    python scripts/lds_offsets_concrete.py FILE.ll [--trials 4] [--asm A.s B.s]

Prints; writes nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from llnoalias.analysis.provenance.solver import ModuleAnalysis  # noqa: E402
from llnoalias.analysis.ranges.solver import FunctionRanges, Off  # noqa: E402
from llnoalias.ir.model import LocalRef  # noqa: E402
from llnoalias.ir.parser import parse_module  # noqa: E402
from llnoalias.ir.source import SourceFile  # noqa: E402
from llnoalias.ir.types import Type  # noqa: E402
from llnoalias.options import AnnotateOptions  # noqa: E402
from llnoalias.transform.roots import find_roots  # noqa: E402

M32 = (1 << 32) - 1
P3 = Type("ptr", addrspace=3)
Val = int | tuple[str, int] | None

BIN = re.compile(r"(%[\w.]+) = (add|sub|mul|sdiv|srem|udiv|urem|shl|lshr|ashr|and|or|xor)"
                 r"(?: nuw| nsw| exact| disjoint)* i(\d+) (.+), (\S+)$")
CMP = re.compile(r"(%[\w.]+) = icmp (?:samesign )?(\w+) i(\d+) (.+), (\S+)$")
SEL = re.compile(r"(%[\w.]+) = select i1 (\S+), i(\d+) (\S+), i\d+ (\S+)$")
CAST = re.compile(r"(%[\w.]+) = (sext|zext|trunc) i(\d+) (\S+) to i(\d+)$")
GEP = re.compile(r"(%[\w.]+) = getelementptr (?:inbounds )?(i8|i16|i32|i64|<(\d+) x i(\d+)>), "
                 r"ptr addrspace\(3\) (.+), i32 (\S+)$")
I2P = re.compile(r"(%[\w.]+) = inttoptr i32 (.+) to ptr addrspace\(3\)$")
MINMAX = re.compile(r"(%[\w.]+) = call i32 @llvm\.(smin|smax|umin|umax)\.i32\(i32 (\S+), i32 (\S+)\)$")
EXTRACT = re.compile(r"(%[\w.]+) = extractvalue ")
DMA = re.compile(r"load\.lds\(ptr addrspace\(8\) %[\w.]+, ptr addrspace\(3\) (%[\w.]+), i32 (\d+), "
                 r"i32 [^,]+, i32 [^,]+, i32 (\d+), i32 \d+\)")
LOAD = re.compile(r"= load (?:<(\d+) x i(\d+)>|i(\d+)), ptr addrspace\(3\) (%[\w.]+)")
SIZES = {"i8": 1, "i16": 2, "i32": 4, "i64": 8}


def signed(x: int, w: int) -> int:
    x &= (1 << w) - 1
    return x - (1 << w) if x >> (w - 1) else x


class Kernel:
    """The straight-line integer part of the module's first function."""

    def __init__(self, path: str) -> None:
        self.text = open(path).read()
        mod = parse_module(SourceFile(path, self.text))
        fn = mod.functions[0]
        ma = ModuleAnalysis(mod, find_roots(mod, AnnotateOptions()))
        fa = ma.function(fn)
        fa.solve(list(fn.by_name))
        self.ranges = FunctionRanges(mod, fn, fa, "amdgpu")
        self.lines = [self.text[i.start:i.end].strip() for i in fn.instrs]
        g = re.search(r"^(@[\w.$]+) = external [\w ]*addrspace\(3\) global \[0 x i8\]", self.text, re.M)
        if g is None:
            raise SystemExit(f"{path}: no dynamic LDS global ([0 x i8] in addrspace(3))")
        self.glob = re.escape(g.group(1))
        wg = re.search(r'"amdgpu-flat-work-group-size"="\d+,(\d+)"', self.text)
        self.threads = int(wg.group(1)) if wg else 256
        self.args = re.findall(r"\b(i32) (%\d+)[,)]", self.text[self.text.find("define"):self.text.find("{")])
        self.base = 0

    def value(self, tok: str, env: dict[str, Val], w: int = 32) -> Val:
        tok = tok.strip()
        if tok.startswith("%"):
            return env.get(tok)
        if tok in ("true", "false"):
            return int(tok == "true")
        if re.fullmatch(r"-?\d+", tok):
            return int(tok) & ((1 << w) - 1)
        if re.fullmatch(self.glob, tok):
            return ("P", 0)
        m = re.fullmatch(rf"getelementptr \(i8, ptr addrspace\(3\) {self.glob}, i32 (-?\d+)\)", tok)
        if m:
            return ("P", int(m.group(1)))
        m = re.fullmatch(r"ptrtoint \(ptr addrspace\(3\) (.+) to i32\)", tok)
        if m:
            p = self.value(m.group(1), env)
            return (self.base + p[1]) & M32 if isinstance(p, tuple) else None
        return None

    def run(self, tid: int, wg: int, draw: list[int]) -> dict[str, Val] | None:
        """Every value of one thread; None when the execution is undefined."""
        env: dict[str, Val] = {name: draw[k % len(draw)] for k, (_, name) in enumerate(self.args)}
        for n, ln in enumerate(self.lines):
            name = ln.split()[0]
            if "workitem.id.x" in ln:
                env[name] = tid
            elif "workgroup.id.x" in ln:
                env[name] = wg
            elif EXTRACT.match(ln):
                env[name] = draw[n % len(draw)]
            elif (m := BIN.match(ln)) is not None:
                w = int(m.group(3))
                a, b = self.value(m.group(4), env, w), self.value(m.group(5), env, w)
                if not isinstance(a, int) or not isinstance(b, int):
                    continue
                r = binop(m.group(2), a, b, w)
                if r is None:
                    return None
                env[name] = r
            elif (m := CMP.match(ln)) is not None:
                w = int(m.group(3))
                a, b = self.value(m.group(4), env, w), self.value(m.group(5), env, w)
                if isinstance(a, int) and isinstance(b, int):
                    env[name] = compare(m.group(2), a, b, w)
            elif (m := SEL.match(ln)) is not None:
                c = self.value(m.group(2), env, 1)
                if isinstance(c, int):
                    r = self.value(m.group(4) if c else m.group(5), env, int(m.group(3)))
                    if r is not None:
                        env[name] = r
            elif (m := CAST.match(ln)) is not None:
                sw, dw = int(m.group(3)), int(m.group(5))
                a = self.value(m.group(4), env, sw)
                if isinstance(a, int):
                    env[name] = (signed(a, sw) if m.group(2) == "sext" else a) & ((1 << dw) - 1)
            elif (m := MINMAX.match(ln)) is not None:
                a, b = self.value(m.group(3), env), self.value(m.group(4), env)
                if isinstance(a, int) and isinstance(b, int):
                    f = m.group(2)
                    pick = min if f.endswith("min") else max
                    env[name] = (pick(signed(a, 32), signed(b, 32)) if f[0] == "s" else pick(a, b)) & M32
            elif (m := I2P.match(ln)) is not None:
                a = self.value(m.group(2), env)
                if isinstance(a, int):
                    env[name] = ("P", (a - self.base) & M32)
            elif (m := GEP.match(ln)) is not None:
                size = SIZES.get(m.group(2)) or int(m.group(3)) * int(m.group(4)) // 8
                p, i = self.value(m.group(5), env), self.value(m.group(6), env)
                if isinstance(p, tuple) and isinstance(i, int):
                    env[name] = ("P", (p[1] + signed(i, 32) * size) & M32)
        return env


def binop(op: str, a: int, b: int, w: int) -> int | None:
    m = (1 << w) - 1
    if op in ("sdiv", "srem", "udiv", "urem"):
        if b == 0 or (op[0] == "s" and signed(a, w) == -(1 << (w - 1)) and signed(b, w) == -1):
            return None
    if op in ("shl", "lshr", "ashr") and b >= w:
        return None
    if op in ("sdiv", "srem"):
        sa, sb = signed(a, w), signed(b, w)
        q = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)
        return (q if op == "sdiv" else sa - q * sb) & m
    r = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "udiv": lambda: a // b,
         "urem": lambda: a % b, "shl": lambda: a << b, "lshr": lambda: a >> b,
         "ashr": lambda: signed(a, w) >> b, "and": lambda: a & b, "or": lambda: a | b,
         "xor": lambda: a ^ b}[op]()
    return r & m


def compare(pred: str, a: int, b: int, w: int) -> int:
    if pred[0] == "s":
        a, b = signed(a, w), signed(b, w)
    p = pred if pred in ("eq", "ne") else pred[1:]
    return int({"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[p])


def check_offsets(k: Kernel, trials: int) -> None:
    ptrs: list[str] = []
    for ln in k.lines:
        m = DMA.search(ln) or LOAD.search(ln)
        if m:
            ptrs.append(m.group(1) if m.re is DMA else m.group(4))
    claims = {p: k.ranges.offset(P3, LocalRef(p)) for p in ptrs}
    rnd = random.Random(1)
    checked = outside = 0
    seen: dict[str, set[int]] = {}
    for base in (0, 4096):
        k.base = base
        for _ in range(trials):
            wg = rnd.choice([0, 1, 7, 63, 1000, rnd.randrange(1 << 16)])
            draw = [rnd.choice([1, 2, 16, 128, 256, 1024, 4096, rnd.randrange(1, 1 << 14)]) for _ in range(6)]
            for tid in range(k.threads):
                env = k.run(tid, wg, draw)
                if env is None:
                    continue
                for p, o in claims.items():
                    v = env.get(p)
                    if not isinstance(o, Off) or not isinstance(v, tuple):
                        continue
                    checked += 1
                    off = v[1]
                    seen.setdefault(p, set()).add(off)
                    mask = (1 << min(o.kw, 32)) - 1
                    if (off - o.lo) % (1 << 32) > o.hi - o.lo or off & o.zero & mask or \
                            off & o.one & mask != o.one & mask:
                        outside += 1
                        if outside <= 5:
                            print(f"  OUTSIDE: {p} at {off}, claimed {o} (thread {tid}, work-group {wg})")
    ranged = [p for p, o in claims.items() if isinstance(o, Off)]
    tight = sum(1 for p in ranged if p in seen and min(seen[p]) == claims[p].lo and max(seen[p]) == claims[p].hi)
    print(f"{len(ptrs)} LDS accesses, {len(claims)} distinct pointers, {len(ranged)} with an offset range, "
          f"{len(seen)} evaluated; {checked} thread offsets checked, {outside} outside their range; "
          f"{tight} ranges reached at both ends")


def replay(k: Kernel, asm_files: list[str]) -> None:
    from tests.support.vmcnt_sim import Access, Bytes, Dma, check_asm

    k.base = 0
    envs = [k.run(t, 3, [1024, 4096, 1, 2, 4, 16]) for t in range(k.threads)]
    if any(e is None for e in envs):
        raise SystemExit("an execution of the replay's argument set is undefined")
    waves = k.threads // 64

    def per_wave(p: str, extra: int, head: int = 0) -> Bytes:
        spans = []
        for w in range(waves):
            vs = [envs[t][p][1] for t in range(64 * w, 64 * w + 64)]  # type: ignore[index]
            spans.append((min(vs) + head, max(vs) + head + extra))
        return Bytes("dyn", min(a for a, _ in spans), max(b for _, b in spans), tuple(spans))

    dmas: list[Dma] = []
    accs: list[Access] = []
    for ln in k.lines:
        if (m := DMA.search(ln)) is not None:
            dmas.append(Dma(per_wave(m.group(1), 64 * int(m.group(2)), int(m.group(3))), ln[:60]))
        elif (m := LOAD.search(ln)) is not None:
            size = int(m.group(1)) * int(m.group(2)) // 8 if m.group(1) else int(m.group(3)) // 8
            accs.append(Access(per_wave(m.group(4), size), False, len(dmas), ln[:60]))
        elif "store " in ln and "addrspace(3)" in ln:
            raise SystemExit(f"LDS store not followed: {ln[:80]}")
    name = re.search(r"define [^@]*@([\w.$]+)\(", k.text)
    assert name is not None
    for path in asm_files:
        res = check_asm(open(path).read(), name.group(1), dmas, accs)
        print(f"{path}: {'approximate' if res.approximate else 'exact'} mapping, {len(res.lost)} lost waits")
        for lost in res.lost[:3]:
            print("   ", lost.message[:240])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--trials", type=int, default=4, help="work-group id / argument draws per base")
    ap.add_argument("--asm", nargs="*", default=[], help="compiled assembly of FILE to replay")
    a = ap.parse_args()
    k = Kernel(a.file)
    check_offsets(k, a.trials)
    if a.asm:
        replay(k, a.asm)


if __name__ == "__main__":
    main()
