"""Build (and cache) projects of a year's use, through the application.

    python benchmarks/build.py --sizes 1000,10000,100000 [--cache DIR]

Every benchmark measures on projects built here, never on synthetic
envelopes: a temporary git repository (made with dulwich; no ``git`` is
spawned), ``baton init``, then rounds of the mix a working agent leaves, until
``.baton/ledger/*.jsonl`` holds at least N events:

1. ``checkpoint create`` with the sections an agent fills in at the end of a
   stretch of work (two decisions, two open items, a failed attempt,
   evidence, an artifact); every other round continues the previous handoff
   (``--from``);
2. ``handoff validate`` (which reads ``git status``);
3. ``handoff ready`` (accepting the warning a dirty tree gives);
4. ``session end SID --handoff-steps ...`` (leaves a baton);
5. ``bootstrap --session-id ...`` (claims it);

and every fourth round commits the changed file. That is 7.5 events a round.

The rounds go through one long-lived ``baton.app.Baton`` — the object the CLI
builds per invocation and the MCP server keeps — so a build pays for the
commands' work (screening, validation, git, appends, folding), not for
starting a process per command. The payload of step 1 is parsed by the CLI's
own parser (``baton checkpoint create ...`` flags), so it is exactly what the
CLI would capture.

Built projects are cached under ``--cache DIR`` (default
``$BATON_BENCH_CACHE``, else ``~/.cache/baton-bench``) as
``project-N-rRECIPE/{repo,meta.json}``; a larger size extends a copy of the
largest smaller one. Bump ``RECIPE`` when the mix changes.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

RECIPE = 2
"""Bump when the build mix changes, so cached projects are not reused."""

AUTHOR = b"Baton Bench <bench@example.invalid>"
DEFAULT_CACHE = Path(os.environ.get("BATON_BENCH_CACHE") or Path.home() / ".cache" / "baton-bench")
STEPS = {"nextSteps": ["Write the replay test", "Run the full suite"],
         "failedApproaches": ["In-memory token cache"], "openQuestions": ["Which table holds nonces?"]}


def load_sibling(name: str, filename: str) -> Any:
    """Import a sibling benchmark script by path, once per process, as ``name``
    (``commands``/``ledger`` are names too common to put on sys.path)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parent / filename)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def baton_cli(root: Path, *argv: str, expect: int = 0) -> Any:
    """Run ``baton ARGV --json --project ROOT`` in-process; return its JSON result."""
    from baton.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*argv, "--json", "--project", str(root)])
    if code != expect:
        raise SystemExit(f"baton {' '.join(argv)} exited {code} (expected {expect}):\n"
                         f"{out.getvalue()[-1500:]}\n{err.getvalue()[-1500:]}")
    text = out.getvalue().strip()
    return json.loads(text) if text else None


def git_repo(root: Path) -> None:
    """A git repository with a local identity (so the baton owner is fixed) and one commit."""
    from dulwich import porcelain
    from dulwich.repo import Repo

    porcelain.init(str(root))
    with contextlib.closing(Repo(str(root))) as repo:
        config = repo.get_config()
        config.set((b"user",), b"name", b"Baton Bench")
        config.set((b"user",), b"email", b"bench@example.invalid")
        config.write_to_path()
    commit(root, "Initial import", {"src/app.py": "def handler(request):\n    return None\n",
                                    "README.md": "# bench app\n"})


def commit(root: Path, message: str, files: dict[str, str]) -> None:
    from dulwich import porcelain

    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    porcelain.add(str(root), [str(root / name) for name in files])
    porcelain.commit(str(root), message=message.encode(), author=AUTHOR, committer=AUTHOR)


def capture_argv(i: int | str) -> list[str]:
    """``checkpoint create`` flags with the sections an agent fills in at the end of a stretch of work."""
    return [
        "checkpoint", "create", "--no-input",
        "--title", f"Harden the request handler, step {i}",
        "--objective", "Requests with a replayed token are rejected, and a test proves it",
        "--constraint", "Do not change the public API",
        "--done", "Replay test passes", "--done", "Full suite passes",
        "--current-state", f"Step {i}: handler checks the token; replay test not written yet",
        "--completed", f"Refactored the token check (round {i})",
        "--in-progress", "Writing the replay test",
        "--decision", json.dumps({"decision": f"Compare tokens in constant time (round {i})",
                                  "rationale": "Avoid timing side channels on a secret-derived value"}),
        "--decision", json.dumps({"decision": "Keep the nonce store in the database",
                                  "rationale": "Workers do not share memory"}),
        "--open-item", json.dumps({"priority": "high", "description": f"Write the replay test #{i}",
                                   "suggested_action": "Replay one request twice, then run the suite",
                                   "acceptance_check": "The second request is rejected"}),
        "--open-item", json.dumps({"priority": "medium", "description": "Document the nonce table",
                                   "suggested_action": "Add a section to README.md"}),
        "--failed-attempt", json.dumps({"approach": "Cache seen tokens in process memory", "outcome": "abandoned",
                                        "reason": "Workers do not share memory", "avoid_repeating": True}),
        "--evidence", json.dumps({"type": "test", "claim": "Existing handler tests pass",
                                  "ref": "pytest tests/handler", "result": "pass"}),
        "--artifact", "src/app.py:modified",
    ]


class Rounds:
    """The build mix, through one ``Baton`` application object."""

    def __init__(self, app: Any) -> None:
        from baton.cli import build_parser
        from baton.cli_handlers.drafts import _content
        from baton.cli_input import capture_payload

        self.app = app
        self.template = capture_payload(_content(build_parser().parse_args(capture_argv("{i}")), app))
        self.parent: str | None = None

    def _fill(self, value: Any, i: int) -> Any:
        if isinstance(value, str):
            return value.replace("{i}", str(i))
        if isinstance(value, list):
            return [self._fill(v, i) for v in value]
        if isinstance(value, dict):
            return {k: self._fill(v, i) for k, v in value.items()}
        return value

    def capture(self, i: int, parent: str | None = None) -> str:
        return self.app.capture(self._fill(self.template, i), parent=parent).handoff_id

    def ready(self, handoff_id: str) -> None:
        report = self.app.validate(handoff_id).report
        self.app.promote(handoff_id, accept_warnings="bench" if report["status"] == "warn" else None)

    def leave_baton(self, session: str) -> None:
        self.app.end_session(session, dict(STEPS))

    def claim(self, session: str) -> None:
        if not self.app.bootstrap(session_id=session).to_json().get("claimed"):
            raise SystemExit(f"bootstrap --session-id {session} did not claim the pending baton")

    def round(self, root: Path, i: int) -> None:
        (root / "src/app.py").write_text(f"def handler(request):\n    # round {i}\n    return None\n")
        handoff_id = self.capture(i, parent=self.parent if i % 2 == 0 else None)
        self.ready(handoff_id)
        self.parent = handoff_id
        self.leave_baton(f"bench-{i}-a")
        self.claim(f"bench-{i}-b")
        if i % 4 == 0:
            commit(root, f"Round {i}", {"src/app.py": (root / "src/app.py").read_text()})


class EventCounter:
    """Lines in ``.baton/ledger/*.jsonl``, reading only what each feed gained since the last count."""

    def __init__(self, root: Path) -> None:
        self.ledger = root / ".baton" / "ledger"
        self.seen: dict[Path, tuple[int, int]] = {}

    def __call__(self) -> int:
        for feed in sorted(self.ledger.glob("*.jsonl")):
            offset, lines = self.seen.get(feed, (0, 0))
            with open(feed, "rb") as fh:
                fh.seek(offset)
                gained = fh.read()
            self.seen[feed] = (offset + len(gained), lines + gained.count(b"\n"))
        return sum(lines for _offset, lines in self.seen.values())


def build_project(root: Path, size: int, base: tuple[Path, dict] | None = None) -> dict:
    """Build a project of at least ``size`` events, from scratch or by extending a copy of ``base``."""
    from baton.app import Baton

    start = time.perf_counter()
    if base is None:
        root.mkdir(parents=True)
        git_repo(root)
        baton_cli(root, "init")
        rounds, spent = 0, 0.0
    else:
        shutil.copytree(base[0], root, symlinks=True)
        rounds, spent = base[1]["rounds"], base[1]["build_seconds"]
    count = EventCounter(root)
    with Baton.open(root) as app:
        mix = Rounds(app)
        last = time.perf_counter()
        while count() < size:
            rounds += 1
            mix.round(root, rounds)
            if rounds % 500 == 0:
                now = time.perf_counter()
                print(f"#   {count()} events after {rounds} rounds, {now - start:.0f} s "
                      f"({500 * 7.5 / (now - last):.0f} events/s lately)", file=sys.stderr, flush=True)
                last = now
    return {"events": count(), "rounds": rounds, "recipe": RECIPE,
            "build_seconds": round(spent + time.perf_counter() - start, 1)}


def cached_project(cache: Path, size: int) -> tuple[Path, dict]:
    """The cached project for ``size`` and its build record.

    Built on first use; a larger size extends a copy of the largest smaller
    project already cached (the same recipe, so the result is the same mix).
    """
    home = cache / f"project-{size}-r{RECIPE}"
    meta_file = home / "meta.json"
    if meta_file.exists():
        return home / "repo", json.loads(meta_file.read_text())
    shutil.rmtree(home, ignore_errors=True)
    smaller = []
    for other in cache.glob(f"project-*-r{RECIPE}/meta.json"):
        meta = json.loads(other.read_text())
        if meta["events"] < size:
            smaller.append((meta["events"], other.parent / "repo", meta))
    base = max(smaller, key=lambda found: found[0])[1:] if smaller else None
    extending = f" by extending the {base[1]['events']}-event one" if base else ""
    print(f"# building a {size}-event project in {home}{extending} ...", file=sys.stderr, flush=True)
    meta = build_project(home / "repo", size, base)
    meta_file.write_text(json.dumps(meta))
    return home / "repo", meta


def is_cached(cache: Path, size: int) -> bool:
    return (cache / f"project-{size}-r{RECIPE}" / "meta.json").exists()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated sizes in events (default: 1000,10000)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help="where built projects are kept (default: $BATON_BENCH_CACHE, else ~/.cache/baton-bench)")
    args = parser.parse_args(argv)
    for size in sorted(int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()):
        root, meta = cached_project(args.cache, size)
        print(f"{size}: {meta['events']} events, {meta['rounds']} rounds, built in {meta['build_seconds']} s "
              f"-> {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
