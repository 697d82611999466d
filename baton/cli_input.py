"""What the command line reads from a person before it calls the application:
the ``--input`` payload file (or stdin), the content flags of ``checkpoint
create`` and ``handoff amend`` (JSON or plain text per flag), and answers to
a missing title or objective — asked only on a terminal.

Hooks, CI and agents run Baton without a terminal; a prompt there would hang
them. So the rule is strict: a prompter exists only when stdin *and* stderr
are terminals (``None`` = never ask).

A project path typed in a content flag (``--artifact``, ``--scope``, a
``file`` evidence's ``ref``) is taken from the current directory, as git
takes a pathspec, and made relative to the worktree's top here
(:func:`typed_from`): the payload the application gets, and every record,
holds top-relative paths only. ``--input`` and ``--replace-*`` files keep
their top-relative meaning, as MCP tools and hooks do.

This is the CLI's own module: its messages name its flags. The use cases
behind the application object take plain payloads.
"""

from __future__ import annotations

import os
import posixpath
import re
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import orjson

from baton.cli import REPLACE_FLAGS
from baton.cli_read import read_bounded, read_json_bounded
from baton.commands.capture import merge_changes
from baton.domain.handoff import json_type
from baton.domain.paths import lexical_problem
from baton.errors import InputError
from baton.model import frozen

Prompter = Callable[[str], str]
"""Shows a question, returns the answer (``""`` when the person skips it)."""


def terminal_prompter() -> Prompter | None:
    """A prompter reading the terminal, or None when not attached to one."""
    try:
        if not (sys.stdin.isatty() and sys.stderr.isatty()):
            return None
    except (AttributeError, ValueError):
        return None

    def ask(question: str) -> str:
        sys.stderr.write(question)
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line.strip()

    return ask


def ask_for_missing(
    values: dict[str, str | None],
    questions: Iterable[tuple[str, str]],
    prompter: Prompter | None,
) -> dict[str, str | None]:
    """Fill the empty entries of ``values`` named in ``questions`` by asking.

    ``questions`` pairs a key with the question to show. Without a prompter
    nothing is asked and ``values`` comes back unchanged; a blank answer is
    asked again once, then left empty for validation to report. End of input
    (Ctrl-D) at a question aborts: nothing is captured.

    Raises:
        InputError: the input ended at a question.
    """
    if prompter is None:
        return dict(values)
    out = dict(values)
    for key, question in questions:
        if (out.get(key) or "").strip():
            continue
        answer = ""
        for _ in range(2):
            try:
                answer = prompter(f"{question}: ").strip()
            except EOFError:
                raise InputError(f"input ended at the question {question.split(' (')[0].lower()!r}: aborted, "
                                 "nothing was captured") from None
            if answer:
                break
        out[key] = answer or None
    return out


def _blank_leading_notes(raw: bytes) -> bytes:
    """``raw`` with the ``#`` lines before its first other line blanked: the notes
    ``handoff prepare`` prints above its template, so ``baton handoff prepare >
    draft.json`` can be completed and passed back as it is. Blanked, not removed,
    so a JSON error still names the line of the file."""
    lines = raw.split(b"\n")
    for i, line in enumerate(lines):
        if not line.lstrip().startswith(b"#"):
            break
        lines[i] = b""
    return b"\n".join(lines)


def read_payload_file(source: str, *, stdin: Any = None) -> dict[str, Any]:
    """The JSON object in ``source`` (a path, or ``-`` for stdin); ``#`` lines
    at its top (``handoff prepare``'s notes) are skipped.

    Raises:
        InputError: unreadable, not JSON, or not an object (exit 2).
    """
    where = "stdin" if source == "-" else source
    raw = _blank_leading_notes(read_bounded(source, "--input", stdin=stdin))
    value = read_json_bounded(source, "--input", raw=raw)
    if not isinstance(value, dict):
        raise InputError(f"--input {where} must hold a JSON object (a handoff payload), not {json_type(value)}")
    return value


# What a JSON-only flag's error shows as an example: the shape that flag takes.
_JSON_EXAMPLES = {
    "--evidence": '{"type": "test", "claim": "unit tests pass", "ref": "pytest tests/auth", "result": "pass"}',
    "--artifact": '{"path": "src/auth.py", "role": "modified"}',
}


def cwd_in_worktree(worktree: Path, cwd: Path | None = None) -> str:
    """The current directory relative to the worktree's top, ``/``-separated:
    ``""`` at the top, and outside the worktree (``--project`` naming a
    project from elsewhere), where a typed path keeps its top-relative meaning."""
    try:
        here = Path(os.path.realpath(cwd or Path.cwd()))
        relative = here.relative_to(os.path.realpath(worktree))
    except (OSError, ValueError):  # OSError: the current folder is gone (moved or deleted under the shell)
        return ""
    return "" if relative == Path(".") else relative.as_posix()


def typed_from(base: str, path: str) -> str:
    """``path`` as typed in the directory ``base`` (see
    :func:`cwd_in_worktree`), relative to the worktree's top.

    At the top (``base`` empty) it is returned untouched, as are an absolute
    path, a ``~`` one and one that, taken from ``base``, leaves the worktree:
    the capture refuses those exactly as it refuses any path outside the
    project root, naming the path as it was typed. So is a path the capture
    refuses on its text alone (a drive letter, ``C:foo`` too, a backslash):
    the same rule (``lexical_problem``) judges it here."""
    if not base or not path or path.startswith("/") or lexical_problem(path, allow_outside=True) is not None:
        return path
    joined = posixpath.normpath(posixpath.join(base, path))
    if joined == ".." or joined.startswith("../"):
        return path
    return joined


_LINE_RANGE = r"(?:#L?\d+(?:-L?\d+)?|:\d+(?:-\d+)?)$"
"""A ``file`` evidence's line range after its path (``src/a.py:10-20``, ``#L3``)."""


def _typed_ref(base: str, item: Any) -> Any:
    """A ``file`` evidence's ``ref`` (its line range kept) taken from ``base``."""
    if not base or not isinstance(item, dict) or item.get("type") != "file" or not isinstance(item.get("ref"), str):
        return item
    ref = item["ref"].strip()
    found = re.search(_LINE_RANGE, ref)
    cut = found.start() if found and found.start() else len(ref)
    return dict(item, ref=typed_from(base, ref[:cut]) + ref[cut:])


def _json_item(flag: str, text: str, *, as_text: str | None) -> Any:
    """A flag value: a JSON object, or plain text wrapped as ``{as_text: text}``."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            value = orjson.loads(stripped)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"{flag} {text!r} is not valid JSON: {exc}") from exc
        if not isinstance(value, dict):
            raise InputError(f"{flag} takes a JSON object")
        return value
    if as_text is None:
        raise InputError(f"{flag} takes a JSON object, e.g. {flag} '{_JSON_EXAMPLES.get(flag, '{...}')}'")
    if not stripped:
        raise InputError(f"{flag}: must not be empty or only whitespace")
    return {as_text: text}


@frozen
class ContentOptions:
    """The content flags shared by ``checkpoint create`` and ``handoff amend``."""

    title: str | None = None
    objective: str | None = None
    scope: Sequence[str] = ()
    constraints: Sequence[str] = ()
    definition_of_done: Sequence[str] = ()
    work_state: str | None = None
    completed: Sequence[str] = ()
    in_progress: Sequence[str] = ()
    discoveries: Sequence[str] = ()
    current_state: str | None = None
    why_it_matters: str | None = None
    decisions: Sequence[str] = ()
    artifacts: Sequence[str] = ()
    evidence: Sequence[str] = ()
    failed_attempts: Sequence[str] = ()
    open_items: Sequence[str] = ()
    risks: Sequence[str] = ()
    harness: str | None = None
    model: str | None = None
    actor_type: str | None = None
    base: str = ""
    """Where the command runs, relative to the worktree's top (:func:`cwd_in_worktree`):
    the directory the paths in ``scope``, ``artifacts`` and a ``file`` evidence's ref are taken from."""
    root: str | None = None
    """The worktree's top: where an ``--artifact PATH:ROLE``'s parts are looked for (``_artifact_item``)."""

    def to_changes(self) -> dict[str, Any]:
        """The flags as a partial payload (only what was given).

        Plain text is accepted where one field is obviously meant: a decision's
        ``decision``, an open item's ``description``, a risk's ``description``,
        a failed attempt's ``approach`` (outcome ``failed``), an artifact's
        ``path`` (role ``modified``, or ``PATH:ROLE``).

        Raises:
            InputError: a JSON flag value is malformed.
        """
        out: dict[str, Any] = {}
        work: dict[str, Any] = {k: v for k, v in (("title", self.title), ("objective", self.objective),
                                                  ("state", self.work_state)) if v is not None}
        for key, items in (("scope", [typed_from(self.base, g) for g in self.scope]),
                           ("constraints", self.constraints),
                           ("definition_of_done", self.definition_of_done)):
            if items:
                work[key] = list(items)
        if work:
            out["work"] = work
        summary: dict[str, Any] = {k: v for k, v in (("current_state", self.current_state),
                                                     ("why_it_matters", self.why_it_matters)) if v is not None}
        for key, items in (("completed", self.completed), ("in_progress", self.in_progress),
                           ("discoveries", self.discoveries)):
            if items:
                summary[key] = list(items)
        if summary:
            out["summary"] = summary
        if self.decisions:
            out["decisions"] = [_json_item("--decision", t, as_text="decision") for t in self.decisions]
        if self.artifacts:
            out["artifacts"] = [_artifact_item(t, self.base, self.root) for t in self.artifacts]
        if self.evidence:
            out["evidence"] = [_typed_ref(self.base, _json_item("--evidence", t, as_text=None))
                               for t in self.evidence]
        if self.failed_attempts:
            attempts = [_json_item("--failed-attempt", t, as_text="approach") for t in self.failed_attempts]
            out["failed_attempts"] = [dict({"outcome": "failed"}, **i) if set(i) == {"approach"} else i
                                      for i in attempts]
        if self.open_items:
            out["open_items"] = [_json_item("--open-item", t, as_text="description") for t in self.open_items]
        if self.risks:
            out["risks"] = [_json_item("--risk", t, as_text="description") for t in self.risks]
        origin: dict[str, Any] = {k: v for k, v in (("harness", self.harness), ("model", self.model)) if v}
        if self.actor_type:
            origin["actor"] = {"type": self.actor_type}
        if origin:
            out["origin"] = origin
        return out


_ROLES = ("modified", "created", "read", "generated", "deleted")


_ROLE_LIKE = re.compile(r"[\w-]+")
"""A word after a path's last colon that reads as a role (``raed``, ``weird-role``, ``42``), not a name's tail."""


def _artifact_item(text: str, base: str = "", root: str | None = None) -> dict[str, Any]:
    """``PATH`` (role modified) or ``PATH:ROLE``, or a JSON object; the path
    taken from ``base`` (:func:`typed_from`). After the last colon, a word that
    is no role is refused — rather than taken as part of the path, where it
    would name a file that does not exist — when the part before it names a
    file (``a.txt:weird-role``) or the word reads as a role (``src/a.py:raed``,
    ``a.py:42``), unless the whole text names a file (one whose name really has
    that colon). The files are looked for under ``root`` (the worktree's top),
    else the current directory; a file so named that does not exist is given
    as JSON."""
    if text.strip().startswith("{"):
        item = _json_item("--artifact", text, as_text=None)
        if isinstance(item.get("path"), str):
            item["path"] = typed_from(base, item["path"])
        return item
    path, sep, role = text.rpartition(":")
    if sep and path and role.lower() in _ROLES:
        return {"path": typed_from(base, path), "role": role.lower()}
    if sep and path and not _names_a_file(root, typed_from(base, text)) \
            and (_ROLE_LIKE.fullmatch(role) or _names_a_file(root, typed_from(base, path))):
        raise InputError(f"--artifact {text!r}: {role!r} is not a role (the roles: {', '.join(_ROLES)}); for a "
                         f"file whose name ends in ':{role}', write --artifact '{{\"path\": \"{text}\", \"role\": "
                         f"\"modified\"}}'", details={"artifact": text, "roles": list(_ROLES)})
    return {"path": typed_from(base, text), "role": "modified"}


def _names_a_file(root: str | None, path: str) -> bool:
    """Whether ``path`` (relative to ``root``, else the current directory) names a file or folder."""
    try:
        return os.path.lexists(os.path.join(root, path) if root else path)
    except (OSError, ValueError):  # a name the system cannot take (a NUL byte): no such file
        return False


def capture_payload(content: "ContentOptions", *, input_source: str | None = None, prompter: Prompter | None = None,
                    stdin: Any = None) -> dict[str, Any]:
    """The payload ``checkpoint create`` captures: ``--input`` as the base,
    the content flags merged over it, a missing title or objective asked for
    on a terminal."""
    payload = read_payload_file(input_source, stdin=stdin) if input_source else {}
    payload = merge_changes(payload, content.to_changes())
    work = payload.get("work") if isinstance(payload.get("work"), dict) else None
    if prompter is not None and (work is None or isinstance(work, dict)):
        work = dict(work or {})
        answers = ask_for_missing({"title": work.get("title"), "objective": work.get("objective")},
                                  [("title", "Title (what is this work?)"),
                                   ("objective", "Objective (the measurable outcome)")], prompter)
        work.update({k: v for k, v in answers.items() if v is not None})
        payload["work"] = work
    return payload


def read_replacement_list(section: str, source: str, *, stdin: Any = None) -> list[Any]:
    """A ``--replace-*`` file: a JSON array of items (objects, or strings where
    one field is obviously meant, as for the content flags).

    Raises:
        InputError: unreadable, not JSON, or not an array.
    """
    flag, as_text = REPLACE_FLAGS[section]
    value = read_json_bounded(source, flag, stdin=stdin)
    if not isinstance(value, list):
        raise InputError(f"{flag} {source} must hold a JSON array (the new list), not {json_type(value)}")
    items = []
    for item in value:
        if isinstance(item, str) and as_text is not None:
            item = {as_text: item}
            if section == "failed_attempts":
                item["outcome"] = "failed"
        items.append(item)
    return items


def amend_inputs(content: "ContentOptions", *, input_source: str | None = None,
                 stdin: Any = None, edits: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """``handoff amend``'s replacement sections (``--input``) and flag changes.

    Raises:
        InputError: neither was given (and no item is closed, dropped or replaced).
    """
    replacement = read_payload_file(input_source, stdin=stdin) if input_source else {}
    changes = content.to_changes()
    if not replacement and not changes and not edits:
        raise InputError("nothing to amend: give content flags (e.g. --open-item, --completed), --close-item ID, "
                         "--drop ID, a --replace-* FILE, or --input FILE")
    return replacement, changes
