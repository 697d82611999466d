"""Gemini CLI 0.61.0, the real program from npm, wired by ``baton install-hooks --harness gemini-cli``.

Each test runs ``gemini -p PROMPT -y`` (headless, tools approved) in a fresh
git project, in a scratch HOME, against the scripted Gemini API of
``fake_gemini.py``; what the model was sent is read from the recorded
requests, what Baton did from the ledger (``baton log --json``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from baton.domain.batons import HANDOFF_HEADING, LATEST_HEADING
from tests.e2e.common import (
    BATON_BIN,
    git_project,
    harness_env,
    harness_program,
    ledger_events,
    no_baton_lost_beside_a_cpu_hog,
    run_baton,
    run_harness,
)
from tests.e2e.fake_gemini import FakeGemini, Recorded, call, hook_contexts, tool_result, user_text
from tests.e2e.test_codex import ProxyTrap

HANDOFF = {
    "work": {"title": "Greeting for the demo", "objective": "README.md greets the reader"},
    "summary": {"current_state": "README.md has a heading; the greeting line is next.",
                "in_progress": ["Write the greeting line"]},
    "open_items": [{"description": "Add a greeting line to README.md", "priority": "high",
                    "suggested_action": "Write 'Hello' under the heading",
                    "acceptance_check": "grep -q Hello README.md"}],
}
# The result's own "id" member (not "handoff_id", "session"…), however deeply its JSON is quoted.
RESULT_ID = re.compile(r"\bid\W+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})")


class Session:
    """One project wired for Gemini CLI, and the scripted model it talks to."""

    def __init__(self, root: Path, model: FakeGemini, trap: ProxyTrap | None = None, *, home: Path | None = None,
                 events: str | None = "all", cli_home: Path | None = None, wired: bool = True):
        """The project is ``root/project`` (a git repository there is kept), the user's home
        ``home`` (default ``root/home``), Baton wired by ``install-hooks --events EVENTS`` (None: no
        ``--events``, the default wiring) unless not ``wired``. ``cli_home``: ``GEMINI_CLI_HOME``,
        the home Gemini CLI reads its user-level files in instead of ``home``."""
        self.program = harness_program("gemini-cli")
        # Every proxy variable points at a trap that records what would have left loopback.
        self.trap = trap or ProxyTrap()
        self.project = git_project(root / "project")
        home = self.home = home or root / "home"
        users = cli_home or home
        (users / ".gemini").mkdir(parents=True)
        (users / ".gemini" / "settings.json").write_text(json.dumps({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        }))
        # Folder trust: Gemini runs a project's hooks and MCP servers only in a
        # trusted folder, and a headless run in an untrusted one stops.
        proxies = {name: self.trap.url for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy",
                                                    "http_proxy", "all_proxy")}
        moved = {"GEMINI_CLI_HOME": str(cli_home)} if cli_home is not None else {}
        self.env = harness_env(home, GOOGLE_GEMINI_BASE_URL=model.url, GEMINI_API_KEY="fake-key-for-tests",
                               GEMINI_CLI_TRUST_WORKSPACE="true", **proxies, **moved)
        self.model = model
        if not wired:
            return
        chosen = ("--events", events) if events is not None else ()
        installed = run_baton(self.project, self.env, "install-hooks", "--harness", "gemini-cli", *chosen)
        assert installed.returncode == 0, installed.stderr

    def run(self, prompt: str, script: list[Any] | None = None, *, resume: bool = False) -> list[Recorded]:
        """One headless session (``resume``: the latest one, continued); the conversation requests it made."""
        before = len(self.model.conversation())
        self.model.script = list(script or [])
        argv = [str(self.program), *(["--resume", "latest"] if resume else []), "-p", prompt, "-y"]
        done = self.last = run_harness(argv, self.project, self.env, timeout=240)
        assert done.returncode == 0, f"gemini exited {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        assert not self.model.script, f"the model's script was not played out: {self.model.script}"
        assert not self.trap.seen, f"traffic left loopback: {self.trap.seen}"
        return self.model.conversation()[before:]

    def events(self) -> list[dict[str, Any]]:
        return ledger_events(self.project, self.env)

    def types(self) -> list[str]:
        return [e["type"] for e in self.events()]


@pytest.fixture
def gemini(tmp_path):
    trap = ProxyTrap()
    try:
        with FakeGemini() as model:
            yield Session(tmp_path, model, trap)
    finally:
        trap.close()


def test_a_session_run_by_user_level_hooks_under_gemini_cli_home_names_that_file_in_a_folder_without_baton(
        tmp_path):
    """``GEMINI_CLI_HOME`` set (Gemini CLI's home instead of ``HOME``): ``install-hooks --user-level``
    writes Gemini's user settings under it, Gemini CLI runs those hooks in a folder never initialised
    for Baton, and the start tells the agent which file they came from."""
    cli_home = tmp_path / "gemini-home"
    with FakeGemini() as model, closing(ProxyTrap()) as trap:
        world = Session(tmp_path, model, trap, cli_home=cli_home, wired=False)
        installed = run_baton(world.home, world.env, "install-hooks", "--harness", "gemini-cli", "--user-level")
        assert installed.returncode == 0, installed.stderr
        settings = cli_home / ".gemini" / "settings.json"
        assert f"updated {settings}" in installed.stdout and not (world.home / ".gemini").exists()

        [first] = world.run("hello", ["Hello."])

    [told] = hook_contexts(first)
    assert f"Baton's hooks in your user-level gemini-cli configuration (`{settings}`, read in every folder)" in told
    assert not (world.project / ".baton").exists()


def _id_from(tool: str):
    """A reply reading the handoff id the previous tool returned."""
    def reply_with(recorded: Recorded, make):
        found = RESULT_ID.findall(tool_result(recorded, tool))
        assert found, f"no handoff id in the result of {tool}"
        return make(found[0])
    return reply_with


def _complete_the_draft(recorded: Recorded) -> dict[str, Any]:
    """The agent completes the draft Baton said it prepared, with the CLI, as the notice tells it to."""
    notice = re.search(r"Baton prepared a draft handoff (\w+)", user_text(recorded))
    assert notice, "the model was not told of the draft Baton prepared"
    draft = notice.group(1)
    item = json.dumps(HANDOFF["open_items"][0])
    command = " && ".join([
        f"baton handoff amend {draft} --title {shlex.quote(HANDOFF['work']['title'])}"
        f" --objective {shlex.quote(HANDOFF['work']['objective'])}"
        f" --current-state {shlex.quote(HANDOFF['summary']['current_state'])}"
        f" --in-progress {shlex.quote(HANDOFF['summary']['in_progress'][0])} --open-item {shlex.quote(item)}",
        f"baton handoff validate {draft}",
        f"baton handoff ready {draft} --accept-warnings 'a scripted test session'",
    ])
    return call("run_shell_command", command=command, description="Complete Baton's draft handoff")


def _hand_over(gemini: Session) -> None:
    """A session whose person says "continue later": Baton drafts, the agent completes, the end hands it on."""
    gemini.run("continue later", [_complete_the_draft, "The handoff is ready for the next session."])


def test_the_brief_reaches_the_model_at_session_start(gemini):
    [first, *_] = gemini.run("hello")
    [brief] = hook_contexts(first)
    assert "## Baton" in brief
    assert "session.begun" in gemini.types()


def test_the_agents_mcp_tool_calls_land_in_the_ledger(gemini):
    ready = _id_from("mcp_baton_handoff_validate")
    validate = _id_from("mcp_baton_handoff_capture")
    requests = gemini.run("please record the work so far", [
        call("mcp_baton_handoff_capture", **HANDOFF),
        lambda r: validate(r, lambda hid: call("mcp_baton_handoff_validate", id=hid)),
        lambda r: ready(r, lambda hid: call("mcp_baton_handoff_ready", id=hid,
                                            accept_warnings="a scripted test session")),
        call("mcp_baton_baton_status"),
        "Saved.",
    ])
    types = gemini.types()
    assert {"handoff.captured", "handoff.validated", "handoff.promoted"} <= set(types), types
    [captured] = [e for e in gemini.events() if e["type"] == "handoff.captured"]
    assert captured["data"]["handoff"]["work"]["title"] == HANDOFF["work"]["title"]
    assert HANDOFF["work"]["title"] in tool_result(requests[-1], "mcp_baton_baton_status")


def test_a_continue_later_session_leaves_a_baton_for_the_draft_baton_prepared(gemini):
    _hand_over(gemini)
    events = gemini.events()
    [draft] = [e["data"]["draft_id"] for e in events if e["type"] == "detector.recommended"]
    [baton] = [e for e in events if e["type"] == "baton.created"]
    assert baton["data"]["handoff_id"] == draft
    assert [e["type"] for e in events][-1] == "session.ended"


def test_the_next_session_receives_the_baton_once_and_the_one_after_does_not(gemini):
    _hand_over(gemini)
    [second, *_] = gemini.run("hello")
    [brief] = hook_contexts(second)
    assert HANDOFF_HEADING in brief
    assert HANDOFF["work"]["objective"] in user_text(second)
    assert "baton.claimed" in gemini.types()
    [third, *_] = gemini.run("hello again")
    [brief] = hook_contexts(third)
    assert LATEST_HEADING in brief  # a pointer to it, no more
    assert HANDOFF_HEADING not in user_text(third)
    assert gemini.types().count("baton.claimed") == 1


@pytest.mark.parametrize("matcher", ["as installed", "an older entry without the matcher"])
def test_ordinary_turns_prepare_no_before_compaction_draft(gemini, matcher):
    if matcher != "as installed":
        settings = gemini.project / ".gemini" / "settings.json"
        config = json.loads(settings.read_text())
        [group] = config["hooks"]["PreCompress"]
        assert group.pop("matcher") == "manual"
        settings.write_text(json.dumps(config))
    (gemini.project / "README.md").write_text("# demo\n\nchanged\n")  # something a draft would record
    requests = gemini.run("what is the status?", [call("mcp_baton_baton_status"), "Nothing pending."])
    assert len(requests) == 2  # two turns: Gemini fired PreCompress (auto) before each
    types = gemini.types()
    assert "handoff.captured" not in types and "detector.recommended" not in types, types


def test_a_compress_prepares_one_before_compaction_draft_for_the_session(gemini):
    gemini.run("hello")
    (gemini.project / "README.md").write_text("# demo\n\nchanged\n")
    # Headless, /compress runs only as the whole prompt: a resumed session gets
    # no brief in front of it (the brief is given once per session).
    gemini.run("/compress", resume=True)
    gemini.run("/compress", resume=True)
    events = gemini.events()
    [captured] = [e for e in events if e["type"] == "handoff.captured"]
    handoff = captured["data"]["handoff"]
    assert handoff["status"] == "draft" and handoff["origin"]["harness"] == "gemini-cli"
    assert "README.md" in [a["path"] for a in handoff["artifacts"]]
    drafts = {e["data"]["draft_id"] for e in events if e["type"] == "detector.recommended"}
    assert drafts == {handoff["id"]}


def test_without_baton_on_path_the_prompt_still_reaches_the_model_and_the_user_is_told(gemini):
    """The portable wiring (``--command baton``, for files a team commits) on a machine without it."""
    rewired = run_baton(gemini.project, gemini.env, "install-hooks", "--harness", "gemini-cli", "--command", "baton",
                        "--events", "all")
    assert rewired.returncode == 0, rewired.stderr
    path = [entry for entry in gemini.env["PATH"].split(os.pathsep) if entry != str(BATON_BIN)]
    gemini.env["PATH"] = os.pathsep.join(path)
    assert shutil.which("baton", path=gemini.env["PATH"]) is None
    [request] = gemini.run("hello", ["Hi."])
    assert user_text(request).rstrip().endswith("hello")
    assert "Hi." in gemini.last.stdout
    assert "baton: command not found" in gemini.last.stderr


def test_no_baton_is_lost_beside_a_cpu_hog(gemini):
    """Each session says "continue later" and its agent completes the draft while every core is busy:
    each session's end leaves its baton, and the next session receives it."""
    no_baton_lost_beside_a_cpu_hog(lambda: _hand_over(gemini), gemini.types)


def test_started_in_a_subfolder_gemini_runs_none_of_batons_wiring_and_doctor_there_says_so(gemini):
    """Gemini CLI reads the project's .gemini/settings.json only where it is started (harness14 F2,
    s13): from a subfolder no hook runs and no Baton tool is offered; `baton doctor` there warns."""
    run_baton(gemini.project, gemini.env, "session", "end", "seed", "--handoff-steps", "SEEDED STEP")
    sub = gemini.project / "src" / "deep"
    sub.mkdir(parents=True)
    gemini.model.script = []
    done = run_harness([str(gemini.program), "-p", "hi", "-y"], sub, gemini.env, timeout=240)
    assert done.returncode == 0, done.stderr[-4000:]
    (first, *_) = gemini.model.conversation()
    assert "SEEDED STEP" not in user_text(first) and not hook_contexts(first)
    assert "mcp_baton_" not in json.dumps(first.json)
    assert "session.begun" not in gemini.types()
    doctor = run_baton(sub, gemini.env, "doctor", "--json")
    check = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}["harness gemini-cli (here)"]
    assert check["status"] == "warn" and "start it at the project root" in check["detail"]
    (at_root, *_) = gemini.run("hi")  # the same at the root: the brief, and Baton's tools offered
    assert "SEEDED STEP" in user_text(at_root) and "mcp_baton_" in json.dumps(at_root.json)
