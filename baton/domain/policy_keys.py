"""The two questions every command asks of the policy's settings, answered cheaply: whether a
policy document holds a setting that may widen it (only then are the trust rules of
``baton.domain.policy_trust`` loaded: ``baton.policy``), and whether a command is one a
``recheck_allowlist`` lists.

Apart from ``policy_trust`` so that a project whose policy widens nothing opens on the hook
path without loading the trust rules (``tests/test_hook_path_imports.py``). Pure.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Iterable

WIDENING_KEYS = ("allowed_roots", "recheck_allowlist", "disable_rules", "actions",
                 "entropy_threshold", "min_secret_length")
"""The policy keys whose values may widen or weaken the policy (``baton.domain.policy_trust``
judges which values do)."""


def may_widen(doc: dict[str, Any]) -> bool:
    """Whether a policy document holds a widening key with a value that is not an empty list
    or object (``baton init``'s ``"recheck_allowlist": []`` widens nothing)."""
    return any(key in doc and doc[key] not in ([], {}) for key in WIDENING_KEYS)


REQUIRED_BY_SETTING = "sync.require_signatures is set"
"""A requirement the checked-out settings make (``policy_trust.SignersInForce.required_by``)."""


def holds_trust_record(raw: Any) -> bool:
    """Whether a trust file's member for this project (``raw``) may be a record at all (what
    ``policy_trust.TrustRecord.from_json`` asks first): without one, this clone trusted
    nothing here, and the trust rules need not be loaded to say so."""
    return isinstance(raw, dict) and isinstance(raw.get("policy"), dict)


def lists_command(listed: Iterable[str], command: str) -> bool:
    """Whether ``command`` is one of ``listed``, exactly, after collapsing runs of whitespace:
    ``pytest -q`` does not list ``pytest -q; rm -rf ~``."""
    wanted = " ".join(command.split())
    return any(" ".join(allowed.split()) == wanted for allowed in listed)


SIGNER_LEADING = " \t\r\n"
"""What ``ssh-keygen`` skips before a line's first word (OpenSSH ``sshsig.c``,
``parse_principals_key_and_options``: ``strspn(cp, " \\t\\n\\r")``); nothing else, so a line
that starts with another space character (``\\xa0``, ``\\u3000``...) is a key line to it."""


def signer_lines(data: bytes | str) -> tuple[str, ...]:
    """The lines of an allowed-signers file that ``ssh-keygen`` reads as key lines, exactly as
    it splits them: on ``\\n`` only (``getline``), each up to its first NUL (a C string), less
    the leading ``" \\t\\r\\n"``; a line then empty or starting with ``#`` is skipped. Each is
    returned without its trailing ``" \\t\\r"`` (separators to ``ssh-keygen``). Every other line,
    whatever it starts with, binds a key or is an invalid line to ``ssh-keygen``: it is digested,
    shown, and written to the copy ``ssh-keygen`` is handed (``baton.sync.signing``), never dropped."""
    raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
    out = []
    for line in raw.split(b"\n"):
        line = line.split(b"\0", 1)[0].lstrip(SIGNER_LEADING.encode()).rstrip(b" \t\r")
        if line and not line.startswith(b"#"):
            out.append(line.decode("utf-8", "replace"))
    return tuple(out)
