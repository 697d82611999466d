"""What is detected when (docs/ledger.md, "Which command reads which bytes"):
everyday commands read only the bytes the index has not folded yet, plus the
one line each cursor stopped after, so an edit to an older, already folded
line is found by ``verify`` (and ``doctor``, which points at it), not by the
commands that keep appending."""

from __future__ import annotations

import json

from tests.conftest import run_baton
from tests.test_ledger_heads import own_feed, write_through_project


def edit_line(project, index: int, old: bytes, new: bytes) -> None:
    feed = own_feed(project)
    lines = feed.read_bytes().split(b"\n")
    assert old in lines[index]
    lines[index] = lines[index].replace(old, new, 1)
    feed.write_bytes(b"\n".join(lines))


def test_an_edit_to_a_folded_line_mid_feed_is_not_seen_by_writes_but_verify_exits_3(project):
    write_through_project(project, 4)
    run_baton("status", "--project", str(project))
    edit_line(project, 1, b'"n":0', b'"n":7')
    assert run_baton("status", "--project", str(project)).returncode == 0
    write_through_project(project, 1)  # appends go on after the damaged line
    r = run_baton("verify", "--json", "--project", str(project))
    assert r.returncode == 3
    assert json.loads(r.stdout)["ok"] is False


def test_doctor_fails_on_a_folded_line_edit_and_points_at_verify(project):
    write_through_project(project, 3)
    run_baton("status", "--project", str(project))
    edit_line(project, 1, b'"n":0', b'"n":7')
    r = run_baton("doctor", "--project", str(project))
    assert "run `baton verify`" in r.stdout


def test_an_edit_to_the_envelope_of_the_last_folded_line_stops_the_next_command(project):
    write_through_project(project, 3)
    run_baton("status", "--project", str(project))
    last = len(own_feed(project).read_bytes().rstrip(b"\n").split(b"\n")) - 1
    edit_line(project, last, b'"test/1"', b'"test/9"')
    r = run_baton("status", "--project", str(project))
    assert r.returncode == 3, r.stdout + r.stderr


def test_an_edit_to_the_payload_alone_of_the_last_folded_line_is_found_only_by_verify(project):
    write_through_project(project, 3)
    run_baton("status", "--project", str(project))
    last = len(own_feed(project).read_bytes().rstrip(b"\n").split(b"\n")) - 1
    edit_line(project, last, b'"n":2', b'"n":9')
    assert run_baton("status", "--project", str(project)).returncode == 0
    assert run_baton("verify", "--project", str(project)).returncode == 3
