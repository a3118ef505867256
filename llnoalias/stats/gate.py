"""Compare wait/load counts against a baseline: the CI gate behind ``llnoalias gate``.

The baseline is an ``llnoalias.stats/1`` document (what ``llnoalias stats --json`` prints
and what :func:`update_baseline` writes). :func:`compare` matches the current inputs to
it and gives one :class:`GateRow` per (file, function, counter).

Decisions
---------
* **Which counters fail.** By default every counter where more is worse: all wait
  counters (``waits``, ``vmcnt``, ``vmcnt_zero``, ``lgkmcnt``, gfx12's ``loadcnt``, ...,
  ``waitcnt_encoded``) and PTX's plain ``ld.global``, ``st.global`` and the ``ld.local`` /
  ``st.local`` spills, and the register spills and scratch bytes (``vgpr_spill``, ``sgpr_spill``,
  ``scratch``, PTX's ``local``, ``spill_stores``, ``spill_loads``). The register counts ``vgpr``,
  ``agpr``, ``sgpr``, PTX's ``reg`` and ``occupancy`` fail only when ``--counter`` names them (more
  registers cost only where they lower occupancy or spill); ``occupancy`` fails when it drops
  below the baseline less the tolerance. ``lds_dma``, ``ld.global.nc``, ``ld.shared``, ``st.shared`` and
  ``cp.async`` are reported when they move but never fail (more non-coherent loads is the
  point of annotating). ``counters=`` (``--counter``) replaces
  the default set with an explicit list; a name that is neither a counter llnoalias counts
  (``asmstats.KNOWN_KEYS``) nor one that occurs in the inputs or the baseline is an error with
  the nearest names (:func:`check_counters`): a misspelled counter must not disarm the gate.
* **Tolerance.** ``N`` allows ``N`` more than the baseline; ``N%`` allows ``N`` percent of
  the baseline more (so a baseline of 0 allows nothing). A gated counter fails when
  ``now > limit``; growing within the tolerance is reported as ``grew``.
* **Counters absent from the baseline** (in a function the baseline knows) compare
  against 0, so a function that newly needs ``vmcnt`` waits fails. The exception is a
  counter llnoalias began to count later (``asmstats.LATER_KEYS``: PTX's ``st.global``,
  ``st.shared``, ``ld.local``, ``st.local``) in a baseline file that lacks it altogether:
  that baseline predates the counter, so the row is ``new``, not a failure, until
  ``--update`` records it.
* **Functions absent from the baseline** (``new``) are reported, not failed: there is
  nothing to compare them with; ``--update`` adopts them. Functions in the baseline that
  are no longer there (``gone``) fail the gate: a kernel that vanished from the build must
  not pass unseen (``--update`` adopts the change). So does a baseline file not given,
  unless ``allow_missing`` (pre-commit's hook, which gives only the changed files). Totals are not gated, so a new function cannot fail the gate
  through them.
* **Matching inputs to the baseline.** A file matches the baseline entry with the same
  normalised path, else the only entry with the same base name; functions of files left
  unmatched then match, by name, a function of a leftover baseline entry when exactly one
  such function exists (so ``out/k.s`` against a baseline of ``build/k-old.s`` still
  compares ``k``).
"""

from __future__ import annotations

import difflib
import os
import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import LLNoaliasError
from ..fileio import read_input, write_atomic
from . import counters as asmstats
from .counters import FileStats

SCHEMA = "llnoalias.gate/1"

VERDICTS = ("fail", "grew", "shrank", "same", "new", "gone")

_TOLERANCE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$")


@dataclass(frozen=True)
class Tolerance:
    """``N`` (absolute count) or ``N%`` (percent of the baseline)."""

    value: float = 0.0
    percent: bool = False

    @classmethod
    def parse(cls, text: str) -> Tolerance:
        m = _TOLERANCE.match(text)
        if not m:
            raise LLNoaliasError(f"invalid --tolerance '{text}': expected a count N or a percentage N%")
        value = float(m.group(1))
        percent = m.group(2) == "%"
        if not percent and value != int(value):
            raise LLNoaliasError(f"invalid --tolerance '{text}': an absolute tolerance is a whole count")
        return cls(value, percent)

    def limit(self, baseline: int) -> float:
        """The largest count that still passes."""
        if self.percent:
            return baseline * (1.0 + self.value / 100.0)
        return baseline + self.value

    def __str__(self) -> str:
        number = f"{self.value:g}"
        return f"{number}%" if self.percent else number


@dataclass(frozen=True)
class GateRow:
    file: str
    kernel: str
    counter: str
    #: ``None`` when the function is not in the baseline (``new``).
    baseline: int | None
    #: ``None`` when the function is no longer there (``gone``).
    now: int | None
    #: The largest passing count, for functions in both; ``None`` otherwise.
    limit: float | None
    #: Whether this counter can fail the gate.
    gated: bool
    verdict: str

    @property
    def delta(self) -> int:
        return (self.now or 0) - (self.baseline or 0)

    def to_dict(self) -> dict[str, Any]:
        limit: float | int | None = self.limit
        if limit is not None and float(limit).is_integer():
            limit = int(limit)
        return {
            "file": self.file,
            "kernel": self.kernel,
            "counter": self.counter,
            "baseline": self.baseline,
            "now": self.now,
            "delta": self.delta,
            "limit": limit,
            "gated": self.gated,
            "verdict": self.verdict,
        }


@dataclass
class GateResult:
    baseline_path: str
    tolerance: Tolerance
    rows: list[GateRow]
    #: ``None``: the default set (every counter where more is worse).
    counters: tuple[str, ...] | None = None
    #: Baseline entries no current input matched, and inputs with no baseline entry.
    missing_files: list[str] = field(default_factory=list)
    new_files: list[str] = field(default_factory=list)
    updated: bool = False
    #: ``(file, function)`` of each baseline function that a file given lacks: each fails
    #: the gate; so does each of ``missing_files`` (a baseline file not given) unless
    #: ``allow_missing`` (pre-commit gives only the files a commit changed)
    vanished: list[tuple[str, str]] = field(default_factory=list)
    allow_missing: bool = False

    @property
    def failures(self) -> list[GateRow]:
        return [r for r in self.rows if r.verdict == "fail"]

    @property
    def passed(self) -> bool:
        return not self.failures and not self.vanished and (self.allow_missing or not self.missing_files)

    def moved(self) -> list[GateRow]:
        """Rows worth showing: what changed, and non-zero counts of new/gone functions."""
        out: list[GateRow] = []
        for r in self.rows:
            if r.verdict == "same":
                continue
            if r.verdict in ("new", "gone") and not (r.now or r.baseline):
                continue
            out.append(r)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "baseline": self.baseline_path,
            "tolerance": str(self.tolerance),
            "counters": list(self.counters) if self.counters is not None else None,
            "passed": self.passed,
            "failures": len(self.failures),
            "updated": self.updated,
            "missing_files": list(self.missing_files),
            "new_files": list(self.new_files),
            "gone": [{"file": f, "kernel": k} for f, k in self.vanished],
            "allow_missing": self.allow_missing,
            "rows": [r.to_dict() for r in self.rows],
        }


def _is_gated(counter: str, counters: Collection[str] | None) -> bool:
    if counters is not None:
        return counter in counters
    return asmstats.is_regression_counter(counter)


def _compare_kernel(
    file: str,
    kernel: str,
    base: Counter[str] | None,
    now: Counter[str] | None,
    tolerance: Tolerance,
    counters: Collection[str] | None,
    base_file_keys: Collection[str] = (),
) -> list[GateRow]:
    """``base_file_keys``: the counters the baseline's file entry has (in its total)."""
    keys = asmstats.order_keys(set(base or ()) | set(now or ()))
    rows: list[GateRow] = []
    for key in keys:
        gated = _is_gated(key, counters)
        if base is not None and now is not None and key not in base and key in asmstats.LATER_KEYS \
                and key not in base_file_keys:
            rows.append(GateRow(file, kernel, key, None, now.get(key, 0), None, gated, "new"))
            continue
        if base is None:
            assert now is not None
            rows.append(GateRow(file, kernel, key, None, now.get(key, 0), None, gated, "new"))
            continue
        if now is None:
            rows.append(GateRow(file, kernel, key, base.get(key, 0), None, None, gated, "gone"))
            continue
        b = base.get(key, 0)
        n = now.get(key, 0)
        limit = tolerance.limit(b)
        if key in asmstats.LOWER_IS_WORSE:  # occupancy: fewer is worse
            limit = 2 * b - limit
        if gated and (n < limit - 1e-9 if key in asmstats.LOWER_IS_WORSE else n > limit + 1e-9):
            verdict = "fail"
        elif n > b:
            verdict = "grew"
        elif n < b:
            verdict = "shrank"
        else:
            verdict = "same"
        rows.append(GateRow(file, kernel, key, b, n, limit, gated, verdict))
    return rows


def default_gated(keys: Collection[str] = asmstats.KNOWN_KEYS) -> list[str]:
    """The counters of ``keys`` that fail the gate when no ``--counter`` is given."""
    return [k for k in asmstats.order_keys(keys) if asmstats.is_regression_counter(k)]


def check_counters(names: Collection[str], present: Collection[str] = ()) -> None:
    """Refuse a ``--counter`` name llnoalias never counts (design section 7): an
    ``LLNoaliasError`` (exit 2) with the nearest known names. ``present``: the counter names
    the inputs and the baseline have (an unusual ``s_wait_*cnt`` counts under its own name)."""
    known = set(asmstats.KNOWN_KEYS) | set(present)
    for name in names:
        if name in known:
            continue
        close = difflib.get_close_matches(name, asmstats.order_keys(known), n=3, cutoff=0.6)
        if close:
            raise LLNoaliasError(f"unknown counter '{name}' in --counter (did you mean "
                                 + " or ".join(f"'{c}'" for c in close) + "?)")
        raise LLNoaliasError(f"unknown counter '{name}' in --counter; the counters are: "
                             + ", ".join(asmstats.order_keys(known)))


def _norm(path: str) -> str:
    return os.path.normcase(os.path.normpath(path))


def _match_files(
    baseline: Sequence[FileStats], current: Sequence[FileStats]
) -> tuple[dict[int, int], list[int], list[int]]:
    """Map current index -> baseline index; return leftovers on both sides."""
    by_path: dict[str, int] = {}
    for i, b in enumerate(baseline):
        by_path.setdefault(_norm(b.path), i)
    matched: dict[int, int] = {}
    used: set[int] = set()
    for ci, c in enumerate(current):
        bi = by_path.get(_norm(c.path))
        if bi is not None and bi not in used:
            matched[ci] = bi
            used.add(bi)
    for ci, c in enumerate(current):
        if ci in matched:
            continue
        base_name = os.path.basename(_norm(c.path))
        candidates = [
            bi for bi, b in enumerate(baseline)
            if bi not in used and os.path.basename(_norm(b.path)) == base_name
        ]
        same_name_now = [
            cj for cj, other in enumerate(current)
            if cj not in matched and os.path.basename(_norm(other.path)) == base_name
        ]
        if len(candidates) == 1 and len(same_name_now) == 1:
            matched[ci] = candidates[0]
            used.add(candidates[0])
    left_current = [ci for ci in range(len(current)) if ci not in matched]
    left_baseline = [bi for bi in range(len(baseline)) if bi not in used]
    return matched, left_current, left_baseline


def compare(
    baseline: Sequence[FileStats],
    current: Sequence[FileStats],
    tolerance: Tolerance | None = None,
    counters: Collection[str] | None = None,
    baseline_path: str = "",
    allow_missing: bool = False,
) -> GateResult:
    """Compare ``current`` with ``baseline``; see the module docstring for the rules."""
    tolerance = tolerance or Tolerance()
    matched, left_current, left_baseline = _match_files(baseline, current)
    rows: list[GateRow] = []

    # Functions of leftover baseline entries, by name, for the last matching step.
    leftover: dict[str, list[tuple[int, str]]] = {}
    for bi in left_baseline:
        for kname in baseline[bi].kernels:
            leftover.setdefault(kname, []).append((bi, kname))
    claimed: set[tuple[int, str]] = set()
    vanished: list[tuple[str, str]] = []

    for ci, cur in enumerate(current):
        if ci in matched:
            base = baseline[matched[ci]]
            for kname, counts in cur.kernels.items():
                rows += _compare_kernel(cur.path, kname, base.kernels.get(kname), counts, tolerance, counters,
                                        base.total)
            for kname, counts in base.kernels.items():
                if kname not in cur.kernels:
                    vanished.append((cur.path, kname))
                    rows += _compare_kernel(cur.path, kname, counts, None, tolerance, counters)
            continue
        for kname, counts in cur.kernels.items():
            options = [o for o in leftover.get(kname, []) if o not in claimed]
            base_counts: Counter[str] | None = None
            base_keys: Counter[str] = Counter()
            if len(leftover.get(kname, [])) == 1 and options:
                claimed.add(options[0])
                base_counts = baseline[options[0][0]].kernels[kname]
                base_keys = baseline[options[0][0]].total
            rows += _compare_kernel(cur.path, kname, base_counts, counts, tolerance, counters, base_keys)

    missing_files: list[str] = []
    for bi in left_baseline:
        base = baseline[bi]
        gone = [k for k in base.kernels if (bi, k) not in claimed]
        if len(gone) == len(base.kernels):
            missing_files.append(base.path)
        for kname in gone:
            if len(gone) < len(base.kernels):  # the file's other functions were found in an input
                vanished.append((base.path, kname))
            rows += _compare_kernel(base.path, kname, base.kernels[kname], None, tolerance, counters)

    new_files = [current[ci].path for ci in left_current]
    return GateResult(
        baseline_path=baseline_path,
        tolerance=tolerance,
        rows=rows,
        counters=tuple(counters) if counters is not None else None,
        missing_files=missing_files,
        new_files=new_files,
        vanished=vanished,
        allow_missing=allow_missing,
    )


def load_baseline(path: str) -> list[FileStats]:
    """Read a baseline; a missing or malformed one is an ``LLNoaliasError``."""
    if path != "-" and not os.path.exists(path):
        raise LLNoaliasError(f"baseline '{path}' does not exist (create it with --update)")
    text = read_input(path)
    try:
        return asmstats.from_json(text)
    except asmstats.SchemaError as exc:
        raise LLNoaliasError(f"baseline '{path}' is not an llnoalias stats file: {exc}") from None


def update_baseline(path: str, stats: Sequence[FileStats]) -> None:
    """Write ``stats`` as the new baseline (a regular file atomically, design section 6)."""
    write_atomic(path, asmstats.to_json(list(stats)))
