"""kill -9 at random moments: an acknowledged event is never lost, and the
next writer repairs whatever the dead one left half-written.

``fsync: never`` is enough here: SIGKILL ends the process, not the kernel, so
every byte a ``write()`` handed to the page cache is still read back. (Power
loss is what fsync is for, and no test can pull the plug.)
"""

from __future__ import annotations

import random
import re
import signal
import subprocess
import sys
import time

import pytest

from baton.ledger import Ledger
from baton.ledger.feed import FeedHead, scan_file
from baton.ledger.verify import verify_ledger

WRITER = "crashy"
MIN_KILLS = 50
MAX_KILLS = 150
WANTED_REPAIRS = 5

CHILD = r"""
import random, sys
from pathlib import Path
from baton.ledger import EventDraft, Ledger

ledger = Ledger(Path(sys.argv[1]), "crashy", fsync="never")
rnd = random.Random(int(sys.argv[2]))
i = 0
while True:
    stream = f"crash/{i % 3}"
    # Large payloads make a write span many pages, so kills land inside it.
    pad = "x" * rnd.choice([10, 1_000, 16_000, 64_000])
    with ledger.locked() as txn:
        [event] = txn.append([EventDraft("crash.appended", stream, {"i": i, "pad": pad})],
                             expected={stream: txn.stream_version(stream)})
    sys.stdout.write(event.id + "\n")
    sys.stdout.flush()
    i += 1
"""


UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}")


def acknowledged_ids(output: bytes) -> list[str]:
    """The ids the child printed, from ALL of its stdout in order: only
    complete lines (an id cut off mid-print was not acknowledged), and every
    complete line must be a whole id — anything else means the harness lost
    part of the stream, and its figure could not be trusted."""
    lines = output.split(b"\n")[:-1]
    for line in lines:
        assert UUID.fullmatch(line), f"not a whole event id: {line!r}: the harness lost part of the child's output"
    return [line.decode() for line in lines]


def read_all_output(child: subprocess.Popen, first: bytes) -> bytes:
    """Everything the child printed, ``first`` included. The rest is read
    through the same buffered reader ``first`` came from: ``communicate()``
    would read the pipe underneath it and skip whatever that reader had
    already buffered, so a line could be lost and a fragment taken for an id."""
    rest = child.stdout.read()
    child.wait()
    return first + rest


@pytest.mark.slow
def test_kill_9_at_random_moments_never_loses_an_acknowledged_event(tmp_path):
    baton = tmp_path / ".baton"
    feed = baton / "ledger" / f"{WRITER}.jsonl"
    rnd = random.Random(20240501)
    acknowledged: set[str] = set()
    present: set[str] = set()
    head = FeedHead()
    cut_tails: list[bytes] = []
    left_for_the_next_child: bytes | None = None
    kills = 0
    while kills < MIN_KILLS or (len(cut_tails) < WANTED_REPAIRS and kills < MAX_KILLS):
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(baton), str(kills)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        first = child.stdout.readline()  # the child has repaired the tail and is in its loop
        assert first.endswith(b"\n"), child.stderr.read().decode()
        time.sleep(rnd.uniform(0, 0.015))
        child.send_signal(signal.SIGKILL)
        output = read_all_output(child, first)
        child.stderr.close()
        child.stdout.close()
        kills += 1
        acknowledged |= set(acknowledged_ids(output))

        if left_for_the_next_child is not None:
            assert_repaired(baton, left_for_the_next_child)
            left_for_the_next_child = None
        scan = scan_file(feed, head)
        present |= {e.id for e in scan.events}
        head = scan.head
        assert acknowledged <= present, "an acknowledged event was lost"
        if scan.torn is not None:
            tail = feed.read_bytes()[scan.torn.offset:]
            cut_tails.append(tail)
            if kills % 2:
                with Ledger(baton, WRITER, fsync="never").locked():  # the parent is the next writer
                    pass
                assert feed.stat().st_size == scan.torn.offset
                assert_repaired(baton, tail)
            else:
                left_for_the_next_child = tail

    with Ledger(baton, WRITER, fsync="never").locked():
        pass
    assert_repaired(baton, left_for_the_next_child)
    assert acknowledged <= {e.id for e in Ledger(baton, "reader").read_all()}
    assert cut_tails, f"no kill landed inside a write in {kills} tries"


def assert_repaired(baton, tail: bytes | None) -> None:
    """``verify`` passes and the cut bytes wait in quarantine, untouched."""
    report = verify_ledger(baton / "ledger")
    assert report.ok, report.to_json()["problems"]
    if tail is not None:
        assert tail in [p.read_bytes() for p in (baton / "quarantine").iterdir()], "cut bytes not in quarantine"


def test_only_whole_printed_ids_count_as_acknowledged():
    a, b = "01a23444-a5fc-770c-8720-015f043da975", "01a23444-a5fc-770c-8720-015f043da976"
    assert acknowledged_ids(f"{a}\n{b}\n01a2".encode()) == [a, b]
    with pytest.raises(AssertionError, match="lost part"):
        acknowledged_ids(f"{a}\n-a5fc-770c\n".encode())


def test_the_harness_reads_every_line_a_child_printed_before_it_died():
    child = subprocess.Popen([sys.executable, "-c", "import itertools, sys\nfor i in itertools.count():\n"
                              "    sys.stdout.write(f'line {i}\\n'); sys.stdout.flush()"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = child.stdout.readline()  # the reader buffers more than this one line
    time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    output = read_all_output(child, first)
    child.stderr.close()
    child.stdout.close()
    lines = output.split(b"\n")[:-1]
    assert len(lines) > 1
    assert lines == [f"line {i}".encode() for i in range(len(lines))], "a line was skipped"
