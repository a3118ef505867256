"""Streamed output is written in batches: the bytes are those of the chunks, in order."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llnoalias import fileio

#: text as llnoalias reads it: any byte that is not UTF-8 is a lone surrogate U+DC80-U+DCFF
TEXT = st.text(alphabet=st.one_of(st.characters(blacklist_categories=("Cs",)),
                                  st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF)))


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(chunks=st.lists(TEXT, max_size=30), batch=st.integers(1, 40))
def test_batched_chunks_are_the_chunks_bytes(chunks: list[str], batch: int) -> None:
    old = fileio.BATCH_CHARS
    fileio.BATCH_CHARS = batch
    try:
        got = b"".join(fileio._payloads(iter(chunks)))
    finally:
        fileio.BATCH_CHARS = old
    assert got == b"".join(fileio.encode(c) for c in chunks)


def test_a_large_stream_is_written_whole(tmp_path: Path) -> None:
    chunks = [f"line {i}\n" if i % 3 else "\udcff" for i in range(300_000)]
    out = tmp_path / "out.ll"
    fileio.write_atomic(str(out), iter(chunks))
    assert out.read_bytes() == b"".join(fileio.encode(c) for c in chunks)
