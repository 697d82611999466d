"""The README's commands work exactly as written, and CI runs the README's test command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from dulwich import porcelain

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _blocks(after_heading: str) -> list[str]:
    section = README.split(after_heading, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


def _commit(repo: Path, name: str, text: str) -> None:
    (repo / name).write_text(text)
    porcelain.add(str(repo), [str(repo / name)])
    porcelain.commit(str(repo), message=b"change", author=b"T <t@example.com>", committer=b"T <t@example.com>")


def _bash(script: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


STOPS_ON_FAILURE = " || exit 1"
"""What ends each README command in .ci/run: `set -e` does not stop at a failure inside an `&&` chain
(only at its last command), so a failed install, check or test run would otherwise let CI go on."""


def _ci_lines() -> list[str]:
    """.ci/run's lines, each README command as written (its `|| exit 1` taken off)."""
    return [line.removesuffix(STOPS_ON_FAILURE) for line in (ROOT / ".ci" / "run").read_text().splitlines()]


def test_every_readme_command_in_ci_stops_ci_when_it_fails():
    commands = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("python3 -m venv")]
    assert len(commands) == 3 and all(line.endswith(STOPS_ON_FAILURE) for line in commands)


def test_a_failure_inside_an_and_chain_fails_a_script_written_like_ci(tmp_path):
    script = tmp_path / "run"
    script.write_text("set -euo pipefail\ntrue && false && true" + STOPS_ON_FAILURE + "\necho went-on\n")
    done = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 1 and "went-on" not in done.stdout


def test_ci_runs_exactly_the_readme_test_command():
    test_block = _blocks("Install and run the tests")[0].strip()
    assert test_block in _ci_lines()


def test_ci_runs_exactly_the_readme_crash_loop_command():
    slow_block = _blocks("Install and run the crash loops and races:")[0].strip()
    assert slow_block.endswith("-m slow")
    assert slow_block in _ci_lines()


def test_ci_runs_exactly_the_readme_end_to_end_command():
    e2e_block = _blocks("Install and run the end-to-end suite:")[0].strip()
    assert e2e_block.endswith("-m e2e tests/e2e")
    assert e2e_block in _ci_lines()


def test_readme_main_command_runs_the_demo():
    main_block = _blocks("Install and run the main job")[0].strip()
    assert main_block.endswith("baton demo")


def test_five_minute_handoff_works_as_written(tmp_path):
    repo = tmp_path / "app"
    repo.mkdir()
    porcelain.init(str(repo))
    _commit(repo, "callback.py", "def check(a, b):\n    return a == b\n")
    capture, resume, baton = _blocks("## The five-minute handoff")

    first = _bash(capture, repo)
    assert first.returncode == 0, first.stderr
    assert "ready" in first.stdout

    fresh = _bash(resume, repo)
    assert fresh.returncode == 0, fresh.stderr
    assert "Freshness: fresh" in fresh.stdout
    assert "DO NOT RETRY" in fresh.stdout and "Write the replay test" in fresh.stdout

    _commit(repo, "other.py", "x = 1\n")
    stale = _bash(resume, repo)
    assert stale.returncode == 0
    banner = stale.stdout.index("STALE")
    assert banner < stale.stdout.index("FIRST NEXT ACTION")

    passed = _bash(baton, repo)
    assert passed.returncode == 0, passed.stderr
    assert passed.stderr == "", passed.stderr  # no "no start was recorded" note
    assert "Active Session Handoff" in passed.stdout and "Run the suite" in passed.stdout


def test_the_fork_and_merge_example_works_as_written(tmp_path):
    repo = tmp_path / "app"
    repo.mkdir()
    porcelain.init(str(repo))
    _commit(repo, "callback.py", "def check(a, b):\n    return a == b\n")
    capture = _blocks("## The five-minute handoff")[0]
    [forks] = _blocks("## Forks, merges and the detector")
    run = _bash(capture + "\n" + forks, repo)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    start = lines.index("graph TD")
    assert sum("-->|fork|" in line for line in lines[start:]) == 2
    assert "exit 3: a merge needs a written resolution" in run.stdout
    assert "merge of" in run.stdout


def test_demo_runs_end_to_end():
    r = subprocess.run([sys.executable, "-m", "baton", "demo"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr + r.stdout
    assert "STALE" in r.stdout and "ledger verified" in r.stdout


def test_the_demo_shows_no_warning_a_user_would_wonder_about():
    """Every step the demo prints is one a user may copy; none of them says ``baton: …`` on stderr
    (session 2 ended without having begun did: "no start was recorded for session …")."""
    r = subprocess.run([sys.executable, "-m", "baton", "demo"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr + r.stdout
    assert [line for line in r.stdout.splitlines() if line.startswith("baton: ")] == []


def test_the_python_example_works_as_written(tmp_path):
    section = README.split("## From Python", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    from baton.app import Baton

    Baton.init(tmp_path)
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "draft"
    assert "Reject replayed callbacks" in r.stdout


# -- the Status section says what exists ------------------------------------------------------

def _status_section() -> tuple[str, str]:
    section = README.split("## Status", 1)[1].split("\n## ", 1)[0]
    built, _, planned = section.partition("Planned, not built yet")
    return built, planned


def _parser_commands() -> set[str]:
    """Every command path of the CLI: ``init``, ``handoff list``, ``status serve``..."""
    import argparse

    from baton.cli import build_parser

    found: set[str] = set()

    def walk(parser: argparse.ArgumentParser, prefix: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found.add(f"{prefix}{name}")
                    walk(sub, f"{prefix}{name} ")

    walk(build_parser(), "")
    return found


def _named(text: str) -> list[str]:
    return re.findall(r"`baton ([a-z-]+(?: [a-z-]+)?)`", text)


def test_every_command_the_status_section_lists_as_built_exists():
    built, _ = _status_section()
    commands = _parser_commands()
    assert _named(built), "the Status section lists no built command"
    assert [c for c in _named(built) if c not in commands] == []


def test_every_command_of_the_cli_is_listed_as_built():
    built, _ = _status_section()
    top_level = {c for c in _parser_commands() if " " not in c}
    listed = {c.split(" ")[0] for c in _named(built)}
    assert sorted(top_level - listed) == []


def test_no_command_listed_as_planned_exists_yet():
    from baton.mcp_server import TOOL_NAMES

    _, planned = _status_section()
    commands = _parser_commands()
    assert planned.strip(), "the Status section lists nothing as planned"
    assert [c for c in _named(planned) if c in commands] == [], "built now: move it to the built list"
    tools = re.findall(r"`(handoff_[a-z]+)`", planned)
    assert [t for t in tools if t in TOOL_NAMES] == [], "built now: move it to the built list"



def test_ctrl_c_during_a_demo_step_interrupts_the_demo_and_removes_its_project(monkeypatch, capsys):
    """The step's command line catches Ctrl-C and exits 130; the demo reported that as a
    failed step (`demo step ... exited 130, expected 0`, exit 3) instead of being interrupted."""
    from baton.app import Baton
    from baton.cli import main

    projects: list[str] = []

    def ctrl_c_in_the_capture(self, *args, **kwargs):
        projects.append(os.getcwd())
        raise KeyboardInterrupt

    monkeypatch.setattr(Baton, "capture", ctrl_c_in_the_capture)
    code = main(["demo"])
    err = capsys.readouterr().err
    assert code == 130
    assert err.splitlines()[-1].startswith("baton: interrupted") and "expected 0" not in err
    assert err.count("baton: interrupted") == 1
    assert projects and not os.path.exists(projects[0])
