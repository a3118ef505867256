"""Each pair of an asynchronous LDS writer and an LDS access, compared per thread, per loop
state and between waves (design 4b, "exact"), over the footprints ``exact.FunctionExact``
reads: an LDS-DMA's one-wave window, a per-lane copy's own bytes (gfx1250's
``load.async.to.lds``), a tensor operation's tile read from its descriptor (gfx1250's tensor
data mover). A race comes with its witness; a pair neither told apart nor witnessed is
unproven, with what blocks the proof."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .. import reasons
from ..analysis.ranges.concrete import ARG_SPACE, PtrInt, Threads, Unknown, Val, at, lift
from ..analysis.ranges.evolution import phi_labels
from ..ir.model import LocalRef
from .exact import APART, AT, UNIFORM, Bytes, FunctionExact, Site, Variant, Verdict
from .tiles import Tile, decode, word

#: the lanes a witness names at most per pair before giving up on finding a definite one
_SCAN = 1 << 16
#: the values a witness may assume every integer kernel argument has, tried in turn
ASSUMED = (4096, 65536, 1024, 512, 256, 192, 160, 128, 64, 1, 0)
#: why a pair that races only under assumed arguments that the path to it does not run with is unproven
OFF_PATH = ("a race only where the integer arguments take values under which the path that brings the pair "
            "together does not run")
#: join phis whose incoming values are tried one by one, at most
_JOINS = 3


def _models(site: Site, base: int) -> list[tuple[int, int]]:
    """Where lane ``l`` of a DMA at ``base`` may write, as (start, step) of ``start + l * step``:
    its immediate offset added to the LDS address or not, lanes ``size`` or ``stride`` apart (the
    same models where the offset is 0 and the size a power of two of 4 bytes or more)."""
    return sorted({(c, m) for c in (base, base + site.imm) for m in (site.size, site.stride)})


def _lane_range(site: Site, lo: int, hi: int, base: int, lanes: int) -> list[int]:
    """The lanes of a DMA at ``base`` whose bytes may meet ``[lo, hi)`` in some model."""
    got: set[int] = set()
    for c, m in _models(site, base):
        first = max(0, (lo - site.size - c) // m + 1)
        last = min(lanes - 1, (hi - 1 - c) // m)
        got.update(range(first, last + 1))
    return sorted(got)


def _lane_bytes(site: Site, base: int, lane: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """(core, hull) bytes of one lane: the core is written in every model, the hull in some."""
    starts = [c + lane * m for c, m in _models(site, base)]
    return (max(starts), min(starts) + site.size), (min(starts), max(starts) + site.size)


def compare(fx: FunctionExact, dma_line: int, cd: tuple[int, ...], acc_line: int, ca: tuple[int, ...],
            *, same_wave: bool, other_waves: bool, fresh: bool,
            feasible: Callable[[tuple[tuple[str, int], ...]], bool] | None = None, path: object = None) -> Verdict:
    """The verdict of one pair (see the module's docstring). Where it is unproven for a phi of a
    join, each of its incoming values is tried: apart for all is apart, a race for all is a race.
    Where a witness needs the integer kernel arguments (a bound on the lanes that run a DMA, an
    address after a loop whose trip count they set), it is looked for with each argument at one
    of ``ASSUMED`` in turn, the first that ``feasible`` takes (the path that brings the pair
    together runs with it; ``path`` names that path in the memo), and names that assumption."""
    key = (dma_line, cd, acc_line, ca, same_wave, other_waves, fresh, path)
    memo = fx.verdicts.get(key)
    if memo is None:
        memo = fx.verdicts[key] = _compare_all(fx, dma_line, cd, acc_line, ca, same_wave=same_wave,
                                               other_waves=other_waves, fresh=fresh, feasible=feasible)
    return memo


def _compare_all(fx: FunctionExact, dma_line: int, cd: tuple[int, ...], acc_line: int, ca: tuple[int, ...],
                 *, same_wave: bool, other_waves: bool, fresh: bool,
                 feasible: Callable[[tuple[tuple[str, int], ...]], bool] | None) -> Verdict:
    kw = {"same_wave": same_wave, "other_waves": other_waves, "fresh": fresh}
    got = _compare(fx, dma_line, cd, acc_line, ca, ((), ()), **kw)
    if got.kind != "unproven":
        return got
    if got.join:
        got = _alternatives(fx, dma_line, cd, acc_line, ca, (), got, **kw)
        if got.kind != "unproven":
            return got
    off_path = False
    for value in ASSUMED:
        args = fx.assumed_args(value)
        if not args:
            break
        trial = _compare(fx, dma_line, cd, acc_line, ca, (args, ()), **kw)
        if trial.kind == "unproven" and trial.join:
            trial = _alternatives(fx, dma_line, cd, acc_line, ca, args, trial, **kw)
        if trial.kind == "race" and trial.witness is not None:
            if feasible is not None and not feasible(args):
                off_path = True
                continue
            w = dict(trial.witness)
            w["assumes"] = {name: v for name, v in args}
            return Verdict("race", w)
    if off_path:
        return Verdict("unproven", why=OFF_PATH)
    return got


def join_feasible(fx: FunctionExact, label: str, ctx: tuple[int, ...], args: tuple[tuple[str, int], ...]) -> bool:
    """Whether the block ``label`` may run with the integer arguments at ``args``: no condition
    on it that every thread shares is false then."""
    try:
        block = fx.fn.blocks.index(label)
    except ValueError:
        return True
    ev = fx.evol.evaluator(ctx, args)
    for g in fx.guards[block] if block < len(fx.guards) else ():
        if g.cond is None:
            continue
        v = ev.value(None, LocalRef(g.cond))
        if isinstance(v, int) and bool(v & 1) != g.holds:
            return False
    return True


def _alternatives(fx: FunctionExact, dma_line: int, cd: tuple[int, ...], acc_line: int, ca: tuple[int, ...],
                  args: tuple[tuple[str, int], ...], got: Verdict, **kw: bool) -> Verdict:
    """The pair judged once per way into the joins whose phis block the proof: a join's phis all
    take the value of one predecessor (phis of one block agree on it), each predecessor in turn,
    at most ``_JOINS`` joins deep. Apart every way is apart, a race every way is a race."""
    leaves: list[Verdict] = []

    def explore(choose: dict[str, int], fixed: dict[int, str], v: Verdict, depth: int) -> None:
        if len(leaves) >= 4 * _JOINS * _JOINS:
            leaves.append(v if v.kind == "unproven" else Verdict("unproven", why=got.why, line=got.line))
            return
        inst = fx.fn.by_name.get(v.join) if v.kind == "unproven" and v.join else None
        if inst is None or depth >= _JOINS or v.join in choose:
            leaves.append(v)
            return
        labels = phi_labels(fx.mod.text[inst.opstart:inst.end])
        block = inst.block
        picks = [fixed[block]] if block in fixed else list(dict.fromkeys(labels))
        for label in picks:
            if label not in labels:
                leaves.append(v)
                continue
            if args and not join_feasible(fx, label, ca, args):
                continue  # with these arguments no thread comes this way
            nxt = dict(choose)
            nxt[v.join] = labels.index(label)
            # the other phis of the block this way takes: the same predecessor
            nfixed = dict(fixed)
            nfixed[block] = label
            variant = (args, tuple(sorted(nxt.items())))
            explore(nxt, nfixed, _compare(fx, dma_line, cd, acc_line, ca, variant, **kw), depth + 1)

    explore({}, {}, got, 0)
    if leaves and all(v.kind == "apart" for v in leaves):
        return APART
    if leaves and all(v.kind == "race" for v in leaves):
        return leaves[0]
    return next((v for v in leaves if v.kind == "unproven"), got)


def _compare(fx: FunctionExact, dma_line: int, cd: tuple[int, ...], acc_line: int, ca: tuple[int, ...],
             variant: Variant, *, same_wave: bool, other_waves: bool, fresh: bool) -> Verdict:
    th = fx.threads
    dsite = fx.sites.get(dma_line)
    if dsite is not None and dsite.tdm:
        return compare_tile(fx, dsite, cd, acc_line, ca, variant, same_wave=same_wave, other_waves=other_waves,
                             fresh=fresh)
    d = fx.bytes(dma_line, cd, variant)
    a = fx.bytes(acc_line, ca, variant)
    for x in (d, a):
        if isinstance(x, Unknown):
            return Verdict("unproven", why=x.why, line=x.line, join=x.join)
    assert isinstance(d, Bytes) and isinstance(a, Bytes) and th is not None and dsite is not None
    if dsite.lane:
        return compare_lanes(fx, d, a, cd, ca, acc_line, same_wave=same_wave, other_waves=other_waves, fresh=fresh)
    if d.space != a.space:
        return _spaces(d.space, a.space)
    span = th.wave * dsite.stride + dsite.size + max(dsite.imm, 0)
    before = min(dsite.imm, 0)
    dlo, dhi = min(d.lo) + before, max(d.lo) + span
    if not (min(a.lo) < dhi and dlo < max(a.hi)):
        return APART
    maybe: Verdict | None = None
    scanned = 0
    for t, st, lo, hi, wt, w in _meetings(th, a, same_wave, other_waves):
        first = w * th.wave
        base = d.lo[first] if first < th.count else d.lo[0]
        if not (lo < base + span and base + before < hi):
            continue
        if not d.uniform:
            maybe = maybe or Verdict("unproven", why="an LDS-DMA whose LDS pointer differs between the lanes "
                                     "of a wave (its base is the first running lane's)", line=dma_line)
            continue
        for lane in _lane_range(dsite, lo, hi, base, th.wave):
            td = first + lane
            if td >= th.count:
                break
            sd = d.standing[td]
            if sd is None:
                continue
            scanned += 1
            core, hull = _lane_bytes(dsite, base, lane)
            if not (lo < hull[1] and hull[0] < hi):
                continue
            if fresh and td // th.wave == wt and any((c, not h) in sd for c, h in st):
                continue  # one thread's (one wave's, for a shared condition) both arms in one iteration
            exact = lo < core[1] and core[0] < hi
            open_st = _open(st)
            open_sd = _open(sd)
            if exact and not open_st and not open_sd:
                byte = max(lo, core[0])
                return Verdict("race", {
                    "lane": t % th.wave, "wave": wt, "thread": t, "byte": byte,
                    "dma_lane": lane, "dma_wave": w, "between_waves": w != wt,
                    "dma_state": fx.describe(cd), "access_state": fx.describe(ca)})
            if maybe is None:
                conds = _names(open_st | open_sd)
                why = (f"whether lanes run it depends on {conds}" if conds else
                       "the lanes' bytes meet only where the DMA's lane size is not a power of two")
                maybe = Verdict("unproven", why=why, line=acc_line)
            if scanned > _SCAN:
                return maybe
    return maybe or APART


def compare_lanes(fx: FunctionExact, d: Bytes, a: Bytes, cd: tuple[int, ...], ca: tuple[int, ...], acc_line: int,
                   *, same_wave: bool, other_waves: bool, fresh: bool) -> Verdict:
    """``_compare`` for a per-lane asynchronous copy: each running lane writes its own bytes; a race
    where a thread of the access meets a byte a running lane of the copy (this wave, or another)
    writes, with no condition open on either side."""
    th = fx.threads
    assert th is not None
    if d.space != a.space:
        return _spaces(d.space, a.space)
    if not (min(a.lo) < max(d.hi) and min(d.lo) < max(a.hi)):
        return APART
    maybe: Verdict | None = None
    for t, st, lo, hi, wt, w in _meetings(th, a, same_wave, other_waves):
        for td in range(w * th.wave, min((w + 1) * th.wave, th.count)):
            sd = d.standing[td]
            if sd is None or not (lo < d.hi[td] and d.lo[td] < hi):
                continue
            if fresh and w == wt and any((c, not h) in sd for c, h in st):
                continue  # one thread's (one wave's, for a shared condition) both arms in one iteration
            open_st = _open(st)
            open_sd = _open(sd)
            if not open_st and not open_sd:
                return Verdict("race", {
                    "lane": t % th.wave, "wave": wt, "thread": t, "byte": max(lo, d.lo[td]),
                    "dma_lane": td % th.wave, "dma_wave": w, "between_waves": w != wt,
                    "dma_state": fx.describe(cd), "access_state": fx.describe(ca)})
            if maybe is None:
                maybe = Verdict("unproven", why=f"whether lanes run it depends on {_names(open_st | open_sd)}",
                                line=acc_line)
    return maybe or APART


#: the descriptor fields a tile is read from, (group, word, first bit, bits): the predicate and
#: the modes of group 0 word 0, the LDS address; group 1 word 0 below the multicast mask's end
#: (element size, modes, padding), tile dimension 0 (word 3's high half) and word 4 (tile
#: dimensions 1 and 2). Only these bits are read: the rest of word 3 is half a tensor dimension,
#: often a kernel argument
_FIELDS = ((0, 0, 0, 1), (0, 0, 30, 2), (0, 1, 0, 32), (1, 0, 16, 16), (1, 3, 16, 16), (1, 4, 0, 32))


def tiles_of(fx: FunctionExact, site: Site, ctx: tuple[int, ...], variant: Variant
             ) -> list[tuple[str, int, Tile] | None] | Unknown:
    """Per wave: the space, LDS address and tile of a tensor operation's descriptor in that wave's
    first lane that runs it (None: the wave does not run it, or its predicate is off)."""
    memo = fx.descriptors.tiles
    key = (site.line, ctx, variant)
    if key not in memo:
        memo[key] = _tiles_of(fx, site, ctx, variant)
    return memo[key]  # type: ignore[return-value]


def _tiles_of(fx: FunctionExact, site: Site, ctx: tuple[int, ...], variant: Variant
              ) -> list[tuple[str, int, Tile] | None] | Unknown:
    th = fx.threads
    if th is None:
        return Unknown(fx.why_not, fx.fn.line)
    stand = fx.standing(site.block, ctx, variant)
    if isinstance(stand, Unknown):
        return stand
    ev = fx.evol.evaluator(ctx, *variant)
    g0, g1 = site.tdm[0], site.tdm[1]
    words: dict[tuple[int, int], Val] = {}
    for gi, k, lo, width in _FIELDS:
        grp = g0 if gi == 0 else g1
        eb = 32 * k
        v = fx.descriptors.bits(ev, grp, eb + lo, width) if width < 32 else fx.descriptors.element(ev, grp, k)
        if isinstance(v, Unknown):
            return v
        if width < 32:
            if not isinstance(v, (int, tuple)):
                return Unknown("a tensor descriptor field that is an address", site.line)
            old = words.get((gi, k), 0)
            if not isinstance(old, (int, tuple)):
                return Unknown("a tensor descriptor field that is an address", site.line)
            v = lift(lambda x, y, s=lo: x | (y << s), old, v)
        words[(gi, k)] = v
    rest_zero = True
    for grp in site.tdm[2:]:
        n = grp[0].count or 0
        for k in range(n):
            v = fx.descriptors.element(ev, grp, k)
            if v != 0:
                rest_zero = False
    addr = words[(0, 1)]
    if not isinstance(addr, PtrInt):
        return Unknown("a tensor descriptor whose LDS address is not traced to an LDS variable", site.line)
    out: list[tuple[str, int, Tile] | None] = []
    for w in range(th.waves):
        lanes = range(w * th.wave, min((w + 1) * th.wave, th.count))
        run = [t for t in lanes if stand[t] is not None]
        if not run:
            out.append(None)
            continue
        t = run[0]
        vals = []
        for gi, n in ((0, 4), (1, 8)):
            row = []
            for k in range(n):
                v = words.get((gi, k), 0)
                if isinstance(v, PtrInt):
                    row.append(at(v.off, t) & 0xFFFFFFFF)
                elif isinstance(v, (int, tuple)):
                    row.append(word(v, t))
                else:
                    return Unknown("a tensor descriptor word that is an address", site.line)
            vals.append(row)
        tile = decode(vals[0], vals[1], rest_zero)
        if isinstance(tile, str):
            return Unknown(tile, site.line)
        out.append(None if tile is None else (addr.space, at(addr.off, t), tile))
    return out


def compare_tile(fx: FunctionExact, dsite: Site, cd: tuple[int, ...], acc_line: int, ca: tuple[int, ...],
                  variant: Variant, *, same_wave: bool, other_waves: bool, fresh: bool) -> Verdict:
    """``_compare`` for a tensor operation: each wave that runs it touches its tile from its LDS
    address; a race where some thread of the access meets a byte the tile writes (reads, for a
    store from LDS), with no condition open on either side."""
    th = fx.threads
    tiles = tiles_of(fx, dsite, cd, variant)
    a = fx.bytes(acc_line, ca, variant)
    for x in (tiles, a):
        if isinstance(x, Unknown):
            return Verdict("unproven", why=x.why, line=x.line, join=x.join)
    assert isinstance(a, Bytes) and isinstance(tiles, list) and th is not None
    live = _live_waves(a, tiles)
    if not live:
        return APART
    dstand = fx.standing(dsite.block, cd, variant)
    assert not isinstance(dstand, Unknown)
    maybe: Verdict | None = None
    for t, st, lo, hi, wt, w in _meetings(th, a, same_wave, other_waves):
        got = tiles[w] if w in live else None
        if got is None:
            continue
        space, base, tile = got
        if space != a.space:
            other = _spaces(space, a.space)
            if other.kind == "unproven":
                maybe = maybe or other
            continue
        if not (lo < base + tile.span and base < hi):
            continue
        byte = tile.written(lo - base, hi - base)
        if byte is None:
            continue  # only padding between them
        lanes = [s for s in dstand[w * th.wave:(w + 1) * th.wave] if s is not None]
        sd = next((s for s in lanes if not _open(s)), None)
        if fresh and w == wt and sd is not None and any((c, not h) in sd for c, h in st if c.startswith(UNIFORM)):
            continue  # one wave: both arms of a shared condition in one iteration
        open_st = _open(st)
        if sd is not None and not open_st:
            return Verdict("race", {
                "lane": t % th.wave, "wave": wt, "thread": t, "byte": base + byte,
                "dma_lane": 0, "dma_wave": w, "between_waves": w != wt,
                "tile": {"lds": base, "elem": tile.elem, "dims": list(tile.dims), "pad_interval": tile.interval,
                         "pad_amount": tile.amount},
                "dma_state": fx.describe(cd), "access_state": fx.describe(ca)})
        if maybe is None:
            conds = _names(open_st.union(*(_open(s) for s in lanes)))
            maybe = Verdict("unproven", why=f"whether the wave runs it depends on {conds}", line=acc_line)
    return maybe or APART


def _live_waves(a: Bytes, tiles: list[tuple[str, int, Tile] | None]) -> set[int]:
    """The waves whose tile may meet a byte of the access in some running thread: in another
    space (judged by ``_spaces``), or overlapping the hull of the threads' bytes; the others
    cannot race it (most pairs: another stage's slot)."""
    ran = [i for i, st in enumerate(a.standing) if st is not None]
    if not ran:
        return set()
    lo, hi = min(a.lo[i] for i in ran), max(a.hi[i] for i in ran)
    out: set[int] = set()
    for w, got in enumerate(tiles):
        if got is None:
            continue
        space, base, tile = got
        if space != a.space or (lo < base + tile.span and base < hi):
            out.add(w)
    return out


def _spaces(x: str, y: str) -> Verdict:
    """Two footprints in different spaces: apart (two LDS variables the lowering places apart, or
    one and the dynamic block), unless one is an LDS pointer argument's, which may be anywhere."""
    if x.startswith(ARG_SPACE) or y.startswith(ARG_SPACE):
        return Verdict("unproven", why=reasons.NOT_EVALUATED.format(
            value=(x if x.startswith(ARG_SPACE) else y)[len(ARG_SPACE):], what="argument pointer"))
    return APART


def _meetings(th: Threads, a: Bytes, same_wave: bool, other_waves: bool
              ) -> Iterator[tuple[int, frozenset[tuple[str, bool]], int, int, int, int]]:
    """Each thread ``t`` that runs the access (its conditions, bytes ``[lo, hi)``, wave ``wt``)
    with each wave ``w`` whose writer it is judged against: its own, the others, or both."""
    for t in range(th.count):
        st = a.standing[t]
        if st is None:
            continue
        wt = t // th.wave
        waves = ([wt] if same_wave else []) + ([w for w in range(th.waves) if w != wt] if other_waves else [])
        for w in waves:
            yield t, st, a.lo[t], a.hi[t], wt, w


def _open(st: frozenset[tuple[str, bool]]) -> set[str]:
    """The conditions of a thread's standing that are its own (not shared by every thread)."""
    return {c for c, _ in st if not c.startswith(UNIFORM)}


def _names(conds: set[str]) -> str:
    """The values conditions read, for a message (``%c@17`` is ``%c``)."""
    return ", ".join(sorted({c.split(AT, 1)[0] for c in conds}))


__all__ = ["compare", "compare_lanes", "compare_tile", "join_feasible", "tiles_of"]
