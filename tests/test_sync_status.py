"""After ``baton sync``, ``baton status`` says how much of this clone's own
work a remote holds (docs/status-page.md, ``sync``): the events written since
the last sync that put them on a remote, so a teammate's view is known to
lack them — and a push that failed does not count as shared."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from baton.domain.batons import CARRIED_TEXT_MAX, clipped_text
from tests.cli_support import run, run_json
from tests.sync_support import batons_left_apart, leave_baton_for, make_team, set_remote
from tests.sync_support import checkpoint as _checkpoint
from tests.sync_support import writer_of as _writer


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _lines(project: Path) -> int:
    feed = project / ".baton" / "ledger" / f"{_writer(project)}.jsonl"
    return len(feed.read_bytes().splitlines())


def test_one_unshared_event_is_shown_as_one_seq_not_a_range(capsys, team):
    _remote, a, _b = team
    run_json(capsys, a, "sync")
    _checkpoint(capsys, a, "one")
    sync = run_json(capsys, a, "status")["sync"]
    assert sync["unshared"] == 1
    assert f"(seq {sync['seq']}): run `baton sync`" in run(capsys, a, "status")[1]


def test_a_synced_clone_whose_feed_holds_no_event_yet_says_nothing_is_written_yet(capsys, team, tmp_path):
    from dulwich import porcelain

    remote, a, _b = team
    run_json(capsys, a, "sync")
    b = tmp_path / "fresh"  # a git clone of the project, never `baton init`-ed: its feed is empty
    porcelain.clone(str(remote), str(b), errstream=io.BytesIO()).close()
    run_json(capsys, b, "sync")  # imports A's events, writes none of its own
    sync = run_json(capsys, b, "status")["sync"]
    assert (sync["seq"], sync["unshared"]) == (0, 0)
    text = run(capsys, b, "status")[1]
    assert f"Shared: nothing written yet — this clone's feed {_writer(b)} holds no event" in text
    assert "every event" not in text

def test_a_clone_that_never_synced_shows_nothing_about_sharing(capsys, team):
    _remote, a, _b = team
    _checkpoint(capsys, a, "local only")
    assert "sync" not in run_json(capsys, a, "status")
    assert "shared" not in run(capsys, a, "status")[1].lower()


def test_status_counts_the_events_written_since_the_last_sync_and_none_after_the_next(capsys, team):
    _remote, a, _b = team
    run_json(capsys, a, "sync")
    synced = _lines(a)
    _checkpoint(capsys, a, "one")
    _checkpoint(capsys, a, "two")
    sync = run_json(capsys, a, "status")["sync"]
    assert sync == {"writer": _writer(a), "seq": _lines(a), "remote": "origin", "sharedSeq": synced,
                    "unshared": _lines(a) - synced}
    assert sync["unshared"] >= 2
    text = run(capsys, a, "status")[1]
    assert f"Not yet shared: {sync['unshared']} events of this clone's feed {_writer(a)}" in text
    assert "run `baton sync`" in text
    run_json(capsys, a, "sync")
    assert run_json(capsys, a, "status")["sync"]["unshared"] == 0
    assert "Shared: every event of this clone's feed" in run(capsys, a, "status")[1]


def test_events_a_refused_push_left_on_the_local_ref_are_still_unshared(capsys, team):
    from tests.http_git_support import serve

    remote, a, _b = team
    run_json(capsys, a, "sync")
    _checkpoint(capsys, a, "not pushed")
    before = run_json(capsys, a, "status")["sync"]["unshared"]
    with serve(remote.parent, "a", "pw", lambda method, path: 403 if "receive-pack" in path else None) as base:
        set_remote(a, f"{base.replace('http://', 'http://a:pw@')}/{remote.name}")  # read access only
        assert run(capsys, a, "sync", "--json")[0] == 4  # committed to the local ref, refused by the remote
    assert run_json(capsys, a, "status")["sync"]["unshared"] == before > 0


def test_a_first_sync_whose_push_the_remote_refuses_leaves_every_event_not_yet_shared(capsys, team):
    from tests.http_git_support import serve

    remote, a, _b = team
    _checkpoint(capsys, a, "never pushed")
    with serve(remote.parent, "a", "pw", lambda method, path: 403 if "receive-pack" in path else None) as base:
        set_remote(a, f"{base.replace('http://', 'http://a:pw@')}/{remote.name}")  # read access only
        assert run(capsys, a, "sync", "--json")[0] == 4  # the remote holds nothing, and took nothing
    sync = run_json(capsys, a, "status")["sync"]
    assert "sharedUnknown" not in sync  # not taken for an older Baton's sync, which recorded no remote
    assert sync["sharedSeq"] == 0 and sync["unshared"] == sync["seq"] == _lines(a)


def test_a_damaged_last_line_of_the_own_feed_is_not_counted_as_written(capsys, team):
    _remote, a, _b = team
    run_json(capsys, a, "sync")
    _checkpoint(capsys, a, "one")
    before = run_json(capsys, a, "status")["sync"]
    feed = a / ".baton" / "ledger" / f"{_writer(a)}.jsonl"
    with open(feed, "ab") as f:
        f.write(b"\0" * 64 + b"\n")  # a run of NULs ending in a newline: a torn tail, no event
    after = run_json(capsys, a, "status")["sync"]
    assert after["seq"] == before["seq"] > 0
    assert after["unshared"] == before["unshared"] > 0


def test_the_status_page_says_what_of_this_clones_work_is_not_yet_shared(capsys, team):
    from tests.browser_support import chromium_or_skip, sharing_line_shown

    chromium = chromium_or_skip()
    _remote, a, _b = team
    run_json(capsys, a, "sync")
    _checkpoint(capsys, a, "not yet shared")
    unshared = run_json(capsys, a, "status")["sync"]["unshared"]
    shown = sharing_line_shown(a, chromium)
    assert shown.startswith(f"Not yet shared: {unshared} event{'' if unshared == 1 else 's'} of this clone's "
                            f"feed {_writer(a)}")
    assert shown.endswith("run baton sync.")


def _documented_status_members() -> dict[str, tuple[bool, set[str] | None]]:
    """docs/cli.md's ``baton status`` ``--json`` shape: each top-level member,
    whether it is optional (``"name"?``) and, for an object or a list of
    objects (``[{…}]``), its (each element's) members (an optional one ends ``?``)."""
    text = Path(__file__).resolve().parents[1].joinpath("docs", "cli.md").read_text()
    section = text[text.index("### `baton status`\n"):text.index("### `baton status serve")]
    shape = section[section.index("`--json`: `{") + len("`--json`: `"):]
    shape = shape[:shape.index("`")]
    members: dict[str, tuple[bool, set[str] | None]] = {}
    depth, last, nested, previous = 0, None, None, ""
    for token in re.finditer(r'"(\w+)"(\?)?|[\[\]{}]', shape):
        mark = token.group(0)
        if mark in "[{":
            depth += 1
            opens_list_of_objects = depth == 3 and previous == "["
            if mark == "{" and (depth == 2 or opens_list_of_objects) and last is not None:
                nested = set()
            previous = mark
            continue
        elif mark in "]}":
            depth -= 1
            if depth in (1, 2) and mark == "}" and nested is not None:
                members[last] = (members[last][0], nested)
                nested = None
        elif depth == 1:
            last = token.group(1)
            members[last] = (bool(token.group(2)), None)
        elif depth in (2, 3) and nested is not None:
            nested.add(token.group(1) + (token.group(2) or ""))
        previous = mark
    return members


def test_status_json_has_the_members_cli_md_documents_sync_included_once_synced(capsys, team):
    _remote, a, _b = team
    documented = _documented_status_members()
    run_json(capsys, a, "sync")
    _checkpoint(capsys, a, "after the sync")
    status = run_json(capsys, a, "status")
    assert "sync" in status
    required = {name for name, (optional, _) in documented.items() if not optional}
    assert required <= set(status) <= set(documented)
    for name, (_, inner) in documented.items():
        if inner is not None and isinstance(status.get(name), dict):
            assert {m for m in inner if not m.endswith("?")} <= set(status[name]), name
            assert set(status[name]) <= {m.rstrip("?") for m in inner}, name


def test_status_json_lists_superseded_unseen_batons_with_the_members_cli_md_documents(capsys, team):
    _a, b, alices, _bobs = batons_left_apart(capsys, team)
    optional, inner = _documented_status_members()["supersededUnseen"]
    [unseen] = run_json(capsys, b, "status")["supersededUnseen"]
    assert optional and unseen["id"] == alices
    assert set(unseen) == inner


def test_status_json_clips_the_objective_of_a_superseded_unseen_baton_as_the_mcp_and_the_text_do(capsys, team):
    _remote, a, b = team
    leave_baton_for(capsys, a, "alice-s", "y" * 3000)
    run_json(capsys, a, "sync")
    leave_baton_for(capsys, b, "bob-s", "bob's own step")
    run_json(capsys, b, "sync")
    [unseen] = run_json(capsys, b, "status")["supersededUnseen"]
    assert unseen["objective"] == clipped_text("y" * 3000)
    assert len(unseen["objective"]) == CARRIED_TEXT_MAX
    [listed] = run_json(capsys, b, "session", "handoff", "--all")["supersededUnseen"]
    assert listed["objective"] == unseen["objective"]


def test_unshared_events_with_signatures_required_and_no_signing_key_say_to_set_one_up_first(capsys, team):
    import json

    _remote, a, _b = team
    run_json(capsys, a, "sync")
    config = a / ".baton" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "sync": {"require_signatures": True}}))
    _checkpoint(capsys, a, "one")
    assert run_json(capsys, a, "status")["sync"]["signingKeyMissing"] is True
    text = run(capsys, a, "status")[1]
    assert "git names no signing key here: set user.signingkey and gpg.format ssh" in text


def test_unshared_events_without_required_signatures_say_only_to_sync(capsys, team):
    _remote, a, _b = team
    run_json(capsys, a, "sync")
    _checkpoint(capsys, a, "one")
    assert "signingKeyMissing" not in run_json(capsys, a, "status")["sync"]


def test_a_sync_with_a_scratch_remote_does_not_make_the_work_shared_with_origin(capsys, team, tmp_path):
    from dulwich.repo import Repo

    _remote, a, _b = team
    run_json(capsys, a, "sync")
    _checkpoint(capsys, a, "only on scratch")
    scratch = tmp_path / "scratch.git"
    Repo.init_bare(str(scratch), mkdir=True).close()
    run_json(capsys, a, "sync", "--remote", str(scratch))
    sync = run_json(capsys, a, "status")["sync"]
    assert sync["remote"] == "origin" and sync["unshared"] > 0
    assert f"Not yet shared: {sync['unshared']} event" in run(capsys, a, "status")[1]
    run_json(capsys, a, "sync")
    assert "is on origin" in run(capsys, a, "status")[1]


def test_a_clone_that_never_synced_with_origin_counts_the_remote_it_synced_with_last_and_names_it(capsys, team,
                                                                                                  tmp_path):
    from dulwich.repo import Repo

    _remote, a, _b = team
    Repo.init_bare(str(tmp_path / "team.git"), mkdir=True).close()
    set_remote(a, str(tmp_path / "team.git"), "team")
    run_json(capsys, a, "sync", "--remote", "team")
    assert run_json(capsys, a, "status")["sync"]["remote"] == "team"
    _checkpoint(capsys, a, "not yet on team")
    assert "run `baton sync` with remote team (the remote this clone synced with last)" in run(capsys, a, "status")[1]


def test_a_forget_here_since_the_last_sync_keeps_the_feed_shared_not_diverged(capsys, team):
    _remote, a, _b = team
    ident = run_json(capsys, a, "checkpoint", "create", "--title", "to forget", "--objective", "o",
                     "--no-input")["id"]
    _checkpoint(capsys, a, "kept")
    run_json(capsys, a, "sync")
    run_json(capsys, a, "forget", ident, "--reason", "pasted a secret", "--yes")
    sync = run_json(capsys, a, "status")["sync"]
    assert not sync.get("diverged") and sync["unshared"] == 1  # the handoff.forgotten event
