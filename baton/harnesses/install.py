"""``baton install-hooks --harness NAME``: write a harness's project-local configuration.

Each adapter lists its files (``HarnessAdapter.configuration``); this module
merges them. Rules:

- **Only inside the project.** Every path is relative to the project root,
  and a path whose real location leaves it (a symlinked ``.claude``) is
  refused (exit 5). Nothing in the home directory is touched.
- **Merging never loses a key.** A JSON file is read, Baton's members are
  added where missing (an existing ``mcpServers.baton`` is kept as the user
  set it), and each hook event's list gains Baton's entry unless an entry
  already runs the same command. A TOML file gains Baton's table at its end
  when the table is absent; nothing else in it is rewritten. A file that
  does not parse is refused (exit 2) rather than overwritten.
- **Idempotent.** Running it again finds every entry present and changes
  nothing.
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
from baton.harnesses.protocol import ConfigFile

DEFAULT_COMMAND = "baton"


@frozen
class FileChange:
    path: str
    action: str
    """created, updated or unchanged."""
    diff: str

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "action": self.action, "diff": self.diff}


@frozen
class InstallResult:
    harness: str
    root: str
    dry_run: bool
    changes: tuple[FileChange, ...]
    initialized: bool = False
    """``baton init`` created ``.baton/`` now."""
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"harness": self.harness, "root": self.root, "dryRun": self.dry_run, "initialized": self.initialized,
                "changed": any(c.action != "unchanged" for c in self.changes),
                "files": [c.to_json() for c in self.changes]}

    def render(self) -> str:
        if self.dry_run:
            diffs = [c.diff for c in self.changes if c.diff]
            return "\n".join(diffs).rstrip("\n") if diffs else f"{self.harness}: already installed; nothing to change"
        verbs = {"created": "created", "updated": "updated", "unchanged": "unchanged"}
        lines = [f"{self.harness}: {verbs[c.action]} {c.path}" for c in self.changes]
        if self.initialized:
            lines.insert(0, f"Initialised a Baton project in {self.root}/.baton")
        return "\n".join(lines)


def merge_json(existing: Mapping[str, Any], additions: Mapping[str, Any], *, depth: int = 2) -> dict[str, Any]:
    """``existing`` with ``additions`` merged in, ``depth`` levels deep: a section
    (``mcpServers``) gains the members it lacks, but an entry already there
    (``mcpServers.baton``) is the user's and is kept whole. Under ``hooks``, each
    event's list gains the new entries whose commands it does not already run."""
    out = copy.deepcopy(dict(existing))
    for key, value in additions.items():
        if key == "hooks" and isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge_hooks(out[key], value)
        elif key not in out:
            out[key] = copy.deepcopy(value)
        elif depth > 1 and isinstance(out[key], dict) and isinstance(value, dict):
            out[key] = merge_json(out[key], value, depth=depth - 1)
    return out


def _commands(entry: Any) -> set[str]:
    """Every command a hook entry (a matcher group or a bare ``{command}``) runs."""
    if not isinstance(entry, dict):
        return set()
    found = {entry["command"]} if isinstance(entry.get("command"), str) else set()
    for hook in entry.get("hooks") or []:
        found |= _commands(hook)
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
        present = set().union(*(_commands(e) for e in current)) if current else set()
        out[event] = current + [copy.deepcopy(e) for e in entries if not _commands(e) <= present]
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


def _toml_has(text: str, table: str, where: str) -> bool:
    import tomllib

    try:
        node: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where} is not valid TOML ({exc}); fix it by hand, then run this again") from None
    for part in table.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def new_text(spec: ConfigFile, old: str | None) -> str:
    """The file's content after Baton's entries are merged into ``old`` (None: no file yet).

    Raises:
        InputError: ``old`` does not parse, or is not a JSON object.
    """
    if spec.text is not None:
        return spec.text
    if spec.toml_table is not None:
        if old is not None and _toml_has(old, spec.toml_table, spec.path):
            return old
        head = "" if not old else old + ("\n" if old.endswith("\n") else "\n\n")
        return f"{head}[{spec.toml_table}]\n{spec.toml_body}"
    import json

    existing: Any = {}
    if old is not None and old.strip():
        try:
            existing = json.loads(old)
        except json.JSONDecodeError as exc:
            raise InputError(f"{spec.path} is not valid JSON ({exc}); fix it by hand, then run this again") from None
        if not isinstance(existing, dict):
            raise InputError(f"{spec.path} is not a JSON object; fix it by hand, then run this again")
    merged = merge_json(existing, spec.merge or {})
    if old is not None and merged == existing:
        return old
    return json.dumps(merged, indent=2, ensure_ascii=False) + "\n"


def install_hooks(root: str | os.PathLike, harness: str, *, dry_run: bool = False,
                  command: str = DEFAULT_COMMAND) -> InstallResult:
    """Merge ``harness``'s configuration into the project at ``root``.

    Raises:
        InputError: an unknown harness, an empty command, or a file that does not parse.
        UnsafePath: a file would land outside the project.
        StorageError: a file cannot be written.
    """
    from baton.harnesses import adapter

    if not command.strip():
        raise InputError("`command` must name the baton program")
    chosen = adapter(harness)
    base = Path(root)
    planned = []
    for spec in chosen.configuration(command.strip()):
        path = _contained(base, spec.path)
        old = _read(path)
        text = new_text(spec, old)
        action = "created" if old is None else ("unchanged" if text == old else "updated")
        diff = "".join(difflib.unified_diff((old or "").splitlines(keepends=True), text.splitlines(keepends=True),
                                            fromfile=f"a/{spec.path}" if old is not None else "/dev/null",
                                            tofile=f"b/{spec.path}"))
        planned.append((path, text, FileChange(spec.path, action, diff)))
    changes = tuple(change for _, _, change in planned)
    if dry_run:
        return InstallResult(harness, str(base), True, changes)
    for path, text, change in planned:
        if change.action != "unchanged":
            _write(path, text)
    from baton.app import Baton

    initialized = Baton.init(base).created
    return InstallResult(harness, str(base), False, changes, initialized)


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.baton-tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise StorageError(f"cannot write {path}: {exc.strerror or exc}") from exc
