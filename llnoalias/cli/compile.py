"""``llnoalias compile IN -o OUT``: annotate, then generate code (design section 7)."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from .. import __version__
from ..backends import ExternalToolError
from ..backends import codegen as code_generator
from ..diagnostics import LLNoaliasError, note, set_policy, warn
from ..fileio import display_name, read_input, write_output
from ..options import CODEGEN, QUIET, REPORT, WERROR
from .options import annotate_options, codegen_option, options_from_kwargs, report_options
from .run import fail_on_promoted, named, warn_if_empty

#: Output extensions and the ``--emit`` they imply; anything else (and stdout) is asm.
EMIT_BY_EXTENSION = {".s": "asm", ".ptx": "asm", ".o": "obj", ".cubin": "obj"}


def emit_for_output(output: str | None) -> str:
    """The ``--emit`` that OUT's extension implies: ``.o``/``.cubin`` obj, else asm."""
    if output is None or output == "-":
        return "asm"
    return EMIT_BY_EXTENSION.get(os.path.splitext(output)[1].lower(), "asm")


BRIDGE_NOTE = "llvmlite's LLVM read the module through the version bridge"
TRITON_BRIDGE_NOTE = "Triton's LLVM read the module through the version bridge"


def print_notes(notes: list[str], verbose: bool, name: str = "") -> None:
    """The back end's notes on stderr, each once; the bridge's rewrites only with -v, except
    that the module's synchronization was rewritten (after ``name:`` when given, for ``stats``
    with several files)."""
    seen: set[str] = set()
    for line in notes:
        bridged = line.startswith((BRIDGE_NOTE, TRITON_BRIDGE_NOTE))
        if line in seen or (bridged and not verbose):
            continue
        seen.add(line)
        note(f"{name}: {line}" if name and (bridged or line.startswith(code_generator.SYNC_NOTE)) else line)


def _fail_external(exc: ExternalToolError) -> None:
    sys.stderr.flush()
    sys.stderr.buffer.write(exc.stderr)
    if exc.returncode < 0 or not exc.stderr.strip():
        sys.stderr.buffer.write(LLNoaliasError(exc.message).format().encode("utf-8", "replace"))
    sys.stderr.buffer.flush()
    sys.exit(exc.exit_code)


def _checked(text: str, original: str, name: str, kind: str, mcpu: str | None, triple: str | None,
             llc: str | None, llc_args: tuple[str, ...], ptxas: str | None, optimize: bool, level: int,
             notes: list[str], used: dict[str, str], codegen_name: str = CODEGEN.default) -> bytes:
    """Generate code from the annotated ``text`` and check it (``check.selfcheck``); say on
    stderr where claims were withdrawn and which races the input has itself."""
    from ..check.selfcheck import checked_compile

    sc = checked_compile(text, original, name, emit=kind, mcpu=mcpu, triple=triple, llc=llc, llc_args=llc_args,
                         ptxas=ptxas, optimize=optimize, level=level, notes=notes, used=used, codegen=codegen_name)
    for fn, race in sc.withdrawn.items():
        how = "may still write its bytes" if hasattr(race, "witness") else (
            "may write bytes the check cannot prove apart from it (unproven)")
        warn(f"{name}: withdrew llnoalias's claims in {fn}: the annotated module compiled to an LDS access "
             f"(line {race.access.ir_line}) that runs while the LDS-DMA at line {race.dma.ir_line} {how}, "
             "and the input does not; compiled again without them (llnoalias check shows "
             "the pair; --no-check keeps the claims)")
    if sc.left:
        r = sc.left[0]
        more = f" and {len(sc.left) - 1} more" if len(sc.left) > 1 else ""
        warn(f"{name}: the generated code has an LDS-DMA race the input has too: line {r.access.ir_line} may "
             f"run while the LDS-DMA at line {r.dma.ir_line} still writes its bytes{more} "
             "(llnoalias check IN lists them)")
    return sc.code


#: where :class:`_OneInput` leaves the arguments click would take for llc that came before '--'
EXTRA_INPUTS_KEY = "llnoalias.extra_inputs"


class _OneInput(click.Command):
    """``compile a.ll b.ll``: ``b.ll`` lands in the llc arguments, which only what follows
    '--' may fill; the words before '--' (or all, without one) are a second input."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        after = len(args) - args.index("--") - 1 if "--" in args else 0
        rest = super().parse_args(ctx, args)
        llc_args = ctx.params.get("llc_args") or ()
        ctx.meta[EXTRA_INPUTS_KEY] = tuple(llc_args[:len(llc_args) - after])
        return rest


@click.command("compile", cls=_OneInput, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("input_path", metavar="IN")
@click.option("-o", "--output", "output", metavar="OUT", default="-", show_default=True,
              help="Where to write the code; '-' is stdout. The extension picks --emit.")
@click.option("--emit", "-filetype", "emit", type=click.Choice(["asm", "obj"]), default=None,
              help="asm: AMDGPU assembly or NVPTX PTX; obj: an AMDGPU ELF object or an NVPTX cubin "
                   "(through ptxas). Default: from OUT's extension (.s/.ptx asm, .o/.cubin obj).")
@click.option("--mcpu", "-mcpu", metavar="CPU", default=None,
              help="The target CPU (gfx942, sm_90); default: the module's \"target-cpu\" attribute, "
                   "or the GPU its intrinsics need (wgmma: sm_90a, tcgen05: sm_100a, CDNA4 MFMA: gfx950).")
@click.option("--triple", "-mtriple", "triple", metavar="TRIPLE", default=None,
              help="The target triple; default: the module's, or the one its kernels imply "
                   "(ptx_kernel: nvptx64-nvidia-cuda, amdgpu_kernel: amdgcn-amd-amdhsa).")
@click.option("--llc", "llc", metavar="PATH", default=None,
              help="Generate code with this llc (-O3, the module's triple and CPU) instead of llvmlite's LLVM. "
                   "Without it, a module llvmlite's LLVM cannot take goes to $LLNOALIAS_LLC, llc, "
                   "llc-24 .. llc-19 or /opt/rocm/llvm/bin/llc.")
@click.option("-O", "codegen_level", type=click.Choice(["0", "1", "2", "3"]), default="3", metavar="N",
              help="The code generator's optimisation level, as llc's -O0 .. -O3 (default 3).")
@click.option("--opt", "optimize", is_flag=True, default=False,
              help="Run LLVM's -O3 middle end (llvmlite's new pass manager) after annotating.")
@click.option("-v", "--verbose", is_flag=True, default=False,
              help="Also say which code generator ran (llvmlite's LLVM or an llc, with versions), "
                   "whether llnoalias's compiled parts loaded, and the version bridge's rewrites.")
@click.option("--ptxas", "ptxas", metavar="PATH", default=None,
              help="The ptxas that turns PTX into a cubin (default: ptxas on PATH).")
@click.option("--no-annotate", "no_annotate", is_flag=True, default=False,
              help="Generate code from IN as it is, without adding alias metadata.")
@click.option("--no-check", "no_check", is_flag=True, default=False,
              help="Do not check the generated AMDGPU code for LDS-DMA races (by default, a function "
                   "where the annotated module races and the input does not loses llnoalias's claims "
                   "and is compiled again).")
@click.option("--best", is_flag=True, default=False,
              help="Per function, keep llnoalias's claims or the input's lines, whichever has no LDS-DMA race "
                   "the other lacks, then fewer spills, then fewer vmcnt waits; a line per function says which.")
@click.option("--repair", is_flag=True, default=False,
              help="Where the input itself races by its own metadata (check), scope the LDS-DMA or drop the "
                   "racing LDS accesses' alias metadata, whichever loses least; says what was removed.")
@codegen_option
@annotate_options
@report_options
@click.argument("llc_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- LLC-ARGS...]")
def compile_command(input_path: str, output: str, emit: str | None, mcpu: str | None, triple: str | None,
                    llc: str | None, codegen_level: str, optimize: bool, verbose: bool, ptxas: str | None,
                    no_annotate: bool, llc_args: tuple[str, ...], no_check: bool = False, codegen: str = CODEGEN.default,
                    best: bool = False, repair: bool = False, report_path: str | None = REPORT.default, werror: bool = WERROR.default,
                    quiet: bool = QUIET.default, **kwargs: Any) -> None:
    """Annotate IN, then generate AMDGPU code or NVPTX PTX/cubin from it.

    The target comes from --triple or IN's triple (Triton's amdgpu9.50-amd-amdhsa included;
    a module without one: the triple its kernels imply), the CPU from --mcpu or IN's
    "target-cpu" attribute. Arguments after '--' go to --llc. llc's spellings are taken
    too: -mcpu=CPU, -mtriple=TRIPLE, -filetype=asm|obj, -O0 .. -O3.
    """
    options = options_from_kwargs(kwargs)
    kind = emit or emit_for_output(output)
    set_policy(quiet=quiet, werror=werror)
    name = display_name(input_path)
    try:
        extra = click.get_current_context().meta.get(EXTRA_INPUTS_KEY, ())
        if extra:
            raise LLNoaliasError(f"compile takes one input; '{extra[0]}' is a second (compile each on its own; "
                                 "arguments for --llc go after '--')")
        if kind == "obj" and output in (None, "-") and sys.stdout.isatty():
            raise LLNoaliasError("refusing to write an object file to a terminal; pass -o FILE")
        text = original = raw = read_input(input_path)
        warn_if_empty(text, name)
        fail_on_promoted(name)
        if repair:
            from .best import repair_input

            text = original = repair_input(text, display_name(input_path), mcpu=mcpu, triple=triple, llc=llc,
                                           codegen=codegen)
        if not no_annotate:
            from ..api import annotate
            from .run import note_missed, print_warnings

            result = annotate(text, path=name, options=options, jobs=0)
            print_warnings(text, name, result.report.warnings)
            fail_on_promoted(name)
            note_missed(result, name, repaired=text != raw)
            if report_path:
                write_output(report_path, result.report.to_json() + "\n")
            text = result.text
        elif report_path:
            raise LLNoaliasError("--report writes what annotating found; --no-annotate leaves nothing to report")
        notes: list[str] = []
        used: dict[str, str] = {}
        if verbose:
            from .version import compiled_parts

            note(f"llnoalias {__version__}, {compiled_parts()}")
        try:
            if best and not no_annotate and text != original:
                from .best import choose_best

                text = choose_best(text, original, display_name(input_path), mcpu=mcpu, triple=triple, llc=llc,
                                   codegen=codegen)
                no_check = True  # no function of the chosen text races where the input does not
                # the code written is the code --best judged (design section 7)
                codegen = code_generator.verdict_codegen(original, display_name(input_path), codegen, llc, notes)
            if no_annotate or no_check or text == original:
                code = code_generator.generate(text, emit=kind, mcpu=mcpu, llc=llc, llc_args=tuple(llc_args),
                                               ptxas=ptxas, triple=triple, optimize=optimize, notes=notes, used=used,
                                               level=int(codegen_level), codegen=codegen)
            else:
                code = _checked(text, original, name, kind, mcpu, triple, llc,
                                tuple(llc_args), ptxas, optimize, int(codegen_level), notes, used, codegen)
        except ExternalToolError:
            raise
        except LLNoaliasError as exc:
            raise named(exc, name) from None
        finally:
            print_notes(notes, verbose)
        if verbose and used:
            from .version import generator_line

            note(generator_line(used))
        fail_on_promoted(name)  # the self-check's warnings
        write_output(output, code)
    except ExternalToolError as exc:
        _fail_external(exc)
    except LLNoaliasError as exc:
        sys.stderr.write(exc.format())
        sys.stderr.flush()
        sys.exit(exc.exit_code)
