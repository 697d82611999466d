"""A project folder moved to another file system mid-session (``mv /tmp/p /dev/shm/p``:
a copy, then a delete), or deleted: the harness's hooks and a person's commands run in a
folder that is gone, and the payload's ``cwd`` and ``$CLAUDE_PROJECT_DIR`` name it still.
They say so in words — what was left undone, and what the project's new place will do —
never an internal error; the next start in the new place takes the session's ready
handoff over once its harness has exited (docs/sync.md, "A `mv` across file systems").
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from baton.app import Baton
from baton.domain.unended import HARNESS_GONE
from baton.projections.sessions import session_doc
from tests.app_support import ready_handoff
from tests.handoff_support import git_init
from tests.harness_support import fixture, hook, injected

LINUX = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
BATON = Path(sys.executable).parent / "baton"
GONE = "this session works in is gone (moved or deleted), and so is the folder this hook runs in"

STAND_IN = """\
import os, subprocess, sys
# A harness: it runs its hooks through a shell in its project folder, as Claude Code does; between its
# session's start and end (each payload a line on stdin) the folder is moved away under it.
def run(event, payload):
    done = subprocess.run(["/bin/sh", "-c", sys.argv[1] + " hook claude-code " + event], input=payload,
                          capture_output=True, env=dict(os.environ, CLAUDE_PROJECT_DIR=sys.argv[2]))
    sys.stdout.write(repr((done.returncode, done.stdout.decode(), done.stderr.decode())) + "\\n")
    sys.stdout.flush()
run("SessionStart", sys.stdin.buffer.readline())
run("SessionEnd", sys.stdin.buffer.readline())
sys.stdin.buffer.readline()  # works on until told to exit
"""


def _gone_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "was-here"
    folder.mkdir()
    return folder


def _in_a_deleted_folder(argv: list[str], folder: Path, **kwargs) -> subprocess.CompletedProcess:
    """``argv`` run in ``folder``, deleted before it starts (as under a shell left in a moved folder)."""
    script = "import os, subprocess, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); " \
             "sys.exit(subprocess.run(sys.argv[2:]).returncode)"
    return subprocess.run([sys.executable, "-c", script, str(folder), *argv], capture_output=True, text=True,
                          timeout=120, **kwargs)


def _session_end_in_a_deleted_folder(folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Claude Code's ``SessionEnd`` hook of session ``s1`` run in ``folder``, deleted before it starts."""
    payload = {"session_id": "s1", "cwd": str(folder), "hook_event_name": "SessionEnd", "reason": "other",
               "transcript_path": "/dev/null"}
    return _in_a_deleted_folder([str(BATON), "hook", "claude-code", "SessionEnd"], folder, input=json.dumps(payload),
                                env=env)


@pytest.mark.parametrize(("event", "undone"), [
    ("SessionEnd", "its end was not recorded: a session start in the project's new place ends this session and "
                   "hands on the handoff it readied once it can tell this session is over"),
    ("PreCompact", "no draft was prepared before compaction; the session's work stays where its last capture "
                   "left it, in the project's new place"),
])
def test_a_hook_whose_project_folder_is_gone_says_so_and_what_it_left_undone(tmp_path, event, undone):
    folder = _gone_folder(tmp_path)
    payload = {"session_id": "s1", "cwd": str(folder), "hook_event_name": event, "reason": "other",
               "trigger": "auto", "transcript_path": "/dev/null"}
    done = _in_a_deleted_folder([str(BATON), "hook", "claude-code", event], folder, input=json.dumps(payload),
                                env={**os.environ, "CLAUDE_PROJECT_DIR": str(folder), "BATON_HOOK_SERVER": "0"})
    assert done.returncode == 0
    line = done.stderr.strip()
    assert line.startswith(f"baton hook claude-code {event}: the project folder {folder} {GONE}; {undone}")
    assert "\n" not in line
    assert "internal error" not in done.stderr


def test_a_handoff_request_whose_project_folder_is_gone_says_so_and_injects_nothing(tmp_path):
    folder = _gone_folder(tmp_path)
    payload = fixture("claude-code", "UserPromptSubmit", folder, session_id="s1", prompt="please write a handoff now")
    done = _in_a_deleted_folder([str(BATON), "hook", "claude-code", "UserPromptSubmit"], folder,
                                input=json.dumps(payload), env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert done.returncode == 0 and done.stdout.strip() in ("", "{}")
    assert done.stderr.strip() == f"baton hook claude-code UserPromptSubmit: the project folder {folder} {GONE}; " \
                                  "nothing injected"


def test_a_session_start_whose_project_folder_is_gone_tells_the_agent_in_words(tmp_path):
    folder = _gone_folder(tmp_path)
    payload = fixture("claude-code", "SessionStart.startup", folder, session_id="s1")
    done = _in_a_deleted_folder([str(BATON), "hook", "claude-code", "SessionStart"], folder,
                                input=json.dumps(payload), env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert done.returncode == 0
    context = injected("claude-code", done.stdout)
    assert f"the project folder {folder} {GONE}; no brief was delivered" in context
    assert "internal error" not in done.stderr


@pytest.mark.parametrize("argv", [["session", "handoff"], ["status"], ["--json", "status"]],
                         ids=["session-handoff", "status", "json"])
def test_a_command_run_in_a_deleted_folder_says_the_folder_is_gone_with_exit_4(tmp_path, argv):
    done = _in_a_deleted_folder([str(BATON), *argv], _gone_folder(tmp_path))
    assert done.returncode == 4, done.stderr
    said = json.loads(done.stdout)["error"] if "--json" in argv else {"message": done.stderr}
    assert "the current folder is gone (moved or deleted while this shell was in it)" in said["message"]
    assert "--json" not in argv or said["code"] == "folder_gone"
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_a_command_run_in_a_deleted_folder_opens_the_project_it_names(repo, tmp_path):
    done = _in_a_deleted_folder([str(BATON), "--json", "status", "--project", str(repo)], _gone_folder(tmp_path))
    assert done.returncode == 0, done.stderr


@LINUX
@pytest.mark.slow
def test_a_session_moved_to_another_file_system_mid_session_says_its_end_was_not_recorded_and_the_next_start_in_the_new_place_takes_its_handoff(  # noqa: E501
        repo, other_file_system):
    start = fixture("claude-code", "SessionStart.startup", repo, session_id="moving")
    end = fixture("claude-code", "SessionEnd", repo, session_id="moving")
    harness = subprocess.Popen([sys.executable, "-c", STAND_IN, str(BATON), str(repo)], cwd=repo,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True,
                               env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert harness.stdin is not None and harness.stdout is not None
    try:
        harness.stdin.write(json.dumps(start) + "\n")
        harness.stdin.flush()
        assert eval(harness.stdout.readline())[0] == 0  # noqa: S307 - the stand-in's own repr
        handoff_id = ready_handoff(repo, "moving")
        moved = other_file_system / repo.name
        subprocess.run(["mv", str(repo), str(moved)], check=True)
        harness.stdin.write(json.dumps(end) + "\n")
        harness.stdin.flush()
        status, _out, err = eval(harness.stdout.readline())  # noqa: S307
        assert status == 0
        assert f"SessionEnd: the project folder {repo} {GONE}; its end was not recorded" in err
        assert "internal error" not in err
    finally:
        os.kill(harness.pid, signal.SIGKILL)
        harness.wait(60)
    started = hook(moved, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", moved,
                                                                 session_id="next"))
    assert started.result.delivered.record.id == handoff_id
    assert f"never reported its end ({HARNESS_GONE}) after it readied handoff `{handoff_id}`" in injected(
        "claude-code", started.answer)
    with Baton.open(moved) as app:
        assert session_doc(app.project.reading(), app.project.writer, "moving")["leftBaton"] == handoff_id


def test_a_session_whose_subfolder_a_branch_switch_removed_records_its_end_in_the_project_where_it_is(repo):
    """Started in ``repo/web/``; the agent switches to a branch without ``web/``: the project has not moved."""
    web = repo / "web"
    web.mkdir()
    (web / "a.txt").write_text("x\n")
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run([*git, "add", "web"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "web"], cwd=repo, check=True)
    subprocess.run([*git, "checkout", "-q", "-b", "other"], cwd=repo, check=True)
    subprocess.run([*git, "rm", "-q", "-r", "web"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "no web"], cwd=repo, check=True)
    subprocess.run([*git, "checkout", "-q", "-"], cwd=repo, check=True)
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(web), "BATON_HOOK_SERVER": "0"}
    started = subprocess.run([str(BATON), "hook", "claude-code", "SessionStart"], cwd=web, env=env, text=True,
                             input=json.dumps(fixture("claude-code", "SessionStart.startup", web, session_id="s1")),
                             capture_output=True, timeout=120)
    assert started.returncode == 0 and "Traceback" not in started.stderr
    subprocess.run([*git, "checkout", "-q", "other"], cwd=repo, check=True)
    assert not web.exists()
    web.mkdir()  # only for _in_a_deleted_folder to step into and delete again: the hook runs where web/ was
    ended = _session_end_in_a_deleted_folder(web, env)
    assert ended.returncode == 0
    assert "gone" not in ended.stderr and "internal error" not in ended.stderr
    with Baton.open(repo) as app:
        assert session_doc(app.project.reading(), app.project.writer, "s1")["status"] == "ended"


def test_a_session_whose_project_was_moved_away_still_says_its_end_was_not_recorded(tmp_path, repo):
    """The nearest folder above the gone one holds no project: the project itself moved."""
    folder = tmp_path / "outside" / "was-here"
    folder.mkdir(parents=True)
    done = _session_end_in_a_deleted_folder(folder, {**os.environ, "CLAUDE_PROJECT_DIR": str(folder),
                                                     "BATON_HOOK_SERVER": "0"})
    assert done.returncode == 0
    assert done.stderr.strip().startswith(f"baton hook claude-code SessionEnd: the project folder {folder} {GONE}; ")


@pytest.mark.parametrize("named", [False, True], ids=["no-project", "project-named"])
def test_demo_run_in_a_deleted_folder_says_the_folder_is_gone_with_exit_4(repo, tmp_path, named):
    argv = [str(BATON), "--json", *(["--project", str(repo)] if named else []), "demo"]
    done = _in_a_deleted_folder(argv, _gone_folder(tmp_path))
    assert done.returncode == 4, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "folder_gone"
    assert "the current folder is gone (moved or deleted while this shell was in it)" in error["message"]
    assert "internal error" not in done.stderr


def _inner_project_moved_mid_session(repo: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """``repo/inner``, a project of its own inside ``repo``'s work tree, whose session ``s1`` started
    there and which was then moved away: the folder ``inner`` (recreated, for ``_in_a_deleted_folder`` to
    step into and delete again) and the environment its harness's hooks run with."""
    from tests.app_support import init_project

    inner = repo / "inner"
    inner.mkdir()
    git_init(inner, {"lib.py": "y = 2\n"})
    init_project(inner)
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(inner), "BATON_HOOK_SERVER": "0"}
    started = subprocess.run([str(BATON), "hook", "claude-code", "SessionStart"], cwd=inner, env=env, text=True,
                             input=json.dumps(fixture("claude-code", "SessionStart.startup", inner, session_id="s1")),
                             capture_output=True, timeout=120)
    assert started.returncode == 0 and "Traceback" not in started.stderr
    with Baton.open(inner) as app:
        assert session_doc(app.project.reading(), app.project.writer, "s1") is not None
    shutil.move(str(inner), str(tmp_path / "moved-inner"))
    inner.mkdir()  # only for _in_a_deleted_folder to step into and delete again: the hook runs where inner/ was
    return inner, env


def test_a_project_moved_away_from_inside_another_projects_work_tree_records_nothing_in_that_project(repo, tmp_path):
    """``repo/inner`` is a project of its own (its own repository) inside ``repo``'s work tree. Its
    session starts there, then ``inner`` is moved to another file system: its end is not the outer
    project's. The hook says its folder is gone (its end not recorded) and writes nothing in ``repo``."""
    inner, env = _inner_project_moved_mid_session(repo, tmp_path)
    ended = _session_end_in_a_deleted_folder(inner, env)
    assert ended.returncode == 0
    assert ended.stderr.strip().startswith(f"baton hook claude-code SessionEnd: the project folder {inner} {GONE}; "
                                           "its end was not recorded")
    with Baton.open(repo) as app:
        assert session_doc(app.project.reading(), app.project.writer, "s1") is None


@pytest.mark.parametrize("source", ["compact", "clear", "resume"])
def test_a_repeated_start_of_a_session_whose_project_moved_away_from_inside_another_project_records_nothing_there(
        repo, tmp_path, source):
    """Claude Code starts a session again (after a compaction, ``/clear``, a resume) with its id and its
    gone folder: that start is not the outer project's, nor is the end after it; no brief of the outer
    project (nor its handoff) is offered to the moved project's agent."""
    inner, env = _inner_project_moved_mid_session(repo, tmp_path)
    again = {**fixture("claude-code", "SessionStart.compact", inner, session_id="s1"), "source": source}
    restarted = _in_a_deleted_folder([str(BATON), "hook", "claude-code", "SessionStart"], inner,
                                     input=json.dumps(again), env=env)
    assert restarted.returncode == 0 and "Traceback" not in restarted.stderr
    assert f"the project folder {inner} {GONE}" in restarted.stdout
    assert "## Baton" not in restarted.stdout
    inner.mkdir()
    ended = _session_end_in_a_deleted_folder(inner, env)
    assert ended.returncode == 0
    with Baton.open(repo) as app:
        assert session_doc(app.project.reading(), app.project.writer, "s1") is None


def test_a_new_session_started_in_a_gone_subfolder_of_a_project_is_recorded_in_that_project(repo, tmp_path):
    """A session begun (``startup``) in a folder of the project deleted under it: the project is the one above."""
    gone = repo / "build"
    gone.mkdir()
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(gone), "BATON_HOOK_SERVER": "0"}
    start = fixture("claude-code", "SessionStart.startup", gone, session_id="fresh")
    started = _in_a_deleted_folder([str(BATON), "hook", "claude-code", "SessionStart"], gone,
                                   input=json.dumps(start), env=env)
    assert started.returncode == 0 and "Traceback" not in started.stderr
    with Baton.open(repo) as app:
        assert session_doc(app.project.reading(), app.project.writer, "fresh") is not None


def test_a_refused_hook_of_a_project_moved_away_from_inside_another_project_leaves_no_notice_there(repo, tmp_path):
    """Its failure is said on stderr; the outer project's next session is told nothing of session ``s1``."""
    inner, env = _inner_project_moved_mid_session(repo, tmp_path)
    ended = _session_end_in_a_deleted_folder(inner, env)
    assert "its end was not recorded" in ended.stderr
    assert not (repo / ".baton" / "hook-notices.jsonl").exists()
    outer_env = {**os.environ, "CLAUDE_PROJECT_DIR": str(repo), "BATON_HOOK_SERVER": "0"}
    outer = subprocess.run([str(BATON), "hook", "claude-code", "SessionStart"], cwd=repo, env=outer_env, text=True,
                           input=json.dumps(fixture("claude-code", "SessionStart.startup", repo, session_id="o1")),
                           capture_output=True, timeout=120)
    assert outer.returncode == 0 and "session s1" not in outer.stdout


def test_a_refused_repeated_start_of_a_moved_project_takes_none_of_the_other_projects_notices(repo, tmp_path):
    """The notices waiting in ``repo`` stay for ``repo``'s next start."""
    inner, env = _inner_project_moved_mid_session(repo, tmp_path)
    from baton.harnesses import notices_write

    assert notices_write.leave(repo / ".baton", harness="claude-code", event="SessionEnd", session="o0",
                               problem="the outer project's own", at=notices_write.stamp())
    waiting = (repo / ".baton" / "hook-notices.jsonl").read_text()
    again = fixture("claude-code", "SessionStart.compact", inner, session_id="s1")
    restarted = _in_a_deleted_folder([str(BATON), "hook", "claude-code", "SessionStart"], inner,
                                     input=json.dumps(again), env=env)
    assert "the outer project's own" not in restarted.stdout
    assert (repo / ".baton" / "hook-notices.jsonl").read_text() == waiting
