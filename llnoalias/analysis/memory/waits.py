"""The waits of one function as the LDS-DMA rules see them (design section 4b): which calls
wait for every vector-memory operation (``asm_waits`` reads inline assembly as the AMDGPU
assembler does: a comment is no wait), which blocks a DMA's path reaches before such a wait
(also after a loop back edge), and the dominator tree, over the control-flow graph the IR
model gives (``Function.successors``). ``transform/dma_addresses.summarise`` puts what
``WaitFlow`` finds into each access's summary.
"""

from __future__ import annotations

from bisect import bisect_right

from ...ir.cfg import control_flow
from ...ir.lazyre import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ...ir.model import Function, Module

#: a wait for every vector-memory operation: ``s.waitcnt(0)`` (every counter, in every
#: encoding), gfx12's ``s.wait.loadcnt(0)``, or inline assembly that has such a wait as one
#: of its statements (``_asm_waits``: a comment is no wait)
_KILL = lazy(r"@llvm\.amdgcn\.s\.waitcnt\(i32 0\)|@llvm\.amdgcn\.s\.wait\.loadcnt\(i16 0\)")
#: the assembly string of an inline-assembly call (IR strings escape ``"`` as ``\22``)
_ASM = lazy(r"\basm\b(?:\s+(?:sideeffect|alignstack|inteldialect|unwind))*\s+\"([^\"]*)\"")
_HEX = lazy(r"\\([0-9A-Fa-f]{2})|\\\\|\\n")
_BLOCK_COMMENT = lazy(r"/\*.*?(\*/|$)", 16)  # re.DOTALL: an unclosed one runs to the end
_LINE_COMMENT = lazy(r";|//|#")


def _unescape(m: object) -> str:
    text = m.group(0)  # type: ignore[attr-defined]
    if text == "\\\\":
        return "\\"
    if text == "\\n":
        return "\n"
    return chr(int(text[1:], 16))


def asm_waits(asm: str) -> bool:
    """Does the IR string ``asm`` (an inline-assembly call's, still escaped) hold a
    statement that waits for every vector-memory operation, read as LLVM's AMDGPU assembler
    reads it? Statements end at newlines (``\\0A`` in the IR, also ``\\n`` and real
    ones); in each, everything from ``;`` (AMDGPU's comment string), ``//`` or ``#`` on is a
    comment, and so is a ``/* ... */`` block (replaced by a space: a statement it joins is
    not a wait). Only a statement whose first word is ``s_waitcnt`` with ``vmcnt(0)`` or
    the bare immediate 0, or ``s_wait_loadcnt`` 0, counts."""
    text = _BLOCK_COMMENT.sub(" ", _HEX.sub(_unescape, asm))
    for stmt in text.split("\n"):
        m = _LINE_COMMENT.search(stmt)
        if m is not None:
            stmt = stmt[:m.start()]
        words = stmt.replace(",", " ").replace("&", " ").split()
        if not words:
            continue
        op, args = words[0].lower(), [w.lower() for w in words[1:]]
        if op == "s_waitcnt" and (("vmcnt(0)" in args or "vmcnt(0x0)" in args) or args in (["0"], ["0x0"])):
            return True
        if op == "s_wait_loadcnt" and args in (["0"], ["0x0"]):
            return True
    return False


def _kills(text: str, start: int, end: int) -> bool:
    """Is the call ``text[start:end]`` a wait for every vector-memory operation?"""
    if _KILL.search(text, start, end):
        return True
    m = _ASM.search(text, start, end)
    return m is not None and asm_waits(m.group(1))


def _may_kill(text: str, start: int, end: int) -> bool:
    """Could ``_kills`` answer yes for ``text[start:end]``: does it hold one of the words
    every such call has (two searches for a plain string, cheaper than the patterns)?"""
    return text.find("@llvm.amdgcn.s.wait", start, end) >= 0 or text.find("asm", start, end) >= 0


class WaitFlow:
    """Which LDS accesses an LDS-DMA may still be in flight at: reached from the DMA by a
    path that passes no wait for every vector-memory operation (a DMA that such a wait
    retired cannot lose a wait it no longer needs)."""

    def __init__(self, mod: Module, fn: Function) -> None:
        text = mod.text
        instrs = fn.instrs
        nblocks = max(len(fn.blocks), 1)
        self.index = {id(inst): n for n, inst in enumerate(instrs)}
        #: per instruction: its block (``Instruction.block``, made once by the IR model)
        self.block = fn.instr_blocks
        #: per instruction: the index of the last wait at or before it in its block
        self.last_kill: list[int] = []
        first_kill = [-1] * nblocks
        #: the indices of the waits, and where each run of one block's instructions starts
        #: (in increasing order): ``kill_after`` asks them
        self.kills: list[int] = []
        self.runs: list[int] = []
        cur_block, last = -1, -1
        for n, inst in enumerate(instrs):
            b = self.block[n]
            if b != cur_block:
                cur_block, last = b, -1
                self.runs.append(n)
            if inst.opcode == "call" and _may_kill(text, inst.start, inst.end) and _kills(text, inst.start, inst.end):
                last = n
                self.kills.append(n)
                if first_kill[b] < 0:
                    first_kill[b] = n
            self.last_kill.append(last)
        #: the control-flow graph: per block, its successors (read, never changed)
        self.succ: list[list[int]] = fn.successors
        self.first_kill = first_kill
        self._reach: dict[int, tuple[int, ...]] = {}
        self._reach_back: dict[int, tuple[int, ...]] = {}
        #: the edges a depth-first walk from the entry finds retreating (every cycle has
        #: one, irreducible ones too), and each block's preorder and postorder numbers in
        #: the dominator tree (-1: not reached from the entry); made on first use
        self._back: set[tuple[int, int]] | None = None
        self._dom: tuple[list[int], list[int]] = ([], [])

    def _order(self) -> None:
        """The back edges and the dominator tree's preorder and postorder numbers
        (``ir.cfg.control_flow``)."""
        succ = self.succ
        n = len(succ)
        back, idom = control_flow(succ)
        # (a dominance test reads the numbers as intervals: the children's order is free)
        kids: list[list[int]] = [[] for _ in range(n)]
        for b in range(1, n):
            if idom[b] >= 0:
                kids[idom[b]].append(b)
        pre_n, post_n = [-1] * n, [-1] * n
        clock = 0
        walk: list[tuple[int, bool]] = [(0, False)]
        while walk:
            b, done = walk.pop()
            if done:
                post_n[b] = clock
                clock += 1
                continue
            pre_n[b] = clock
            clock += 1
            walk.append((b, True))
            walk.extend((x, False) for x in reversed(kids[b]))
        self._back = back
        self._dom = (pre_n, post_n)

    def reach_back_from_exit(self, b: int) -> tuple[int, ...]:
        """The blocks a path leaving block ``b`` enters after it crossed a back edge and
        before it passes a wait."""
        got = self._reach_back.get(b)
        if got is None:
            if self._back is None:
                self._order()
            back = self._back
            assert back is not None
            seen: set[tuple[int, bool]] = set()
            todo = [(x, (b, x) in back) for x in self.succ[b]]
            while todo:
                x, crossed = todo.pop()
                if (x, crossed) in seen:
                    continue
                seen.add((x, crossed))
                if self.first_kill[x] < 0:
                    todo.extend((y, crossed or (x, y) in back) for y in self.succ[x])
            got = self._reach_back[b] = tuple(sorted({x for x, crossed in seen if crossed}))
        return got

    def dom_place(self, b: int) -> tuple[int, int]:
        """Block ``b``'s preorder and postorder numbers in the dominator tree: ``a``
        dominates ``b`` when ``a``'s interval holds ``b``'s (-1, -1: not reached)."""
        if self._back is None:
            self._order()
        pre_n, post_n = self._dom
        return (pre_n[b], post_n[b]) if b < len(pre_n) else (-1, -1)

    def reach_from_exit(self, b: int) -> tuple[int, ...]:
        """The blocks a path leaving block ``b`` enters before it passes a wait."""
        got = self._reach.get(b)
        if got is None:
            seen: set[int] = set()
            todo = list(self.succ[b])
            while todo:
                x = todo.pop()
                if x in seen:
                    continue
                seen.add(x)
                if self.first_kill[x] < 0:  # no wait in it: paths go on through it
                    todo.extend(self.succ[x])
            got = self._reach[b] = tuple(sorted(seen))
        return got

    def kill_after(self, n: int) -> bool:
        """Is there a wait after instruction ``n`` in its block (its run of instructions), so
        that a DMA there is retired before the block ends? The first wait after it, found by
        bisection, and whether a run starts between them: no walk down the block per DMA."""
        k = bisect_right(self.kills, n)
        if k == len(self.kills):
            return False
        return bisect_right(self.runs, n) == bisect_right(self.runs, self.kills[k])

    def where(self, inst: object, is_dma: bool) -> tuple[int, int, int, tuple[int, ...]]:
        n = self.index[id(inst)]
        b = self.block[n]
        reach: tuple[int, ...] = ()
        if is_dma and not self.kill_after(n):
            # the last wait of its block (-1: none) lies before it: paths leave the block open
            reach = self.reach_from_exit(b)
        return b, n, self.last_kill[n], reach

    def place(self, inst: object, is_dma: bool) -> tuple[int, int, tuple[int, ...]]:
        """The appended fields of a summary: the block's dominator-tree numbers and, for a
        DMA that leaves its block in flight, the blocks reached after a back edge."""
        n = self.index[id(inst)]
        b = self.block[n]
        pre, post = self.dom_place(b)
        back: tuple[int, ...] = ()
        if is_dma and not self.kill_after(n):
            back = self.reach_back_from_exit(b)
        return pre, post, back


__all__ = ["WaitFlow", "asm_waits"]
