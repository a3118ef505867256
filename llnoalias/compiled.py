"""The compiled parts: one registry, one loader.

Each compiled part is a C twin of a pure-Python reference: the C file sits beside the
module it mirrors and is named after it (``fixpoint.py`` / ``_fixpoint.c``), gives the same
answers, and a test holds the two to that on every fixture and corpus file. Both are kept
only while the C one pays for itself (``docs/performance.md``: each twin is measured by
blocking it alone; one within noise is removed). How to add or change one:
CONTRIBUTING.md, "The C twins".

``setup.py`` builds what ``TWINS`` lists (it reads this file; it imports nothing else),
each optional: where no C compiler or Python headers are found the package installs
without it and runs the reference. ``load`` is the only way the package imports one, and
each module that uses one binds it once, at module level, in one spelling: ``NAME =
compiled.load(KEY)``, where ``NAME`` is the twin's ``bound_as`` and the module one of its
``holders`` (None there: the reference runs). A test switches a twin off (or counts its
calls) by setting that name in those modules (``tests/support/switches.py``);
``tests/meta/test_twins.py`` holds the package to this spelling.

``LLNOALIAS_PURE`` selects the references: ``1`` (any value that is not a list of keys)
for every part, a comma-separated list of keys (``fixpoint,range_solver``) for those only,
which is how one part's worth is measured.

This module imports only the standard library (``setup.py`` runs it before the package is
installed), and the names each C file reads from Python objects are declared here
(``reads``), so that renaming one in Python fails ``tests/meta/test_twins.py`` rather than the C
code at run time.
"""

from __future__ import annotations

import os
from types import ModuleType


class Twin:
    """One compiled part (see the module's docstring)."""

    __slots__ = ("key", "module", "references", "test", "depends", "reads", "words", "bound_as", "holders")

    def __init__(self, key: str, module: str, references: tuple[str, ...], test: str, depends: tuple[str, ...],
                 reads: dict[str, tuple[str, ...]], words: tuple[str, ...], bound_as: str,
                 holders: tuple[str, ...]) -> None:
        #: what ``LLNOALIAS_PURE`` and ``--version`` call it
        self.key = key
        #: the extension module's dotted name: ``llnoalias.<package>._<reference>``
        self.module = module
        #: the Python modules it mirrors; the first is the one it is named after
        self.references = references
        #: the test that holds the twin and its references to the same answers
        self.test = test
        #: headers it includes (beside it), for setup.py's rebuild check
        self.depends = depends
        #: the attribute names it reads or writes on Python objects, by the class that has
        #: them (``"llnoalias.ir.model.Ops": ("kind", ...)``)
        self.reads = reads
        #: every other identifier-like string the C code holds: opcodes and kinds it
        #: compares with, names of what it is handed at ``init``, its own method names
        self.words = words
        #: the module-level name every holder binds it to (``bound_as = compiled.load(key)``)
        self.bound_as = bound_as
        #: the modules that bind it (the only ones that call into it)
        self.holders = holders

    @property
    def source(self) -> str:
        """The C file, relative to the repository's root."""
        return self.module.replace(".", "/") + ".c"


_MODEL = "llnoalias.ir.model"

TWINS: tuple[Twin, ...] = (
    Twin(
        key="body_reader",
        module="llnoalias.ir._body_reader",
        references=("llnoalias.ir.body_reader", "llnoalias.ir.lines", "llnoalias.ir.limits", "llnoalias.ir.editor",
                    "llnoalias.ir.header_reader"),
        test="tests/ir/test_twin_body_reader.py",
        depends=(),
        reads={f"{_MODEL}.Instruction": ("name", "opcode", "start", "_len", "_op", "ops", "function")},
        words=(),
        bound_as="_cscan",
        holders=("llnoalias.ir.body_reader", "llnoalias.ir.lines", "llnoalias.ir.limits", "llnoalias.ir.editor",
                 "llnoalias.ir.header_reader"),
    ),
    Twin(
        key="fixpoint",
        module="llnoalias.analysis.provenance._fixpoint",
        references=("llnoalias.analysis.provenance.fixpoint", "llnoalias.analysis.provenance.solver"),
        test="tests/analysis/provenance/test_twin_fixpoint.py",
        depends=(),
        reads={
            f"{_MODEL}.Instruction": ("ops", "start", "_len", "_op"),
            f"{_MODEL}.Ops": ("kind", "operands", "incoming", "flags"),
            "llnoalias.ir.types.Type": ("is_pointer",),
            f"{_MODEL}.GlobalRef": ("name",),
            f"{_MODEL}.LocalRef": ("name",),
        },
        words=("gep", "cast", "binop", "cmp", "phi", "select", "freeze", "bitcast", "add", "or", "disjoint"),
        bound_as="_cfix",
        holders=("llnoalias.analysis.provenance.solver",),
    ),
    Twin(
        key="range_solver",
        module="llnoalias.analysis.ranges._solver",
        references=("llnoalias.analysis.ranges.solver", "llnoalias.analysis.ranges.transfer"),
        test="tests/analysis/ranges/test_twin_range_solver.py",
        depends=("_int128.h", "_kbits.h"),
        reads={
            "llnoalias.analysis.ranges.solver.FunctionRanges": (
                "ints", "offs", "fn", "fa", "dl", "lds_bits", "vscale", "_assume", "_inprog", "_depth", "_budget",
                "_low", "_phis_solved", "_before_query", "_arg_range", "_int_other", "_off_other", "_int_ops",
                "_off_inst", "_gep_from"),
            "llnoalias.analysis.provenance.solver.FunctionAnalysis": ("value", "vals", "mod"),
            f"{_MODEL}.Function": ("by_name",),
            f"{_MODEL}.Instruction": ("ops", "name"),
            f"{_MODEL}.Ops": ("kind", "flags", "operands", "source_type", "result_type"),
            f"{_MODEL}.PlainConst": ("text",),
            f"{_MODEL}.Module": ("named_types", "text"),
            "llnoalias.ir.types.Type": ("bits", "addrspace", "elem", "count"),
            "llnoalias.ir.datalayout.DataLayout": ("pointer_bits", "index_bits", "alloc_size", "scalar_sizes"),
            "llnoalias.reasons.Reason": ("fields", "text"),
        },
        #: "i"/"o" start the keys of the per-function caches (as ``transfer``/``solver`` make
        #: them); the reasons it gives are handed to it from ``llnoalias/reasons.py`` (``CRANGE_NAMES``)
        words=("int", "ptr", "binop", "cast", "gep", "zext", "sext", "trunc", "bitcast", "add", "sub", "mul",
               "shl", "and", "or", "xor", "lshr", "ashr", "float", "array", "vector", "umin", "disjoint", "i",
               "o"),
        bound_as="_crange",
        holders=("llnoalias.analysis.ranges.solver",),
    ),
)

_BY_KEY = {t.key: t for t in TWINS}


def _blocked(key: str) -> bool:
    pure = os.environ.get("LLNOALIAS_PURE")
    if not pure:
        return False
    keys = pure.split(",")
    return not all(k in _BY_KEY for k in keys) or key in keys


def load(key: str) -> ModuleType | None:
    """The compiled part ``key`` of ``TWINS``, or None where it was not built or
    ``LLNOALIAS_PURE`` selects its reference (then it is not imported at all)."""
    if _blocked(key):
        return None
    try:
        module: ModuleType = __import__(_BY_KEY[key].module, fromlist=["_"])
    except ImportError:
        return None
    return module


__all__ = ["TWINS", "Twin", "load"]
