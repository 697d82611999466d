"""A payload holding a lone UTF-16 surrogate escape (``"\\ud83d"``: half an emoji, as Node's
``JSON.stringify`` writes it) is JSON, read with the lone surrogate made U+FFFD
(tester-use21 T6): by every hook event and by the command line's JSON input; a
surrogate pair and every other escape are kept, and no lone surrogate is persisted."""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.cli_read import read_json_bounded
from baton.domain.lone_surrogates import replaced
from baton.harnesses.hook import read_payload
from tests.batons_support import events
from tests.conftest import run_baton
from tests.harness_support import every_fixture, fixture, hook, injected

ANY_TEXT = st.lists(st.one_of(st.characters(), st.integers(0xD800, 0xDFFF).map(chr),
                              st.sampled_from(["\\", "u", "d83d", "\U0001f600"])), max_size=40).map("".join)
"""Any code points, surrogates (alone, or a high one then a low one) and backslashes among them."""


def _as_node_reads_it(text: str) -> str:
    """``text`` with each lone surrogate U+FFFD and each high-then-low pair one character."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=40))
def test_json_without_a_lone_surrogate_is_left_byte_for_byte(text):
    for dumped in (json.dumps({"p": text}).encode(), json.dumps({"p": text}, ensure_ascii=False).encode("utf-8")):
        assert replaced(dumped) == dumped


@given(ANY_TEXT)
def test_each_lone_surrogate_escape_is_read_as_the_replacement_character(text):
    dumped = json.dumps({"p": text, "q": [text, "\\" + text]}).encode()  # escaped: as Node writes it
    assert orjson.loads(replaced(dumped)) == {"p": _as_node_reads_it(text),
                                             "q": [_as_node_reads_it(text), "\\" + _as_node_reads_it(text)]}


def test_an_escaped_backslash_before_u_is_no_escape():
    assert replaced(rb'{"p":"\\ud83d \\\ud83d"}') == rb'{"p":"\\ud83d \\\ufffd"}'


def test_a_hook_payload_with_a_lone_surrogate_is_read_with_it_replaced():
    assert read_payload(b'{"session_id":"s1","note":"x\\ud83d","pair":"\\ud83d\\ude00"}') == {
        "session_id": "s1", "note": "x\ufffd", "pair": "\U0001f600"}


def test_a_hook_payload_that_is_not_json_is_still_said_so():
    from baton.errors import InputError

    with pytest.raises(InputError, match="was not JSON"):
        read_payload(b'{"p":"\\ud83d" nope')


def test_the_command_line_s_json_input_with_a_lone_surrogate_is_read_with_it_replaced():
    assert read_json_bounded("-", "--input", raw=b'{"title":"done \\ud83d"}') == {"title": "done \ufffd"}


@pytest.mark.parametrize(("harness", "name"), every_fixture())
def test_every_hook_event_reads_a_payload_holding_a_lone_surrogate(repo, harness, name):
    payload = fixture(harness, name, repo, extra_field_from_node="half an emoji \ud83d")
    raw = json.dumps(payload).encode()
    assert b"\\ud83d" in raw
    outcome = hook(repo, harness, name.split(".")[0], raw)
    assert "not JSON" not in (outcome.problem or "")


def test_a_session_end_with_a_lone_surrogate_in_a_field_is_recorded_and_persists_none(repo):
    start = fixture("claude-code", "SessionStart.startup", repo, session_id="sg1")
    assert run_baton("hook", "claude-code", "SessionStart", cwd=repo, input=json.dumps(start)).returncode == 0
    end = fixture("claude-code", "SessionEnd", repo, session_id="sg1", last_assistant_message="done \ud83d")
    done = run_baton("hook", "claude-code", "SessionEnd", cwd=repo, input=json.dumps(end))
    assert done.returncode == 0 and done.stderr == ""
    assert [e.session for e in events(repo) if e.type == "session.ended"] == ["sg1"]
    for feed in (repo / ".baton" / "ledger").glob("*.jsonl"):
        text = feed.read_bytes().decode("utf-8")  # strict: the ledger is UTF-8
        assert "\\ud83d" not in text.lower()


def test_a_prompt_with_a_lone_surrogate_is_still_recognised_as_a_request(repo):
    prompt = fixture("claude-code", "UserPromptSubmit", repo, prompt="handoff \ud800")
    done = run_baton("hook", "claude-code", "UserPromptSubmit", cwd=repo, input=json.dumps(prompt))
    assert done.returncode == 0 and done.stderr == ""
    assert "handoff" in (injected("claude-code", done.stdout) or "")
