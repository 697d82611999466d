"""What ``install-hooks`` left in a project, checked and taken out again.

- ``resolve_program``: where a command's first word is found (``PATH``, or the
  path itself), as a harness running the hook would look for it.
- ``inspect_wiring``: for ``baton doctor``, what of a harness's wiring is there
  (Baton's hooks, in its hooks file or moved by hand into a personal one —
  ``ConfigFile.personal_hooks``, Claude Code's ``settings.local.json`` — and in
  which; its ``baton`` MCP server, its skill and rule files), which program the
  hooks and the server run, and whether it is found. A hook in two files (the
  harness runs both) is a ``warn`` naming both.
- ``remove_wiring``: ``install-hooks --remove``. Takes out exactly Baton's part:
  in each hooks list (a personal file's too) the hooks whose command ends in ``hook HARNESS EVENT``
  (Baton's shape, whatever program runs it) — and a matcher group, an event, a
  ``hooks`` section left empty by that; the MCP server named ``baton`` (a
  ``mcpServers`` left empty goes too; in TOML the ``[mcp_servers.baton]``
  table and its subtables) and the members Baton added to a list (Claude
  Code's ``enabledMcpjsonServers`` approval; a list left empty goes); and the files Baton owns whole (the skill, the
  Cursor rule), with folders left empty by that. A file of the user's that
  ``install-hooks`` changed is put back byte for byte from the original it
  kept (``.baton/install-originals/``) when, without Baton's part, it says the
  same (parsed; a section left empty aside); else, edited since, a JSON file
  left holding only what Baton adds (``{}``, Cursor's ``{"version": 1}``) is
  deleted, and every other key is kept, written back as ``install-hooks``
  writes it (the change's note says so). The skill in
  ``.agents/skills/`` is shared by Codex, Gemini CLI and Cursor: it stays while
  another of them is still wired. Nothing is written with ``dry_run``.
"""

from __future__ import annotations

import copy
import difflib
import os
import re
import shlex
import shutil
import sys
import sysconfig
import tomllib
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import attrs
import orjson

from baton.config import write_bytes_atomic
from baton.domain.start_hooks import started_below
from baton.domain.wording import counted
from baton.errors import BatonError, InputError, StorageError
from baton.harnesses import HARNESSES, adapter
from baton.harnesses.claude_hooks_off import hooks_off
from baton.harnesses.clone_exclude import (
    RECORD,
    ExcludeEdit,
    apply_edit,
    committable,
    plan_unexclude,
    sharing,
    tracked,
)
from baton.harnesses.codex_trust import codex_trust_check
from baton.harnesses.config_text import (
    hook_signature,
    hook_words,
    is_home,
    located,
    moved_home,
    new_text,
    original_path,
    parse_toml,
    project_folder,
    seen_at,
    shown_path,
    toml_header,
    without_hooks,
    write_text,
)
from baton.harnesses.config_text import (
    read_text as read_strict,
)
from baton.harnesses.protocol import (
    AGENTS_SKILL_FILE,
    HOOK_ROLES,
    OPTIONAL_ROLES,
    REQUIRED_ROLES,
    USER_PROMPT,
    ConfigFile,
)
from baton.model import frozen
from baton.project import resolve_worktree

MCP_TABLE = "mcp_servers.baton"


def resolve_program(word: str) -> str | None:
    """Where ``word`` runs from: itself when it is a path to an executable file, else the
    executable ``PATH`` finds; None when neither."""
    path = os.path.expanduser(word)
    if os.sep in path or (os.altsep and os.altsep in path):
        return os.path.abspath(path) if os.path.isfile(path) and os.access(path, os.X_OK) else None
    return shutil.which(path)


def _not_found(program: str) -> str:
    """Why ``resolve_program`` found nothing: a path (a moved or deleted installation) is no
    executable file, a bare name is not on ``PATH``."""
    path = os.path.expanduser(program)
    return ("no such executable file" if os.sep in path or (os.altsep and os.altsep in path)
            else "not found on PATH here")


def running_baton() -> str | None:
    """The absolute path of the ``baton`` program running now, found in order: the console
    script this process was started as (``sys.argv[0]``), the ``baton`` console script of the
    running interpreter's environment (``python -m baton``), the ``baton`` on ``PATH``; None when
    none is an executable file. What ``install-hooks`` writes by default, and the suggestion
    for ``--command`` when a command is not found. A symlink (pipx's ``~/.local/bin/baton``)
    is kept as it is: it outlives an upgrade."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0).split(".")[0] == "baton" and os.path.isfile(argv0) and os.access(argv0, os.X_OK):
        return os.path.abspath(argv0)
    scripts = sysconfig.get_path("scripts")
    for folder in dict.fromkeys(f for f in (scripts, os.path.dirname(sys.executable)) if f):
        found = shutil.which("baton", path=folder)
        if found:
            return os.path.abspath(found)
    found = shutil.which("baton")
    return os.path.abspath(found) if found else None


RELAY_CODE = "from baton.launch import run; run()"
"""What the hooks' interpreter runs (``relay_command``): the ``baton`` program's entry point."""


def relay_command(program: str | None) -> str | None:
    """The default hooks' command line: the interpreter of ``program`` — this
    installation's ``baton`` console script — running the ``baton`` program's
    entry point directly (``python -P -c 'from baton.launch import run; run()'``),
    which is the same program without the ~6 ms the console script's wrapper
    spends importing ``re`` at every hook. None when ``program`` is not such a
    script (another launcher, a shell script, an interpreter found through
    ``env``, pip's ``#!/bin/sh`` script for a path with spaces): the hooks
    then run ``program`` itself. ``-P``: the project's
    folder is not put on the module path (a ``baton/`` folder there is not
    imported in Baton's place)."""
    if program is None:
        return None
    try:
        with open(program, "rb") as script:
            head = script.read(4096)
    except OSError:
        return None
    first, _, body = head.partition(b"\n")
    interpreter = first[2:].decode("utf-8", "replace").strip() if first.startswith(b"#!") else ""
    if not (os.path.isabs(interpreter) and " " not in interpreter
            and os.path.basename(interpreter).startswith("python") and os.path.isfile(interpreter)
            and os.access(interpreter, os.X_OK) and b"from baton.launch import run" in body):
        return None  # e.g. pip's `#!/bin/sh` + `exec` lines, for a path with spaces or too long for `#!`
    return shlex.join([interpreter, "-P", "-c", RELAY_CODE])


def suggestion() -> str:
    """The ``--command`` value to suggest."""
    found = running_baton()
    return shlex.quote(found) if found else "/absolute/path/to/baton"


def not_found_warning(program: str, harness: str, committed: tuple[str, ...] = ()) -> str:
    """One line: the program the wiring runs is not found, and what to pass instead. ``committed``: the
    tracked files the portable command was kept from (``install.default_wiring``): then only ``PATH``
    is offered, as ``baton doctor`` offers it (``committed_fix``)."""
    where = "is not found on PATH here" if _not_found(program).endswith("PATH here") else "is no executable file here"
    if _bare(program) and committed:
        return (f"warning: `{program}` {where}, so {harness} would not find it either and Baton's hooks would "
                f"do nothing; {committed_fix([program], committed)}")
    if _bare(program):  # the portable form given: PATH is the fix
        return (f"warning: `{program}` {where}, so {harness} would not find it either and Baton's hooks would "
                f"do nothing; put `{program}` on PATH here (--command baton, the portable form for files a team "
                f"commits, needs it there), or pass "
                f"--command {suggestion()} to write this machine's path instead")
    return (f"warning: `{program}` {where}, so {harness} would not find it either and Baton's "
            f"hooks would do nothing; pass --command {suggestion()} (or put `baton` on PATH: --command baton "
            "is the portable form, for files a team commits)")


def rerun(harness: str, command: str | None = None, events: str | None = None) -> str:
    """The exact command that rewires ``harness``: run by the ``baton`` running now (its absolute
    path, which needs no ``PATH``), with ``--command`` when ``command`` (the one to keep, such as
    the portable ``baton``) is not what it writes by default, and ``--events`` when ``events``
    (the wired ones to keep, ``HarnessWiring.events_option``) is given: without it,
    ``install-hooks`` would take out an optional hook the user opted into."""
    me = running_baton()
    line = f"{shlex.quote(me) if me else 'baton'} install-hooks --harness {harness}"
    if events is not None:
        line += f" --events {events}"
    words = shlex.split(command) if command is not None else []
    if words and command is not None and words != [me or "baton"]:
        line += f" --command {shlex.quote(words[0] if len(words) == 1 else command)}"
    return line


# -- reading what is there ---------------------------------------------------------------

def _hook_prefix(line: str) -> list[str]:
    """A hook command line's words before ``hook HARNESS EVENT`` (and the non-blocking suffix)."""
    return hook_words(shlex.split(line))[:-3]


def _signature(command: Any) -> tuple[str, ...] | None:
    return hook_signature(command)


def _program(command: str) -> str:
    return shlex.split(command)[0]


def _is_batons(hook: Any, harness: str, events: set[str]) -> bool:
    signature = _signature(hook.get("command")) if isinstance(hook, dict) else None
    return signature is not None and signature[1] == harness and signature[2] in events


def baton_hooks(config: dict[str, Any], harness: str, events: set[str]) -> dict[str, list[str]]:
    """Per event, the command lines of Baton's hooks for ``harness`` in a parsed hooks file."""
    found: dict[str, list[str]] = {}
    for event, hook in _each_hook(config):
        if _is_batons(hook, harness, events):
            found.setdefault(event, []).append(hook["command"])
    return found


def _each_hook(config: dict[str, Any]) -> list[tuple[str, Any]]:
    """Each hook of a parsed hooks file with its event: in a matcher group's ``hooks`` or a list's own member."""
    hooks = config.get("hooks")
    found = []
    for event, entries in hooks.items() if isinstance(hooks, dict) else ():
        for entry in entries if isinstance(entries, list) else []:
            inner = entry.get("hooks") if isinstance(entry, dict) and "command" not in entry else [entry]
            found += [(event, hook) for hook in (inner if isinstance(inner, list) else [])]
    return found


def _hand_edited(command: Any, harness: str) -> bool:
    """Whether ``command`` runs ``hook HARNESS`` after a program as Baton's line does, but with
    words Baton's own does not have (``--verbose`` after the event, no event): not Baton's shape
    (``hook_signature``), so ``install-hooks`` keeps it beside Baton's own and the harness runs both."""
    if not isinstance(command, str) or hook_signature(command) is not None:
        return False
    try:
        words = hook_words(shlex.split(command))
    except ValueError:
        return False
    return any(words[i] == "hook" and words[i + 1] == harness for i in range(1, len(words) - 1))


def hand_edited_hooks(base: Path, harness: str) -> dict[str, list[str]]:
    """Per hooks file of ``harness`` under ``base``, its hand-edited Baton hook lines (``_hand_edited``)."""
    found: dict[str, list[str]] = {}
    for spec in _specs(harness):
        if spec.text is not None or spec.merge is None or not ("hooks" in spec.merge or spec.personal_hooks):
            continue
        for _, hook in _each_hook(_json(_read(seen_at(base, spec.path, harness))) or {}):
            if isinstance(hook, dict) and _hand_edited(hook.get("command"), harness):
                found.setdefault(spec.path, []).append(hook["command"])
    return found


def hand_edited_check(base: Path, harness: str) -> tuple[str, str, str] | None:
    """``baton doctor``'s warning naming each hand-edited Baton hook line of ``harness`` (``_hand_edited``), or None."""
    found = hand_edited_hooks(base, harness)
    if not found:
        return None
    lines = "; ".join(f"{path}: {', '.join(f'`{line}`' for line in lines)}" for path, lines in found.items())
    one = sum(len(lines) for lines in found.values()) == 1
    return (f"harness {harness} (hand-edited hooks)", "warn",
            f"{lines}: {'this line runs' if one else 'these lines run'} Baton's hook with words Baton does not "
            f"read (Baton's own line ends `hook {harness} EVENT`, so install-hooks keeps "
            f"{'it' if one else 'them'}): each run only leaves a notice that its command line is not one Baton "
            f"reads, and beside Baton's own hook {harness} runs Baton twice; delete {'it' if one else 'them'} "
            "by hand")


def _lets_through(matcher: Any, value: str) -> bool:
    """Whether a hook group's ``matcher`` runs its hooks for ``value`` (a start's source, a
    compaction's trigger), as the harnesses read one: none, ``""`` or ``*`` lets everything
    through, ``a|b`` is a list of exact values, anything else a regular expression (one that
    does not compile is given the benefit of the doubt)."""
    if not isinstance(matcher, str) or matcher in ("", "*"):
        return True
    if re.fullmatch(r"[\w|]+", matcher):
        return value in matcher.split("|")
    try:
        return re.search(matcher, value) is not None
    except re.error:
        return True


def _narrow_matchers(config: dict[str, Any], harness: str) -> dict[str, tuple[str, ...]]:
    """Per event, the values ``install-hooks`` lets through that the matcher of a group holding
    Baton's hook alone leaves out (an install made before a harness added a source, such as
    Claude Code's ``fork``). Only such a group: it is the one ``install-hooks`` updates."""
    found: dict[str, tuple[str, ...]] = {}
    hooks = config.get("hooks")
    if not isinstance(hooks, dict):
        return found
    for hook in adapter(harness).hooks:
        wanted = hook.matcher.split("|") if hook.matcher else []
        entries = hooks.get(hook.event)
        for entry in entries if wanted and isinstance(entries, list) else []:
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            if not isinstance(inner, list) or len(inner) != 1 or not _is_batons(inner[0], harness, {hook.event}):
                continue
            left = tuple(value for value in wanted if not _lets_through(entry.get("matcher"), value))
            if left:
                found[hook.event] = left
    return found


def _shared_narrow_matchers(config: dict[str, Any], harness: str, path: str) -> tuple[str, ...]:
    """What to change by hand, one phrase each, for a group that runs Baton's hook beside
    other hooks with a matcher that leaves out a value ``install-hooks`` lets through now
    (``_narrow_matchers``' case, in a group the user shares: ``install-hooks`` leaves it as it
    is, the user's hooks being under the same matcher)."""
    found: list[str] = []
    hooks = config.get("hooks")
    if not isinstance(hooks, dict):
        return ()
    for hook in adapter(harness).hooks:
        wanted = hook.matcher.split("|") if hook.matcher else []
        entries = hooks.get(hook.event)
        for entry in entries if wanted and isinstance(entries, list) else []:
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            if not isinstance(inner, list) or len(inner) < 2 or not any(
                    _is_batons(one, harness, {hook.event}) for one in inner):
                continue
            left = tuple(value for value in wanted if not _lets_through(entry.get("matcher"), value))
            if left:
                others = sum(1 for one in inner if not _is_batons(one, harness, {hook.event}))
                found.append(f"the {hook.event} group in {path} that runs Baton's hook beside "
                             f"{counted(others, 'hook')} of yours has matcher `{entry.get('matcher')}`, which leaves out "
                             f"{', '.join(left)} (such a session gets no brief): add {'|'.join(left)} to that "
                             "matcher by hand (install-hooks leaves a group it shares with your hooks as it is)")
    return tuple(found)


def _json(text: str | None) -> dict[str, Any] | None:
    if text is None or not text.strip():
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _toml(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _mcp_entry(spec: ConfigFile, text: str | None) -> dict[str, Any] | None:
    if spec.toml_table is not None:
        parsed = _toml(text) or {}
        server = (parsed.get("mcp_servers") or {}).get("baton") if isinstance(parsed.get("mcp_servers"), dict) else None
    else:
        servers = (_json(text) or {}).get("mcpServers")
        server = servers.get("baton") if isinstance(servers, dict) else None
    return server if isinstance(server, dict) else None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _specs(harness: str) -> list[ConfigFile]:
    return adapter(harness).configuration("baton")


def _events(harness: str) -> set[str]:
    return {hook.event for hook in adapter(harness).hooks}


@frozen
class HarnessWiring:
    """What of one harness's wiring a project holds."""

    harness: str
    hooks: dict[str, list[str]]
    """Per event, Baton's hook command lines."""
    missing_events: tuple[str, ...]
    """The events a baton needs (start, end) without Baton's hook."""
    mcp: dict[str, Any] | None
    """Baton's MCP server entry (``command``, ``args``…), if there."""
    owned: dict[str, str]
    """Each file Baton owns whole: ``current``, ``outdated`` or ``missing``."""
    broken: dict[str, str] = attrs.field(factory=dict)
    """Each configuration file that is there but cannot be read or updated (it does not parse,
    it is not a JSON object, ``install-hooks`` would refuse it), with why, in one phrase."""
    left_out: tuple[str, ...] = ()
    """The optional events (compaction, prompt) without Baton's hook: ``install-hooks --events``
    leaves them out on purpose, so no gap."""
    narrow: dict[str, tuple[str, ...]] = attrs.field(factory=dict)
    """Per event, what the matcher of Baton's hook leaves out that ``install-hooks`` now lets
    through (``_narrow_matchers``): a session that starts so gets no brief."""
    shared_narrow: tuple[str, ...] = ()
    """The same in a group Baton's hook shares with the user's hooks, which ``install-hooks``
    leaves as it is: what to change by hand, one phrase each (``_shared_narrow_matchers``)."""
    hook_files: dict[str, tuple[str, ...]] = attrs.field(factory=dict)
    """Per event, the files Baton's hook is in (more than one: ``duplicated``)."""
    personal: tuple[str, ...] = ()
    """The harness's files of the person's own that may hold Baton's hooks instead of its hooks
    file (``ConfigFile.personal_hooks``: Claude Code's ``.claude/settings.local.json``)."""
    narrow_in: dict[str, str] = attrs.field(factory=dict)
    """Per event of ``narrow``, the personal file its matcher is in (none: the hooks file)."""
    file_hooks: dict[str, tuple[str, ...]] = attrs.field(factory=dict)
    """Per file holding any, Baton's hook command lines in it."""
    unapproved: tuple[str, ...] = ()
    """The clone's own files (``ConfigFile.clone_only``) that lack what Baton merges into them:
    Claude Code's ``.claude/settings.local.json`` without ``baton`` in ``enabledMcpjsonServers``
    (a teammate's clone, a linked worktree: the file is never committed), where the server in
    ``.mcp.json`` is not approved and ``claude -p`` offers none of Baton's tools."""

    def duplicated(self) -> dict[str, tuple[str, ...]]:
        """Per event, the files holding Baton's hook when more than one does (the hooks file and a
        personal file: the harness runs an identical command line once, two different ones both,
        the second Baton process answering with nothing)."""
        return {event: paths for event, paths in self.hook_files.items() if len(set(paths)) > 1}

    def personal_files(self) -> tuple[str, ...]:
        """The personal files that hold any of Baton's hooks, in order."""
        return tuple(path for path in self.personal if any(path in paths for paths in self.hook_files.values()))

    @property
    def wired(self) -> bool:
        """Whether anything of Baton's that only this harness uses is there (its hooks, its server, its rule)."""
        return bool(self.hooks) or self.mcp is not None or any(
            state != "missing" for path, state in self.owned.items() if path != AGENTS_SKILL_FILE)

    def command(self, path: str | None = None) -> str | None:
        """The command line the hooks run, before ``hook HARNESS EVENT`` (the first hook's; of
        those in ``path`` when given); None without a hook, or when the hooks run a ``baton``'s
        interpreter directly (``relay_command``), which is what ``install-hooks`` writes without
        ``--command``."""
        lines = self.file_hooks.get(path, ()) if path is not None else \
            [line for lines in self.hooks.values() for line in lines]
        for line in lines:
            prefix = _hook_prefix(line)
            return None if prefix[-3:] == ["-P", "-c", RELAY_CODE] else shlex.join(prefix)
        return None

    def commands_in(self, path: str) -> tuple[str, ...]:
        """The distinct command lines Baton's hooks in ``path`` run, before ``hook HARNESS EVENT``."""
        return tuple(dict.fromkeys(shlex.join(_hook_prefix(line)) for line in self.file_hooks.get(path, ())))

    def events_option(self) -> str | None:
        """The ``--events`` value that wires again the events wired now (the required ones
        always, an optional one when its hook is there): ``all``, a list, or None when it is
        the default (``install-hooks`` without ``--events`` wires the same)."""
        chosen = adapter(self.harness)
        return _events_value(chosen, {chosen.role(hook) for hook in chosen.hooks if hook.event in self.hooks})

    def unkept_prompt(self) -> tuple[str, ...]:
        """The prompt hook's events not wired here — its prompt's and, in Claude Code, its turn's end's
        (``TURN_END``) — when the harness's default wires them (Claude Code, Gemini CLI:
        ``CommandHookAdapter.default_roles``): an install made before they were the default, or an
        ``--events`` that leaves them out. Empty otherwise."""
        chosen = adapter(self.harness)
        if "prompt" not in chosen.default_roles():
            return ()
        return tuple(hook.event for hook in chosen.hooks if chosen.role(hook) == "prompt" and hook.event in self.left_out)

    def prompt_hint(self, command: str | None) -> str | None:
        """When ``unkept_prompt``: one phrase saying what its absence costs and the command that adds
        it, keeping the other events wired and ``command``. None otherwise. Without the prompt's own
        hook no start leaves a mark, so a turn's end missing too is not named apart."""
        events = self.unkept_prompt()
        if not events:
            return None
        chosen = adapter(self.harness)
        roles = {chosen.role(hook) for hook in chosen.hooks if hook.event in self.hooks} | {"prompt"}
        prompt = next(event for event, kind in chosen.kinds.items() if kind == USER_PROMPT)
        if prompt in events:
            named, cost = prompt, "is spent when the session is closed before its first prompt"
        else:  # a turn's ends (Claude Code's Stop, then Interrupt, both wired by default since 2026-12-07)
            named = ", ".join(events)
            cost = ("reaches the next session too when the session's first input runs no prompt hook (bash mode, "
                    "`! cmd`)" + (" and the person stops its turn (Esc)" if events == ("Interrupt",) else ""))
        return (f"no hook for {named}, so a baton a session claims at its start {cost}; "
                f"`{rerun(self.harness, command, _events_value(chosen, roles))}` adds "
                f"{'it' if len(events) == 1 or prompt in events else 'them'} (wired by default since 2026-12-07)")

    def programs(self) -> list[str]:
        """The programs the hooks and the MCP server run, each once, in order."""
        found = [_program(line) for lines in self.hooks.values() for line in lines]
        if self.mcp is not None and isinstance(self.mcp.get("command"), str):
            found.append(self.mcp["command"])
        return list(dict.fromkeys(found))


def _events_value(chosen: Any, roles: set[str]) -> str | None:
    """The ``--events`` value that wires ``roles`` (and the required ones): ``all``, a list, or None
    when ``install-hooks`` without ``--events`` wires the same for ``chosen``."""
    kept = tuple(role for role in HOOK_ROLES if role in REQUIRED_ROLES or role in roles)
    offered = {chosen.role(hook) for hook in chosen.hooks}
    if {role for role in kept if role in offered} == {role for role in chosen.default_roles() if role in offered}:
        return None
    return "all" if kept == tuple(HOOK_ROLES) else ",".join(kept)


def inspect_wiring(base: str | os.PathLike, harness: str) -> HarnessWiring:
    """What of ``harness``'s wiring the files under ``base`` hold (never raises on a bad file: it
    is listed in ``broken`` and counts as holding nothing)."""
    root = Path(base)
    events = _events(harness)
    hooks: dict[str, list[str]] = {}
    mcp = None
    owned: dict[str, str] = {}
    broken: dict[str, str] = {}
    narrow: dict[str, tuple[str, ...]] = {}
    narrow_in: dict[str, str] = {}
    files: dict[str, list[str]] = {}
    file_hooks: dict[str, tuple[str, ...]] = {}
    shared: tuple[str, ...] = ()
    unapproved: tuple[str, ...] = ()
    for spec in _specs(harness):
        path = seen_at(root, spec.path, harness)
        text = _read(path)
        if spec.text is not None:
            owned[spec.path] = "missing" if text is None else ("current" if text == spec.text else "outdated")
            continue
        problem = _problem(path, spec, text)
        if problem is not None:
            broken[spec.path] = problem
            continue
        if spec.merge is not None and ("hooks" in spec.merge or spec.personal_hooks):
            config = _json(text) or {}
            for event, lines in baton_hooks(config, harness, events).items():
                hooks.setdefault(event, []).extend(lines)
                files.setdefault(event, []).append(spec.path)
                file_hooks[spec.path] = file_hooks.get(spec.path, ()) + tuple(lines)
            for event, values in _narrow_matchers(config, harness).items():
                narrow[event] = values
                if spec.personal_hooks:
                    narrow_in[event] = spec.path
            shared += _shared_narrow_matchers(config, harness, spec.path)
        if spec.toml_table is not None or (spec.merge and "mcpServers" in spec.merge):
            mcp = mcp or _mcp_entry(spec, text)
        if spec.clone_only and spec.merge is not None and not _merged_lists_there(spec.merge, _json(text) or {}):
            unapproved += (spec.path,)
    chosen = adapter(harness)
    absent = [hook for hook in chosen.hooks if hook.event not in hooks]
    missing = tuple(hook.event for hook in absent if chosen.role(hook) not in OPTIONAL_ROLES)
    left_out = tuple(hook.event for hook in absent if chosen.role(hook) in OPTIONAL_ROLES)
    personal = tuple(spec.path for spec in _specs(harness) if spec.personal_hooks)
    return HarnessWiring(harness, hooks, missing, mcp, owned, broken, left_out, narrow, shared,
                         {event: tuple(paths) for event, paths in files.items()}, personal, narrow_in, file_hooks,
                         unapproved)


def installed_before(base: str | os.PathLike, harness: str) -> bool:
    """Whether ``install-hooks`` has wired ``harness`` in the worktree ``base`` before, as its files
    show: Baton's hooks, or a file Baton owns whole for it alone (the shared skill aside, as in
    ``HarnessWiring.wired``). A ``baton`` MCP server alone is not such a sign: a person may have
    written one, and an install that changes the file keeps it for ``--remove`` to give back
    (tester28 T2)."""
    wiring = inspect_wiring(base, harness)
    return bool(wiring.hooks) or any(state != "missing" for path, state in wiring.owned.items()
                                     if path != AGENTS_SKILL_FILE)


APPROVE_ALL = "enableAllProjectMcpServers"
"""Claude Code's switch approving every server of ``.mcp.json`` at once (in the clone's own settings)."""


def _merged_lists_there(merge: Mapping[str, Any], config: dict[str, Any]) -> bool:
    """Whether ``config`` holds every member of each list ``merge`` adds to (``enabledMcpjsonServers``:
    ``baton``), or approves every server (``APPROVE_ALL``)."""
    if config.get(APPROVE_ALL) is True:
        return True
    for key, value in merge.items():
        if isinstance(value, list):
            there = config.get(key)
            if not isinstance(there, list) or any(member not in there for member in value):
                return False
    return True


def _bare(program: str) -> bool:
    """Whether ``program`` is a bare name found on ``PATH`` (``baton``, the portable form
    ``--command baton`` writes for files a team commits), not a path (this machine's)."""
    return not (os.sep in os.path.expanduser(program) or (os.altsep and os.altsep in program))


def committed_portable(base: str | os.PathLike, harness: str) -> tuple[str, tuple[str, ...]] | None:
    """The command line Baton's hooks for ``harness`` in the worktree ``base`` run and the wiring files
    git tracks, when that command is the portable form (its program a bare name: ``_bare``) and git
    tracks any of them: a team's committed ``--command baton`` wiring, which ``install-hooks``
    without ``--command`` keeps rather than write this machine's absolute path into what the team
    shares (tester28 T4), and which ``baton doctor`` says to put on ``PATH`` (``lost_program_fix``,
    tester26 T8). None otherwise."""
    wiring = inspect_wiring(base, harness)
    command = wiring.command()
    if command is None or not _bare(_program(command)):
        return None
    committed = _committed(Path(base), harness, wiring)
    return (command, tuple(committed)) if committed else None


def lost_program_fix(wiring: HarnessWiring, lost: list[str], committed: list[str]) -> str:
    """What ``baton doctor`` says to run when the wiring's ``lost`` programs are not found. A bare
    name (``_bare``) is put on ``PATH``: when git tracks the wiring files (``committed``: the case of
    ``committed_portable``), only ``PATH`` is offered — rewiring them with this machine's absolute
    path would write it into what the team shares (tester26 T8) — and the ``install-hooks`` that keeps the
    committed command line. Else, or for a path, the ``baton`` running the check rewires it, writing
    its absolute path."""
    harness, events = wiring.harness, wiring.events_option()
    bare = [p for p in lost if _bare(p)]
    if bare and committed:
        return committed_fix(bare, committed, rerun(harness, wiring.command() or bare[0], events))
    on_path = f"put {' and '.join(f'`{p}`' for p in bare)} on PATH, or " if bare else ""
    if running_baton():
        return f"{on_path}run `{rerun(harness, events=events)}` (it writes that baton's absolute path)"
    return (f"put `baton` on PATH, or run `/absolute/path/to/baton install-hooks --harness {harness}"
            f"{f' --events {events}' if events else ''}` (it writes that baton's absolute path)")


def committed_fix(bare: list[str], committed: list[str] | tuple[str, ...], keeping: str | None = None) -> str:
    """What to do when the portable ``bare`` programs that the tracked files ``committed`` run are not
    found here (``lost_program_fix``, ``not_found_warning``): put them on ``PATH``, not rewire the files
    with this machine's absolute path (``keeping``: the ``install-hooks`` line that keeps them)."""
    names = " and ".join(f"`{p}`" for p in bare)
    kept = f"`{keeping}` keeps the committed command line; " if keeping else ""
    return (f"put {names} on PATH here: {' and '.join(committed)} {'is' if len(committed) == 1 else 'are'} "
            f"committed with the portable {names}, which `install-hooks` keeps ({kept}only a `--command` naming "
            f"this machine's absolute path would write it into {'it' if len(committed) == 1 else 'them'})")


def _problem(path: Path, spec: ConfigFile, text: str | None) -> str | None:
    """Why a configuration file that is there cannot be read or updated, in one phrase; None when
    it is absent or fine."""
    if text is None:
        if not path.is_file():
            return None
        return "cannot be read as UTF-8 text"
    if spec.toml_table is not None:
        try:
            tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            return f"does not parse as TOML ({exc})"
    elif text.strip():
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            comments = "; if it holds comments, Baton cannot read or update it" if "//" in text or "/*" in text else ""
            return f"does not parse as JSON ({exc}){comments}"
        if not isinstance(value, dict):
            return f"is not a JSON object (it holds a {type(value).__name__})"
    try:
        new_text(spec, text)
    except InputError as exc:
        return f"cannot be updated by `baton install-hooks` ({exc.message})"
    return None


def wiring_check(wiring: HarnessWiring, committed: Callable[[], list[str]] | None = None) -> tuple[str, str]:
    """``baton doctor``'s verdict on one wired harness: (status, detail) — ``fail`` when one of its
    configuration files is there but does not parse (or ``install-hooks`` would refuse it), naming
    the file, or when a program the hooks or the server run is not found, ``warn`` when a part is missing or outdated, each
    saying what to run. ``committed``: the harness's wiring files git tracks here, asked only when
    a program is not found (``lost_program_fix``)."""
    harness = wiring.harness
    if wiring.broken:
        files = "; ".join(f"{path} {problem}" for path, problem in wiring.broken.items())
        return "fail", (f"{files}: Baton can neither check nor update {harness}'s wiring there; fix it by hand "
                        "(or move it aside), then run `baton doctor` again")
    lost = [program for program in wiring.programs() if resolve_program(program) is None]
    if lost:
        return "fail", (f"runs {', '.join(f'`{p}` ({_not_found(p)})' for p in lost)}: its hooks do nothing; "
                        + lost_program_fix(wiring, lost, committed() if committed is not None else []))
    gaps = []
    duplicated = wiring.duplicated()
    keep_command, alternatives = wiring.command(), ""
    if duplicated:
        both = sorted({path for paths in duplicated.values() for path in paths},
                      key=lambda path: (path in wiring.personal, path))
        kept = next((path for path in both if path in wiring.personal), both[-1])
        differ = [event for event in duplicated if len(set(wiring.hooks.get(event, ()))) > 1]
        runs = (f"the same command line in both, so {harness} runs each once" if not differ else
                f"with different command lines, so {harness} runs both: a second Baton process for "
                f"{'each event' if len(differ) == len(duplicated) else ', '.join(differ)}, which answers with "
                f"nothing")
        named = both
        if differ:  # each file with the command line its copies run, and the fix that keeps either
            named = [f"{path} (runs {' and '.join(f'`{c}`' for c in wiring.commands_in(path))})" for path in both]
            keep_command = wiring.command(kept)
            events = wiring.events_option()
            alternatives = "".join(f" to keep {kept}'s command line, or `{rerun(harness, wiring.command(path), events)}`"
                                   f" to keep {path}'s" for path in both if path != kept)
        gaps.append(f"Baton's {', '.join(duplicated)} {'hook is' if len(duplicated) == 1 else 'hooks are'} in both "
                    f"{' and '.join(named)} ({runs}; still one brief and one claim); install-hooks keeps the ones "
                    f"in {kept} and takes the other copies out")
    if wiring.missing_events:
        gaps.append(f"no Baton hook for {', '.join(wiring.missing_events)}")
    if wiring.mcp is None:
        gaps.append("no `baton` MCP server")
    elif wiring.unapproved:
        gaps.append(f"the `baton` MCP server is not approved in this clone ({', '.join(wiring.unapproved)} does not "
                    f"list it: that file is each clone's own, never committed), so {harness} asks before starting "
                    "it and a headless session offers none of Baton's tools")
    gaps += [f"the {event} hook's matcher"
             f"{f' in {wiring.narrow_in[event]}' if event in wiring.narrow_in else ''} leaves out "
             f"{', '.join(values)} (such a session gets no brief)" for event, values in wiring.narrow.items()]
    gaps += [f"{path} {state}" for path, state in wiring.owned.items() if state != "current"]
    hint = wiring.prompt_hint(keep_command)  # never a gap of its own: a hint beside the verdict
    if gaps:
        by_hand = "".join(f"; {phrase}" for phrase in wiring.shared_narrow)
        return "warn", (f"{'; '.join(gaps)}; run `{rerun(harness, keep_command, wiring.events_option())}`"
                        f"{alternatives}{by_hand}{f'; {hint}' if hint else ''}")
    if wiring.shared_narrow:
        return "warn", "; ".join(wiring.shared_narrow) + (f"; {hint}" if hint else "")
    hooks = sum(len(lines) for lines in wiring.hooks.values())
    programs = ", ".join(resolve_program(p) or p for p in wiring.programs())
    chosen = [event for event in wiring.left_out if event not in wiring.unkept_prompt()]
    said = ([f"no hook for {', '.join(chosen)}: left out, see --events"] if chosen else []) + ([hint] if hint else [])
    left_out = f" ({'; '.join(said)})" if said else ""
    where = ""
    if wiring.personal_files():  # said only when not where install-hooks writes them
        found = sorted({path for paths in wiring.hook_files.values() for path in paths},
                       key=lambda path: (path in wiring.personal, path))
        where = f" in {' and '.join(found)}"
    return "ok", f"{counted(hooks, 'hook')}{where}{left_out} and the `baton` MCP server run {programs}; skill current"


# -- taking it out ---------------------------------------------------------------------------

@frozen
class Removal:
    path: str
    action: str
    """updated, deleted, unchanged, or kept (a shared file another harness still uses, or an
    ``info/exclude`` that could not be edited)."""
    diff: str
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"path": self.path, "action": self.action, "diff": self.diff}
        if self.note:
            out["note"] = self.note
        return out


@frozen
class RemoveResult:
    harness: str
    root: str
    dry_run: bool
    changes: tuple[Removal, ...]
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"harness": self.harness, "root": self.root, "dryRun": self.dry_run, "removed": True,
                "changed": any(c.action in ("updated", "deleted") for c in self.changes),
                "files": [c.to_json() for c in self.changes]}

    def render(self) -> str:
        if self.dry_run:
            diffs = [c.diff for c in self.changes if c.diff]
            kept = [f"# keep {c.path} ({c.note})" for c in self.changes if c.action == "kept"]
            text = "\n".join(diffs).rstrip("\n") if diffs else f"{self.harness}: nothing of Baton's to remove"
            return "\n".join([text, *kept])
        lines = [f"{self.harness}: {c.action} {c.path}" + (f" ({c.note})" if c.note else "")
                 for c in self.changes if c.action != "unchanged"]
        return "\n".join(lines) or f"{self.harness}: nothing of Baton's to remove"


def _without_batons_json(config: dict[str, Any], spec: ConfigFile, harness: str) -> dict[str, Any] | None:
    """``config`` without Baton's hooks and ``baton`` server; None when nothing of the user's
    is left (only what Baton's merge adds, such as Cursor's ``version``)."""
    out = _stripped_json(config, spec, harness)
    merge = spec.merge or {}
    leftover = {k: v for k, v in out.items() if not (k in merge and merge[k] == v)}
    if not leftover and out != config:
        return None
    return out


def _stripped_json(config: dict[str, Any], spec: ConfigFile, harness: str) -> dict[str, Any]:
    """``config`` without Baton's hooks, ``baton`` server and list members (and what that left empty)."""
    out = copy.deepcopy(config)
    events = _events(harness)
    merge = spec.merge or {}
    if ("hooks" in merge or spec.personal_hooks) and isinstance(out.get("hooks"), dict):
        hooks = without_hooks(out["hooks"], {("hook", harness, event) for event in events})
        if hooks != out["hooks"] and not hooks:
            del out["hooks"]
        else:
            out["hooks"] = hooks
    if "mcpServers" in merge and isinstance(out.get("mcpServers"), dict) and "baton" in out["mcpServers"]:
        del out["mcpServers"]["baton"]
        if not out["mcpServers"]:
            del out["mcpServers"]
    for key, members in merge.items():  # a list Baton adds members to (enabledMcpjsonServers): take them out
        if isinstance(members, list) and isinstance(out.get(key), list) and any(m in out[key] for m in members):
            out[key] = [m for m in out[key] if m not in members]
            if not out[key]:
                del out[key]
    return out


def _toml_without_baton(old: str, where: str) -> str | None:
    """``old`` without ``[mcp_servers.baton]`` and its subtables; None when nothing else is left.

    Raises:
        InputError: the table is defined in a way Baton cannot take out line by line (inline,
            or as dotted keys), or ``old`` does not parse.
    """
    parsed = parse_toml(old, where)
    servers = parsed.get("mcp_servers")
    if not isinstance(servers, dict) or "baton" not in servers:
        return old
    lines = old.splitlines(keepends=True)
    kept: list[str] = []
    skipping = False
    pending: list[str] = []  # comments (and blank lines) after the last key of Baton's table

    def comments_kept() -> None:
        # A comment after Baton's last key heads what follows (a teammate's table, the file's end):
        # it is not Baton's, so it stays (tester harness15 G5); the blank lines before it do not.
        block = pending[next((i for i, line in enumerate(pending) if line.strip()), len(pending)):]
        kept.extend(block)
        pending.clear()

    for line in lines:
        header = toml_header(line)
        was = skipping
        if header is not None:
            skipping = header[:2] == ["mcp_servers", "baton"]
        elif line.lstrip().startswith("[["):  # an array of tables ends the table before it
            skipping = False
        if was and not skipping:
            comments_kept()
        if not skipping:
            kept.append(line)
        elif header is None and (not line.strip() or line.lstrip().startswith("#")):
            pending.append(line)
        else:
            pending.clear()
    trailing = skipping and any(line.strip() for line in pending)
    comments_kept()
    text = "".join(kept)
    if skipping and not trailing and text.endswith("\n\n"):
        text = text[:-1]  # the blank line install-hooks put before the table it appended
    expected = {k: v for k, v in parsed.items()}
    expected["mcp_servers"] = {k: v for k, v in servers.items() if k != "baton"}

    def normal(value: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in value.items() if not (k == "mcp_servers" and v == {})}

    try:
        edited = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        edited = None
    if edited is None or normal(edited) != normal(expected):
        raise InputError(f"{where}: cannot take [{MCP_TABLE}] out in place; delete it by hand",
                         details={"path": where, "table": MCP_TABLE})
    return text if text.strip() else None


def holds_batons(spec: ConfigFile, text: str | None, harness: str) -> bool:
    """Whether a merged file's ``text`` holds any of Baton's part (``--remove`` would change it);
    True too when that cannot be told (it does not parse, its table is not one Baton can take out)."""
    if text is None:
        return False
    try:
        if spec.toml_table is not None:
            return _toml_without_baton(text, spec.path) != text
        return _json_removed(text, spec, harness) != text
    except InputError:
        return True


def _pruned(value: Any) -> Any:
    """``value`` without the empty objects and lists inside it (``--remove`` drops a section it emptied)."""
    if isinstance(value, dict):
        kept = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if not (isinstance(v, (dict, list)) and not v)}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def _restorable(spec: ConfigFile, harness: str, old: str, new: str | None, original: bytes) -> str | None:
    """The file as it was before ``install-hooks`` changed it (``original``'s text), when the file
    without Baton's part (``old`` after removal: ``new``) says the same as the original without it
    (a ``baton`` server the user wrote before the install: ``installed_before``), parsed: the same keys
    and values, ignoring a section left empty and a member Baton's merge adds (Cursor's
    ``version``). None when it does not (the file was edited since), or the original does not parse."""
    try:
        text = original.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if spec.toml_table is not None:  # each without Baton's part: an original may hold the user's own `baton`
        try:
            before = _toml(_toml_without_baton(text, spec.path) or "")
        except InputError:
            before = None
        after = _toml(new or "")
    else:
        kept = _json(text) if text.strip() else {}
        before = _stripped_json(kept, spec, harness) if kept is not None else None
        current = _json(old)
        after = _stripped_json(current, spec, harness) if current is not None else None
    if before is None or after is None:
        return None
    merge = spec.merge or {}
    after = {k: v for k, v in after.items() if not (k not in before and k in merge and merge[k] == v)}
    return text if _pruned(before) == _pruned(after) else None


def _diff(path: str, old: str, new: str | None) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), (new or "").splitlines(keepends=True),
                                        fromfile=f"a/{path.lstrip('/')}",
                                        tofile=f"b/{path.lstrip('/')}" if new is not None else "/dev/null"))


def _still_using(base: Path, path: str, harness: str) -> list[str]:
    """The other harnesses still wired here that also install ``path``."""
    return [other for other in HARNESSES if other != harness
            and any(spec.path == path for spec in _specs(other)) and inspect_wiring(base, other).wired]


def remove_wiring(root: str | os.PathLike, harness: str, *, dry_run: bool = False,
                  worktree: str | os.PathLike | None = None) -> RemoveResult:
    """Take ``harness``'s wiring out of the project (module docstring).

    Raises:
        InputError: an unknown harness, a file that does not parse (left untouched), or a ``root``
            that is not an existing folder.
        UnsafePath: a file would be outside the project.
        StorageError: a file cannot be written or deleted.
    """
    project = project_folder(root, "take Baton's wiring out of")
    base = Path(worktree) if worktree is not None else project
    planned: list[tuple[Path, str | None, Removal]] = []
    saved: list[Path] = []
    for spec in _specs(harness):
        path = located(base, spec.path, harness)
        shown = shown_path(base, spec.path, harness)
        old = read_strict(path)
        note = None
        keep = original_path(project, base, harness, spec.path) if spec.text is None else None
        if keep is not None:
            saved.append(keep)
        if old is None:
            planned.append((path, None, Removal(shown, "unchanged", "")))
            continue
        if spec.text is not None:
            users = _still_using(base, spec.path, harness)
            if users:
                verb = "uses" if len(users) == 1 else "use"
                planned.append((path, old, Removal(shown, "kept", "", f"{', '.join(users)} still {verb} it")))
                continue
            new: str | None = None
        elif spec.toml_table is not None:
            new = _toml_without_baton(old, spec.path)
        else:
            new = _json_removed(old, spec, harness)
        if new != old and spec.text is None:
            original = _read_bytes(keep) if keep is not None else None
            restored = None if original is None else _restorable(spec, harness, old, new, original)
            if restored is not None:
                new, note = restored, "put back as it was before install-hooks"
            elif original is not None:
                note = ("changed since install-hooks: only Baton's table was taken out, the rest kept as it is"
                        if new is not None and spec.toml_table is not None
                        else "changed since install-hooks, so written back re-formatted" if new is not None
                        else "changed since install-hooks, and nothing else is left in it")
        elif spec.text is None and spec.toml_table is None:  # no Baton's part left in it: moved out by hand
            new, note = _left_by_install(spec, harness, old, keep)
        if new == old:
            planned.append((path, old, Removal(shown, "unchanged", "")))
        else:
            planned.append((path, new, Removal(shown, "deleted" if new is None else "updated",
                                               _diff(shown, old, new), note)))
    changes = tuple(change for _, _, change in planned)
    unexcluded = _unexclude_plans(project, base, harness)
    shared = {name: sharing(base, name) for edit, _, name in unexcluded if edit is not None and not edit.skip}
    changes += tuple(Removal(edit.display, "kept", "", edit.skip) if edit.skip else
                     Removal(edit.display, "kept", "", _still_shared(name, shared[name])) if shared[name] else
                     Removal(edit.display, edit.action, edit.diff(), f"the line install-hooks added for {name}")
                     for edit, _, name in unexcluded if edit is not None)
    if not dry_run:
        changes = _unexclude(project, harness, unexcluded, shared, changes)
        for path, new, change in planned:
            if change.action == "updated" and new is not None:  # (updated: there is a new text)
                write_text(path, new)
            elif change.action == "deleted":
                delete_file(path, base)
        for keep in saved:
            delete_file(keep, project / ".baton")
    return RemoveResult(harness, str(base), dry_run, changes)


def _unexclude(project: Path, harness: str, unexcluded: list[tuple[ExcludeEdit | None, Path, str]],
               shared: dict[str, list[Path]], changes: tuple[Removal, ...]) -> tuple[Removal, ...]:
    """Take the recorded ``info/exclude`` lines out (``remove_wiring``); a shared one still
    needed by another worktree is kept and its record handed to it. Returns ``changes``,
    with a line that could not be taken out listed as ``kept``."""
    for edit, record, name in unexcluded:
        if edit is not None and edit.skip:
            continue  # left as it is, its record kept for a later --remove
        if edit is not None and shared[name]:
            _hand_over(record, original_path(project, shared[name][0], harness, RECORD))
            delete_file(record, project / ".baton")  # what is left of it: the record is handed over
            continue
        if edit is not None:
            try:
                apply_edit(edit, record)
            except StorageError as exc:  # best effort: the rest is still taken out
                changes = tuple(Removal(c.path, "kept", "", f"{exc}: the line is left, remove it by hand")
                                if c.path == edit.display else c for c in changes)
                continue
        delete_file(record, project / ".baton")
    return changes


def _still_shared(name: str, others: list[Path]) -> str:
    """Why the shared ``info/exclude`` line for ``name`` stays: other worktrees still have the file."""
    where = ", ".join(str(tree) for tree in others)
    return (f"the line install-hooks added for {name} is kept: every worktree of this clone reads it, and "
            f"{where} still {'has' if len(others) == 1 else 'have'} its {name}; `baton install-hooks --remove` "
            "in the last of them takes it out")


def _hand_over(record: Path, to: Path | None) -> None:
    """Copy the record of a shared ``info/exclude`` line to the worktree that still needs
    it (``to``), so that its ``--remove`` takes the line out; one it has already is kept."""
    if to is None or to.exists():
        return
    data = _read_bytes(record)
    if data is not None:
        write_bytes_atomic(to, data)


def _left_by_install(spec: ConfigFile, harness: str, old: str, keep: Path | None) -> tuple[str | None, str | None]:
    """A JSON file holding none of Baton's part (its hooks moved to the personal file, and an
    install took them out of this one): its original put back when one is kept and the file
    says the same, parsed (``install-hooks`` dropped only its own part); deleted when none is
    kept and it holds only the ``"hooks": {}`` an earlier ``install-hooks`` left in a file it
    created; else as it is (``old``)."""
    original = _read_bytes(keep) if keep is not None else None
    if original is not None:
        restored = _restorable(spec, harness, old, old, original)
        return (restored, "put back as it was before install-hooks") if restored not in (None, old) else (old, None)
    if "hooks" in (spec.merge or {}) and _json(old) == {"hooks": {}}:
        return None, "held only the empty hooks section an earlier install-hooks left"
    return old, None


def _unexclude_plans(project: Path, base: Path, harness: str) -> list[tuple[ExcludeEdit | None, Path, str]]:
    """Taking out of the clone's ``info/exclude`` the line ``install-hooks`` added for a
    personal file (``clone_exclude``): one per record kept, its edit None when the line is
    gone already (the record is then only deleted)."""
    found: list[tuple[ExcludeEdit | None, Path, str]] = []
    for spec in _specs(harness):
        record = original_path(project, base, harness, RECORD) if spec.clone_only else None
        if record is not None and record.is_file():
            found.append((plan_unexclude(record, base), record, spec.path))
    return found


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _json_removed(old: str, spec: ConfigFile, harness: str) -> str | None:
    if not old.strip():
        return old
    try:
        config = orjson.loads(old)
    except orjson.JSONDecodeError as exc:
        if _commented_without_batons(old, spec, harness):
            return old  # the user's comments and settings only: nothing of Baton's to take out
        raise InputError(_not_plain_json(old, spec, harness, exc)) from None
    if not isinstance(config, dict):
        raise InputError(f"{spec.path} is not a JSON object; fix it by hand, then run this again")
    out = _without_batons_json(config, spec, harness)
    if out is None:
        return None
    if out == config:
        return old
    return orjson.dumps(out, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"


def _not_plain_json(old: str, spec: ConfigFile, harness: str, exc: orjson.JSONDecodeError) -> str:
    """Why ``--remove`` leaves a file that does not parse: plain bad JSON, or JSON with
    comments (Gemini CLI, Cursor and Claude Code read them) Baton cannot edit around —
    then exactly what of Baton's to delete by hand (tester-use19 T13)."""
    bare = without_comments(old)
    if bare == old:
        return f"{spec.path} is not valid JSON ({exc}); fix it by hand, then run this again"
    try:
        config = orjson.loads(bare)
    except orjson.JSONDecodeError:
        config = None
    said = (f"{spec.path} holds comments ({harness} accepts them, plain JSON does not): Baton would drop them "
            "if it rewrote the file, so it leaves it, and nothing is removed")
    if not isinstance(config, dict):
        return said + f"; it does not parse even without them ({exc}): fix it by hand, then run this again"
    parts = batons_parts(config, spec, harness)  # some: one holding none is left as it is (``_json_removed``)
    return said + ": delete by hand " + "; ".join(parts) + " — then run this again to remove the rest"


def _commented_without_batons(old: str, spec: ConfigFile, harness: str) -> bool:
    """Whether ``old`` is JSON with comments holding nothing of Baton's (deleted by hand)."""
    bare = without_comments(old)
    try:
        config = orjson.loads(bare) if bare != old else None
    except orjson.JSONDecodeError:
        return False
    return isinstance(config, dict) and not batons_parts(config, spec, harness)


def without_comments(text: str) -> str:
    """``text`` with its ``//`` and ``/* */`` comments blanked out (strings kept as they are)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def batons_parts(config: dict[str, Any], spec: ConfigFile, harness: str) -> list[str]:
    """What of Baton's ``config`` holds, each named as the person would find it in the file."""
    out = _stripped_json(config, spec, harness)
    parts = []
    hooks = config.get("hooks")
    kept: dict[str, Any] = out["hooks"] if isinstance(out.get("hooks"), dict) else {}
    for event, entries in (hooks.items() if isinstance(hooks, dict) else ()):
        if entries != kept.get(event):
            commands = sorted({str(h.get("command")) for h in _hook_entries(entries)}
                              - {str(h.get("command")) for h in _hook_entries(kept.get(event))})
            parts.append(f"the hook under \"hooks\" → \"{event}\" running " + ", ".join(commands))
    servers = config.get("mcpServers")
    if isinstance(servers, dict) and "baton" in servers and "baton" not in (out.get("mcpServers") or {}):
        parts.append("\"baton\" under \"mcpServers\"")
    for key, members in (spec.merge or {}).items():
        if isinstance(members, list) and isinstance(config.get(key), list):
            gone = [m for m in members if m in config[key]]
            parts += [f"{orjson.dumps(m).decode()} from \"{key}\"" for m in gone]
    return parts


def _hook_entries(entries: Any) -> list[dict[str, Any]]:
    found = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("hooks"), list):
            found += [h for h in entry["hooks"] if isinstance(h, dict)]
        elif isinstance(entry, dict) and "command" in entry:
            found.append(entry)
    return found


def delete_file(path: Path, base: Path) -> None:
    """Delete ``path``, then each folder up to ``base`` that this left empty."""
    try:
        path.unlink()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StorageError(f"cannot delete {path}: {exc.strerror or exc}") from exc
    folder = path.parent
    while folder != base and base in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _started_below(base: Path, project: str | os.PathLike | None, harness: str) -> list[tuple[str, str, str]]:
    """A warning when ``doctor`` runs in a subfolder of the worktree wired for ``harness``, a
    harness that reads the project's wiring only where it is started (``start_hooks.started_below``)."""
    start = project or os.environ.get("BATON_PROJECT") or None
    try:
        here = Path(start).expanduser().resolve() if start else Path.cwd().resolve()
        below = here.relative_to(base.resolve())
    except (OSError, ValueError):
        return []
    detail = started_below(harness, below.as_posix() if below.parts else None, str(base.resolve()))
    return [(f"harness {harness} (here)", "warn", detail)] if detail else []


def doctor_checks(root: Path, project: str | os.PathLike | None) -> list[tuple[str, str, str]]:
    """``baton doctor``'s check per harness wired in this worktree (``install-hooks``):
    its hooks' program found, every part present and current, as ``(name, status, detail)``."""
    try:
        base = Path(resolve_worktree(root, project))
    except BatonError:
        base = root
    checks = []
    edited = []  # said after the rest, whatever the rest says
    for harness in HARNESSES:
        wiring = inspect_wiring(base, harness)
        edited += [found] if not wiring.broken and (found := hand_edited_check(base, harness)) else []
        if wiring.wired or wiring.broken:
            checks.append((f"harness {harness}", *wiring_check(wiring, partial(_committed, base, harness, wiring))))
            checks += _started_below(base, project, harness)
            checks += _not_ignored(base, harness)
            if harness == "claude-code" and (off := hooks_off(base)) is not None:
                checks.append(("harness claude-code (disableAllHooks)", "warn", off))
            if harness == "codex" and not wiring.broken:
                events = _events(harness)
                trust = codex_trust_check(base, root, lambda hook: _is_batons(hook, harness, events))
                checks += [trust] if trust is not None else []
        elif (user_level := _user_level(base, harness)) is not None:
            checks.append(user_level)
    if not checks:
        elsewhere = _wired_in_main_worktree(root, base)
        if elsewhere:  # the person wired the project, but a harness started here runs none of it
            commands = " and ".join(f"`baton install-hooks --harness {h}`" for h in elsewhere)
            checks.append(("harnesses", "warn",
                           f"none wired in this linked worktree, while the main worktree ({root.resolve()}) has "
                           f"{', '.join(elsewhere)} wired: a harness started here runs none of Baton's hooks "
                           f"and offers none of its tools (no brief, no baton left); run {commands} here, or "
                           "commit the wiring files (`--command baton`) so that every worktree has them"))
        else:  # not a problem (the command line alone works): how to connect one
            checks.append(("harnesses", "ok", f"none wired in this worktree; `baton install-hooks --harness NAME` "
                                              f"connects one ({', '.join(HARNESSES)})"))
    return checks + edited


def user_level_name(harness: str, relative: str) -> str:
    """How to name the person's user-level file ``relative`` (of the home directory) of ``harness``:
    ``~/.codex/hooks.json``, or its absolute path when the harness's own variable moves it
    (``config_text.moved_home``: ``$CODEX_HOME/hooks.json``)."""
    moved = moved_home(harness, relative)
    return str(moved) if moved is not None else f"~/{relative}"


def _user_level(base: Path, harness: str) -> tuple[str, str, str] | None:
    """``baton doctor``'s check of ``harness`` when the worktree ``base`` holds none of its wiring but
    the person's user-level configuration (``install-hooks --user-level``: read in every folder, from
    where the harness's own variable puts it) holds Baton's hooks, which then run here: ``ok`` naming
    that file, ``fail`` when a program they run is not found, ``warn`` when the start or end hook is
    missing. None otherwise, and in the home directory itself (its files are that configuration)."""
    if is_home(base):
        return None
    wiring = inspect_wiring(Path.home(), harness)
    if not wiring.file_hooks:
        return None
    files = " and ".join(f"`{user_level_name(harness, path)}`" for path in wiring.file_hooks)
    said = (f"not wired in this worktree, but {files} ({harness}'s user-level configuration, read in every folder) "
            f"holds Baton's hooks, so the sessions {harness} starts here run them")
    check = "`baton doctor --project ~` checks that wiring in full"
    lost = [program for program in wiring.programs() if resolve_program(program) is None]
    if lost:
        return (f"harness {harness}", "fail", f"{said}; they run {', '.join(f'`{p}` ({_not_found(p)})' for p in lost)}: "
                                              f"they do nothing; {check}")
    if wiring.missing_events:
        return (f"harness {harness}", "warn", f"{said}; no Baton hook there for {', '.join(wiring.missing_events)}, "
                                              f"so no baton is handed on; {check}")
    return f"harness {harness}", "ok", f"{said}; {check}"


def _committed(base: Path, harness: str, wiring: HarnessWiring) -> list[str]:
    """The files of ``harness``'s wiring in the worktree ``base`` that git tracks (``clone_exclude.tracked``)."""
    files = sorted({*wiring.file_hooks, *(spec.path for spec in _specs(harness)
                                          if not spec.clone_only and os.path.lexists(base / spec.path))})
    return tracked(base, files)


def _not_ignored(base: Path, harness: str) -> list[tuple[str, str, str]]:
    """A warning when a personal file of the harness (``ConfigFile.clone_only``) in this
    worktree is neither tracked nor ignored by git: ``git add -A`` would offer it."""
    found = []
    for spec in _specs(harness):
        if spec.clone_only and committable(base, spec.path):
            found.append((f"harness {harness} ({spec.path})", "warn",
                          f"{spec.path} is this machine's own file (permissions, approved servers) but git does not "
                          f"ignore it here: `git add -A` would commit it; add the line /{spec.path} to the clone's "
                          "info/exclude, or run `baton install-hooks` here again, which adds it"))
    return found


def _wired_in_main_worktree(root: Path, base: Path) -> list[str]:
    """The harnesses wired in the project's main worktree ``root``, when ``base`` is another
    (a linked worktree: the wiring files are a worktree's own), else none (tester harness15 G10)."""
    try:
        if base.resolve() == root.resolve():
            return []
    except OSError:
        return []
    return [harness for harness in HARNESSES if inspect_wiring(root, harness).wired]
