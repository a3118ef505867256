"""The documents a maintainer reads: the README stays a user's ten-minute read, every link in it
and in docs/ leads somewhere, and every "SPEC section N" that the code, the tests or the scripts
cite names a section that docs/design.md has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.files import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
DESIGN = DOCS / "design.md"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
README_LIMIT = 20_000

#: a Markdown link's target: [text](target)
LINK_RE = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
#: "design section 2b", "design sections 3 and 4", "design, section 6" (and the old "SPEC 4b")
SPEC_RE = re.compile(r"\b(?:SPEC|design)\b,?\s+(?:sections?\s+|§\s*)?(\d+b?)((?:\s*(?:,|and|&)\s*\d+b?\b)*)")
#: "SPEC: loaded integer": a phrase of the design, named instead of numbered
SPEC_PHRASE_RE = re.compile(r"\bSPEC: ([a-z][a-z -]*[a-z])")
#: the design's numbered sections: "## 2b. One buffer split by offsets: regions"
SECTION_RE = re.compile(r"^## (\d+b?)\. ", re.M)
CITING = ("llnoalias", "tests", "scripts")
SOURCE_SUFFIXES = {".py", ".c", ".h", ".sh"}


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    out: set[str] = set()
    in_code = False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            in_code = not in_code
        m = re.match(r"#{1,6} (.*)", line)
        if m and not in_code:
            base = slug(m.group(1))
            name, n = base, 0
            while name in out:
                n += 1
                name = f"{base}-{n}"
            out.add(name)
    return out


def links(path: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.M | re.S)
    return [t for t in LINK_RE.findall(text) if not re.match(r"[a-z]+:", t)]


def check_links(path: Path) -> list[str]:
    """Every relative link of ``path`` that does not lead to a file (or to a heading of it)."""
    path = path.resolve()
    bad = []
    for target in links(path):
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            bad.append(f"{path.relative_to(ROOT)}: {target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{path.relative_to(ROOT)}: {target}: no such heading in {dest.name}")
    return bad


def doc_pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def test_readme_is_short() -> None:
    size = len(README.read_bytes())
    assert size < README_LIMIT, f"README.md is {size} bytes; move maintainer material to docs/"


def test_readme_links_every_document() -> None:
    targets = {t.partition("#")[0] for t in links(README)}
    for page in [*doc_pages(), CONTRIBUTING]:
        rel = page.relative_to(ROOT).as_posix()
        assert rel in targets, f"README.md does not link {rel}"


def test_readme_links_resolve() -> None:
    found = [t for t in links(README) if t.startswith(("docs/", "CONTRIBUTING.md"))]
    assert len(found) >= 6, found  # the check below checks something
    assert check_links(README) == []


@pytest.mark.parametrize("page", [*doc_pages(), CONTRIBUTING], ids=lambda p: p.name)
def test_links_in_docs_resolve(page: Path) -> None:
    assert check_links(page) == []


def test_slug_is_githubs() -> None:
    assert slug("2b. One buffer split by offsets: regions") == "2b-one-buffer-split-by-offsets-regions"
    assert slug("Code-generator safety: LDS-DMA waits") == "code-generator-safety-lds-dma-waits"
    assert slug("`llnoalias IN` (annotate)") == "llnoalias-in-annotate"


def design_sections() -> set[str]:
    return set(SECTION_RE.findall(DESIGN.read_text()))


def spec_citations() -> list[tuple[str, int, str]]:
    """(file, line, section) for every "SPEC section N" in the code, tests and scripts."""
    out = []
    for top in CITING:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
                continue
            text = path.read_text(errors="replace")
            for m in SPEC_RE.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                rel = path.relative_to(ROOT).as_posix()
                out.append((rel, line, m.group(1)))
                out.extend((rel, line, n) for n in re.findall(r"\d+b?", m.group(2)))
    return out


def test_design_has_the_sections_the_code_cites() -> None:
    assert design_sections() >= {"1", "2", "2b", "3", "4", "4b", "5", "6", "7", "8", "9"}
    cites = spec_citations()
    assert len(cites) >= 30, "the scan found too few citations to check anything"
    sections = design_sections()
    bad = [f"{f}:{n}: SPEC section {s}" for f, n, s in cites if s not in sections]
    assert not bad, "cited but not in docs/design.md:\n" + "\n".join(bad)


def test_named_spec_phrases_are_in_the_design() -> None:
    design = DESIGN.read_text().lower()
    for top in CITING:
        for path in sorted((ROOT / top).rglob("*.py")):
            for phrase in SPEC_PHRASE_RE.findall(path.read_text(errors="replace")):
                assert phrase.lower() in design, f"{path.relative_to(ROOT)}: 'SPEC: {phrase}' not in docs/design.md"


def test_the_citation_scan_reads_every_form() -> None:
    text = "design section 2b; SPEC 4b, design sections 3 and 4; see design, section 6 and SPEC 7."
    found = [m.group(1) + m.group(2) for m in SPEC_RE.finditer(text)]
    assert found == ["2b", "4b", "3 and 4", "6", "7"]


def test_code_cites_documents_not_issue_numbers() -> None:
    """Comments and docstrings point to the documents in the repository (docs/design.md's
    sections, docs/soundness.md), never to an issue number a reader cannot look up."""
    cited = re.compile(r"\bissues? \d+\b", re.IGNORECASE)
    found = []
    for sub in ("llnoalias", "tests", "scripts"):
        for path in sorted((ROOT / sub).rglob("*")):
            if path.suffix not in (".py", ".c", ".h") or not path.is_file():
                continue
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if cited.search(line) and path.name != "test_docs.py":
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_code_cites_the_design_by_one_name() -> None:
    """The code cites docs/design.md as "design section N", never as "SPEC N" (the contract's
    sections have the same numbers, but the design is what the code answers to)."""
    cited = re.compile(r"SPEC (?:section )?\d")
    found = [f"{p.relative_to(ROOT)}:{n}" for top in ("llnoalias", "tests", "scripts")
             for p in sorted(Path(ROOT, top).rglob("*")) if p.suffix in (".py", ".c") and p.name != "test_docs.py"
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if cited.search(line)]
    assert not found, f"cite the design as 'design section N': {found[:10]}"
