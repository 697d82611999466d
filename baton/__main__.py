"""``python -m baton``: the ``baton`` process (``baton.cli_run.run``), the cyclic
garbage collector paused from its first import, as ``baton.launch`` does."""

import gc

gc.disable()  # cli_run.run collects again at once for any command not on the hook path

from baton.cli_run import run  # noqa: E402 - imported with the collector paused

run(collector_paused=True)
