"""``--best`` on the command line: ``compile --best`` and ``llnoalias --best IN -o OUT``."""

from __future__ import annotations

from ..diagnostics import note


def choose_best(annotated: str, original: str, name: str, *, mcpu: str | None, triple: str | None,
                llc: str | None, codegen: str) -> str:
    """``--best``: the chosen text (``check.best``), with a line per function on stderr."""
    from ..check.best import choose

    chosen = choose(annotated, original, name, mcpu=mcpu, triple=triple, llc=llc, codegen=codegen)
    for c in chosen.choices:
        note(f"{name}: --best: {c.line()}")
    return chosen.text
