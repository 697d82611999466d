"""How a team's remote is named and answers (docs/sync.md, "Exit codes"):
a relative path remote is found as git finds it, whatever folder the command
starts in, and an http remote's refusals and failures say what they mean
(real ``git http-backend`` on loopback behind a server that answers 403,
404 or 5xx where told)."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.cli_support import run, run_json
from tests.sync_support import REF, make_team, refs_of, remote_feeds, set_remote


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _writer(project: Path) -> str:
    return json.loads((project / ".baton" / "local.json").read_text())["writer"]


def _checkpoint(capsys, project: Path, title: str) -> None:
    run_json(capsys, project, "checkpoint", "create", "--title", title, "--objective", "o", "--no-input")


def _sync_from(capsys, monkeypatch, folder: Path, *args: str) -> tuple[int, dict]:
    from baton.cli import main

    monkeypatch.chdir(folder)
    capsys.readouterr()
    code = main(["sync", "--json", *args])
    return code, json.loads(capsys.readouterr().out)


# -- a relative path remote ----------------------------------------------------------------------

def test_a_relative_path_remote_is_found_from_a_subfolder_of_the_work_tree_as_git_finds_it(
        capsys, team, monkeypatch):
    remote, a, _b = team
    set_remote(a, "../remote.git")  # `git remote add origin ../remote.git`: relative to the work tree's top
    _checkpoint(capsys, a, "from a subfolder")
    deep = a / "src" / "deep"
    deep.mkdir(parents=True)
    code, result = _sync_from(capsys, monkeypatch, deep)
    assert code == 0, result
    assert result["pushed"] is True and _writer(a) in remote_feeds(remote)


def test_a_relative_path_remote_is_found_when_the_project_is_named_from_elsewhere(capsys, team, tmp_path,
                                                                                  monkeypatch):
    remote, a, _b = team
    set_remote(a, "../remote.git")
    _checkpoint(capsys, a, "named with --project")
    elsewhere = tmp_path / "elsewhere" / "further"
    elsewhere.mkdir(parents=True)
    code, result = _sync_from(capsys, monkeypatch, elsewhere, "--project", str(a))
    assert code == 0, result
    assert result["pushed"] is True and refs_of(remote)[REF] == refs_of(a)[REF]


def test_a_relative_path_remote_from_a_linked_worktree_is_relative_to_that_worktree(capsys, team, tmp_path,
                                                                                   monkeypatch):
    from dulwich import porcelain

    remote, a, _b = team
    porcelain.branch_create(str(a), "feature")
    linked = tmp_path / "wt" / "a-feature"  # two levels down: ../remote.git from a would be wrong here
    linked.parent.mkdir()
    porcelain.worktree_add(str(a), str(linked), branch="feature")
    set_remote(a, "../../remote.git")  # what git resolves from the linked worktree's top
    _checkpoint(capsys, a, "from the linked worktree")
    (linked / "sub").mkdir()
    code, result = _sync_from(capsys, monkeypatch, linked / "sub")
    assert code == 0, result
    assert result["pushed"] is True and _writer(a) in remote_feeds(remote)


def test_a_relative_path_remote_that_does_not_exist_names_the_url_as_configured(capsys, team, monkeypatch):
    _remote, a, _b = team
    set_remote(a, "../no-such.git")
    code, out, err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_unreachable"), out + err
    assert error["details"]["url"] == "../no-such.git" and "Traceback" not in err


# -- what an http remote answers -----------------------------------------------------------------

@contextmanager
def _http_remote(remote: Path, answer):
    from tests.http_git_support import serve

    with serve(remote.parent, "alice", "s3cret-pass", answer) as base:
        yield f"{base.replace('http://', 'http://alice:s3cret-pass@')}/{remote.name}"


def _pushes(method: str, path: str) -> bool:
    return "git-receive-pack" in path


@pytest.mark.parametrize("status", [403, 500, 502, 503])
def test_every_http_refusal_or_failure_is_exit_4_in_words_with_its_status_and_never_the_password(
        capsys, team, status):
    remote, a, _b = team
    _checkpoint(capsys, a, "over http")
    with _http_remote(remote, lambda method, path: status) as url:
        set_remote(a, url)
        code, out, err = run(capsys, a, "sync", "--json")
        error = json.loads(out)["error"]
        assert code == 4 and error["details"]["http_status"] == status, out + err
        assert "unexpected http resp" not in error["message"] and "s3cret-pass" not in out + err
        assert f"HTTP {status} " in error["message"] and "Traceback" not in err
        code, _out, err = run(capsys, a, "sync")
        assert code == 4 and f"HTTP {status} " in err and "internal error" not in err


def test_a_remote_that_lets_these_credentials_read_but_not_push_says_so_and_keeps_what_was_imported(
        capsys, team):
    remote, a, b = team
    _checkpoint(capsys, b, "from B")
    run_json(capsys, b, "sync")
    _checkpoint(capsys, a, "from A, read-only")
    with _http_remote(remote, lambda method, path: 403 if _pushes(method, path) else None) as url:
        set_remote(a, url)
        code, out, err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_auth_failed"), out + err
    assert "refused to let these credentials push (HTTP 403 Forbidden)" in error["message"]
    assert "ask its owner for write access" in error["message"]
    titles = [r["title"] for r in run_json(capsys, a, "handoff", "list")["handoffs"]]
    assert "from B" in titles and "from A, read-only" in titles  # the import stands; nothing lost
    assert _writer(a) not in remote_feeds(remote)
    set_remote(a, str(remote))  # write access again: the next sync publishes what was held back
    assert run_json(capsys, a, "sync")["pushed"] is True and _writer(a) in remote_feeds(remote)


def test_a_remote_that_forbids_reading_is_told_apart_from_one_that_forbids_pushing(capsys, team):
    remote, a, _b = team
    with _http_remote(remote, lambda method, path: 403) as url:
        set_remote(a, url)
        code, out, _err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_auth_failed")
    assert error["message"].startswith("cannot fetch ")
    assert "refused these credentials access to the repository (HTTP 403 Forbidden)" in error["message"]


def test_a_server_error_says_it_is_the_servers_and_to_try_again_not_to_check_credentials(capsys, team):
    remote, a, _b = team
    with _http_remote(remote, lambda method, path: 502) as url:
        set_remote(a, url)
        code, out, _err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_unreachable")
    assert "the server failed to answer (HTTP 502 Bad Gateway)" in error["message"]
    assert "try again later" in error["message"] and "credentials" not in error["message"]
