"""``baton status serve`` stops on Ctrl-C with 0 (docs/cli.md, exit codes),
even when an earlier Ctrl-C landed in a finalizer while it served: Python
ignored that one, the server went on serving, and the CLI's note of it
(``baton.process_end.InterruptsCount``) must not turn the normal stop into
``baton: interrupted`` (130)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def test_serve_stopped_by_ctrl_c_exits_0_after_a_ctrl_c_a_finalizer_swallowed(project):
    proc = subprocess.Popen([sys.executable, str(HERE / "interrupted_serve.py"), "status", "serve", "--port", "0"],
                            cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    try:
        assert proc.stdout.readline().startswith("Serving Baton status")  # still serving after the first
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "interrupted" not in err and "Traceback" not in err
