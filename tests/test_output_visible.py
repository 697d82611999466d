"""Bidirectional controls and other invisible format characters never reach
a reader raw (issue 25): a terminal shows them as escapes (``\\u202e``), and
``--json`` writes them as JSON escapes — the same strings to a JSON reader,
visible to a person."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client

from baton.domain.redaction import printable, visible_json
from baton.mcp_server import build_server
from tests.cli_support import run

INVISIBLE = ["\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f", "\u061c", "\u200b",
             "\ufeff", "\u2028", "\U000e0041"]


@pytest.mark.parametrize("ch", INVISIBLE, ids=lambda c: f"U+{ord(c):04X}")
def test_an_invisible_character_is_escaped_for_a_terminal(ch):
    shown = printable(f"a{ch}b")
    assert ch not in shown and shown.startswith("a\\") and shown.endswith("b")


@pytest.mark.parametrize("ch", INVISIBLE, ids=lambda c: f"U+{ord(c):04X}")
def test_an_invisible_character_is_a_json_escape_that_reads_back_the_same(ch):
    text = json.dumps({"title": f"a{ch}b"}, ensure_ascii=False)
    shown = visible_json(text)
    assert ch not in shown and json.loads(shown) == {"title": f"a{ch}b"}


def test_joiners_and_ordinary_text_are_left_alone():
    text = "naïve café 日本語 👩\u200d💻 می\u200cخواهم"
    assert printable(text) == text and visible_json(json.dumps(text, ensure_ascii=False)) == \
        json.dumps(text, ensure_ascii=False)


TITLE = "invoice\u202etxt.exe \u2066hidden\u2069"


@pytest.fixture
def captured(capsys, project):
    code, out, err = run(capsys, project, "checkpoint", "create", "--no-input", "--title", TITLE, "--objective",
                         "o", "--json")
    assert code == 0, err
    return project, json.loads(out)["id"]


@pytest.mark.parametrize("argv", [["handoff", "list"], ["handoff", "show", "{id}"], ["log"]])
def test_cli_output_shows_no_raw_bidi_control_as_text_or_json(capsys, captured, argv):
    project, handoff = captured
    argv = [a.replace("{id}", handoff) for a in argv]
    for extra in ([], ["--json"]):
        code, out, err = run(capsys, project, *argv, *extra)
        assert code == 0, err
        assert not any(ch in out + err for ch in "\u202e\u2066\u2069"), (argv, extra)
        if extra or argv[0] != "log":  # the log's text lines show no titles
            assert "\\u202e" in out
    code, out, _ = run(capsys, project, "handoff", "show", handoff, "--json")
    assert TITLE in json.dumps(json.loads(out), ensure_ascii=False)  # the same string to a JSON reader


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_answer_text_shows_bidi_controls_as_escapes(project):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_capture", {"work": {"title": TITLE, "objective": "o"}})
    text = result.content[0].text
    assert "\u202e" not in text and "\\u202e" in text
    assert json.loads(text) == result.structured_content


@given(st.text(alphabet=st.characters(max_codepoint=0x7F)), st.sampled_from(["", "é", "\u202e", "\x85", "\U000e0041"]))
def test_an_ascii_text_is_shown_as_the_full_pattern_shows_it(text, extra):
    """``printable`` reads an ASCII text with a pattern of the ASCII control
    characters only: it shows what the pattern of every control and invisible
    character shows, character by character, with or without a non-ASCII one."""
    from baton.domain import visible

    for sample in (text, text + extra):
        assert printable(sample) == "".join(visible._escape(ch) if visible._CONTROL.fullmatch(ch) else ch
                                            for ch in sample)


def test_the_sets_of_escaped_characters_are_exactly_what_the_patterns_match():
    """``printable`` and ``visible_json`` return a text with none of these
    characters as it is, without their patterns: every code point agrees."""
    from baton.domain import visible

    # One search over every code point in order, not 1.1 million matches of one
    # character each: a match of more than one character, a character matched and
    # not in the set or in the set and not matched, all make the lists differ.
    every = "".join(map(chr, range(0x110000)))
    for pattern, members in ((visible._CONTROL, visible._ESCAPED), (visible._INVISIBLE, visible._INVISIBLE_CHARS)):
        found = pattern.findall(every)
        assert found == sorted(members), sorted(map(ascii, set(found) ^ members))[:20]


def test_a_text_with_nothing_to_escape_compiles_no_pattern_and_an_ascii_one_only_the_ascii_pattern():
    """The full patterns span the astral planes (~0.5 ms each to compile), and
    Baton's own brief is not ASCII (its dashes, its warning sign): a process that
    prints text with nothing to escape compiles neither; an ASCII text with a
    control character compiles the ASCII one."""
    import subprocess
    import sys

    code = ("from baton.domain import visible as v; t = 'a — ⚠️ b\\n'; "
            "assert v.printable(t) == t and v.visible_json('\"' + t + '\"') == '\"' + t + '\"'; "
            "print(v._CONTROL.compiled, v._INVISIBLE.compiled, v._ASCII_CONTROL.compiled); "
            "assert v.printable('a\\x1bb') == 'a\\\\x1bb'; "
            "print(v._CONTROL.compiled, v._ASCII_CONTROL.compiled)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "False", "False", "True"]
