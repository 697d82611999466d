"""``python interrupted_at.py WHEN MODULE:NAME MARKER ARGS...``: the real ``baton``
process (``baton.cli.run``) with ARGS, where a Ctrl-C (SIGINT, raised in the
process) lands just ``before`` or ``after`` (WHEN) the first call of
``MODULE:NAME`` (a function, or ``Class.method``), and the file MARKER is
created, so a test knows the interrupt was sent at that point: a
deterministic place in the command's work, whatever the machine's load.
Used by ``tests/test_interrupted_says_what_was_done.py``."""

import importlib
import signal
import sys


def main() -> None:
    when, target, marker = sys.argv[1:4]
    module_name, _, name = target.partition(":")
    owner = importlib.import_module(module_name)
    *path, attr = name.split(".")
    for part in path:
        owner = getattr(owner, part)
    original = getattr(owner, attr)

    def interrupt() -> None:
        open(marker, "a").close()
        signal.raise_signal(signal.SIGINT)

    def cut(*args, **kwargs):
        setattr(owner, attr, original)
        if when == "before":
            interrupt()
        result = original(*args, **kwargs)
        interrupt()
        return result

    setattr(owner, attr, cut)
    sys.argv = ["baton", *sys.argv[4:]]
    from baton.cli import run

    run()


if __name__ == "__main__":
    main()
