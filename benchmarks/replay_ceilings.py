"""The most a full replay could save by each redesign issue 27 names: an upper bound, measured.

    python benchmarks/replay_ceilings.py PROJECT [--repeat N]
    python benchmarks/replay_ceilings.py PROJECT --mode MODE   # one mode, for callgrind

Copies PROJECT (a folder holding ``.baton/``, e.g. a cached
``project-10000-r2/repo`` from ``benchmarks/build.py``) into a temporary
folder and runs ``baton rebuild --json`` in this process: once unmeasured,
once more to fill the caches that mode ``X2`` answers from, then, per
repetition, once as it is and once in each mode, interleaved, and prints each
mode's CPU time (``time.process_time``, the fastest repetition) and what it
saves an event. Each mode takes work away *without doing what would replace
it*, so its saving is a ceiling no implementation of that design can beat:

- ``X1`` (a replay that trusts a verified prefix): no line's two sha256. The
  envelope is still built and checked: a trusted line is still folded.
- ``X2`` (captures folded from the record's own checked JSON): a captured
  record's read (``handoff_from_json``: the strict reader, the check a
  capture gets) and every write of a record's JSON (``handoff_to_json``) are
  answered from a dictionary the unmeasured rebuild filled. ``X2r`` only the
  read, ``X2w`` only the writes.
- ``X3`` (fewer derived tables and files per record): no handoff rows,
  full-text entries or lineage rows (``X3i``) and no handoff files
  (``X3f``); every document is still written to ``docs``.

Modes combine with ``+`` (``X1+X2+X3``). ``--mode skip`` does everything but
the measured rebuild: under ``valgrind --tool=callgrind`` the instructions of
``--mode M`` less those of ``--mode skip`` are one rebuild in mode M, the same
whatever else runs on the machine. The rebuilt index of a mode is not a
correct one (that is the point); this script never touches PROJECT itself.
No test asserts on these numbers (docs/performance.md, "Full replay, sixth
round").
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baton.cli import main as baton_main  # noqa: E402
from baton.domain.aggregates import handoff as aggregate  # noqa: E402
from baton.ledger import feed as feed_module  # noqa: E402
from baton.projections.folds import handoffs as handoffs_fold  # noqa: E402
from baton.projections.folds import lineage as lineage_fold  # noqa: E402

MODES = ("as main", "X1", "X2", "X2r", "X2w", "X3", "X3i", "X3f", "X1+X2+X3")

ORIGINAL: dict[str, Any] = {
    "verifies": feed_module._line_verifies,
    "read": aggregate.handoff_from_json,
    "write": handoffs_fold.handoff_to_json,
    "index": handoffs_fold.Handoffs.index,
    "materialize": handoffs_fold.Handoffs.materialize,
}
LINEAGE_INDEXES = {cls: cls.index for cls in vars(lineage_fold).values()
                   if isinstance(cls, type) and "index" in vars(cls)}
READ: dict[str, Any] = {}
WRITTEN: dict[tuple, Any] = {}


def _state_key(record: Any) -> tuple:
    return (record.id, record.status, record.updated_at,
            record.validation.status if record.validation is not None else None)


def _filling_read(obj: Any) -> Any:
    record = ORIGINAL["read"](obj)
    READ[obj["id"]] = record
    return record


def _filling_write(record: Any, like: Any = None) -> Any:
    doc = ORIGINAL["write"](record, like=like)
    WRITTEN[_state_key(record)] = doc
    return doc


def _no_index(self: Any, db: Any, changed: Any) -> None:
    return None


def set_mode(mode: str) -> None:
    """Put back what ``mode`` leaves alone and take away what it names."""
    parts = set(mode.split("+"))
    feed_module._line_verifies = (lambda line, digest, recorded: True) if "X1" in parts else ORIGINAL["verifies"]
    aggregate.handoff_from_json = ((lambda obj: READ[obj["id"]]) if parts & {"X2", "X2r"}
                                   else ORIGINAL["read"])
    handoffs_fold.handoff_to_json = ((lambda record, like=None: WRITTEN[_state_key(record)]) if parts & {"X2", "X2w"}
                                     else ORIGINAL["write"])
    no_rows = bool(parts & {"X3", "X3i"})
    handoffs_fold.Handoffs.index = _no_index if no_rows else ORIGINAL["index"]
    for cls, index in LINEAGE_INDEXES.items():
        cls.index = _no_index if no_rows else index
    handoffs_fold.Handoffs.materialize = ((lambda self, key, doc: {}) if parts & {"X3", "X3f"}
                                          else ORIGINAL["materialize"])


def rebuild() -> float:
    with contextlib.redirect_stdout(io.StringIO()):
        start = time.process_time()
        if baton_main(["rebuild", "--json"]) not in (0, None):
            raise SystemExit("baton rebuild failed")
        return time.process_time() - start


def read_and_parse(ledger: Path) -> float:
    """The baseline in this process: every line read and ``orjson.loads``-ed,
    results held a replay batch at a time (as a replay holds them), the
    collector paused (as a rebuild pauses it)."""
    gc.disable()
    try:
        start = time.process_time()
        held: list[Any] = []
        for path in sorted(ledger.glob("*.jsonl")):
            with open(path, "rb") as fh:
                for line in fh:
                    held.append(orjson.loads(line))
                    if len(held) >= 2000:
                        held.clear()
        return time.process_time() - start
    finally:
        gc.enable()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mode", help="one mode only, no output (for callgrind); 'skip': no measured rebuild")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="baton-ceilings-") as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(args.project, copy, symlinks=True)
        os.chdir(copy)
        rebuild()
        aggregate.handoff_from_json, handoffs_fold.handoff_to_json = _filling_read, _filling_write
        rebuild()
        set_mode("as main")
        if args.mode:
            if args.mode != "skip":
                set_mode(args.mode)
                rebuild()
            return 0
        events = sum(1 for path in (copy / ".baton" / "ledger").glob("*.jsonl") for _ in open(path, "rb"))
        best = dict.fromkeys(MODES, float("inf"))
        base = float("inf")
        for _ in range(args.repeat):
            base = min(base, read_and_parse(copy / ".baton" / "ledger"))
            for mode in MODES:
                set_mode(mode)
                best[mode] = min(best[mode], rebuild())
        set_mode("as main")
        print(f"{events} events, fastest of {args.repeat} (interleaved), load {os.getloadavg()}")
        print(f"{'read + orjson.loads, held':28s} {base * 1000:8.1f} ms {base / events * 1e6:7.1f} µs an event")
        whole = best["as main"]
        for mode, cpu in best.items():
            saved = (whole - cpu) / events * 1e6
            print(f"{'rebuild ' + mode:28s} {cpu * 1000:8.1f} ms {cpu / events * 1e6:7.1f} µs an event"
                  f"  saves {saved:6.1f} µs ({(1 - cpu / whole) * 100:5.1f}%)  in process {cpu / base:5.1f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
