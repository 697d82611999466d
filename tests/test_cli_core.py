"""The ledger-core commands as a user runs them."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_baton


def test_init_creates_config_ledger_and_ignore_file(project_dir):
    r = run_baton("init", "--json", "--project", str(project_dir))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["created"] is True
    baton = project_dir / ".baton"
    assert (baton / "config.json").is_file()
    assert (baton / "ledger" / f"{out['writer']}.jsonl").is_file()
    ignore = (baton / ".gitignore").read_text()
    assert "*" in ignore.splitlines() and "!config.json" in ignore


def test_init_twice_is_harmless(project_dir):
    first = json.loads(run_baton("init", "--json", "--project", str(project_dir)).stdout)
    second = run_baton("init", "--json", "--project", str(project_dir))
    assert second.returncode == 0
    assert json.loads(second.stdout)["created"] is False
    assert json.loads(second.stdout)["project_id"] == first["project_id"]
    events = run_baton("log", "--json", "--project", str(project_dir)).stdout.splitlines()
    assert len(events) == 1


def test_init_refuses_to_change_an_existing_project_id(project_dir):
    run_baton("init", "--project", str(project_dir), "--project-id", "one")
    r = run_baton("init", "--project", str(project_dir), "--project-id", "two")
    assert r.returncode == 4
    assert "Traceback" not in r.stderr


def test_commands_outside_a_project_say_to_run_init(project_dir):
    for cmd in (["log"], ["verify"], ["rebuild"], ["gc"]):
        r = run_baton(*cmd, "--project", str(project_dir))
        assert r.returncode == 4, cmd
        assert "baton init" in r.stderr
        assert "Traceback" not in r.stderr


def test_a_project_that_names_no_directory_says_so_rather_than_to_run_init(tmp_path):
    # `baton init` refuses such a root ("is not a directory"): advising it would send the user in a circle
    missing, a_file = tmp_path / "no" / "such", tmp_path / "notes.txt"
    a_file.write_text("x")
    for root, why in ((missing, "no such directory"), (a_file, "it is not a directory")):
        r = run_baton("status", "--json", "--project", str(root))
        assert r.returncode == 4, r.stderr
        error = json.loads(r.stdout)["error"]
        assert error["code"] == "not_initialized"
        assert why in error["message"] and "baton init" not in error["message"]
    assert not missing.exists()


def test_errors_in_json_mode_are_json_on_stdout(project_dir):
    r = run_baton("log", "--json", "--project", str(project_dir))
    assert r.returncode == 4
    assert json.loads(r.stdout)["error"]["code"] == "not_initialized"


def test_log_json_prints_one_event_per_line(project):
    r = run_baton("log", "--json", "--project", str(project))
    lines = r.stdout.splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["project.initialized"]


def test_log_filters_by_type_glob(project):
    r = run_baton("log", "--json", "--type", "handoff.*", "--project", str(project))
    assert r.returncode == 0 and r.stdout.strip() == ""


def test_verify_passes_on_a_fresh_project(project):
    r = run_baton("verify", "--json", "--project", str(project))
    assert r.returncode == 0
    assert json.loads(r.stdout)["ok"] is True


def test_verify_exits_3_naming_feed_and_seq_when_a_line_is_altered(project):
    feed = next((project / ".baton" / "ledger").glob("*.jsonl"))
    run_baton("init", "--project", str(project))  # no-op, keeps one event
    from baton.commands.context import Project
    from baton.ledger.envelope import EventDraft

    p = Project.open(project)
    with p.writing() as scope:
        scope.append([EventDraft("test.noted", "test/1", {"n": 1})])
        scope.append([EventDraft("test.noted", "test/1", {"n": 2})])
    lines = feed.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"n":1', b'"n":7')
    feed.write_bytes(b"".join(lines))
    r = run_baton("verify", "--project", str(project))
    assert r.returncode == 3
    assert feed.stem in r.stdout and "seq 2" in r.stdout


def test_rebuild_reports_the_events_replayed(project):
    r = run_baton("rebuild", "--json", "--project", str(project))
    assert r.returncode == 0
    assert json.loads(r.stdout)["events"] == 1


def test_doctor_works_outside_a_project(project_dir):
    r = run_baton("doctor", "--json", "--project", str(project_dir))
    assert r.returncode == 0
    assert json.loads(r.stdout)["initialized"] is False


def test_doctor_fails_on_a_project_folder_that_does_not_exist_instead_of_suggesting_init(tmp_path):
    missing = tmp_path / "projetc"
    r = run_baton("doctor", "--json", "--project", str(missing))
    assert r.returncode == 3
    (check,) = [c for c in json.loads(r.stdout)["checks"] if c["name"] == "project"]
    assert check["status"] == "fail" and check["detail"] == f"{missing}: no such directory"
    assert not missing.exists()


def test_gc_removes_only_the_index(project):
    run_baton("rebuild", "--project", str(project))
    r = run_baton("gc", "--json", "--project", str(project))
    assert r.returncode == 0
    removed = {item["path"] for item in json.loads(r.stdout)["removed"]}
    assert ".baton/index.sqlite" in removed
    assert not (project / ".baton" / "index.sqlite").exists()
    assert list((project / ".baton" / "ledger").glob("*.jsonl"))


def test_gc_dry_run_says_nothing_was_removed_and_leaves_the_index(project):
    run_baton("rebuild", "--project", str(project))
    r = run_baton("gc", "--dry-run", "--project", str(project))
    assert r.returncode == 0 and "Would remove .baton/index.sqlite" in r.stdout
    assert "Nothing was removed" in r.stdout and "The index is rebuilt" not in r.stdout
    assert (project / ".baton" / "index.sqlite").exists()


def test_help_does_not_import_heavy_modules():
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "baton", "--help"],
                       capture_output=True, text=True)
    assert r.returncode == 0
    loaded = {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    for heavy in ("mcp", "sqlite_utils", "dulwich.porcelain", "dulwich.repo", "cattrs"):
        assert heavy not in loaded, heavy


def test_an_argument_that_is_not_utf8_is_an_input_error(project):
    import os
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "baton", "log", "--type", os.fsdecode(b"bad\xff"), "--project",
                        str(project)], capture_output=True, text=True)
    assert r.returncode == 2
    assert "not valid UTF-8" in r.stderr and "Traceback" not in r.stderr


def test_a_usage_error_with_json_prints_a_json_error(project):
    r = run_baton("log", "--json", "--limit", "many", "--project", str(project))
    assert r.returncode == 2
    assert json.loads(r.stdout)["error"]["code"] == "input_error"


def test_doctor_warns_when_materialized_files_are_missing(project):
    import shutil

    r = run_baton("checkpoint", "create", "--no-input", "--title", "t", "--objective", "o", "--project", str(project))
    assert r.returncode == 0, r.stderr
    shutil.rmtree(project / ".baton" / "handoffs")
    out = json.loads(run_baton("doctor", "--json", "--project", str(project)).stdout)
    check = next(c for c in out["checks"] if c["name"] == "materialized")
    assert check["status"] == "warn" and "baton rebuild" in check["detail"]


def test_json_with_no_command_prints_a_json_error_and_exits_2(tmp_path):
    r = run_baton("--json", cwd=tmp_path)
    assert r.returncode == 2
    error = json.loads(r.stdout)["error"]
    assert error["code"] == "input_error" and "no command given" in error["message"]


@pytest.mark.parametrize("order", [("--version", "--json"), ("--json", "--version")])
def test_version_with_json_is_a_json_object(tmp_path, order):
    from baton import __version__

    r = run_baton(*order, cwd=tmp_path)
    assert r.returncode == 0
    assert json.loads(r.stdout) == {"version": __version__}


def test_version_alone_is_one_line(tmp_path):
    from baton import __version__

    assert run_baton("--version", cwd=tmp_path).stdout == f"baton {__version__}\n"


@pytest.mark.parametrize("group", ["handoff", "session", "checkpoint"])
def test_a_group_without_its_subcommand_shows_the_groups_own_help_and_exits_2(tmp_path, group):
    r = run_baton(group, cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.startswith(f"usage: baton {group} ")


@pytest.mark.parametrize("group", ["handoff", "session", "checkpoint"])
def test_an_option_given_to_a_group_before_its_subcommand_is_named_as_such(tmp_path, group):
    r = run_baton(group, "--json", cwd=tmp_path)
    assert r.returncode == 2
    error = json.loads(r.stdout)["error"]
    assert error["code"] == "input_error" and f"`baton {group}` needs a subcommand before its options" in error["message"]


def test_the_subcommand_groups_are_the_commands_that_do_nothing_without_a_subcommand():
    import argparse

    from baton.cli import SUBCOMMAND_GROUPS, build_parser

    def subparsers(parser):
        return [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]

    groups = set()
    for name in subparsers(build_parser())[0].choices:
        command = subparsers(build_parser([name]))[0].choices[name]  # each command's parser, fully built
        if subparsers(command) and not command._defaults.get("func"):
            groups.add(name)
    assert groups == set(SUBCOMMAND_GROUPS)


def test_help_lists_every_exit_code_the_cli_reference_names():
    # docs/cli.md's table: 0, 1 (storage or internal failure), 2, 3, 4, 5.
    from pathlib import Path

    from baton.cli import build_parser

    epilog = build_parser().epilog
    table = Path(__file__).resolve().parents[1].joinpath("docs", "cli.md").read_text()
    for code in range(6):
        assert f"| {code} |" in table
        assert f"{code} " in epilog.split("Exit codes:", 1)[1], code
    assert "1 storage or internal failure" in epilog


def test_outside_a_project_the_documented_exceptions_run_and_the_rest_exit_4(tmp_path):
    # docs/cli.md: reading or writing commands exit 4; completion, mcp (which
    # serves anyway), hook (always 0) and doctor do not.
    env = {"BATON_PROJECT": ""}
    assert run_baton("handoff", "list", cwd=tmp_path, env=env).returncode == 4
    assert run_baton("verify", cwd=tmp_path, env=env).returncode == 4
    assert run_baton("completion", "bash", cwd=tmp_path, env=env).returncode == 0
    assert run_baton("mcp", "--json", cwd=tmp_path, env=env).returncode == 0
    assert run_baton("hook", "claude-code", "SessionStart", cwd=tmp_path, env=env, input="{}").returncode == 0
    assert run_baton("doctor", cwd=tmp_path, env=env).returncode == 0
    assert not (tmp_path / ".baton").exists()


def test_help_as_a_command_shows_the_help_of_the_command_it_names(capsys):
    """``baton help handoff list`` is ``baton handoff list --help`` (as ``git help`` is asked); ``baton help``
    alone the top-level help. It was refused as an unknown command."""
    from baton.cli import main

    for words, usage in ((["help", "handoff", "list"], "usage: baton handoff list"), (["help"], "usage: baton [-h]")):
        try:
            main(words)
        except SystemExit as exit_:
            assert exit_.code == 0
        assert capsys.readouterr().out.startswith(usage)


def test_help_of_help_shows_the_top_level_help(capsys):
    """``baton help help`` (as ``git help help``) was refused: "invalid choice: 'help'"."""
    from baton.cli import main

    try:
        code = main(["help", "help"])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 0 and capsys.readouterr().out.startswith("usage: baton [-h]")


def test_help_of_an_unknown_command_names_the_commands(capsys):
    from baton.cli import main

    try:
        code = main(["help", "hndoff"])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2 and "did you mean 'handoff'?" in capsys.readouterr().err


def _usage_error(capsys, words: list[str]) -> tuple[int, str]:
    from baton.cli import main

    try:
        code = main(words)
    except SystemExit as exit_:
        code = exit_.code
    return code, capsys.readouterr().err


def test_a_harness_given_without_harness_option_is_pointed_to_it(capsys):
    code, err = _usage_error(capsys, ["install-hooks", "claude-code"])
    assert code == 2 and "did you mean `--harness claude-code`?" in err


def test_a_stray_word_near_a_harness_name_is_pointed_to_the_harness_option(capsys):
    code, err = _usage_error(capsys, ["install-hooks", "claude_code"])
    assert code == 2 and "did you mean `--harness claude-code`?" in err


def test_another_options_value_is_not_taken_for_the_missing_harness(capsys):
    code, err = _usage_error(capsys, ["install-hooks", "--command", "codex"])
    assert code == 2 and "did you mean" not in err


def test_an_unknown_global_option_is_not_matched_to_a_commands_option(capsys):
    code, err = _usage_error(capsys, ["--bogus"])
    assert code == 2 and "--host" not in err and "did you mean" not in err


def test_a_mistyped_global_option_is_matched_to_a_global_one(capsys):
    code, err = _usage_error(capsys, ["--jsn"])
    assert code == 2 and "did you mean '--json'?" in err


def test_handoff_search_points_to_the_full_text_search_of_handoff_list(capsys):
    code, err = _usage_error(capsys, ["handoff", "search"])
    assert code == 2 and "did you mean `baton handoff list --work QUERY`?" in err and "archive'?" not in err


def test_an_id_taken_by_a_several_value_option_at_the_end_is_named(capsys):
    code, err = _usage_error(capsys, ["handoff", "amend", "--decision", "Use redis", "4a2b"])
    assert code == 2 and "--decision takes every word after it" in err


def test_an_id_taken_by_a_several_value_option_is_named_when_a_flag_follows(capsys):
    code, err = _usage_error(capsys, ["handoff", "amend", "--decision", "Use redis", "4a2b", "--json"])
    assert code == 2 and "--decision takes every word after it" in err


def test_the_json_error_names_the_option_that_took_the_id(capsys):
    from baton.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["handoff", "amend", "--decision", "x", "4a2b", "--no-input", "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert exit_.value.code == 2 and "--decision takes every word after it" in error["message"]


def test_an_option_that_took_one_word_before_another_option_is_not_blamed(capsys):
    code, err = _usage_error(capsys, ["handoff", "amend", "--decision", "Use redis", "--json"])
    assert code == 2 and "takes every word" not in err
