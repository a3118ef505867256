"""The options of an annotation run, as the CLI, the library and the Triton hook share them.

:data:`OPTIONS` is the one table of the options they share: each :class:`Option` has its
name (the keyword argument, the :class:`AnnotateOptions` field and the command's parameter),
its spellings on the command line, its kind and choices, its default, its metavar and its
help text. The click decorators (``cli/options.py``), the command line's fast path
(``cli/entry.py``), ``llnoalias.annotate`` and ``llnoalias.triton.enable`` read their
defaults and spellings from here; no other module spells them (tests/test_options_table.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from .plain import ValueRecord

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from typing import Any

LDS_MODES = ("dynamic", "all", "off")
ARGS_MODES = ("auto", "noalias", "off")
#: the code generators ``--codegen`` names: llvmlite's LLVM and Triton's bundled one
CODEGENS = ("llvmlite", "triton")
#: the garbage collector's young-generation threshold of a large run (Python's default is
#: 700): the command line sets it for its whole run, ``annotate()`` for a large module's call
GC_YOUNG_THRESHOLD = 100_000


class Option(ValueRecord):
    """One option: ``name`` (keyword argument, field and command parameter), ``flags`` (its
    spellings; a ``switch``'s ``off`` spellings turn it off), ``kind``, ``default``, ``help``,
    ``choices`` (a ``choice``'s values) and ``metavar``.

    Kinds: ``choice`` (one of ``choices``), ``value`` (one string), ``count`` (an integer
    >= 0), ``many`` (a string, repeatable), ``flag`` (on when given), ``switch`` (``--x`` /
    ``--no-x``)."""

    __slots__ = ("name", "flags", "kind", "default", "help", "choices", "metavar", "off")
    _FIELDS = __slots__

    name: str
    flags: tuple[str, ...]
    kind: str
    default: Any
    help: str
    choices: tuple[str, ...]
    metavar: str | None
    off: tuple[str, ...]

    def __init__(self, name: str, flags: tuple[str, ...], kind: str, default: Any, help: str,
                 choices: tuple[str, ...] = (), metavar: str | None = None, off: tuple[str, ...] = ()) -> None:
        assert kind in ("choice", "value", "count", "many", "flag", "switch"), kind
        assert (kind == "choice") == bool(choices) and (kind == "switch") == bool(off), name
        self.name = name
        self.flags = flags
        self.kind = kind
        self.default = default
        self.help = help
        self.choices = choices
        self.metavar = metavar
        self.off = off


# ------------------------------------------------- what an annotation run does
LDS = Option("lds", ("--lds",), "choice", "dynamic", choices=LDS_MODES,
             help="Which addrspace(3) globals get scopes: external zero-sized ones (one buffer: they start at one "
                  "address, so only byte offsets proved apart tell them apart), all, or none.")
ARGS = Option("args", ("--args",), "choice", "auto", choices=ARGS_MODES,
              help="Kernel pointer arguments as roots: those already noalias (auto), every one (noalias), none.")
MAY_ALIAS = Option("may_alias", ("--may-alias",), "many", (), metavar="I,J[,K]",
                   help="Kernel arguments that may share a buffer: no noalias, one shared scope. Repeatable.")
REGIONS = Option("regions", ("--regions",), "switch", True, off=("--no-regions",),
                 help="Split one LDS root into byte-range regions, each with its own scope.")

# ------------------------------------------- the annotate command's own options
OUTPUT = Option("output", ("-o", "--output"), "value", None, metavar="OUT",
                help="Where to write the annotated IR (one input); '-' is stdout (the default). A file is "
                     "replaced atomically; a device or FIFO is written through; a symlink's target is replaced.")
#: ``None``: by the number of inputs (:data:`JOBS_ONE_INPUT`, :data:`JOBS_MANY_INPUTS`)
JOBS = Option("jobs", ("-j", "--jobs"), "count", None, metavar="N",
              help="Worker processes (0: one per CPU): several inputs, a file each (default 1); one "
                   "input, groups of its functions when it is large (default 0).")
#: ``-j`` when it is not given: one input's functions in groups, one per CPU; several
#: inputs, one at a time
JOBS_ONE_INPUT = 0
JOBS_MANY_INPUTS = 1
STATS = Option("show_stats", ("--stats",), "flag", False, help="Print roots, tagged accesses and reasons on stderr.")
REPORT = Option("report_path", ("--report",), "value", None, metavar="FILE",
                help="Write what was found and tagged as JSON to FILE ('-': stdout).")
REMARKS = Option("remarks_path", ("--remarks",), "value", None, metavar="FILE",
                 help="Write LLVM optimization remarks (YAML) for every access to FILE ('-': stdout).")
NO_VERIFY = Option("no_verify", ("--no-verify",), "flag", False, help="Do not check the output with llvmlite's LLVM.")
NO_CHECK = Option("no_check", ("--no-check",), "flag", False,
                  help="Do not compile to check the output of an AMDGPU module with an LDS-DMA (it costs two "
                       "compiles, the input's and the output's, about 0.3-1 s each, run side by side). By default "
                       "a function whose code races where the input's does not, or has more spills or vmcnt "
                       "waits, keeps the input's lines, with a warning or note that says why. Other modules "
                       "are never compiled.")
WERROR = Option("werror", ("-Werror", "--warnings-as-errors"), "flag", False,
                help="Make every warning an error: the run fails (exit 2) and writes nothing.")
QUIET = Option("quiet", ("-q", "--quiet"), "flag", False, help="Print no notes (warnings and errors still).")

# ------------------------------------------------ the commands that make code
CODEGEN = Option("codegen", ("--codegen",), "choice", "llvmlite", choices=CODEGENS,
                 help="The embedded LLVM that generates code: llvmlite's (LLVM 22) or Triton's bundled LLVM (24, "
                      "when Triton is installed: the code generator Triton's users ship with).")

#: the options of :class:`AnnotateOptions`, in the order the commands list them
ANNOTATE = (LDS, ARGS, MAY_ALIAS, REGIONS)
#: the plain ``llnoalias IN -o OUT`` command line's options: what the fast path of
#: ``cli/entry.py`` reads, as the annotate command declares them
PLAIN_RUN = (OUTPUT, JOBS, *ANNOTATE, STATS, REPORT, REMARKS, NO_VERIFY, NO_CHECK, WERROR, QUIET)
#: every option of the table, by name
OPTIONS = {o.name: o for o in (*PLAIN_RUN, CODEGEN)}


class AnnotateOptions(ValueRecord):
    """What one annotation run does; each field is one option of the command line.

    Immutable, compared and hashed by value. A plain class, not a frozen dataclass: the
    ``dataclasses`` module and the code it generates cost every command-line run about
    10 ms of start-up."""

    __slots__ = ("lds", "args", "may_alias", "regions")
    _FIELDS = __slots__

    #: Which ``addrspace(3)`` globals are roots: ``dynamic`` (external zero-sized),
    #: ``all`` (sized ones too) or ``off``.
    lds: str
    #: Which kernel pointer arguments are roots: ``auto`` (those already ``noalias``),
    #: ``noalias`` (every pointer argument: the bindings rule) or ``off``.
    args: str
    #: Groups of argument indices that may share a buffer (``--may-alias 0,2``).
    may_alias: tuple[tuple[int, ...], ...]
    #: Split one root into byte-range regions (design section 2b).
    regions: bool

    def __init__(self, lds: str = LDS.default, args: str = ARGS.default,
                 may_alias: Iterable[str | Iterable[int]] = MAY_ALIAS.default, regions: bool = REGIONS.default) -> None:
        if lds not in LDS_MODES:
            raise ValueError(f"lds must be one of {', '.join(LDS_MODES)}, not {lds!r}")
        if args not in ARGS_MODES:
            raise ValueError(f"args must be one of {', '.join(ARGS_MODES)}, not {args!r}")
        set_ = object.__setattr__
        set_(self, "lds", lds)
        set_(self, "args", args)
        set_(self, "may_alias", parse_may_alias(may_alias))
        set_(self, "regions", regions)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: AnnotateOptions is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: AnnotateOptions is immutable")

    def replace(self, **changes: object) -> AnnotateOptions:
        """A copy with the given fields changed (what ``dataclasses.replace`` did)."""
        unknown = set(changes) - set(self._FIELDS)
        if unknown:
            raise TypeError(f"AnnotateOptions has no field {sorted(unknown)[0]!r}")
        values = self.as_dict()
        values.update(changes)
        return AnnotateOptions(**values)

    def __reduce__(self) -> tuple[object, ...]:
        return (AnnotateOptions, self._values())


def parse_may_alias(groups: Iterable[str | Iterable[int]]) -> tuple[tuple[int, ...], ...]:
    """``--may-alias`` groups, each ``"0,2"`` or ``(0, 2)``: sorted, at least two indices >= 0.
    One group alone may be given as it is (``"0,2"``, ``(0, 2)``), not in a list. Raises
    ``ValueError`` with the message the command line shows."""
    if isinstance(groups, str) or (isinstance(groups, tuple) and groups and all(isinstance(g, int) for g in groups)):
        groups = (groups,)  # one group: "0,2" or (0, 2)
    out: list[tuple[int, ...]] = []
    for spec in groups:
        try:
            parts = spec.split(",") if isinstance(spec, str) else list(spec)
            idx = tuple(sorted({int(p) for p in parts if not (isinstance(p, str) and p.strip() == "")}))
        except (TypeError, ValueError):
            raise ValueError(f"'{spec}' is not a comma-separated list of argument indices") from None
        if len(idx) < 2 or any(i < 0 for i in idx):
            raise ValueError(f"'{spec}' must name at least two argument indices (>= 0)")
        out.append(idx)
    return tuple(out)
