"""The metadata writer (design section 4).

Domains and scopes are ``distinct`` self-referential nodes; each distinct list of scopes is
written once; new ids start above the highest id in the file. An access that already has
``!alias.scope`` / ``!noalias`` keeps its scopes: the new list is the union. Domains and
scopes that an earlier llnoalias run wrote are found again by their names and reused,
so running llnoalias on its own output changes nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from .. import shortcuts
from ..ir.editor import Editor
from ..ir.lazyre import lazy
from ..ir.lexer import NAME_END
from ..ir.model import Instruction, Module

_SCOPE_RE = lazy(r'^\s*!(\d+)\s*=\s*distinct\s+!\{\s*!(\d+)\s*,\s*!(\d+)\s*,\s*!"([^"]*)"\s*\}\s*$')
_DOMAIN_RE = lazy(r'^\s*!(\d+)\s*=\s*distinct\s+!\{\s*!(\d+)\s*,\s*!"(llnoalias\.[^"]*)"\s*\}\s*$')
_LIST_RE = lazy(r"^\s*!(\d+)\s*=\s*!\{([^{}]*)\}\s*$")
_ID_RE = lazy(r"!(\d+)")

TYPE_CHECKING = False
if TYPE_CHECKING:

    #: what ``attach_all_scopes`` is handed per instruction: ``(inst, scopes, noalias)``
    Attachment = tuple[Instruction, tuple[int, ...], tuple[int, ...]]


def _list_line(lid: int, ids: tuple[int, ...]) -> str:
    """The line of list node ``lid`` of the scopes ``ids``."""
    if len(ids) == 1:  # (most lists: one scope)
        return f"!{lid} = !{{!{ids[0]}}}"
    return f"!{lid} = !{{!{', !'.join(map(str, ids))}}}" if ids else f"!{lid} = !{{}}"


def md_escape(name: str) -> str:
    """Escape a name for a metadata string the way LLVM prints it."""
    if name.isascii() and name.isprintable() and '"' not in name and "\\" not in name:
        return name  # the common name: nothing to escape
    out = []
    for ch in name:
        if ch == '"' or ch == "\\" or not (0x20 <= ord(ch) < 0x7F):
            for b in ch.encode("utf-8", "surrogateescape"):
                out.append(f"\\{b:02X}")
        else:
            out.append(ch)
    return "".join(out)


def _has_scopes(code: str) -> bool:
    """Does an instruction's code carry scope lists already?"""
    return "!alias.scope" in code or "!noalias" in code


def _find_existing(mod: Module, domains: dict[str, int], scopes: dict[tuple[str, str], int]) -> None:
    """Enter the domains and scopes an earlier llnoalias run wrote in ``mod`` (found again
    by their names) in ``domains`` and ``scopes`` (``MetadataWriter``'s)."""
    domain_ids: dict[int, str] = {}
    if '"llnoalias.' not in mod.text:
        return
    candidates = [mid for mid in mod.metadata if "llnoalias." in (mod.metadata_text(mid) or "")]
    for mid in candidates:
        m = _DOMAIN_RE.match(mod.metadata_text(mid) or "")
        if m and int(m.group(1)) == int(m.group(2)):
            domain_ids[mid] = m.group(3)
            domains.setdefault(m.group(3), mid)
    if not domain_ids:
        return
    for mid in mod.metadata:
        text = mod.metadata_text(mid) or ""
        if "distinct" not in text:
            continue
        m = _SCOPE_RE.match(text)
        if m and int(m.group(1)) == int(m.group(2)) and int(m.group(3)) in domain_ids:
            scopes.setdefault((domain_ids[int(m.group(3))], m.group(4)), mid)


class MetadataWriter:
    def __init__(self, mod: Module, editor: Editor) -> None:
        self.mod = mod
        self.editor = editor
        self.next_id = mod.max_metadata_id + 1
        self.domains: dict[str, int] = {}
        #: (domain, name) -> scope id, both escaped (``scopes``: with the fresh domains')
        self._scopes: dict[tuple[str, str], int] = {}
        #: were fresh domains written (``domain_scopes``) since ``scopes`` last read them?
        self._unread = False
        #: the distinct lists made, ids -> node id (but those of ``_own_lists``)
        self.lists: dict[tuple[int, ...], int] = {}
        #: the fresh domains, in the order made (so their ids increasing): each one's id
        #: and its last scope's id (negated once ``forget`` dropped its lists)
        self._firsts: list[int] = []
        self._lasts: list[int] = []
        #: a fresh domain's id -> the lists memo of the lists whose first id is one of its
        #: scopes (``_owner``): dropped whole by ``forget``
        self._own_lists: dict[int, dict[tuple[int, ...], int]] = {}
        self._existing_lists: dict[int, tuple[int, ...] | None] = {}
        self._empty: int | None = None
        #: one string object per distinct attachment text (thousands of lines share one)
        self._pieces: dict[str, str] = {}
        self._scope_pieces: dict[tuple[tuple[int, ...], tuple[int, ...]], str] = {}
        self._empty_written = False
        #: the module's line ending (``fresh_domain``'s blocks of lines)
        self._newline = editor.src.newline
        _find_existing(mod, self.domains, self._scopes)

    # ------------------------------------------------------------ reuse
    @property
    def scopes(self) -> dict[tuple[str, str], int]:
        """(domain, name) -> scope id, both escaped: those found again in the input and
        those made. A fresh domain's (``domain_scopes``) are not kept as they are made (a
        module of many small kernels has one domain per kernel, each asked for once):
        they are read back from the lines written, here, when first asked for."""
        if self._unread:
            self._unread = False
            self._read_written()
        return self._scopes

    def _read_written(self) -> None:
        """Enter the scopes of the lines written so far in ``_scopes`` (those there keep
        their ids: they are the same)."""
        domain_of = {did: dkey for dkey, did in self.domains.items()}
        scopes = self._scopes
        for line in self.editor.appended_lines():
            m = _SCOPE_RE.match(line)
            if m and m.group(1) == m.group(2) and int(m.group(3)) in domain_of:
                scopes.setdefault((domain_of[int(m.group(3))], m.group(4)), int(m.group(1)))

    def existing_list(self, mid: int) -> tuple[int, ...] | None:
        """The scope ids of a list node ``!mid = !{!a, !b}``, or None if it is not one."""
        if mid in self._existing_lists:
            return self._existing_lists[mid]
        text = self.mod.metadata_text(mid)
        result: tuple[int, ...] | None = None
        if text is not None:
            m = _LIST_RE.match(text)
            if m is not None:
                items = [x.strip() for x in m.group(2).split(",") if x.strip()]
                if all(re.fullmatch(r"!\d+", x) for x in items):
                    result = tuple(int(x[1:]) for x in items)
        self._existing_lists[mid] = result
        return result

    # ------------------------------------------------------------- new
    def _new_id(self) -> int:
        nid = self.next_id
        self.next_id += 1
        return nid

    def domain(self, name: str) -> int:
        # Keyed by the escaped spelling: that is what _find_existing reads back from the text.
        return self._domain(md_escape(name))

    def _domain(self, key: str) -> int:
        """``domain`` of a name given escaped (``key``)."""
        did = self.domains.get(key)
        if did is None:
            did = self._new_id()
            self.domains[key] = did
            self.editor.append_line(f'!{did} = distinct !{{!{did}, !"{key}"}}')
        return did

    def scope(self, domain: str, name: str) -> int:
        key = (md_escape(domain), md_escape(name))
        sid = self.scopes.get(key)
        if sid is None:
            did = self.domain(domain)
            sid = self._new_id()
            self.scopes[key] = sid
            self.editor.append_line(f'!{sid} = distinct !{{!{sid}, !{did}, !"{key[1]}"}}')
        return sid

    def fresh_domain(self, domain: str, escaped: list[str]) -> int:
        """``domain_scopes`` of a domain new to the module, its names escaped and
        distinct: its id, its scopes' the ones after it (so its scopes are new too: a
        scope is made with its domain); the domain's line and its scopes' lines are
        written at once, as one block of lines (a module of many small kernels has a
        domain per kernel). -1, and nothing written, where the domain is not new (or
        the ``fresh-domains`` shortcut is off, or no names): then ``domain_scopes`` the long way. The
        scopes are entered in ``scopes`` when it is read (``_unread``)."""
        dkey = md_escape(domain)
        if not shortcuts.ON["fresh-domains"] or dkey in self.domains or not escaped:
            return -1
        first = self.next_id
        n = len(escaped)
        self.domains[dkey] = first
        self.next_id = first + n + 1
        self._firsts.append(first)
        self._lasts.append(first + n)
        self._unread = True
        d = str(first)
        lines = [f'!{d} = distinct !{{!{d}, !"{dkey}"}}']
        sid = first
        for name in escaped:
            sid += 1
            lines.append(f'!{sid} = distinct !{{!{sid}, !{d}, !"{name}"}}')
        self.editor.append_block(self._newline.join(lines))
        return first

    def domain_scopes(self, domain: str, escaped: list[str]) -> list[int]:
        """``scope(domain, name)`` for each name, in order, given already escaped
        (``md_escape``): the domain is looked up once, its line written before the first
        new scope's, as ``scope`` writes it."""
        if len(set(escaped)) == len(escaped):
            first = self.fresh_domain(domain, escaped)
            if first >= 0:
                return list(range(first + 1, first + 1 + len(escaped)))
        dkey = md_escape(domain)
        scopes = self.scopes
        append = self.editor.append_line
        did: int | None = None
        out = []
        for name in escaped:
            key = (dkey, name)
            sid = scopes.get(key)
            if sid is None:
                if did is None:
                    did = self._domain(dkey)  # (its name escaped once)
                sid = self.next_id
                self.next_id = sid + 1
                scopes[key] = sid
                append(f'!{sid} = distinct !{{!{sid}, !{did}, !"{name}"}}')
            out.append(sid)
        return out

    def empty_node(self) -> int:
        """The id of an empty node ``!{}`` (for ``!invariant.load``); its line is written
        by ``flush`` after the scopes, so the new lines read domains first."""
        if self._empty is None:
            self._empty = self._new_id()
        return self._empty

    def flush(self) -> None:
        if self._empty is not None and not self._empty_written:
            self.editor.append_line(f"!{self._empty} = !{{}}")
            self._empty_written = True

    def list_node(self, ids: tuple[int, ...]) -> int:
        memo = self._owner(ids[0])[2] if ids else self.lists
        lid = memo.get(ids)
        if lid is None:
            lid = self._new_list(ids, memo)
        return lid

    def _new_list(self, ids: tuple[int, ...], memo: dict[tuple[int, ...], int]) -> int:
        """Make the node of the list ``ids``, new to ``memo`` (``_owner``'s)."""
        lid = self.next_id
        self.next_id = lid + 1
        memo[ids] = lid
        self.editor.append_line(_list_line(lid, ids))
        return lid

    def _owner(self, sid: int) -> tuple[int, int, dict[tuple[int, ...], int]]:
        """The lists memo of the lists whose first id is ``sid``, and the ids ``lo..hi``
        (``sid`` among them) whose lists it holds too: a fresh domain's scopes have a memo
        of their own (``forget`` drops it), any other id is in ``lists``."""
        k = bisect_right(self._firsts, sid) - 1
        if k >= 0:
            last = self._lasts[k]
            if sid <= last:
                did = self._firsts[k]
                memo = self._own_lists.get(did)
                if memo is None:
                    memo = self._own_lists[did] = {}
                return did + 1, last, memo
            if sid <= -last:
                raise AssertionError(f"a list of scope !{sid}, of a domain forgotten")
        return sid, sid, self.lists

    def forget(self, domain: str) -> None:
        """Drop the lists memo of ``domain``'s scopes, when it was fresh (``domain_scopes``):
        the caller asks for no list with any of its scopes again (a module of many small
        kernels: the domain of a kernel whose accesses are all written). The node ids stay
        as they are; asking for such a list raises AssertionError."""
        self.forget_all([domain])

    def forget_all(self, domains: list[str]) -> None:
        """``forget`` each of ``domains``."""
        firsts, lasts, own_lists = self._firsts, self._lasts, self._own_lists
        get = self.domains.get
        for domain in domains:
            did = get(md_escape(domain))
            if did is None:
                continue
            k = bisect_left(firsts, did)
            if k < len(firsts) and firsts[k] == did and lasts[k] > 0:
                lasts[k] = -lasts[k]
                own_lists.pop(did, None)

    # ---------------------------------------------------------- attach
    def attach_scopes(self, inst: Instruction, scopes: tuple[int, ...], noalias: tuple[int, ...]) -> bool:
        """``attach`` for the one pair of kinds scopes use; an instruction with none of
        its own gets the text made once for each distinct pair of lists."""
        if self.mod.text.find("!", inst.start, inst.end) < 0 or not _has_scopes(self.mod.text[inst.start:inst.end]):
            piece = self._scope_pieces.get((scopes, noalias))
            if piece is None:
                appends = [(kind, tuple(dict.fromkeys(ours)))
                           for kind, ours in (("alias.scope", scopes), ("noalias", noalias)) if ours]
                piece = "".join(f", !{kind} !{self.list_node(ids)}" for kind, ids in appends)
                self._scope_pieces[(scopes, noalias)] = piece
            if piece:
                self.editor.insert(inst.end, piece)
            return True
        return self.attach(inst, {"alias.scope": list(scopes), "noalias": list(noalias)})

    def attach_one_by_one(self, attachments: list[Attachment]) -> list[Instruction]:
        """``attach_all_scopes`` the long way (the shortcut ``scope-writer`` off):
        ``attach_scopes`` for each access."""
        return [inst for inst, scopes, noalias in attachments if not self.attach_scopes(inst, scopes, noalias)]

    def attach_all_scopes(self, attachments: list[Attachment]) -> list[Instruction]:
        """``attach_scopes`` for each ``(inst, scopes, noalias)``, in order, in one loop
        (a large module has one per access); returns the instructions it could not give
        their scopes (``attach`` returned False)."""
        find = self.mod.text.find
        pieces = self._scope_pieces
        insert = self.editor.insert  # (one per access)
        failed: list[Instruction] = []
        owner = self._owner
        # the lists memo of the scopes ``lo..hi`` (``_owner``), of the last list looked up
        lo, hi, memo = -1, -1, self.lists
        # the new lists' ids and lines (``_new_list``'s, made here: one or two per access),
        # handed to the editor together
        nid = self.next_id
        lines: list[str] = []
        for inst, scopes, noalias in attachments:
            start = inst.start
            end = start + inst._len  # ``inst.end`` without the property (one per access)
            # no scope lists of its own (most accesses have none, or only ``!tbaa`` and the
            # like: clang's have): the text made once per pair of lists, as attach_scopes
            # would give it, without a copy of the instruction's code per access
            plain = find("!", start, end) < 0 or (find("!alias.scope", start, end) < 0
                                                   and find("!noalias", start, end) < 0)
            if plain:
                piece = pieces.get((scopes, noalias))
                if piece is None:
                    # attach_scopes's piece (the lists' nodes made in the same order; a list
                    # of one id is its own ``dict.fromkeys``, a node made already is looked up)
                    if len(pieces) >= 4096:
                        pieces.clear()  # a memo, bounded: many small kernels each have their own
                    piece = ""
                    for kind, ours in ((", !alias.scope !", scopes), (", !noalias !", noalias)):
                        if not ours:
                            continue
                        ids: tuple[int, ...]
                        if len(ours) == 1:
                            ids = ours
                            first = ours[0]
                        else:
                            ids = tuple(dict.fromkeys(ours))
                            first = ids[0]
                        if not lo <= first <= hi:
                            lo, hi, memo = owner(first)
                        lid = memo.get(ids)
                        if lid is None:
                            lid = memo[ids] = nid
                            nid += 1
                            # (``_list_line``, inlined: one or two per access)
                            lines.append(f"!{lid} = !{{!{first}}}" if len(ids) == 1
                                         else f"!{lid} = !{{!{', !'.join(map(str, ids))}}}")
                        piece = f"{piece}{kind}{lid}"
                    pieces[(scopes, noalias)] = piece
                if piece:
                    insert(end, piece)
            else:
                # the long way (its lists made by ``list_node``): the ids and lines so far first
                self.next_id = nid
                self.editor.append_lines(lines)
                lines = []
                if not self.attach_scopes(inst, scopes, noalias):
                    failed.append(inst)
                nid = self.next_id
        self.next_id = nid
        self.editor.append_lines(lines)
        return failed

    def attach(self, inst: Instruction, kinds: dict[str, list[int]]) -> bool:
        """Give ``inst`` the scopes in ``kinds`` (``alias.scope``/``noalias`` -> scope ids),
        merged with what it already has. Returns False (and changes nothing) when an
        existing attachment is not a plain list llnoalias can merge with."""
        code = self.mod.text[inst.start:inst.end]
        if not _has_scopes(code):
            self._append(inst, [(kind, tuple(dict.fromkeys(ours))) for kind, ours in kinds.items() if ours])
            return True
        replaces: list[tuple[int, int, tuple[int, ...]]] = []  # start, end, merged ids
        appends: list[tuple[str, tuple[int, ...]]] = []
        for kind, ours in kinds.items():
            if not ours:
                continue
            # '!noalias!3' is valid too (no blank), but '!noalias.addrspace' is another kind
            m = re.search(r",\s*!" + re.escape(kind) + NAME_END + r"\s*(![^\s,]+)", code)
            if m is None:
                appends.append((kind, tuple(dict.fromkeys(ours))))
                continue
            ref = m.group(1).rstrip(",")
            if not re.fullmatch(r"!\d+", ref):
                return False
            old = self.existing_list(int(ref[1:]))
            if old is None:
                return False
            merged = tuple(dict.fromkeys(old + tuple(ours)))
            if set(merged) == set(old):
                continue
            start = inst.start + m.start(1)
            replaces.append((start, start + len(ref), merged))
        for start, end, merged in replaces:
            self.editor.replace(start, end, f"!{self.list_node(merged)}")
        self._append(inst, appends)
        return True

    def _append(self, inst: Instruction, appends: list[tuple[str, tuple[int, ...]]]) -> None:
        """Add new attachments at the end of ``inst``'s code."""
        if appends:
            piece = "".join(f", !{kind} !{self.list_node(ids)}" for kind, ids in appends)
            self.editor.insert(inst.end, self._pieces.setdefault(piece, piece))
