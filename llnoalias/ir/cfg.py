"""A function's control flow as its blocks' successor lists give it: the retreating edges of a
depth-first walk from the entry (every cycle has one, irreducible ones too) and the immediate
dominators (Cooper, Harvey and Kennedy's iteration over the reverse postorder). One home for the
LDS-DMA rules' order (``analysis.memory.waits``), the loops (``analysis.ranges.evolution``) and
the assembly's loops in the check (``check.iterations``)."""

from __future__ import annotations


def control_flow(succ: list[list[int]]) -> tuple[set[tuple[int, int]], list[int]]:
    """The retreating edges of a depth-first walk from block 0 and each block's immediate
    dominator (-1: not reached; Cooper, Harvey and Kennedy's iteration over the reverse postorder)."""
    n = len(succ)
    state = [0] * n
    post: list[int] = []
    back: set[tuple[int, int]] = set()
    if not n:
        return back, []
    stack: list[tuple[int, int]] = [(0, 0)]
    state[0] = 1
    while stack:
        b, k = stack[-1]
        if k < len(succ[b]):
            stack[-1] = (b, k + 1)
            x = succ[b][k]
            if state[x] == 0:
                state[x] = 1
                stack.append((x, 0))
            elif state[x] == 1:
                back.add((b, x))
            continue
        state[b] = 2
        post.append(b)
        stack.pop()
    rpo = post[::-1]
    order = [-1] * n
    for i, b in enumerate(rpo):
        order[b] = i
    preds: list[list[int]] = [[] for _ in range(n)]
    for b in rpo:
        for x in succ[b]:
            preds[x].append(b)
    idom = [-1] * n
    idom[0] = 0
    changed = True
    while changed:
        changed = False
        for b in rpo[1:]:
            new = -1
            for p in preds[b]:
                if idom[p] < 0:
                    continue
                if new < 0:
                    new = p
                    continue
                a, c = p, new
                while a != c:
                    while order[a] > order[c]:
                        a = idom[a]
                    while order[c] > order[a]:
                        c = idom[c]
                new = a
            if new != idom[b]:
                idom[b] = new
                changed = True
    return back, idom


__all__ = ["control_flow"]
