"""Worker processes for a large module: its functions analysed side by side (``--jobs``).

The parent has parsed the module and found its roots. It forks, and each worker analyses
one contiguous group of functions from that shared state (copy-on-write: nothing is sent
to it) and sends back plain data through a pipe. The parent analyses the first group
itself meanwhile, then takes the workers' results in function order, so the result is the
one a single process gives, byte for byte (see ``pipeline``).

A worker that fails in any way (an exception, a signal, a short or garbled reply) is
reported as ``None``: the parent does that group itself, and the run's result does not
depend on whether workers were used. Forking is only done where it is safe (``can_fork``),
a worker never runs the caller's code (signals are blocked from the fork to its ``try``), and
no worker outlives the call, whatever ends it.
"""

from __future__ import annotations

import gc
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from signal import Signals

#: how much more work the parent's group gets than a worker's: a worker also pays for the
#: pages it copies and for sending its reply (measured: 6-8% on the 240k-line suite)
PARENT_EXTRA = 0.08

#: the least work (instructions) worth a worker of its own: below it, the fork and the
#: reply cost more than the worker saves
MIN_GROUP_INSTRUCTIONS = 20_000
#: the least work (instructions) of an analysed function, on average, worth shipping its
#: results between processes: many tiny kernels cost more to send and take back than to
#: analyse (20,000 one-load, one-store kernels: 3.2 s in one process, 3.9 s with two)
MIN_AVERAGE_INSTRUCTIONS = 16


def usable_cpus() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Is forking workers safe here? ``fork`` must exist, no other thread may run (one
    holding a lock at the fork would leave the worker's copy of it locked for good; threads
    that C libraries start are counted too, where ``/proc`` shows them), and SIGCHLD must
    not be ignored (the kernel would reap the workers before their exit could be read)."""
    if not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return False
    try:
        if len(os.listdir("/proc/self/task")) > 1:
            return False
    except OSError:
        pass
    import signal

    return signal.getsignal(signal.SIGCHLD) is not signal.SIG_IGN


def split(weights: Sequence[int], parts: int, least: int | None = None, average: int | None = None) -> list[range]:
    """Cut ``range(len(weights))`` into at most ``parts`` contiguous groups of about equal
    weight, about ``least`` at the least (``MIN_GROUP_INSTRUCTIONS``); no group is empty;
    one group when the functions with work are tiny on average (``MIN_AVERAGE_INSTRUCTIONS``).
    The first group, the parent's, is ``PARENT_EXTRA`` heavier than the others."""
    if least is None:
        least = MIN_GROUP_INSTRUCTIONS
    if average is None:
        average = MIN_AVERAGE_INSTRUCTIONS
    total = sum(weights)
    parts = max(1, min(parts, len(weights), total // max(least, 1)))
    analysed = sum(1 for w in weights if w)
    if analysed and total < average * analysed:
        parts = 1  # tiny functions: one process (``MIN_AVERAGE_INSTRUCTIONS``)
    out: list[range] = []
    start = 0
    done = 0
    share = 1 / (parts + PARENT_EXTRA)  # a worker's part of the total; the parent's is 1 + PARENT_EXTRA times it
    for k in range(1, parts):
        goal = int(total * share * (k + PARENT_EXTRA))
        end = start
        while end < len(weights) and done + weights[end] <= goal:
            done += weights[end]
            end += 1
        if end == start and end < len(weights):  # one heavy item: a group of its own
            done += weights[end]
            end += 1
        if end < len(weights):
            out.append(range(start, end))
            start = end
    out.append(range(start, len(weights)))
    return [g for g in out if len(g)]


def surely_one(lines: int, analysed: int) -> bool:
    """Would ``split`` keep a module in one process, whatever its weights, when they add up
    to at most ``lines`` (each function's weight is at most its lines) over at least
    ``analysed`` functions with work? Its average rule says so when ``lines`` is under
    ``MIN_AVERAGE_INSTRUCTIONS`` per such function: then the weights need not be made (a
    module of many small kernels: a call per function)."""
    return analysed > 0 and lines < MIN_AVERAGE_INSTRUCTIONS * analysed


def fork_map(groups: Sequence[range], work: Callable[[range], object],
             local: Callable[[range], None]) -> list[object | None]:
    """Run ``work`` on ``groups[1:]`` in forked workers while ``local(groups[0])`` runs
    here; the workers' results in order (``None`` for a worker that failed or could not
    be started)."""
    started: list[_Worker | None] = []
    results: list[object | None] = []
    # Objects made before the fork are never collected in a worker: leaving them out of
    # its collections keeps it from touching (and so copying) the parent's pages. A
    # caller that froze objects itself keeps them frozen.
    freeze = gc.get_freeze_count() == 0
    try:
        if freeze:
            gc.freeze()
        try:
            for group in groups[1:]:
                _start(group, work, started)
        finally:
            if freeze:
                gc.unfreeze()
        local(groups[0])
        for worker in started:
            results.append(None if worker is None else _collect(worker))
    except BaseException:
        # bad input (the workers would find it too), Ctrl-C, a bug: no worker outlives it
        # (the one being read when it happened included)
        for worker in started[len(results):]:
            if worker is not None:
                _stop(worker)
        raise
    return results


class _Worker:
    """A started worker: its pid and the read end of its reply's pipe, and whether each
    is still ours (a reaped pid or a closed fd may be another's from then on)."""

    __slots__ = ("pid", "fd", "open", "reaped")

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.fd = fd
        self.open = True
        self.reaped = False


def _signals_blocked() -> set[int | Signals]:
    """Block every signal (returns the mask to restore): between a fork and the worker's
    own ``try``, a Ctrl-C would raise in the worker's copy of the caller's code."""
    import signal

    return signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())


def _restore(mask: set[int | Signals]) -> None:
    import signal

    signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _start(group: range, work: Callable[[range], object], started: list[_Worker | None]) -> None:
    """Start a worker for ``group`` and add it to ``started`` (None when no process can be
    made, out of processes or memory: then the parent does the group)."""
    import pickle  # only a run that forks needs it (about 2 ms of start-up)

    try:
        r, w = os.pipe()
    except OSError:
        started.append(None)
        return
    mask = _signals_blocked()
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        started.append(None)
        _restore(mask)
        return
    if pid == 0:  # the worker: never returns
        code = 1
        try:
            _restore(mask)
            os.close(r)
            data = pickle.dumps(work(group), pickle.HIGHEST_PROTOCOL)
            with os.fdopen(w, "wb") as f:
                f.write(data)
            code = 0
        except BaseException:  # noqa: BLE001 - any failure: the parent does the group itself
            pass
        finally:
            os._exit(code)
    os.close(w)
    started.append(_Worker(pid, r))  # before a pending signal can interrupt
    _restore(mask)


def _stop(worker: _Worker) -> None:
    """Kill and reap a worker, and close its pipe, where that is not done yet."""
    import signal

    if not worker.reaped:
        try:
            os.kill(worker.pid, signal.SIGKILL)
            os.waitpid(worker.pid, 0)
        except OSError:  # already gone (reaped by someone else)
            pass
        worker.reaped = True
    if worker.open:
        worker.open = False
        os.close(worker.fd)


def _collect(worker: _Worker) -> object | None:
    try:
        with os.fdopen(worker.fd, "rb") as f:
            try:
                data = f.read()
            except OSError:
                data = b""
    finally:
        worker.open = False
    try:
        _, status = os.waitpid(worker.pid, 0)
    except ChildProcessError:  # reaped by someone else: its exit is not known
        status = -1
    worker.reaped = True
    if status != 0 or not data:
        return None
    import pickle

    try:
        return pickle.loads(data)
    except Exception:  # noqa: BLE001 - a garbled reply: the parent does the group itself
        return None


__all__ = ["MIN_AVERAGE_INSTRUCTIONS", "MIN_GROUP_INSTRUCTIONS", "can_fork", "fork_map", "split", "usable_cpus"]
