"""Lower bounds for a steady session-start hook in its own process: what any design must load and do.

    python benchmarks/steady_start_bounds.py PROJECT_COPY REPEAT

On a *copy* of a project built by ``benchmarks/build.py`` (the bounds write a scratch file
``.baton/bounds-scratch.jsonl`` and a ``bounds`` row in the index's ``meta`` table; the real
hook appends ``session.begun``). Each repetition runs, as fresh processes and interleaved:

- ``python -c pass`` and the stack's floor (``import attrs, orjson, sqlite3, hashlib, argparse``);
- the modules an ordinary prompt's hook loads (the command line, the hook's runner, the
  adapter: no attrs), alone, with attrs, and with the output screen (``baton.domain.redaction.output``,
  whose rules, policy and outcome are named tuples since helper ``hook27``: no attrs), the screen
  and attrs, and the screen and the ledger's writer (``baton.ledger.store``, attrs-based);
- ``bound``: the least a steady start does, with none of Baton's models: the payload, the
  config, ``HEAD``, the index's ``meta``, a listing of the ledger's feeds, the 20 newest
  records a brief may use read and parsed, a brief's worth of text, the ledger lock, one
  line appended and fsynced (to the scratch file, not a feed), one index transaction, the
  answer printed. ``bound + screen``: the same, with the real output screen run over the
  text; ``bound + screen + writer``: and the writer's modules loaded (the append stays the
  raw one: a bound);
- the real ``baton hook claude-code SessionStart`` (``BATON_HOOK_SERVER=0``).

Prints the median CPU time (user + system, from the kernel's accounting of the child) and
wall time of each, and each beside the floor's. The machine may be loaded: read CPU. This
measures what a design can reach, not Baton's behaviour; docs/performance.md reads it.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time

PROMPT_PATH = "import orjson, sqlite3, hashlib; import baton.cli, baton.harnesses.hook, baton.harnesses.claude_code"
IMPORTS = {
    "stack floor": "import attrs, orjson, sqlite3, hashlib, argparse",
    "prompt-path modules (no attrs)": PROMPT_PATH,
    "+ attrs": PROMPT_PATH + "; import attrs",
    "+ output screen": PROMPT_PATH + "; import baton.domain.redaction.output",
    "+ output screen + attrs": PROMPT_PATH + "; import baton.domain.redaction.output, attrs",
    "+ output screen + writer": PROMPT_PATH + "; import baton.domain.redaction.output, baton.ledger.store",
}

BOUND = r'''
import os, sys
import orjson, sqlite3, hashlib, fcntl
import baton.cli, baton.harnesses.hook, baton.harnesses.claude_code
payload = orjson.loads(sys.stdin.buffer.read())
root = payload["cwd"]
baton_dir = os.path.join(root, ".baton")
config = orjson.loads(open(os.path.join(baton_dir, "config.json"), "rb").read())
local = orjson.loads(open(os.path.join(baton_dir, "local.json"), "rb").read())
head = open(os.path.join(root, ".git", "HEAD")).read()
db = sqlite3.connect(os.path.join(baton_dir, "index.sqlite"), isolation_level=None)
meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
for name in os.listdir(os.path.join(baton_dir, "ledger")):
    os.stat(os.path.join(baton_dir, "ledger", name))
docs = []
for (ident,) in db.execute("SELECT id FROM handoff_rows WHERE brief = 1 ORDER BY hlc DESC, id DESC LIMIT 20"):
    row = db.execute("SELECT doc FROM docs WHERE projection = 'handoffs' AND key = ?", (ident,)).fetchone()
    if row:
        docs.append(orjson.loads(row[0]))
lines = ["## Recent decisions", ""]
for doc in docs:
    lines += [f"- {d}" for d in (doc.get("decisions") or [])[:2]]
brief = "\n".join(lines)[:6000]
if WITH_SCREEN:
    from baton.domain.redaction import RedactionPolicy, screen_text
    brief = screen_text(brief, RedactionPolicy())
if WITH_WRITER:
    import baton.ledger.store
line = orjson.dumps({"type": "session.begun", "data": {"sessionId": payload["session_id"]}},
                    option=orjson.OPT_SORT_KEYS)
digest = hashlib.sha256(line).hexdigest().encode()
lock = os.open(os.path.join(baton_dir, "ledger.lock"), os.O_RDWR)
fcntl.flock(lock, fcntl.LOCK_EX)
fd = os.open(os.path.join(baton_dir, "bounds-scratch.jsonl"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(fd, line[:-1] + b',"hash":"' + digest + b'"}\n')
os.fsync(fd)
fcntl.flock(lock, fcntl.LOCK_UN)
db.execute("BEGIN IMMEDIATE")
db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('bounds', ?)", (payload["session_id"],))
db.execute("COMMIT")
sys.stdout.write(orjson.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                      "additionalContext": brief}}).decode() + "\n")
sys.stdout.flush()
os._exit(0)
'''


def main() -> None:
    if len(sys.argv) != 3 or not sys.argv[2].isdigit():
        sys.exit("usage: python benchmarks/steady_start_bounds.py PROJECT_COPY REPEAT")
    project, repeat = os.path.abspath(sys.argv[1]), int(sys.argv[2])
    python = sys.executable
    runs = {"python -c pass": [python, "-c", "pass"]}
    runs.update({name: [python, "-c", code + "\nimport os; os._exit(0)"] for name, code in IMPORTS.items()})
    runs["bound"] = [python, "-c", "WITH_SCREEN = WITH_WRITER = False\n" + BOUND]
    runs["bound + screen"] = [python, "-c", "WITH_SCREEN = True\nWITH_WRITER = False\n" + BOUND]
    runs["bound + screen + writer"] = [python, "-c", "WITH_SCREEN = WITH_WRITER = True\n" + BOUND]
    runs["hook SessionStart (today)"] = [python, "-m", "baton", "hook", "claude-code", "SessionStart"]
    env = dict(os.environ, BATON_HOOK_SERVER="0",
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    wall: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    for rep in range(-1, repeat):
        for name, argv in runs.items():
            session = f"bounds-{os.getpid()}-{rep}-{len(wall[name])}-{abs(hash(name)) % 10000}"
            payload = json.dumps({"session_id": session,
                                  "source": "startup", "cwd": project, "transcript_path": "/dev/null",
                                  "hook_event_name": "SessionStart"}).encode()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            done = subprocess.run(argv, input=payload, capture_output=True, cwd=project, env=env)
            elapsed = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if done.returncode != 0 or done.stderr:
                raise SystemExit(f"{name} failed ({done.returncode}): {done.stderr[-500:]!r}")
            if rep >= 0:  # the first repetition warms the page cache
                wall[name].append(elapsed)
                cpu[name].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    floor_wall, floor_cpu = statistics.median(wall["stack floor"]), statistics.median(cpu["stack floor"])
    print(f"{'':34} {'cpu ms':>8} {'× floor':>8} {'wall ms':>8} {'× floor':>8}   "
          f"(medians of {repeat}; load {os.getloadavg()[0]:.1f})")
    for name in runs:
        c, w = statistics.median(cpu[name]), statistics.median(wall[name])
        print(f"{name:34} {c * 1000:8.1f} {c / floor_cpu:8.2f} {w * 1000:8.1f} {w / floor_wall:8.2f}")


if __name__ == "__main__":
    main()
