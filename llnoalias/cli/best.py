"""``--best`` on the command line: ``compile --best`` and ``llnoalias --best IN -o OUT``."""

from __future__ import annotations

from ..diagnostics import LLNoaliasError, note, warn


def choose_best(annotated: str, original: str, name: str, *, mcpu: str | None, triple: str | None,
                llc: str | None, codegen: str) -> str:
    """``--best``: the chosen text (``check.best``), with a line per function on stderr."""
    from ..check.best import choose

    chosen = choose(annotated, original, name, mcpu=mcpu, triple=triple, llc=llc, codegen=codegen)
    for c in chosen.choices:
        note(f"{name}: --best: {c.line()}")
    return chosen.text


def _race_words(keys: frozenset[tuple[int, int]]) -> str:
    """A race of ``Measure.races`` in words: its IR lines (an assembly line where it has none)."""
    dma, access = min(keys)
    return f"an LDS access ({_at(access)}) that runs while the LDS-DMA at {_at(dma)} may still write its bytes"


def _at(line: int) -> str:
    return f"line {line}" if line > 0 else f"assembly line {-line}"


def keep_never_worse(annotated: str, original: str, name: str, *, mcpu: str | None, codegen: str) -> str:
    """The annotate path's own check (design section 4b): both forms compiled once and judged
    (``check.best.choose``: races, then spills, then ``vmcnt`` waits, per function), the text
    to write, and on stderr a warning per function whose claims made a race the input lacks and
    a note per function that keeps the input's lines for its spills or waits. Where the check
    cannot run (a module that names no GPU, no code generator that can take it or that keeps
    its waits), the annotated text is written as it is, and a note or warning says why."""
    from ..backends.target import detect
    from ..check.best import KEPT_INPUT, choose

    try:
        detect(original, mcpu, None)
    except LLNoaliasError as exc:
        note(f"{name}: the output was not compiled to check it for LDS-DMA races ({exc.message}); "
             "--no-check skips the check")
        return annotated
    try:
        chosen = choose(annotated, original, name, mcpu=mcpu, triple=None, llc=None, codegen=codegen)
    except LLNoaliasError as exc:
        warn(f"{name}: the output was not checked for LDS-DMA races: {exc.message.splitlines()[0]} "
             "(--no-check skips the check)")
        return annotated
    for c in chosen.choices:
        if c.kept != KEPT_INPUT:
            continue
        added = c.annotated.races - c.input.races
        if added:
            warn(f"{name}: withdrew llnoalias's claims in {c.function}: the annotated module compiled to "
                 f"{_race_words(added)}, and the input does not; the input's lines are written "
                 "(llnoalias check shows the race; --no-check keeps the claims)")
        else:
            note(f"{name}: kept the input's lines in {c.function}: {c.why} (input/annotated: spills "
                 f"{c.input.spills}/{c.annotated.spills}, vmcnt waits {c.input.vmcnt}/{c.annotated.vmcnt}; "
                 "--no-check keeps the claims)")
    return chosen.text


def repair_input(text: str, name: str, *, mcpu: str | None, triple: str | None, llc: str | None,
                 codegen: str) -> str:
    """``--repair``: the input with the races of its own metadata removed (``check.repair``), with a
    line per change on stderr."""
    from ..check.repair import repair

    rep = repair(text, name, mcpu=mcpu, triple=triple, llc=llc, codegen=codegen)
    for line in rep.changes:
        note(f"{name}: --repair: {line}")
    if rep.before and not rep.changed:
        warn(f"{name}: --repair: the input races ({len(rep.before)} LDS-DMA race(s)) and no repair removed them "
             "(llnoalias check IN lists them)")
    elif rep.before and not rep.clean:
        warn(f"{name}: --repair: {len(rep.after)} race(s) are left")
    elif rep.before:
        note(f"{name}: --repair: the input's {len(rep.before)} LDS-DMA race(s) are gone ({rep.how}); "
             "the repaired module checks clean")
    return rep.text
