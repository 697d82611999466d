"""Asking a person for missing required fields — only on a terminal.

Hooks, CI and agents run Baton without a terminal; a prompt there would hang
them. So the rule is strict: a prompter exists only when stdin *and* stderr
are terminals, and commands receive it as an argument (``None`` = never ask),
which keeps them testable and keeps the decision out of the domain.
"""

from __future__ import annotations

import sys
from typing import Callable, Iterable

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
    asked again once, then left empty for validation to report.
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
                answer = ""
                break
            if answer:
                break
        out[key] = answer or None
    return out
