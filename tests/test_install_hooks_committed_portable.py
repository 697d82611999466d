"""``baton install-hooks`` without ``--command`` in a clone whose committed wiring runs the portable
``baton`` (a teammate's ``--command baton``, tracked by git) keeps that command line, and says so,
rather than write this machine's absolute path into the files the team shares — the rule
``baton doctor`` follows there too (tester26 T8, tester28 T4)."""

from __future__ import annotations

import json
import subprocess

from baton.harnesses.install import install_hooks
from baton.harnesses.wiring import inspect_wiring, running_baton
from tests.cli_support import run


def _git(root, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.email=a@example.com", "-c", "user.name=A", *args], cwd=root,
                          check=True, capture_output=True, text=True)
    return done.stdout


def _alices_clone(root) -> None:
    """The wiring made with ``--command baton`` and committed, as a teammate pulls it."""
    _git(root, "init", "-q")
    install_hooks(root, "claude-code", command="baton")
    _git(root, "add", ".claude/settings.json", ".mcp.json")
    _git(root, "commit", "-qm", "wire Baton")


def test_rerunning_without_command_keeps_the_committed_portable_command_and_changes_no_tracked_file(
        project_dir, capsys):
    _alices_clone(project_dir)

    code, _, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code")

    assert code == 0, err
    assert _git(project_dir, "status", "--porcelain", "--untracked-files=no") == ""
    assert inspect_wiring(project_dir, "claude-code").command() == "baton"


def test_keeping_the_committed_portable_command_is_said_naming_the_tracked_files_and_the_way_out(
        project_dir, capsys):
    _alices_clone(project_dir)

    _, out, _ = run(capsys, project_dir, "install-hooks", "--harness", "claude-code")

    [line] = [line for line in out.splitlines() if "kept" in line and "--command" in line]
    assert "`baton`" in line and ".claude/settings.json" in line and ".mcp.json" in line
    assert "this machine's absolute path" in line


def test_the_json_result_says_the_committed_command_was_kept(project_dir, capsys):
    _alices_clone(project_dir)

    code, out, _ = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--json")

    result = json.loads(out)
    assert code == 0 and result["command"] == "baton" and result["hookCommand"] == "baton"
    assert result["commandKept"] is True and "git tracks" in result["commandNote"]


def test_an_explicit_command_still_rewrites_committed_portable_wiring(project_dir, capsys):
    _alices_clone(project_dir)
    me = running_baton()

    code, out, _ = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--command", me, "--json")

    assert code == 0 and json.loads(out)["commandKept"] is False
    assert inspect_wiring(project_dir, "claude-code").command() == me


def test_portable_wiring_git_does_not_track_is_rewired_with_this_machines_path(project_dir, capsys):
    _git(project_dir, "init", "-q")
    install_hooks(project_dir, "claude-code", command="baton")  # this clone's own: nothing committed

    code, out, _ = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--json")

    result = json.loads(out)
    assert code == 0 and result["commandKept"] is False
    assert result["command"] == running_baton()


def test_kept_portable_wiring_whose_baton_is_not_on_path_is_told_to_put_it_on_path_first(
        project_dir, capsys, monkeypatch):
    """Not to pass this machine's path first: that is what keeping the committed command avoids
    (the advice ``baton doctor`` gives there too)."""
    _alices_clone(project_dir)
    monkeypatch.setenv("PATH", str(project_dir / "no-such-bin"))

    code, out, _ = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--json")

    result = json.loads(out)
    [warning] = result["warnings"]
    assert code == 0 and result["commandKept"] is True
    assert "put `baton` on PATH here" in warning
    assert warning.index("put `baton` on PATH here") < warning.index("--command")


def test_kept_portable_wiring_whose_baton_is_not_on_path_is_told_what_doctor_tells_and_offered_no_machine_path(
        project_dir, capsys, monkeypatch):
    """Both say: put `baton` on PATH, the committed files named; neither offers a ``--command`` with
    this machine's path as the way out (it would write that path into what the team shares)."""
    _alices_clone(project_dir)
    monkeypatch.setenv("PATH", str(project_dir / "no-such-bin"))

    _, out, _ = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--json")
    [warning] = json.loads(out)["warnings"]
    _, out, _ = run(capsys, project_dir, "doctor", "--json")
    [check] = [c for c in json.loads(out)["checks"] if c["name"] == "harness claude-code"]

    said = ("put `baton` on PATH here: .claude/settings.json and .mcp.json are committed with the portable "
            "`baton`, which `install-hooks` keeps (")
    assert said in warning and said in check["detail"]
    assert "only a `--command` naming this machine's absolute path would write it into them" in warning
    assert "pass --command" not in warning
