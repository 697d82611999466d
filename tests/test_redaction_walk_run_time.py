"""The screen's two readings of a text with a line break run in time linear in
the text: the YAML values below their keys (``yaml_values``: a list of ``- a:``
items, each a key, made every item read the rest of the list, 40 KB took a
minute) and the rest of a word a line continuation splits after each marker
(``_spread``: minified JSON with many secrets on one line made each marker read
the rest of the line, 100 KB took 18 s). No timing: the work is counted, the
lines of the redaction's Python code run for a text and for one four times as
long, and the characters read for word ends. Nothing main (``MAIN``, read from
git into a folder of its own) hides is shown on texts of these shapes
(docs/security.md, "Pattern run time").

SYNTHETIC SECRETS ONLY: every credential here is assembled at runtime from
pieces.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.domain.redaction import redact_payload, walk
from tests.redaction_support import POLICY, in_clear, redaction_at

SECRET = "Zx9kQ7vB2mN4" + "pL8rT6wY3cF1hJ5sD0gA"
MAIN = "162146ee"
"""main before this fix: the redaction whose every removal must stay removed."""
PACKAGE = str(Path(walk.__file__).parent)


def _lines_run(text: str) -> int:
    """How many lines of the redaction's code run to redact ``text``."""
    count = 0

    def local(frame, event, arg):  # type: ignore[no-untyped-def]
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame, event, arg):  # type: ignore[no-untyped-def]
        return local if frame.f_code.co_filename.startswith(PACKAGE) else None

    sys.settrace(tracer)
    try:
        redact_payload(text, POLICY)
    finally:
        sys.settrace(None)
    return count


SHAPES: dict[str, Callable[[int], str]] = {
    "a list of key items": lambda size: "k:\n" + "- a:\n" * (size // 5),
    "an indented list of key items": lambda size: "k:\n" + "  - a:\n" * (size // 7),
    "a Markdown list of items ending with a colon": lambda size: "notes:\n" + "- Fixed the parser:\n" * (size // 20),
    "a list of key items with a comment": lambda size: "k:\n" + "- key: # note\n" * (size // 14),
    "minified JSON with many secrets": lambda size: "[\n" + f'{{"token":"{SECRET[:20]}"}},' * (size // 33),
    "many assignments on one line": lambda size: "x\n" + f"password={SECRET[:20]};" * (size // 30),
    "many continued lines with a secret each": lambda size: f"password={SECRET}\\\n" * (size // 42) + "end",
    "many backslash escapes": lambda size: "done\\n\\t\\u003d\\\\n" * (size // 17),
    "a run of backslashes": lambda size: "\\" * size + "nghp_",
    "escaped tokens on one line": lambda size: f"\\nghp_{SECRET}{SECRET[:16]}" * (size // 44),
    "token prefixes glued to words": lambda size: "xghp_A1b2C3d4 xAKIA1B2C3 keysk-proj-9 " * (size // 38),
}


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_the_work_to_redact_a_text_grows_linearly_with_it(shape: str) -> None:
    small, large = _lines_run(SHAPES[shape](2_000)), _lines_run(SHAPES[shape](8_000))
    assert large < 6 * small, (small, large)  # four times the text: about four times the work (quadratic: 16)


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_word_ends_read_each_character_a_bounded_number_of_times(shape: str, monkeypatch) -> None:
    read = 0
    word_end = walk._word_end

    def counted(text: str, at: int) -> int:
        nonlocal read
        end = word_end(text, at)
        read += end - at + 1
        return end

    monkeypatch.setattr(walk, "_word_end", counted)
    text = SHAPES[shape](20_000)
    redact_payload(text, POLICY)
    assert read <= 3 * len(text) * (walk._WIDEN_ROUNDS + 1), (read, len(text))


def test_a_key_item_takes_the_sibling_items_after_it_up_to_the_next_key_item() -> None:
    cleaned = redact_payload(f"- password:\n- {SECRET}\n- note:\n- {SECRET[::-1]}\n", POLICY).payload
    assert cleaned == f"- password:\n- [REDACTED:generic-secret-assignment]\n- note:\n- {SECRET[::-1]}\n"


# -- the property: nothing main redacts is shown on texts of these shapes --

@pytest.fixture(scope="module")
def main_redaction(tmp_path_factory) -> Iterator[Callable[[str], str]]:
    """``redact_payload`` of ``MAIN``, in a process of its own (its ``baton`` package
    extracted from git), asked one text at a time."""
    yield from redaction_at(MAIN, tmp_path_factory.mktemp("main"))


def _grams(text: str) -> set[str]:
    return {text[i:i + 4] for i in range(len(text) - 3) if text[i:i + 4].isalnum()}


VALUES = st.sampled_from([SECRET, SECRET[::-1], SECRET[3:], "ghp_" + "A1b2C3d4E5f6" + "G7h8I9j0K1l2M3n4O5p6Q7r8"])
KEYS = st.sampled_from(["password", "api_keys", "token", "k", "a", "notes", "Fixed the parser", "key"])
INDENTS = st.sampled_from(["", "  ", "    "])


@st.composite
def _line(draw: st.DrawFn) -> str:
    """A line of the shapes that were slow: key items, a key ending its line, an item,
    a scalar below, minified JSON or assignments on one line, a continued line."""
    key, value, indent = draw(KEYS), draw(VALUES), draw(INDENTS)
    return draw(st.sampled_from([
        f"{indent}{key}:", f"{indent}- {key}:", f"{indent}- {key}: # note", f"{indent}- {key}: |",
        f"{indent}- {value}", f"{indent}{value}", f"{indent}- {key}: {value}", f'{{"{key}":"{value}"}},' * 2,
        f"{key}={value};{key}={value[::-1]};", f"{key}={value[:9]}\\", f"{value[9:]}", "",
    ]))


def _nothing_after_a_second_key_item(lines: list[str]) -> bool:
    """Whether no line follows a second key item at one indent (``- password:`` / ``- a:`` /
    ``- Zx9…`` or ``  Zx9…``): main took it for the first key's value too, this for the
    nearest key's only (``test_a_key_item_takes_the_sibling_items_after_it_…``)."""
    keys: dict[int, int] = {}
    for line in lines:
        content = line.lstrip(" ")
        if content and max(keys.values(), default=0) >= 2:
            return False
        if content.startswith("- ") and content.rstrip().endswith((":", "# note", "|")):
            indent = len(line) - len(content)
            keys[indent] = keys.get(indent, 0) + 1
    return True


@settings(max_examples=400, deadline=None)
@given(lines=st.lists(_line(), min_size=1, max_size=8).filter(_nothing_after_a_second_key_item))
def test_the_redaction_never_shows_what_main_redacts_on_these_shapes(main_redaction, lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    before, after = in_clear(main_redaction(text)), in_clear(redact_payload(text, POLICY).payload)
    assert not [gram for gram in _grams(text) if gram not in before and gram in after], (text, before, after)
