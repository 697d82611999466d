"""Say which *commands* an illegal transition leaves open.

The state machine names its actions (``revise``, ``promote``...); a person at
a terminal needs the command that performs each. Commands wrap their work in
``command_hints()``, which adds that to the message of any
``TransitionError`` (exit 4) and lists it in the error's details.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

COMMAND_FOR_ACTION = {
    "revise": "baton handoff amend",
    "validate": "baton handoff validate",
    "promote": "baton handoff ready",
    "resume": "baton resume",
    "archive": "baton handoff archive",
    "amend": "baton handoff amend",
}


@contextmanager
def command_hints() -> Iterator[None]:
    from baton.errors import TransitionError

    try:
        yield
    except TransitionError as err:
        commands = list(dict.fromkeys(COMMAND_FOR_ACTION[a] for a in err.allowed if a in COMMAND_FOR_ACTION))
        if commands:
            err.message = f"{err.message} (commands: {', '.join(commands)})"
            err.args = (err.message,)
            err.details = {**err.details, "commands": commands}
        raise
