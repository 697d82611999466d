"""``baton install-hooks``: project-local configuration, merged without losing
keys, idempotent, with a dry run that prints the diff and writes nothing."""

from __future__ import annotations

import json
import tomllib

import pytest

from baton.harnesses import HARNESSES, adapter
from baton.harnesses.config_text import hook_words
from baton.harnesses.install import install_hooks
from tests.cli_support import run, run_json
from tests.conftest import run_baton
from tests.handoff_support import git_init
from tests.harness_support import fixture, injected

FILES = {
    "claude-code": [".claude/settings.json", ".mcp.json", ".claude/settings.local.json", ".claude/skills/baton/SKILL.md"],
    "codex": [".codex/hooks.json", ".codex/config.toml", ".agents/skills/baton/SKILL.md"],
    "gemini-cli": [".gemini/settings.json", ".agents/skills/baton/SKILL.md"],
    "cursor": [".cursor/mcp.json", ".cursor/rules/baton.mdc", ".cursor/hooks.json", ".agents/skills/baton/SKILL.md"],
}

START = adapter("claude-code").event_suffix("SessionStart", "baton")
"""What follows Claude Code's SessionStart line run by a bare ``baton``: what the agent is told when it cannot
run (``start_failed``)."""


def _snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".baton" not in p.parts}


def _commands(config: dict, event: str) -> list[str]:
    out = []
    for entry in config["hooks"][event]:
        out += [entry["command"]] if "command" in entry else [h["command"] for h in entry["hooks"]]
    return out


@pytest.mark.parametrize("harness", HARNESSES)
def test_it_writes_the_harness_files_inside_the_project_only(project_dir, harness):
    result = install_hooks(project_dir, harness)
    assert [c.path for c in result.changes] == FILES[harness]
    assert sorted(_snapshot(project_dir)) == sorted(FILES[harness])
    assert (project_dir / ".baton" / "config.json").exists()  # and the project is initialised


@pytest.mark.parametrize("harness", HARNESSES)
def test_running_it_twice_changes_nothing(project_dir, harness):
    install_hooks(project_dir, harness)
    before = _snapshot(project_dir)
    again = install_hooks(project_dir, harness)
    assert {c.action for c in again.changes} == {"unchanged"}
    assert _snapshot(project_dir) == before


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_dry_run_prints_the_diff_and_writes_nothing(project_dir, harness):
    result = install_hooks(project_dir, harness, dry_run=True)
    assert _snapshot(project_dir) == {} and not (project_dir / ".baton").exists()
    text = result.render()
    for path in FILES[harness]:
        assert f"+++ b/{path}" in text
    assert f"hook {harness}" in text


def test_existing_settings_keep_every_key_and_hook(project_dir):
    settings = project_dir / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "./mine.sh"}]}],
                  "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt"}]}]},
    }))
    (project_dir / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}))
    install_hooks(project_dir, "claude-code")
    merged = json.loads(settings.read_text())
    assert merged["permissions"] == {"allow": ["Bash(npm test)"]}
    assert _commands(merged, "SessionStart") == ["./mine.sh", "baton hook claude-code SessionStart" + START]
    assert _commands(merged, "PostToolUse") == ["fmt"]
    assert _commands(merged, "SessionEnd") == ["baton hook claude-code SessionEnd"]
    servers = json.loads((project_dir / ".mcp.json").read_text())["mcpServers"]
    assert servers == {"other": {"command": "x"}, "baton": {"command": "baton", "args": ["mcp"], "alwaysLoad": True}}


def test_codex_config_toml_gains_the_mcp_table_and_keeps_the_rest(project_dir):
    config = project_dir / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "gpt-5-codex"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n')
    install_hooks(project_dir, "codex", command="/venv/bin/baton")
    parsed = tomllib.loads(config.read_text())
    assert parsed["model"] == "gpt-5-codex"
    assert parsed["mcp_servers"] == {"docs": {"command": "docs-mcp"},
                                     "baton": {"command": "/venv/bin/baton", "args": ["mcp"],
                                               "env_vars": ["BATON_PROJECT"]}}
    assert config.read_text().startswith('model = "gpt-5-codex"\n\n[mcp_servers.docs]\n')


@pytest.mark.parametrize(("harness", "path", "text", "said"), [
    ("gemini-cli", ".gemini/settings.json", "{ not json", "not valid JSON"),
    # the file named, as every other refusal of a config names it
    ("claude-code", ".claude/settings.json", '{"hooks": {"SessionStart": {"command": "mine"}}}',
     ".claude/settings.json: hooks.SessionStart is not a list"),
], ids=["not JSON", "an event's hooks not a list"])
def test_a_file_that_does_not_parse_is_refused_not_overwritten(project_dir, capsys, harness, path, text, said):
    settings = project_dir / path
    settings.parent.mkdir()
    settings.write_text(text)
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", harness)
    assert code == 2 and said in err
    assert settings.read_text() == text


@pytest.mark.parametrize(("path", "text", "section"), [
    (".claude/settings.json", '{"hooks": []}', "hooks"),
    (".mcp.json", '{"mcpServers": "off"}', "mcpServers"),
    (".gemini/settings.json", '{"hooks": "off"}', "hooks"),
    (".codex/hooks.json", '{"hooks": [1]}', "hooks"),
])
def test_a_section_that_is_not_an_object_is_refused_not_silently_skipped(project_dir, capsys, path, text, section):
    harness = {".claude": "claude-code", ".mcp.json": "claude-code", ".gemini": "gemini-cli",
               ".codex": "codex"}[path.split("/")[0]]
    target = project_dir / path
    target.parent.mkdir(exist_ok=True)
    target.write_text(text)
    before = _snapshot(project_dir)
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", harness)
    assert code == 2 and f"{path}: {section} is not an object" in err
    assert _snapshot(project_dir) == before


def test_a_null_section_is_taken_as_absent(project_dir):
    (project_dir / ".mcp.json").write_text('{"mcpServers": null, "x": 1}')
    install_hooks(project_dir, "claude-code")
    written = json.loads((project_dir / ".mcp.json").read_text())
    assert written["x"] == 1 and written["mcpServers"]["baton"]["args"] == ["mcp"]


def test_a_symlink_leading_outside_the_project_is_refused(project_dir, tmp_path, capsys):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (project_dir / ".claude").symlink_to(outside)
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    assert code == 5
    assert list(outside.iterdir()) == []


def test_the_json_result_lists_each_file_and_its_action(project_dir, capsys):
    out = run_json(capsys, project_dir, "install-hooks", "--harness", "codex", "--dry-run")
    assert out["dryRun"] is True and out["changed"] is True
    assert [(f["path"], f["action"]) for f in out["files"]] == [(".codex/hooks.json", "created"),
                                                                (".codex/config.toml", "created"),
                                                                (".agents/skills/baton/SKILL.md", "created")]


@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini-cli"])
def test_installed_hooks_run_end_to_end_from_the_fixture(project_dir, harness):
    """Done-when: install, start a session, and the configured command answers with the brief."""
    git_init(project_dir)
    install_hooks(project_dir, harness)
    files = adapter(harness).configuration("baton")
    config = json.loads((project_dir / files[0].path).read_text())
    (command,) = _commands(config, "SessionStart")
    words = hook_words(command.split())  # without what runs when it fails (`|| …`)
    assert words[:2] == ["baton", "hook"]
    name = "SessionStart.startup"
    r = run_baton(*words[1:], cwd=project_dir, input=json.dumps(fixture(harness, name, project_dir)))
    assert r.returncode == 0 and r.stderr == ""
    assert injected(harness, r.stdout).startswith("## Baton")


@pytest.mark.parametrize("where", ["cwd", "--project"])
def test_in_a_linked_worktree_the_files_are_that_worktrees_and_the_project_stays_shared(tmp_path, where):
    from dulwich import porcelain

    main = tmp_path / "main"
    main.mkdir()
    git_init(main, {"src/app.py": "x = 1\n"})
    porcelain.branch_create(str(main), "feature")
    porcelain.worktree_add(str(main), str(tmp_path / "wt"), branch="feature")
    wt = (tmp_path / "wt").resolve()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    args = ("install-hooks", "--harness", "claude-code", "--json")
    r = (run_baton(*args, cwd=wt) if where == "cwd" else run_baton(*args, "--project", str(wt), cwd=elsewhere))
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout)
    assert answer["root"] == str(wt)
    commands = _commands(json.loads((wt / ".claude" / "settings.json").read_text()), "SessionStart")
    hook_command = answer["hookCommand"]
    suffix = adapter("claude-code").event_suffix("SessionStart", hook_command)
    assert commands == [f"{hook_command} hook claude-code SessionStart{suffix}"]
    assert not (main / ".claude").exists() and not (main / ".mcp.json").exists()
    assert (main / ".baton" / "config.json").exists() and not (wt / ".baton").exists()


def test_a_settings_file_with_comments_is_left_alone_saying_why(project_dir, capsys):
    settings = project_dir / ".gemini" / "settings.json"
    settings.parent.mkdir()
    text = '{\n  // my theme\n  "theme": "dark"\n}\n'
    settings.write_text(text)
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "gemini-cli")
    assert code == 2 and "comments" in err and "move the comments out" in err
    assert settings.read_text() == text


def _commented_after_install(project_dir, capsys) -> tuple[object, str]:
    settings = project_dir / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"theme": "GitHub"}\n')
    assert run(capsys, project_dir, "install-hooks", "--harness", "gemini-cli")[0] == 0
    text = settings.read_text().replace('"theme": "GitHub"', '// picked by me\n  "theme": "Dracula"', 1)
    settings.write_text(text)
    return settings, text


def test_remove_of_a_settings_file_with_comments_says_comments_not_invalid_json(project_dir, capsys):
    settings, text = _commented_after_install(project_dir, capsys)
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "gemini-cli", "--remove")
    assert code == 2 and "holds comments" in err and "not valid JSON" not in err
    assert settings.read_text() == text


def test_remove_of_a_settings_file_with_comments_names_what_to_delete_by_hand(project_dir, capsys):
    _commented_after_install(project_dir, capsys)
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "gemini-cli", "--remove")
    assert code == 2 and '"baton" under "mcpServers"' in err
    for event in ("SessionStart", "PreCompress", "SessionEnd"):
        assert f'"hooks" → "{event}" running ' in err and f"hook gemini-cli {event}" in err


def test_remove_works_once_batons_entries_are_deleted_from_a_commented_file_by_hand(project_dir, capsys):
    settings, text = _commented_after_install(project_dir, capsys)
    settings.write_text('{\n  // picked by me\n  "theme": "Dracula"\n}\n')
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "gemini-cli", "--remove")
    assert code == 0, err
    assert settings.read_text() == '{\n  // picked by me\n  "theme": "Dracula"\n}\n'
    assert not (project_dir / ".gemini" / "skills").exists() or not any((project_dir / ".gemini" / "skills").iterdir())


def test_a_dry_run_says_it_would_also_initialise_the_project_and_creates_nothing(project_dir, capsys):
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--dry-run")
    assert code == 0 and "initialise a Baton project" in out
    assert not (project_dir / ".baton").exists()


def test_a_dry_run_in_an_initialised_project_does_not_mention_initialising(project_dir, capsys):
    run(capsys, project_dir, "init")
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--dry-run")
    assert code == 0 and "initialise" not in out


def test_claude_code_gets_the_agent_skill_where_it_looks_for_a_projects_skills(project_dir, capsys):
    from baton.harnesses.protocol import skill_text

    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    assert code == 0 and "created .claude/skills/baton/SKILL.md" in out
    assert (project_dir / ".claude" / "skills" / "baton" / "SKILL.md").read_text() == skill_text()


@pytest.mark.parametrize("harness", ["codex", "gemini-cli", "cursor"])
def test_codex_gemini_and_cursor_get_the_agent_skill_in_agents_skills(project_dir, harness, capsys):
    from baton.harnesses.protocol import skill_text

    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", harness)
    assert code == 0 and "created .agents/skills/baton/SKILL.md" in out
    assert (project_dir / ".agents" / "skills" / "baton" / "SKILL.md").read_text() == skill_text()


def test_harnesses_sharing_the_agents_skill_leave_it_unchanged_for_each_other(project_dir):
    install_hooks(project_dir, "codex")
    skill = project_dir / ".agents" / "skills" / "baton" / "SKILL.md"
    before = skill.read_bytes()
    for harness in ("gemini-cli", "cursor"):
        (change,) = [c for c in install_hooks(project_dir, harness).changes if c.path == ".agents/skills/baton/SKILL.md"]
        assert change.action == "unchanged"
    assert skill.read_bytes() == before


def test_an_outdated_skill_is_replaced_by_the_installed_version(project_dir):
    from baton.harnesses.protocol import skill_text

    skill = project_dir / ".agents" / "skills" / "baton" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: baton\n---\nan older skill\n")
    (change,) = [c for c in install_hooks(project_dir, "codex").changes if c.path.startswith(".agents/")]
    assert change.action == "updated" and skill.read_text() == skill_text()


def test_other_skills_in_agents_skills_are_kept(project_dir):
    mine = project_dir / ".agents" / "skills" / "mine" / "SKILL.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("my skill\n")
    install_hooks(project_dir, "gemini-cli")
    assert mine.read_text() == "my skill\n"


def test_baton_skill_prints_the_skill_the_package_ships(tmp_path):
    from baton.harnesses.protocol import skill_text

    result = run_baton("skill", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == skill_text()


def test_baton_skill_json_carries_the_text(tmp_path):
    import json as _json

    from baton.harnesses.protocol import skill_text

    result = run_baton("skill", "--json", cwd=tmp_path)
    assert _json.loads(result.stdout) == {"name": "baton", "skill": skill_text()}


@pytest.mark.parametrize("harness", HARNESSES)
@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]])
def test_a_malformed_project_config_stops_it_before_any_file_is_written(project_dir, capsys, harness, dry_run):
    (project_dir / ".baton").mkdir()
    (project_dir / ".baton" / "config.json").write_text("{not json")
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", harness, *dry_run, "--json")
    assert code == 4 and json.loads(out)["error"]["code"] == "config_error"
    assert sorted(p.name for p in project_dir.iterdir()) == [".baton"]


@pytest.mark.parametrize(("name", "text"), [("local.json", "{"), ("local.json", '{"writer": "A B"}'),
                                            ("policy.json", '{"x": 1}')])
def test_a_malformed_local_json_or_policy_stops_it_before_any_file_is_written(project, capsys, name, text):
    (project / ".baton" / name).write_text(text)
    before = sorted(p.name for p in project.iterdir())
    code, out, _ = run(capsys, project, "install-hooks", "--harness", "claude-code", "--json")
    assert code == 4 and json.loads(out)["error"]["code"] == "config_error"
    assert sorted(p.name for p in project.iterdir()) == before


@pytest.mark.parametrize("harness", HARNESSES)
@pytest.mark.parametrize("dry_run", [False, True])
def test_a_project_folder_that_does_not_exist_is_refused_and_not_created(tmp_path, capsys, harness, dry_run):
    """A mistyped ``--project`` would otherwise make a new Baton project, hooks and all, that no
    session in the real project ever runs."""
    missing = tmp_path / "projetc"
    code, out, err = run(capsys, missing, "install-hooks", "--harness", harness, *(["--dry-run"] if dry_run else []))
    assert code == 2, (out, err)
    assert f"cannot install Baton's wiring into {missing}: no such directory; nothing was written" in err
    assert "Traceback" not in err and not missing.exists()


def test_a_project_path_naming_a_file_is_refused(tmp_path, capsys):
    named = tmp_path / "README.md"
    named.write_text("# demo\n")
    code, _, err = run(capsys, named, "install-hooks", "--harness", "codex")
    assert code == 2
    assert f"cannot install Baton's wiring into {named}: it is not a directory" in err
    assert named.read_text() == "# demo\n"


def test_the_cursor_rule_completes_a_prepared_draft_in_place_with_handoff_amend_over_mcp(project_dir):
    install_hooks(project_dir, "cursor")
    rule = " ".join((project_dir / ".cursor" / "rules" / "baton.mdc").read_text().split())
    assert "`handoff_amend` with the draft's id" in rule
