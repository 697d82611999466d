"""``baton forget`` travels through ``baton sync`` (docs/sync.md "Forgetting", docs/security.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baton.commands.context import Project
from baton.ledger.erase import erase_payloads
from tests.cli_support import run, run_json
from tests.sync_support import make_team, planned, remote_feeds
from tests.sync_support import writer_of as _writer

SECRET = "zzPLANTED-forget-sync-9c1e"


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _holding(root: Path, text: str = SECRET) -> list[str]:
    needle = text.encode()
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes())


def _snapshot(project: Path) -> dict:
    opened = Project.open(project)
    try:
        return opened.reading().snapshot()
    finally:
        opened.close()


def _remote_holds(remote: Path, text: str = SECRET) -> bool:
    from dulwich.repo import Repo

    from baton.sync.ledger_ref import feed_bytes

    with Repo(str(remote)) as repo:
        feeds = remote_feeds(remote)
        return any(text.encode() in data for f in feeds.values() for _, data in feed_bytes(repo, f))


def _push_feed_with_line_erased(remote: Path, writer: str, line: bytes) -> None:
    """Put on the remote's ledger ref a copy of ``writer``'s feed, consistent
    (segments, head.json) but for ``line``'s payload removed with no
    ``handoff.forgotten`` naming it: what a broken or hostile replica would push."""
    from dulwich.repo import Repo

    from baton.ledger.envelope import Event
    from baton.ledger.erase import erase_lines
    from baton.ledger.feed import FeedHead, scan_bytes
    from baton.sync.ledger_ref import FeedTreeWriter, feed_bytes, write_commit
    from tests.sync_support import REF

    with Repo(str(remote)) as repo:
        sha = repo.refs[REF]
        feeds = remote_feeds(remote)
        data = b"".join(d for _, d in feed_bytes(repo, feeds[writer]))
        new, count = erase_lines(data, frozenset([Event.from_dict(json.loads(line)).id]))
        assert count == 1
        tree = FeedTreeWriter(repo, writer, None)
        tree.add(new)
        feeds[writer] = tree.finish(scan_bytes(writer, new, FeedHead()).head)
        repo.refs[REF] = write_commit(repo, feeds, [sha], "erased without a forget\n", b"x <x@x>", 0)


def _shared_secret(capsys, a: Path, b: Path) -> str:
    """A handoff written on A holding SECRET, synced to B (and a second one that stays)."""
    handoff = planned(capsys, a, SECRET)
    planned(capsys, a, "a plan everyone keeps")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    assert _holding(b / ".baton")
    return handoff


def test_the_replica_that_forgot_publishes_its_erased_feed_and_sync_exits_0(capsys, team):
    remote, a, b = team
    handoff = _shared_secret(capsys, a, b)
    run_json(capsys, a, "forget", handoff, "--yes")
    out = run_json(capsys, a, "sync")
    assert out["refused"] == [] and out["pushed"] is True
    assert out["ref_erased"] == {_writer(a): 1}
    assert not _remote_holds(remote)


def test_a_replica_that_syncs_after_a_forget_erases_the_payload_everywhere_under_baton(capsys, team):
    _remote, a, b = team
    handoff = _shared_secret(capsys, a, b)
    run_json(capsys, a, "forget", handoff, "--yes")
    run_json(capsys, a, "sync")
    out = run_json(capsys, b, "sync")
    assert out["erased"] == {_writer(a): 1}
    assert out["refused"] == [] and out["projections_rebuilt"] is True
    assert _holding(b / ".baton") == []


def test_after_a_forget_travels_both_replicas_verify_and_hold_equal_projections(capsys, team):
    _remote, a, b = team
    handoff = _shared_secret(capsys, a, b)
    run_json(capsys, a, "forget", handoff, "--yes")
    for project in (a, b, a):
        run_json(capsys, project, "sync")
    for project in (a, b):
        report = run_json(capsys, project, "verify")
        assert report["ok"] is True and report["erased_by_forget"] == 1
        code, text, _ = run(capsys, project, "verify")
        assert code == 0 and "1 payload erased by forget" in text
    assert _snapshot(a) == _snapshot(b)
    assert [p.read_bytes() for p in sorted((a / ".baton" / "ledger").glob("*.jsonl"))] == \
        [p.read_bytes() for p in sorted((b / ".baton" / "ledger").glob("*.jsonl"))]


def test_the_forgotten_handoff_is_gone_from_the_other_replicas_lists(capsys, team):
    _remote, a, b = team
    handoff = _shared_secret(capsys, a, b)
    run_json(capsys, a, "forget", handoff, "--yes")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    listed = {h["id"] for h in run_json(capsys, b, "handoff", "list", "--kind", "all")["handoffs"]}
    assert handoff not in listed and listed


def test_after_the_erasure_the_next_sync_is_back_to_the_fast_path(capsys, team):
    _remote, a, b = team
    handoff = _shared_secret(capsys, a, b)
    run_json(capsys, a, "forget", handoff, "--yes")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    again = run_json(capsys, b, "sync")
    assert again["erased"] == {} and again["pushed"] is False and again["read"]["feeds"] == []


def test_events_written_after_the_forget_travel_with_the_erasure(capsys, team):
    _remote, a, b = team
    handoff = _shared_secret(capsys, a, b)
    run_json(capsys, a, "forget", handoff, "--yes")
    later = planned(capsys, a, "written after the forget")
    run_json(capsys, a, "sync")
    out = run_json(capsys, b, "sync")
    assert out["erased"] == {_writer(a): 1} and out["imported"][_writer(a)] >= 2
    listed = {h["id"] for h in run_json(capsys, b, "handoff", "list", "--kind", "all")["handoffs"]}
    assert later in listed and handoff not in listed
    assert _holding(b / ".baton") == []


def test_a_forget_on_the_replica_that_did_not_write_the_handoff_travels_back_to_its_writer(capsys, team):
    remote, a, b = team
    handoff = _shared_secret(capsys, a, b)
    run_json(capsys, b, "forget", handoff, "--yes")
    out_b = run_json(capsys, b, "sync")
    assert out_b["refused"] == [] and out_b["ref_erased"] == {_writer(a): 1}
    assert not _remote_holds(remote)
    out_a = run_json(capsys, a, "sync")
    assert out_a["refused"] == [] and out_a["erased"] == {_writer(a): 1}
    assert _holding(a / ".baton") == [] and _holding(b / ".baton") == []
    for project in (a, b):
        assert run_json(capsys, project, "verify")["erased_by_forget"] == 1
    assert _snapshot(a) == _snapshot(b)


def test_a_forget_meets_events_the_writer_appended_before_hearing_of_it(capsys, team):
    _remote, a, b = team
    handoff = _shared_secret(capsys, a, b)
    run_json(capsys, b, "forget", handoff, "--yes")
    later = planned(capsys, a, "appended meanwhile")
    run_json(capsys, a, "sync")
    out_b = run_json(capsys, b, "sync")
    assert out_b["refused"] == []
    out_a = run_json(capsys, a, "sync")
    assert out_a["refused"] == [] and out_a["erased"] == {_writer(a): 1}
    run_json(capsys, b, "sync")
    assert _holding(a / ".baton") == [] and _holding(b / ".baton") == []
    assert later in {h["id"] for h in run_json(capsys, b, "handoff", "list", "--kind", "all")["handoffs"]}
    assert _snapshot(a) == _snapshot(b)


def test_quarantined_fragments_holding_the_forgotten_text_go_on_the_other_replica(capsys, team):
    _remote, a, b = team
    handoff = _shared_secret(capsys, a, b)
    quarantine = b / ".baton" / "quarantine"
    quarantine.mkdir(exist_ok=True)
    (quarantine / "w.1.torn").write_bytes(b'{"data":{"objective":"' + SECRET.encode())
    (quarantine / "w.2.torn").write_bytes(b'{"data":{"objective":"unrelated fragment that stays"')
    run_json(capsys, a, "forget", handoff, "--yes")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    assert not (quarantine / "w.1.torn").exists() and (quarantine / "w.2.torn").is_file()


def test_an_erasure_no_forget_names_is_refused_naming_the_feed_and_seq(capsys, team):
    remote, a, b = team
    _shared_secret(capsys, a, b)
    feed = a / ".baton" / "ledger" / f"{_writer(a)}.jsonl"
    first = json.loads(feed.read_bytes().splitlines()[0])
    erase_payloads(a / ".baton" / "ledger", [first["id"]])  # no handoff.forgotten recorded
    code, out, _ = run(capsys, a, "sync", "--json")
    assert code == 4
    refused = json.loads(out)["refused"]
    assert [(r["feed"], r["side"], r["seq"]) for r in refused] == [(_writer(a), "local", first["seq"])]
    assert "handoff.forgotten" in refused[0]["message"]
    assert _remote_holds(remote)


def test_an_erasure_no_forget_names_on_the_remote_is_refused_and_nothing_is_erased(capsys, team):
    remote, a, b = team
    _shared_secret(capsys, a, b)
    line = (a / ".baton" / "ledger" / f"{_writer(a)}.jsonl").read_bytes().splitlines()[0]
    event = json.loads(line)
    _push_feed_with_line_erased(remote, _writer(a), line)
    before = (b / ".baton" / "ledger" / f"{_writer(a)}.jsonl").read_bytes()
    code, out, _ = run(capsys, b, "sync", "--json")
    assert code == 4
    refused = json.loads(out)["refused"]
    assert [(r["feed"], r["side"], r["seq"]) for r in refused] == [(_writer(a), "remote", event["seq"])]
    assert (b / ".baton" / "ledger" / f"{_writer(a)}.jsonl").read_bytes() == before
    assert json.loads(out)["erased"] == {}


def test_sync_reports_the_erasure_in_words(capsys, team):
    _remote, a, b = team
    handoff = _shared_secret(capsys, a, b)
    run_json(capsys, a, "forget", handoff, "--yes")
    code, text, _ = run(capsys, a, "sync")
    assert code == 0 and "forgotten payload" in text
    code, text, _ = run(capsys, b, "sync")
    assert code == 0 and "Erased 1 payload in 1 local feed" in text


def test_a_sync_interrupted_after_erasing_finishes_the_scrub_on_the_next_sync(capsys, team, monkeypatch):
    from baton.commands import forget
    from baton.errors import StorageError

    _remote, a, b = team
    handoff = _shared_secret(capsys, a, b)
    run_json(capsys, a, "forget", handoff, "--yes")
    run_json(capsys, a, "sync")

    def crash(project, erased):
        raise StorageError("the machine went down")

    with monkeypatch.context() as patched:
        patched.setattr(forget, "scrub_after_erasure", crash)
        code, _out, _err = run(capsys, b, "sync", "--json")
    assert code == 1
    assert SECRET.encode() not in (b / ".baton" / "ledger" / f"{_writer(a)}.jsonl").read_bytes()
    assert _holding(b / ".baton")  # the index still holds it
    out = run_json(capsys, b, "sync")
    assert out["projections_rebuilt"] is True
    assert _holding(b / ".baton") == []
