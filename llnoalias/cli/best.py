"""``--best`` on the command line: ``compile --best`` and ``llnoalias --best IN -o OUT``."""

from __future__ import annotations

from ..diagnostics import note, warn


def choose_best(annotated: str, original: str, name: str, *, mcpu: str | None, triple: str | None,
                llc: str | None, codegen: str) -> str:
    """``--best``: the chosen text (``check.best``), with a line per function on stderr."""
    from ..check.best import choose

    chosen = choose(annotated, original, name, mcpu=mcpu, triple=triple, llc=llc, codegen=codegen)
    for c in chosen.choices:
        note(f"{name}: --best: {c.line()}")
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
