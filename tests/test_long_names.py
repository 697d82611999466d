"""Issue 9, part 2: legitimate input never puts a project out of action.

A long owner and a long branch once made `session end` append its events and
then fail on "File name too long", after which every command failed. Names
of materialized files are bounded, and a derived file that cannot be written
is recorded (``doctor`` reports it) instead of failing the command.
"""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from baton.config import write_bytes_atomic
from baton.domain.batons import FILE_STEM_MAX, baton_file, bounded_file_stem, context_key
from tests.cli_support import ledger_size, run, run_json

LONG_OWNER = "verylongemailaddress" * 6 + "@example.com"
LONG_BRANCH = "feature/" + "long-descriptive-branch-name-" * 5


def end_with_long_names(capsys, project):
    return run_json(capsys, project, "session", "end", "s1", "--handoff-steps", "a",
                    "--owner", LONG_OWNER, "--branch", LONG_BRANCH)


def test_a_long_owner_and_branch_leave_a_baton_whose_file_name_is_bounded(capsys, project):
    end_with_long_names(capsys, project)
    names = [p.name for p in (project / ".baton" / "batons").iterdir()]
    assert len(names) == 1
    assert len(names[0]) <= FILE_STEM_MAX + 13 + len(".json")


def test_every_command_works_after_a_baton_for_a_long_owner_and_branch(capsys, project):
    end_with_long_names(capsys, project)
    for command in (["handoff", "list"], ["status"], ["rebuild"], ["verify"],
                    ["checkpoint", "create", "--title", "after", "--objective", "go on"]):
        code, out, err = run(capsys, project, *command)
        assert code == 0, (command, out, err)


def test_the_long_owners_baton_is_claimed_by_their_next_session(capsys, project):
    end_with_long_names(capsys, project)
    brief = run_json(capsys, project, "bootstrap", "--session", "s2", "--owner", LONG_OWNER, "--branch", LONG_BRANCH)
    assert brief["claimed"] is True and brief["handoff"]["status"] == "claimed"


def test_short_keys_keep_their_name():
    assert baton_file("alice__main") == "batons/alice__main.json"


@given(st.text(alphabet="abc%_-", min_size=FILE_STEM_MAX + 1, max_size=400))
def test_a_long_key_is_cut_to_the_cap_plus_a_hash_of_the_whole_key(key):
    stem = bounded_file_stem(key)
    assert len(stem) <= FILE_STEM_MAX + 13
    assert stem != bounded_file_stem(key + "x")


def test_the_cut_never_splits_a_percent_escape():
    key = "a" * (FILE_STEM_MAX - 1) + "%40" + "b" * 50
    assert bounded_file_stem(key).split("~")[0] == "a" * (FILE_STEM_MAX - 1)


def test_two_long_owners_on_one_long_branch_get_two_files():
    a, b = context_key(LONG_OWNER, LONG_BRANCH), context_key(LONG_OWNER + "x", LONG_BRANCH)
    assert baton_file(a) != baton_file(b)


def test_the_atomic_write_uses_a_short_temporary_name(tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace

    def spy(src, dst):
        seen.append(os.path.basename(src))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    target = tmp_path / ("n" * 250)
    write_bytes_atomic(target, b"x")
    assert target.read_bytes() == b"x"
    assert len(seen[0]) < 30


def test_a_materialized_file_that_cannot_be_written_does_not_fail_the_command(capsys, project):
    blocked = project / ".baton" / "batons"
    if blocked.exists():
        for child in blocked.iterdir():
            child.unlink()
        blocked.rmdir()
    blocked.write_text("not a folder")  # every baton file under it now fails to be written
    before = ledger_size(project)
    end_with_long_names(capsys, project)
    assert ledger_size(project) > before
    code, out, err = run(capsys, project, "handoff", "list")
    assert code == 0, err


def test_doctor_reports_a_materialized_file_that_could_not_be_written(capsys, project):
    blocked = project / ".baton" / "batons"
    if blocked.exists():
        blocked.rmdir()
    blocked.write_text("not a folder")
    run_json(capsys, project, "session", "end", "s1", "--handoff-steps", "a", "--owner", "al", "--branch", "main")
    report = run_json(capsys, project, "doctor")
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["unwritten"]["status"] == "warn"
    assert "batons/al__main.json" in checks["unwritten"]["detail"]


def test_a_rebuild_writes_the_file_once_it_can(capsys, project):
    blocked = project / ".baton" / "batons"
    if blocked.exists():
        blocked.rmdir()
    blocked.write_text("not a folder")
    run_json(capsys, project, "session", "end", "s1", "--handoff-steps", "a", "--owner", "al", "--branch", "main")
    blocked.unlink()
    run_json(capsys, project, "rebuild")
    assert (blocked / "al__main.json").is_file()
    checks = {c["name"] for c in run_json(capsys, project, "doctor")["checks"]}
    assert "unwritten" not in checks


def test_a_session_end_refused_for_its_owner_appends_nothing(capsys, project):
    before = ledger_size(project)
    code, out, err = run(capsys, project, "session", "end", "s1", "--handoff-steps", "c",
                         "--owner", "AKIA" + "ABCDEFGHIJKLMNOP", "--branch", "main")
    assert code == 5, err
    assert ledger_size(project) == before

