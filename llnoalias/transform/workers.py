"""Worker processes for a large module: its functions analysed side by side (``--jobs``).

The parent has parsed the module and found its roots. It forks, and each worker analyses
one contiguous group of functions from that shared state (copy-on-write: nothing is sent
to it) and sends back plain data through a pipe. The parent analyses the first group
itself meanwhile, then takes the workers' results in function order, so the result is the
one a single process gives, byte for byte (see ``pipeline``).

A worker that fails in any way (an exception, a signal, a short or garbled reply) is
reported as ``None``: the parent does that group itself, and the run's result does not
depend on whether workers were used. Forking is only done where it is safe: a platform
with ``fork`` and a process with no other thread running (a thread holding a lock at the
fork would leave the worker's copy of it locked for good).
"""

from __future__ import annotations

import gc
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

#: how much more work the parent's group gets than a worker's: a worker also pays for the
#: pages it copies and for sending its reply (measured: 6-8% on the 240k-line suite)
PARENT_EXTRA = 0.08

#: the least work (instructions) worth a worker of its own: below it, the fork and the
#: reply cost more than the worker saves
MIN_GROUP_INSTRUCTIONS = 20_000


def usable_cpus() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Is forking workers safe here (``fork`` exists and no other thread runs)?"""
    if not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() <= 1


def split(weights: Sequence[int], parts: int, least: int | None = None) -> list[range]:
    """Cut ``range(len(weights))`` into at most ``parts`` contiguous groups of about equal
    weight, about ``least`` at the least (``MIN_GROUP_INSTRUCTIONS``); no group is empty.
    The first group, the parent's, is ``PARENT_EXTRA`` heavier than the others."""
    if least is None:
        least = MIN_GROUP_INSTRUCTIONS
    total = sum(weights)
    parts = max(1, min(parts, len(weights), total // max(least, 1)))
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


def fork_map(groups: Sequence[range], work: Callable[[range], object],
             local: Callable[[range], None]) -> list[object | None]:
    """Run ``work`` on ``groups[1:]`` in forked workers while ``local(groups[0])`` runs
    here; the workers' results in order (``None`` for a worker that failed or could not
    be started)."""
    started: list[tuple[int, int] | None] = []
    # Objects made before the fork are never collected in a worker: leaving them out of
    # its collections keeps it from touching (and so copying) the parent's pages.
    gc.freeze()
    try:
        for group in groups[1:]:
            started.append(_start(group, work))
    finally:
        gc.unfreeze()
    results: list[object | None] = []
    reaped: set[int] = set()
    try:
        local(groups[0])
        for worker in started:
            results.append(None if worker is None else _collect(*worker, reaped))
    except BaseException:
        # bad input (the workers would find it too), Ctrl-C, a bug: no worker outlives it
        # (the one being read when it happened included)
        for worker in started[len(results):]:
            if worker is not None and worker[0] not in reaped:
                _stop(*worker)
        raise
    return results


def _stop(pid: int, fd: int) -> None:
    """Kill and reap a worker not yet reaped (``_collect`` may have closed its pipe)."""
    import signal

    for step in (lambda: os.kill(pid, signal.SIGKILL), lambda: os.close(fd), lambda: os.waitpid(pid, 0)):
        try:
            step()
        except OSError:  # already gone, closed or reaped
            pass


def _start(group: range, work: Callable[[range], object]) -> tuple[int, int] | None:
    """A worker for ``group``: its pid and the read end of its reply's pipe; None when no
    process can be made (out of processes or memory: the parent does the group)."""
    import pickle  # only a run that forks needs it (about 2 ms of start-up)

    try:
        r, w = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return None
    if pid == 0:  # the worker: never returns
        os.close(r)
        code = 1
        try:
            data = pickle.dumps(work(group), pickle.HIGHEST_PROTOCOL)
            with os.fdopen(w, "wb") as f:
                f.write(data)
            code = 0
        except BaseException:  # noqa: BLE001 - any failure: the parent does the group itself
            pass
        finally:
            os._exit(code)
    os.close(w)
    return pid, r


def _collect(pid: int, fd: int, reaped: set[int]) -> object | None:
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read()
        except OSError:
            data = b""
    _, status = os.waitpid(pid, 0)
    reaped.add(pid)  # its pid may be another process's from now on: never signalled again
    if status != 0 or not data:
        return None
    import pickle

    try:
        return pickle.loads(data)
    except Exception:  # noqa: BLE001 - a garbled reply: the parent does the group itself
        return None


__all__ = ["MIN_GROUP_INSTRUCTIONS", "can_fork", "fork_map", "split", "usable_cpus"]
