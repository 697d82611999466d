"""A feed whose lines were converted to CRLF (an editor on Windows, git's
``core.autocrlf``, ``unix2dos``): ``verify`` names the line endings, not an
edited index; ``repair --yes`` puts them back to LF and keeps every event; a
sync refuses the feed until then, saying why, and loses nothing
(docs/ledger.md, "Line endings")."""

from __future__ import annotations

from pathlib import Path

import pytest

from baton.ledger import line_endings
from tests.cli_support import run, run_json
from tests.sync_support import checkpoint, make_team, remote_feeds, writer_of


def _feed(project: Path) -> Path:
    return project / ".baton" / "ledger" / f"{writer_of(project)}.jsonl"


def _to_crlf(feed: Path) -> bytes:
    """Convert ``feed`` to CRLF line endings; returns its bytes before."""
    before = feed.read_bytes()
    feed.write_bytes(before.replace(b"\n", b"\r\n"))
    return before


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


@pytest.fixture
def converted(capsys, team) -> tuple[Path, bytes]:
    """Clone ``a`` with two captures, its index caught up, then its feed converted to CRLF."""
    _remote, a, _b = team
    checkpoint(capsys, a, "one")
    checkpoint(capsys, a, "two")
    return a, _to_crlf(_feed(a))


def test_verify_names_a_feed_whose_lines_end_in_crlf_not_an_edited_index(capsys, converted):
    a, _before = converted
    code, out, _err = run(capsys, a, "verify")
    assert code == 3
    assert f"3 lines of feed {writer_of(a)} end in CRLF" in out
    assert "the index was edited" not in out
    assert "`baton repair --yes` puts the line endings back to LF" in out


def test_verify_json_reports_the_crlf_feed_as_line_endings(capsys, converted):
    a, _before = converted
    report = run_json(capsys, a, "verify", expect=3)
    assert [(p["feed"], p["kind"]) for p in report["problems"]] == [(writer_of(a), "line_endings")]


def test_repair_without_yes_refuses_and_leaves_the_crlf_feed_as_it_was(capsys, converted):
    a, _before = converted
    crlf = _feed(a).read_bytes()
    code, _out, err = run(capsys, a, "repair")
    assert code == 2
    assert "would put the line endings of feed" in err and "--yes does it" in err
    assert _feed(a).read_bytes() == crlf


def test_repair_dry_run_says_it_would_put_the_line_endings_back_and_changes_nothing(capsys, converted):
    a, _before = converted
    crlf = _feed(a).read_bytes()
    code, out, _err = run(capsys, a, "repair", "--dry-run")
    assert code == 0
    assert f"Would put back the line endings of feed {writer_of(a)} to LF (3 lines ended in CRLF" in out
    assert "Nothing was changed (--dry-run)." in out
    assert _feed(a).read_bytes() == crlf


def test_repair_yes_puts_the_line_endings_back_byte_for_byte(capsys, converted):
    a, before = converted
    code, out, _err = run(capsys, a, "repair", "--yes")
    assert code == 0, out
    assert "Put back the line endings" in out and "The ledger verifies." in out
    assert _feed(a).read_bytes() == before
    assert run(capsys, a, "verify")[0] == 0


def test_one_repair_puts_back_a_line_converted_twice_byte_for_byte(capsys, team):
    _remote, a, _b = team
    checkpoint(capsys, a, "one")
    checkpoint(capsys, a, "two")
    feed = _feed(a)
    before = feed.read_bytes()
    lines = before.split(b"\n")[:-1]  # a CRLF file converted again: its last line ends in CR CR LF
    feed.write_bytes(b"".join(line + b"\r\n" for line in lines[:-1]) + lines[-1] + b"\r\r\n")
    code, out, _err = run(capsys, a, "repair", "--yes")
    assert code == 0, out
    assert "The ledger verifies." in out and "Problems remain" not in out
    assert feed.read_bytes() == before


def test_repair_yes_keeps_an_event_written_after_the_conversion(capsys, converted):
    a, before = converted
    checkpoint(capsys, a, "three")  # appended in LF after the CRLF lines
    assert run(capsys, a, "repair", "--yes")[0] == 0
    after = _feed(a).read_bytes()
    assert after.startswith(before) and b"\r" not in after and len(after.splitlines()) == 4
    assert run(capsys, a, "verify")[0] == 0
    assert len(run_json(capsys, a, "handoff", "list")["handoffs"]) == 3


def test_sync_refuses_a_crlf_own_feed_naming_the_line_endings_and_the_repair(capsys, team):
    remote, a, _b = team
    checkpoint(capsys, a, "one")
    run_json(capsys, a, "sync")
    _to_crlf(_feed(a))
    checkpoint(capsys, a, "two")
    code, out, err = run(capsys, a, "sync")
    assert code == 4
    assert "lines of it end in CRLF" in out + err and "`baton repair` given --yes" in out + err
    assert remote_feeds(remote)[writer_of(a)].head.seq == 2  # the remote keeps what it had


def test_after_the_repair_a_sync_publishes_the_events_the_refusal_held_back(capsys, team):
    remote, a, b = team
    checkpoint(capsys, a, "one")
    run_json(capsys, a, "sync")
    _to_crlf(_feed(a))
    checkpoint(capsys, a, "two")
    assert run(capsys, a, "sync")[0] == 4
    assert run(capsys, a, "repair", "--yes")[0] == 0
    run_json(capsys, a, "sync")
    assert remote_feeds(remote)[writer_of(a)].head.seq == 3
    run_json(capsys, b, "sync")
    assert {h["title"] for h in run_json(capsys, b, "handoff", "list")["handoffs"]} == {"one", "two"}


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 1 << 20])
def test_crlf_lines_counts_a_crlf_split_across_two_reads_once(tmp_path, monkeypatch, chunk):
    """The count reads a feed a chunk at a time (never the whole file): a CR
    ending one read and the LF starting the next are one CRLF, a lone CR or LF none."""
    feed = tmp_path / "vm-a-000000.jsonl"
    feed.write_bytes(b'{"a":1}\r\n{"b":2}\n\r{"c":3}\r\r\n\r\n{"d":"\\r\\n"}\r\n')
    monkeypatch.setattr(line_endings, "COUNT_CHUNK_BYTES", chunk)
    assert line_endings.crlf_lines(feed) == 4


def test_crlf_lines_of_a_missing_feed_is_zero(tmp_path):
    assert line_endings.crlf_lines(tmp_path / "vm-a-000000.jsonl") == 0
