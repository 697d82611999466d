"""``handoff amend --no-input``: the flag ``checkpoint create`` has, with the
same meaning (never ask a question, even on a terminal), so a script can pass
it to both. An amendment has nothing to ask for — on a terminal it asks
nothing either way, and a missing change exits 2 at once."""

from __future__ import annotations

import json

from baton.app import Baton
from tests.cli_support import on_a_terminal
from tests.conftest import run_baton
from tests.handoff_support import payload


def _draft(project) -> str:
    with Baton.open(project) as app:
        return app.capture(payload()).handoff_id


def test_handoff_amend_accepts_no_input_and_amends(project):
    hid = _draft(project)
    r = run_baton("handoff", "amend", hid, "--no-input", "--open-item", "check the retry path", "--json",
                  "--project", str(project))
    assert r.returncode == 0, r.stderr
    amended = json.loads(r.stdout)
    assert amended["id"] == hid and amended["revised"] is True
    assert "check the retry path" in [i["description"] for i in amended["handoff"]["open_items"]]


def _on_a_terminal(*args: str) -> tuple[int, bytes]:
    """Run ``baton`` with stdin and stderr on a pseudo-terminal (as a person at
    one); an answer is waiting on the terminal in case anything is asked."""
    code, shown, _ = on_a_terminal(*args, answer=b"an answer\n", timeout=60)
    return code, shown


def test_handoff_amend_on_a_terminal_asks_nothing_with_or_without_no_input(project):
    hid = _draft(project)
    for extra in ((), ("--no-input",)):
        code, transcript = _on_a_terminal("handoff", "amend", hid, *extra, "--project", str(project))
        assert code == 2, transcript
        assert b"?" not in transcript.split(b"nothing to amend")[0]
        assert b"baton: nothing to amend" in transcript
