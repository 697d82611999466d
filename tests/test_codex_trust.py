"""Whether Codex will run Baton's hooks here (harness14 F11): the trust hash and key as
Codex 0.171.0 computes them, and ``baton doctor``'s ``harness codex (trust)`` check read
from a ``$CODEX_HOME/config.toml`` written the way Codex's ``/hooks`` screen writes it."""

from __future__ import annotations

import json

import pytest

from baton.domain.codex_trust import CodexHook, event_label, hook_hash, hook_key
from baton.harnesses.install import install_hooks
from tests.cli_support import run
from tests.handoff_support import git_init

VENV_PYTHON = "/work/wt/codex15/.venv/bin/python3 -P -c 'from baton.launch import run; run()' hook codex "
"""The command lines the goldens below were taken with (``hooks/list``'s ``currentHash`` of the real
``codex app-server`` 0.171.0 for a project where ``install-hooks --harness codex --events all`` wrote them)."""


@pytest.mark.parametrize(("event", "matcher", "golden"), [
    ("SessionStart", "startup|resume|clear|compact",
     "sha256:4b278e40f65e87ce2dc12a644d9e487ebb30e89905a113cdbb621b973e5f6cb0"),
    ("PreCompact", "manual|auto", "sha256:6f80b474e0542564e332c8e97e30b9b542dfe224376074a72d208fd9ea3056c7"),
    ("Stop", None, "sha256:baf3ba89894bcd65f52a181728e690666da3320bf6c90bc2527969bc2ea51014"),
    ("UserPromptSubmit", None, "sha256:fa5878a4caa8930ed04706f356847c0c96c5381cb7e6095f5fec68b133e6abf4"),
])
def test_the_hook_hash_is_the_one_codex_pins_a_trusted_hook_to(event, matcher, golden):
    hook = {"type": "command", "command": VENV_PYTHON + event, "timeout": 30}
    assert hook_hash(CodexHook(event, 0, 0, hook, matcher)) == golden


@pytest.mark.parametrize(("written", "golden"), [
    ({"timeout": 30}, "sha256:6593559ab913abf36c4652bd97c20214d5452d6cde2b86e61068eb5b57f1cd73"),
    ({"timeout": 3}, "sha256:6593559ab913abf36c4652bd97c20214d5452d6cde2b86e61068eb5b57f1cd73"),
])
def test_an_interrupt_hooks_hash_is_of_the_3_s_codex_allows_it(written, golden):
    """``hooks/list``'s ``currentHash`` of the real ``codex app-server`` 0.171.0 for Baton's ``Interrupt``
    hook (harness24), which it lists with ``timeoutSec`` 3 whatever the file says above it."""
    command = "/work/wt/harness24/.venv/bin/python3 -P -c 'from baton.launch import run; run()' hook codex Interrupt"
    assert hook_hash(CodexHook("Interrupt", 0, 0, {"type": "command", "command": command, **written})) == golden


def test_an_interrupt_hook_without_a_timeout_is_hashed_with_the_1_s_codex_gives_it():
    """The real 0.171.0 lists an ``Interrupt`` hook written without a timeout with ``timeoutSec`` 1."""
    command = "sh -c 'cat >> /tmp/harness24/pt3/test_scratch_codex0/payloads.jsonl; " \
              "echo >> /tmp/harness24/pt3/test_scratch_codex0/payloads.jsonl' # hook codex Interrupt"
    assert hook_hash(CodexHook("Interrupt", 0, 0, {"type": "command", "command": command})) \
        == "sha256:ab2b87b700d1f750f9eb3c46f099fc79ec648dd4facaf260c3455df9a17eef43"


def test_the_hook_key_names_the_file_the_event_in_snake_case_and_the_hooks_place():
    hook = CodexHook("UserPromptSubmit", 1, 2, {"command": "x"})
    assert event_label("SessionStart") == "session_start"
    assert hook_key("/p/.codex/hooks.json", hook) == "/p/.codex/hooks.json:user_prompt_submit:1:2"


def test_a_matcher_on_an_event_that_takes_none_is_not_in_the_hash():
    hook = {"type": "command", "command": "x", "timeout": 30}
    assert hook_hash(CodexHook("Stop", 0, 0, hook, "whatever")) == hook_hash(CodexHook("Stop", 0, 0, hook))


# -- baton doctor, with a user config written as Codex writes it --------------------------------

@pytest.fixture
def codex_home(tmp_path, monkeypatch):
    home = tmp_path / "codex-home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


def _trust_check(capsys, project_dir) -> dict:
    code, out, err = run(capsys, project_dir, "doctor", "--json")
    return {c["name"]: c for c in json.loads(out)["checks"]}["harness codex (trust)"]


def _codex_config(project_dir, *, folder: str | None = "trusted", hashes: dict | None = None) -> str:
    """``config.toml`` as Codex 0.171.0 writes it: the folder's trust (the TUI's prompt or
    ``codex exec --trust``), each hook's ``trusted_hash`` (``/hooks``: ``config/batchWrite``)."""
    lines = ['model = "gpt-5"', ""]
    if folder is not None:
        lines += [f"[projects.{json.dumps(str(project_dir))}]", f'trust_level = "{folder}"', ""]
    for key, value in (hashes or {}).items():
        lines += [f"[hooks.state.{json.dumps(key, ensure_ascii=False)}]", f'trusted_hash = "{value}"', ""]
    return "\n".join(lines)


def _batons_hooks(project_dir) -> dict[str, str]:
    """Each of Baton's hooks in .codex/hooks.json: its key and current hash."""
    config = json.loads((project_dir / ".codex" / "hooks.json").read_text())
    found = {}
    for event, groups in config["hooks"].items():
        for g, group in enumerate(groups):
            for i, hook in enumerate(group["hooks"]):
                item = CodexHook(event, g, i, hook, group.get("matcher"))
                found[hook_key(f"{project_dir}/.codex/hooks.json", item)] = hook_hash(item)
    return found


def test_doctor_warns_that_codex_loads_nothing_in_a_folder_never_trusted(project_dir, capsys, codex_home):
    install_hooks(project_dir, "codex")
    check = _trust_check(capsys, project_dir)
    assert check["status"] == "warn"
    assert "Codex will load neither Baton's hooks nor its MCP server here: this folder is not trusted" in check["detail"]
    assert str(codex_home / "config.toml") in check["detail"] and "trust the folder" in check["detail"]


def test_doctor_warns_of_a_folder_codex_was_told_not_to_trust(project_dir, capsys, codex_home):
    install_hooks(project_dir, "codex")
    (codex_home / "config.toml").write_text(_codex_config(project_dir, folder="untrusted",
                                                          hashes=_batons_hooks(project_dir)))
    check = _trust_check(capsys, project_dir)
    assert check["status"] == "warn" and 'marked `trust_level = "untrusted"`' in check["detail"]


def test_doctor_warns_that_codex_skips_hooks_never_trusted_in_a_trusted_folder(project_dir, capsys, codex_home):
    install_hooks(project_dir, "codex")
    (codex_home / "config.toml").write_text(_codex_config(project_dir))
    check = _trust_check(capsys, project_dir)
    assert check["status"] == "warn"
    assert "Codex will skip Baton's hooks here: SessionStart, PreCompact, Stop, Interrupt not trusted" in check["detail"]
    assert "type /hooks and trust them" in check["detail"]


def test_doctor_says_ok_once_the_folder_and_every_hook_are_trusted(project_dir, capsys, codex_home):
    install_hooks(project_dir, "codex")
    (codex_home / "config.toml").write_text(_codex_config(project_dir, hashes=_batons_hooks(project_dir)))
    check = _trust_check(capsys, project_dir)
    assert check["status"] == "ok", check["detail"]
    assert "Codex trusts this folder and Baton's 4 hooks" in check["detail"]


def test_doctor_warns_of_hooks_trusted_before_an_install_hooks_changed_them(project_dir, capsys, codex_home):
    install_hooks(project_dir, "codex")
    (codex_home / "config.toml").write_text(_codex_config(project_dir, hashes=_batons_hooks(project_dir)))
    hooks_file = project_dir / ".codex" / "hooks.json"
    hooks_file.write_text(hooks_file.read_text().replace('"timeout": 30', '"timeout": 45'))
    check = _trust_check(capsys, project_dir)
    assert check["status"] == "warn"
    # Interrupt's timeout is 3 s whatever is written above it, so its hash (and Codex's trust) holds
    assert ("SessionStart, PreCompact, Stop trusted as an earlier version of the hook (an `install-hooks` "
            "changed it since)") in check["detail"]


def test_doctor_warns_of_a_hook_turned_off_in_codex(project_dir, capsys, codex_home):
    install_hooks(project_dir, "codex")
    text = _codex_config(project_dir, hashes=_batons_hooks(project_dir))
    stop_key = f"{project_dir}/.codex/hooks.json:stop:0:0"
    text = text.replace(f"[hooks.state.{json.dumps(stop_key)}]\n", f"[hooks.state.{json.dumps(stop_key)}]\nenabled = false\n")
    (codex_home / "config.toml").write_text(text)
    check = _trust_check(capsys, project_dir)
    assert check["status"] == "warn" and "Stop turned off" in check["detail"] and "turn them on" in check["detail"]


def test_doctor_warns_when_the_user_turned_codex_hooks_off(project_dir, capsys, codex_home):
    install_hooks(project_dir, "codex")
    (codex_home / "config.toml").write_text("[features]\nhooks = false\n\n" + _codex_config(
        project_dir, hashes=_batons_hooks(project_dir)))
    check = _trust_check(capsys, project_dir)
    assert check["status"] == "warn" and "`[features] hooks = false`" in check["detail"]


def test_doctor_reads_the_codex_config_under_the_home_folder_without_codex_home(project_dir, capsys, isolated_home):
    install_hooks(project_dir, "codex")
    (isolated_home / ".codex").mkdir()
    (isolated_home / ".codex" / "config.toml").write_text(_codex_config(project_dir, hashes=_batons_hooks(project_dir)))
    assert _trust_check(capsys, project_dir)["status"] == "ok"


def test_doctor_says_it_cannot_tell_when_the_codex_config_does_not_parse(project_dir, capsys, codex_home):
    install_hooks(project_dir, "codex")
    (codex_home / "config.toml").write_text("[projects\n")
    check = _trust_check(capsys, project_dir)
    assert check["status"] == "warn" and "whether Codex runs Baton's hooks here is unknown" in check["detail"]


def test_doctor_never_writes_the_codex_config(project_dir, capsys, codex_home):
    install_hooks(project_dir, "codex")
    config = codex_home / "config.toml"
    config.write_text(_codex_config(project_dir))
    before = config.read_bytes()
    _trust_check(capsys, project_dir)
    assert config.read_bytes() == before and sorted(p.name for p in codex_home.iterdir()) == ["config.toml"]


def test_doctor_has_no_codex_trust_check_where_codex_is_not_wired(project_dir, capsys, codex_home):
    install_hooks(project_dir, "claude-code")
    code, out, err = run(capsys, project_dir, "doctor", "--json")
    assert "harness codex (trust)" not in {c["name"] for c in json.loads(out)["checks"]}


def test_doctor_takes_the_trust_codex_recorded_for_the_git_repository_holding_the_project(tmp_path, capsys,
                                                                                          codex_home):
    """Codex looks a folder inside a repository up by the repository's root (the key its trust
    prompt writes: ``resolve_root_git_project_for_trust``): a project in a subfolder of a trusted
    repository is trusted (review15 F8)."""
    from tests.app_support import init_project

    repo = tmp_path / "repo"
    project = repo / "service"
    project.mkdir(parents=True)
    git_init(repo, {"README.md": "r\n"})
    init_project(project)
    install_hooks(project, "codex")
    (codex_home / "config.toml").write_text(_codex_config(repo, hashes=_batons_hooks(project)))
    check = _trust_check(capsys, project)
    assert check["status"] == "ok", check["detail"]
