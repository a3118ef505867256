"""``llnoalias check IN``: LDS-DMA races judged in the assembly the code generator writes."""

from __future__ import annotations

import json
import sys

import click

from ..diagnostics import LLNoaliasError, Location, format_diagnostic, note, set_policy, warn
from ..fileio import display_name, read_input, write_stdout
from ..options import CODEGEN, QUIET, REPORT, WERROR
from .options import codegen_option, report_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..check.checker import CheckResult
    from ..check.judge import Place, Wait
    from ..ir.source import SourceFile

#: exit status when a race was found
EXIT_RACE = 1

_CAUSE_TEXT = {
    "needed": "needed",
    "barrier": "before a barrier",
    "producer": "the producer's own wait",
    "none": "needed by nothing",
}


def _loc(src: SourceFile, place: Place) -> Location | None:
    if place.ir_line <= 0:
        return None
    return Location(src.path, place.ir_line, max(place.ir_col, 1), src.line_text(place.ir_line))


def format_race(res: CheckResult, n: int) -> str:
    """One race as an error at the access and a note at the DMA."""
    r = res.races[n]
    src = res.source
    via = " -> ".join(r.path) if r.path else "its own block"
    at_access = _loc(src, r.access)
    if r.moved:
        msg = (f"LDS access that may touch {r.access_bytes} runs before the LDS-DMA above it in the IR, which "
               f"writes {r.dma_bytes}: the code generator moved it above the DMA in {r.function} "
               f"[assembly line {r.access.asm_line}: `{r.access.asm_text}`]")
    else:
        msg = (f"LDS access may touch {r.access_bytes} while the LDS-DMA that writes {r.dma_bytes} is still in "
               f"flight: no {r.counter} wait retires it on a path ({via}) in {r.function} "
               f"[assembly line {r.access.asm_line}: `{r.access.asm_text}`]")
    if at_access is None:
        msg += " (the instruction has no IR line)"
    out = format_diagnostic("error", msg, at_access)
    at_dma = _loc(src, r.dma)
    out += format_diagnostic("note", f"the LDS-DMA [assembly line {r.dma.asm_line}: `{r.dma.asm_text}`]", at_dma)
    if r.witness:
        out += format_diagnostic("note", "witness: " + witness_text(r.witness), None)
    return out


def _states(states: object) -> str:
    if not isinstance(states, list) or not states:
        return ""
    parts = []
    for st in states:
        if not isinstance(st, dict):
            continue
        vals = st.get("values") or {}
        shown = ", ".join(f"{k} = {v}" for k, v in vals.items()) if isinstance(vals, dict) else ""
        k = st.get("state")
        parts.append(f"loop {st.get('loop')} in state {'not known' if k == -1 else k}" + (f" ({shown})" if shown else ""))
    return "; ".join(parts)


def witness_text(w: dict[str, object]) -> str:
    """A race's witness in words: who touches which byte, in which loop states, assuming what."""
    kind = w.get("kind")
    who = f"lane {w.get('lane')} of wave {w.get('wave')} (thread {w.get('thread')})"
    dma = f"lane {w.get('dma_lane')} of wave {w.get('dma_wave')}"
    verb = "writes over byte" if kind == "overwrite" else "touches byte"
    tile = w.get("tile")
    if isinstance(tile, dict):  # the tensor data mover: the wave's tile, not a lane's element
        shape = " x ".join(str(d) for d in tile.get("dims", []))
        owner = (f"tensor {'store' if kind == 'write' else 'copy'} of wave {w.get('dma_wave')} (a tile of {shape} "
                 f"elements of {tile.get('elem')} bytes at LDS byte {tile.get('lds')})")
    else:
        owner = f"LDS-DMA's {dma}"
    text = (f"{who} {'reads or writes' if kind == 'overwrite' else verb} {w.get('byte')}, which the {owner} "
            + ("still reads" if kind == "write" else "writes")
            + (" (another wave, with no barrier after the DMA retired between them)" if w.get("between_waves") else ""))
    ds, acs = _states(w.get("dma_state")), _states(w.get("access_state"))
    if ds or acs:
        text += f"; the DMA: {ds or 'outside the loops'}; the access: {acs or 'outside the loops'}"
    assumes = w.get("assumes")
    if isinstance(assumes, dict) and assumes:
        text += "; with the integer arguments " + ", ".join(f"{k} = {v}" for k, v in assumes.items())
    return text


def format_unproven(res: CheckResult, n: int) -> str:
    """A pair neither proved apart nor witnessed: a warning at the access with what blocks the proof."""
    u = res.unproven[n]
    src = res.source
    where = f" (line {u.line})" if u.line > 0 else ""
    msg = (f"unproven: LDS access that may touch {u.access_bytes} and the LDS-DMA that writes {u.dma_bytes} "
           f"are neither told apart nor witnessed to race in {u.function}: {u.why}{where} "
           f"[assembly line {u.access.asm_line}: `{u.access.asm_text}`]")
    out = format_diagnostic("warning", msg, _loc(src, u.access))
    out += format_diagnostic("note", f"the LDS-DMA [assembly line {u.dma.asm_line}: `{u.dma.asm_text}`]",
                             _loc(src, u.dma))
    return out


def _where(src: SourceFile, p: Place) -> str:
    return f"{src.path}:{p.ir_line}" if p.ir_line > 0 else f"asm:{p.asm_line}"


def format_waits(res: CheckResult) -> str:
    """Every vmcnt wait and its cause, one line each (``--waits``)."""
    src = res.source
    lines = []
    for w in res.waits:
        lines.append(_wait_line(src, w))
    counts: dict[str, int] = {}
    for w in res.waits:
        counts[w.cause] = counts.get(w.cause, 0) + 1
    summary = ", ".join(f"{counts[c]} {_CAUSE_TEXT[c]}" for c in _CAUSE_TEXT if counts.get(c))
    lines.append(_wait_count(res.waits) + (f": {summary}" if summary else ""))
    judged = [w for w in res.waits if w.loosest is not None]
    if judged:
        looser = sum(1 for w in judged if w.loosest is not None and w.value < w.loosest < 63)
        free = sum(1 for w in judged if w.loosest == 63)
        lines.append(f"ideal: {looser} stricter than needed, {free} needed by nothing "
                     f"({len(judged)} of {len(res.waits)} judged)")
    return "\n".join(lines) + "\n"


def _wait_count(waits: list[Wait]) -> str:
    """``12 vmcnt waits``, and those of the other counters where there are any."""
    by: dict[str, int] = {}
    for w in waits:
        key = w.counter if w.counter in ("asynccnt", "tensorcnt") else "vmcnt"
        by[key] = by.get(key, 0) + 1
    text = f"{by.pop('vmcnt', 0)} vmcnt waits"
    return text + "".join(f", {n} {c} waits" for c, n in sorted(by.items()))


def _wait_line(src: SourceFile, w: Wait) -> str:
    head = f"{_where(src, w.at)}: asm {w.at.asm_line}: {w.counter}({w.value}) in {w.function}: {_CAUSE_TEXT[w.cause]}"
    if w.retires:
        shown = ", ".join(_where(src, p) for p in w.retires[:4])
        more = f" and {len(w.retires) - 4} more" if len(w.retires) > 4 else ""
        head += f"; retires {shown}{more}"
    if w.needed_by is not None:
        head += f"; for {_where(src, w.needed_by)} `{w.needed_by.asm_text}`"
    if w.loosest is not None and w.loosest > w.value:
        head += "; could be removed" if w.loosest == 63 else f"; could be {w.counter}({w.loosest})"
    return head


@click.command("check", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("input_path", metavar="IN", default="-")
@click.option("--mcpu", metavar="CPU", help="The GPU (default: the module's \"target-cpu\").")
@click.option("--triple", metavar="TRIPLE", help="The target triple (default: the module's).")
@click.option("--llc", metavar="PATH", help="Generate code with this llc instead of llvmlite's LLVM.")
@codegen_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON (schema llnoalias.check/1) on stdout.")
@click.option("--waits", "show_waits", is_flag=True,
              help="List every vmcnt wait with its cause (the load or DMA it retires and what needed it, a "
                   "barrier, the producer's own wait, or nothing: a wait a change could save) and its loosest "
                   "safe count ('could be vmcnt(7)'; judged again per count, so slower).")
@click.option("--strict", is_flag=True,
              help="Exit 1 also when a pair is unproven (neither told apart nor witnessed to race).")
@click.option("--compare-plain", is_flag=True,
              help="Also compile the module without the debug locations the check adds, and say whether "
                   "the instructions differ.")
@report_options
def check_command(input_path: str, mcpu: str | None, triple: str | None, llc: str | None, as_json: bool,
                  show_waits: bool, compare_plain: bool, codegen: str = CODEGEN.default,
                  strict: bool = False, report_path: str | None = REPORT.default, werror: bool = WERROR.default,
                  quiet: bool = QUIET.default) -> None:
    """Compile IN as given and report every LDS access that races an LDS-DMA: some path of the
    assembly reaches it while the DMA may still write a byte it touches (no vmcnt wait retired it
    in the issuing wave, or, for another wave, no barrier after the retirement). Each race comes
    with its witness (lanes, waves, byte, loop states); a pair neither told apart nor witnessed is
    a warning, "unproven", with what blocks the proof.

    Works on any producer's module (its own alias scopes, clang's !tbaa, llnoalias's output).
    Exit status: 0 no race, 1 a race (or, with --strict, an unproven pair), 2 bad input or no
    code generator."""
    from ..backends import ExternalToolError
    from ..check.checker import check_text
    from .compile import _fail_external, print_notes
    from .run import fail_on_promoted, named, warn_if_empty

    set_policy(quiet=quiet, werror=werror)
    name = display_name(input_path)
    try:
        text = read_input(input_path)
        warn_if_empty(text, name)
        fail_on_promoted(name)
        res = check_text(text, name, mcpu=mcpu, triple=triple, llc=llc, compare_plain=compare_plain,
                         codegen=codegen, ideal=show_waits)
    except ExternalToolError as exc:
        _fail_external(exc)
        return
    except LLNoaliasError as exc:
        exc = named(exc, name)
        sys.stderr.write(exc.format())
        sys.exit(exc.exit_code)
    print_notes(res.notes, False)
    if res.same_instructions is False:
        warn(f"{name}: the debug locations the check adds changed the generated code ({res.difference}); "
             "the verdict is about the located copy")
    try:
        fail_on_promoted(name)
        if report_path:
            from ..fileio import write_output

            write_output(report_path, json.dumps(res.to_json(), indent=2) + "\n")
    except LLNoaliasError as exc:
        sys.stderr.write(exc.format())
        sys.exit(exc.exit_code)
    if as_json:
        write_stdout(json.dumps(res.to_json(), indent=2) + "\n")
    for n in range(len(res.races)):
        sys.stderr.write(format_race(res, n))
    for n in range(len(res.unproven)):
        sys.stderr.write(format_unproven(res, n))
    if show_waits and not as_json:
        write_stdout(format_waits(res))
    if not as_json:
        n_dma = sum(f.dmas for f in res.functions)
        races = len(res.races)
        unproven = len(res.unproven)
        note(f"{name}: {races} race{'s' if races != 1 else ''} between LDS-DMA and LDS accesses, "
             f"{unproven} unproven ({n_dma} LDS-DMA instruction{'s' if n_dma != 1 else ''} in "
             f"{len(res.functions)} function{'s' if len(res.functions) != 1 else ''}, "
             f"{_wait_count(res.waits)})")
    sys.stderr.flush()
    if res.races or (strict and res.unproven):
        sys.exit(EXIT_RACE)
