"""A day of real use (issue 14), scripted: a repository with several branches and
a linked worktree, handoffs and batons from two harnesses — Claude Code
through MCP in the main worktree, Codex through the CLI in the docs worktree —
and every friction the day found, checked where a user meets it.

The main worktree works on ``feature/oauth-replay``; a linked worktree
(``wt-docs``, made with dulwich as ``git worktree add`` would) works on
``feature/docs``; ``master`` is where both started.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import orjson
import pytest
from dulwich import porcelain
from mcp import Client

from baton.mcp_server import build_server
from tests.app_support import status_server
from tests.conftest import run_baton
from tests.handoff_support import git_commit, git_init

pytestmark = pytest.mark.anyio
OWNER = "alice.example@engineering.example.com"


@pytest.fixture
def anyio_backend():
    return "asyncio"


def cli(*args: str, cwd: Path, expect: int = 0):
    r = run_baton(*args, "--json", cwd=cwd)
    assert r.returncode == expect, (args, r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    return json.loads(r.stdout) if r.stdout.strip() else None


def text(*args: str, cwd: Path, expect: int = 0) -> tuple[str, str]:
    r = run_baton(*args, cwd=cwd)
    assert r.returncode == expect, (args, r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    return r.stdout, r.stderr


def item(description: str) -> str:
    return json.dumps({"description": description, "suggested_action": f"do: {description}",
                       "acceptance_check": f"checked: {description}"})


@pytest.fixture
def day(tmp_path):
    main = tmp_path / "app"
    main.mkdir()
    git_init(main, {"src/callback.py": "def check(state):\n    return state\n", "docs/guide.md": "guide\n"})
    (main / ".git" / "config").write_text(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[user]\n\temail = " + OWNER + "\n")
    cli("init", cwd=main)
    porcelain.branch_create(str(main), "feature/oauth-replay")
    porcelain.branch_create(str(main), "feature/docs")
    with porcelain.open_repo_closing(str(main)) as repo:
        repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/feature/oauth-replay")
    git_commit(main, {"src/callback.py": "def check(state, seen):\n    return state not in seen\n"},
               message="oauth: reject replays")
    porcelain.worktree_add(str(main), str(tmp_path / "wt-docs"), branch="feature/docs")
    docs = (tmp_path / "wt-docs").resolve()
    assert (docs / ".git").is_file()  # a linked worktree: a .git file naming its gitdir
    git_commit(docs, {"docs/guide.md": "guide, rewritten\n"}, message="docs: rewrite the guide")
    return main.resolve(), docs


A_WHOLE_DAY = pytest.mark.slow(reason="a day's script end to end: over thirty CLI runs in child "
                                        "processes, an MCP session, two worktrees")
"""Run by the README's slow command (CI runs it): one long scenario of real processes, end to
end in nature. The fresh repository's refusal below stays in the main suite."""


@A_WHOLE_DAY
async def test_a_day_of_use(day):
    main, docs = day

    # -- morning: Claude Code (MCP, main worktree) hands off the OAuth work -------------------------
    async with Client(build_server(main)) as claude:
        captured = await claude.call_tool("handoff_capture", {
            "work": {"title": "Reject replayed OAuth callbacks", "objective": "A replayed callback is rejected"},
            "summary": {"current_state": "check() takes the seen set", "completed": ["constant-time compare"]},
            "artifacts": [{"path": "src/callback.py", "role": "modified"}],
            "open_items": [json.loads(item("Write the replay test")), json.loads(item("Wire the seen-set store"))],
            "harness": "claude-code"})
        oauth = captured.structured_content["id"]
        assert (await claude.call_tool("handoff_validate", {"id": oauth})).structured_content["report"][
            "ran_on"]["branch"] == "feature/oauth-replay"
        ready = await claude.call_tool("handoff_ready", {"id": oauth, "accept_warnings": "one commit so far"})
        assert ready.structured_content["status"] == "ready"
        await claude.call_tool("baton_session", {"action": "session_end", "session_id": "claude-1",
                                          "handoff": {"nextSteps": ["write the replay test"]}})

    # -- late morning: Codex (CLI, docs worktree) hands off the docs work, newer than the OAuth one --
    docs_id = cli("checkpoint", "create", "--no-input", "--title", "Rewrite the guide", "--objective",
                  "The guide explains batons", "--artifact", "docs/guide.md", "--completed", "outline",
                  "--current-state", "half written", "--open-item", item("Write the batons chapter"),
                  "--harness", "codex", cwd=docs)["id"]
    cli("handoff", "validate", docs_id, cwd=docs)
    cli("handoff", "ready", docs_id, "--accept-warnings", "docs only", cwd=docs)
    out, _ = text("session", "end", "codex-1", "--handoff-steps", "proofread chapter 2, then 3",
                  "--handoff-steps", "ask about the examples", cwd=docs)
    assert "Left a baton" in out

    # -- 'latest' is the branch's, through MCP and the CLI alike -----------------------------------
    async with Client(build_server(main)) as claude:
        resumed = (await claude.call_tool("handoff_resume", {})).structured_content
    assert resumed["id"] == oauth and resumed["latest"]["scope"] == "worktree"
    assert resumed["freshness_state"] == "fresh"
    brief = cli("resume", cwd=docs)
    assert brief["id"] == docs_id and brief["freshness_state"] == "fresh"
    assert "STALE" not in text("resume", cwd=docs)[0]
    assert cli("resume", "--any-branch", cwd=main)["id"] == docs_id

    # -- batons apart from handoffs ----------------------------------------------------------------
    listed = cli("handoff", "list", cwd=main)["handoffs"]
    assert {r["id"] for r in listed} == {oauth, docs_id}
    assert {r["branch"] for r in listed} == {"feature/oauth-replay", "feature/docs"}
    batons = cli("handoff", "list", "--kind", "baton", cwd=main)["handoffs"]
    assert len(batons) == 2 and all(r["kind"] == "baton" for r in batons)
    assert len(cli("handoff", "list", "--kind", "all", cwd=main)["handoffs"]) == 4
    status = cli("status", cwd=main)
    assert {r["id"] for r in status["latestHandoffs"]} == {oauth, docs_id}
    assert {r["id"] for r in status["latestBatons"]} == {r["id"] for r in batons}
    steps = {tuple(b["nextSteps"]) for b in cli("session", "handoff", "--all", cwd=main)["items"]}
    assert ("proofread chapter 2, then 3", "ask about the examples") in steps

    # -- after lunch: the replay test is written; close the item instead of writing JSON by hand ---
    child = cli("handoff", "amend", oauth, "--close-item", "O-1", cwd=main)
    assert child["handoff"]["lineage"]["relation"] == "amend"
    assert [i["description"] for i in child["handoff"]["open_items"]] == ["Wire the seen-set store"]
    assert "Write the replay test" in child["handoff"]["summary"]["completed"]
    cli("handoff", "validate", child["id"], cwd=main)

    # -- a validation from the docs worktree does not flip the OAuth record for everyone ------------
    (main / "src" / "store.py").write_text("SEEN = set()\n")  # a file only the main worktree has
    store = cli("handoff", "amend", child["id"], "--artifact", "src/store.py:created", cwd=main)["id"]
    assert store == child["id"]  # a draft is revised in place
    cli("handoff", "validate", store, cwd=main)
    elsewhere = cli("handoff", "validate", store, cwd=docs, expect=3)
    assert elsewhere["applies_to_record"] is False
    record = cli("handoff", "show", store, cwd=main)["handoff"]
    assert record["status"] == "validated" and "invalid" not in record.get("flags", [])
    md, _ = text("handoff", "show", store, "--format", "md", cwd=main)
    assert "validated on feature/oauth-replay@" in md and "validated elsewhere" in md
    cli("handoff", "ready", store, "--accept-warnings", "uncommitted store file", cwd=main)
    brief, _ = text("resume", cwd=main)
    first = brief.split("FIRST NEXT ACTION:", 1)[1].strip().splitlines()[0]
    assert first.startswith("O-002: Wire the seen-set store")  # the finished item is no longer first

    # -- the small things ---------------------------------------------------------------------------
    assert run_baton("resume", store, "--session", "s-9", cwd=main).returncode == 2
    assert run_baton("session", "handoff", "--shared", cwd=main).returncode == 2
    assert run_baton("log", "--limit", "-1", cwd=main).returncode == 2
    assert run_baton("handoff", "validate", "latest", cwd=main).returncode == 2
    refused = run_baton("handoff", "validate", store, cwd=main)
    assert refused.returncode == 4 and "supersede" not in refused.stderr.split("what it takes now:")[-1]
    status_text, _ = text("status", cwd=main)
    assert max(len(line) for line in status_text.splitlines()[1:]) <= 150

    # -- the status page opens a handoff: the same content as show --format md ----------------------
    with status_server(main) as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.app.port, timeout=10)
        conn.request("GET", f"/api/handoffs/{store}?project={status['projectId']}")
        view = orjson.loads(conn.getresponse().read())
        conn.close()
    shown, _ = text("handoff", "show", store, "--format", "md", cwd=main)
    assert view["markdown"] == shown.rstrip("\n")
    assert view["branch"] == "feature/oauth-replay" and view["lineage"]["parents"] == [oauth]

    # -- what is not built yet is said, not discovered ------------------------------------------------
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    planned = readme.split("## Status", 1)[1].split("Planned, not built yet", 1)[1].split("\n## ", 1)[0]
    assert "MCP tools for `sync`" in planned


def test_a_fresh_repository_without_a_commit_says_why_ready_stops(tmp_path):
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    porcelain.init(str(fresh)).close()
    cli("init", cwd=fresh)
    hid = cli("checkpoint", "create", "--no-input", "--title", "first", "--objective", "o", "--completed", "x",
              "--current-state", "y", "--open-item", item("commit once"), cwd=fresh)["id"]
    out, _ = text("handoff", "validate", hid, cwd=fresh)
    assert "no commit yet" in out
    _, err = text("handoff", "ready", hid, cwd=fresh, expect=3)
    assert "no commit yet" in err and "--accept-warnings" in err
    cli("handoff", "ready", hid, "--accept-warnings", "a new repository", cwd=fresh)
