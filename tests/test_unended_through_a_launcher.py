"""A session whose hooks run ``baton`` through a launcher Baton has no name for
(``install-hooks --command "flock /tmp/x.lock baton"``, ``poetry run baton``, a
wrapper script) records its harness process, not the launcher's: a launcher is
passed over by what it runs — its command line ends with the hook's words — so a
second terminal's start never takes over a session whose harness still runs, and
the next start after the harness was killed still takes it over at once
(docs/batons.md, "A session that never ended").

Real processes: a long-lived process stands for the harness, runs the installed
SessionStart command line through ``sh -c`` as Claude Code does, and is then left
running or killed with SIGKILL.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_baton
from tests.harness_support import (
    killed_at_the_end,
    next_start_leaves_its_handoff,
    next_start_takes_over_once_killed,
    relayed_once,
    session_of,
    stand_in_started,
)

LINUX = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
BATON = Path(sys.executable).parent / "baton"

STAND_IN = """\
import json, os, subprocess, sys, time
# A harness: it runs the SessionStart command line install-hooks wrote through a shell, as Claude Code
# does, then works until it is killed.
settings = json.load(open(os.path.join(".claude", "settings.json")))
command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
done = subprocess.run(["/bin/sh", "-c", command], input=sys.stdin.buffer.read(), capture_output=True,
                      env=dict(os.environ, CLAUDE_PROJECT_DIR=os.getcwd()))
sys.stdout.write(f"{done.returncode}\\n")
sys.stdout.flush()
time.sleep(600)
"""

PROBE = """\
import json, sys
from baton.launch import harness_process
print(json.dumps(harness_process()))
"""


def _install(repo: Path, command: str) -> None:
    done = run_baton("install-hooks", "--harness", "claude-code", "--command", command, "--project", str(repo),
                     cwd=repo)
    assert done.returncode == 0, done.stderr


def _env(runtime: Path | None) -> dict[str, str]:
    """Hooks in their own process, or (``runtime``) relayed to a hook server listening there."""
    if runtime is None:
        return {**os.environ, "BATON_HOOK_SERVER": "0"}
    return {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "BATON_HOOK_SERVER": "1", "BATON_HOOK_SERVER_IDLE": "120"}


def _harness(repo: Path, session: str, runtime: Path | None = None) -> subprocess.Popen:
    """A process standing for a harness, started as a terminal starts one, that has run its session's start."""
    return stand_in_started(STAND_IN, repo, session, _env(runtime))


def _probe(tmp_path: Path) -> Path:
    """A script that stands for ``baton`` (its ``argv[0]``) and prints the harness process a hook records."""
    probe = tmp_path / "probe.py"
    probe.write_text("import sys\nsys.argv[0] = 'baton'\n" + PROBE)
    return probe


def _recorded_through(command: str) -> dict:
    """The harness process a hook run through ``command`` (a shell command line ending with the
    hook's words) records, with this process standing for the harness."""
    done = subprocess.run(["/bin/sh", "-c", f"{command}; true"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


@LINUX
@pytest.mark.parametrize("launcher", ["flock {lock}", "flock {lock} -c", "timeout 30", "nice", "env X=1",
                                      "flock {lock} timeout 30", "{wrapper}"],
                         ids=["flock", "flock-c", "timeout", "nice", "env", "flock-and-timeout", "wrapper-script"])
def test_the_harness_process_is_recorded_through_a_launcher_that_runs_the_hook(tmp_path, launcher):
    probe = _probe(tmp_path)
    wrapper = tmp_path / "run-baton"
    wrapper.write_text(f'#!/bin/sh\n"{sys.executable}" "{probe}" "$@"\necho done >&2\n')
    wrapper.chmod(0o755)
    prefix = launcher.format(lock=tmp_path / "x.lock", wrapper=wrapper)
    words = "hook claude-code SessionStart"
    if prefix.endswith("-c"):
        command = f"{prefix} '{sys.executable} {probe} {words}'"
    elif prefix == str(wrapper):
        command = f"{wrapper} {words}"
    else:
        command = f"{prefix} {sys.executable} {probe} {words}"
    assert _recorded_through(command)["pid"] == os.getpid()


NODE = shutil.which("node")
NPX = shutil.which("npx")


def _recorded_under_a_title(tmp_path: Path, title: str) -> tuple[int, int]:
    """The pid a hook records when run, through a shell, by a node process that retitled itself ``title``
    (its command line rewritten as one string, as a launcher such as npx does), and that node process's pid."""
    script = (f"process.title = {json.dumps(title)}; require('child_process').spawnSync("
              f"{json.dumps(sys.executable)}, [{json.dumps(str(_probe(tmp_path)))}, 'hook', 'claude-code', "
              f"'SessionStart'], {{stdio: 'inherit'}}); process.stderr.write(String(process.pid))")
    done = subprocess.run(["/bin/sh", "-c", f"{NODE} -e {shlex.quote(script)}; true"], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)["pid"], int(done.stderr)


@LINUX
@pytest.mark.skipif(NPX is None, reason="needs npx")
def test_the_harness_process_is_recorded_through_npx_which_retitles_itself(tmp_path):
    """npx (npm exec) rewrites its command line as one string, ``npm exec probe hook …``, no NUL between words."""
    (tmp_path / "package.json").write_text('{"name": "x", "version": "1.0.0"}')
    bin_folder = tmp_path / "node_modules" / ".bin"
    bin_folder.mkdir(parents=True)
    launcher = bin_folder / "probe"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{_probe(tmp_path)}" "$@"\n')
    launcher.chmod(0o755)
    command = f"cd {tmp_path} && {NPX} --offline --yes probe hook claude-code SessionStart"
    assert _recorded_through(command)["pid"] == os.getpid()


@LINUX
@pytest.mark.skipif(NODE is None, reason="needs node")
def test_the_harness_process_is_recorded_through_a_launcher_that_rewrote_its_command_line_as_one_string(tmp_path):
    recorded, _node = _recorded_under_a_title(tmp_path, "launcher hook claude-code SessionStart")
    assert recorded == os.getpid()


@LINUX
@pytest.mark.skipif(NODE is None, reason="needs node")
def test_a_process_retitled_to_a_string_not_ending_with_the_hooks_words_is_taken_for_the_harness(tmp_path):
    recorded, node = _recorded_under_a_title(tmp_path, "harness hook claude-code SessionStart at work")
    assert recorded == node


@LINUX
@pytest.mark.skipif(NODE is None, reason="needs node")
def test_a_harness_run_by_node_whose_prompt_ends_with_the_hooks_words_is_taken_for_the_harness(tmp_path):
    """``node …/bin/claude "why does baton hook claude-code SessionStart"``, as Claude Code's npm install runs."""
    harness = tmp_path / "bin" / "claude"
    harness.parent.mkdir()
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(_probe(tmp_path)))} hook claude-code SessionStart"
    harness.write_text(f"require('child_process').spawnSync('/bin/sh', ['-c', {json.dumps(command)}], "
                       "{stdio: 'inherit'}); process.stderr.write(String(process.pid))\n")
    done = subprocess.run([NODE, str(harness), "why does baton hook claude-code SessionStart"], capture_output=True,
                          text=True, check=True)
    assert json.loads(done.stdout)["pid"] == int(done.stderr)


def _harness_named(tmp_path: Path, name: str, harness: str, *prompt: str) -> subprocess.CompletedProcess:
    """A harness binary called ``name`` (the interpreter under that name) whose prompt ``prompt`` (its last
    arguments) ends with the hook's words, running ``baton hook HARNESS SessionStart`` through a shell as
    Claude Code does; it writes its pid on stderr. ``my-agent`` is a harness Baton does not know by name."""
    binary = tmp_path / name
    binary.symlink_to(os.path.realpath(sys.executable))
    probe = _probe(tmp_path)
    script = f"import os, subprocess, sys; sys.stderr.write(str(os.getpid())); sys.stderr.flush(); " \
             f"subprocess.run(['/bin/sh', '-c', {str(sys.executable)!r} + ' ' + {str(probe)!r} + ' hook " \
             f"{harness} SessionStart'], env=dict(os.environ, PYTHONPATH={os.pathsep.join(sys.path)!r}))"
    return subprocess.run([str(binary), "-c", script, *prompt], capture_output=True, text=True, check=True)


@LINUX
def test_a_harness_binary_whose_prompt_ends_with_the_hooks_words_is_taken_for_the_harness(tmp_path):
    """``codex "… baton hook codex SessionStart"``: the harness's own binary, by its name."""
    done = _harness_named(tmp_path, "codex", "codex", "explain baton hook codex SessionStart")
    assert json.loads(done.stdout)["pid"] == int(done.stderr)


@LINUX
@pytest.mark.parametrize("prompt", ["explain baton hook claude-code SessionStart",
                                    "explain {python} {probe} hook claude-code SessionStart"],
                         ids=["the-hooks-words", "the-whole-command-it-runs"])
def test_a_harness_of_another_name_whose_prompt_ends_with_the_hooks_words_is_taken_for_the_harness(tmp_path, prompt):
    """``my-agent "… baton hook claude-code SessionStart"``: the string is its prompt, not the command it ran."""
    done = _harness_named(tmp_path, "my-agent", "claude-code", prompt.format(python=sys.executable, probe=tmp_path / "probe.py"))
    assert json.loads(done.stdout)["pid"] == int(done.stderr)


@LINUX
def test_a_harness_of_another_name_whose_prompt_words_end_with_the_hooks_words_is_taken_for_the_harness(tmp_path):
    """``my-agent explain baton hook claude-code SessionStart``: it did not pass the words on to what it ran."""
    done = _harness_named(tmp_path, "my-agent", "claude-code", "explain", "baton", "hook", "claude-code",
                          "SessionStart")
    assert json.loads(done.stdout)["pid"] == int(done.stderr)


@LINUX
@pytest.mark.parametrize("string", ["{python} {probe} hook claude-code SessionStart",
                                    "exec {python} {probe} hook claude-code SessionStart",
                                    "X=1 {python} '{probe}' hook claude-code SessionStart",
                                    "cd / && {python} {probe} hook claude-code SessionStart"],
                         ids=["simple", "exec", "setting-and-quotes", "compound"])
def test_a_launcher_given_the_hook_as_one_command_string_is_passed_over(tmp_path, string):
    """``flock LOCK -c STRING``: the shell it starts runs the string, or runs its command in its own place."""
    command = string.format(python=sys.executable, probe=_probe(tmp_path))
    assert _recorded_through(f"flock {tmp_path / 'x.lock'} -c {shlex.quote(command)}")["pid"] == os.getpid()


@LINUX
def test_a_process_whose_command_line_does_not_end_with_the_hooks_words_is_taken_for_the_harness(tmp_path):
    """A harness whose own command line mentions the words (a prompt, a script) is still the harness."""
    probe = _probe(tmp_path)
    outer = f"import subprocess, sys; subprocess.run([sys.executable, {str(probe)!r}, 'hook', 'claude-code', " \
            "'SessionStart']) # hook claude-code SessionStart is said here, not at the end"
    done = subprocess.run([sys.executable, "-c", outer, "--then", "work"], capture_output=True, text=True, check=True)
    recorded = json.loads(done.stdout)
    assert recorded["pid"] != os.getpid()


@LINUX
@pytest.mark.slow
@pytest.mark.parametrize("relayed", [False, True], ids=["in its own process", "relayed to the hook server"])
@pytest.mark.parametrize("launcher", ["flock {lock} {baton}", "timeout 300 {baton}"], ids=["flock", "timeout"])
def test_a_second_terminals_start_leaves_a_running_session_hooked_through_a_launcher_its_handoff(
        repo, tmp_path, runtime, launcher, relayed):
    _install(repo, launcher.format(lock=tmp_path / "x.lock", baton=BATON))
    with relayed_once(runtime, repo, _env(runtime)) if relayed else contextlib.nullcontext():
        harness = _harness(repo, "working", runtime if relayed else None)
    with killed_at_the_end(harness):
        assert session_of(repo, "working")["harnessProcess"]["pid"] == harness.pid
        next_start_leaves_its_handoff(repo, "working")


@LINUX
@pytest.mark.slow
def test_a_harness_hooked_through_a_launcher_and_killed_is_taken_over_at_the_next_start_at_once(repo, tmp_path):
    _install(repo, f"flock {tmp_path / 'x.lock'} {BATON}")
    handoff_id, _told = next_start_takes_over_once_killed(repo, "killed", _harness(repo, "killed"))
    assert session_of(repo, "killed")["leftBaton"] == handoff_id


@LINUX
@pytest.mark.parametrize("words", ["--project {project} hook claude-code SessionStart",
                                   "--json hook claude-code SessionStart"], ids=["project", "json"])
def test_a_global_option_before_the_hook_does_not_hide_the_launcher(tmp_path, words):
    probe = _probe(tmp_path)
    command = f"flock {tmp_path / 'x.lock'} {sys.executable} {probe} {words.format(project=tmp_path)}"
    assert _recorded_through(command)["pid"] == os.getpid()


def _hooked_as_one_command_string(repo: Path, lock: Path, string: str) -> None:
    """The installed hooks rewritten to ``flock LOCK -c STRING`` (``STRING`` naming ``baton`` as a user
    types it, found on ``PATH``: the installed console script, whose process is ``[python, …/bin/baton,
    hook, …]``), ``{event}`` in ``STRING`` standing for each hook's event."""
    _install(repo, str(BATON))
    settings = repo / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    for event, groups in data["hooks"].items():
        for group in groups:
            for hook in group["hooks"]:
                hook["command"] = f"flock {lock} -c {shlex.quote(string.format(event=event))}"
    settings.write_text(json.dumps(data))


@LINUX
@pytest.mark.slow
@pytest.mark.parametrize("relayed", [False, True], ids=["in its own process", "relayed to the hook server"])
@pytest.mark.parametrize("shell", ["/bin/bash", "/bin/sh"])
@pytest.mark.parametrize("string", ["baton hook claude-code {event}", "exec baton hook claude-code {event}",
                                    "cd / && baton hook claude-code {event}"], ids=["simple", "exec", "compound"])
def test_a_launcher_given_the_installed_baton_as_one_command_string_is_passed_over(
        repo, tmp_path, runtime, monkeypatch, string, shell, relayed):
    """``flock LOCK -c "baton hook …"`` run with the user's ``$SHELL``: the real console script, run by its
    interpreter in the shell's place or below the shell, and the harness is the process recorded."""
    monkeypatch.setenv("SHELL", shell)
    monkeypatch.setenv("PATH", f"{BATON.parent}{os.pathsep}{os.environ['PATH']}")
    _hooked_as_one_command_string(repo, tmp_path / "x.lock", string)
    with relayed_once(runtime, repo, _env(runtime)) if relayed else contextlib.nullcontext():
        harness = _harness(repo, "working", runtime if relayed else None)
    with killed_at_the_end(harness):
        assert session_of(repo, "working")["harnessProcess"]["pid"] == harness.pid


@LINUX
@pytest.mark.slow
def test_a_second_terminals_start_leaves_a_running_session_hooked_through_flock_c_and_the_console_script_its_handoff(
        repo, tmp_path, monkeypatch):
    monkeypatch.setenv("SHELL", "/bin/bash")
    monkeypatch.setenv("PATH", f"{BATON.parent}{os.pathsep}{os.environ['PATH']}")
    _hooked_as_one_command_string(repo, tmp_path / "x.lock", "baton hook claude-code {event}")
    harness = _harness(repo, "working")
    with killed_at_the_end(harness):
        next_start_leaves_its_handoff(repo, "working")


@LINUX
@pytest.mark.parametrize("string", ["{python} -m baton hook claude-code SessionStart",
                                    "{script} hook claude-code SessionStart",
                                    "exec {script} hook claude-code SessionStart"],
                         ids=["python-m", "shebang-script", "exec-shebang-script"])
@pytest.mark.parametrize("shell", ["/bin/bash", "/bin/sh"])
def test_a_launcher_given_the_hook_as_one_command_string_is_passed_over_however_baton_is_started(
        tmp_path, monkeypatch, string, shell):
    """``python -m baton``, and a script with a ``#!`` line its interpreter runs (``[python, …/run-baton, hook, …]``)."""
    monkeypatch.setenv("SHELL", shell)
    package = tmp_path / "pkg" / "baton"
    package.mkdir(parents=True)
    (package / "__main__.py").write_text(  # this stand-in package found first, then the real one's probe
        f"import sys\nsys.path.remove({str(package.parent)!r})\ndel sys.modules['baton']\n" + PROBE)
    monkeypatch.setenv("PYTHONPATH", str(package.parent))
    script = tmp_path / "run-baton"
    script.write_text(f"#!{sys.executable}\n" + PROBE)
    script.chmod(0o755)
    command = string.format(python=sys.executable, script=script)
    launcher = f"cd {tmp_path} && flock {tmp_path / 'x.lock'} -c {shlex.quote(command)}"  # -m: not this checkout's
    assert _recorded_through(launcher)["pid"] == os.getpid()
