"""A ``.baton/`` backup restored in place, then written to: the remote's copy of this clone's
feed is no longer a prefix of the local file (docs/sync.md, "A clone restored from a backup").
Every sync is refused until ``baton repair`` puts the feed back, so ``status`` and ``doctor``
must not call the feed shared, and the refusals name the remedy that works."""

from __future__ import annotations

import json

import pytest

from tests.cli_support import run, run_json
from tests.sync_support import make_team, restored_then_written
from tests.sync_support import writer_of as _writer


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def test_status_does_not_call_a_feed_forked_from_the_remotes_copy_shared(capsys, team, tmp_path):
    _remote, a, _b = team
    restored_then_written(capsys, a, tmp_path)
    assert run(capsys, a, "sync", "--json")[0] == 4
    sync = run_json(capsys, a, "status")["sync"]
    assert sync["diverged"] is True and sync["unshared"] is None
    text = run(capsys, a, "status")[1]
    assert "Shared: every event" not in text
    assert f"Not shared: this clone's feed {_writer(a)} (seq {sync['seq']}) does not continue the copy origin holds" in text
    assert "until `baton repair` puts the feed back" in text


def test_doctor_warns_that_a_forked_own_feed_is_not_shared_and_names_baton_repair(capsys, team, tmp_path):
    _remote, a, _b = team
    restored_then_written(capsys, a, tmp_path)
    run(capsys, a, "sync", "--json")
    checks = {c["name"]: c for c in json.loads(run(capsys, a, "doctor", "--json")[1])["checks"]}
    assert checks["sync"]["status"] == "warn" and "`baton repair` puts the feed back" in checks["sync"]["detail"]


def test_a_plain_sync_of_a_feed_forked_after_a_restore_names_baton_repair_not_restore_own_feed(capsys, team, tmp_path):
    _remote, a, _b = team
    restored_then_written(capsys, a, tmp_path)
    code, out, _err = run(capsys, a, "sync")
    assert code == 4 and "REFUSED local feed" in out
    assert "a sync given --restore-own-feed cannot mend it: `baton repair` given --yes puts it back" in out
    assert "takes its published events back" not in out


def test_a_plain_sync_of_a_feed_restored_with_nothing_written_since_names_the_restore_flag(capsys, team, tmp_path):
    _remote, a, _b = team
    restored_then_written(capsys, a, tmp_path, write_after=False)
    code, out, _err = run(capsys, a, "sync")
    assert code == 4 and "`baton sync` given --restore-own-feed takes its published events back" in out
    assert "`restore_own_feed`" not in out and "baton repair" not in out


def test_restore_own_feed_refused_for_a_forked_feed_names_baton_repair(capsys, team, tmp_path):
    _remote, a, _b = team
    restored_then_written(capsys, a, tmp_path)
    code, out, _err = run(capsys, a, "sync", "--restore-own-feed")
    assert code == 3 and "own_feed" in out and "`baton repair` given --yes" in out


def test_after_baton_repair_the_next_sync_publishes_and_status_says_shared_again(capsys, team, tmp_path):
    _remote, a, _b = team
    restored_then_written(capsys, a, tmp_path)
    run(capsys, a, "sync", "--json")
    run_json(capsys, a, "repair", "--yes")
    assert run_json(capsys, a, "sync")["refused"] == []
    sync = run_json(capsys, a, "status")["sync"]
    assert sync["unshared"] == 0 and not sync.get("diverged")


def test_the_status_page_says_a_forked_own_feed_is_not_shared(capsys, team, tmp_path):
    from tests.browser_support import chromium_or_skip, sharing_line_shown

    chromium = chromium_or_skip()
    _remote, a, _b = team
    restored_then_written(capsys, a, tmp_path)
    run(capsys, a, "sync", "--json")
    shown = sharing_line_shown(a, chromium)
    assert shown.startswith(f"Not shared: this clone's feed {_writer(a)}") and "until baton repair puts" in shown
