"""What ssh and a server's git said when an ssh remote could not be reached, for a newcomer (docs/sync.md).

The ssh program's own words stay (they name the host and port); a
connection that never opened says ``cannot connect`` with the question to
ask — is the server up, or is the host name right — and a server with no
repository at the path says so, each with the way to check the URL, as an
http(s) remote's failures do (``baton.sync.transport``).
"""

from __future__ import annotations

import re

_NO_HOST = re.compile(r"ssh: Could not resolve hostname ")
_NOBODY_ANSWERS = re.compile(r"ssh: connect to host \S+ port \S+: |Connection to \S+ port \S+ timed out|"
                             r"Connection timed out during banner exchange|kex_exchange_identification: ")
_NO_REPOSITORY = re.compile(r"does not appear to be a git repository")


def ssh_failure(said: str, check_url: str) -> str | None:
    """Why an ssh remote could not be reached, given what ssh and the remote's
    git wrote (``said``, one line), or None when it is none of these."""
    if _NO_HOST.search(said):
        return f"cannot connect: {said}; is the host name right? {check_url}"
    if _NOBODY_ANSWERS.search(said):
        return f"cannot connect: {said}; is the server up? {check_url}"
    if _NO_REPOSITORY.search(said):
        return f"the server has no git repository at that URL ({said}); {check_url}"
    return None
