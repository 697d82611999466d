"""Many processes appending at once through the real lock."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter, defaultdict

import pytest

from baton.ledger import Ledger
from baton.ledger.verify import verify_ledger

PROCESSES = 8
APPENDS = 200

CHILD = r"""
import sys
from pathlib import Path
from baton.ledger import EventDraft, Ledger

root, mode, idx, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if mode == "project":
    from baton.commands.context import Project
    project = Project.open(root)
    writing = project.writing
else:
    ledger = Ledger(Path(root) / ".baton", f"solo-{idx}", fsync="never")
    writing = ledger.locked
print("ready", flush=True)
sys.stdin.readline()
for i in range(count):
    stream = f"shared/{i % 3}"
    with writing() as scope:
        txn = getattr(scope, "txn", scope)
        scope.append([EventDraft("race.appended", stream, {"proc": idx, "i": i})],
                     expected={stream: txn.stream_version(stream)})
"""


@pytest.mark.slow
def test_eight_processes_appending_at_once_lose_nothing_and_keep_every_chain_and_stream_gapless(project):
    """Half go through ``Project.writing()`` (one shared writer id, durable, with
    projections); half through ``Ledger.locked()`` with a writer id each."""
    children = []
    for idx in range(PROCESSES):
        mode = "project" if idx % 2 == 0 else "ledger"
        children.append(subprocess.Popen(
            [sys.executable, "-c", CHILD, str(project), mode, str(idx), str(APPENDS)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        ))
    for child in children:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
    for child in children:
        child.stdin.write("go\n")
        child.stdin.flush()
    for child in children:
        _, err = child.communicate(timeout=300)
        assert child.returncode == 0, err

    baton = project / ".baton"
    events = [e for e in Ledger(baton, "reader").read_all() if e.type == "race.appended"]
    assert len(events) == PROCESSES * APPENDS
    assert len({e.id for e in events}) == len(events)
    assert Counter(e.data["proc"] for e in events) == {idx: APPENDS for idx in range(PROCESSES)}
    for idx in range(PROCESSES):
        assert [e.data["i"] for e in events if e.data["proc"] == idx] == list(range(APPENDS))

    by_feed = defaultdict(list)
    for e in Ledger(baton, "reader").read_all():
        by_feed[e.writer].append(e.seq)
    assert len(by_feed) == 1 + PROCESSES // 2
    for writer, seqs in by_feed.items():
        assert sorted(seqs) == list(range(1, len(seqs) + 1)), writer

    by_stream = defaultdict(list)
    for e in events:
        by_stream[e.stream].append(e.stream_version)
    for stream, versions in by_stream.items():
        assert versions == list(range(1, len(versions) + 1)), stream

    report = verify_ledger(baton / "ledger")
    assert report.ok, report.to_json()["problems"]
    assert all(f.torn is None for f in report.feeds)

    from baton.commands.context import Project

    opened = Project.open(project)
    runner = opened.reading()
    assert {s: runner.get("streams", s)["version"] for s in by_stream} == {s: len(v) for s, v in by_stream.items()}
    assert runner.get("event_counts", "race.appended")["count"] == PROCESSES * APPENDS
    opened.close()
