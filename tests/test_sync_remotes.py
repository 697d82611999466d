"""How a team's remote is named and answers (docs/sync.md, "Exit codes"):
a relative path remote is found as git finds it, whatever folder the command
starts in, and an http remote's refusals and failures say what they mean
(real ``git http-backend`` on loopback behind a server that answers 403,
404 or 5xx where told)."""

from __future__ import annotations

import json
import shlex
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.cli_support import run, run_json
from tests.sync_support import REF, make_team, refs_of, remote_feeds, set_remote
from tests.sync_support import checkpoint as _checkpoint
from tests.sync_support import writer_of as _writer


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


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


def test_an_empty_ref_name_is_refused_not_taken_for_the_default_ref(capsys, team):
    remote, a, _b = team
    _checkpoint(capsys, a, "not published")
    code, out, _err = run(capsys, a, "sync", "--ref", "", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (2, "input_error") and "not ''" in error["message"]
    assert REF not in refs_of(a) and REF not in refs_of(remote)


# -- a remote whose pushes go elsewhere (``git remote set-url --push``) ---------------------------

def _set_push_url(clone: Path, url: str, name: str = "origin") -> None:
    from dulwich.repo import Repo

    with Repo(str(clone)) as repo:
        config = repo.get_config()
        config.set((b"remote", name.encode()), b"pushurl", url.encode())
        config.write_to_path()


def test_a_remote_whose_pushes_are_turned_off_is_never_pushed_to(capsys, team):
    remote, a, b = team
    _checkpoint(capsys, b, "from B")
    run_json(capsys, b, "sync")
    served = refs_of(remote)[REF]
    _set_push_url(a, "no_push")  # `git remote set-url --push origin no_push`: git pushes nowhere
    _checkpoint(capsys, a, "kept here")
    code, out, err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_unreachable"), out + err
    assert error["message"].startswith(f"cannot push {REF.decode()} to 'no_push'")
    assert refs_of(remote)[REF] == served  # the remote git would not push to is left as it was
    assert "from B" in [r["title"] for r in run_json(capsys, a, "handoff", "list")["handoffs"]]


def test_a_remote_fetched_over_http_without_write_access_pushes_to_its_pushurl(capsys, team):
    remote, a, b = team
    _checkpoint(capsys, b, "from B")
    run_json(capsys, b, "sync")
    _checkpoint(capsys, a, "from A")
    with _http_remote(remote, lambda method, path: 403 if _pushes(method, path) else None) as url:
        set_remote(a, url)  # read over https; write through another transport, as git would
        _set_push_url(a, str(remote))
        result = run_json(capsys, a, "sync")
    assert result["imported"] and result["pushed"] is True
    assert {_writer(a), _writer(b)} <= set(remote_feeds(remote))


def test_a_push_instead_of_rule_sends_the_push_where_git_would(capsys, team):
    from dulwich.repo import Repo

    remote, a, _b = team
    _checkpoint(capsys, a, "from A")
    with _http_remote(remote, lambda method, path: 403 if _pushes(method, path) else None) as url:
        set_remote(a, url)
        with Repo(str(a)) as repo:  # [url "<path>"] pushInsteadOf = <the http url>
            config = repo.get_config()
            config.set((b"url", str(remote).encode()), b"pushInsteadOf", url.encode())
            config.write_to_path()
        result = run_json(capsys, a, "sync")
    assert result["pushed"] is True and _writer(a) in remote_feeds(remote)


# -- a remote name that is not there -------------------------------------------------------------

def test_a_mistyped_remote_name_is_exit_4_naming_the_closest_remote_and_every_remote_there(capsys, team):
    remote, a, _b = team
    set_remote(a, str(remote), name="upstream")
    code, out, err = run(capsys, a, "sync", "--remote", "orign", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "no_sync_remote"), out + err
    assert "did you mean 'origin'?" in error["message"]
    assert "this repository's remotes: origin, upstream" in error["message"]
    assert error["details"] == {"remote": "orign", "remotes": ["origin", "upstream"]}
    code, _out, err = run(capsys, a, "sync", "--remote", "orign")
    assert code == 4 and "name one with --remote" in err and "Traceback" not in err


def test_a_remote_name_like_none_there_lists_the_remotes_without_a_guess(capsys, team):
    _remote, a, _b = team
    code, out, _err = run(capsys, a, "sync", "--remote", "team-ledger", "--json")
    error = json.loads(out)["error"]
    assert code == 4 and "did you mean" not in error["message"]
    assert "this repository's remotes: origin" in error["message"]


def test_a_repository_without_any_remote_says_it_has_none_and_how_to_add_the_teams(capsys, team):
    _remote, a, _b = team
    (a / ".git" / "config").write_text("[core]\n\trepositoryformatversion = 0\n\tbare = false\n")
    code, out, _err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "no_sync_remote") and error["details"]["remotes"] == []
    assert "this repository has none" in error["message"] and "`git remote add origin URL`" in error["message"]


# -- what the server's git says when it refuses a push ---------------------------------------------

def test_a_server_that_hides_the_ledger_ref_is_named_with_the_way_past_it_and_no_progress_meter(capsys, team):
    import subprocess

    remote, a, _b = team
    subprocess.run(["git", "-C", str(remote), "config", "transfer.hideRefs", "refs/baton"], check=True)
    _checkpoint(capsys, a, "hidden")
    with _http_remote(remote, lambda method, path: None) as url:
        set_remote(a, url)
        code, out, err = run(capsys, a, "sync", "--json")
        error = json.loads(out)["error"]
        assert (code, error["code"]) == (4, "remote_unreachable"), out + err
        assert "deny updating a hidden ref" in error["message"]
        assert "`transfer.hideRefs` or `receive.hideRefs`" in error["message"]
        assert "Resolving deltas" not in error["message"] and "%" not in error["message"]
        code, _out, err = run(capsys, a, "sync")
        assert code == 4 and "on a ref it does not hide with --ref" in err


def test_the_remotes_words_keep_a_hooks_reason_and_drop_git_progress_lines():
    from baton.sync.transport import remote_words

    said = ("Resolving deltas:   0% (0/7)\rResolving deltas: 100% (7/7), done.\n"
            "Total 9 (delta 2), reused 0 (delta 0)\npolicy: ledger pushes need approval\n")
    assert remote_words(said) == "policy: ledger pushes need approval"
    assert remote_words("Resolving deltas: 100% (7/7), done.\n") == ""


# -- an ssh remote, through the ssh program git would run -----------------------------------------

FAKE_SSH = """#!/bin/sh
# an ssh stand-in: skip ssh's options and the host, run the git command here
while [ $# -gt 0 ]; do case "$1" in -p|-o|-i|-l) shift 2;; -*) shift;; *) break;; esac; done
shift
echo "$*" >> "$0.log"
exec sh -c "$*"
"""


def _fake_ssh(tmp_path: Path) -> Path:
    program = tmp_path / "fake-ssh"
    program.write_text(FAKE_SSH)
    program.chmod(0o755)
    return program


@pytest.mark.parametrize("variable", ["GIT_SSH_COMMAND", "GIT_SSH"])
def test_an_ssh_remote_goes_through_the_ssh_program_the_environment_names_as_git_does(
        capsys, team, tmp_path, monkeypatch, variable):
    remote, a, b = team
    program = _fake_ssh(tmp_path)
    monkeypatch.setenv(variable, str(program))  # a deploy key in CI: GIT_SSH_COMMAND="ssh -i key"
    set_remote(a, f"ssh://git@git.invalid{remote}")  # no such host: only the named program can reach it
    _checkpoint(capsys, a, "over ssh")
    result = run_json(capsys, a, "sync")
    assert result["pushed"] is True and _writer(a) in remote_feeds(remote)
    said = program.with_name("fake-ssh.log").read_text()
    assert "git-upload-pack" in said and "git-receive-pack" in said


def test_git_ssh_names_a_program_whose_path_may_hold_a_space(capsys, team, tmp_path, monkeypatch):
    remote, a, _b = team
    folder = tmp_path / "My Tools"
    folder.mkdir()
    program = _fake_ssh(folder)
    monkeypatch.delenv("GIT_SSH_COMMAND", raising=False)
    monkeypatch.setenv("GIT_SSH", str(program))  # git runs GIT_SSH as one path, never split into words
    set_remote(a, f"ssh://git@git.invalid{remote}")
    _checkpoint(capsys, a, "over ssh")
    assert run_json(capsys, a, "sync")["pushed"] is True
    assert "git-receive-pack" in program.with_name("fake-ssh.log").read_text()


def test_core_ssh_command_wins_over_git_ssh_as_in_git(capsys, team, tmp_path, monkeypatch):
    import subprocess

    remote, a, _b = team
    places = [tmp_path / "configured", tmp_path / "environment"]
    for place in places:
        place.mkdir()
    configured, environment = (_fake_ssh(place) for place in places)
    monkeypatch.delenv("GIT_SSH_COMMAND", raising=False)
    monkeypatch.setenv("GIT_SSH", str(environment))
    subprocess.run(["git", "-C", str(a), "config", "core.sshCommand", str(configured)], check=True)
    set_remote(a, f"ssh://git@git.invalid{remote}")
    _checkpoint(capsys, a, "over ssh")
    assert run_json(capsys, a, "sync")["pushed"] is True
    assert "git-receive-pack" in configured.with_name("fake-ssh.log").read_text()
    assert not environment.with_name("fake-ssh.log").exists()


def test_a_verified_https_remote_leaves_the_warnings_filters_as_they_were(team, monkeypatch):
    import warnings

    from dulwich.repo import Repo

    from baton.sync.transport import client

    _remote, a, _b = team
    monkeypatch.delenv("GIT_SSL_NO_VERIFY", raising=False)
    with warnings.catch_warnings():
        before = list(warnings.filters)
        client(Repo(str(a)), "https://git.invalid/team.git", a)
        assert warnings.filters == before
        monkeypatch.setenv("GIT_SSL_NO_VERIFY", "1")
        client(Repo(str(a)), "https://git.invalid/team.git", a)
        assert warnings.filters != before  # asked for: urllib3's warning at each request is not shown


@pytest.mark.parametrize(("says", "code", "hint"), [
    ("git@example.com: Permission denied (publickey).", "remote_auth_failed", "GIT_SSH_COMMAND"),
    ("Host key verification failed.", "remote_unreachable", "accept it"),
    ("ssh: connect to host git.invalid port 22: Connection refused", "remote_unreachable",
     "cannot connect: ssh: connect to host git.invalid port 22: Connection refused; is the server up?"),
    ("ssh: Could not resolve hostname git.invalid: Name or service not known", "remote_unreachable",
     "is the host name right?"),
    ("fatal: 'team/project.git' does not appear to be a git repository", "remote_unreachable",
     "the server has no git repository at that URL"),
])
def test_an_ssh_refusal_is_exit_4_in_ssh_s_words_with_what_to_do(capsys, team, tmp_path, monkeypatch, says, code,
                                                                hint):
    _remote, a, _b = team
    program = tmp_path / "refusing-ssh"
    program.write_text(f"#!/bin/sh\necho {shlex.quote(says)} >&2\nexit 255\n")
    program.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(program))
    set_remote(a, "git@git.invalid:team/project.git")
    status, out, err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (status, error["code"]) == (4, code), out + err
    assert says in error["message"] and hint in error["message"] and "Traceback" not in err


# -- a remote whose ref names leave no room for the ledger ref -------------------------------------

@pytest.mark.parametrize(("transport", "taken"), [("path", "refs/baton/ledger/old"), ("http", "refs/baton/ledger/old"),
                                                  ("http", "refs/baton")])  # dulwich lists no one-level ref
def test_a_remote_ref_that_leaves_no_room_for_the_ledger_ref_is_named_not_retried_as_a_race(
        capsys, team, transport, taken):
    import subprocess

    remote, a, _b = team
    subprocess.run(["git", "-C", str(remote), "update-ref", taken, "refs/heads/master"], check=True)
    _checkpoint(capsys, a, "no room")
    with _http_remote(remote, lambda method, path: None) as url:
        set_remote(a, url if transport == "http" else str(remote))
        code, out, err = run(capsys, a, "sync", "--json")
        error = json.loads(out)["error"]
        assert (code, error["code"]) == (4, "remote_unreachable"), out + err
        assert "kept moving" not in error["message"] and "Is a directory" not in error["message"]
        assert f"the remote holds {taken}, so it cannot hold {REF.decode()} too" in error["message"]
        assert f"`git push origin --delete {taken}`" in error["message"] and error["details"]["refs"] == [taken]
        code, _out, err = run(capsys, a, "sync")
        assert code == 4 and "Sync every clone on another ref with --ref" in err
    assert REF not in refs_of(a)  # nothing was committed for a push that could not be


def test_a_one_level_ref_in_the_way_on_a_path_remote_is_named_as_in_the_way_not_an_os_error(capsys, team):
    import subprocess

    remote, a, _b = team
    subprocess.run(["git", "-C", str(remote), "update-ref", "refs/baton", "refs/heads/master"], check=True)
    _checkpoint(capsys, a, "no room")
    code, out, err = run(capsys, a, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_unreachable"), out + err
    assert "the remote's refs leave no room for the ledger ref" in error["message"]
    assert "kept moving" not in error["message"] and "Traceback" not in err


@pytest.mark.parametrize("name", ["team ledger.git", "équipe.git"])
def test_a_file_url_with_escaped_characters_reaches_the_repository_git_reaches(capsys, team, tmp_path, name):
    from dulwich.repo import Repo

    _remote, a, _b = team
    there = tmp_path / name
    Repo.init_bare(str(there), mkdir=True).close()
    set_remote(a, there.as_uri())  # file:///…/team%20ledger.git, as Path.as_uri() and git write it
    _checkpoint(capsys, a, "over file://")
    result = run_json(capsys, a, "sync")
    assert result["pushed"] is True and _writer(a) in remote_feeds(there)


def test_an_http_extra_header_git_config_names_carries_the_credentials_as_a_ci_checkout_sets_it(capsys, team):
    import base64
    import subprocess

    remote, a, _b = team
    _checkpoint(capsys, a, "from CI")
    with _http_remote(remote, lambda method, path: None) as url:
        bare = url.replace("alice:s3cret-pass@", "")
        set_remote(a, bare)  # no credentials in the URL: a header carries them
        token = base64.b64encode(b"alice:s3cret-pass").decode()
        subprocess.run(["git", "-C", str(a), "config", f"http.{bare.rsplit('/', 1)[0]}/.extraheader",
                        f"AUTHORIZATION: Basic {token}"], check=True)
        result = run_json(capsys, a, "sync")
    assert result["pushed"] is True and _writer(a) in remote_feeds(remote)


# -- an https remote whose certificate a CA of the team's own signed -------------------------------

@pytest.mark.parametrize("told", ["none", "GIT_SSL_CAINFO", "GIT_SSL_NO_VERIFY", "http.sslCAInfo"])
def test_an_https_remote_is_verified_with_the_ca_git_is_told_of_in_its_environment_or_config(
        capsys, team, tmp_path, monkeypatch, told):
    import shutil
    import subprocess

    from tests.http_git_support import self_signed, serve

    if shutil.which("openssl") is None:
        pytest.skip("needs openssl")
    remote, a, _b = team
    for name in ("GIT_SSL_CAINFO", "GIT_SSL_NO_VERIFY", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    cert, key = self_signed(tmp_path)
    _checkpoint(capsys, a, "over https")
    with serve(remote.parent, "alice", "pw", tls=(cert, key)) as base:
        set_remote(a, f"{base.replace('https://', 'https://alice:pw@')}/{remote.name}")
        if told == "GIT_SSL_CAINFO":
            monkeypatch.setenv("GIT_SSL_CAINFO", str(cert))  # a company's CA, as git is told of it
        elif told == "GIT_SSL_NO_VERIFY":
            monkeypatch.setenv("GIT_SSL_NO_VERIFY", "1")
        elif told == "http.sslCAInfo":
            subprocess.run(["git", "-C", str(a), "config", "http.sslCAInfo", str(cert)], check=True)
        code, out, err = run(capsys, a, "sync", "--json")
    if told == "none":
        error = json.loads(out)["error"]
        assert (code, error["code"]) == (4, "remote_unreachable") and "CERTIFICATE_VERIFY_FAILED" in out, out
    else:
        assert code == 0 and json.loads(out)["pushed"] is True, out + err
        assert _writer(a) in remote_feeds(remote)


# -- a path or URL given as the remote, as `git fetch URL` takes one (team16 G3) ---------------

def _remotes_configured(clone: Path) -> list[str]:
    return subprocess.run(["git", "-C", str(clone), "remote"], capture_output=True, text=True,
                          check=True).stdout.split()


def _given(kind: str, remote: Path) -> str:
    return str(remote) if kind == "path" else remote.as_uri()


@pytest.mark.parametrize("kind", ["path", "file"])
def test_a_path_or_file_url_given_as_the_remote_is_synced_with_and_no_remote_is_configured(capsys, team, kind):
    remote, a, b = team
    _checkpoint(capsys, a, "shared through a path given on the command line")
    before = _remotes_configured(a)
    result = run_json(capsys, a, "sync", "--remote", _given(kind, remote))
    assert result["pushed"] is True and _writer(a) in remote_feeds(remote)
    assert result["remote"] == _given(kind, remote)
    assert _remotes_configured(a) == before  # used for this sync only
    assert run_json(capsys, a, "status")["sync"]["unshared"] == 0  # status counts the work as shared
    got = run_json(capsys, b, "sync", "--remote", _given(kind, remote))
    assert got["imported"] == {_writer(a): remote_feeds(remote)[_writer(a)].head.seq}


def test_a_relative_path_given_as_the_remote_is_found_from_the_top_of_the_work_tree_as_git_fetch_finds_it(
        capsys, team, monkeypatch):
    remote, a, _b = team
    _checkpoint(capsys, a, "from a subfolder")
    deep = a / "src"
    deep.mkdir()
    code, result = _sync_from(capsys, monkeypatch, deep, "--remote", "../remote.git")
    assert code == 0, result
    assert result["pushed"] is True and refs_of(remote)[REF] == refs_of(a)[REF]


def test_a_smart_http_url_given_as_the_remote_syncs_and_its_password_is_never_shown(capsys, team):
    from tests.http_git_support import serve

    remote, a, b = team
    _checkpoint(capsys, a, "over http, given on the command line")
    with serve(remote.parent, "alice", "s3cret-pass") as base:
        url = f"{base.replace('http://', 'http://alice:s3cret-pass@')}/{remote.name}"
        code, out, err = run(capsys, a, "sync", "--remote", url, "--json")
        assert code == 0, out + err
        assert json.loads(out)["remote"] == f"{base.replace('http://', 'http://alice:***@')}/{remote.name}"
        code, out, err = run(capsys, b, "sync", "--remote", url)
    assert code == 0, out + err
    assert _writer(a) in remote_feeds(remote) and (b / ".baton" / "ledger" / f"{_writer(a)}.jsonl").exists()
    assert "s3cret-pass" not in out + err and "alice:***@" in out


def test_a_path_given_as_the_remote_that_is_not_a_git_repository_is_exit_4_in_one_clean_line(capsys, team,
                                                                                              tmp_path):
    _remote, a, _b = team
    plain = tmp_path / "just-a-folder"
    plain.mkdir()
    for given in (str(plain), str(tmp_path / "no-such.git")):
        code, out, err = run(capsys, a, "sync", "--remote", given, "--json")
        error = json.loads(out)["error"]
        assert (code, error["code"]) == (4, "remote_unreachable"), out + err
        assert error["details"]["url"] == given and "Traceback" not in err
    code, out, err = run(capsys, a, "sync", "--remote", str(plain))
    assert code == 4 and err.count("\n") == 1 and "Traceback" not in err, err


def test_an_http_url_given_as_the_remote_with_no_repository_behind_it_says_so(capsys, team):
    from tests.http_git_support import serve

    remote, a, _b = team
    with serve(remote.parent, "alice", "s3cret-pass") as base:
        code, out, err = run(capsys, a, "sync", "--json", "--remote",
                             f"{base.replace('http://', 'http://alice:s3cret-pass@')}/no-such.git")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_unreachable"), out + err
    assert "the server has no git repository at that URL" in error["message"] and "s3cret-pass" not in out


def test_a_url_given_as_the_remote_holding_another_projects_ledger_is_refused_as_a_named_one_is(capsys, team,
                                                                                               tmp_path):
    from dulwich import porcelain

    from tests.app_support import init_project

    remote, a, _b = team
    _checkpoint(capsys, a, "the team's work")
    assert run_json(capsys, a, "sync")["pushed"]
    other = tmp_path / "other"
    other.mkdir()
    porcelain.init(str(other)).close()
    init_project(other)
    _checkpoint(capsys, other, "another project's work")
    before = refs_of(remote)[REF]
    code, out, err = run(capsys, other, "sync", "--remote", remote.as_uri(), "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_other_project"), out + err
    assert refs_of(remote)[REF] == before and REF not in refs_of(other)


def test_a_name_that_is_neither_a_remote_nor_a_path_or_url_is_still_no_such_remote(capsys, team):
    _remote, a, _b = team
    code, out, err = run(capsys, a, "sync", "--remote", "orgin", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "no_sync_remote"), out + err
    assert "did you mean 'origin'?" in error["message"] and "path or URL" in error["message"]


def test_a_configured_remote_wins_over_a_folder_of_the_same_name(capsys, team, tmp_path):
    remote, a, _b = team
    set_remote(a, str(remote), name="team.git")  # a name that looks like a path
    (a / "team.git").mkdir()  # and a folder of that name that is no repository
    _checkpoint(capsys, a, "through the named remote")
    result = run_json(capsys, a, "sync", "--remote", "team.git")
    assert result["pushed"] is True and result["remote"] == "team.git"
