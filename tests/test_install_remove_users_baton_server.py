"""A ``baton`` MCP server the user wrote before ``install-hooks`` ran is the user's: ``--remove``
gives it back as it was (its ``env`` and all), and never deletes the file that held it — only
a file ``install-hooks`` created is deleted (tester28 T2)."""

from __future__ import annotations

from tests.cli_support import run

USERS_TOML = '[mcp_servers.baton]\ncommand = "old"\nargs = ["mcp"]\nenv = { FOO = "1" }\n'
USERS_MCP_JSON = '{"mcpServers":{"baton":{"command":"old","env":{"FOO":"1"}}}}'


def _write(root, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def _install_then_remove(capsys, root, harness: str) -> str:
    code, _, err = run(capsys, root, "install-hooks", "--harness", harness)
    assert code == 0, err
    code, out, err = run(capsys, root, "install-hooks", "--harness", harness, "--remove")
    assert code == 0, err
    return out


def test_remove_gives_back_a_codex_config_toml_whose_baton_server_the_user_wrote(project_dir, capsys):
    _write(project_dir, ".codex/config.toml", USERS_TOML)

    out = _install_then_remove(capsys, project_dir, "codex")

    assert (project_dir / ".codex" / "config.toml").read_text() == USERS_TOML
    assert "put back as it was before install-hooks" in out
    assert "deleted .codex/config.toml" not in out


def test_remove_gives_back_an_mcp_json_whose_baton_server_the_user_wrote(project_dir, capsys):
    _write(project_dir, ".mcp.json", USERS_MCP_JSON)

    _install_then_remove(capsys, project_dir, "claude-code")

    assert (project_dir / ".mcp.json").read_text() == USERS_MCP_JSON


def test_remove_still_deletes_the_files_install_hooks_created_beside_the_users(project_dir, capsys):
    _write(project_dir, ".codex/config.toml", USERS_TOML)

    _install_then_remove(capsys, project_dir, "codex")

    assert not (project_dir / ".codex" / "hooks.json").exists()
    assert not (project_dir / ".agents").exists()


def test_a_reinstall_that_moves_the_command_still_gives_back_the_users_baton_server(project_dir, capsys):
    _write(project_dir, ".codex/config.toml", USERS_TOML)
    run(capsys, project_dir, "install-hooks", "--harness", "codex", "--command", "baton")

    _install_then_remove(capsys, project_dir, "codex")  # the second install moves every entry to this baton

    assert (project_dir / ".codex" / "config.toml").read_text() == USERS_TOML


def test_remove_after_reinstalling_over_a_file_install_hooks_created_still_deletes_it(project_dir, capsys):
    """A second install (another command) finds Baton's server in a file the first install created:
    that server is Baton's, not the user's, so nothing is kept to be given back."""
    run(capsys, project_dir, "install-hooks", "--harness", "codex", "--command", "baton")

    _install_then_remove(capsys, project_dir, "codex")

    assert not (project_dir / ".codex").exists()
