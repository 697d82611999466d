"""Which remote ``baton status`` counts as "shared" (docs/sync.md, "Shared with which remote"):
the configured remote this clone syncs with, recognised by the repository it names — however
the sync spelled it (a path, ``file://``, a trailing slash, a relative path) — and, for a team
whose remote is not ``origin``, that remote once the clone syncs with it. A backup of ``.baton/``
restored in place is told from this clone's ledger ref (no network), before any sync refuses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from dulwich.repo import Repo

from tests.cli_support import run, run_json
from tests.sync_support import checkpoint as _checkpoint
from tests.sync_support import make_team, restored_then_written, set_remote, synced_then_remote_rolled_back
from tests.sync_support import writer_of as _writer


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _bare(path: Path) -> Path:
    Repo.init_bare(str(path), mkdir=True).close()
    return path


def _synced_through(capsys, a: Path, spelled: str) -> dict:
    """Sync ``a`` once with origin by name (so it holds events beyond), write one, then sync with
    origin's repository spelled as ``spelled``: status's ``sync``."""
    run_json(capsys, a, "sync")
    _checkpoint(capsys, a, "published through another spelling")
    assert run_json(capsys, a, "sync", "--remote", spelled)["pushed"] is True
    return run_json(capsys, a, "status")["sync"]


def test_a_sync_with_origins_path_counts_as_shared_with_origin(capsys, team):
    remote, a, _b = team
    sync = _synced_through(capsys, a, str(remote))
    assert sync["remote"] == "origin" and sync["unshared"] == 0
    assert f"Shared: every event of this clone's feed {_writer(a)} is on origin" in run(capsys, a, "status")[1]


def test_a_sync_with_origins_file_url_counts_as_shared_with_origin(capsys, team):
    remote, a, _b = team
    sync = _synced_through(capsys, a, remote.as_uri())
    assert sync["remote"] == "origin" and sync["unshared"] == 0


def test_a_sync_with_origins_path_and_a_trailing_slash_counts_as_shared_with_origin(capsys, team):
    remote, a, _b = team
    sync = _synced_through(capsys, a, f"{remote}/")
    assert sync["remote"] == "origin" and sync["unshared"] == 0


def test_a_sync_with_origins_relative_path_counts_as_shared_with_origin(capsys, team):
    remote, a, _b = team
    sync = _synced_through(capsys, a, os.path.relpath(remote, a))
    assert sync["remote"] == "origin" and sync["unshared"] == 0


def test_origin_configured_by_a_relative_path_is_recognised_in_a_sync_by_its_absolute_path(capsys, team):
    remote, a, _b = team
    set_remote(a, os.path.relpath(remote, a))
    sync = _synced_through(capsys, a, str(remote))
    assert sync["remote"] == "origin" and sync["unshared"] == 0


def test_a_sync_with_a_scratch_path_still_does_not_count_as_shared(capsys, team, tmp_path):
    _remote, a, _b = team
    run_json(capsys, a, "sync")
    _checkpoint(capsys, a, "only on scratch")
    run_json(capsys, a, "sync", "--remote", str(_bare(tmp_path / "scratch.git")))
    sync = run_json(capsys, a, "status")["sync"]
    assert sync["remote"] == "origin" and sync["unshared"] == 1


def test_a_team_remote_not_named_origin_counts_once_the_clone_syncs_with_it(capsys, team, tmp_path):
    _remote, a, _b = team
    run_json(capsys, a, "sync")  # a first, plain sync went to origin (say, a personal fork)
    set_remote(a, str(_bare(tmp_path / "common.git")), "upstream")  # its URL sorts before origin's
    _checkpoint(capsys, a, "for the team")
    run_json(capsys, a, "sync", "--remote", "upstream")
    sync = run_json(capsys, a, "status")["sync"]
    assert sync["remote"] == "upstream" and sync["unshared"] == 0
    assert f"Shared: every event of this clone's feed {_writer(a)} is on upstream" in run(capsys, a, "status")[1]


def test_unshared_events_counted_on_a_team_remote_say_to_sync_with_that_remote(capsys, team, tmp_path):
    _remote, a, _b = team
    set_remote(a, str(_bare(tmp_path / "upstream.git")), "upstream")
    run_json(capsys, a, "sync", "--remote", "upstream")
    _checkpoint(capsys, a, "not yet on upstream")
    text = run(capsys, a, "status")[1]
    assert "Not yet shared: 1 event" in text
    assert "run `baton sync` with remote upstream (the remote this clone synced with last)" in text


def test_a_team_remote_synced_by_its_path_is_named_by_its_configured_name(capsys, team, tmp_path):
    _remote, a, _b = team
    upstream = _bare(tmp_path / "upstream.git")
    set_remote(a, str(upstream), "upstream")
    run_json(capsys, a, "sync", "--remote", upstream.as_uri())
    assert run_json(capsys, a, "status")["sync"]["remote"] == "upstream"


def test_a_backup_restored_in_place_is_not_shared_before_any_sync_is_refused(capsys, team, tmp_path):
    _remote, a, _b = team
    restored_then_written(capsys, a, tmp_path, write_after=False)
    sync = run_json(capsys, a, "status")["sync"]
    assert sync["diverged"] is True and sync["remoteSeq"] > sync["seq"]
    text = run(capsys, a, "status")[1]
    assert "Shared: every event" not in text
    assert f"Not shared: this clone's feed {_writer(a)} (seq {sync['seq']}) does not continue the copy origin holds" \
        in text


def test_a_backup_restored_in_place_then_written_is_not_shared_before_any_sync_is_refused(capsys, team, tmp_path):
    _remote, a, _b = team
    restored_then_written(capsys, a, tmp_path)
    sync = run_json(capsys, a, "status")["sync"]
    assert sync["diverged"] is True and "Not yet shared" not in run(capsys, a, "status")[1]


def test_doctor_warns_of_a_backup_restored_in_place_before_any_sync(capsys, team, tmp_path):
    import json

    _remote, a, _b = team
    restored_then_written(capsys, a, tmp_path, write_after=False)
    checks = {c["name"]: c for c in json.loads(run(capsys, a, "doctor", "--json")[1])["checks"]}
    assert checks["sync"]["status"] == "warn"  # nothing written since: the sync's own remedy is named
    assert "`baton sync` given `restore_own_feed` takes the published events back" in checks["sync"]["detail"]


def test_a_push_the_remote_refused_is_still_not_yet_shared_not_diverged(capsys, team):
    from tests.http_git_support import serve

    remote, a, _b = team
    run_json(capsys, a, "sync")
    _checkpoint(capsys, a, "not pushed")
    with serve(remote.parent, "a", "pw", lambda method, path: 403 if "receive-pack" in path else None) as base:
        set_remote(a, f"{base.replace('http://', 'http://a:pw@')}/{remote.name}")  # read access only
        assert run(capsys, a, "sync", "--json")[0] == 4  # committed to the local ref, refused by the remote
    sync = run_json(capsys, a, "status")["sync"]
    assert not sync.get("diverged") and sync["unshared"] == 1


def test_a_remote_that_went_back_is_reported_when_the_sync_spells_its_location_another_way(capsys, team):
    remote, a, _b = team
    synced_then_remote_rolled_back(capsys, remote, a)
    code, text, _ = run(capsys, a, "sync", "--remote", f"{remote.as_uri()}/")
    assert code == 3 and f"BEHIND remote feed {_writer(a)}: the remote held it to seq 2" in text


def test_a_sync_with_origins_http_url_spelled_with_a_trailing_slash_counts_as_shared_with_origin(capsys, team):
    from tests.http_git_support import serve

    remote, a, _b = team
    with serve(remote.parent, "a", "pw") as base:
        url = f"{base.replace('http://', 'http://a:pw@')}/{remote.name}"
        set_remote(a, url)
        sync = _synced_through(capsys, a, f"{url}/")
    assert sync["remote"] == "origin" and sync["unshared"] == 0


def test_the_status_page_says_to_sync_with_the_team_remote_it_counts(capsys, team, tmp_path):
    from tests.app_support import status_server
    from tests.browser_support import Browser, find_chromium

    chromium = find_chromium()
    if chromium is None:
        pytest.skip("no Chromium installed (apt-get install chromium, or set BATON_CHROMIUM)")
    _remote, a, _b = team
    set_remote(a, str(_bare(tmp_path / "upstream.git")), "upstream")
    run_json(capsys, a, "sync", "--remote", "upstream")
    _checkpoint(capsys, a, "not yet on upstream")
    with status_server(a) as server:
        browser = Browser(chromium)
        try:
            page = browser.open(server.url)
            page.wait_for("document.querySelectorAll('#sharing-line p').length > 0")
            shown = page.eval("document.querySelector('#sharing-line p').textContent")
        finally:
            browser.close()
    assert shown.startswith("Not yet shared: 1 event") and shown.endswith("run baton sync with remote upstream.")
