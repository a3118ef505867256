"""Fuzzing: nothing a user feeds llnoalias crashes it, loses data or hangs.

Mutants of the real fixtures (dropped, duplicated, swapped or cut lines, swapped
brackets, random bytes including non-UTF-8, a file cut short) and random well-formed
kernels go through ``annotate_text``. For every input: it either succeeds or raises
``LLNoaliasError`` (exit 2); any other exception is a bug; no input may take longer
than the watchdog allows. When it succeeds, the output minus llnoalias's additions is
the input (``preserve.strip_additions``), a second run changes nothing, and the remarks
and ``explain`` of the run can be rendered.

Mutants that once failed are kept in ``tests/support/fuzz_corpus/`` and replayed by
``test_fuzz_corpus``. ``HYPOTHESIS_PROFILE=fuzz-long`` runs a longer campaign.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import io
import os
import signal
import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.fileio import decode
from llnoalias.options import AnnotateOptions
from llnoalias.report.explain import explain, print_plain
from llnoalias.report.remarks import remarks_yaml
from llnoalias.transform.pipeline import annotate_text
from tests.support import fuzz_gen
from tests.support.files import FUZZ_CORPUS, all_fixtures, fixture_id
from tests.support.preserve import assert_preserved

pytestmark = pytest.mark.slow

CORPUS = sorted(glob.glob(os.path.join(FUZZ_CORPUS, "*.ll")))
WATCHDOG_S = 20.0

settings.register_profile("default", max_examples=120, deadline=None, database=None, derandomize=False,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("fuzz-long", max_examples=5000, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

OPTIONS = [AnnotateOptions(), AnnotateOptions(lds="all", args="noalias"),
           AnnotateOptions(lds="all", args="noalias", may_alias=((0, 1),), regions=False),
           AnnotateOptions(lds="off", args="off")]

# Small fixtures mutate faster and fail in more places per byte; the big ones are
# still in (a mutant of a 50 KB file costs ~50 ms).
SEEDS = [open(p, "rb").read() for p in all_fixtures()]


class Hang(Exception):
    pass


@contextlib.contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    """Raise ``Hang`` in the main thread when the body runs longer than ``seconds``."""

    def fire(signum: int, frame: object) -> None:
        raise Hang(f"no result after {seconds} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


class Mutant(bytes):
    """An input whose repr is short (hypothesis prints the falsifying example)."""

    def __repr__(self) -> str:
        return f"<{len(self)} bytes, sha1 {hashlib.sha1(self).hexdigest()[:12]}>"


def save_failure(data: bytes) -> str:
    """Keep a failing input where a person can pick it up for ``tests/support/fuzz_corpus/``."""
    d = os.path.join(tempfile.gettempdir(), "llnoalias-fuzz")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, hashlib.sha1(data).hexdigest()[:12] + ".ll")
    with open(path, "wb") as fh:
        fh.write(data)
    return path


def check_input(data: bytes, options: AnnotateOptions, must_succeed: bool = False) -> None:
    """The fuzz property for one input (see the module docstring); a failing input is
    saved (see ``save_failure``) and its path is in the failure's message."""
    try:
        _check_input(data, options, must_succeed)
    except BaseException as exc:
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise AssertionError(f"{type(exc).__name__}: {exc} [input saved as {save_failure(data)}, "
                             f"options {options}]") from exc


def _check_input(data: bytes, options: AnnotateOptions, must_succeed: bool = False) -> None:
    text = decode(data)
    with watchdog(WATCHDOG_S):
        try:
            res = annotate_text(text, "fuzz.ll", options)
        except LLNoaliasError as exc:
            msg = exc.format()
            assert msg.startswith("llnoalias: "), msg
            if exc.location is not None:
                assert msg.startswith(f"llnoalias: fuzz.ll:{exc.location.line}:{exc.location.col}: error: "), msg
            if must_succeed:
                raise
            return
        assert_preserved(text, res.text)
        again = annotate_text(res.text, "fuzz.ll", options)
        assert again.text == res.text, "a second run changed the output"
        remarks_yaml(res.report, res.module)
        print_plain(res.report, explain(res.report, res.module), io.StringIO())
        for a in res.report.untagged:
            assert a.reason.strip(), f"untagged access without a reason: {a}"


@given(st.sampled_from(SEEDS).flatmap(fuzz_gen.mutate).map(Mutant), st.sampled_from(OPTIONS))
def test_fuzz_mutated_fixtures(data: bytes, options: AnnotateOptions) -> None:
    check_input(data, options)


@settings(max_examples=40)
@given(fuzz_gen.kernels(), st.sampled_from(OPTIONS))
def test_fuzz_generated_kernels(src: str, options: AnnotateOptions) -> None:
    check_input(src.encode(), options, must_succeed=True)


@settings(max_examples=30)
@given(fuzz_gen.kernels().flatmap(lambda s: fuzz_gen.mutate(s.encode())).map(Mutant), st.sampled_from(OPTIONS))
def test_fuzz_mutated_kernels(data: bytes, options: AnnotateOptions) -> None:
    check_input(data, options)


@pytest.mark.parametrize("path", CORPUS, ids=[os.path.basename(p) for p in CORPUS])
@pytest.mark.parametrize("opt", range(len(OPTIONS)))
def test_fuzz_corpus(path: str, opt: int) -> None:
    """Mutants that once crashed, hung or lost bytes: replayed on every run."""
    with open(path, "rb") as fh:
        check_input(fh.read(), OPTIONS[opt])


def test_fuzz_corpus_is_seeded() -> None:
    assert CORPUS, "tests/support/fuzz_corpus/ holds the mutants that once failed"


def test_watchdog_fires() -> None:
    with pytest.raises(Hang), watchdog(0.05):
        while True:
            pass


def test_seed_ids() -> None:
    assert len(SEEDS) == len(all_fixtures()) and all(fixture_id(p) for p in all_fixtures())
