"""Reading the scopes llnoalias wrote, and the rule by which LLVM's ScopedNoAliasAA reads
them, for the tests of regions."""

from __future__ import annotations

import re


def scopes_of(out: str) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """For each instruction with a result or a store, by its text: (alias.scope, noalias)
    as sets of scope ids."""
    lists: dict[str, list[str]] = {}
    for m in re.finditer(r"^(![0-9]+) = !\{([^}]*)\}$", out, re.M):
        lists[m.group(1)] = re.findall(r"![0-9]+", m.group(2))
    got: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    for line in out.splitlines():
        s = line.strip()
        if s.startswith(";") or not s:
            continue
        a = re.search(r"!alias\.scope (![0-9]+)", s)
        n = re.search(r"!noalias (![0-9]+)", s)
        key = s.split(", !alias.scope")[0]
        got[key] = (frozenset(lists[a.group(1)]) if a else frozenset(),
                    frozenset(lists[n.group(1)]) if n else frozenset())
    return got


def claimed_noalias(a: tuple[frozenset[str], frozenset[str]], b: tuple[frozenset[str], frozenset[str]]) -> bool:
    """LLVM's ScopedNoAliasAA with one domain: A and B do not alias when every scope of
    one is in the other's !noalias."""
    return (bool(a[0]) and a[0] <= b[1]) or (bool(b[0]) and b[0] <= a[1])

