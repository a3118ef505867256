"""Properties every fixture must keep (design section 5): the output minus llnoalias's
additions is the input byte for byte, a second run changes nothing, CRLF stays CRLF,
Latin-1 bytes are kept, and the output verifies wherever the input did. (A UTF-8 BOM, which
LLVM refuses, is an error: fixtures/errors/utf8_bom_crlf_latin1.ll.)"""

from __future__ import annotations

import pytest

from llnoalias.fileio import decode, encode
from llnoalias.options import AnnotateOptions
from llnoalias.transform.pipeline import annotate_text
from tests.support.files import all_fixtures, fixture_id
from tests.support.preserve import assert_preserved, strip_additions

FIXTURES = all_fixtures(errors=False)
IDS = [fixture_id(p) for p in FIXTURES]
OPTIONS = {
    "default": AnnotateOptions(),
    "all-noalias": AnnotateOptions(lds="all", args="noalias"),
}


def _read(path: str) -> tuple[bytes, str]:
    with open(path, "rb") as fh:
        data = fh.read()
    return data, decode(data)


@pytest.fixture(scope="module")
def results() -> dict[tuple[str, str], tuple[bytes, str, str]]:
    """(path, options) -> (input bytes, input text, output text), computed once."""
    out = {}
    for path in FIXTURES:
        data, text = _read(path)
        for name, opts in OPTIONS.items():
            out[(path, name)] = (data, text, annotate_text(text, path, opts).text)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("opt", list(OPTIONS))
@pytest.mark.parametrize("path", FIXTURES, ids=IDS)
def test_bytes_preserved_and_idempotent(path: str, opt: str, results) -> None:
    data, text, out = results[(path, opt)]
    assert encode(text) == data  # the decoding itself loses nothing
    assert_preserved(text, out)
    again = annotate_text(out, path, OPTIONS[opt]).text
    assert again == out, "a second run changed the output"


@pytest.mark.slow
@pytest.mark.parametrize("path", FIXTURES, ids=IDS)
def test_line_endings_bom_and_bytes(path: str, results) -> None:
    data, text, out = results[(path, "all-noalias")]
    raw = encode(out)
    if data.startswith(b"\xef\xbb\xbf"):
        assert raw.startswith(b"\xef\xbb\xbf")
        assert raw.count(b"\xef\xbb\xbf") == data.count(b"\xef\xbb\xbf")
    else:
        assert not raw.startswith(b"\xef\xbb\xbf")
    if b"\r\n" in data and data.count(b"\n") == data.count(b"\r\n"):
        # every line, the added ones included, ends in CRLF
        assert raw.count(b"\n") == raw.count(b"\r\n")
    # bytes that are not UTF-8 (Latin-1 comments) come back as they were
    assert encode(strip_additions(text, out)) == data
    for b in {b for b in data if b >= 0x80}:
        assert raw.count(bytes([b])) >= data.count(bytes([b]))


def test_crlf_latin1_fixtures_exist() -> None:
    names = {fixture_id(p) for p in FIXTURES}
    assert "corpus/odd/crlf_latin1.ll" in names
    assert not [n for n in names if "bom" in n]  # LLVM refuses a BOM: an error fixture


@pytest.mark.slow
@pytest.mark.parametrize("path", FIXTURES, ids=IDS)
def test_output_verifies_where_input_did(path: str, results) -> None:
    from llnoalias.backends.llvmlite_backend import check_module
    from llnoalias.ir.source import BOM

    _, text, out = results[(path, "all-noalias")]
    if out == text:
        return  # nothing changed: the output is the input, which verifies or not as it did
    res = check_module(text.removeprefix(BOM), out.removeprefix(BOM), timeout=60)
    assert not res.regression, f"the input verified and the output does not: {res.message}"
