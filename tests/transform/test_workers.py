"""Worker processes for a large module's functions (``-j``, ``annotate(jobs=)``): the
result is the one a single process gives, whatever the workers do."""

from __future__ import annotations

import glob
import json
import os
import signal
import threading
import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llnoalias
from llnoalias.transform import pipeline, workers
from llnoalias.transform.function_pass import FunctionPass
from tests.support.files import DATA, FIXTURES
from tests.support.run import run_cli

pytestmark = [pytest.mark.slow, pytest.mark.forks]


class Counts:
    def __init__(self) -> None:
        self.forked = 0
        self.landed = 0


@pytest.fixture(params=["deferred", "read-first"])
def counts(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Counts:
    """Workers for every function (no least size), with the forks and landed replies
    counted; the bodies read by the processes that analyse them (as a large module's are)
    or all read before the fork."""
    c = Counts()
    monkeypatch.setattr(workers, "MIN_GROUP_INSTRUCTIONS", 1)
    monkeypatch.setattr(workers, "MIN_AVERAGE_INSTRUCTIONS", 0)
    monkeypatch.setattr(pipeline, "DEFER_CHARS", 0 if request.param == "deferred" else 1 << 62)
    fork_map = workers.fork_map
    land = FunctionPass.land

    def counting_fork_map(groups, work, local):  # type: ignore[no-untyped-def]
        c.forked += len(groups) - 1
        return fork_map(groups, work, local)

    def counting_land(self, indices, reply):  # type: ignore[no-untyped-def]
        ok = land(self, indices, reply)
        c.landed += ok
        return ok

    monkeypatch.setattr(workers, "fork_map", counting_fork_map)
    monkeypatch.setattr(FunctionPass, "land", counting_land)
    return c


def _one(text: str, path: str, jobs: int, **kw: object) -> tuple[str, str]:
    """The annotated text and the report's JSON of one run."""
    res = llnoalias.annotate(text, path=path, jobs=jobs, **kw)  # type: ignore[arg-type]
    return res.text, json.dumps(res.report.as_dict(), sort_keys=True, default=str)


def _both(text: str, path: str, jobs: int, **kw: object) -> tuple[tuple[str, str], tuple[str, str]]:
    """One process's run, and a run with ``jobs``."""
    return _one(text, path, 1, **kw), _one(text, path, jobs, **kw)


def _workers_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every worker sleeps instead of replying: only being stopped ends it."""
    monkeypatch.setattr(FunctionPass, "ship", lambda self, indices: time.sleep(60))


def _assert_no_worker_left() -> None:
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # every worker was stopped and reaped


def _corpus() -> list[str]:
    """Real compiler output with more than one function (the only kind a worker changes)."""
    out = []
    for p in sorted(glob.glob(os.path.join(FIXTURES, "corpus", "**", "*.ll"), recursive=True)):
        with open(p, encoding="utf-8", errors="surrogateescape") as f:
            if f.read().count("\ndefine ") >= 2:
                out.append(p)
    return out


CORPUS = _corpus()


def test_the_corpus_has_modules_of_several_functions() -> None:
    assert len(CORPUS) >= 5


SETTINGS = {"all": {"lds": "all", "args": "noalias"}, "default": {},
            "no-regions": {"lds": "all", "regions": False, "report": False}}


def _has_lds(path: str) -> bool:
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return "addrspace(3)" in f.read()


#: each corpus module under each setting where some domain concerns its functions, so that
#: they are split: a module without LDS has work only under ``--args noalias``
CASES = [pytest.param(path, setting, id=f"{os.path.relpath(path, FIXTURES)}-{setting}")
         for path in CORPUS for setting in SETTINGS if setting == "all" or _has_lds(path)]


@pytest.mark.parametrize("path, setting", CASES)
def test_workers_give_what_one_process_gives(path: str, setting: str, counts: Counts) -> None:
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    one, many = _both(text, path, 3, **SETTINGS[setting])
    assert counts.forked >= 1 and counts.landed == counts.forked
    assert many == one


#: three functions: the second reads an integer from memory and uses it as an LDS offset,
#: the third stores an LDS address to global memory. With a worker per function, only the
#: parent can see that memory may hold addresses: the second function's worker must say that
#: it relied on a loaded integer being a plain value, or its access would be claimed.
with open(os.path.join(DATA, "settle_loaded.ll"), encoding="utf-8") as _fh:
    LOADED = _fh.read()


def test_a_worker_that_relied_on_loaded_integers_says_so(counts: Counts) -> None:
    one, many = _both(LOADED, "loaded.ll", 3)
    assert counts.forked == 4 and counts.landed == 4  # two workers; the run is done twice (settle)
    assert many == one
    line = next(x for x in many[0].splitlines() if "store i8 3," in x)
    assert "!alias.scope" not in line and "!noalias" not in line
    assert "integers loaded from memory are treated as addresses" in many[1]


def _module_text() -> tuple[str, str]:
    """clang-19 HIP output: four kernels, with claims under ``--lds all``."""
    path = os.path.join(FIXTURES, "corpus", "clang19", "hip_smem_O3.ll")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert "!alias.scope" in llnoalias.annotate(text, lds="all").text
    return text, path


def test_a_failed_worker_is_done_again_here(counts: Counts, monkeypatch: pytest.MonkeyPatch) -> None:
    text, path = _module_text()
    want = _one(text, path, 1, lds="all")
    ship = FunctionPass.ship
    parent = os.getpid()

    def failing_ship(self, indices):  # type: ignore[no-untyped-def]
        if os.getpid() != parent:
            raise RuntimeError("a worker's bug")
        return ship(self, indices)

    monkeypatch.setattr(FunctionPass, "ship", failing_ship)
    got = _one(text, path, 3, lds="all")
    assert counts.forked >= 1 and counts.landed == 0
    assert got == want


def test_a_killed_worker_is_done_again_here(counts: Counts, monkeypatch: pytest.MonkeyPatch) -> None:
    text, path = _module_text()
    want = _one(text, path, 1, lds="all")

    def dying_ship(self, indices):  # type: ignore[no-untyped-def]
        os._exit(0)  # a clean exit and no reply: as a worker killed mid-way

    monkeypatch.setattr(FunctionPass, "ship", dying_ship)
    got = _one(text, path, 3, lds="all")
    assert counts.forked >= 1 and counts.landed == 0
    assert got == want


def _decision(n: int, root: int) -> tuple[object, ...]:
    """One function's columns (``FunctionPass.ship``) for one decision."""
    return tuple((x,) for x in (n, "store", None, "lds", (root,), True, "", "", "", None, None))


@pytest.mark.parametrize("reply", [
    lambda fp, k: None,
    lambda fp, k: 7,
    lambda fp, k: ([], False),
    # the right length, naming a root this module does not have
    lambda fp, k: ([([_decision(0, 12345)], None)] * k, False),
    # a root it has, at an instruction that is not there
    lambda fp, k: ([([_decision(-1, next(iter(fp._roots_by_id())))], None)] * k, False),
    lambda fp, k: ([([_decision(10**6, next(iter(fp._roots_by_id())))], None)] * k, False),
])
def test_a_reply_that_does_not_fit_is_refused_whole(counts: Counts, monkeypatch: pytest.MonkeyPatch,
                                                    reply: Callable[[FunctionPass, int], object]) -> None:
    """A garbled reply, or one naming a root or an instruction this module does not have,
    is not taken in part: the group is done again here and the result is the one process's."""
    text, path = _module_text()
    want = _one(text, path, 1, lds="all")
    monkeypatch.setattr(FunctionPass, "ship", lambda self, indices: reply(self, len(indices)))
    got = _one(text, path, 2, lds="all")
    assert counts.forked == 1 and counts.landed == 0
    assert got == want


def test_no_fork_while_another_thread_runs(counts: Counts) -> None:
    text, path = _module_text()
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert not workers.can_fork()
        one, many = _both(text, path, 3, lds="all")
    finally:
        stop.set()
        t.join()
    assert counts.forked == 0
    assert many == one


def test_small_modules_are_not_split() -> None:
    text, _ = _module_text()
    assert workers.MIN_GROUP_INSTRUCTIONS >= 1000
    assert workers.split([text.count("\n")], 8) == [range(0, 1)]
    assert workers.split([100] * 50, 8) == [range(0, 50)]


@settings(max_examples=200, deadline=None)
@given(weights=st.lists(st.integers(0, 1000), min_size=1, max_size=40), parts=st.integers(1, 9),
       least=st.integers(1, 3000))
def test_split_cuts_in_order_into_at_most_parts(weights: list[int], parts: int, least: int) -> None:
    groups = workers.split(weights, parts, least)
    assert groups and all(len(g) for g in groups)
    assert [i for g in groups for i in g] == list(range(len(weights)))  # contiguous, in order
    assert len(groups) <= parts
    if len(groups) > 1:
        assert sum(weights) >= least * len(groups)


def test_split_balances_even_work() -> None:
    assert workers.split([10] * 8, 2, 1, 0) == [range(0, 4), range(4, 8)]
    assert workers.split([10] * 9, 3, 1, 0) == [range(0, 3), range(3, 6), range(6, 9)]
    # one heavy function is a group of its own
    assert workers.split([1, 100, 1, 1], 3, 1, 0)[0] in (range(0, 1), range(0, 2))


def test_many_tiny_functions_stay_in_one_process() -> None:
    """Functions of a few instructions cost more to ship than to analyse: one group,
    however many there are; functions without work do not count toward the average."""
    tiny = workers.MIN_AVERAGE_INSTRUCTIONS - 1
    assert workers.split([tiny] * 100_000, 8) == [range(0, 100_000)]
    big = workers.MIN_AVERAGE_INSTRUCTIONS * 100
    assert len(workers.split([big, 0, 0, 0] * 1000, 2)) == 2
    assert len(workers.split([tiny] * 1000, 2, 1, 0)) == 2


def test_jobs_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="jobs"):
        llnoalias.annotate("", jobs=-1)


def test_the_command_line_splits_a_large_input(counts: Counts, tmp_path: object) -> None:
    text, path = _module_text()
    outs = []
    for jobs in ("1", "3"):
        out = os.path.join(str(tmp_path), f"out{jobs}.ll")
        res = run_cli(["annotate", "--no-verify", "--lds", "all", "-j", jobs, path, "-o", out])
        assert res.exit_code == 0, res.stderr
        with open(out, encoding="utf-8") as f:
            outs.append(f.read())
    assert counts.forked >= 1 and counts.landed == counts.forked
    assert outs[0] == outs[1]


def test_bad_input_stops_the_workers(counts: Counts, monkeypatch: pytest.MonkeyPatch) -> None:
    """An error in the parent's own group ends the run at once, and no worker is left
    (with deferred bodies the module is read again in one pass, which finds it again)."""
    text, path = _module_text()
    run_all = FunctionPass.run_all

    def failing_run_all(self, indices):  # type: ignore[no-untyped-def]
        if indices.start == 0:  # the parent's own group, not a failed worker's
            raise llnoalias.LLNoaliasError("bad input found by the parent")
        return run_all(self, indices)

    monkeypatch.setattr(FunctionPass, "run_all", failing_run_all)
    _workers_hang(monkeypatch)
    start = time.monotonic()
    with pytest.raises(llnoalias.LLNoaliasError, match="found by the parent"):
        llnoalias.annotate(text, path=path, lds="all", jobs=3)
    assert time.monotonic() - start < 30
    assert counts.forked >= 1
    _assert_no_worker_left()


def test_workers_and_the_checking_child_together(counts: Counts, tmp_path: object) -> None:
    """With verification on, the checking child holds pipes the workers inherit: the run
    must still end (no pipe kept open by a worker) and write what one process writes."""
    pytest.importorskip("llvmlite", reason="the output check needs llvmlite")
    text, path = _module_text()
    outs = []
    for jobs in ("1", "3"):
        out = os.path.join(str(tmp_path), f"v{jobs}.ll")
        res = run_cli(["annotate", "--lds", "all", "-j", jobs, path, "-o", out])
        assert res.exit_code == 0, res.stderr
        with open(out, encoding="utf-8") as f:
            outs.append(f.read())
    assert counts.forked >= 1 and counts.landed == counts.forked
    assert outs[0] == outs[1]


def test_jobs_zero_is_one_per_cpu_up_to_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from llnoalias import api
    from llnoalias.transform import pipeline

    seen: list[int] = []
    real = pipeline.annotate_text

    def spy(*a, **k):  # type: ignore[no-untyped-def]
        seen.append(k["jobs"])
        return real(*a, **k)

    monkeypatch.setattr(api, "annotate_text", spy)
    for cpus, want in ((1, 1), (4, 4), (64, api.AUTO_JOBS_LIMIT)):
        monkeypatch.setattr(api, "usable_cpus", lambda cpus=cpus: cpus)
        api.annotate("", jobs=0)
        assert seen[-1] == want
    api.annotate("", jobs=64)
    assert seen[-1] == 64  # an explicit count is taken as it is


def test_no_process_to_be_had(counts: Counts, monkeypatch: pytest.MonkeyPatch) -> None:
    """fork failing (out of processes or memory) leaves the work to the parent."""
    text, path = _module_text()
    want = _one(text, path, 1, lds="all")

    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    got = _one(text, path, 3, lds="all")
    assert counts.forked >= 1 and counts.landed == 0
    assert got == want


def test_an_interrupt_while_collecting_stops_the_rest(counts: Counts, monkeypatch: pytest.MonkeyPatch) -> None:
    text, path = _module_text()
    _workers_hang(monkeypatch)
    real = workers._collect
    calls = []

    def interrupted(worker: workers._Worker) -> object:
        calls.append(worker.pid)
        if len(calls) == 1:
            os.kill(worker.pid, 9)
            real(worker)
            raise KeyboardInterrupt
        return real(worker)

    monkeypatch.setattr(workers, "_collect", interrupted)
    with pytest.raises(KeyboardInterrupt):
        llnoalias.annotate(text, path=path, lds="all", jobs=3)
    assert counts.forked == 2 and len(calls) == 1
    _assert_no_worker_left()  # the second one too


def test_functions_no_domain_concerns_weigh_nothing(counts: Counts) -> None:
    """Without roots every function is passed over at once: no worker is worth its fork."""
    text, path = _module_text()
    one, many = _both(text, path, 3, lds="off", args="off")
    assert counts.forked == 0
    assert many == one
    one, many = _both(text, path, 3, lds="all", args="off")
    assert counts.forked >= 1
    assert many == one


def test_no_fork_while_sigchld_is_ignored(counts: Counts) -> None:
    """The kernel would reap the workers before their exit could be read."""
    text, path = _module_text()
    old = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        assert not workers.can_fork()
        one, many = _both(text, path, 3, lds="all")
    finally:
        signal.signal(signal.SIGCHLD, old)
    assert counts.forked == 0
    assert many == one


def test_a_worker_reaped_by_someone_else_is_redone_here(counts: Counts, monkeypatch: pytest.MonkeyPatch) -> None:
    text, path = _module_text()
    want = _one(text, path, 1, lds="all")
    real = os.waitpid

    def someone_else_reaped(pid: int, options: int) -> tuple[int, int]:
        real(pid, options)
        raise ChildProcessError(10, "No child processes")

    monkeypatch.setattr(os, "waitpid", someone_else_reaped)
    got = _one(text, path, 3, lds="all")
    assert counts.forked >= 1 and counts.landed == 0
    assert got == want


def test_no_fork_beside_a_thread_threading_does_not_know() -> None:
    import _thread

    if not os.path.isdir("/proc/self/task"):
        pytest.skip("no /proc here: only threading's threads are seen")
    stop = _thread.allocate_lock()
    stop.acquire()
    done = _thread.allocate_lock()
    done.acquire()

    def wait() -> None:
        stop.acquire()
        done.release()

    _thread.start_new_thread(wait, ())
    try:
        assert threading.active_count() == 1
        assert not workers.can_fork()
    finally:
        stop.release()
        done.acquire()


def test_a_callers_frozen_objects_stay_frozen(counts: Counts) -> None:
    import gc

    text, path = _module_text()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        _one(text, path, 3, lds="all")
        assert counts.forked >= 1
        assert gc.get_freeze_count() >= frozen
    finally:
        gc.unfreeze()


def test_a_signal_in_a_new_worker_never_reaches_the_caller(counts: Counts, monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: object) -> None:
    """A Ctrl-C that reaches a worker before it starts its work ends the worker; it never
    runs on in its copy of the caller's code (here: the caller's ``except``)."""
    text, path = _module_text()
    want = _one(text, path, 1, lds="all")
    parent = os.getpid()
    marker = os.path.join(str(tmp_path), "escaped")
    real_close = os.close

    def close(fd: int) -> None:
        if os.getpid() != parent:
            raise KeyboardInterrupt
        real_close(fd)

    monkeypatch.setattr(os, "close", close)
    try:
        got = _one(text, path, 3, lds="all")
    except KeyboardInterrupt:
        if os.getpid() != parent:
            with open(marker, "w") as f:
                f.write("a worker ran the caller's code")
            os._exit(0)
        raise
    assert not os.path.exists(marker)
    assert counts.forked >= 1 and counts.landed == 0
    assert got == want


def test_an_interrupt_while_starting_stops_those_started(counts: Counts, monkeypatch: pytest.MonkeyPatch) -> None:
    text, path = _module_text()
    _workers_hang(monkeypatch)
    real = workers._start
    calls = []

    def start(group: range, work: object, started: list) -> None:  # type: ignore[type-arg]
        calls.append(group)
        if len(calls) == 2:
            raise KeyboardInterrupt
        real(group, work, started)  # type: ignore[arg-type]

    monkeypatch.setattr(workers, "_start", start)
    with pytest.raises(KeyboardInterrupt):
        llnoalias.annotate(text, path=path, lds="all", jobs=3)
    _assert_no_worker_left()  # the first one too


def test_a_failed_worker_between_two_that_land(counts: Counts, monkeypatch: pytest.MonkeyPatch) -> None:
    """The middle group is redone here, in its place: the order of the decisions (and so
    of the scopes and lists written) is the one process's."""
    text, path = _module_text()
    want = _one(text, path, 1, lds="all", args="noalias")
    ship = FunctionPass.ship

    def failing_middle(self, indices):  # type: ignore[no-untyped-def]
        if 2 in indices:
            raise RuntimeError("a worker's bug")
        return ship(self, indices)

    monkeypatch.setattr(FunctionPass, "ship", failing_middle)
    got = _one(text, path, 4, lds="all", args="noalias")
    assert counts.forked == 3 and counts.landed == 2
    assert got == want


#: a kernel that keeps an LDS address in a private slot, read back as an offset, in a
#: worker's group: the settle pass must see that the slot holds an address
SLOT = LOADED.replace("""define amdgpu_kernel void @writes(ptr addrspace(1) %out) {
  %ia = ptrtoint ptr addrspace(3) @lds_a to i32
  store i32 %ia, ptr addrspace(1) %out, align 4
  store i8 5, ptr addrspace(3) @lds_b, align 1
  ret void
}""", """define amdgpu_kernel void @writes(ptr addrspace(1) %out) {
  %s = alloca i32, align 4, addrspace(5)
  %ia = ptrtoint ptr addrspace(3) @lds_a to i32
  store i32 %ia, ptr addrspace(5) %s, align 4
  %x = load i32, ptr addrspace(5) %s, align 4
  %p = getelementptr i8, ptr addrspace(3) @lds_b, i32 %x
  store i8 5, ptr addrspace(3) %p, align 1
  store i8 6, ptr addrspace(3) @lds_b, align 1
  ret void
}""")


def test_a_slot_holding_an_address_in_a_workers_group(counts: Counts) -> None:
    assert SLOT != LOADED
    one, many = _both(SLOT, "slot.ll", 3, regions=False)
    assert counts.forked >= 2 and counts.landed == counts.forked
    assert many == one
    line = next(x for x in many[0].splitlines() if "store i8 5," in x)
    assert "!alias.scope" not in line and "!noalias" not in line


def test_surely_one_implies_one_group() -> None:
    """``surely_one`` (which lets the pipeline skip making the weights) says one process only
    where ``split`` would: for random weights, any bound on their sum at least that sum."""
    import random

    rnd = random.Random(7)
    said = 0
    for _ in range(3000):
        sizes = [0, 0, 1, 3, 5, 9, 20] if rnd.random() < 0.5 else [0, 1, 3, 5, 9, 20, 300, 30_000]
        weights = [rnd.choice(sizes) for _ in range(rnd.randint(1, 400))]
        analysed = sum(1 for w in weights if w)
        lines = sum(weights) + rnd.choice([0, 0, 1, 50, 5000])
        if workers.surely_one(lines, analysed):
            said += 1
            assert len(workers.split(weights, rnd.choice([2, 4, 8]))) == 1, weights
    assert said > 100  # (the property was tried, not only passed over)
    assert not workers.surely_one(10, 0)
