"""Codex CLI 0.171.0, run for real: `codex exec` against a scripted Responses API model on 127.0.0.1.

Each test gets a scratch HOME and ``CODEX_HOME`` (``home/.codex``) whose
``config.toml`` points a ``model_providers`` entry at the fake
(``wire_api = "responses"``), turns off the update check and analytics, and
trusts the project folder; plugins, remote plugins and apps are off (each
reaches github.com or chatgpt.com at startup). Every other route out goes to
a trap on loopback (``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY``) that records
what tried to leave and lets none of it through. The project is a git repository where ``baton install-hooks
--harness codex`` wrote ``.codex/hooks.json`` and ``.codex/config.toml``;
its hooks are then trusted the way Codex's own ``/hooks`` screen does it:
``codex app-server``'s ``hooks/list`` gives each hook's key and current hash,
and ``config/batchWrite`` records ``hooks.state."<key>".trusted_hash`` in the
user config (no hash is computed here, and ``--dangerously-bypass-hook-trust``
is never passed).

Sessions run headless (``codex exec --dangerously-bypass-approvals-and-sandbox``:
this container has no bubblewrap for Codex's sandbox). Assertions look at
what reached the model (the recorded requests) and at Baton's ledger, never
at timings.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.e2e.common import (
    BATON_BIN,
    ProxyTrap,
    git_project,
    harness_env,
    harness_program,
    ledger_events,
    no_baton_lost_beside_a_cpu_hog,
    run_baton,
)
from tests.e2e.fake_openai import Call, FakeResponses, function_outputs, tool_names
from tests.harness_support import lock_held_elsewhere

pytestmark = pytest.mark.e2e

MCP = "mcp__baton"
"""The namespace Codex 0.171 gives the tools of the MCP server named ``baton``
(``mcp__<server>``; each tool keeps its own name inside it)."""



SESSION_TIMEOUT = 240
"""A whole `codex exec` run, bounded generously (a few seconds on a quiet machine)."""


class CodexProject:
    """A git project with Baton installed for Codex, a scratch Codex home, and the scripted model."""

    def __init__(self, root: Path, model: FakeResponses, trap: ProxyTrap | None = None,
                 codex_home: Path | None = None):
        """``trap``: where requests for anywhere but loopback go (a fresh one when not given);
        ``codex_home``: ``CODEX_HOME``, when not the home folder's ``.codex``."""
        self.model = model
        self.trap = trap = trap if trap is not None else ProxyTrap()
        self.program = harness_program("codex")
        self.home = root / "home"
        self.codex_home = codex_home if codex_home is not None else self.home / ".codex"
        self.project = git_project(root / "project")
        proxies = {name: trap.url for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy",
                                               "http_proxy", "all_proxy")}
        self.env = harness_env(self.home, CODEX_HOME=str(self.codex_home), BATON_E2E_OPENAI_KEY="sk-e2e-not-a-key",
                               **proxies)
        self.codex_home.mkdir(parents=True, exist_ok=True)
        (self.codex_home / "config.toml").write_text(self.user_config())

    def user_config(self) -> str:
        """The user's ``config.toml``: the fake model, no update check or analytics, the project trusted."""
        return "\n".join([
            'model = "baton-e2e-model"',
            'model_provider = "baton_e2e"',
            "check_for_update_on_startup = false",
            # Codex builds the first request's tool list after waiting 1 s for optional MCP
            # servers; `baton mcp` (Python) can take longer on a busy machine. 0: wait for each
            # server's own startup_timeout_sec instead.
            "mcp_optional_startup_grace_ms = 0",
            "",
            "[analytics]",
            "enabled = false",
            "",
            # Each of these reaches past loopback at startup (github.com for the plugin
            # marketplace, chatgpt.com for apps and remote plugins): off.
            "[features]",
            "plugins = false",
            "remote_plugin = false",
            "apps = false",
            "",
            "[model_providers.baton_e2e]",
            'name = "Baton e2e scripted model"',
            f"base_url = {json.dumps(self.model.base_url)}",
            'wire_api = "responses"',
            'env_key = "BATON_E2E_OPENAI_KEY"',
            # A request that never reached the scripted model ("error sending request", seen once
            # under load) is sent again; one the model answered is never replayed by the harness,
            # and a scripted reply consumed twice would fail the test visibly.
            "request_max_retries = 2",
            "stream_max_retries = 2",
            "",
            # Codex loads a project's .codex/ (hooks and MCP servers) only in a trusted folder.
            f"[projects.{json.dumps(str(self.project))}]",
            'trust_level = "trusted"',
            "",
        ])

    # -- Baton's side ---------------------------------------------------------------------

    def install_baton(self) -> str:
        done = run_baton(self.project, self.env, "install-hooks", "--harness", "codex", "--events", "all")
        assert done.returncode == 0, done.stderr
        self.allow_a_slow_mcp_start()
        return done.stdout

    def allow_a_slow_mcp_start(self) -> None:
        """The user's own key beside Baton's command (install-hooks keeps it): room for a
        slow start on a loaded machine (Codex's default is 10 s)."""
        config = self.project / ".codex" / "config.toml"
        config.write_text(config.read_text().replace("[mcp_servers.baton]\n",
                                                     "[mcp_servers.baton]\nstartup_timeout_sec = 60\n"))

    def events(self) -> list[dict[str, Any]]:
        return ledger_events(self.project, self.env)

    def types(self) -> list[str]:
        return [e.get("type") for e in self.events()]

    # -- Codex's side ---------------------------------------------------------------------

    def hooks(self) -> list[dict[str, Any]]:
        """``hooks/list`` for the project: every hook Codex discovered, with its trust status."""
        with AppServer(self) as server:
            return server.hooks(self.project)

    def trust_baton_hooks(self) -> list[dict[str, Any]]:
        """Trust Baton's hooks as Codex's ``/hooks`` screen does, and return them as Codex now lists them."""
        with AppServer(self) as server:
            baton = [h for h in server.hooks(self.project) if " hook codex " in (h.get("command") or "")]
            assert baton, "Codex listed none of Baton's hooks"
            server.request("config/batchWrite", {"edits": [
                # ensure_ascii=False: Codex's keyPath parser reads no \u escape (a path with "ü"
                # would be recorded under a key that never matches; harness14 F12).
                {"keyPath": f"hooks.state.{json.dumps(h['key'], ensure_ascii=False)}.trusted_hash",
                 "value": h["currentHash"],
                 "mergeStrategy": "upsert"} for h in baton]})
            return [h for h in server.hooks(self.project) if h["key"] in {b["key"] for b in baton}]

    def run(self, prompt: str, script: list[Any] | None = None, *,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        """One headless session (``codex exec``) answered by ``script``; it must end normally."""
        self.model.script = list(script or [])
        done = run_bounded([str(self.program), "exec", "--dangerously-bypass-approvals-and-sandbox", prompt],
                           cwd=self.project, env=env if env is not None else self.env, timeout=SESSION_TIMEOUT)
        assert done.returncode == 0, f"codex exec failed ({done.returncode}):\n{done.stderr[-4000:]}"
        return done


def run_bounded(argv: list[str], *, cwd: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    """Run ``argv`` in its own process group; past ``timeout`` the whole group is killed and the test fails.

    (``codex`` is a node launcher running the Rust binary, which runs ``baton mcp`` and the
    hooks: killing the launcher alone would leave them holding the output pipes open.)
    """
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        out, err = process.communicate(timeout=30)
        pytest.fail(f"{argv[1]} did not end within {timeout:g} s:\n{err[-4000:]}")
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


def _kill_group(process: subprocess.Popen) -> None:
    """SIGKILL the process group this test started (its id is the leader's pid)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class AppServer:
    """``codex app-server`` over stdio (JSON-RPC, one JSON object a line), for ``hooks/list`` and config writes."""

    ANSWER_TIMEOUT = 120
    """How long one request may take (a fraction of a second when the machine is quiet)."""

    def __init__(self, codex: CodexProject):
        self.codex = codex
        self.ids = iter(range(1, 1_000_000))
        self.lines: queue.Queue[str | None] = queue.Queue()

    def __enter__(self) -> "AppServer":
        self.process = subprocess.Popen([str(self.codex.program), "app-server"], cwd=self.codex.project,
                                        env=self.codex.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, start_new_session=True)
        threading.Thread(target=self._read, daemon=True).start()
        self.request("initialize", {"clientInfo": {"name": "baton_e2e", "title": "Baton e2e", "version": "0"},
                                    "capabilities": {"experimentalApi": True}})
        self.send({"method": "initialized"})
        return self

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def __exit__(self, *exc: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            _kill_group(self.process)
            self.process.wait(timeout=30)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> Any:
        """The result of one request (notifications in between are skipped), within ``ANSWER_TIMEOUT``."""
        number = next(self.ids)
        self.send({"id": number, "method": method, "params": params})
        deadline = time.monotonic() + self.ANSWER_TIMEOUT
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"codex app-server did not answer {method} within {self.ANSWER_TIMEOUT} s")
            if line is None:
                pytest.fail(f"codex app-server ended before answering {method}")
            message = json.loads(line)
            if message.get("id") == number:
                assert "error" not in message, f"{method}: {message['error']}"
                return message["result"]

    def hooks(self, cwd: Path) -> list[dict[str, Any]]:
        result = self.request("hooks/list", {"cwds": [str(cwd)]})
        (entry,) = result["data"]
        return entry["hooks"]


@pytest.fixture
def model() -> Iterator[FakeResponses]:
    with FakeResponses() as fake:
        yield fake


@pytest.fixture
def trap() -> Iterator[ProxyTrap]:
    caught = ProxyTrap()
    yield caught
    caught.close()


@pytest.fixture
def codex(tmp_path, model, trap) -> CodexProject:
    """Baton installed for Codex in a fresh project, its hooks trusted the way a user trusts them."""
    world = CodexProject(tmp_path, model, trap)
    world.install_baton()
    assert {h["trustStatus"] for h in world.trust_baton_hooks()} == {"trusted"}
    return world


def developer_texts(recorded) -> list[str]:
    """The text of every developer message a model request carries (where Codex puts hook context)."""
    texts = []
    for item in (recorded.json or {}).get("input") or []:
        if isinstance(item, dict) and item.get("type") == "message" and item.get("role") == "developer":
            texts += [c.get("text", "") for c in item.get("content") or [] if isinstance(c, dict)]
    return texts


def result_of(recorded, call_id: str) -> dict[str, Any]:
    """The JSON a Baton tool answered, as Codex handed it back to the model (after its ``Output:`` line)."""
    output = function_outputs(recorded)[call_id]
    return json.loads(output[output.index("{"):])


# -- hook trust ------------------------------------------------------------------------------------

def test_codex_lists_batons_hooks_as_untrusted_until_the_user_trusts_them(tmp_path, model, trap):
    world = CodexProject(tmp_path, model, trap)
    world.install_baton()
    listed = [h for h in world.hooks() if " hook codex " in (h.get("command") or "")]
    assert sorted(h["eventName"] for h in listed) == ["interrupt", "preCompact", "sessionStart", "stop", "userPromptSubmit"]
    assert {h["trustStatus"] for h in listed} == {"untrusted"}
    assert {h["trustStatus"] for h in world.trust_baton_hooks()} == {"trusted"}


def _doctor_on_codex_trust(world: CodexProject) -> dict[str, Any]:
    done = run_baton(world.project, world.env, "doctor", "--json")
    assert done.returncode == 0, done.stderr
    return {c["name"]: c for c in json.loads(done.stdout)["checks"]}["harness codex (trust)"]


def test_doctor_turns_ok_exactly_when_codex_trusts_batons_hooks(tmp_path, model, trap):
    # A folder named with "ü": the trust key is the hooks file's path, written as Codex writes it.
    world = CodexProject(tmp_path / "proj ü", model, trap)
    world.install_baton()
    before = _doctor_on_codex_trust(world)
    assert before["status"] == "warn" and "not trusted" in before["detail"], before
    assert {h["trustStatus"] for h in world.trust_baton_hooks()} == {"trusted"}
    after = _doctor_on_codex_trust(world)
    assert after["status"] == "ok" and "Baton's 5 hooks" in after["detail"], after


def test_doctor_warns_as_codex_does_when_install_hooks_changed_trusted_hooks(tmp_path, model, trap):
    world = CodexProject(tmp_path, model, trap)
    world.install_baton()
    world.trust_baton_hooks()
    done = run_baton(world.project, world.env, "install-hooks", "--harness", "codex", "--events", "all",
                     "--command", "baton")
    assert done.returncode == 0, done.stderr
    listed = {h["eventName"]: h["trustStatus"] for h in world.hooks() if " hook codex " in (h.get("command") or "")}
    assert set(listed.values()) == {"modified"}, listed
    found = _doctor_on_codex_trust(world)
    assert found["status"] == "warn" and "trusted as an earlier version of the hook" in found["detail"], found


def test_untrusted_hooks_never_run_and_the_session_still_ends_normally(tmp_path, model, trap):
    world = CodexProject(tmp_path, model, trap)
    world.install_baton()
    done = world.run("hello", ["Hello."])
    assert "session.begun" not in world.types()
    assert "hook: SessionStart" not in done.stderr  # Codex says nothing of the hooks it skipped
    assert not any("## Baton" in text for r in model.turns() for text in developer_texts(r))


def test_a_session_run_by_user_level_hooks_in_codex_home_names_that_file_in_a_folder_without_baton(
        tmp_path, model, trap):
    """``CODEX_HOME`` set elsewhere than ``~/.codex``: ``install-hooks --user-level`` writes Codex's
    user-level files there, Codex runs those hooks in a folder never initialised for Baton, and the
    start tells the agent which file they came from."""
    world = CodexProject(tmp_path, model, trap, codex_home=tmp_path / "codex-config")
    installed = run_baton(world.home, world.env, "install-hooks", "--harness", "codex", "--user-level")
    assert installed.returncode == 0, installed.stderr
    hooks_file = world.codex_home / "hooks.json"
    assert f"created {hooks_file}" in installed.stdout and not (world.home / ".codex").exists()
    assert {h["trustStatus"] for h in world.trust_baton_hooks()} == {"trusted"}

    world.run("hello", ["Hello."])

    told = "\n".join(developer_texts(model.turns()[0]))
    assert f"Baton's hooks in your user-level codex configuration (`{hooks_file}`, read in every folder)" in told
    assert "`baton install-hooks --harness codex --remove --project ~`" in told
    assert not (world.project / ".baton").exists()


def test_a_session_with_baton_sends_nothing_past_loopback(codex, model, trap):
    codex.run("handoff", ["Noted."])
    assert model.turns()
    assert trap.seen == []


# -- the session -------------------------------------------------------------------------------------

def test_the_brief_reaches_the_model_as_developer_context(codex, model):
    codex.run("hello", ["Hello."])
    (first, *_) = model.turns()
    briefs = [text for text in developer_texts(first) if text.startswith("## Baton")]
    assert len(briefs) == 1, developer_texts(first)
    assert "session.begun" in codex.types()


def test_batons_mcp_tools_are_offered_to_the_model_under_the_baton_namespace(codex, model):
    codex.run("hello", ["Hello."])
    offered = tool_names(model.turns()[0])
    for tool in ("handoff_capture", "handoff_validate", "handoff_ready", "baton_status"):
        assert f"{MCP}/{tool}" in offered


def _capture_body() -> dict[str, Any]:
    return {
        "work": {"title": "Parser error recovery", "objective": "The parser resumes after a bad token",
                 "constraints": ["Keep the public parse() signature"]},
        "summary": {"current_state": "Recovery works for statements; expressions remain.",
                    "completed": ["Statement-level recovery"], "in_progress": ["Expression-level recovery"]},
        "open_items": [{"description": "Recover inside expressions",
                        "suggested_action": "Add a sync point at each binary operator",
                        "acceptance_check": "A test with a bad token mid-expression parses the rest",
                        "priority": "high"}],
        "artifacts": [{"path": "README.md", "role": "read"}],
        "harness": "codex",
    }


def test_the_agents_capture_validate_ready_and_status_calls_land_in_the_ledger(codex, model):
    def validate(recorded):
        return Call("handoff_validate", {"id": result_of(recorded, "call_1")["id"]}, MCP)

    def ready(recorded):
        return Call("handoff_ready", {"id": result_of(recorded, "call_1")["id"],
                                      "accept_warnings": "a scripted end-to-end session"}, MCP)

    codex.run("Write a handoff for the parser work.",
              [Call("handoff_capture", _capture_body(), MCP), validate, ready, Call("baton_status", {}, MCP),
               "Handed off."])
    turns = model.turns()
    handoff_id = result_of(turns[1], "call_1")["id"]
    status = result_of(turns[4], "call_4")
    assert status["handoffs"]["by_status"]["ready"] == 1
    assert status["latest"]["id"] == handoff_id
    of_handoff = [e["type"] for e in codex.events() if e.get("stream") == f"handoff/{handoff_id}"]
    assert of_handoff[:3] == ["handoff.captured", "handoff.validated", "handoff.promoted"], of_handoff


def _session_named_in(recorded) -> str:
    """The session id the brief tells the agent to pass to Baton's MCP tools."""
    found = [m.group(1) for t in developer_texts(recorded) if t.startswith("## Baton")
             for m in [re.search(r'Pass `"session_id": "([^"]+)"`', t)] if m]
    assert len(found) == 1, developer_texts(recorded)
    return found[0]


def test_a_handoff_the_agent_captures_itself_over_mcp_is_handed_on_at_the_sessions_end(codex, model):
    def capture(recorded):
        return Call("handoff_capture", {**_capture_body(), "session_id": _session_named_in(recorded)}, MCP)

    def validate(recorded):
        return Call("handoff_validate", {"id": result_of(recorded, "call_1")["id"]}, MCP)

    def ready(recorded):
        return Call("handoff_ready", {"id": result_of(recorded, "call_1")["id"],
                                      "accept_warnings": "a scripted end-to-end session"}, MCP)

    codex.run("Wrap up the parser work for the next session.", [capture, validate, ready, "Handed off."])
    turns = model.turns()
    captured = result_of(turns[1], "call_1")["id"]
    events = codex.events()
    (session,) = {e["session"] for e in events if e.get("type") == "session.begun"}
    assert _session_named_in(turns[0]) == session  # what the brief named is the harness's own session id
    batons = [e for e in events if e.get("type") == "baton.created"]
    assert len(batons) == 1, [e["type"] for e in events]
    assert batons[0]["data"]["handoff_id"] == captured


def _draft_named_in(recorded) -> str:
    """The id of the draft Baton's prompt hook named to the agent (its notice, as developer context)."""
    notices = [t for t in developer_texts(recorded) if "Baton prepared a draft handoff" in t]
    assert len(notices) == 1, developer_texts(recorded)
    found = re.search(r"`parent` ([0-9a-f-]{36})", notices[0])
    assert found, notices[0]
    return found.group(1)


def captured_validated_ready(arguments: Any) -> list[Any]:
    """The agent's replies that hand its work off over MCP: ``handoff_capture`` with ``arguments(recorded)``,
    then validate it and make it ready, each with the id the capture answered (the capture's result is the
    session's first tool output, whatever its call id: the fake numbers calls across sessions)."""
    captured: dict[str, str] = {}

    def capture(recorded):
        return Call("handoff_capture", arguments(recorded), MCP)

    def validate(recorded):
        [call_id] = function_outputs(recorded)
        captured["id"] = result_of(recorded, call_id)["id"]
        return Call("handoff_validate", {"id": captured["id"]}, MCP)

    def ready(recorded):
        return Call("handoff_ready", {"id": captured["id"], "accept_warnings": "a scripted end-to-end session"}, MCP)

    return [capture, validate, ready, "Handed off."]


def _complete_the_draft() -> list[Any]:
    """The agent's replies to "handoff": capture the draft's continuation over MCP, validate it, make it ready."""
    return captured_validated_ready(lambda recorded: {**_capture_body(), "parent": _draft_named_in(recorded)})


def test_an_explicit_handoff_request_names_the_draft_baton_prepared_to_the_model(codex, model):
    codex.run("handoff", ["Noted."])
    draft = _draft_named_in(model.turns()[0])
    captured = [e for e in codex.events() if e.get("type") == "handoff.captured"]
    assert [e["stream"] for e in captured] == [f"handoff/{draft}"]


def test_the_session_leaves_a_baton_for_the_draft_baton_prepared_once_the_agent_completes_it(codex, model):
    codex.run("handoff", _complete_the_draft())
    turns = model.turns()
    draft = _draft_named_in(turns[0])
    completed = result_of(turns[1], "call_1")["id"]
    events = codex.events()
    batons = [e for e in events if e.get("type") == "baton.created"]
    assert len(batons) == 1, [e["type"] for e in events]
    assert completed in json.dumps(batons[0]["data"])
    assert draft != completed
    assert [e["type"] for e in events].index("baton.created") < [e["type"] for e in events].index("session.ended")


def test_the_next_session_receives_the_baton_exactly_once(codex, model):
    codex.run("handoff", _complete_the_draft())
    assert codex.types().count("baton.created") == 1

    def handoff_sections() -> list[str]:
        return [t for r in model.turns() for t in developer_texts(r) if "Active Session Handoff" in t]

    with model.lock:
        model.requests.clear()
    codex.run("carry on", ["On it."])
    received = handoff_sections()
    assert len(received) == 1, received
    assert "Recover inside expressions" in received[0]  # the next step the agent left
    assert codex.types().count("baton.claimed") == 1

    with model.lock:
        model.requests.clear()
    codex.run("carry on", ["On it."])
    assert handoff_sections() == []
    assert codex.types().count("baton.claimed") == 1


# -- compaction ----------------------------------------------------------------------------------------

def _a_session_that_compacts(codex: CodexProject, model: FakeResponses) -> subprocess.CompletedProcess:
    """A session whose context Codex believes full: responses report 50,000 input tokens against a
    20,000 limit, so after the tool call Codex compacts (PreCompact, trigger auto; its summary request
    gets the second reply) and then continues."""
    config = codex.codex_home / "config.toml"
    config.write_text(config.read_text().replace(
        "mcp_optional_startup_grace_ms = 0\n",
        "mcp_optional_startup_grace_ms = 0\nmodel_context_window = 100000\nmodel_auto_compact_token_limit = 20000\n"))
    model.input_tokens = 50_000
    return codex.run("hello", [Call("baton_status", {}, MCP), "Summary of the work so far.", "Done."])


def test_a_real_compaction_saves_one_draft_for_the_session(codex, model):
    done = _a_session_that_compacts(codex, model)
    assert "hook: PreCompact" in done.stderr
    events = codex.events()
    drafts = [e for e in events if e.get("type") == "handoff.captured"]
    assert len(drafts) == 1, [e["type"] for e in events]
    automation = drafts[0]["data"]["handoff"]["automation"]
    assert automation["trigger"] == "hook"
    assert automation["inputs"] == {"context_pressure": 1.0}  # Codex's trigger was auto
    (session,) = {e["session"] for e in events if e.get("type") == "session.begun"}
    assert drafts[0]["data"]["handoff"]["origin"] == {"harness": "codex", "session_id": session}


def test_after_a_compaction_the_model_is_pointed_at_the_draft_saved_before_it(codex, model):
    _a_session_that_compacts(codex, model)
    (draft,) = [e["stream"].split("/", 1)[1] for e in codex.events() if e.get("type") == "handoff.captured"]
    first, *_, last = model.turns()
    pointed = [t for t in developer_texts(last) if "before the compaction" in t and draft in t]
    assert len(pointed) == 1, developer_texts(last)
    assert not any("before the compaction" in t for t in developer_texts(first))


# -- a broken Baton never breaks Codex -----------------------------------------------------------------

NOTICE = "> ⚠️ Baton's"
"""How a brief starts when a hook failed since the last one (docs/hooks.md)."""





def hello(codex: CodexProject, env: dict[str, str] | None = None) -> str:
    """One ordinary session, answered "Hello."; what its first model request's developer context told the agent."""
    with codex.model.lock:
        codex.model.requests.clear()
    done = codex.run("hello", ["Hello."], env=env)
    assert done.stdout.strip().endswith("Hello."), done.stdout
    return "\n".join(developer_texts(codex.model.turns()[0]))


def test_a_session_ends_normally_while_another_process_holds_the_ledger_and_the_next_is_told_once(codex):
    hello(codex)
    with lock_held_elsewhere(codex.project):
        told = hello(codex, {**codex.env, "BATON_HOOK_LOCK_WAIT": "0.5"})
    # Its brief all the same, read from the index, saying why it claims nothing — told there, once.
    assert "## Baton" in told and "Another process held Baton's ledger" in told
    assert "Another process held Baton's ledger" not in hello(codex)
    assert NOTICE not in hello(codex)


def test_a_session_ends_normally_with_a_malformed_config(codex):
    hello(codex)
    (codex.project / ".baton" / "config.json").write_text("{ not json")
    assert "## Baton" not in hello(codex)


def test_a_session_ends_normally_when_baton_is_not_on_path(codex):
    """The portable wiring (``--command baton``, for files a team commits) on a machine without it,
    its hooks trusted again (a changed command is a new hook to Codex)."""
    rewired = run_baton(codex.project, codex.env, "install-hooks", "--harness", "codex", "--command", "baton",
                        "--events", "all")
    assert rewired.returncode == 0, rewired.stderr
    assert {h["trustStatus"] for h in codex.trust_baton_hooks()} == {"trusted"}
    path = os.pathsep.join(p for p in codex.env["PATH"].split(os.pathsep) if Path(p) != BATON_BIN)
    assert not any((Path(p) / "baton").exists() for p in path.split(os.pathsep))
    told = hello(codex, {**codex.env, "PATH": path})
    assert "## Baton" not in told
    assert "session.begun" not in codex.types()
    # Codex shows the person only `hook: SessionStart Failed` for a failing hook (never its stderr):
    # the start hook's fallback tells the agent why instead (harness14 F5).
    assert ("Baton could not run its SessionStart hook (exit status 127; 127: the command was not found on the "
            "PATH Codex runs hooks with)") in told and "run baton doctor" in told


def test_a_start_hook_whose_absolute_command_is_gone_tells_the_agent_no_file_is_there(codex, tmp_path):
    """The hooks run an absolute path (``install-hooks --command PATH``, the default's form) whose
    file was removed since (a virtualenv deleted): the agent is told that, not that ``baton`` is
    missing from the PATH."""
    program = tmp_path / "old venv" / "bin" / "baton"
    program.parent.mkdir(parents=True)
    program.write_text(f"#!/bin/sh\nexec {BATON_BIN / 'baton'} \"$@\"\n")
    program.chmod(0o755)
    rewired = run_baton(codex.project, codex.env, "install-hooks", "--harness", "codex", "--command", str(program),
                        "--events", "all")
    assert rewired.returncode == 0, rewired.stderr
    assert {h["trustStatus"] for h in codex.trust_baton_hooks()} == {"trusted"}
    program.unlink()
    told = hello(codex)
    assert "## Baton" not in told
    assert (f"Baton could not run its SessionStart hook (exit status 127: no file exists at {program}), so this "
            "session got no brief") in told and "run baton doctor" in told
    assert "PATH" not in told.split("Baton could not run", 1)[1].split("doctor", 1)[0]


def test_no_baton_is_lost_beside_a_cpu_hog(codex):
    """Each session hands off (the agent completes the draft Baton prepared) while every core is busy:
    each session's Stop leaves its baton, and the next session receives it."""
    no_baton_lost_beside_a_cpu_hog(lambda: codex.run("handoff", _complete_the_draft()), codex.types)


# -- a session killed in a later turn (harness16) ----------------------------------------------------

def test_a_session_killed_in_a_later_turn_after_readying_a_handoff_is_taken_over_at_the_next_start_at_once(
        codex, model):
    """Codex has no session end: Baton records it at the first turn's Stop. A second turn (``codex exec
    resume``, a Codex process of its own, which its repeated start records: ``session.resumed``)
    readies a handoff over MCP and the whole process group gets SIGKILL before that turn's Stop: no
    baton is left. The next session, on the same machine, finds that Codex process gone and hands the
    handoff on at once as the baton that turn's end would have left, and receives it (alive19)."""
    codex.run("hello", ["Hello."])  # the first turn: its Stop records the session's end
    (session,) = {e["session"] for e in codex.events() if e.get("type") == "session.begun"}
    assert "session.ended" in codex.types()
    asked, released = threading.Event(), threading.Event()

    def capture(recorded):
        return Call("handoff_capture", {**_capture_body(), "session_id": session}, MCP)

    def validate(recorded):
        [call_id] = function_outputs(recorded)
        return Call("handoff_validate", {"id": result_of(recorded, call_id)["id"]}, MCP)

    def ready(recorded):
        handoff = [e for e in codex.events() if e.get("type") == "handoff.captured"][-1]["stream"].split("/", 1)[1]
        return Call("handoff_ready", {"id": handoff, "accept_warnings": "a scripted end-to-end session"}, MCP)

    def stall(recorded):
        asked.set()  # the ready call's result is in this request: the handoff is ready
        released.wait(SESSION_TIMEOUT)
        return "Too late."

    model.script = [capture, validate, ready, stall]
    harness = subprocess.Popen([str(codex.program), "exec", "resume", "--dangerously-bypass-approvals-and-sandbox",
                                "--last", "Record where the parser work stands."], cwd=codex.project,
                               env=codex.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        assert asked.wait(SESSION_TIMEOUT), "the agent never readied its handoff"
        (resumed,) = [e for e in codex.events() if e.get("type") == "session.resumed"]
        running = Path(f"/proc/{resumed['data']['harness_process']['pid']}/stat").read_text().rpartition(")")[2]
        assert int(running.split()[2]) == harness.pid  # the second turn's Codex (its process group), not the first's
    finally:
        _kill_group(harness)
        harness.wait(60)
        released.set()
    events = codex.events()
    handoff = [e for e in events if e.get("type") == "handoff.captured"][-1]["stream"].split("/", 1)[1]
    assert [e for e in events if e.get("type") == "handoff.promoted"]
    assert "baton.created" not in [e.get("type") for e in events]
    told = hello(codex)
    assert re.search(rf"Session `{re.escape(session)}` \(codex, begun [^)]*\) readied handoff `{handoff}` for the "
                     r"next session in a turn whose end it never reported \(its harness process is gone; codex "
                     r"reports an end at every turn\)", told), told
    after = codex.events()
    assert [e["data"]["handoff_id"] for e in after if e.get("type") == "baton.created"] == [handoff]
    assert [e["data"]["handoff_id"] for e in after if e.get("type") == "baton.claimed"] == [handoff]
