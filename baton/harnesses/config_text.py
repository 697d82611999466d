"""The text of a harness's configuration files: read them, recognise Baton's
hook lines (``hook_signature``), merge Baton's entries into them
(``new_text``), take Baton's hooks out of a ``hooks``
section (``without_hooks``), write them back, and where ``install-hooks``
keeps the originals it changed (``original_path``).

Shared by ``baton.harnesses.install`` (which writes the wiring) and
``baton.harnesses.wiring`` (which reads and removes it).
"""

from __future__ import annotations

import copy
import hashlib
import os
import shlex
import tomllib
from pathlib import Path
from typing import Any, Mapping

import orjson

from baton.errors import InputError, StorageError, UnsafePath
from baton.harnesses.protocol import ConfigFile


def hook_signature(command: Any) -> tuple[str, ...] | None:
    """``(hook, HARNESS, EVENT)`` when ``command`` is a program's ``hook HARNESS EVENT``
    (Baton's shape, whatever the program; a ``||`` tail after it or not, ``hook_words``), else None."""
    if not isinstance(command, str):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    words = hook_words(words)
    return tuple(words[-3:]) if len(words) >= 4 and words[-3] == "hook" else None


def hook_words(words: list[str]) -> list[str]:
    """A hook command line's words before what runs when it fails: Gemini CLI's ``|| exit 1``
    (``NONBLOCKING_SUFFIX``), Codex's SessionStart ``|| { echo …; exit 0; }``."""
    return words[:words.index("||")] if "||" in words else words


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
            out[key] = _merge_hooks(out[key], value, where=f"{where}{key}.")
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


def _merge_hooks(existing: dict[str, Any], additions: Mapping[str, Any], *, where: str = "hooks.") -> dict[str, Any]:
    out = dict(existing)
    for event, entries in additions.items():
        current = out.get(event)
        if not isinstance(current, list):
            if current is not None:
                raise InputError(f"{where}{event} is not a list; fix it by hand, then run this again")
            out[event] = copy.deepcopy(entries)
            continue
        for own, matcher in ((h, e.get("matcher")) for e in entries if isinstance(e, dict) for h in _own_hooks(e)):
            replacer = _Replacer(own, matcher)
            current = [kept for e in current if (kept := replacer.entry(e)) is not None]
            if not replacer.done:
                current += [copy.deepcopy(e) for e in entries if own["command"] in _commands(e)]
        out[event] = current
    return out


def project_folder(root: str | os.PathLike, doing: str) -> Path:
    """``root`` when it is an existing folder: the project a harness's files go into, or come out
    of. A mistyped project path is refused rather than created (with a ``.baton/`` and hooks that
    no harness session in the real project would ever run).

    Raises:
        InputError: ``root`` does not exist, or is not a folder.
    """
    folder = Path(root)
    if not folder.is_dir():
        why = "it is not a directory" if folder.exists() else "no such directory"
        raise InputError(f"cannot {doing} {folder}: {why}; nothing was written")
    return folder


CONFIG_HOMES = {"claude-code": (".claude", "CLAUDE_CONFIG_DIR"), "codex": (".codex", "CODEX_HOME"),
                "gemini-cli": ("", "GEMINI_CLI_HOME")}
"""Per harness, the folder of the home directory its user-level files are in (``""``: the home
directory itself) and the variable of its own that moves it, as each reads it: Claude Code 2.1 reads
``$CLAUDE_CONFIG_DIR/settings.json`` for ``~/.claude/settings.json``, Codex 0.171 ``$CODEX_HOME/hooks.json``
and ``config.toml`` for ``~/.codex/``, Gemini CLI 0.61 takes ``$GEMINI_CLI_HOME`` for the home
directory itself (``~/.gemini/settings.json`` and ``~/.agents/skills`` under it: its
``packages/core/src/utils/paths.ts`` ``homedir()``). Cursor has none."""


def is_home(folder: str | os.PathLike) -> bool:
    """Whether ``folder`` is the user's home directory (``$HOME``), links resolved: there a harness's
    project files are its user-level configuration (``~/.claude/settings.json``, ``~/.codex/hooks.json``,
    ``~/.gemini/settings.json``, ``~/.cursor/hooks.json``), which it reads in every folder, from where
    the harness's own variable puts it (``moved_home``)."""
    try:
        return os.path.realpath(folder) == os.path.realpath(Path.home())
    except (OSError, RuntimeError):  # no home to be found
        return False


def moved_home(harness: str, relative: str) -> Path | None:
    """Where ``harness`` reads its user-level file ``relative`` (a path of the home directory,
    ``.codex/hooks.json``) when its own variable (``CONFIG_HOMES``) moves it: ``$CODEX_HOME/hooks.json``.
    None when the variable is unset or empty, or does not move that file (``.mcp.json``)."""
    folder, variable = CONFIG_HOMES.get(harness, ("", ""))
    moved = os.environ.get(variable) if variable else None
    if not moved:
        return None
    if not folder:
        return Path(os.path.abspath(moved)) / relative
    head, _, rest = relative.partition("/")
    return Path(os.path.abspath(moved)) / rest if head == folder and rest else None


def located(base: Path, relative: str, harness: str) -> Path:
    """Where ``harness`` reads its file ``relative`` of the folder ``base``: ``base/relative``, except
    when ``base`` is the home directory and the harness's variable moves that file (``moved_home``).
    Checked to stay inside ``base`` (``contained``) unless so moved: the variable names where the
    harness itself reads it."""
    moved = moved_home(harness, relative) if is_home(base) else None
    return moved if moved is not None else contained(base, relative)


def seen_at(base: Path, relative: str, harness: str) -> Path:
    """``located``, unchecked: where ``harness`` reads ``relative`` of ``base``, for reading only."""
    moved = moved_home(harness, relative) if is_home(base) else None
    return moved if moved is not None else base / relative


def shown_path(base: Path, relative: str, harness: str) -> str:
    """How to name ``relative`` of ``base`` to the person: ``relative``, or where the harness's
    variable moved it (``moved_home``), absolute."""
    moved = moved_home(harness, relative) if is_home(base) else None
    return str(moved) if moved is not None else relative


def contained(root: Path, relative: str) -> Path:
    path = root / relative
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(Path(os.path.realpath(root))):
        raise UnsafePath(relative, "outside_root", f"it resolves to {real}, outside the project {root}")
    return path


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise StorageError(f"cannot read {path}: {exc}") from exc


def parse_toml(text: str, where: str) -> dict[str, Any]:
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


def toml_header(line: str) -> list[str] | None:
    """The dotted name of a ``[table]`` header line, or None."""
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
    parsed, wanted = parse_toml(old, where), tomllib.loads(body)
    present = _table(parsed, table)
    if present is not None and all(present.get(k) == v for k, v in wanted.items()):
        return old
    lines = old.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if toml_header(line) == table.split(".")), None)
    if start is None:  # no [table] header: append one (an inline or dotted definition will not parse back)
        head = "" if not old else old + ("\n" if old.endswith("\n") else "\n\n")
        edited = f"{head}[{table}]\n{body}"
    else:
        end = next((i for i in range(start + 1, len(lines)) if toml_header(lines[i]) is not None), len(lines))
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
        hooks = without_hooks(merged["hooks"], set(spec.omitted))
        if hooks or not merged["hooks"]:
            merged["hooks"] = hooks
        else:  # emptied by taking Baton's out: no ``"hooks": {}`` left behind (as ``--remove``)
            del merged["hooks"]
    if old is not None and merged == existing:
        return old
    return orjson.dumps(merged, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"


ORIGINALS = ".baton/install-originals"
"""Where ``install-hooks`` keeps the bytes of each file of the user's it changes (ignored by git,
as all of ``.baton/`` but its config), for ``--remove`` to put back."""


def original_path(project: str | os.PathLike, base: str | os.PathLike, harness: str, relative: str) -> Path | None:
    """Where the original of ``relative`` (a file of the worktree ``base``) is kept: under the
    project's ``.baton/install-originals/HARNESS/``, or, for a linked worktree,
    ``.baton/install-originals/worktrees/KEY/HARNESS/`` (``KEY`` a hash of its path). None when
    that place resolves outside the project (a symlinked ``.baton``): no original is kept or read."""
    folder = ORIGINALS
    if os.path.realpath(base) != os.path.realpath(project):
        key = hashlib.sha256(os.path.realpath(base).encode("utf-8", "surrogateescape")).hexdigest()[:16]
        folder += f"/worktrees/{key}"
    try:
        return contained(Path(project), f"{folder}/{harness}/{relative}")
    except UnsafePath:
        return None


def write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.baton-tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise StorageError(f"cannot write {path}: {exc.strerror or exc}") from exc


def without_hooks(hooks: dict[str, Any], signatures: set[tuple[str, ...]]) -> dict[str, Any]:
    """A ``hooks`` section without the hooks whose command has one of ``signatures``
    (``hook_signature``), and the matcher groups and events that left empty. Every
    other hook, group and event is kept as it is."""
    out = dict(hooks)

    def gone(hook: Any) -> bool:
        return isinstance(hook, dict) and _signature(hook.get("command")) in signatures

    for event in list(out):
        entries = out[event]
        if not isinstance(entries, list):
            continue
        kept, changed = [], False
        for entry in entries:
            if isinstance(entry, dict) and "command" not in entry and isinstance(entry.get("hooks"), list):
                inner = [h for h in entry["hooks"] if not gone(h)]
                if len(inner) != len(entry["hooks"]):
                    changed = True
                    if inner:
                        kept.append({**entry, "hooks": inner})
                    continue
                kept.append(entry)
            elif gone(entry):
                changed = True
            else:
                kept.append(entry)
        if changed:
            if kept:
                out[event] = kept
            else:
                del out[event]
    return out
