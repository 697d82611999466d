"""``install-hooks --harness claude-code`` creates ``.claude/settings.local.json``, a
file of this machine that Claude Code keeps personal: in a git repository the
install adds it to the clone's ``info/exclude`` (never committed; not the
team's ``.gitignore``), once; ``--remove`` takes out exactly that line, and
only if the install added it; ``--dry-run`` shows it. Checked with the real
git binary, as a user meets it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from baton.harnesses.install import install_hooks
from baton.harnesses.wiring import remove_wiring
from tests.cli_support import run
from tests.conftest import run_baton

LOCAL = ".claude/settings.local.json"
LINE = b"/.claude/settings.local.json\n"


def _git(cwd, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60)


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    assert _git(root, "init", "-q").returncode == 0
    return root


def _exclude(repo) -> bytes:
    return (repo / ".git" / "info" / "exclude").read_bytes()


def _ignored(repo, path: str = LOCAL) -> bool:
    return _git(repo, "check-ignore", "-q", path).returncode == 0


def test_installing_in_a_git_repository_keeps_the_local_settings_out_of_git(repo):
    install_hooks(repo, "claude-code")
    assert (repo / LOCAL).is_file()
    assert _ignored(repo)
    assert LOCAL not in _git(repo, "status", "--porcelain", "-uall").stdout
    assert not _ignored(repo, ".claude/settings.json")  # the team's files stay committable
    assert not (repo / ".gitignore").exists()


def test_installing_twice_adds_the_exclude_line_once(repo):
    install_hooks(repo, "claude-code")
    once = _exclude(repo)
    install_hooks(repo, "claude-code")
    assert _exclude(repo) == once
    assert once.count(LINE) == 1


def test_remove_gives_back_info_exclude_byte_for_byte(repo):
    (repo / ".git" / "info" / "exclude").write_bytes(b"# mine\n*.log")  # no final newline
    install_hooks(repo, "claude-code")
    assert _exclude(repo) == b"# mine\n*.log\n" + LINE
    remove_wiring(repo, "claude-code")
    assert _exclude(repo) == b"# mine\n*.log"


def test_remove_deletes_an_info_exclude_the_install_created(repo):
    (repo / ".git" / "info" / "exclude").unlink()
    install_hooks(repo, "claude-code")
    assert _exclude(repo) == LINE
    remove_wiring(repo, "claude-code")
    assert not (repo / ".git" / "info" / "exclude").exists()


def test_remove_takes_out_only_its_line_when_the_user_added_others_after_it(repo):
    before = _exclude(repo)
    install_hooks(repo, "claude-code")
    with open(repo / ".git" / "info" / "exclude", "ab") as fh:
        fh.write(b"build/\n")
    remove_wiring(repo, "claude-code")
    assert _exclude(repo) == before + b"build/\n"


def test_remove_keeps_an_exclude_line_the_user_wrote_before_the_install(repo):
    with open(repo / ".git" / "info" / "exclude", "ab") as fh:
        fh.write(LINE)
    before = _exclude(repo)
    install_hooks(repo, "claude-code")
    assert _exclude(repo) == before
    remove_wiring(repo, "claude-code")
    assert _exclude(repo) == before


def _users_local_settings(repo) -> None:
    """A ``.claude/settings.local.json`` of the person's own, there before any install."""
    (repo / ".claude").mkdir()
    (repo / LOCAL).write_text('{"outputStyle": "terse"}\n')


def test_an_existing_local_settings_file_git_neither_tracks_nor_ignores_is_excluded_by_the_install(repo):
    """The file is this machine's (Baton writes its server's approval into it): left committable,
    ``doctor`` would warn of it at once (tester28 T3)."""
    _users_local_settings(repo)
    install_hooks(repo, "claude-code")
    assert _ignored(repo)


def test_rerunning_the_install_adds_the_exclude_line_doctor_says_is_missing_and_says_so(repo, capsys):
    """doctor's advice ("run `baton install-hooks` here again, which adds it") does what it says."""
    (repo / ".claude").mkdir()
    (repo / LOCAL).write_text('{"permissions": {"allow": []}}\n')
    install_hooks(repo, "claude-code")
    (repo / ".git" / "info" / "exclude").write_bytes(_exclude(repo).replace(LINE, b""))  # taken out by hand
    [warned] = [c for c in json.loads(run_baton("doctor", "--json", cwd=repo).stdout)["checks"] if LOCAL in c["name"]]
    assert "run `baton install-hooks` here again, which adds it" in warned["detail"]

    code, out, _ = run(capsys, repo, "install-hooks", "--harness", "claude-code")

    assert code == 0 and "claude-code: updated .git/info/exclude" in out
    assert f"git ignores {LOCAL} in this clone only" in out
    assert _ignored(repo)
    assert not [c for c in json.loads(run_baton("doctor", "--json", cwd=repo).stdout)["checks"] if LOCAL in c["name"]]


@pytest.mark.parametrize("kept_by", ["tracked", "the team's .gitignore"])
def test_a_local_settings_file_git_tracks_or_ignores_already_gets_no_exclude_line(repo, kept_by):
    _users_local_settings(repo)
    if kept_by == "tracked":
        assert _git(repo, "add", LOCAL).returncode == 0
    else:
        (repo / ".gitignore").write_text(".claude/settings.local.json\n")
    before = _exclude(repo)
    install_hooks(repo, "claude-code")
    assert _exclude(repo) == before


def test_remove_takes_out_the_line_added_for_an_existing_local_settings_file_and_keeps_the_file(repo):
    _users_local_settings(repo)
    before = _exclude(repo)
    install_hooks(repo, "claude-code")
    remove_wiring(repo, "claude-code")
    assert _exclude(repo) == before
    assert (repo / LOCAL).read_text() == '{"outputStyle": "terse"}\n'


def test_a_dry_run_shows_the_exclude_line_and_writes_nothing(repo, capsys):
    before = _exclude(repo)
    code, out, _err = run(capsys, repo, "install-hooks", "--harness", "claude-code", "--dry-run")
    assert code == 0
    assert "+++ b/.git/info/exclude" in out and "+/.claude/settings.local.json" in out
    assert "git ignores .claude/settings.local.json in this clone only" in out
    assert _exclude(repo) == before


def test_a_remove_dry_run_shows_the_line_it_would_take_out(repo, capsys):
    install_hooks(repo, "claude-code")
    installed = _exclude(repo)
    code, out, _err = run(capsys, repo, "install-hooks", "--harness", "claude-code", "--remove", "--dry-run")
    assert code == 0 and "-/.claude/settings.local.json" in out
    assert _exclude(repo) == installed


def test_the_json_result_lists_the_exclude_file(repo, capsys):
    code, out, _err = run(capsys, repo, "install-hooks", "--harness", "claude-code", "--json")
    assert code == 0
    [exclude] = [f for f in json.loads(out)["files"] if f["path"] == ".git/info/exclude"]
    assert exclude["action"] == "updated" and "+/.claude/settings.local.json" in exclude["diff"]


def test_in_a_linked_worktree_the_line_goes_to_the_common_git_dir(repo, tmp_path):
    assert _git(repo, "-c", "user.name=A", "-c", "user.email=a@x", "commit", "-q", "--allow-empty",
                "-m", "x").returncode == 0
    linked = tmp_path / "linked"
    assert _git(repo, "worktree", "add", "-q", str(linked)).returncode == 0
    assert run_baton("init", "--project", str(repo)).returncode == 0
    done = run_baton("install-hooks", "--harness", "claude-code", cwd=linked)
    assert done.returncode == 0, done.stderr
    assert (linked / LOCAL).is_file()
    assert LINE in _exclude(repo)  # info/exclude is the common dir's, read by every worktree
    assert _ignored(linked)
    removed = run_baton("install-hooks", "--harness", "claude-code", "--remove", cwd=linked)
    assert removed.returncode == 0, removed.stderr
    assert LINE not in _exclude(repo)


def test_outside_git_no_exclude_is_written(project_dir):
    result = install_hooks(project_dir, "claude-code")
    assert [c.path for c in result.changes if "exclude" in c.path] == []


@pytest.mark.parametrize("harness", ["codex", "gemini-cli", "cursor"])
def test_other_harnesses_files_are_the_teams_and_are_not_excluded(repo, harness):
    before = _exclude(repo)
    install_hooks(repo, harness)
    assert _exclude(repo) == before


# --- a copied or moved project edits only its own clone's file -------------------------------

def test_remove_in_a_copied_project_leaves_the_original_clones_exclude(repo, tmp_path):
    install_hooks(repo, "claude-code")
    copy = tmp_path / "copy"
    assert subprocess.run(["cp", "-a", str(repo), str(copy)], timeout=60).returncode == 0
    remove_wiring(copy, "claude-code")
    assert LINE in _exclude(repo)
    assert LINE not in _exclude(copy)


def test_remove_after_moving_the_project_takes_out_the_line(repo, tmp_path):
    install_hooks(repo, "claude-code")
    moved = tmp_path / "moved"
    repo.rename(moved)
    remove_wiring(moved, "claude-code")
    assert LINE not in _exclude(moved)


def test_the_record_names_the_exclude_file_relative_to_the_git_dir(repo):
    install_hooks(repo, "claude-code")
    record = json.loads((repo / ".baton" / "install-originals" / "claude-code" / "git-info-exclude.json")
                        .read_text())
    assert record["exclude"] == "info/exclude"


def test_remove_ignores_an_absolute_path_an_older_record_names(repo, tmp_path):
    install_hooks(repo, "claude-code")
    other = tmp_path / "other-exclude"
    other.write_bytes(LINE)
    record = repo / ".baton" / "install-originals" / "claude-code" / "git-info-exclude.json"
    data = json.loads(record.read_text())
    record.write_text(json.dumps({**data, "exclude": str(other)}))
    remove_wiring(repo, "claude-code")
    assert other.read_bytes() == LINE
    assert LINE not in _exclude(repo)


# --- edited in place ------------------------------------------------------------------------

def test_the_install_appends_to_the_same_inode_keeping_its_mode(repo):
    exclude = repo / ".git" / "info" / "exclude"
    exclude.chmod(0o600)
    inode = exclude.stat().st_ino
    install_hooks(repo, "claude-code")
    assert exclude.stat().st_ino == inode
    assert exclude.stat().st_mode & 0o777 == 0o600


def test_remove_rewrites_the_same_inode_keeping_its_mode(repo):
    exclude = repo / ".git" / "info" / "exclude"
    install_hooks(repo, "claude-code")
    exclude.chmod(0o600)
    inode = exclude.stat().st_ino
    with open(exclude, "ab") as fh:
        fh.write(b"build/\n")  # so the line is taken out of the middle
    remove_wiring(repo, "claude-code")
    assert exclude.stat().st_ino == inode and exclude.stat().st_mode & 0o777 == 0o600
    assert LINE not in _exclude(repo)


def test_a_symlinked_exclude_inside_the_git_dir_stays_a_symlink(repo):
    info = repo / ".git" / "info"
    (info / "exclude").rename(info / "real-exclude")
    (info / "exclude").symlink_to("real-exclude")
    install_hooks(repo, "claude-code")
    assert (info / "exclude").is_symlink()
    assert LINE in (info / "real-exclude").read_bytes()
    remove_wiring(repo, "claude-code")
    assert (info / "exclude").is_symlink()
    assert LINE not in (info / "real-exclude").read_bytes()


def test_a_symlinked_exclude_outside_the_git_dir_is_left_with_a_warning(repo, tmp_path):
    outside = tmp_path / "shared-exclude"
    outside.write_bytes(b"# shared\n")
    exclude = repo / ".git" / "info" / "exclude"
    exclude.unlink()
    exclude.symlink_to(outside)
    result = install_hooks(repo, "claude-code")
    assert outside.read_bytes() == b"# shared\n" and exclude.is_symlink()
    assert any("outside the git directory" in w for w in result.warnings)


def test_a_read_only_exclude_is_left_with_a_warning(repo):
    exclude = repo / ".git" / "info" / "exclude"
    before = _exclude(repo)
    exclude.chmod(0o444)
    result = install_hooks(repo, "claude-code")
    assert _exclude(repo) == before and exclude.stat().st_mode & 0o777 == 0o444
    assert any("not writable" in w for w in result.warnings)


def test_remove_leaves_a_read_only_exclude_as_it_is(repo):
    exclude = repo / ".git" / "info" / "exclude"
    install_hooks(repo, "claude-code")
    exclude.chmod(0o444)
    installed = _exclude(repo)
    result = remove_wiring(repo, "claude-code")
    assert _exclude(repo) == installed
    assert [c.action for c in result.changes if c.path == ".git/info/exclude"] == ["kept"]


# --- best effort ----------------------------------------------------------------------------

def _failing_exclude_open(monkeypatch):
    import builtins
    real = builtins.open

    def failing(file, *args, **kwargs):
        if str(file).endswith("info/exclude"):
            raise PermissionError(1, "Operation not permitted")
        return real(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", failing)


def test_a_failing_exclude_write_is_a_warning_and_the_install_finishes(repo, monkeypatch):
    _failing_exclude_open(monkeypatch)
    result = install_hooks(repo, "claude-code")
    assert (repo / ".baton" / "config.json").is_file()
    assert any("cannot update" in w and "info/exclude" in w for w in result.warnings)
    assert not (repo / ".baton" / "install-originals" / "claude-code" / "git-info-exclude.json").exists()


def test_a_failing_exclude_write_exits_0_with_the_warning_on_stderr(repo, monkeypatch, capsys):
    _failing_exclude_open(monkeypatch)
    code, _out, err = run(capsys, repo, "install-hooks", "--harness", "claude-code")
    assert code == 0
    assert "cannot update" in err


def test_a_rerun_after_a_failed_exclude_write_adds_the_line(repo, monkeypatch):
    with monkeypatch.context() as patched:
        _failing_exclude_open(patched)
        install_hooks(repo, "claude-code")
    assert LINE not in _exclude(repo)
    install_hooks(repo, "claude-code")
    assert LINE in _exclude(repo)


def test_a_rerun_adds_the_line_a_remove_then_takes_out(repo):
    (repo / ".claude").mkdir()
    (repo / LOCAL).write_text('{"enabledMcpjsonServers": ["baton"]}\n')  # an earlier install's file
    before = _exclude(repo)
    install_hooks(repo, "claude-code")
    assert LINE in _exclude(repo)
    remove_wiring(repo, "claude-code")
    assert _exclude(repo) == before


def test_remove_empties_a_created_exclude_that_became_a_symlink_keeping_the_link(repo):
    info = repo / ".git" / "info"
    (info / "exclude").unlink()
    install_hooks(repo, "claude-code")
    (info / "exclude").rename(info / "real-exclude")
    (info / "exclude").symlink_to("real-exclude")
    remove_wiring(repo, "claude-code")
    assert (info / "exclude").is_symlink() and (info / "real-exclude").read_bytes() == b""


def test_a_failing_exclude_write_on_remove_is_kept_and_the_rest_removed(repo, monkeypatch):
    install_hooks(repo, "claude-code")
    with open(repo / ".git" / "info" / "exclude", "ab") as fh:
        fh.write(b"build/\n")  # so removal rewrites the file
    _failing_exclude_open(monkeypatch)
    result = remove_wiring(repo, "claude-code")
    assert [c.action for c in result.changes if c.path == ".git/info/exclude"] == ["kept"]
    assert not (repo / ".claude" / "settings.json").exists()
    assert LINE in _exclude(repo)


def _exclude_shown_from_a_linked_worktree(repo: Path, tmp_path: Path) -> str:
    """The ``info/exclude`` path ``install-hooks --json`` names, run from a linked worktree."""
    assert _git(repo, "-c", "user.name=A", "-c", "user.email=a@x", "commit", "-q", "--allow-empty",
                "-m", "x").returncode == 0
    linked = tmp_path / "linked"
    assert _git(repo, "worktree", "add", "-q", str(linked)).returncode == 0
    assert run_baton("init", "--project", str(repo)).returncode == 0
    done = run_baton("install-hooks", "--harness", "claude-code", "--json", cwd=linked)
    assert done.returncode == 0, done.stderr
    [exclude] = [f["path"] for f in json.loads(done.stdout)["files"] if f["path"].endswith("info/exclude")]
    return exclude


def test_from_a_linked_worktree_the_exclude_path_is_absolute(repo, tmp_path):
    assert _exclude_shown_from_a_linked_worktree(repo, tmp_path).startswith("/")


def test_from_a_linked_worktree_the_exclude_path_has_no_dot_dot(repo, tmp_path):
    exclude = Path(_exclude_shown_from_a_linked_worktree(repo, tmp_path))
    assert ".." not in exclude.parts and exclude == (repo / ".git" / "info" / "exclude").resolve()


@pytest.fixture
def two_wired(repo, tmp_path):
    """The main worktree and a linked one, both wired for Claude Code: one shared line."""
    assert _git(repo, "-c", "user.name=A", "-c", "user.email=a@x", "commit", "-q", "--allow-empty",
                "-m", "x").returncode == 0
    linked = tmp_path / "linked"
    assert _git(repo, "worktree", "add", "-q", str(linked)).returncode == 0
    assert run_baton("init", "--project", str(repo)).returncode == 0
    for tree in (repo, linked):
        done = run_baton("install-hooks", "--harness", "claude-code", cwd=tree)
        assert done.returncode == 0, done.stderr
    assert _exclude(repo).count(LINE) == 1
    return repo, linked


def test_remove_in_the_main_worktree_keeps_the_line_a_wired_linked_worktree_still_needs(two_wired):
    repo, linked = two_wired
    removed = run_baton("install-hooks", "--harness", "claude-code", "--remove", cwd=repo)
    assert removed.returncode == 0, removed.stderr
    assert "kept" in removed.stdout and str(linked) in removed.stdout
    assert LINE in _exclude(repo)
    assert _ignored(linked)
    assert LOCAL not in _git(linked, "status", "--porcelain", "-uall").stdout


def test_the_last_worktree_to_remove_takes_the_shared_line_out(two_wired):
    repo, linked = two_wired
    assert run_baton("install-hooks", "--harness", "claude-code", "--remove", cwd=repo).returncode == 0
    removed = run_baton("install-hooks", "--harness", "claude-code", "--remove", cwd=linked)
    assert removed.returncode == 0, removed.stderr
    assert LINE not in _exclude(repo)
    assert not (repo / ".baton" / "install-originals").exists()


def test_remove_in_a_linked_worktree_keeps_the_line_the_wired_main_worktree_needs(two_wired):
    repo, linked = two_wired
    assert run_baton("install-hooks", "--harness", "claude-code", "--remove", cwd=linked).returncode == 0
    assert _ignored(repo)
    assert run_baton("install-hooks", "--harness", "claude-code", "--remove", cwd=repo).returncode == 0
    assert LINE not in _exclude(repo)


def test_doctor_warns_when_a_wired_worktrees_local_settings_are_not_ignored(two_wired):
    repo, linked = two_wired
    quiet = run_baton("doctor", "--json", cwd=linked)
    assert not [c for c in json.loads(quiet.stdout)["checks"] if LOCAL in c["name"]]
    (repo / ".git" / "info" / "exclude").write_bytes(_exclude(repo).replace(LINE, b""))
    done = run_baton("doctor", "--json", cwd=linked)
    [check] = [c for c in json.loads(done.stdout)["checks"] if LOCAL in c["name"]]
    assert check["status"] == "warn" and "git add -A" in check["detail"]
