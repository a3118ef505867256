"""The shortcuts a test switches off, in one table: each row names a shortcut llnoalias takes
to skip work, where it is, what it skips, and whether it is taken (its default).

Three kinds of row. A plain row is a switch: the code at the shortcut reads ``ON[name]``
once per call (a dict look-up, never once per instruction) and takes the long way where it
is False. A row with ``memos`` is a memo of the module it lives in (a dotted
``module.NAME``, read there as that global): switching it off puts a ``NoMemo`` there, a
memo that keeps nothing, so that every text is read the long way; the code reads its memo
as it always does and pays nothing for the switch. A row with ``binds`` is a shortcut
taken once per instruction, a function its module calls through a global: switching it off
binds that global (``module.NAME``) to the long way the row names (a function of the
package beside the shortcut), so that the code pays nothing for the switch either.

Nothing in the package turns a shortcut off: every default is True, and only the tests
switch (``tests/support/switches.py``: ``switch_shortcut``, which knows no other way). Each
row is a row of ``tests/support/fast_paths.py`` by the same name (``tests/test_fast_paths.py``
checks it), which runs the row with and without it and requires the same output.

Sizes that decide where a shortcut pays (``transform.pipeline.FORGET_FROM``, ``BATCH``,
``DEFER_CHARS``, ``transform.workers.MIN_GROUP_INSTRUCTIONS``) are tuning knobs, not
switches: they stay beside the code they tune (a test lowers one to reach the shortcut on
a small fixture). The compiled twins are switched by ``LLNOALIAS_PURE``
(``llnoalias/compiled.py``).

This module imports nothing (layer 0).
"""

from __future__ import annotations


class Shortcut:
    """One row of ``SHORTCUTS`` (see the module's docstring); read-only."""

    __slots__ = ("name", "where", "skips", "default", "memos", "binds")

    name: str
    where: str
    skips: str
    default: bool
    memos: tuple[str, ...]
    binds: tuple[tuple[str, str], ...]

    def __init__(self, name: str, where: str, skips: str, default: bool = True, memos: tuple[str, ...] = (),
                 binds: tuple[tuple[str, str], ...] = ()) -> None:
        #: the row's name, as ``ON`` and ``tests/support/fast_paths.py`` call it
        object.__setattr__(self, "name", name)
        #: the code that takes it
        object.__setattr__(self, "where", where)
        #: the work it skips: what the long way does
        object.__setattr__(self, "skips", skips)
        #: whether it is taken unless a test switches it
        object.__setattr__(self, "default", default)
        #: the memos it is (``module.NAME``), or none: a switch read through ``ON``
        object.__setattr__(self, "memos", memos)
        #: the globals it binds (``module.NAME``), each with the long way bound there when it
        #: is off (``module.NAME`` of a function), or none
        object.__setattr__(self, "binds", binds)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a shortcut's row is read-only: {self.name}.{name}")

    def __repr__(self) -> str:
        return f"Shortcut({self.name!r})"


SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut("fresh-domains", "transform.metadata.MetadataWriter.fresh_domain",
             "a domain new to the module written scope by scope through domain_scopes, each line appended "
             "alone (the shortcut: its lines at once)"),
    Shortcut("forget-lists", "transform.pipeline._write_scopes (with MetadataWriter.forget_all)",
             "every domain's lists memo kept to the end of the module (the shortcut: dropped once the "
             "domain's accesses are written, in a plan of FORGET_FROM domains or more)"),
    Shortcut("deferred-bodies", "transform.pipeline.annotate_text (parse_module_deferred)",
             "every function body read before the fork (the shortcut: each read by the worker that "
             "analyses it, in a text of DEFER_CHARS or more)"),
    Shortcut("aa-first", "transform.dma_addresses._read",
             "every word of AA_WORDS looked for over the whole span (the shortcut: from the span's first '!' "
             "on, none where it has none)"),
    Shortcut("roots-memo", "transform.roots.find_roots",
             "every argument's type and attributes read, and every kernel's roots planned (the shortcut: "
             "once per distinct type and attribute set, and per argument shape)"),
    Shortcut("workgroup-shapes", "analysis.ranges.workgroup.work_group",
             "every AMDGPU function's bounds read from its texts (the shortcut: once per distinct own "
             "attribute text and attribute groups, WorkGroups.by_shape)"),
    Shortcut("define-line", "ir.parser._ModuleParser.run and ir.toplevel_reader.TopLevelReader._top_level",
             "every define line through _top_level and _function_lines, its header's lines joined (the "
             "shortcut: a line that starts with 'define' straight to _function, a one-line header read "
             "as one line)"),
    Shortcut("access-memo", "analysis.memory.accesses.find_accesses",
             "_memory_access / _intrinsic_access for every instruction (the shortcut: the access of an "
             "instruction whose parsed operands were met before, copied)",
             memos=("llnoalias.analysis.memory.accesses._SEEN",)),
    Shortcut("phi-labels-memo", "analysis.ranges.loops.LoopRanges._phi_labels",
             "every phi's text tokenized (the shortcut: each distinct text once)",
             memos=("llnoalias.analysis.ranges.loops._LABELS_SEEN",)),
    Shortcut("header-fast", "ir.header_reader.HeaderReader._header_fast",
             "every header read by the tokenizer (HeaderReader._header_tokens; the shortcut: the common "
             "header by one pattern, or by the compiled header_line, without tokenizing its parameters)"),
    Shortcut("line-shapes", "ir.header_reader.HeaderReader._remember_line (read by "
             "ir.toplevel_reader.TopLevelReader._add_shaped)",
             "every define line through _header_fast and _body_fast (the shortcut: a define line whose text "
             "but for its name was read before in the module, its header and body read from what that line "
             "gave, the body by BodyReader._body_plain)"),
    Shortcut("body-fast", "ir.body_reader.BodyReader._body_fast",
             "every body read line by line (BodyReader._body_lines; the shortcut: the common lines in one "
             "findall, or by the compiled body_rows)"),
    Shortcut("operands-fast", "ir.operands.parse (through ir.operands_fast.read_fast)",
             "every instruction's operands read by the tokenizing parser, operands._parse (the shortcut: "
             "a plain shape read by one regex)",
             binds=(("llnoalias.ir.operands.read_fast", "llnoalias.ir.operands_fast.read_none"),)),
    Shortcut("encoded", "ir.editor.Editor.encoded",
             "the output joined from Editor.chunks and encoded (the shortcut: spliced into bytes in one "
             "compiled pass)"),
    Shortcut("scope-writer", "transform.pipeline._write_scopes and MetadataWriter.attach_all_scopes",
             "every access's !noalias list made by noalias_keys (_noalias_ids) and written by attach_scopes, "
             "one access at a time (MetadataWriter.attach_one_by_one; the shortcut: a domain of distinct "
             "buffers' lists without noalias_keys, and every access written in one loop)"),
    Shortcut("header-memo", "ir.header_reader.HeaderReader._header_fast, _header_line and _params",
             "every header's texts read (the shortcut: each distinct parameter, prefix, tail and "
             "header shape read once)",
             memos=tuple(f"llnoalias.ir.header_reader.{n}" for n in (
                 "_PARAMS_SEEN", "_PRE_SEEN", "_TAIL_SEEN", "_SHAPES_SEEN", "_PIECES_SEEN"))),
)

#: the switches' states, by name (the rows without ``memos`` or ``binds``): what the code reads
ON: dict[str, bool] = {s.name: s.default for s in SHORTCUTS if not s.memos and not s.binds}


class NoMemo(dict):
    """A memo that keeps nothing: every look-up misses, so every text is read the long way
    (what a switched-off memo holds, and what a switched-off ``roots-memo`` makes)."""

    __slots__ = ()

    def __setitem__(self, key: object, value: object) -> None:
        pass

    def setdefault(self, key: object, default: object = None) -> object:
        return default

    def update(self, *args: object, **kwargs: object) -> None:
        pass


__all__ = ["ON", "SHORTCUTS", "NoMemo", "Shortcut"]
