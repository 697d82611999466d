"""``baton install-hooks --harness NAME``: write a harness's project-local configuration.

Each adapter lists its files (``HarnessAdapter.configuration``); this module
merges them. Rules:

- **Only inside the project.** Every path is relative to the project root,
  and a path whose real location leaves it (a symlinked ``.claude``) is
  refused (exit 5). Nothing in the home directory is touched.
- **The command is the running ``baton``** unless ``--command`` names
  another (``default_command``): its absolute path, so the harness finds it
  whatever ``PATH`` it runs with; ``--command baton`` writes the portable
  form, for files a team commits. Either way a warning says when the
  program is not found here.
- **The command is words** (``command_words``): a value that names an
  existing file is one word, spaces and all; any other value is split as a
  shell would split it (``uvx baton``). Hook command lines quote each word
  for the shell; an MCP server gets the words unquoted.
- **Baton's own entries are replaced, never duplicated.** A hook whose
  command ends in ``hook <harness> <Event>`` (whatever program runs it) is
  Baton's: the first one in an event's list gets the new command line and
  the members of Baton's hook it lacks (the ``timeout`` an earlier install
  did not write; its other keys, a timeout the user set among them, are
  kept), later ones are removed, and an event without one gains Baton's
  entry. A matcher group holding Baton's hook alone takes Baton's matcher
  (Gemini's PreCompress ``manual``); a group shared with other hooks keeps
  its own. The MCP server entry named ``baton`` gets the new
  ``command`` and ``args``; its other keys (``env``...) are kept.
- **Baton's hooks stay where the person moved them.** A harness may run the hooks
  of a file of the person's own too (``ConfigFile.personal_hooks``: Claude Code's
  ``.claude/settings.local.json``, hooks for oneself rather than the team). When Baton's
  hooks are found there, an event whose hook is there is updated there, by the same
  rules; one whose hook is only in the hooks file stays there; a new one goes beside
  the moved ones. A hook in both files (the harness runs two different command lines both) keeps the
  personal copy, the one the person chose: the other is taken out of the hooks file,
  the change's note says so (a ``hooks`` section this empties goes too; a hooks file left
  holding nothing that was Baton's alone, with no original of the user's kept, is deleted:
  ``_emptied``). Without Baton's hooks in the personal file, nothing of
  this applies. The result says where each hook is (``hookFiles``; a line when any is
  in the personal file).
- **Merging never loses another key.** Every other key, server and hook is
  kept. A TOML file gains Baton's table at its end when the table is
  absent; when present, only its ``command`` and ``args`` lines are
  rewritten. A file that does not parse, or that Baton cannot update in
  place, is refused (exit 2) rather than overwritten.
- **Idempotent.** Running the same command again finds every entry as it
  would write it and changes nothing.
- ``dry_run`` computes the same changes and returns them as unified diffs,
  writing nothing.
- **A personal file stays out of git.** A file the harness keeps per
  machine (``ConfigFile.clone_only``: Claude Code's ``settings.local.json``),
  created here in a git repository — or there already, neither tracked nor
  ignored by git (``clone_exclude.committable``, what ``doctor`` warns of) —
  gets a line in the clone's ``info/exclude`` (``clone_exclude``), shown as
  one more changed file.
- **The project is initialised** (``baton init``, itself idempotent) unless
  it is a dry run: a hook in a project without ``.baton/`` would only report
  that on every session start.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import os
import re
import shlex
from pathlib import Path
from typing import Any, Mapping

import attrs
import orjson

from baton.app import Baton
from baton.commands.context import check_baton_folder_inside, read_local
from baton.config import ProjectConfig, read_json, write_bytes_atomic
from baton.errors import ConfigError, InputError, PolicyBlock, StorageError
from baton.harnesses import adapter
from baton.harnesses.claude_hooks_off import hooks_off
from baton.harnesses.clone_exclude import RECORD, ExcludeEdit, apply_edit, committable, plan_exclude
from baton.harnesses.config_text import (
    is_home,
    located,
    new_text,
    original_path,
    project_folder,
    read_text,
    shown_path,
    write_text,
)
from baton.harnesses.protocol import DEFAULT_ROLES, HOOK_ROLES, REQUIRED_ROLES, ConfigFile
from baton.harnesses.wiring import (
    baton_hooks,
    committed_portable,
    delete_file,
    holds_batons,
    installed_before,
    not_found_warning,
    relay_command,
    resolve_program,
    running_baton,
)
from baton.model import frozen
from baton.policy import load_policy
from baton.project import ProjectPaths

DEFAULT_COMMAND = "baton"

ALL_EVENTS = tuple(HOOK_ROLES)
"""``--events``' names (start, end, compact, prompt), in order (``all`` names them all)."""

DEFAULT_EVENTS = DEFAULT_ROLES
"""Wired without ``--events`` in every harness (``protocol.DEFAULT_ROLES``); Claude Code and Gemini CLI
add the prompt hook (``CommandHookAdapter.default_roles``)."""


def parse_events(value: str | None) -> tuple[str, ...] | None:
    """``--events``: a comma-separated list of ``ALL_EVENTS`` names, or ``all``, in ``ALL_EVENTS``'
    order (None: no ``--events``, the harness's default, ``CommandHookAdapter.default_roles``).

    Raises:
        InputError: an unknown name, or the list leaves out ``start`` or ``end`` (without them
            no baton is handed on).
    """
    if value is None:
        return None
    names = [word.strip().lower() for word in value.split(",") if word.strip()]
    if names == ["all"]:
        return ALL_EVENTS
    unknown = [name for name in names if name not in ALL_EVENTS]
    if unknown:
        raise InputError(f"--events: unknown event {', '.join(map(repr, unknown))}; "
                         f"choose among {','.join(ALL_EVENTS)} (or all)", details={"unknown": unknown})
    missing = [role for role in REQUIRED_ROLES if role not in names]
    if missing:
        raise InputError(f"--events must include {' and '.join(missing)}: without start and end no baton is handed on "
                         f"(only {', '.join(r for r in ALL_EVENTS if r not in REQUIRED_ROLES)} can be left out)",
                         details={"missing": missing})
    return tuple(role for role in ALL_EVENTS if role in names)


@frozen
class FileChange:
    path: str
    action: str
    """created, updated, unchanged, or deleted (a hooks file that held only Baton's hooks, now
    kept in the personal file: ``_emptied``)."""
    diff: str
    note: str | None = None
    """What the change means, in one line (only when the file changes)."""

    def to_json(self) -> dict[str, Any]:
        out = {"path": self.path, "action": self.action, "diff": self.diff}
        if self.note is not None:
            out["note"] = self.note
        return out


@frozen
class InstallResult:
    harness: str
    root: str
    dry_run: bool
    changes: tuple[FileChange, ...]
    initialized: bool = False
    """``baton init`` created ``.baton/`` now (with ``dry_run``: would create it)."""
    exit_code: int = 0
    project: str | None = None
    """Where ``.baton/`` is, when not ``root`` (a linked worktree's files, the main worktree's project)."""
    user_steps: tuple[str, ...] = ()
    """What the user must still do before the harness runs the hooks (``HarnessAdapter.user_steps``)."""
    warnings: tuple[str, ...] = ()
    """One line each, for stderr: the command written is not found on ``PATH`` here."""
    events: tuple[str, ...] = DEFAULT_EVENTS
    """The hook events wired (``--events``: ``HOOK_ROLES`` names, in their order)."""

    @property
    def left_out(self) -> tuple[str, ...]:
        return tuple(role for role in ALL_EVENTS if role not in self.events)

    command: str | None = None
    """The command line the hooks and the MCP server run (before ``hook HARNESS EVENT``, ``mcp``)."""
    hook_command: str | None = None
    """What the hooks run instead, when not ``command``: its interpreter, started directly
    (``wiring.relay_command``)."""
    hook_files: Mapping[str, str] = attrs.field(factory=dict)
    """Per hook event wired, the file Baton's hook is in (``_placed``)."""
    hooks_note: str | None = None
    """One line when Baton's hooks are kept in a personal file (``_placed``): where, and that
    the hooks file gets no copy. Printed on every run."""
    named_by: str | None = None
    """How the project was named (``--project``, ``$BATON_PROJECT``) when it is not the one the
    command ran in: the files are then said with the folder they are in, first."""
    kept_for: tuple[str, ...] = ()
    """The wiring files git tracks, when ``command`` is the portable one they were committed with,
    kept for want of ``--command`` (``default_wiring``)."""

    @property
    def command_note(self) -> str | None:
        """When the command is an absolute path (this machine's): how to write the portable form
        for files a team commits (printed when a file changes; always in ``--json``). When the
        committed portable command was kept (``kept_for``): that, and how to write another
        (printed on every run)."""
        if self.command is None:
            return None
        if self.kept_for:
            files = " and ".join(self.kept_for)
            return (f"kept the portable `{self.command}` that {files} {'is' if len(self.kept_for) == 1 else 'are'} "
                    f"committed with (git tracks {'it' if len(self.kept_for) == 1 else 'them'}), rather than write "
                    f"this machine's absolute path into what the team shares; --command PATH writes one anyway")
        program = command_program(self.command)
        if not os.path.isabs(program):
            return None
        started = " (the hooks start its Python directly, a few ms sooner)" if self.hook_command else ""
        return (f"the hooks and the MCP server run {program} (this machine's path){started}; for files a team "
                f"commits, run again with --command baton (then everyone needs `baton` on PATH)")

    def to_json(self) -> dict[str, Any]:
        return {"harness": self.harness, "root": self.root, "dryRun": self.dry_run, "initialized": self.initialized,
                "events": list(self.events), "leftOut": list(self.left_out),
                "changed": any(c.action != "unchanged" for c in self.changes),
                "files": [c.to_json() for c in self.changes], "userSteps": list(self.user_steps),
                "warnings": list(self.warnings), "command": self.command,
                "hookCommand": self.hook_command or self.command, "commandNote": self.command_note,
                "hookFiles": dict(self.hook_files), "namedBy": self.named_by, "commandKept": bool(self.kept_for)}

    def _elsewhere_line(self) -> str | None:
        if self.named_by is None:
            return None
        return (f"{self.harness}: in {self.root} (named by {self.named_by}), not the project this command "
                f"ran in; the paths below are relative to it")

    def _events_line(self) -> str:
        return (f"hooks for {', '.join(self.events)}; left out: {', '.join(self.left_out)} "
                "(`--events all` wires every event)")

    def render(self) -> str:
        if self.dry_run:
            diffs = [c.diff for c in self.changes if c.diff]
            text = "\n".join(diffs).rstrip("\n") if diffs else f"{self.harness}: already installed; nothing to change"
            text += "".join(f"\n# {c.note}" for c in self.changes if c.note)
            if self.hooks_note:
                text += f"\n# {self.hooks_note}"
            if self.command_note and (diffs or self.kept_for):
                text += f"\n# {self.command_note}"
            if self.left_out:
                text += f"\n# {self._events_line()}"
            if self.initialized:
                text += f"\n# and initialise a Baton project in {self.project or self.root}/.baton (baton init)"
            elsewhere = self._elsewhere_line()
            text = f"# {elsewhere}\n{text}" if elsewhere else text
            return text + "".join(f"\n# then: {step}" for step in self.user_steps)
        verbs = {"created": "created", "updated": "updated", "unchanged": "unchanged", "deleted": "deleted"}
        lines = [f"{self.harness}: {verbs[c.action]} {c.path}" for c in self.changes]
        lines += [f"{self.harness}: {c.note}" for c in self.changes if c.note]
        if self.hooks_note:
            lines.append(f"{self.harness}: {self.hooks_note}")
        if self.command_note and (self.kept_for or any(c.action != "unchanged" for c in self.changes)):
            lines.append(f"{self.harness}: {self.command_note}")
        if self.left_out:
            lines.append(f"{self.harness}: {self._events_line()}")
        if self.initialized:
            lines.insert(0, f"Initialised a Baton project in {self.project or self.root}/.baton")
        lines += [f"{self.harness}: still to do: {step}" for step in self.user_steps]
        elsewhere = self._elsewhere_line()
        return "\n".join([elsewhere, *lines] if elsewhere else lines)


def command_words(command: str) -> tuple[str, ...]:
    """The words of ``--command``: one word when the value names an existing file
    (``/opt/my tools/baton``, spaces and all), else the value split as a shell
    would (``uvx baton``, ``'/opt/my tools/baton' --flag``). A leading ``~`` is
    expanded: a hook command is quoted, and an MCP server is run without a shell.

    A program given as a path is written absolute when it exists (a harness
    runs its hooks from its own working folder, not from where this ran).

    Raises:
        InputError: the value is empty, its quotes do not close, it names a
            folder, or it looks like a path with spaces that names nothing
            (``/opt/my tool/baton`` mistyped), which would be split into words.
    """
    def path_like(word: str) -> bool:
        return os.sep in word or bool(os.altsep and os.altsep in word)

    value = command.strip()
    whole = os.path.expanduser(value)
    if path_like(whole) and os.path.isfile(whole):
        return (os.path.abspath(whole),)
    if path_like(whole) and os.path.isdir(whole):
        raise InputError(f"`command` {command!r} is a folder; name the baton program in it")
    try:
        words = shlex.split(value)
    except ValueError as exc:
        raise InputError(f"`command` {command!r} cannot be split into words ({exc})") from None
    if not words:
        raise InputError("`command` must name the baton program")
    program = os.path.expanduser(words[0])
    if path_like(program) and os.path.isfile(program):
        program = os.path.abspath(program)
    elif path_like(program) and len(words) > 1 and not os.path.exists(program):
        raise InputError(f"`command` {command!r} names no file, and split into words its program {program!r} "
                         "is none either: check the path, or quote a path with spaces inside the value")
    return (program, *words[1:])


def command_program(line: str) -> str:
    """The program of a command line ``install-hooks`` wrote (its first word)."""
    try:
        words = shlex.split(line)
    except ValueError:
        return line
    return words[0] if words else line


def default_command() -> str:
    """What ``baton install-hooks`` writes without ``--command``: the absolute path of the
    ``baton`` running now (``wiring.running_baton``), so the harness finds it whatever its
    ``PATH``; ``baton`` when it cannot be found (the not-found warning then says so)."""
    return running_baton() or DEFAULT_COMMAND


def default_wiring(base: str | os.PathLike, harness: str) -> tuple[str, str | None, tuple[str, ...]]:
    """What ``install-hooks`` without ``--command`` writes into the worktree ``base``: the command,
    what the hooks run instead (``wiring.relay_command``) and the tracked files it was kept for. The
    portable command a team committed (``wiring.committed_portable``) is kept, with no relay;
    else this ``baton``'s absolute path (``default_command``)."""
    kept = committed_portable(base, harness)
    if kept is not None:
        return kept[0], None, kept[1]
    command = default_command()
    return command, relay_command(command), ()


def install_hooks(root: str | os.PathLike, harness: str, *, dry_run: bool = False,
                  command: str = DEFAULT_COMMAND, worktree: str | os.PathLike | None = None,
                  events: tuple[str, ...] | None = None, hook_command: str | None = None,
                  user_level: bool = False, kept_for: tuple[str, ...] = ()) -> InstallResult:
    """Merge ``harness``'s configuration into the project at ``root``.

    The hooks run ``hook_command`` when given (``wiring.relay_command``), else ``command``, which the
    MCP server always runs; ``kept_for``: the tracked files it was kept for (``default_wiring``).

    Only the hooks of ``events`` (``parse_events``; None: ``CommandHookAdapter.default_roles``)
    are wired; Baton's hooks for the others, left by an earlier install, are taken out.

    The files go to ``worktree`` when given (the linked worktree the command runs in: the harness reads
    that checkout's files), the project (``.baton/``) stays at ``root``, which every worktree shares.

    Raises:
        InputError: an unknown harness, an empty command, a file that does not parse, or a ``root``
            that is not an existing folder (``config_text.project_folder``).
        ConfigError: the project's ``.baton/config.json`` does not read as one (checked before
            anything is written, a ``--dry-run`` too: the install would stop on it).
        UnsafePath: a file would land outside the project.
        PolicyBlock: the files would go to the home directory, without ``user_level`` (``_check_place``).
        StorageError: a file cannot be written.
    """
    chosen = adapter(harness)
    events = chosen.default_roles() if events is None else events
    project = project_folder(root, "install Baton's wiring into")
    base = Path(worktree) if worktree is not None else project
    _check_place(project, base, harness, user_level)
    words = command_words(command)
    warnings: tuple[str, ...] = () if resolve_program(words[0]) else (not_found_warning(words[0], harness, kept_for),)
    planned = []
    originals = []
    excludes: list[tuple[ExcludeEdit, Path, str]] = []
    specs = chosen.configuration(shlex.join(words), events, hook_command)
    placed, hook_files, hooks_note = _placed(specs, base, harness)
    for spec, given in placed:
        path, shown = located(base, spec.path, harness), shown_path(base, spec.path, harness)
        old = read_text(path)
        action, text, diff = _change(spec, given, old, original_path(project, base, harness, spec.path), harness, shown)
        planned.append((path, text, FileChange(shown, action, diff, spec.note if action != "unchanged" else None)))
        if action == "updated" and spec.text is None and _users(given, old, base, harness):
            originals.append((original_path(project, base, harness, spec.path), path))
        if spec.clone_only and shown == spec.path and (  # not moved out of the home directory (moved_home)
                action == "created" or _only_batons(given, old) or committable(base, spec.path)):
            excluded = _exclude_plan(project, base, harness, path, spec.path)
            if excluded is not None:
                excludes.append(excluded)
    warnings += tuple(edit.skip for edit, _, _ in excludes if edit.skip) + _dropped_in(planned, harness)
    if harness == "claude-code" and (off := hooks_off(base)) is not None:
        warnings += (off,)
    excludes = [(edit, record, name) for edit, record, name in excludes if not edit.skip]
    changes = tuple(change for _, _, change in planned) + tuple(
        FileChange(edit.display, edit.action, edit.diff(), f"git ignores {name} in this clone only "
                   f"(a line in {edit.display}, never committed)") for edit, _, name in excludes)
    elsewhere = str(project) if base != project else None
    wired = sum(1 for hook in chosen.hooks if chosen.role(hook) in events)
    steps = tuple(step.replace("{hooks}", str(wired)) for step in getattr(chosen, "user_steps", ()))
    result = functools.partial(InstallResult, harness, str(base), project=elsewhere, user_steps=steps,
                               command=shlex.join(words), events=events, hook_command=hook_command,
                               hook_files=hook_files, hooks_note=hooks_note, kept_for=kept_for)
    if dry_run:
        would_init = not (project / ".baton" / "config.json").is_file()
        return result(True, changes, would_init, warnings=warnings)
    for keep, path in originals:  # before the file changes: its own bytes, for --remove to put back
        _keep_original(keep, path)
    for path, text, change in planned:
        if change.action == "deleted":
            delete_file(path, base)
        elif change.action != "unchanged":
            write_text(path, text)
    initialized = Baton.init(project).created
    for edit, record, name in excludes:  # best effort: the wiring above works without it
        try:
            apply_edit(edit, record)
        except StorageError as exc:
            warnings += (f"{exc}: git may offer to commit {name} (add {edit.record and edit.record['line']} "
                         f"to {edit.display} by hand)",)
            changes = tuple(c for c in changes if c.path != edit.display)
    return result(False, changes, initialized, warnings=warnings)


def _placed(specs: list[ConfigFile], base: Path,
            harness: str) -> tuple[list[tuple[ConfigFile, ConfigFile]], dict[str, str], str | None]:
    """Each of ``specs`` as merged, with Baton's hooks where they are (module docstring: "Baton's
    hooks stay where the person moved them"), beside the adapter's own (the hooks file left out
    when it is absent and would get nothing); per hook event wired, the file its hook is in
    after the install; and the line saying so when any is in a personal file.

    A file that does not parse is taken as holding no hook here: merging into it refuses it."""
    as_given = [(spec, spec) for spec in specs]
    hooks_file = next((spec for spec in specs if spec.merge and "hooks" in spec.merge), None)
    personal = next((spec for spec in specs if spec.personal_hooks), None)
    if hooks_file is None or hooks_file.merge is None:
        return as_given, {}, None
    wired: dict[str, Any] = dict(hooks_file.merge["hooks"])
    if personal is None or personal.merge is None:
        return as_given, {event: hooks_file.path for event in wired}, None
    events = {hook.event for hook in adapter(harness).hooks}
    held = set(baton_hooks(_parsed(base, personal.path, harness), harness, events))
    if not held:
        return as_given, {event: hooks_file.path for event in wired}, None
    shared = set(baton_hooks(_parsed(base, hooks_file.path, harness), harness, events))
    moved = {event: groups for event, groups in wired.items() if event in held or event not in shared}
    stays = {event: groups for event, groups in wired.items() if event not in moved}
    doubled = [event for event in moved if event in shared]
    one = len(doubled) == 1
    note = (f"Baton's {', '.join(doubled)} {'hook' if one else 'hooks'} taken out: {personal.path} holds "
            f"{'it' if one else 'them'} too (the {'one' if one else 'ones'} there, where you moved "
            f"{'it' if one else 'them'}, {'is' if one else 'are'} kept and updated; with two different command "
            f"lines {harness} would run both, a second Baton process answering with nothing)") \
        if doubled else hooks_file.note
    rest = {key: value for key, value in hooks_file.merge.items() if key != "hooks"}
    placed_hooks = hooks_file._replace(  # type: ignore[attr-defined]  # a named tuple's (a value class)
        merge={**rest, **({"hooks": stays} if stays else {})},
        omitted=hooks_file.omitted + tuple(("hook", harness, event) for event in moved), note=note)
    placed_personal = personal._replace(  # type: ignore[attr-defined]
        merge={**personal.merge, **({"hooks": moved} if moved else {})}, omitted=hooks_file.omitted)
    gone = not stays and not rest and not located(base, hooks_file.path, harness).exists()  # not created for nothing
    placed = [(placed_hooks if spec is hooks_file else placed_personal if spec is personal else spec, spec)
              for spec in specs if not (gone and spec is hooks_file)]
    where = {event: personal.path if event in moved else hooks_file.path for event in wired}
    named = [event for event in wired if event in moved]
    if not named:
        return placed, where, None
    everything = len(named) == len(wired)
    subject = ("Baton's hooks are" if everything else
               f"Baton's {', '.join(named)} {'hook is' if len(named) == 1 else 'hooks are'}")
    them = "it" if not everything and len(named) == 1 else "them"
    return placed, where, (f"{subject} in {personal.path}, where you moved {them} (yours alone, not the team's): "
                           f"kept there, up to date, with no copy in {hooks_file.path}")


def _change(spec: ConfigFile, given: ConfigFile, old: str | None, keep: Path | None,
            harness: str, shown: str) -> tuple[str, str, str]:
    """What becomes of the file ``old`` (None: absent): its action (``FileChange.action``), its
    new text (``""`` when deleted) and the unified diff, naming it ``shown``."""
    text = new_text(spec, old)
    action = "created" if old is None else ("unchanged" if text == old else "updated")
    if action == "updated" and _emptied(spec, given, old, text, keep, harness):
        action, text = "deleted", ""
    diff = "".join(difflib.unified_diff((old or "").splitlines(keepends=True), text.splitlines(keepends=True),
                                        fromfile=f"a/{shown.lstrip('/')}" if old is not None else "/dev/null",
                                        tofile=f"b/{shown.lstrip('/')}" if action != "deleted" else "/dev/null"))
    return action, text, diff


def _users(spec: ConfigFile, old: str | None, base: Path, harness: str) -> bool:
    """Whether the file ``old`` is the user's, its original kept for ``--remove`` to give back: it holds
    nothing of Baton's, or what it holds of Baton's (a ``baton`` server) the user wrote, Baton's hooks
    never installed here (``installed_before``)."""
    return not holds_batons(spec, old, harness) or not installed_before(base, harness)


def _emptied(spec: ConfigFile, given: ConfigFile, old: str | None, text: str, keep: Path | None,
             harness: str) -> bool:
    """Whether the hooks file, its Baton's hooks taken out (kept in the personal file: ``_placed``),
    is left holding nothing (``{}``) and was Baton's alone: it held Baton's part and no original
    of the user's is kept (``install-hooks`` created it, or it held only Baton's). Such a file is
    deleted, as ``--remove`` deletes it; a file of the user's keeps its keys for ``--remove``
    to put back."""
    if not spec.omitted or spec.text is not None or spec.toml_table is not None or old is None:
        return False
    if _parsed_text(text) != {} or not holds_batons(given, old, harness):
        return False
    return keep is not None and not keep.is_file()


def _parsed_text(text: str | None) -> Any:
    try:
        return orjson.loads(text) if text is not None and text.strip() else {}
    except orjson.JSONDecodeError:
        return None


def _parsed(base: Path, relative: str, harness: str) -> dict[str, Any]:
    """A JSON file's object, or {} when it is absent or is none (``install_hooks`` refuses it then)."""
    text = read_text(located(base, relative, harness))
    try:
        value = orjson.loads(text) if text is not None and text.strip() else {}
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
"""A shell variable assignment before a command (``BATON_HOOK_DEADLINE=5``)."""


def _dropped_in(planned: list[tuple[Path, str, FileChange]], harness: str) -> tuple[str, ...]:
    """``_dropped_prefixes`` of each file the install updates."""
    return tuple(said for path, text, change in planned if change.action == "updated"
                 for said in _dropped_prefixes(change.path, read_text(path), text, harness))


def _dropped_prefixes(shown: str, old: str | None, new: str | None, harness: str) -> list[str]:
    """A warning per Baton hook line of ``old`` (a hooks file) that set variables before its
    program (``BATON_HOOK_DEADLINE=5 baton hook …``) and that ``new`` replaces with Baton's own
    line, without them: install-hooks writes its line whole, so the person's assignments are gone."""
    events = {hook.event for hook in adapter(harness).hooks}
    before, after = _parsed_text(old), _parsed_text(new)
    if not isinstance(before, dict) or not isinstance(after, dict):
        return []
    kept = {line for lines in baton_hooks(after, harness, events).values() for line in lines}
    said = []
    for event, lines in baton_hooks(before, harness, events).items():
        for line in lines:
            assigned = list(itertools.takewhile(ASSIGNMENT.match, shlex.split(line)))
            if assigned and line not in kept:
                said.append(f"{shown}: Baton's {event} hook ran `{line}`; install-hooks writes its own line, so "
                            f"`{shlex.join(assigned)}` before it is gone: set "
                            f"{'it' if len(assigned) == 1 else 'them'} in the environment {harness} starts with")
    return said


def _only_batons(spec: ConfigFile, old: str | None) -> bool:
    """Whether the file ``old`` holds exactly what ``install-hooks`` writes into it (so a
    personal file of an earlier install, or of one whose exclude step failed, is
    excluded now)."""
    if old is None or spec.merge is None:
        return False
    try:
        return bool(orjson.loads(old) == spec.merge)
    except orjson.JSONDecodeError:
        return False


def _exclude_plan(project: Path, base: Path, harness: str, path: Path,
                  relative: str) -> tuple[ExcludeEdit, Path, str] | None:
    """The clone's ``info/exclude`` line for a personal file ``install-hooks`` creates
    (``clone_exclude``), with where its record goes; None outside git, when the line is
    there already, or when no record could be kept (a symlinked ``.baton``)."""
    record = original_path(project, base, harness, RECORD)
    edit = plan_exclude(base, path) if record is not None else None
    return None if edit is None or record is None else (edit, record, relative)


def _check_place(project: Path, base: Path, harness: str, user_level: bool) -> None:
    """Raises PolicyBlock (exit 5) when the files would go to the home directory (``is_home``) and
    ``user_level`` does not say that is meant: Baton's hooks would run in every project, the ones
    without ``.baton/`` told so at each start (tester28 T1). Then ``_check_config``."""
    if is_home(base) and not user_level:
        hooks = [shown_path(base, spec.path, harness) for spec in adapter(harness).configuration(DEFAULT_COMMAND)
                 if spec.merge and "hooks" in spec.merge]
        raise PolicyBlock(
            f"{base} is your home directory: install-hooks there writes {harness}'s user-level configuration "
            f"({' and '.join(hooks)}), read in every folder, so Baton's hooks written there would run "
            f"in every project; run install-hooks in the project's folder (or name it with --project), or pass "
            f"--user-level if you mean to wire {harness} for every folder",
            details={"root": str(base), "reason": "home_directory", "files": hooks})
    _check_config(project)


def _check_config(project: Path) -> None:
    """Raises ConfigError when the project's configuration would stop every command (its
    ``config.json``, ``local.json`` or policy), UnsafePath when ``.baton/`` links out of the
    project: checked before anything is written."""
    paths = ProjectPaths(os.fspath(project))
    check_baton_folder_inside(paths)  # a .baton linked out of the project: refused before any wiring is written
    try:
        raw = read_json(paths.config, ConfigError)
    except FileNotFoundError:
        return
    config = ProjectConfig.from_json(raw, paths.config)
    read_local(paths)
    load_policy(paths, config)


def _keep_original(keep: Path | None, path: Path) -> None:
    """Keep ``path``'s bytes at ``keep`` (None: no place to keep them, a symlinked ``.baton``)."""
    if keep is None:
        return
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    write_bytes_atomic(keep, data)
