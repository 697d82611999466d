"""``baton log`` reads the ledger a chunk of each feed at a time (issue 27: a
year of use is 100,000 events; ``log --limit 5`` held them all, ~775 MB):
every ``--since``/``--until``/``--type``/``--stream``/``--limit`` shows exactly
what the whole ledger, read into a list and sliced, shows; without
``--limit`` it prints as it reads (a plain ``log`` built its whole output
first: 649 MB at 100k events), the same bytes; a feed found damaged midway
leaves the lines printed before it, and its error on one line of JSON Lines;
an id no event has is refused before any event is read.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
import tracemalloc
from collections import deque
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.cli_handlers.output import print_result
from baton.commands.log import LogStream, _matches, ledger_log, log_events
from baton.domain.redaction import RedactionPolicy
from baton.errors import NotFound
from baton.ledger import Ledger
from baton.ledger.envelope import EventDraft
from baton.ledger.memory import MemoryLedger
from baton.projections.until import Until
from tests.cli_support import run_here
from tests.conftest import run_baton

WRITERS = ("aaaaaaaaaaaaaaa1", "bbbbbbbbbbbbbbb2", "ccccccccccccccc3")
UNKNOWN_ID = "00000000-0000-7000-8000-000000000000"
PAYLOAD_ID = "11111111-1111-7111-8111-111111111111"
"""An id that stands in every event's payload, but is no event's id."""
SECRETS = ("", "ghp_" + "a1B2c3D4e5" * 4, "password=Xk9#mQ2vLp7zR4tW",
           "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----")
"""Payload texts the screen replaces (none for the first)."""


def _as_listed(events, *, event_type=None, stream=None, since=None, until=None, limit=None):
    """The log as it was specified: every event in a list, sliced by position."""
    def position(bound: Until) -> int:
        if bound.event_id is not None:
            for i, e in enumerate(events):
                if e.id == bound.event_id:
                    return i + 1
            raise NotFound(bound.event_id)
        return sum(1 for e in events if e.hlc <= bound.hlc)

    start, stop = 0, len(events)
    if until is not None:
        stop = position(Until.parse(until))
    if since is not None:
        start = position(Until.parse(since))
    chosen = [e for e in events[start:stop] if _matches(event_type, e.type) and _matches(stream, e.stream)]
    return chosen[-limit:] if limit is not None else chosen


def _ledger(folder: Path, plan: list[tuple[int, int]], *, text: str = "") -> Ledger:
    """Events appended by several writers in the order ``plan`` gives ((writer, kind) each)."""
    ledgers = {w: Ledger(folder, w, fsync="never") for w in WRITERS}
    for n, (writer, kind) in enumerate(plan):
        with ledgers[WRITERS[writer]].locked() as txn:
            txn.append([EventDraft(("note.added", "note.edited", "task.done")[kind], f"note/{n % 4}",
                                   {"n": n, "text": text, "ref": PAYLOAD_ID})])
    for ledger in ledgers.values():
        ledger.close()
    return Ledger(folder, "reader0000000000", fsync="never")


def _bound(events, choice: int, which: str):
    """None, an event's id, an event's time, an id no event has, or one that stands only in payloads."""
    if choice == 0 or not events:
        return None
    event = events[choice % len(events)]
    return {1: event.id, 2: event.at, 3: UNKNOWN_ID, 4: PAYLOAD_ID}[1 + choice % 4] if which else None


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=0, max_size=30),
       since=st.integers(0, 40), until=st.integers(0, 40), limit=st.sampled_from([None, 1, 3, 50]),
       event_type=st.sampled_from([None, "note.*", "task.done", "nothing"]),
       stream=st.sampled_from([None, "note/1", "note/*"]))
def test_log_shows_what_the_whole_ledger_sliced_shows(tmp_path_factory, plan, since, until, limit, event_type, stream):
    ledger = _ledger(tmp_path_factory.mktemp("log"), plan)
    try:
        events = ledger.read_all()
        since_at = _bound(events, since, "since")
        until_at = _bound(events, until, "until")
        options = dict(event_type=event_type, stream=stream, since=since_at, until=until_at, limit=limit)
        try:
            expected = [e.id for e in _as_listed(events, **options)]
        except NotFound:
            with pytest.raises(NotFound):
                ledger_log(SimpleNamespace(ledger=ledger), **options)
            return
        assert [e.id for e in ledger_log(SimpleNamespace(ledger=ledger), **options).events] == expected
    finally:
        ledger.close()


def test_iter_all_gives_read_alls_events_in_its_order(tmp_path):
    ledger = _ledger(tmp_path, [(i % 3, i % 2) for i in range(40)])
    try:
        assert [e.id for e in ledger.iter_all()] == [e.id for e in ledger.read_all()]
    finally:
        ledger.close()


AT_SCALE = pytest.mark.slow(reason="a 32 MB ledger written, then read whole and streamed under tracemalloc")
"""Run by the README's slow command (CI runs it): the memory bounds at a year's scale. The main
suite keeps what the streamed output is (the Hypothesis tests above and below, on small ledgers)."""


@pytest.fixture(scope="module")
def wide(tmp_path_factory) -> Path:
    """The folder of a ledger of 8000 events of ~4 KB: 32 MB in two feeds, many chunks of each
    (built once: the tests only read it, each through a ledger of its own)."""
    folder = tmp_path_factory.mktemp("wide")
    _ledger(folder, [(i % 2, 0) for i in range(8000)], text="x" * 4000).close()
    return folder


def _reader(folder: Path) -> Ledger:
    return Ledger(folder, "reader0000000000", fsync="never")


@AT_SCALE
def test_log_with_a_limit_holds_that_many_events_not_the_ledger(wide):
    ledger = _reader(wide)
    try:
        tracemalloc.start()
        ledger_log(SimpleNamespace(ledger=ledger), limit=5)
        _, limited = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        held = deque(ledger.read_all(), maxlen=5)
        _, listed = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert len(held) == 5
        assert limited * 3 < listed  # a chunk per feed, against every event at once
    finally:
        ledger.close()


def _printed(result, *, json_output: bool) -> str:
    """What the command line prints of ``result`` (``print_result``)."""
    out = io.StringIO()
    args = argparse.Namespace(json=json_output, output_policy=RedactionPolicy())
    with contextlib.redirect_stdout(out):
        print_result(args, result)
    return out.getvalue()


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=40)
@given(plan=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=0, max_size=20),
       since=st.integers(0, 40), until=st.integers(0, 40), event_type=st.sampled_from([None, "note.*"]),
       limit=st.sampled_from([None, 1, 3]), secret=st.sampled_from(SECRETS), json_output=st.booleans())
def test_log_printed_as_it_reads_prints_the_bytes_the_whole_output_printed(tmp_path_factory, plan, since, until,
                                                                           event_type, limit, secret, json_output):
    ledger = _ledger(tmp_path_factory.mktemp("printed"), plan, text=secret)
    project = SimpleNamespace(ledger=ledger)
    try:
        events = ledger.read_all()
        options = dict(event_type=event_type, since=_bound(events, since, "since"),
                       until=_bound(events, until, "until"), limit=limit)
        try:
            whole = _printed(ledger_log(project, **options), json_output=json_output)  # the output built, then printed
        except NotFound:
            with pytest.raises(NotFound):
                log_events(project, **options)  # refused before anything is printed
            return
        assert _printed(LogStream(log_events(project, **options)), json_output=json_output) == whole
    finally:
        ledger.close()


class _Sink(io.TextIOBase):
    """Standard output that counts what is written and keeps none of it."""

    def __init__(self) -> None:
        self.chars = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.chars += len(text)
        return len(text)


@AT_SCALE
@pytest.mark.parametrize("json_output", [False, True], ids=["text", "json"])
def test_log_printed_as_it_reads_holds_a_chunk_of_each_feed_not_the_ledger(wide, json_output):
    ledger = _reader(wide)  # 32 MB in two feeds
    try:
        sink = _Sink()
        tracemalloc.start()
        with contextlib.redirect_stdout(sink):
            print_result(argparse.Namespace(json=json_output, output_policy=RedactionPolicy()),
                         LogStream(log_events(SimpleNamespace(ledger=ledger))))
        _, streamed = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        held = ledger.read_all()
        _, listed = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert sink.chars > (32_000_000 if json_output else 8000 * 100)  # every event was printed
        assert streamed * 3 < listed and held
    finally:
        ledger.close()


class _NoReading:
    """A ledger that answers ``holds_event`` and fails the test if its events are read."""

    def __init__(self, ledger: Ledger) -> None:
        self.holds_event = ledger.holds_event

    def iter_all(self):
        raise AssertionError("the events were read")


@pytest.mark.parametrize("option", ["since", "until"])
@pytest.mark.parametrize("unknown", [UNKNOWN_ID, PAYLOAD_ID], ids=["nowhere", "in-payloads-only"])
def test_an_id_no_event_has_is_refused_before_any_event_is_read(tmp_path, option, unknown):
    ledger = _ledger(tmp_path, [(i % 3, 0) for i in range(30)])
    try:
        with pytest.raises(NotFound, match=unknown):
            log_events(SimpleNamespace(ledger=_NoReading(ledger)), **{option: unknown})
    finally:
        ledger.close()


def test_holds_event_finds_every_events_id_and_not_an_id_in_a_torn_tail(tmp_path):
    ledger = _ledger(tmp_path, [(i % 3, i % 2) for i in range(12)])
    try:
        events = ledger.read_all()
        assert all(ledger.holds_event(e.id) for e in events)
        assert not ledger.holds_event(UNKNOWN_ID) and not ledger.holds_event(PAYLOAD_ID)
        feed = tmp_path / "ledger" / f"{WRITERS[0]}.jsonl"
        lines = feed.read_bytes().splitlines(keepends=True)
        torn = json.loads(lines[-1])["id"]
        feed.write_bytes(b"".join(lines[:-1]) + lines[-1][:-1])  # the last line lost its newline: a torn tail
        assert torn not in [e.id for e in ledger.read_all()]
        assert not ledger.holds_event(torn)
    finally:
        ledger.close()


def test_a_memory_ledger_holds_the_events_it_was_given(tmp_path):
    ledger = MemoryLedger(WRITERS[0])
    with ledger.locked() as txn:
        txn.append([EventDraft("note.added", "note/1", {"ref": PAYLOAD_ID})])
    (event,) = ledger.read_all()
    assert ledger.holds_event(event.id) and not ledger.holds_event(PAYLOAD_ID)


# -- the command line: a large project, printed as read -----------------------------------

BIG = 1000
DAMAGED = 800
"""The line damaged: past the first chunk (1 MiB) of its feed, so lines were printed before it."""


def _big_project(root: Path) -> Path:
    """A project whose other writer appended ``BIG`` events of ~1.6 KB (1.6 MB), folded by a first ``log``."""
    assert run_here("init", "--project", str(root), cwd=root)[0] == 0
    other = Ledger(root / ".baton", WRITERS[0], fsync="never")
    for n in range(BIG):
        with other.locked() as txn:
            txn.append([EventDraft("note.added", f"note/{n % 4}", {"n": n, "text": "x" * 1500})])
    other.close()
    assert run_here("log", "--limit", "1", "--project", str(root), cwd=root)[0] == 0
    return root


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    return _big_project(tmp_path_factory.mktemp("big"))


@pytest.fixture(scope="module")
def damaged(tmp_path_factory) -> tuple[Path, dict[bool, list[str]]]:
    """A big project, its whole log (text and JSON Lines), then a payload changed behind its digest at ``DAMAGED``."""
    root = _big_project(tmp_path_factory.mktemp("damaged"))
    whole = {flag: run_here("log", "--limit", "0", *(["--json"] if flag else []), "--project", str(root), cwd=root)[1].splitlines()
             for flag in (False, True)}
    feed = root / ".baton" / "ledger" / f"{WRITERS[0]}.jsonl"
    lines = feed.read_bytes().splitlines(keepends=True)
    (at,) = [i for i, line in enumerate(lines) if f'"n":{DAMAGED},'.encode() in line]
    assert sum(len(line) for line in lines[:at]) > 1 << 20
    lines[at] = lines[at].replace(f'"n":{DAMAGED},'.encode(), b'"n":7,')
    feed.write_bytes(b"".join(lines))
    return root, whole


def test_a_feed_damaged_midway_leaves_the_text_printed_before_it_and_exits_3(damaged):
    root, whole = damaged
    r = run_baton("log", "--limit", "0", "--project", str(root))
    printed = r.stdout.splitlines()
    assert r.returncode == 3  # as when the damage is found before anything is printed
    assert 0 < len(printed) < len(whole[False]) and printed == whole[False][:len(printed)]
    assert r.stderr.startswith("baton: ") and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_a_feed_damaged_midway_ends_the_json_lines_with_the_error_on_one_line(damaged):
    root, whole = damaged
    r = run_baton("log", "--limit", "0", "--json", "--project", str(root))
    *events, last = r.stdout.splitlines()
    assert r.returncode == 3
    assert 0 < len(events) < len(whole[True]) and events == whole[True][:len(events)]
    assert all("error" not in json.loads(line) for line in events)
    error = json.loads(last)["error"]
    assert error["code"] == "ledger_corrupt" and error["exit_code"] == 3
    assert r.stderr.startswith("baton: ") and "Traceback" not in r.stderr


@pytest.mark.parametrize(("flags", "code", "exit_code"), [
    (["--until", UNKNOWN_ID], "not_found", 4), (["--limit", "-1"], "input_error", 2),
    (["--limit", "x"], "input_error", 2)], ids=["unknown-id", "limit-negative", "usage"])
def test_every_log_json_error_is_one_line_of_json_lines(big, flags, code, exit_code):
    r = run_baton("log", "--json", *flags, "--project", str(big))
    assert r.returncode == exit_code and len(r.stdout.splitlines()) == 1
    assert json.loads(r.stdout)["error"]["code"] == code


def test_an_unknown_until_id_says_the_option_takes_an_events_id_or_a_time(big):
    r = run_baton("log", "--until", PAYLOAD_ID, "--project", str(big))  # as a handoff's id: no event's
    assert r.returncode == 4 and r.stdout == ""
    assert f"no event with id {PAYLOAD_ID}; --until takes an event's id" in r.stderr
    assert "or an RFC 3339 time" in r.stderr


@pytest.mark.parametrize("flags", [[], ["--json"]], ids=["text", "json"])
def test_log_into_a_pipe_closed_after_one_line_exits_quietly(big, flags):
    command = " ".join([sys.executable, "-m", "baton", "log", "--limit", "0", *flags, "--project", str(big)])
    r = subprocess.run(["bash", "-c", f"set -o pipefail; {command} | head -1"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stderr == ""
    assert len(r.stdout.splitlines()) == 1


def test_a_log_json_argument_refused_before_parsing_is_one_line_too(big):
    r = subprocess.run([sys.executable, "-m", "baton", "log", "--json", "--type", b"\xff", "--project", str(big)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and len(r.stdout.splitlines()) == 1
    assert json.loads(r.stdout)["error"]["code"] == "input_error"


def test_the_commands_printing_json_lines_are_the_ones_whose_parser_says_so():
    from baton.cli import JSON_LINES_COMMANDS, build_parser

    parser = build_parser()
    (commands,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    assert {name for name, sub in commands.choices.items() if sub.get_default("json_lines")} == JSON_LINES_COMMANDS


@pytest.mark.parametrize("option", ["--until", "--since"])
def test_a_date_alone_is_refused_with_the_time_it_would_need(project, option):
    r = run_baton("log", option, "2026-12-05", cwd=project)
    assert r.returncode == 2 and "not a date alone" in r.stderr and "2026-12-05T00:00:00Z" in r.stderr


def test_a_date_that_is_no_date_is_refused_without_a_time_to_try(project):
    r = run_baton("log", "--until", "2026-13-05", cwd=project)
    assert r.returncode == 2 and "not '2026-13-05'" in r.stderr and "T00:00:00Z" not in r.stderr
