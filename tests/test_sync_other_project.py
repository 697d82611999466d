"""``baton sync`` refuses a remote whose ledger is another Baton project's (docs/sync.md
"A remote of another project"): nothing imported, nothing pushed, both ids named — over a
path, a ``file://`` URL and smart HTTP — and the two-clones-ran-init-apart repair still works."""

from __future__ import annotations

import json
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from dulwich import porcelain

from tests.app_support import init_project
from tests.cli_support import run, run_json
from tests.sync_support import REF, make_team, refs_of, set_remote
from tests.sync_support import checkpoint as _checkpoint


def _project_id(project: Path) -> str:
    return json.loads((project / ".baton" / "config.json").read_text())["project_id"]


def _feeds(project: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (project / ".baton" / "ledger").glob("*.jsonl")}


def _other_project(tmp_path: Path, name: str = "other") -> Path:
    other = tmp_path / name
    other.mkdir()
    porcelain.init(str(other)).close()
    init_project(other)
    return other


@contextmanager
def _url(kind: str, remote: Path) -> Iterator[str]:
    if kind == "path":
        yield str(remote)
    elif kind == "file":
        yield remote.as_uri()
    else:
        from tests.http_git_support import serve

        with serve(remote.parent, "alice", "s3cret-pass") as base:
            yield f"{base.replace('http://', 'http://alice:s3cret-pass@')}/{remote.name}"


@pytest.mark.parametrize("kind", ["path", "file", "http"])
def test_a_remote_holding_another_projects_ledger_is_refused_before_anything_is_imported_or_pushed(
        capsys, tmp_path, kind):
    remote, a, _b = make_team(tmp_path)
    _checkpoint(capsys, a, "the team's work")
    assert run_json(capsys, a, "sync")["pushed"]
    other = _other_project(tmp_path)
    _checkpoint(capsys, other, "another project's work")
    before_remote, before_feeds = refs_of(remote)[REF], _feeds(other)
    with _url(kind, remote) as url:
        set_remote(other, url)
        code, out, err = run(capsys, other, "sync", "--json")
    error = json.loads(out)["error"]
    assert code == 4 and error["code"] == "remote_other_project", out + err
    assert error["details"]["project_id"] == _project_id(other)
    assert error["details"]["remote_project_ids"] == [_project_id(a)]
    assert "s3cret-pass" not in out + err and "Traceback" not in err
    assert refs_of(remote)[REF] == before_remote  # nothing pushed
    assert _feeds(other) == before_feeds  # nothing imported
    assert REF not in refs_of(other)  # the local ledger ref did not move either


def test_the_refusal_in_text_names_both_projects_the_remote_and_the_way_to_merge_on_purpose(capsys, tmp_path):
    remote, a, _b = make_team(tmp_path)
    run_json(capsys, a, "sync")
    other = _other_project(tmp_path)
    set_remote(other, str(remote))
    code, _out, err = run(capsys, other, "sync")
    assert code == 4
    assert _project_id(a) in err and _project_id(other) in err and str(remote) in err
    assert "--accept-project" in err and "git remote -v" in err


def test_a_project_syncing_with_a_remote_that_holds_another_projects_ledger_never_carries_it_back(
        capsys, tmp_path):
    # the other way round: this project's remote was pushed to by the other project first
    remote, a, _b = make_team(tmp_path)
    other = _other_project(tmp_path)
    _checkpoint(capsys, other, "another project's work")
    set_remote(other, str(remote))
    assert run_json(capsys, other, "sync")["pushed"]  # an empty remote: nothing to check
    before = _feeds(a)
    code, out, _err = run(capsys, a, "sync", "--json")
    assert code == 4 and json.loads(out)["error"]["details"]["remote_project_ids"] == [_project_id(other)]
    assert _feeds(a) == before


def test_accept_project_merges_a_remote_initialised_as_the_named_project_and_later_syncs_need_nothing(
        capsys, tmp_path):
    remote, a, _b = make_team(tmp_path)
    run_json(capsys, a, "sync")
    other = _other_project(tmp_path)
    set_remote(other, str(remote))
    code, out, _err = run(capsys, other, "sync", "--accept-project", "not-that-one", "--json")
    assert code == 4 and json.loads(out)["error"]["code"] == "remote_other_project"  # the id must be the remote's
    result = run_json(capsys, other, "sync", "--accept-project", _project_id(a))
    assert result["imported"] and result["pushed"]
    assert run_json(capsys, other, "sync")["refused"] == []  # the remote now shares this ledger
    assert run_json(capsys, a, "sync")["imported"]


def test_accept_project_given_to_a_remote_that_already_shares_the_ledger_is_refused(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    run_json(capsys, a, "sync")
    before = refs_of(a)
    code, out, _err = run(capsys, a, "sync", "--accept-project", "bogus", "--json")
    error = json.loads(out)["error"]
    assert code == 2 and error["code"] == "input_error"
    assert "'bogus' is not needed" in error["message"] and "already shares a feed" in error["message"]
    assert refs_of(a) == before


def test_accept_project_given_to_a_remote_naming_this_project_is_refused(capsys, tmp_path):
    _remote, a, b = make_team(tmp_path)
    run_json(capsys, a, "sync")
    code, out, _err = run(capsys, b, "sync", "--accept-project", "bogus", "--json")  # b shares no feed yet
    assert code == 2 and "names this project" in json.loads(out)["error"]["message"]


def test_an_empty_accept_project_is_an_input_error(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    code, out, _err = run(capsys, a, "sync", "--accept-project", " ", "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == "input_error"


def test_a_teammates_clone_syncs_with_the_teams_remote_as_before(capsys, tmp_path):
    remote, a, b = make_team(tmp_path)
    _checkpoint(capsys, a, "a's work")
    run_json(capsys, a, "sync")
    result = run_json(capsys, b, "sync")  # b shares nothing with the remote yet: checked, and it is this project
    assert result["imported"] and result["pushed"]


def _apart(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(remote, kept, repaired): two clones that ran `baton init` apart; the first's config is
    committed and pushed, the second deletes its own and pulls it (docs/sync.md "Setting up a team")."""
    remote, kept, _b = make_team(tmp_path)
    repaired = _other_project(tmp_path, "repaired")
    (repaired / ".baton" / "config.json").unlink()
    shutil.copy(kept / ".baton" / "config.json", repaired / ".baton" / "config.json")
    set_remote(repaired, str(remote))
    return remote, kept, repaired


def test_two_clones_that_ran_init_apart_share_one_ledger_once_one_config_is_committed(capsys, tmp_path):
    remote, kept, repaired = _apart(tmp_path)
    _checkpoint(capsys, kept, "kept's work")
    run_json(capsys, kept, "sync")
    result = run_json(capsys, repaired, "sync")  # its config is the kept one's: the remote is this project
    assert result["imported"] and result["pushed"]
    assert run_json(capsys, kept, "sync")["imported"]  # shares a feed with the remote: not asked again
    for clone in (kept, repaired):
        assert run(capsys, clone, "verify")[0] == 0


def test_when_the_repaired_clone_synced_first_the_kept_one_merges_with_accept_project(capsys, tmp_path):
    remote, kept, repaired = _apart(tmp_path)
    run_json(capsys, repaired, "sync")  # an empty remote: published, naming only its old id
    code, out, _err = run(capsys, kept, "sync", "--json")
    details = json.loads(out)["error"]["details"]
    assert code == 4 and details["project_id"] == _project_id(kept)
    [named] = details["remote_project_ids"]
    assert named != _project_id(kept)
    assert run_json(capsys, kept, "sync", "--accept-project", named)["imported"]
    assert run_json(capsys, kept, "sync")["refused"] == []
    assert run(capsys, kept, "verify")[0] == 0


# -- a ledger ref that came by a plain `git fetch` ------------------------------------------------

def _fetched_with_git(clone: Path) -> None:
    """``git fetch origin refs/baton/ledger:refs/baton/ledger`` in ``clone``, as a person might
    (not ``baton sync``): the ref's feeds are on this clone's ref, none in its files."""
    subprocess.run(["git", "-C", str(clone), "fetch", "-q", "origin", f"{REF.decode()}:{REF.decode()}"],
                   capture_output=True, text=True, check=True)


def test_accept_project_merges_a_remote_whose_ledger_ref_this_clone_fetched_with_git(capsys, tmp_path):
    remote, a, _b = make_team(tmp_path)
    _checkpoint(capsys, a, "the team's work")
    run_json(capsys, a, "sync")
    other = _other_project(tmp_path)
    set_remote(other, str(remote))
    _fetched_with_git(other)

    result = run_json(capsys, other, "sync", "--accept-project", _project_id(a))

    assert result["imported"] and result["pushed"]
    assert run_json(capsys, other, "sync")["refused"] == []
    assert run(capsys, other, "verify")[0] == 0


def test_a_remote_of_another_project_whose_ref_was_fetched_with_git_is_refused_naming_the_way_to_merge(
        capsys, tmp_path):
    remote, a, _b = make_team(tmp_path)
    run_json(capsys, a, "sync")
    other = _other_project(tmp_path)
    set_remote(other, str(remote))
    _fetched_with_git(other)
    before = _feeds(other)

    code, out, _err = run(capsys, other, "sync", "--json")

    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_other_project")
    assert error["details"]["remote_project_ids"] == [_project_id(a)] and "--accept-project" in error["message"]
    assert _feeds(other) == before


def test_a_teammates_clone_whose_ledger_ref_was_fetched_with_git_syncs_as_before(capsys, tmp_path):
    _remote, a, b = make_team(tmp_path)
    _checkpoint(capsys, a, "a's work")
    run_json(capsys, a, "sync")
    _fetched_with_git(b)

    result = run_json(capsys, b, "sync")

    assert result["imported"] and result["pushed"]


# -- another project's feed copied into this clone's .baton/ledger/ by hand -----------------------

def _copied_in(capsys, tmp_path: Path, clone: Path) -> tuple[str, str]:
    """Another project's feed (with a handoff) copied into ``clone``'s ledger by hand: (feed, its project id)."""
    other = _other_project(tmp_path, "elsewhere")
    _checkpoint(capsys, other, "Harden the request handler")
    [feed] = (other / ".baton" / "ledger").glob("*.jsonl")
    shutil.copy(feed, clone / ".baton" / "ledger" / feed.name)
    return feed.stem, _project_id(other)


def test_a_feed_of_another_project_copied_into_the_ledger_is_never_published(capsys, tmp_path):
    remote, a, _b = make_team(tmp_path)
    _checkpoint(capsys, a, "the team's work")
    run_json(capsys, a, "sync")
    before = refs_of(remote)[REF]
    feed, other_id = _copied_in(capsys, tmp_path, a)

    code, out, err = run(capsys, a, "sync", "--json")

    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "feed_other_project"), out + err
    assert error["details"]["feeds"] == {feed: [other_id]}
    assert error["details"]["files"] == [f".baton/ledger/{feed}.jsonl"]
    assert refs_of(remote)[REF] == before  # nothing of it pushed
    assert "Traceback" not in err


def test_the_refusal_of_a_copied_feed_in_text_names_the_file_the_projects_and_the_ways_out(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    run_json(capsys, a, "sync")
    feed, other_id = _copied_in(capsys, tmp_path, a)

    code, _out, err = run(capsys, a, "sync")

    assert code == 4
    assert f".baton/ledger/{feed}.jsonl" in err and repr(other_id) in err
    assert "Move it out of .baton/" in err and "--accept-project" in err


def test_a_feed_of_another_project_is_published_when_accepted_on_purpose(capsys, tmp_path):
    remote, a, b = make_team(tmp_path)
    run_json(capsys, a, "sync")
    feed, other_id = _copied_in(capsys, tmp_path, a)

    result = run_json(capsys, a, "sync", "--accept-project", other_id)

    assert result["pushed"] and feed in result["received"]
    assert feed in run_json(capsys, b, "sync")["imported"]
    assert run_json(capsys, a, "sync")["refused"] == []  # shared now: not asked again


def test_a_feed_of_another_project_copied_before_the_first_sync_is_never_published(capsys, tmp_path):
    remote, a, _b = make_team(tmp_path)
    _copied_in(capsys, tmp_path, a)

    code, out, _err = run(capsys, a, "sync", "--json")

    assert (code, json.loads(out)["error"]["code"]) == (4, "feed_other_project")
    assert REF not in refs_of(remote)


def test_a_teammates_feed_copied_by_hand_is_published_as_before(capsys, tmp_path):
    _remote, a, b = make_team(tmp_path)
    _checkpoint(capsys, b, "b's work")
    [feed] = (b / ".baton" / "ledger").glob("*.jsonl")
    shutil.copy(feed, a / ".baton" / "ledger" / feed.name)

    result = run_json(capsys, a, "sync")

    assert result["pushed"] and feed.stem in result["received"]


# -- verify and doctor name a copied feed of another project --------------------------------------

def test_verify_fails_on_a_feed_of_another_project_copied_into_the_ledger_naming_the_file(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    _checkpoint(capsys, a, "the team's work")
    run_json(capsys, a, "sync")
    feed, other_id = _copied_in(capsys, tmp_path, a)

    code, out, _err = run(capsys, a, "verify", "--json")

    project = json.loads(out)["project"]
    assert code == 3
    assert project["other_project_feeds"] == [{"feed": feed, "project_ids": [other_id],
                                               "file": f".baton/ledger/{feed}.jsonl"}]
    assert "Move it out of .baton/" in project["other_project_problem"]


def test_verify_in_text_says_whose_feed_it_is_and_how_to_set_it_aside(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    feed, other_id = _copied_in(capsys, tmp_path, a)

    code, out, _err = run(capsys, a, "verify")

    assert code == 3
    assert f"FAIL another project's feed: .baton/ledger/{feed}.jsonl is a feed of another Baton project" in out
    assert repr(other_id) in out and "`baton repair` given --yes" in out and "ledger has problems" in out


def test_doctor_fails_its_ledger_check_on_a_feed_of_another_project(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    feed, _other_id = _copied_in(capsys, tmp_path, a)

    _code, out, _err = run(capsys, a, "doctor", "--json")

    failing = [c["detail"] for c in json.loads(out)["checks"] if c["status"] == "fail"]
    assert any(f".baton/ledger/{feed}.jsonl is a feed of another Baton project" in d for d in failing), failing


def test_a_feed_of_another_project_moved_out_then_repaired_leaves_the_ledger_verified_and_its_handoffs_gone(
        capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    _checkpoint(capsys, a, "the team's work")
    feed, _other_id = _copied_in(capsys, tmp_path, a)
    assert any(r["title"] == "Harden the request handler" for r in run_json(capsys, a, "handoff", "list")["handoffs"])
    shutil.move(a / ".baton" / "ledger" / f"{feed}.jsonl", tmp_path / f"{feed}.jsonl")

    run_json(capsys, a, "repair", "--yes")

    assert run(capsys, a, "verify")[0] == 0
    titles = [r["title"] for r in run_json(capsys, a, "handoff", "list")["handoffs"]]
    assert titles == ["the team's work"]


def test_a_feed_of_another_project_accepted_by_a_sync_is_no_longer_a_failure(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    run_json(capsys, a, "sync")
    _feed, other_id = _copied_in(capsys, tmp_path, a)
    run_json(capsys, a, "sync", "--accept-project", other_id)

    assert run(capsys, a, "verify")[0] == 0


def test_a_teammates_feed_copied_by_hand_is_no_failure_of_verify(capsys, tmp_path):
    _remote, a, b = make_team(tmp_path)
    _checkpoint(capsys, b, "b's work")
    [feed] = (b / ".baton" / "ledger").glob("*.jsonl")
    shutil.copy(feed, a / ".baton" / "ledger" / feed.name)

    code, out, _err = run(capsys, a, "verify", "--json")

    assert code == 0 and json.loads(out)["project"]["other_project_feeds"] == []
