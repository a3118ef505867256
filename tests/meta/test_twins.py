"""The twin rule (CONTRIBUTING.md, "The C twins"), held for every compiled part that
``llnoalias.compiled.TWINS`` lists: its C file sits beside the Python module it mirrors and
is named after it, its test exists, ``setup.py`` builds exactly the registry, every C file
in the package is registered, and the attribute names the C code reads are the ones the
registry declares, each of which the declared class has. Renaming an attribute in Python
then fails here, not in the compiled code at run time."""

from __future__ import annotations

import importlib
import inspect
import re
import runpy

import pytest

from llnoalias.compiled import TWINS, Twin, load
from tests.support.files import ROOT

#: ``intern(&s_x, "x")``, ``INTERN(s_x, "x")``: ``s_`` holds an attribute name, ``k_``/``w_``
#: another word
_INTERNED = re.compile(r'(?:intern\(&|INTERN\()([skw])_\w+,\s*"(\w*)"')
#: the body reader's instruction slots, set in C on the objects it makes
_SLOT_NAMES = re.compile(r"slot_names\[[^\]]*\]\s*=\s*\{([^}]*)\}")


def _c_names(twin: Twin) -> tuple[set[str], set[str]]:
    text = (ROOT / twin.source).read_text()
    attrs = {name for kind, name in _INTERNED.findall(text) if kind == "s"}
    words = {name for kind, name in _INTERNED.findall(text) if kind != "s"}
    m = _SLOT_NAMES.search(text)
    if m:
        attrs |= set(re.findall(r'"(\w+)"', m.group(1)))
    return attrs, words


def _has(cls: type, attr: str) -> bool:
    """A slot, a class attribute or method, or ``self.attr = ...`` in a class of the MRO."""
    for k in cls.__mro__:
        if attr in getattr(k, "__slots__", ()) or attr in vars(k):
            return True
        try:
            src = inspect.getsource(k)
        except (OSError, TypeError):
            continue
        if re.search(rf"self\.{re.escape(attr)}\s*(?::[^=\n]*)?=", src):
            return True
    return False


def _class(dotted: str) -> type:
    module, _, name = dotted.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    assert isinstance(cls, type), dotted
    return cls


@pytest.mark.parametrize("twin", TWINS, ids=lambda t: t.key)
def test_twin_is_named_after_its_reference_and_sits_beside_it(twin: Twin) -> None:
    c = ROOT / twin.source
    assert c.is_file(), twin.source
    first = twin.references[0]
    ref = ROOT / (first.replace(".", "/") + ".py")
    assert ref.is_file(), first
    assert c.parent == ref.parent, f"{twin.source} is not beside {ref.relative_to(ROOT)}"
    assert c.name == f"_{ref.stem}.c", f"{c.name} does not pair with {ref.name}"
    assert twin.module.rpartition(".")[2] == c.stem
    assert (ROOT / twin.test).is_file(), twin.test
    for dep in twin.depends:
        assert (c.parent / dep).is_file(), dep
    # the extension's own name, as Python imports it
    assert f'"{c.stem}"' in c.read_text() and f"PyInit_{c.stem}" in c.read_text()


def test_every_c_file_is_a_registered_twin() -> None:
    found = {str(p.relative_to(ROOT)) for p in (ROOT / "llnoalias").rglob("*.c")}
    assert found == {t.source for t in TWINS}


def test_setup_builds_the_registry() -> None:
    """setup.py reads the registry: what it builds is what TWINS lists."""
    seen: list[tuple[str, list[str]]] = []

    class FakeExtension:
        def __init__(self, name: str, sources: list[str], **kw: object) -> None:
            seen.append((name, sources))

    import setuptools

    real_setup, real_ext = setuptools.setup, setuptools.Extension
    setuptools.setup = lambda **kw: None  # type: ignore[assignment]
    setuptools.Extension = FakeExtension  # type: ignore[assignment,misc]
    try:
        runpy.run_path(str(ROOT / "setup.py"), run_name="__main__")
    finally:
        setuptools.setup, setuptools.Extension = real_setup, real_ext  # type: ignore[misc]
    assert seen == [(t.module, [t.source]) for t in TWINS]


@pytest.mark.slow
@pytest.mark.parametrize("twin", TWINS, ids=lambda t: t.key)
def test_attribute_names_c_reads_are_declared_and_exist(twin: Twin) -> None:
    attrs, words = _c_names(twin)
    declared = {a for names in twin.reads.values() for a in names}
    assert attrs == declared, (f"{twin.source} reads {sorted(attrs - declared)} undeclared; "
                               f"declared but not read: {sorted(declared - attrs)}")
    assert words == set(twin.words), (sorted(words - set(twin.words)), sorted(set(twin.words) - words))
    for owner, names in twin.reads.items():
        cls = _class(owner)
        missing = [a for a in names if not _has(cls, a)]
        assert not missing, f"{owner} has no {missing}, which {twin.source} reads"


def test_the_range_solver_takes_only_the_names_it_is_handed() -> None:
    """What ``_solver.c`` takes from its ``init`` dict is what ``ranges.solver`` hands it."""
    from llnoalias.analysis.ranges.solver import CRANGE_NAMES

    twin = next(t for t in TWINS if t.key == "range_solver")
    text = (ROOT / twin.source).read_text()
    taken = set(re.findall(r'take(?:_type|_reason)?\(ns,\s*"(\w+)"', text))
    assert taken == set(CRANGE_NAMES)


def test_a_renamed_attribute_would_be_caught() -> None:
    """The check can fail: an attribute the class does not have is reported."""
    assert not _has(_class("llnoalias.ir.model.Ops"), "no_such_field")
    assert _has(_class("llnoalias.ir.model.Ops"), "kind")


#: ``NAME = compiled.load("KEY")`` at module level: the one spelling of a twin's binding
_BINDING = re.compile(r'^(\w+) = compiled\.load\("(\w+)"\)$', re.M)
#: ``load`` imported by name from the registry (only ``--version``'s report, which binds nothing)
_LOAD_IMPORTED = re.compile(r"from \.*(?:llnoalias\.)?compiled import[^\n]*\bload\b")


def test_each_twin_is_bound_one_way() -> None:
    """Every module that uses a twin binds it once, at module level, as the registry's
    ``bound_as`` (``_cscan = compiled.load("body_reader")``), and is one of its ``holders``;
    every holder does, so that switching a twin in its holders (``tests/support/switches.py``)
    switches it everywhere, and a new binding spelled another way fails here."""
    by_key = {t.key: t for t in TWINS}
    found: dict[str, set[str]] = {t.key: set() for t in TWINS}
    for path in sorted((ROOT / "llnoalias").rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.as_posix() == "llnoalias/compiled.py":
            continue
        dotted = ".".join(rel.with_suffix("").parts)
        text = path.read_text()
        bindings = _BINDING.findall(text)
        assert len(bindings) == text.count("compiled.load("), f"{rel}: a twin loaded but not as a binding"
        if dotted != "llnoalias.cli.version":
            assert not _LOAD_IMPORTED.search(text), f"{rel}: imports load; bind the twin as compiled.load(KEY)"
        for name, key in bindings:
            assert key in by_key, f"{rel}: {key} is not a twin"
            assert name == by_key[key].bound_as, f"{rel}: {key} bound as {name}, not {by_key[key].bound_as}"
            assert dotted not in found[key], f"{rel}: {key} bound twice"
            found[key].add(dotted)
    for t in TWINS:
        assert found[t.key] == set(t.holders), (t.key, sorted(found[t.key]), t.holders)
        for holder in t.holders:
            assert getattr(importlib.import_module(holder), t.bound_as) is load(t.key), (holder, t.bound_as)
