"""``python killed_sync.py MODULE.FUNC MARKER ARGS...``: the real ``baton`` CLI with ARGS,
creating the file MARKER when MODULE.FUNC is first entered (then running it as
usual), so a test can ``kill -9`` the process inside a chosen phase of a sync
(fetch, import, commit, push...). Used by ``tests/test_sync_team_race.py``."""

import importlib
import sys


def main() -> int:
    phase, marker = sys.argv[1], sys.argv[2]
    module_name, name = phase.rsplit(".", 1)
    module = importlib.import_module(module_name)
    original = getattr(module, name)

    def entered(*args, **kwargs):
        open(marker, "a").close()
        return original(*args, **kwargs)

    setattr(module, name, entered)
    from baton.cli import main as cli

    return cli(sys.argv[3:])


if __name__ == "__main__":
    sys.exit(main())
