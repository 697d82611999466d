"""``baton repair`` keeps every line that provably chains: a line of garbage
between two events (random bytes, a half-line glued in by a bad merge, a line
repeated) is set aside alone, and the events after it stay in the feed; garbage
that replaced an event sets aside what no longer chains, each line with why."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.commands.context import Project
from baton.commands.repair import repair_project
from baton.ledger.integrity import REPAIRED_TYPE
from tests.app_support import init_project
from tests.conftest import run_baton
from tests.ledger_support import own_feed, write

GARBAGE = b"\x8f\x01 not an event {\"v\": \xff\xfe"


def _ids(project: Path) -> list[str]:
    opened = Project.open(project)
    try:
        return [e.id for e in opened.ledger.read_all()]
    finally:
        opened.close()


def _repair(project: Path, *args: str):
    r = run_baton("repair", "--json", "--project", str(project), *args)
    return r.returncode, json.loads(r.stdout)


def test_a_garbage_line_between_two_events_is_set_aside_alone_and_the_events_after_it_are_kept(project):
    write(project, 5)
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(b"".join(lines[:3] + [GARBAGE + b"\n"] + lines[3:]))
    assert run_baton("verify", "--project", str(project)).returncode == 3

    code, out = _repair(project, "--yes")
    assert code == 0 and out["verified"] is True
    [plan] = out["feeds"]
    assert [(i["offset"], i["bytes"]) for i in plan["set_aside"]] == [(sum(map(len, lines[:3])), len(GARBAGE) + 1)]
    assert plan["kept"]["seq"] == len(lines) and len(plan["kept_after"]) == len(lines) - 3
    now = feed.read_bytes().splitlines(keepends=True)
    assert now[:-1] == lines  # every sound line, byte for byte, then the repair's record
    assert orjson.loads(now[-1])["type"] == REPAIRED_TYPE
    assert (project / ".baton" / "quarantine" / plan["quarantine"]).read_bytes() == GARBAGE + b"\n"
    assert run_baton("verify", "--project", str(project)).returncode == 0
    assert run_baton("rebuild", "--project", str(project)).returncode == 0
    write(project, 1, start=9)
    assert run_baton("verify", "--project", str(project)).returncode == 0


def test_a_handoff_captured_after_the_garbage_line_is_still_there_after_the_repair(project):
    from baton.cli_input import ContentOptions
    from tests.app_support import capture_checkpoint

    write(project, 2)
    handoff = capture_checkpoint(project, content=ContentOptions(
        title="After the garbage", objective="kept by the repair", current_state="written after line 3")).handoff_id
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(b"".join(lines[:2] + [lines[1][: len(lines[1]) // 2] + b"\n"] + lines[2:]))  # a half-line glued in

    assert _repair(project, "--yes")[0] == 0
    assert run_baton("rebuild", "--project", str(project)).returncode == 0
    shown = run_baton("handoff", "show", handoff, "--project", str(project))
    assert shown.returncode == 0 and "kept by the repair" in shown.stdout


def test_a_repeated_line_is_set_aside_alone(project):
    write(project, 4)
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(b"".join(lines[:3] + [lines[2]] + lines[3:]))

    code, out = _repair(project, "--yes")
    assert code == 0 and out["verified"] is True
    [plan] = out["feeds"]
    [aside] = plan["set_aside"]
    assert aside["seq"] == 3 and aside["reason"].startswith("fork:")
    assert feed.read_bytes().splitlines(keepends=True)[:-1] == lines


def test_garbage_that_replaced_an_event_sets_aside_every_line_after_it_saying_why(project):
    write(project, 4)
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(b"".join(lines[:2] + [GARBAGE + b"\n"] + lines[3:]))  # seq 3 is gone

    dry = run_baton("repair", "--dry-run", "--project", str(project)).stdout
    code, out = _repair(project, "--yes")
    assert code == 0 and out["verified"] is True
    [plan] = out["feeds"]
    assert plan["kept"]["seq"] == 2 and plan["kept_after"] == []
    assert [i.get("seq") for i in plan["set_aside"]] == [None, 4, 5]
    assert plan["set_aside"][1]["reason"].startswith("gap: expected seq 3, found 4")
    assert "cannot be proven to belong after them" in dry and "an unreadable line" in dry
    assert feed.read_bytes().splitlines(keepends=True)[:2] == lines[:2]


def test_verify_describes_the_plan_the_repair_then_carries_out(project):
    write(project, 3)
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(b"".join(lines[:2] + [GARBAGE + b"\n"] + lines[2:]))

    checked = run_baton("verify", "--project", str(project))
    said = json.loads(run_baton("verify", "--json", "--project", str(project)).stdout)["repair"]
    assert checked.returncode == 3
    assert f"`baton repair --yes` would set aside 1 line ({len(GARBAGE) + 1} bytes)" in checked.stdout
    assert f"keeping seq 1-{len(lines)} ({len(lines) - 2} lines of them after the cut" in checked.stdout
    code, out = _repair(project, "--yes")
    assert code == 0
    done = [{k: v for k, v in p.items() if k != "quarantine"} for p in out["feeds"]]
    assert said == done


# -- the property: garbage anywhere, and the repair keeps exactly what is provable --------

_TEMPLATE: dict[str, Path] = {}


def _template(tmp_root: Path) -> Path:
    if "p" not in _TEMPLATE:
        root = tmp_root / "template"
        root.mkdir()
        init_project(root)
        write(root, 6)
        (root / "notes.txt").write_text("outside .baton\n")
        _TEMPLATE["p"] = root
    return _TEMPLATE["p"]


def _outside_baton(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".baton" not in p.relative_to(root).parts}


_garbage = st.binary(min_size=0, max_size=40).map(lambda b: b.replace(b"\n", b"")).filter(
    lambda b: not b.strip().startswith(b"{") and (not b or b.replace(b"\x00", b"")) and not b.endswith(b"\r"))
"""Bytes that are no event (nor a run of NUL bytes, which at a feed's end is a torn tail: the next writer's; nor
ending in CR, which before the line's LF is a CRLF line ending that repair turns into LF first: docs/ledger.md)."""


_glue = _garbage.filter(lambda b: b.strip(b" \t\r") != b"")
"""Bytes glued to an event on its line: never only JSON whitespace (an event with a space after it is that event)."""


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.one_of(
    st.tuples(st.sampled_from(["insert", "overwrite"]), st.integers(0, 20), _garbage),
    st.tuples(st.sampled_from(["glue_before", "glue_after"]), st.integers(0, 20), _glue)), min_size=1, max_size=3))
def test_random_garbage_anywhere_keeps_exactly_the_provable_events(tmp_path_factory, edits):
    root = tmp_path_factory.mktemp("garbage") / "proj"
    shutil.copytree(_template(tmp_path_factory.getbasetemp()), root, symlinks=True)
    feed = own_feed(root)
    original = feed.read_bytes().splitlines(keepends=True)
    ids = [orjson.loads(line)["id"] for line in original]
    # each line: [bytes glued before, original index (None: garbage), bytes glued after, garbage line]
    lines: list[list] = [[b"", i, b"", None] for i in range(len(original))]
    for how, at, garbage in edits:
        at %= len(lines) + (how == "insert")
        if how == "insert":
            lines.insert(at, [b"", None, b"", garbage + b"\n"])
        elif how == "overwrite":
            lines[min(at, len(lines) - 1)] = [b"", None, b"", garbage + b"\n"]
        elif lines[min(at, len(lines) - 1)][1] is not None:
            lines[min(at, len(lines) - 1)][0 if how == "glue_before" else 2] += garbage

    def text(line: list) -> bytes:
        before, i, after, junk = line
        return junk if i is None else before + original[i][:-1] + after + b"\n"

    feed.write_bytes(b"".join(text(line) for line in lines))
    left = {line[1] for line in lines if line[1] is not None}
    provable = next((i for i in range(len(original)) if i not in left), len(original))  # the first event gone
    before = _outside_baton(root)

    opened = Project.open(root)
    try:
        result = repair_project(opened, yes=True)
    finally:
        opened.close()
    assert result.after.ok
    replayed = _ids(root)
    assert replayed[:-1] == ids[:provable] and len(replayed) == provable + 1  # then ledger.repaired
    assert feed.read_bytes().splitlines(keepends=True)[:provable] == original[:provable]
    assert _outside_baton(root) == before
    aside = b"".join((root / ".baton" / "quarantine" / name).read_bytes() for name in result.quarantined if name)
    expected = b"".join(text(line) if line[1] is None or line[1] >= provable
                        else line[0] + (line[2] + b"\n" if line[2] else b"") for line in lines)
    assert aside == expected
    assert not [p for p in (root / ".baton" / "ledger").iterdir() if p.name.startswith(".repair.")]


def test_bytes_glued_to_an_event_where_its_newline_was_are_set_aside_and_the_event_kept(project):
    write(project, 4)
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    half = lines[3][:40]
    # a bad merge: a half-line run into seq 2 after it, and before seq 4
    feed.write_bytes(b"".join([lines[0], lines[1][:-1] + half + b"\n", lines[2], half + lines[3]] + lines[4:]))

    code, out = _repair(project, "--yes")
    assert code == 0 and out["verified"] is True
    [plan] = out["feeds"]
    assert [i["bytes"] for i in plan["set_aside"]] == [len(half) + 1, len(half)]
    assert all(i["reason"].startswith("bytes glued") for i in plan["set_aside"])
    assert feed.read_bytes().splitlines(keepends=True)[:-1] == lines  # every event, byte for byte
    assert (project / ".baton" / "quarantine" / plan["quarantine"]).read_bytes() == half + b"\n" + half


def test_two_events_run_together_by_a_lost_newline_are_both_kept(project):
    write(project, 5)
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(b"".join(lines[:2] + [lines[2][:-1] + lines[3]] + lines[4:]))  # seq 3 lost its newline
    assert run_baton("verify", "--project", str(project)).returncode == 3

    code, out = _repair(project, "--yes")
    assert code == 0 and out["verified"] is True
    [plan] = out["feeds"]
    assert plan["set_aside"] == [] and plan["kept"]["seq"] == len(lines)
    assert feed.read_bytes().splitlines(keepends=True)[:-1] == lines  # every event, byte for byte
    assert _ids(project)[:-1] == [orjson.loads(line)["id"] for line in lines]


def test_two_swapped_lines_are_both_kept_and_written_back_in_chain_order(project):
    write(project, 5)
    feed = own_feed(project)
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(b"".join(lines[:2] + [lines[3], lines[2]] + lines[4:]))
    assert run_baton("verify", "--project", str(project)).returncode == 3

    dry = run_baton("repair", "--dry-run", "--project", str(project)).stdout
    code, out = _repair(project, "--yes")
    assert code == 0 and out["verified"] is True
    [plan] = out["feeds"]
    assert plan["set_aside"] == [] and plan["kept"]["seq"] == len(lines)
    assert f"setting nothing aside and keeping seq 1-{len(lines)}" in dry and "Would set aside" not in dry
    assert feed.read_bytes().splitlines(keepends=True)[:-1] == lines


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.one_of(
    st.tuples(st.just("insert"), st.integers(0, 20), _glue),
    st.tuples(st.sampled_from(["lose_newline", "swap"]), st.integers(0, 20), st.just(b""))), min_size=1, max_size=4))
def test_lost_newlines_swapped_lines_and_garbage_keep_every_event(tmp_path_factory, edits):
    root = tmp_path_factory.mktemp("moved") / "proj"
    shutil.copytree(_template(tmp_path_factory.getbasetemp()), root, symlinks=True)
    feed = own_feed(root)
    original = feed.read_bytes().splitlines(keepends=True)
    ids = [orjson.loads(line)["id"] for line in original]
    # lines as [text without newline, is garbage]; then which newlines are lost (never the last)
    lines: list[list] = [[line[:-1], False] for line in original]
    lost: set[int] = set()
    for how, at, garbage in edits:
        if how == "insert":
            lines.insert(at % (len(lines) + 1), [garbage, True])
        elif how == "swap":
            j = at % (len(lines) - 1)
            lines[j], lines[j + 1] = lines[j + 1], lines[j]
    for how, at, _ in edits:
        if how == "lose_newline":
            lost.add(at % (len(lines) - 1))
    damaged = b"".join(text + (b"" if j in lost else b"\n") for j, (text, _) in enumerate(lines))
    feed.write_bytes(damaged)

    opened = Project.open(root)
    try:
        result = repair_project(opened, yes=True)
    finally:
        opened.close()
    assert result.after.ok
    replayed = _ids(root)  # every event, in chain order, then ledger.repaired (two swaps may undo each other)
    assert replayed[:len(ids)] == ids and len(replayed) == len(ids) + (damaged != b"".join(original))
    assert feed.read_bytes() == b"".join(original)  # ledger.repaired goes to this copy's own feed
    aside = b"".join((root / ".baton" / "quarantine" / name).read_bytes() for name in result.quarantined if name)
    # every byte of garbage is set aside, with its newline unless that was lost; no event byte is
    assert len(aside) == sum(len(text) + (j not in lost) for j, (text, junk) in enumerate(lines) if junk)
    assert not [p for p in (root / ".baton" / "ledger").iterdir() if p.name.startswith(".repair.")]
