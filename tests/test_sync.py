"""``baton sync``: two clones and a bare remote on local disk (docs/sync.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baton.app import Baton
from baton.commands.context import Project
from baton.domain.short_ids import short_id
from baton.projections.runner import snapshot_equal
from tests.cli_support import ledger_size, run, run_json
from tests.sync_support import REF, make_team, refs_of, remote_feeds, set_remote, take_writer_id, tamper_remote_line
from tests.sync_support import writer_of as _writer


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _snapshot(project: Path) -> dict:
    opened = Project.open(project)
    try:
        return opened.reading().snapshot()
    finally:
        opened.close()


def _feed_bytes(project: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((project / ".baton" / "ledger").glob("*.jsonl"))}


def _leave_baton(capsys, project: Path, session: str, step: str, owner: str, *extra: str) -> None:
    run_json(capsys, project, "session", "end", session, "--handoff-steps", step, "--owner", owner,
             "--branch", "main", *extra)


def _checkpoint(capsys, project: Path, title: str) -> str:
    return run_json(capsys, project, "checkpoint", "create", "--title", title, "--objective", f"{title} objective",
                    "--no-input")["id"]


def test_two_clones_see_each_others_handoffs_and_batons_after_both_sync_twice(capsys, team):
    _remote, a, b = team
    a_handoff = _checkpoint(capsys, a, "Alice's checkpoint")
    b_handoff = _checkpoint(capsys, b, "Bob's checkpoint")
    _leave_baton(capsys, a, "sa", "alice's next step", "alice@example.com")
    _leave_baton(capsys, b, "sb", "bob's next step", "bob@example.com")
    for _ in range(2):
        run_json(capsys, a, "sync")
        run_json(capsys, b, "sync")
    for project in (a, b):
        listed = {r["id"] for r in run_json(capsys, project, "handoff", "list")["handoffs"]}
        assert {a_handoff, b_handoff} <= listed
        pending = run_json(capsys, project, "session", "handoff", "--all")["items"]
        assert {p["nextSteps"][0] for p in pending} == {"alice's next step", "bob's next step"}
        assert run(capsys, project, "verify")[0] == 0
    assert snapshot_equal(_snapshot(a), _snapshot(b))
    assert _feed_bytes(a) == _feed_bytes(b)


def test_sync_moves_only_the_ledger_ref_never_a_branch_the_index_or_the_working_tree(capsys, team):
    remote, a, _b = team
    _checkpoint(capsys, a, "A checkpoint")
    before_local, before_remote = refs_of(a), refs_of(remote)
    index_before = (a / ".git" / "index").read_bytes()
    files_before = sorted(p.name for p in a.iterdir())
    run_json(capsys, a, "sync")
    after_local, after_remote = refs_of(a), refs_of(remote)
    assert REF in after_local and REF in after_remote
    assert {k: v for k, v in after_local.items() if k != REF} == before_local
    assert {k: v for k, v in after_remote.items() if k != REF} == before_remote
    assert (a / ".git" / "index").read_bytes() == index_before
    assert sorted(p.name for p in a.iterdir()) == files_before


def test_a_second_sync_with_nothing_new_reads_no_feed_and_pushes_nothing(capsys, team):
    _remote, a, b = team
    _checkpoint(capsys, a, "A checkpoint")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    again = run_json(capsys, a, "sync")
    assert again["read"] == {"feeds": [], "feed_bytes": 0, "segments": 0}
    assert (again["imported"], again["published"], again["pushed"]) == ({}, {}, False)


def test_a_sync_reads_only_what_a_feed_gained_since_the_last_one(capsys, team):
    _remote, a, _b = team
    _checkpoint(capsys, a, "first")
    run_json(capsys, a, "sync")
    size = (a / ".baton" / "ledger" / f"{_writer(a)}.jsonl").stat().st_size
    _checkpoint(capsys, a, "second")
    grown = (a / ".baton" / "ledger" / f"{_writer(a)}.jsonl").stat().st_size
    result = run_json(capsys, a, "sync")
    assert result["published"] == {_writer(a): 1}
    # at most a 4 KiB window before the last synced head (to prove the feed
    # still extends it), then only the new bytes
    assert result["read"]["feed_bytes"] <= (grown - size) + 4096
    assert result["read"]["feed_bytes"] < grown or size <= 4096


def _claimed_apart(capsys, team):
    """A shared baton left in one replica, synced to both, claimed in each before
    they sync again; then synced a, b, a. The two replicas, after."""
    _remote, a, b = team
    _leave_baton(capsys, a, "s-left", "shared step", "alice@example.com", "--shared")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "session", "begin", "--session-id", "claim-a", "--owner", "alice@example.com",
             "--branch", "main")
    run_json(capsys, b, "session", "begin", "--session-id", "claim-b", "--owner", "bob@example.com",
             "--branch", "feature")
    for project in (a, b, a):
        run_json(capsys, project, "sync")
    return a, b


def test_two_replicas_claiming_one_shared_baton_apart_converge_on_the_earliest_claim(capsys, team):
    a, b = _claimed_apart(capsys, team)
    claims = [json.loads(line) for line in run(capsys, a, "log", "--type", "baton.claimed", "--json")[1].splitlines()]
    assert len(claims) == 2
    first, second = sorted(claims, key=lambda e: (e["hlc"], e["writer"]))
    for project in (a, b):
        listed = run_json(capsys, project, "session", "handoff", "--all")
        assert listed["items"] == []
        [conflict] = listed["conflicts"]
        assert conflict["sessionId"] == second["data"]["session"]
        assert conflict["writer"] == second["writer"]
        assert conflict["winner"]["claimedBySession"] == first["data"]["session"]
        code, out, _ = run(capsys, project, "verify", "--json")
        report = json.loads(out)
        assert code == 0 and report["ok"]
        assert [c["sessionId"] for c in report["claim_conflicts"]] == [second["data"]["session"]]
        assert any(c["kind"] == "concurrent" and c["feed"] == second["writer"] for c in report["concurrent"])
        overview = run_json(capsys, project, "status")
        assert [c["eventId"] for c in overview["claimConflicts"]] == [second["id"]]
    assert snapshot_equal(_snapshot(a), _snapshot(b))


def test_the_loser_of_a_double_claim_is_told_once_at_its_next_start_and_the_winner_never(capsys, team):
    a, b = _claimed_apart(capsys, team)
    [conflict] = run_json(capsys, a, "session", "handoff", "--all")["conflicts"]
    loser, winner = (a, b) if conflict["writer"] == _writer(a) else (b, a)
    lost, won = conflict["sessionId"], conflict["winner"]["claimedBySession"]
    assert {lost, won} == {"claim-a", "claim-b"}

    def told(project: Path, *extra: str) -> list[str]:
        result = run_json(capsys, project, "bootstrap", *extra)
        return [n for n in result["notices"] if "Claim conflict" in n]

    assert told(winner) == []
    assert told(loser, "--peek") != []  # what a start would be told; peeking tells nobody
    code, out, _ = run(capsys, loser, "bootstrap")  # the brief itself shows it
    [notice] = [line for line in out.splitlines() if "Claim conflict" in line]
    assert code == 0
    assert conflict["handoffId"] in notice and f"session {lost}" in notice and f"session {won}" in notice
    assert told(loser) == [] and told(winner) == []
    run_json(capsys, loser, "sync")
    assert told(loser) == []


def test_the_notice_of_a_lost_claim_names_a_command_that_shows_the_claimed_baton(capsys, team):
    # tester-team24 T5: `session handoff --all` lists pending batons only, never this claimed one.
    a, _b = _claimed_apart(capsys, team)
    [conflict] = run_json(capsys, a, "session", "handoff", "--all")["conflicts"]
    loser = a if conflict["writer"] == _writer(a) else _b
    [notice] = [n for n in run_json(capsys, loser, "bootstrap", "--peek")["notices"] if "Claim conflict" in n]
    assert notice.endswith(f"`baton resume {conflict['handoffId']}` reads it.")
    code, shown, err = run(capsys, loser, "resume", conflict["handoffId"])
    assert code == 0, err
    assert "shared step" in shown


def test_a_claim_of_a_baton_another_clone_superseded_first_names_the_newer_baton_not_a_claim(capsys, team):
    _remote, a, b = team
    _leave_baton(capsys, a, "s-old", "old step", "alice@example.com", "--shared")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    _leave_baton(capsys, a, "s-new", "new step", "alice@example.com", "--shared")  # supersedes it, on a
    begun = run_json(capsys, b, "session", "begin", "--session-id", "claim-b", "--owner", "bob@example.com",
                     "--branch", "main")  # b, apart, claims the old one after that
    old = begun["handoff"]["id"]
    for project in (b, a, b):
        run_json(capsys, project, "sync")
    [newer] = [r["id"] for r in run_json(capsys, a, "session", "handoff", "--all")["items"]]
    for project in (a, b):
        [conflict] = run_json(capsys, project, "session", "handoff", "--all")["conflicts"]
        assert (conflict["handoffId"], conflict["sessionId"]) == (old, "claim-b")
        assert (conflict["winner"]["status"], conflict["winner"]["supersededBy"]) == ("superseded", newer)
        [line] = [x for x in run(capsys, project, "session", "handoff", "--all")[1].splitlines() if "CONFLICT" in x]
        assert f"superseded by baton {newer} first" in line and "None" not in line and "claimed it first" not in line
    [notice] = [n for n in run_json(capsys, b, "bootstrap", "--peek")["notices"] if "Claim conflict" in n]
    assert f"superseded by baton {newer} first" in notice and f"baton {newer} is the current one" in notice
    assert "None" not in notice and "two sessions worked" not in notice


def test_two_clones_that_each_ran_init_before_the_config_was_committed_verify_before_and_after_the_fix(
        capsys, tmp_path):
    """docs/sync.md "Setting up a team": two project ids are not a failure, nor after the documented fix."""
    import shutil

    from tests.app_support import init_project

    _remote, a, b = make_team(tmp_path)
    committed = (b / ".baton" / "config.json").read_bytes()
    shutil.rmtree(b / ".baton")
    init_project(b, project_id="proj-b")  # b ran init before it pulled a's config
    run_json(capsys, a, "sync")
    # before the fix, b's sync finds another project's ledger: refused unless merged on purpose
    a_id = run_json(capsys, b, "sync", expect=4)["error"]["details"]["remote_project_ids"][0]
    run_json(capsys, b, "sync", "--accept-project", a_id)
    run_json(capsys, a, "sync")
    for project in (a, b):
        code, out, _ = run(capsys, project, "verify", "--json")
        report = json.loads(out)
        assert (code, report["project"]["problem"]) == (0, None), out
        assert len(report["project"]["ledger_ids"]) == 2
    (b / ".baton" / "config.json").write_bytes(committed)  # the fix: b takes the committed config
    run_json(capsys, b, "sync")
    for project in (a, b):
        assert run(capsys, project, "verify")[0] == 0
        assert run(capsys, project, "doctor")[0] == 0
    raw = json.loads(committed)
    raw["project_id"] = "proj-c"  # an id no init of this ledger recorded: still a failure
    (b / ".baton" / "config.json").write_text(json.dumps(raw))
    code, out, _ = run(capsys, b, "verify")
    assert code == 3 and "FAIL project id:" in out


def _ready(capsys, project: Path, ident: str) -> None:
    run_json(capsys, project, "handoff", "validate", ident)
    run_json(capsys, project, "handoff", "ready", ident)


def test_resuming_a_handoff_two_clones_each_amended_apart_names_both_successors(capsys, team):
    _remote, a, b = team
    item = json.dumps({"description": "Write the test", "suggested_action": "Add a fixture",
                       "acceptance_check": "The test passes"})
    root = run_json(capsys, a, "checkpoint", "create", "--no-input", "--title", "Login", "--objective",
                    "Login works", "--current-state", "half done", "--decision", "Use PKCE",
                    "--open-item", item)["id"]
    _ready(capsys, a, root)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    amended = {}
    for project, decision in ((a, "Use PKCE with S256"), (b, "Use PKCE, plain too")):
        amended[project] = run_json(capsys, project, "handoff", "amend", root, "--decision", decision)["id"]
        _ready(capsys, project, amended[project])
    for project in (a, b, a):
        run_json(capsys, project, "sync")
    for project in (a, b):
        code, _out, err = run(capsys, project, "resume", root)
        assert code == 4
        assert amended[a] in err and amended[b] in err and "`baton merge` joins them" in err


def test_resume_latest_of_one_of_two_revisions_amended_apart_names_the_other_whatever_the_decisions(capsys, team):
    """Two clones each add an open item to one ready handoff (no decision contradicts):
    `resume latest` gave one version and said nothing of the other (tester team14 F8)."""
    _remote, a, b = team
    item = {"suggested_action": "Add a fixture", "acceptance_check": "The test passes"}
    root = run_json(capsys, a, "checkpoint", "create", "--no-input", "--title", "Shared task", "--objective",
                    "Do it", "--open-item", json.dumps({"description": "first", **item}))["id"]
    _ready(capsys, a, root)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    amended = {}
    for project, who in ((a, "alice item"), (b, "bob item")):
        amended[project] = run_json(capsys, project, "handoff", "amend", root, "--open-item",
                                    json.dumps({"description": who, **item}))["id"]
        _ready(capsys, project, amended[project])
    for project in (a, b, a):
        run_json(capsys, project, "sync")

    resumed = run_json(capsys, a, "resume", "latest", "--json")

    other = amended[b] if resumed["id"] == amended[a] else amended[a]
    assert resumed["siblings"] == [{"parent": root, "others": [other]}]
    text = resumed["brief"]["text"]
    assert "OTHER REVISIONS:" in text and text.index("OTHER REVISIONS:") < text.index("RESUME BRIEF")
    assert f"baton handoff show {short_id(other)}" in resumed["brief"]["text"]


def test_resume_of_a_revision_with_no_sibling_has_no_other_revisions_banner(capsys, team):
    _remote, a, _b = team
    root = run_json(capsys, a, "checkpoint", "create", "--no-input", "--title", "Alone", "--objective", "Do it",
                    "--open-item", json.dumps({"description": "d", "suggested_action": "s",
                                               "acceptance_check": "c"}))["id"]
    _ready(capsys, a, root)
    child = run_json(capsys, a, "handoff", "amend", root, "--current-state", "further")["id"]
    _ready(capsys, a, child)

    resumed = run_json(capsys, a, "resume", "latest", "--json")

    assert resumed["id"] == child and resumed["siblings"] == []
    assert "OTHER REVISIONS" not in resumed["brief"]["text"]


def test_a_first_sync_of_a_large_local_ledger_shows_its_publishing_progress_at_a_terminal(capsys, team,
                                                                                          monkeypatch):
    """Packing a large feed onto the ref reads and verifies all of it (~17 s at 90 MB): silent before."""
    import sys

    from baton.ledger.store import Ledger
    from benchmarks.ledger import drafts
    from tests.test_cli_shows_a_long_catch_up import _Terminal

    _remote, a, b = team
    ledger = Ledger(a / ".baton", _writer(a), fsync="never")
    with ledger.locked() as txn:  # ~2.4 MB of ~1 KB events: more than one chunk of the feed
        txn.append([d._replace(stream=f"bench/{d.stream.rsplit('/', 1)[-1]}") for d in drafts(2200)])
    ledger.close()
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code, out, _ = run(capsys, a, "sync")
    shown = [line for line in terminal.getvalue().replace("\r", "\n").splitlines()
             if line.startswith("baton: publishing this clone's feeds:")]
    total = len(_feed_bytes(a)[f"{_writer(a)}.jsonl"].splitlines())
    assert code == 0 and f"Published {total} events" in out
    assert len(shown) >= 2 and shown[-1].strip() == f"baton: publishing this clone's feeds: {total}/{total} events"
    terminal.seek(0)
    terminal.truncate()
    _checkpoint(capsys, b, "small")
    assert run(capsys, b, "sync")[0] == 0
    assert "publishing this clone's feeds" not in terminal.getvalue()  # one step: nothing to show


def _sync_whose_push_fails(capsys, project, monkeypatch) -> None:
    """A ``baton sync`` whose push the remote refuses (exit 4): the clone's ref holds what it committed."""
    from baton.errors import RemoteUnreachable
    from baton.sync import transport

    def refused(*args, **kwargs):
        raise RemoteUnreachable("push refused (test)")

    with monkeypatch.context() as patched:
        patched.setattr(transport, "push", refused)
        assert run(capsys, project, "sync", "--json")[0] == 4


def test_a_commit_whose_push_failed_is_not_counted_as_held_by_the_remote(capsys, team, monkeypatch):
    remote, a, b = team
    _checkpoint(capsys, b, "from B")
    run_json(capsys, b, "sync")
    _checkpoint(capsys, a, "from A")
    _sync_whose_push_fails(capsys, a, monkeypatch)  # a's ref now holds its feed; the remote never did
    result = run_json(capsys, a, "sync")
    assert result["behind"] == {} and result["pushed"] is True
    assert _writer(a) in remote_feeds(remote)
    assert result["received"] == {_writer(a): remote_feeds(remote)[_writer(a)].head.seq}  # the push the last failed


def test_events_a_failed_push_left_unpublished_are_counted_as_received_by_the_sync_that_pushes_them(capsys, team,
                                                                                                     monkeypatch):
    """``published`` counts what the local ref gained (the failed sync's commit gained them); what the
    retried push gave the remote is ``received`` (tester-team23 T2)."""
    remote, a, _b = team
    _checkpoint(capsys, a, "first")
    run_json(capsys, a, "sync")
    _checkpoint(capsys, a, "second")
    _checkpoint(capsys, a, "third")
    _sync_whose_push_fails(capsys, a, monkeypatch)
    code, text, _ = run(capsys, a, "sync")
    assert code == 0 and "Published" not in text
    assert "Pushed refs/baton/ledger to origin: it received 2 events of 1 feed." in text
    assert run_json(capsys, a, "sync")["received"] == {}  # nothing more the next time


def test_a_tampered_remote_feed_is_refused_named_not_imported_and_not_carried_on(capsys, team):
    remote, a, b = team
    _checkpoint(capsys, a, "Original title")
    run_json(capsys, a, "sync")
    writer = _writer(a)
    tamper_remote_line(remote, writer, 2, b"Original title", b"Tampered title")
    before = _feed_bytes(b)
    code, out, err = run(capsys, b, "sync", "--json")
    result = json.loads(out)
    assert code == 3
    [refused] = result["refused"]
    assert (refused["feed"], refused["seq"], refused["side"]) == (writer, 2, "remote")
    assert refused["kind"] in ("bad_digest", "bad_hash")
    assert f"{writer}.jsonl" not in _feed_bytes(b)
    assert {k: v for k, v in _feed_bytes(b).items() if k in before} == before
    titles = [r["title"] for r in run_json(capsys, b, "handoff", "list")["handoffs"]]
    assert "Tampered title" not in titles and "Original title" not in titles
    # the tampered copy is not carried on: b's push leaves it out, a's next sync publishes the feed again
    assert result["dropped"] == [writer] and writer not in remote_feeds(remote)
    assert run_json(capsys, a, "sync", expect=3)["behind"] == {writer: {"remote_seq": 0, "published_seq": 2}}
    run_json(capsys, b, "sync")
    titles = [r["title"] for r in run_json(capsys, b, "handoff", "list")["handoffs"]]
    assert "Original title" in titles and "Tampered title" not in titles


def test_one_writer_id_on_two_machines_is_refused_as_own_feed_and_no_local_file_changes(capsys, team):
    remote, a, b = team
    take_writer_id(a, b)  # one id, two machines
    for f in (b / ".baton" / "ledger").glob("*.jsonl"):
        f.unlink()
    (b / ".baton" / "index.sqlite").unlink()
    _checkpoint(capsys, a, "from A")
    run_json(capsys, a, "sync")
    _checkpoint(capsys, b, "from B")
    before = _feed_bytes(b)
    code, out, _ = run(capsys, b, "sync", "--json")
    result = json.loads(out)
    assert code == 3
    [refused] = result["refused"]
    assert (refused["feed"], refused["side"], refused["kind"]) == (_writer(a), "remote", "own_feed")
    assert _feed_bytes(b) == before  # nothing of A's copy is taken into B's own feed
    a_feed = (a / ".baton" / "ledger" / f"{_writer(a)}.jsonl").read_bytes()
    code, out, _ = run(capsys, a, "sync", "--json")  # and A refuses B's copy the same way
    assert code == 3 and [r["kind"] for r in json.loads(out)["refused"]] == ["own_feed"]
    assert (a / ".baton" / "ledger" / f"{_writer(a)}.jsonl").read_bytes() == a_feed
    assert remote_feeds(remote)[_writer(a)].head.offset == len(a_feed)


def test_sync_without_a_remote_exits_4_and_changes_nothing(capsys, team):
    _remote, a, _b = team
    (a / ".git" / "config").write_text("[core]\n\trepositoryformatversion = 0\n\tbare = false\n")
    _checkpoint(capsys, a, "A checkpoint")
    feeds, refs = _feed_bytes(a), refs_of(a)
    code, out, err = run(capsys, a, "sync", "--json")
    assert code == 4
    assert json.loads(out)["error"]["code"] == "no_sync_remote"
    assert "origin" in err and "Traceback" not in err
    assert (_feed_bytes(a), refs_of(a)) == (feeds, refs)


def test_sync_with_an_unreachable_remote_exits_4_and_changes_nothing(capsys, team, tmp_path):
    _remote, a, _b = team
    set_remote(a, str(tmp_path / "gone.git"))
    _checkpoint(capsys, a, "A checkpoint")
    feeds, refs, lines = _feed_bytes(a), refs_of(a), ledger_size(a)
    code, out, err = run(capsys, a, "sync", "--json")
    assert code == 4
    assert json.loads(out)["error"]["code"] == "remote_unreachable"
    assert "Traceback" not in err
    assert (_feed_bytes(a), refs_of(a), ledger_size(a)) == (feeds, refs, lines)
    assert not (a / ".baton" / "sync-state.json").exists()


def test_sync_outside_a_git_repository_exits_4(capsys, project):
    code, out, _ = run(capsys, project, "sync", "--json")
    assert code == 4
    assert json.loads(out)["error"]["code"] == "no_sync_remote"


@pytest.mark.parametrize("empty", ["", "  "])
def test_sync_with_an_empty_remote_name_exits_2_and_changes_nothing(capsys, team, empty):
    _remote, a, _b = team
    feeds, refs = _feed_bytes(a), refs_of(a)
    code, _out, err = run(capsys, a, "sync", "--remote", empty)
    assert code == 2 and "remote must name a git remote" in err and "remote add  " not in err
    assert (_feed_bytes(a), refs_of(a)) == (feeds, refs)


def test_another_remote_and_ref_can_be_named(capsys, team):
    remote, a, _b = team
    set_remote(a, str(remote), name="team")
    _checkpoint(capsys, a, "A checkpoint")
    result = run_json(capsys, a, "sync", "--remote", "team", "--ref", "refs/baton/other")
    assert (result["remote"], result["ref"], result["pushed"]) == ("team", "refs/baton/other", True)
    assert b"refs/baton/other" in refs_of(remote) and REF not in refs_of(remote)


def test_a_branch_is_refused_as_the_ledger_ref(capsys, team):
    _remote, a, _b = team
    code, out, _ = run(capsys, a, "sync", "--ref", "refs/heads/master", "--json")
    assert code == 2
    assert refs_of(a)[b"refs/heads/master"]


def test_an_event_written_after_importing_another_writers_sorts_after_it_even_with_a_clock_behind(capsys, team):
    _remote, a, b = team
    _checkpoint(capsys, a, "A checkpoint")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    imported = max(json.loads(line)["hlc"] for line in
                   (b / ".baton" / "ledger" / f"{_writer(a)}.jsonl").read_text().splitlines())
    an_hour_ago = lambda: (imported // 1_000_000 - 3600) * 1_000_000_000  # noqa: E731
    with Baton.open(b, clock=an_hour_ago) as app:
        app.capture({"work": {"title": "after reading A", "objective": "later"}})
    last = json.loads((b / ".baton" / "ledger" / f"{_writer(b)}.jsonl").read_text().splitlines()[-1])
    assert last["hlc"] > imported


def test_projections_are_rebuilt_when_imported_events_sort_before_folded_ones(capsys, team):
    _remote, a, b = team
    _checkpoint(capsys, a, "earlier, on A")
    _checkpoint(capsys, b, "later, on B")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    result = run_json(capsys, b, "sync")
    assert result["imported"] and result["projections_rebuilt"] is True
    assert snapshot_equal(_snapshot(a), _snapshot(b))


def test_a_remote_feed_whose_name_is_not_a_writer_id_is_refused_and_no_file_is_made_for_it(capsys, team):
    from dulwich.repo import Repo

    from baton.sync.ledger_ref import read_feeds, write_commit
    from tests.sync_support import REF

    remote, a, b = team
    _checkpoint(capsys, a, "A checkpoint")
    run_json(capsys, a, "sync")
    with Repo(str(remote)) as repo:
        sha = repo.refs[REF]
        feeds = read_feeds(repo, sha)
        feeds["..evil"] = feeds[_writer(a)]
        repo.refs[REF] = write_commit(repo, feeds, [sha], "hostile\n", b"x <x@x>", 0)
    code, out, _ = run(capsys, b, "sync", "--json")
    result = json.loads(out)
    assert code == 3
    assert [(r["feed"], r["kind"]) for r in result["refused"]] == [("..evil", "bad_ref")]
    assert not list((b / ".baton").glob("*evil*")) and not list(b.glob("*evil*"))


def test_a_refused_feed_does_not_stop_the_sound_feeds_of_the_same_sync(capsys, team, tmp_path):
    from tests.sync_support import third_clone

    remote, a, b = team
    c = third_clone(remote, tmp_path)
    _checkpoint(capsys, c, "from C")
    run_json(capsys, c, "sync")
    _checkpoint(capsys, a, "from A")
    run_json(capsys, a, "sync")
    tamper_remote_line(remote, _writer(a), 2, b"from A", b"from Z")
    code, out, _ = run(capsys, b, "sync", "--json")
    result = json.loads(out)
    assert code == 3
    assert [r["feed"] for r in result["refused"]] == [_writer(a)]
    assert result["imported"] == {_writer(c): 2}
    titles = [r["title"] for r in run_json(capsys, b, "handoff", "list")["handoffs"]]
    assert "from C" in titles and "from A" not in titles and "from Z" not in titles


def test_closed_segments_are_kept_as_they_are_and_an_import_reads_only_the_segments_it_needs(capsys, team,
                                                                                          monkeypatch):
    from baton.ledger import segments

    monkeypatch.setattr(segments, "SEGMENT_BYTES", 4096)
    remote, a, b = team
    for i in range(8):
        _checkpoint(capsys, a, f"checkpoint {i}")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    before = remote_feeds(remote)[_writer(a)].segments
    assert len(before) >= 3
    _checkpoint(capsys, a, "one more")
    run_json(capsys, a, "sync")
    after = remote_feeds(remote)[_writer(a)].segments
    assert after[:len(before) - 1] == before[:-1]  # every closed segment: the same blob, never rewritten
    result = run_json(capsys, b, "sync")
    assert result["imported"] == {_writer(a): 1}
    assert result["read"]["segments"] <= len(after) - len(before) + 1
    assert _feed_bytes(a)[f"{_writer(a)}.jsonl"] == _feed_bytes(b)[f"{_writer(a)}.jsonl"]


def test_a_push_that_finds_the_remote_moved_starts_the_round_again_and_loses_nothing(capsys, team, monkeypatch):
    from baton.sync import transport

    remote, a, b = team
    _checkpoint(capsys, a, "from A")
    _checkpoint(capsys, b, "from B")
    original = transport.push
    calls = []

    def push_after_someone_else(*args, **kwargs):
        if not calls:
            calls.append("b pushed first")
            with Baton.open(b) as app:  # another clone pushes between this fetch and this push
                app.sync()
        return original(*args, **kwargs)

    monkeypatch.setattr(transport, "push", push_after_someone_else)
    result = run_json(capsys, a, "sync")
    assert result["attempts"] == 2 and result["pushed"] is True
    assert {_writer(a), _writer(b)} <= set(remote_feeds(remote))
    assert result["imported"] == {_writer(b): len(_feed_bytes(b)[f"{_writer(b)}.jsonl"].splitlines())}


def test_sync_from_a_linked_worktree_uses_the_repositorys_remote_and_ref(capsys, team, tmp_path, monkeypatch):
    from dulwich import porcelain

    from baton.cli import main

    remote, a, b = team
    porcelain.branch_create(str(a), "feature")
    linked = tmp_path / "a-feature"
    porcelain.worktree_add(str(a), str(linked), branch="feature")
    _checkpoint(capsys, a, "from A")
    monkeypatch.chdir(linked)  # the shared project, found from inside the linked worktree
    capsys.readouterr()
    assert main(["sync", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["published"] == {_writer(a): len(_feed_bytes(a)[f"{_writer(a)}.jsonl"].splitlines())}
    assert REF in refs_of(a) and REF in refs_of(remote)
    run_json(capsys, b, "sync")
    assert "from A" in [r["title"] for r in run_json(capsys, b, "handoff", "list")["handoffs"]]


def test_a_transport_error_is_reported_without_control_characters(capsys, team, monkeypatch):
    from dulwich.errors import HangupException

    from baton.sync import transport

    _remote, a, _b = team

    class _Hangs:
        def fetch(self, *args, **kwargs):
            raise HangupException([b"ssh: connect to host example.org port 22: Connection refused\r",
                                   b"fatal: Could not read from remote repository.\r\x1b[0m"])

    monkeypatch.setattr(transport, "client", lambda *args, **kwargs: (_Hangs(), "/ledger.git"))
    code, out, _ = run(capsys, a, "sync", "--json")
    assert code == 4
    message = json.loads(out)["error"]["message"]
    assert "Connection refused; fatal: Could not read from remote repository.; is the server up?" in message
    assert not any(ord(ch) < 32 or ch == "\x7f" for ch in message)
    code, _, err = run(capsys, a, "sync")
    assert code == 4 and "\\x0d" not in err and "\r" not in err


def _same_person_on_both(*clones: Path) -> None:
    for clone in clones:
        with (clone / ".git" / "config").open("a") as config:
            config.write("[user]\n\temail = alice@example.com\n")


def test_a_sync_that_imports_a_baton_for_this_clones_owner_and_branch_says_it_waits(capsys, team):
    _remote, a, b = team
    _same_person_on_both(a, b)
    left = run_json(capsys, a, "session", "end", "sa", "--handoff-steps", "alice's next step")
    run_json(capsys, a, "sync")
    code, out, _ = run(capsys, b, "sync")
    assert code == 0
    (baton,) = run_json(capsys, b, "session", "handoff", "--all")["items"]
    assert baton["owner"] == "alice@example.com" and baton["handoffId"] in json.dumps(left)
    assert (f"A baton waits for alice@example.com on {baton['branch']} (baton {baton['handoffId']}): "
            "the next session started here receives it.") in out
    run_json(capsys, b, "session", "begin", "--session-id", "sb")  # claimed: nothing waits any more
    run_json(capsys, a, "checkpoint", "create", "--title", "more", "--objective", "more", "--no-input")
    run_json(capsys, a, "sync")
    assert run_json(capsys, b, "sync")["waiting"] is None


def test_a_sync_that_imports_only_another_owners_baton_says_none_waits(capsys, team):
    _remote, a, b = team
    _same_person_on_both(a, b)
    run_json(capsys, a, "session", "end", "sa", "--handoff-steps", "bob's next step", "--owner", "bob@example.com")
    run_json(capsys, a, "sync")
    imported = run_json(capsys, b, "sync")
    assert imported["imported"] and imported["waiting"] is None
