"""Two terminals on one repository, through the real CLI; and owner/branch resolution."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dulwich import porcelain

from baton.commands.identity import resolve_branch, resolve_context, resolve_owner
from tests.cli_support import run_here
from tests.conftest import run_baton


def git_repo(path: Path, *, email: str | None = "alice@example.com", name: str | None = "Alice",
             branch: str = "feature/login") -> Path:
    porcelain.init(str(path))
    lines = ["[core]", "\trepositoryformatversion = 0", "\tbare = false"]
    if email or name:
        lines.append("[user]")
        if email:
            lines.append(f"\temail = {email}")
        if name:
            lines.append(f"\tname = {name}")
    (path / ".git" / "config").write_text("\n".join(lines) + "\n")
    (path / "README").write_text("hi\n")
    porcelain.add(str(path), [str(path / "README")])
    porcelain.commit(str(path), message=b"init", author=b"A <a@example.com>", committer=b"A <a@example.com>")
    porcelain.branch_create(str(path), branch)
    porcelain.checkout(str(path), branch)
    return path


@pytest.fixture
def repo(tmp_path):
    """A git repository initialised for Baton, in this process (``baton init`` runs as a child
    process in test_cli_core.py and below, in the feature_x test)."""
    path = git_repo(tmp_path / "repo")
    scene_json("init", cwd=path)
    return path


def baton_json(*args, cwd):
    r = run_baton(*args, "--json", cwd=cwd)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    return json.loads(r.stdout)


def scene_json(*args, cwd):
    """``baton_json`` in this process, for the steps that set a scene up (the commands a test
    proves something about run as child processes)."""
    code, out, err = run_here(*args, "--json", cwd=cwd)
    assert code == 0, err
    return json.loads(out)


# -- resolution -----------------------------------------------------------------------

def test_owner_is_git_user_email_and_branch_the_current_branch(tmp_path):
    path = git_repo(tmp_path)
    ctx = resolve_context(path)
    assert (ctx.owner, ctx.branch) == ("alice@example.com", "feature/login")


def test_owner_falls_back_to_git_user_name(tmp_path):
    path = git_repo(tmp_path, email=None, name="Alice")
    assert resolve_owner(path) == "Alice"


def test_owner_falls_back_to_the_os_user_then_local(tmp_path, monkeypatch):
    import pwd

    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("USER", "osuser")
    assert resolve_owner(tmp_path) == "osuser"

    def fail(uid):
        raise KeyError(uid)

    monkeypatch.delenv("USER")
    monkeypatch.setattr(pwd, "getpwuid", fail)
    assert resolve_owner(tmp_path) == "local"


def test_the_os_user_name_is_the_one_getpass_finds(monkeypatch):
    import getpass

    from baton.writer_id import user_name

    assert user_name() == getpass.getuser()
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(name, raising=False)
    assert user_name() == getpass.getuser()  # from the password database


def test_branch_outside_git_is_unknown(tmp_path):
    assert resolve_branch(tmp_path) == "unknown"


def test_explicit_owner_and_branch_win(tmp_path):
    path = git_repo(tmp_path)
    ctx = resolve_context(path, owner="bob@example.com", branch="main")
    assert (ctx.owner, ctx.branch) == ("bob@example.com", "main")


def test_git_failures_fall_back_silently(tmp_path, monkeypatch):
    from baton import gitinfo

    def boom(*_a, **_k):
        raise RuntimeError("broken repository")

    monkeypatch.setattr(gitinfo, "config_value", boom)
    monkeypatch.setattr(gitinfo, "current_branch", boom)
    ctx = resolve_context(tmp_path)
    assert ctx.branch == "unknown" and ctx.owner


# -- two terminals -----------------------------------------------------------------------

def test_two_terminals_on_one_repository(repo):
    # Terminal 1 ends its session with a baton.
    ended = baton_json("session", "end", "s-101", "--harness", "claude-code",
                       "--handoff-steps", "Add the duplicate-callback fixture,Run the auth suite",
                       "--handoff-failed", "Mocking the provider clock",
                       "--handoff-questions", "400 or 409?", cwd=repo)
    baton = ended["handoff"]
    assert (baton["owner"], baton["branch"], baton["shared"]) == ("alice@example.com", "feature/login", False)
    assert baton["nextSteps"] == ["Add the duplicate-callback fixture", "Run the auth suite"]
    assert (repo / ".baton" / "batons" / "alice%40example.com__feature_login.json").is_file()

    # It is a handoff: the lifecycle sees it.
    assert (repo / ".baton" / "handoffs").is_dir()
    assert any(p.name.endswith(".json") for p in (repo / ".baton" / "handoffs").iterdir())

    # Terminal 2 (same owner, same branch) begins a session: it receives and claims the baton.
    r = run_baton("session", "begin", "--harness", "codex", "--session-id", "s-102", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert "## 🤝 Active Session Handoff" in r.stdout
    assert "1. Add the duplicate-callback fixture" in r.stdout
    assert "Mocking the provider clock" in r.stdout

    # A third start gets nothing: single use.
    again = baton_json("bootstrap", "--session-id", "s-103", cwd=repo)
    assert again["handoff"] is None and "## 🤝 Active Session Handoff" not in again["brief"]

    metrics = baton_json("metrics", "--local", cwd=repo)["metrics"]
    assert metrics["handoff_created"] == 1 and metrics["handoff_claimed"] == 1


def test_a_teammate_on_the_same_repository_never_receives_a_private_baton(repo):
    scene_json("session", "end", "s1", "--handoff-steps", "Mine only", cwd=repo)
    bob = baton_json("bootstrap", "--owner", "bob@example.com", cwd=repo)
    assert bob["handoff"] is None
    other_branch = baton_json("bootstrap", "--branch", "main", cwd=repo)
    assert other_branch["handoff"] is None
    assert baton_json("session", "handoff", cwd=repo)["handoff"]["nextSteps"] == ["Mine only"]


def test_a_private_batons_failed_approach_never_reaches_another_owner_on_another_branch(repo):
    r = run_baton("session", "end", "s1", "--handoff-steps", "alice private step",
                  "--handoff-failed", "alice private failed approach", "--owner", "alice", "--branch", "main",
                  cwd=repo)
    assert r.returncode == 0, r.stderr
    bob = run_baton("bootstrap", "--owner", "bob", "--branch", "other", cwd=repo)
    assert bob.returncode == 0, bob.stderr
    assert "alice private" not in bob.stdout
    assert "Traps" not in bob.stdout


def test_a_shared_baton_reaches_a_teammate_on_another_branch(repo):
    baton_json("session", "end", "s1", "--handoff-steps", "For everyone", "--shared", cwd=repo)
    assert (repo / ".baton" / "batons" / "_shared.json").is_file()
    bob = baton_json("bootstrap", "--owner", "bob@example.com", "--branch", "main", cwd=repo)
    assert bob["handoff"]["nextSteps"] == ["For everyone"]


def test_session_end_without_a_non_empty_step_exits_2_with_the_exact_message(repo):
    before = run_baton("log", "--json", cwd=repo).stdout.count("\n")
    r = run_baton("session", "end", "s1", "--handoff-steps", " , ", "--handoff-failed", "x", cwd=repo)
    assert r.returncode == 2
    assert r.stderr.strip() == "baton: handoff.nextSteps must contain at least one non-empty step."
    assert run_baton("log", "--json", cwd=repo).stdout.count("\n") == before


def test_session_end_without_handoff_flags_leaves_no_baton(repo):
    out = baton_json("session", "end", "s1", cwd=repo)
    assert out["ended"] is True and out["handoff"] is None
    assert baton_json("session", "handoff", "--all", cwd=repo) == {"items": [], "total": 0}


def test_session_end_of_an_id_never_begun_is_recorded_and_says_no_start_was_recorded(repo):
    r = run_baton("session", "end", "never-begun", cwd=repo)
    assert r.returncode == 0
    assert "Session never-begun ended." in r.stdout
    assert r.stderr.strip() == ("baton: no start was recorded for session never-begun; its end is recorded all the "
                                "same (check the id if you meant a session begun here)")
    assert '"session.ended"' in run_baton("log", "--json", cwd=repo).stdout


def test_session_end_json_says_whether_a_start_was_recorded_for_the_id(repo):
    missed = run_baton("session", "end", "missed", "--json", cwd=repo)
    assert missed.returncode == 0 and missed.stderr == ""
    assert json.loads(missed.stdout)["begun"] is False
    assert run_baton("session", "begin", "seen", cwd=repo).returncode == 0
    seen = run_baton("session", "end", "seen", cwd=repo)
    assert seen.returncode == 0 and seen.stderr == ""
    assert baton_json("session", "end", "seen", cwd=repo)["begun"] is True


def test_session_end_takes_a_json_payload_from_stdin(repo):
    payload = {"nextSteps": ["Step, with a comma"], "openQuestions": ["Why?"]}
    r = run_baton("session", "end", "s1", "--handoff-input", "-", "--json", cwd=repo, input=json.dumps(payload))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["handoff"]["nextSteps"] == ["Step, with a comma"]


def test_malformed_handoff_input_on_stdin_names_the_flag_and_stdin(repo):
    r = run_baton("session", "end", "s1", "--handoff-input", "-", cwd=repo, input="{nope")
    assert r.returncode == 2
    assert r.stderr.startswith("baton: --handoff-input stdin is not valid JSON"), r.stderr


def test_cancel_with_nothing_to_cancel_answers_cancelled_false_and_exits_0(repo):
    r = run_baton("session", "handoff", "--cancel", "--json", cwd=repo)
    assert r.returncode == 0
    assert json.loads(r.stdout)["cancelled"] is False


def test_handoff_all_lists_pending_and_dismiss_removes_one(repo):
    mine = scene_json("session", "end", "s1", "--handoff-steps", "A", cwd=repo)["handoff"]
    scene_json("session", "end", "s2", "--handoff-steps", "B", "--owner", "bob@example.com", cwd=repo)
    listed = baton_json("session", "handoff", "--all", cwd=repo)
    assert listed["total"] == 2
    dismissed = baton_json("session", "handoff", "--dismiss", mine["id"], cwd=repo)
    assert dismissed["dismissed"] is True
    assert baton_json("session", "handoff", "--all", cwd=repo)["total"] == 1


def test_dismiss_of_a_claimed_or_unknown_baton_exits_4(repo):
    mine = scene_json("session", "end", "s1", "--handoff-steps", "A", cwd=repo)["handoff"]
    scene_json("session", "begin", "--session-id", "s2", cwd=repo)
    claimed = run_baton("session", "handoff", "--dismiss", mine["id"], "--json", cwd=repo)
    assert claimed.returncode == 4
    assert json.loads(claimed.stdout)["error"]["code"] == "baton_already_claimed"
    unknown = run_baton("session", "handoff", "--dismiss", "01234567-89ab-7def-8123-456789abcdef", cwd=repo)
    assert unknown.returncode == 4 and "Traceback" not in unknown.stderr


def test_dismiss_of_an_unknown_baton_says_where_the_pending_ids_are(repo):
    unknown = run_baton("session", "handoff", "--dismiss", "nope", "--json", cwd=repo)
    assert unknown.returncode == 4
    assert unknown.stderr == ("baton: no baton with id 'nope'; `baton session handoff --all` lists the pending "
                              "batons\n")
    assert json.loads(unknown.stdout)["error"]["code"] == "not_found"


def _switch(repo: Path, branch: str, *, create: bool = True) -> None:
    if create:
        porcelain.branch_create(str(repo), branch)
    porcelain.checkout(str(repo), branch)


def test_a_baton_left_on_feature_x_is_neither_delivered_on_feature_slash_x_nor_superseded_from_there(tmp_path):
    repo = git_repo(tmp_path / "repo", branch="feature_x")
    assert run_baton("init", cwd=repo).returncode == 0
    underscore = baton_json("session", "end", "s1", "--handoff-steps", "Underscore work", cwd=repo)["handoff"]
    _switch(repo, "feature/x")
    assert baton_json("session", "begin", "--session-id", "s2", cwd=repo)["handoff"] is None
    refused = run_baton("session", "end", "s2", "--handoff-steps", "Slash work", "--json", cwd=repo)
    assert refused.returncode == 4 and "Traceback" not in refused.stderr
    error = json.loads(refused.stdout)["error"]
    assert error["code"] == "baton_key_held" and error["exit_code"] == 4
    assert error["details"]["pending"] == {"handoff_id": underscore["id"], "owner": "alice@example.com",
                                           "branch": "feature_x", "created_at": underscore["createdAt"],
                                           "session_id": "s1"}
    assert "'feature/x'" in error["message"] and "'feature_x'" in error["message"]
    assert f"--dismiss {underscore['id']} in `baton session handoff`" in error["message"]
    assert "make this baton --shared" in error["message"]
    _switch(repo, "feature_x", create=False)
    received = baton_json("session", "begin", "--session-id", "s3", cwd=repo)["handoff"]
    assert received["id"] == underscore["id"] and received["nextSteps"] == ["Underscore work"]


def test_objectives_set_on_feature_x_and_feature_slash_x_each_reach_their_own_branchs_brief(tmp_path):
    repo = git_repo(tmp_path / "repo", branch="feature_x")
    assert run_baton("init", cwd=repo).returncode == 0
    baton_json("session", "begin", "--session-id", "s1", "--objective", "Underscore goal", cwd=repo)
    _switch(repo, "feature/x")
    baton_json("session", "begin", "--session-id", "s2", "--objective", "Slash goal", cwd=repo)
    slash = baton_json("bootstrap", "--session-id", "s2", cwd=repo)["sessionObjective"]
    _switch(repo, "feature_x", create=False)
    underscore = baton_json("bootstrap", "--session-id", "s1", cwd=repo)["sessionObjective"]
    assert (slash["branch"], slash["objective"], slash["sessionId"]) == ("feature/x", "Slash goal", "s2")
    assert (underscore["branch"], underscore["objective"], underscore["sessionId"]) == (
        "feature_x", "Underscore goal", "s1")


def test_bootstrap_outside_a_project_says_to_run_init(tmp_path):
    r = run_baton("bootstrap", "--project", str(tmp_path))
    assert r.returncode == 4 and "baton init" in r.stderr
