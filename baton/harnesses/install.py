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
- **Merging never loses another key.** Every other key, server and hook is
  kept. A TOML file gains Baton's table at its end when the table is
  absent; when present, only its ``command`` and ``args`` lines are
  rewritten. A file that does not parse, or that Baton cannot update in
  place, is refused (exit 2) rather than overwritten.
- **Idempotent.** Running the same command again finds every entry as it
  would write it and changes nothing.
- ``dry_run`` computes the same changes and returns them as unified diffs,
  writing nothing.
- **The project is initialised** (``baton init``, itself idempotent) unless
  it is a dry run: a hook in a project without ``.baton/`` would only report
  that on every session start.
"""

from __future__ import annotations

import copy
import difflib
import os
from pathlib import Path
from typing import Any, Mapping

from baton.model import frozen

from baton.errors import InputError, StorageError, UnsafePath
from baton.harnesses.protocol import HOOK_ROLES, ConfigFile

DEFAULT_COMMAND = "baton"

ALL_EVENTS = tuple(HOOK_ROLES)
"""``--events``' names (start, end, compact, prompt), in order; all wired by default."""


def parse_events(value: str | None) -> tuple[str, ...]:
    """``--events``: a comma-separated list of ``ALL_EVENTS`` names (None: all of them), in
    ``ALL_EVENTS``' order.

    Raises:
        InputError: an unknown name, or the list leaves out ``start`` or ``end`` (without them
            no baton is handed on).
    """
    from baton.harnesses.protocol import REQUIRED_ROLES

    if value is None:
        return ALL_EVENTS
    names = [word.strip().lower() for word in value.split(",") if word.strip()]
    unknown = [name for name in names if name not in ALL_EVENTS]
    if unknown:
        raise InputError(f"--events: unknown event {', '.join(map(repr, unknown))}; "
                         f"choose among {','.join(ALL_EVENTS)}", details={"unknown": unknown})
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
    """created, updated or unchanged."""
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
    events: tuple[str, ...] = ALL_EVENTS
    """The hook events wired (``--events``: ``HOOK_ROLES`` names, in their order)."""

    @property
    def left_out(self) -> tuple[str, ...]:
        return tuple(role for role in ALL_EVENTS if role not in self.events)

    command: str | None = None
    """The command line the hooks and the MCP server run (before ``hook HARNESS EVENT``, ``mcp``)."""

    @property
    def command_note(self) -> str | None:
        """When the command is an absolute path (this machine's): how to write the portable form
        for files a team commits (printed when a file changes; always in ``--json``)."""
        if self.command is None:
            return None
        program = command_program(self.command)
        if not os.path.isabs(program):
            return None
        return (f"the hooks and the MCP server run {program} (this machine's path); for files a team commits, "
                f"run again with --command baton (then everyone needs `baton` on PATH)")

    def to_json(self) -> dict[str, Any]:
        return {"harness": self.harness, "root": self.root, "dryRun": self.dry_run, "initialized": self.initialized,
                "events": list(self.events), "leftOut": list(self.left_out),
                "changed": any(c.action != "unchanged" for c in self.changes),
                "files": [c.to_json() for c in self.changes], "userSteps": list(self.user_steps),
                "warnings": list(self.warnings), "command": self.command, "commandNote": self.command_note}

    def _events_line(self) -> str:
        return (f"hooks for {', '.join(self.events)}; left out: {', '.join(self.left_out)} "
                "(--events; run it again without it to add them)")

    def render(self) -> str:
        if self.dry_run:
            diffs = [c.diff for c in self.changes if c.diff]
            text = "\n".join(diffs).rstrip("\n") if diffs else f"{self.harness}: already installed; nothing to change"
            text += "".join(f"\n# {c.note}" for c in self.changes if c.note)
            if self.command_note and diffs:
                text += f"\n# {self.command_note}"
            if self.left_out:
                text += f"\n# {self._events_line()}"
            if self.initialized:
                text += f"\n# and initialise a Baton project in {self.project or self.root}/.baton (baton init)"
            return text + "".join(f"\n# then: {step}" for step in self.user_steps)
        verbs = {"created": "created", "updated": "updated", "unchanged": "unchanged"}
        lines = [f"{self.harness}: {verbs[c.action]} {c.path}" for c in self.changes]
        lines += [f"{self.harness}: {c.note}" for c in self.changes if c.note]
        if self.command_note and any(c.action != "unchanged" for c in self.changes):
            lines.append(f"{self.harness}: {self.command_note}")
        if self.left_out:
            lines.append(f"{self.harness}: {self._events_line()}")
        if self.initialized:
            lines.insert(0, f"Initialised a Baton project in {self.project or self.root}/.baton")
        lines += [f"{self.harness}: still to do: {step}" for step in self.user_steps]
        return "\n".join(lines)


def merge_json(existing: Mapping[str, Any], additions: Mapping[str, Any], *, depth: int = 2,
               where: str = "") -> dict[str, Any]:
    """``existing`` with ``additions`` merged in, ``depth`` levels deep: a section
    gains the members it lacks. Under ``hooks``, Baton's entry in each event's
    list is replaced or added (``_merge_hooks``); under ``mcpServers``, Baton's
    server takes the new members over the ones there (``command``, ``args``)
    and keeps the others (``env``). A list (``enabledMcpjsonServers``) gains
    the members it lacks, in order after the ones there.

    Raises:
        InputError: a section Baton writes into (``hooks``, ``mcpServers``) is
            there but not an object, so Baton's entries could not be added (a
            ``null`` one is taken as absent), or a list Baton adds to is
            there but not a list.
    """
    out = copy.deepcopy(dict(existing))
    for key, value in additions.items():
        if isinstance(value, dict) and key in out and out[key] is None:
            del out[key]
        if isinstance(value, dict) and key in out and not isinstance(out[key], dict):
            raise InputError(f"{where}{key} is not an object; fix it by hand, then run this again")
        if key == "hooks" and isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge_hooks(out[key], value)
        elif isinstance(value, list) and key in out and out[key] is not None:
            if not isinstance(out[key], list):
                raise InputError(f"{where}{key} is not a list; fix it by hand, then run this again")
            out[key] = out[key] + [copy.deepcopy(v) for v in value if v not in out[key]]
        elif key == "mcpServers" and isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **{name: {**out[key][name], **copy.deepcopy(server)}
                                       if isinstance(out[key].get(name), dict) else copy.deepcopy(server)
                                       for name, server in value.items()}}
        elif key not in out:
            out[key] = copy.deepcopy(value)
        elif depth > 1 and isinstance(out[key], dict) and isinstance(value, dict):
            out[key] = merge_json(out[key], value, depth=depth - 1, where=f"{where}{key}.")
    return out


def _commands(entry: Any) -> list[str]:
    """Every command a hook entry (a matcher group or a bare ``{command}``) runs."""
    if not isinstance(entry, dict):
        return []
    found = [entry["command"]] if isinstance(entry.get("command"), str) else []
    for hook in entry.get("hooks") or []:
        found += _commands(hook)
    return found


def _signature(command: Any) -> tuple[str, ...] | None:
    from baton.harnesses.protocol import hook_signature

    return hook_signature(command)


class _Replacer:
    """Walks one event's list: the first hook with Baton's signature gets the new
    command line and the members of Baton's hook it lacks (a ``timeout`` an
    earlier install did not write; one the user set stays), later ones go."""

    def __init__(self, own: Mapping[str, Any], matcher: Any = None):
        self.own, self.signature, self.done = own, _signature(own.get("command")), False
        self.matcher = matcher

    def hook(self, hook: Any) -> Any | None:
        if not isinstance(hook, dict) or self.signature is None or _signature(hook.get("command")) != self.signature:
            return hook
        if self.done:
            return None
        self.done = True
        return {**copy.deepcopy(dict(self.own)), **hook, "command": self.own["command"]}

    def entry(self, entry: Any) -> Any | None:
        if isinstance(entry, dict) and isinstance(entry.get("hooks"), list) and "command" not in entry:
            hooks = [kept for h in entry["hooks"] if (kept := self.hook(h)) is not None]
            if not hooks and entry["hooks"]:
                return None
            alone = len(hooks) == 1 and isinstance(hooks[0], dict) and (
                _signature(hooks[0].get("command")) == self.signature)
            matcher = {"matcher": self.matcher} if self.matcher is not None and alone else {}
            return {**entry, **matcher, "hooks": hooks}
        return self.hook(entry)


def _own_hooks(entry: Any) -> list[dict[str, Any]]:
    """Every hook (an object with a ``command``) of one of Baton's entries."""
    if not isinstance(entry, dict):
        return []
    found = [entry] if isinstance(entry.get("command"), str) else []
    for hook in entry.get("hooks") or []:
        found += _own_hooks(hook)
    return found


def _merge_hooks(existing: dict[str, Any], additions: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(existing)
    for event, entries in additions.items():
        current = out.get(event)
        if not isinstance(current, list):
            if current is not None:
                raise InputError(f"hooks.{event} is not a list; fix it by hand, then run this again")
            out[event] = copy.deepcopy(entries)
            continue
        for own, matcher in ((h, e.get("matcher")) for e in entries if isinstance(e, dict) for h in _own_hooks(e)):
            replacer = _Replacer(own, matcher)
            current = [kept for e in current if (kept := replacer.entry(e)) is not None]
            if not replacer.done:
                current += [copy.deepcopy(e) for e in entries if own["command"] in _commands(e)]
        out[event] = current
    return out


def _contained(root: Path, relative: str) -> Path:
    path = root / relative
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(Path(os.path.realpath(root))):
        raise UnsafePath(relative, "outside_root", f"it resolves to {real}, outside the project {root}")
    return path


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise StorageError(f"cannot read {path}: {exc}") from exc


def _toml(text: str, where: str) -> dict[str, Any]:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where} is not valid TOML ({exc}); fix it by hand, then run this again") from None


def _table(node: Any, table: str) -> dict[str, Any] | None:
    for part in table.split("."):
        if not isinstance(node, dict) or not isinstance(node.get(part), dict):
            return None
        node = node[part]
    return node


def _header(line: str) -> list[str] | None:
    """The dotted name of a ``[table]`` header line, or None."""
    import tomllib

    stripped = line.strip()
    if not stripped.startswith("[") or stripped.startswith("[["):
        return None
    try:
        node: Any = tomllib.loads(stripped + "\n")
    except tomllib.TOMLDecodeError:
        return None
    name = []
    while isinstance(node, dict) and len(node) == 1:
        key, node = next(iter(node.items()))
        name.append(key)
    return name


def _toml_update(old: str, table: str, body: str, where: str) -> str:
    """``old`` with ``body``'s keys in ``[table]`` (appended when the table is absent).

    Only the lines of those keys change; the result is parsed back and must
    equal ``old`` with just those values replaced.

    Raises:
        InputError: ``old`` does not parse, or the result would not parse back as exactly
            that (the table is inline, or its name is taken by a value).
    """
    import tomllib

    parsed, wanted = _toml(old, where), tomllib.loads(body)
    present = _table(parsed, table)
    if present is not None and all(present.get(k) == v for k, v in wanted.items()):
        return old
    lines = old.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if _header(line) == table.split(".")), None)
    if start is None:  # no [table] header: append one (an inline or dotted definition will not parse back)
        head = "" if not old else old + ("\n" if old.endswith("\n") else "\n\n")
        edited = f"{head}[{table}]\n{body}"
    else:
        end = next((i for i in range(start + 1, len(lines)) if _header(lines[i]) is not None), len(lines))
        kept, at, i = [], None, start + 1
        while i < end:
            key = lines[i].split("=", 1)[0].strip() if "=" in lines[i] else None
            if key not in wanted:
                kept.append(lines[i])
                i += 1
                continue
            at = len(kept) if at is None else at
            value = lines[i]
            while i + 1 < end and not _parses(value):  # a value over several lines
                i += 1
                value += lines[i]
            i += 1
        at = 0 if at is None else at
        section = kept[:at] + [body] + kept[at:]
        edited = "".join(lines[:start + 1] + section + lines[end:])
    expected: Any = copy.deepcopy(parsed)
    node = expected
    for part in table.split("."):
        node = node.setdefault(part, {}) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.update(wanted)
    if node is None or not _parses(edited) or tomllib.loads(edited) != expected:
        raise InputError(f"{where}: cannot update [{table}] in place; set it by hand to:\n{body.rstrip()}",
                         details={"path": where, "table": table})
    return edited


def _parses(text: str) -> bool:
    import tomllib

    try:
        tomllib.loads(text)
        return True
    except tomllib.TOMLDecodeError:
        return False


def new_text(spec: ConfigFile, old: str | None) -> str:
    """The file's content after Baton's entries are merged into ``old`` (None: no file yet).

    Raises:
        InputError: ``old`` does not parse, or is not a JSON object.
    """
    if spec.text is not None:
        return spec.text
    if spec.toml_table is not None:
        return _toml_update(old or "", spec.toml_table, spec.toml_body, spec.path)
    import orjson

    existing: Any = {}
    if old is not None and old.strip():
        try:
            existing = orjson.loads(old)
        except orjson.JSONDecodeError as exc:
            if "//" in old or "/*" in old:
                raise InputError(
                    f"{spec.path} is not plain JSON ({exc}); if it holds comments (some harnesses allow "
                    "them), Baton would drop them when it rewrites the file, so it leaves the file alone: "
                    "move the comments out, then run this again"
                ) from None
            raise InputError(f"{spec.path} is not valid JSON ({exc}); fix it by hand, then run this again") from None
        if not isinstance(existing, dict):
            raise InputError(f"{spec.path} is not a JSON object; fix it by hand, then run this again")
    merged = merge_json(existing, spec.merge or {}, where=f"{spec.path}: ")
    if spec.omitted and isinstance(merged.get("hooks"), dict):
        from baton.harnesses.wiring import without_hooks

        merged["hooks"] = without_hooks(merged["hooks"], set(spec.omitted))
    if old is not None and merged == existing:
        return old
    return orjson.dumps(merged, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"


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
    import shlex

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
    import shlex

    try:
        words = shlex.split(line)
    except ValueError:
        return line
    return words[0] if words else line


def default_command() -> str:
    """What ``baton install-hooks`` writes without ``--command``: the absolute path of the
    ``baton`` running now (``wiring.running_baton``), so the harness finds it whatever its
    ``PATH``; ``baton`` when it cannot be found (the not-found warning then says so)."""
    from baton.harnesses.wiring import running_baton

    return running_baton() or DEFAULT_COMMAND


def install_hooks(root: str | os.PathLike, harness: str, *, dry_run: bool = False,
                  command: str = DEFAULT_COMMAND, worktree: str | os.PathLike | None = None,
                  events: tuple[str, ...] = ALL_EVENTS) -> InstallResult:
    """Merge ``harness``'s configuration into the project at ``root``.

    Only the hooks of ``events`` (``parse_events``) are wired; Baton's hooks for the
    others, left by an earlier install, are taken out.

    The files go to ``worktree`` when given (the linked worktree the command
    runs in: the harness reads that checkout's files), the project
    (``.baton/``) stays at ``root``, which every worktree shares.

    Raises:
        InputError: an unknown harness, an empty command, or a file that does not parse.
        UnsafePath: a file would land outside the project.
        StorageError: a file cannot be written.
    """
    from baton.harnesses import adapter

    import shlex

    from baton.harnesses.wiring import holds_batons, not_found_warning, resolve_program

    chosen = adapter(harness)
    project = Path(root)
    base = Path(worktree) if worktree is not None else project
    words = command_words(command)
    warnings = () if resolve_program(words[0]) else (not_found_warning(words[0], harness),)
    planned = []
    originals = []
    for spec in chosen.configuration(shlex.join(words), events):
        path = _contained(base, spec.path)
        old = _read(path)
        text = new_text(spec, old)
        action = "created" if old is None else ("unchanged" if text == old else "updated")
        diff = "".join(difflib.unified_diff((old or "").splitlines(keepends=True), text.splitlines(keepends=True),
                                            fromfile=f"a/{spec.path}" if old is not None else "/dev/null",
                                            tofile=f"b/{spec.path}"))
        note = spec.note if action != "unchanged" else None
        planned.append((path, text, FileChange(spec.path, action, diff, note)))
        if action == "updated" and spec.text is None and not holds_batons(spec, old, harness):
            originals.append((original_path(project, base, harness, spec.path), path))
    changes = tuple(change for _, _, change in planned)
    elsewhere = str(project) if base != project else None
    wired = sum(1 for hook in chosen.hooks if chosen.role(hook) in events)
    steps = tuple(step.replace("{hooks}", str(wired)) for step in getattr(chosen, "user_steps", ()))
    if dry_run:
        would_init = not (project / ".baton" / "config.json").is_file()
        return InstallResult(harness, str(base), True, changes, would_init, project=elsewhere, user_steps=steps,
                             warnings=warnings, command=shlex.join(words), events=events)
    for keep, path in originals:  # before the file changes: its own bytes, for --remove to put back
        if keep is not None:
            _keep_original(keep, path)
    for path, text, change in planned:
        if change.action != "unchanged":
            _write(path, text)
    from baton.app import Baton

    initialized = Baton.init(project).created
    return InstallResult(harness, str(base), False, changes, initialized, project=elsewhere, user_steps=steps,
                         warnings=warnings, command=shlex.join(words), events=events)


ORIGINALS = ".baton/install-originals"
"""Where ``install-hooks`` keeps the bytes of each file of the user's it changes (ignored by git,
as all of ``.baton/`` but its config), for ``--remove`` to put back."""


def original_path(project: str | os.PathLike, base: str | os.PathLike, harness: str, relative: str) -> Path | None:
    """Where the original of ``relative`` (a file of the worktree ``base``) is kept: under the
    project's ``.baton/install-originals/HARNESS/``, or, for a linked worktree,
    ``.baton/install-originals/worktrees/KEY/HARNESS/`` (``KEY`` a hash of its path). None when
    that place resolves outside the project (a symlinked ``.baton``): no original is kept or read."""
    import hashlib

    folder = ORIGINALS
    if os.path.realpath(base) != os.path.realpath(project):
        key = hashlib.sha256(os.path.realpath(base).encode("utf-8", "surrogateescape")).hexdigest()[:16]
        folder += f"/worktrees/{key}"
    try:
        return _contained(Path(project), f"{folder}/{harness}/{relative}")
    except UnsafePath:
        return None


def _keep_original(keep: Path, path: Path) -> None:
    from baton.config import write_bytes_atomic

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    write_bytes_atomic(keep, data)


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.baton-tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise StorageError(f"cannot write {path}: {exc.strerror or exc}") from exc
