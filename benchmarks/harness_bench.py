"""What Baton costs inside a real harness: Claude Code, headless, against the scripted model.

    python benchmarks/harness_bench.py [--runs 5] [--out FILE]

One trivial session (``claude -p hello``, the model answers "Hello.") in a
git project, timed as a whole process, in four set-ups measured in
interleaved rounds (so machine drift falls on all of them alike):

- ``bare``: no hooks, no MCP server;
- ``no-op hooks``: the hook entries ``baton install-hooks --harness
  claude-code`` writes (same events, matchers and timeouts), each running
  ``cat >/dev/null`` instead of Baton — the harness's own hook machinery;
- ``baton hooks``: Baton's hook entries as installed, without the MCP server
  (hooks relayed to the hook server, ``baton.launch``, started by the first);
- ``baton hooks, own process``: the same with ``BATON_HOOK_SERVER=0``: each
  hook a whole ``baton`` process, as a hook is when no server runs;
- ``baton``: everything ``install-hooks`` writes (hooks, the approved MCP
  server Claude Code waits for before the first request, the skill);
- ``baton, MCP not alwaysLoad``: the same with ``alwaysLoad`` taken off the
  server, so Claude Code does not wait for it (its tools may then miss the
  first request): what waiting for ``baton mcp`` costs.

Target (issue 23): ``baton hooks`` ≤ 1.10 × ``no-op hooks`` — Baton's own
commands add at most 10 % over the entries running a no-op. Each set-up's
median over ``--runs`` rounds, and the ratios, are printed as a table (and
written to ``--out`` as JSON). Per-event cost: each hook event alone with
Baton's command, the others removed, beside ``bare`` (``--events``).
``--compare BIN_DIR`` adds Baton's hook entries as the ``baton`` in
``BIN_DIR`` installs them (another checkout's venv: before and after a
change, in the same rounds).

Needs node/npm (the pinned Claude Code, or ``--claude-code VERSION``, is
installed into the e2e cache as the end-to-end suite does) and this checkout's ``baton`` in the running venv.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.common import (  # noqa: E402
    PINNED,
    git_project,
    harness_program,
    run_baton,
    run_harness,
    stop_hook_servers,
)
from tests.e2e.fake_anthropic import FakeAnthropic, claude_argv, claude_env  # noqa: E402

NOOP = "cat >/dev/null"


def _set_up(root: Path, model: FakeAnthropic, kind: str, only: str | None = None,
            other: Path | None = None) -> tuple[Path, dict]:
    project = git_project(root / kind.replace(" ", "-") / "project")
    env = claude_env(root / kind.replace(" ", "-") / "home", model)
    if kind == "bare":
        return project, env
    if kind == "baton hooks, own process":  # no hook server: each hook a whole process, as a first hook is
        env["BATON_HOOK_SERVER"] = "0"
    # One event alone: every event wired first (the prompt hook is wired only when asked for).
    events = ("--events", "all") if only is not None else ()
    words = ("install-hooks", "--harness", "claude-code", *events)
    # Another checkout's baton (``--compare``) writes its own absolute path into the hook entries.
    done = (run_baton(project, env, *words) if other is None else
            subprocess.run([str(other / "baton"), *words], cwd=project, env=env, capture_output=True, text=True,
                           timeout=60))
    if done.returncode != 0:
        raise SystemExit(f"install-hooks failed: {done.stderr}")
    settings = project / ".claude" / "settings.json"
    config = json.loads(settings.read_text())
    if only is not None:
        config["hooks"] = {only: config["hooks"][only]}
    if kind == "no-op hooks":
        for groups in config["hooks"].values():
            for group in groups:
                for hook in group["hooks"]:
                    hook["command"] = NOOP
    settings.write_text(json.dumps(config, indent=2))
    if kind == "baton, MCP not alwaysLoad":
        servers = project / ".mcp.json"
        mcp = json.loads(servers.read_text())
        mcp["mcpServers"]["baton"].pop("alwaysLoad", None)
        servers.write_text(json.dumps(mcp, indent=2))
    elif kind != "baton":
        (project / ".mcp.json").unlink()
        (project / ".claude" / "settings.local.json").unlink(missing_ok=True)
    return project, env


def _session(program: Path, project: Path, env: dict, model: FakeAnthropic) -> float:
    model.script = ["Hello."]
    started = time.perf_counter()
    done = run_harness(claude_argv(program, "hello"), project, env, timeout=300)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"claude exited {done.returncode}: {done.stderr[-2000:]}")
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--events", action="store_true", help="also time each hook event alone")
    parser.add_argument("--claude-code", metavar="VERSION",
                        help="the Claude Code version to run (default: the end-to-end suite's pin)")
    parser.add_argument("--out", type=Path, help="write the medians and ratios as JSON here")
    parser.add_argument("--compare", type=Path, metavar="BIN_DIR",
                        help="also time Baton's hook entries as another install writes them (the `baton` in "
                             "BIN_DIR, e.g. main's venv), in the same rounds: `baton hooks, compared`")
    args = parser.parse_args(argv)
    program = harness_program("claude-code", args.claude_code)
    version = args.claude_code or PINNED["claude-code"][1]
    print(f"Claude Code {version}", flush=True)
    kinds = ["bare", "no-op hooks", "baton hooks", "baton hooks, own process", "baton", "baton, MCP not alwaysLoad"]
    with FakeAnthropic() as model, tempfile.TemporaryDirectory(prefix="baton-harness-bench-") as tmp:
        root = Path(tmp)
        setups = {kind: _set_up(root, model, kind) for kind in kinds}
        if args.compare is not None:
            setups["baton hooks, compared"] = _set_up(root / "compared", model, "baton hooks", other=args.compare)
        if args.events:
            for event in ("SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"):
                setups[f"only {event}"] = _set_up(root / event, model, "baton hooks", only=event)
        times: dict[str, list[float]] = {kind: [] for kind in setups}
        for kind, (project, env) in setups.items():  # one warm-up each (npm cache, first index)
            _session(program, project, env, model)
        for n in range(args.runs):
            for kind, (project, env) in setups.items():
                times[kind].append(_session(program, project, env, model))
            print(f"round {n + 1}/{args.runs}: " + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in times.items()),
                  file=sys.stderr)
        stop_hook_servers()
    medians = {kind: statistics.median(values) for kind, values in times.items()}
    ratios = {
        "baton hooks / no-op hooks (target <= 1.10)": medians["baton hooks"] / medians["no-op hooks"],
        "baton hooks, own process / no-op hooks": medians["baton hooks, own process"] / medians["no-op hooks"],
        "no-op hooks / bare": medians["no-op hooks"] / medians["bare"],
        "baton / bare": medians["baton"] / medians["bare"],
        "baton / baton hooks (waiting for the MCP server)": medians["baton"] / medians["baton hooks"],
        "baton, MCP not alwaysLoad / baton hooks": medians["baton, MCP not alwaysLoad"] / medians["baton hooks"],
    }
    ratios.update({f"{kind} / bare": medians[kind] / medians["bare"] for kind in medians if kind.startswith("only ")})
    if "baton hooks, compared" in medians:
        ratios["baton hooks, compared / no-op hooks"] = medians["baton hooks, compared"] / medians["no-op hooks"]
        ratios["baton hooks / baton hooks, compared"] = medians["baton hooks"] / medians["baton hooks, compared"]
    print(f"| set-up | median of {args.runs} (s) |\n|---|---|")
    for kind, value in medians.items():
        print(f"| {kind} | {value:.2f} |")
    print("\n| ratio | value |\n|---|---|")
    for name, value in ratios.items():
        print(f"| {name} | {value:.2f} |")
    if args.out:
        args.out.write_text(json.dumps({"claude_code": version, "runs": args.runs, "medians": medians,
                                        "ratios": ratios,
                                        "samples": times}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
