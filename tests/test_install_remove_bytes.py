"""``install-hooks`` then ``--remove`` leaves the user's own files byte for byte (issue 26):
``install-hooks`` keeps the bytes of each file of the user's it changes under
``.baton/install-originals/``, and ``--remove`` puts them back when the file, without Baton's
part, says the same as they do; else it writes the file back re-formatted and says so."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from baton.harnesses.install import install_hooks, original_path
from baton.harnesses.wiring import remove_wiring
from tests.cli_support import run

HAND_FORMATTED = {
    "claude-code": {
        ".mcp.json": b'{"mcpServers":{"db":{"command":"pg-mcp","args":[]}}}',
        ".claude/settings.json": b'{ "permissions": { "allow": ["Bash(ls)"] },\n\t"model": "opus" }\n',
        ".claude/settings.local.json": b'{"enabledMcpjsonServers":["db"],   "outputStyle":"terse"}',
    },
    "codex": {
        ".codex/config.toml": b'model = "o4"   # mine\r\n\r\n[mcp_servers.db]\r\ncommand = "pg-mcp"\r\n',
        ".codex/hooks.json": b'{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}',
    },
    "gemini-cli": {
        ".gemini/settings.json": b'{\n    "theme": "dark",\n    "mcpServers": {}\n}',
    },
    "cursor": {
        ".cursor/mcp.json": b'{"mcpServers": {"db": {"command": "pg-mcp"}}}\n\n',
        ".cursor/hooks.json": b'{"version":1,"hooks":{"stop":[{"command":"say done"}]}}',
    },
}


def _put(root, files: dict[str, bytes]) -> None:
    for path, data in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _bytes(root, files) -> dict[str, bytes]:
    return {path: (root / path).read_bytes() for path in files}


@pytest.mark.parametrize("harness", sorted(HAND_FORMATTED))
def test_remove_puts_back_hand_formatted_files_byte_for_byte(project, harness):
    files = HAND_FORMATTED[harness]
    _put(project, files)
    install_hooks(project, harness)
    assert _bytes(project, files) != files  # Baton's part went in
    remove_wiring(project, harness)
    assert _bytes(project, files) == files


def test_remove_says_it_put_a_file_back(project, capsys):
    _put(project, HAND_FORMATTED["gemini-cli"])
    install_hooks(project, "gemini-cli")
    code, out, err = run(capsys, project, "install-hooks", "--harness", "gemini-cli", "--remove")
    assert code == 0 and "updated .gemini/settings.json (put back as it was before install-hooks)" in out


def test_remove_puts_back_a_file_that_held_an_empty_object_instead_of_deleting_it(project):
    _put(project, {".mcp.json": b"{}"})
    install_hooks(project, "claude-code")
    remove_wiring(project, "claude-code")
    assert (project / ".mcp.json").read_bytes() == b"{}"


def test_remove_puts_back_an_empty_codex_config(project):
    _put(project, {".codex/config.toml": b""})
    install_hooks(project, "codex")
    remove_wiring(project, "codex")
    assert (project / ".codex/config.toml").read_bytes() == b""


def test_remove_keeps_an_edit_made_after_install_and_says_it_reformatted(project):
    _put(project, {".mcp.json": b'{"mcpServers":{"db":{"command":"pg-mcp"}}}'})
    install_hooks(project, "claude-code")
    edited = json.loads((project / ".mcp.json").read_text())
    edited["mcpServers"]["cache"] = {"command": "redis-mcp"}
    (project / ".mcp.json").write_text(json.dumps(edited))
    result = remove_wiring(project, "claude-code")
    assert json.loads((project / ".mcp.json").read_text()) == {
        "mcpServers": {"db": {"command": "pg-mcp"}, "cache": {"command": "redis-mcp"}}}
    note = next(c.note for c in result.changes if c.path == ".mcp.json")
    assert note == "changed since install-hooks, so written back re-formatted"


def test_remove_says_so_when_an_edit_left_nothing_of_the_users(project):
    _put(project, {".mcp.json": b'{"mcpServers":{"db":{"command":"pg-mcp"}}}'})
    install_hooks(project, "claude-code")
    edited = json.loads((project / ".mcp.json").read_text())
    del edited["mcpServers"]["db"]
    (project / ".mcp.json").write_text(json.dumps(edited))
    result = remove_wiring(project, "claude-code")
    change = next(c for c in result.changes if c.path == ".mcp.json")
    assert change.action == "deleted" and change.note == "changed since install-hooks, and nothing else is left in it"


def test_install_twice_with_another_command_still_puts_back_the_first_original(project, tmp_path):
    files = HAND_FORMATTED["claude-code"]
    _put(project, files)
    install_hooks(project, "claude-code")
    install_hooks(project, "claude-code", command="uvx baton")
    remove_wiring(project, "claude-code")
    assert _bytes(project, files) == files


def test_install_keeps_the_original_under_baton_install_originals(project):
    _put(project, {".mcp.json": b'{"mcpServers":{}}'})
    install_hooks(project, "claude-code")
    kept = project / ".baton" / "install-originals" / "claude-code" / ".mcp.json"
    assert kept.read_bytes() == b'{"mcpServers":{}}'


def test_install_keeps_no_original_of_a_file_it_creates(project):
    install_hooks(project, "claude-code")
    assert not (project / ".baton" / "install-originals").exists()


def test_install_keeps_no_original_of_a_file_already_holding_batons_wiring(project):
    install_hooks(project, "gemini-cli")
    install_hooks(project, "gemini-cli", command="uvx baton")
    assert not (project / ".baton" / "install-originals").exists()


def test_remove_drops_the_originals_it_kept(project):
    _put(project, HAND_FORMATTED["cursor"])
    install_hooks(project, "cursor")
    remove_wiring(project, "cursor")
    assert not (project / ".baton" / "install-originals").exists()


def test_remove_dry_run_keeps_the_originals_and_the_files(project):
    _put(project, HAND_FORMATTED["cursor"])
    install_hooks(project, "cursor")
    installed = _bytes(project, HAND_FORMATTED["cursor"])
    remove_wiring(project, "cursor", dry_run=True)
    assert _bytes(project, HAND_FORMATTED["cursor"]) == installed
    assert (project / ".baton" / "install-originals" / "cursor" / ".cursor" / "hooks.json").is_file()


def test_a_baton_folder_outside_the_project_is_refused_by_install_which_writes_nothing_and_remove_still_works(
        project_dir, tmp_path):
    from baton.errors import UnsafePath

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (project_dir / ".baton").symlink_to(outside)
    _put(project_dir, {".mcp.json": b'{"mcpServers":{"db":{"command":"pg-mcp"}}}'})
    with pytest.raises(UnsafePath):
        install_hooks(project_dir, "claude-code")
    assert list(outside.iterdir()) == []
    assert json.loads((project_dir / ".mcp.json").read_text()) == {"mcpServers": {"db": {"command": "pg-mcp"}}}
    remove_wiring(project_dir, "claude-code")
    assert json.loads((project_dir / ".mcp.json").read_text()) == {"mcpServers": {"db": {"command": "pg-mcp"}}}


def test_a_linked_worktree_keeps_its_originals_apart(project, tmp_path):
    elsewhere = tmp_path / "linked"
    assert original_path(project, elsewhere, "codex", ".codex/hooks.json") != original_path(
        project, project, "codex", ".codex/hooks.json")
    assert original_path(project, elsewhere, "codex", ".codex/hooks.json").is_relative_to(
        project / ".baton" / "install-originals" / "worktrees")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("harness", sorted(HAND_FORMATTED))
def test_git_status_is_clean_after_install_and_remove(project, harness):
    def git(*args: str) -> str:
        return subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args], cwd=project,
                              check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    _put(project, HAND_FORMATTED[harness])
    git("add", "-A")
    git("commit", "-qm", "mine")
    install_hooks(project, harness)
    installed = git("status", "--porcelain", "--untracked-files=all")
    assert installed and "install-originals" not in installed
    remove_wiring(project, harness)
    assert git("status", "--porcelain", "--untracked-files=all") == ""
