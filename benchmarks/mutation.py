"""Mutation testing of ``baton/ledger/`` (and the deciders): do the tests notice a broken ledger?

    pip install -e '.[test,mutation]'
    nice -n 19 python benchmarks/mutation.py [--package baton/ledger] [--files feed.py,verify.py]
        [--sample N] [--seed S] [--only feed.py:256:return,...] [--rerun results.json]
        [--max-tests 20] [--extra-tests tests/test_new.py] [--jobs 2] [--rebuild-map] [--out results.json]

Not run in CI. A small ``ast`` mutator (mutmut's copy-tree mode fights the
tests that start ``baton`` in a subprocess); each mutant is one changed node:

- a comparison flipped (``==``/``!=``, ``<``/``<=``, ``>``/``>=``, ``in``/``not in``,
  ``is``/``is not``);
- ``and``/``or`` swapped; a ``not`` dropped;
- an integer constant moved by one; ``True``/``False`` swapped;
- ``+``/``-`` swapped;
- a ``raise`` replaced by ``pass``;
- a statement that only calls something (``os.fsync(fd)``) removed;
- ``return <expr>`` turned into ``return None``.

Test selection is coverage-guided, as mutmut does: the test files that reach
the ledger or the deciders (``MAP_GREP``) run once under ``coverage`` with one
context per test (cached in ``benchmarks/.mutation-map.json``; ``--rebuild-map``
redoes it, in ``--jobs`` processes), and a mutant runs, with ``-x``, only the
tests that executed its statement: the package's own test files first, then
the others, each fastest first, ``slow`` tests only when nothing else reaches
the line, at most ``--max-tests`` of them. A statement executed only at
import (a constant, a default) runs against the package's default test files
(``--default-tests``); one no test executes in-process (reached only in a
``baton`` subprocess, which in-process coverage cannot see, or not at all)
is reported as *not covered* and not run, unless ``--run-uncovered``.

Every mutant runs in a copy of the project with ``PYTHONPATH`` pointing at
it, so subprocesses the tests start import the mutant too. A mutant is
*killed* when the tests fail (or time out: 30 s + 10x their mapped duration),
*survives* when they pass. The score is killed / (killed + survived), the
not-covered counted apart;
survivors are printed so each can be judged: a test to add, or an equivalent
mutant (listed with its reason in ``docs/ledger.md``).
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import queue
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAP_FILE = ROOT / "benchmarks" / ".mutation-map.json"
MAPPED = ["baton/ledger", "baton/domain"]
DEFAULT_TESTS = {
    "baton/ledger": "tests/test_ledger_*.py",
    "baton/domain/aggregates": "tests/test_aggregates.py tests/test_aggregates_noticed.py tests/test_domain_lifecycle.py",
    "baton/domain": "tests/test_aggregates.py tests/test_aggregates_noticed.py tests/test_domain_lifecycle.py "
                    "tests/test_identifier_screen.py",
}

COMPARE_SWAP = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}


def mutation_points(tree: ast.AST) -> list[tuple[int, str]]:
    """Every ``(node index, operator)`` a mutant can change, in walk order."""
    points = []
    for i, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.Compare) and type(node.ops[0]) in COMPARE_SWAP:
            points.append((i, "compare"))
        elif isinstance(node, ast.BoolOp):
            points.append((i, "boolop"))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            points.append((i, "not"))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            points.append((i, "int"))
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            points.append((i, "bool"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            points.append((i, "arith"))
        elif isinstance(node, ast.Raise):
            points.append((i, "raise"))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            points.append((i, "call"))
        elif isinstance(node, ast.Return) and node.value is not None and not isinstance(node.value, ast.Constant):
            points.append((i, "return"))
    return points


def statement_lines(tree: ast.AST) -> dict[int, int]:
    """Walk index -> first line of the innermost statement holding the node (what coverage records)."""
    order = {id(node): i for i, node in enumerate(ast.walk(tree))}
    lines = {}
    for node in ast.walk(tree):  # breadth first: an inner statement overwrites its outer one
        if isinstance(node, ast.stmt):
            for inner in ast.walk(node):
                lines[order[id(inner)]] = node.lineno
    return lines


class _Mutate(ast.NodeTransformer):
    def __init__(self, target: int, kind: str, walk_order: dict[int, int]) -> None:
        self.target, self.kind, self.order = target, kind, walk_order

    def visit(self, node):
        if self.order.get(id(node)) == self.target:
            return self.change(node)
        return super().visit(node)

    def change(self, node):
        kind = self.kind
        if kind == "compare":
            node.ops = [COMPARE_SWAP[type(node.ops[0])]()] + node.ops[1:]
        elif kind == "boolop":
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        elif kind == "not":
            return node.operand
        elif kind == "int":
            node.value = node.value + 1
        elif kind == "bool":
            node.value = not node.value
        elif kind == "arith":
            node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
        elif kind in ("raise", "call"):
            return ast.copy_location(ast.Pass(), node)
        elif kind == "return":
            node.value = ast.copy_location(ast.Constant(value=None), node.value)
        return node


def mutant_source(source: str, target: int, kind: str) -> str:
    tree = copy.deepcopy(ast.parse(source))
    order = {id(node): i for i, node in enumerate(ast.walk(tree))}
    return ast.unparse(ast.fix_missing_locations(_Mutate(target, kind, order).visit(tree)))


# -- the coverage map ---------------------------------------------------------------------------------------

def map_worker(out: str, pytest_args: list[str]) -> int:
    """Run inside a child: the tests under coverage, one context per test; write line -> tests."""
    if Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        sys.path[0] = str(ROOT)  # benchmarks/secrets.py would shadow the standard library's
    import coverage

    cov = coverage.Coverage(data_file=None, source=[str(ROOT / p) for p in MAPPED])
    cov.start()
    import pytest

    durations: Counter = Counter()
    failed: set[str] = set()
    slow: set[str] = set()

    class Contexts:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_protocol(self, item, nextitem):
            if item.get_closest_marker("slow"):
                slow.add(item.nodeid.split("[")[0])
            cov.switch_context(item.nodeid)
            yield
            cov.switch_context("")

        def pytest_runtest_logreport(self, report):
            durations[report.nodeid] += report.duration
            if report.failed:
                failed.add(report.nodeid)

    code = pytest.main(["-q", "-p", "no:cacheprovider", *pytest_args], plugins=[Contexts()])
    cov.stop()
    data = cov.get_data()
    lines: dict[str, dict[int, list[str]]] = {}
    for measured in data.measured_files():
        by_line = data.contexts_by_lineno(measured)
        lines[str(Path(measured).relative_to(ROOT))] = {n: sorted(c for c in ctx if c) for n, ctx in by_line.items()}
    Path(out).write_text(json.dumps({"lines": lines, "durations": durations, "failed": sorted(failed),
                                     "slow": sorted(slow), "exit": int(code)}))
    return 0


MAP_GREP = re.compile(r'baton\.ledger|baton\.domain|"(verify|repair|sync|forget)"|\.(verify|repair|sync|forget)\(')
"""The test files the map runs by default: those that import the ledger or the deciders, or run verify,
repair, sync or forget."""


def map_test_files(patterns: str) -> list[str]:
    if patterns:
        return [str(p.relative_to(ROOT)) for pattern in patterns.split() for p in sorted(ROOT.glob(pattern))]
    return [str(p.relative_to(ROOT)) for p in sorted(ROOT.glob("tests/test_*.py")) if MAP_GREP.search(p.read_text())]


def load_map(rebuild: bool, tests: str, jobs: int) -> dict:
    if rebuild or not MAP_FILE.exists():
        files = map_test_files(tests)
        print(f"building the coverage map over {len(files)} test files in {jobs} processes "
              f"(cached in {MAP_FILE.name}) ...", flush=True)
        started = time.monotonic()
        env = dict(os.environ, CI="true")
        parts = [f"{MAP_FILE}.{j}" for j in range(jobs)]
        children = [subprocess.Popen([sys.executable, __file__, "--map-worker", part, *files[j::jobs]], cwd=ROOT,
                                     env=env, stdout=subprocess.DEVNULL) for j, part in enumerate(parts)]
        if any(child.wait() for child in children):
            raise SystemExit("a map worker failed")
        merged: dict = {"lines": defaultdict(dict), "durations": {}, "failed": [], "slow": []}
        for part in parts:
            data = json.loads(Path(part).read_text())
            for rel, by_line in data["lines"].items():
                for line, contexts in by_line.items():
                    merged["lines"][rel][line] = sorted(set(merged["lines"][rel].get(line, [])) | set(contexts))
            merged["durations"].update(data["durations"])
            merged["failed"] += data["failed"]
            merged["slow"] += data["slow"]
            os.unlink(part)
        MAP_FILE.write_text(json.dumps(merged))
        print(f"map built in {time.monotonic() - started:.0f} s; tests that failed (never selected): "
              f"{merged['failed']}", flush=True)
    return json.loads(MAP_FILE.read_text())


def tests_for(cmap: dict, rel: str, line: int, own: frozenset[str] = frozenset()) -> tuple[list[str], list[float]]:
    """The test functions that executed this line (parametrized cases collapse to one), those in the
    package's ``own`` test files first, each group fastest first; and each one's seconds in the map's run."""
    by_function: Counter = Counter()
    for nodeid in cmap["lines"].get(rel, {}).get(str(line), []):
        if nodeid not in cmap["failed"]:
            by_function[nodeid.split("[")[0]] += cmap["durations"].get(nodeid, 1.0)
    quick = {f: s for f, s in by_function.items() if f not in cmap["slow"]}
    if quick:  # tests marked slow (processes, crashes, races) only when no other test reaches the line
        by_function = Counter(quick)
    order = sorted(by_function, key=lambda f: (f.split("::")[0] not in own, by_function[f], f))
    return order, [by_function[f] for f in order]


# -- running mutants ----------------------------------------------------------------------------------------

def run_tests(copy_root: Path, tests: list[str], timeout: float) -> tuple[str, str]:
    env = dict(os.environ, PYTHONPATH=str(copy_root), CI="true", PYTHONDONTWRITEBYTECODE="1")
    try:
        r = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                           cwd=copy_root, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "killed (timeout)", ""
    if r.returncode == 0:
        return "survived", ""
    if r.returncode == 5:  # nothing ran: nothing noticed
        return "survived", "no test selected"
    if r.returncode in (3, 4):
        return "error", r.stdout[-300:] + r.stderr[-300:]
    if r.returncode != 1:  # 2: interrupted (an import error in the mutant)
        return "killed", f"pytest exit {r.returncode}"
    failed = [ln for ln in r.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
    return "killed", (failed[0][:200] if failed else "")


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] == ["--map-worker"]:
        return map_worker(sys.argv[2], sys.argv[3:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", default="baton/ledger", help="folder of modules to mutate")
    parser.add_argument("--files", help="comma-separated module names in the package (default: all)")
    parser.add_argument("--sample", type=int, default=0, help="mutants to draw at random (0: all of them)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--only", help="comma-separated FILE:LINE[:KIND] mutants to run")
    parser.add_argument("--rerun", help="run again the survivors of this results JSON")
    parser.add_argument("--skip", help="leave out the mutants of these results JSONs (comma-separated)")
    parser.add_argument("--default-tests", help="tests for lines no test executes in-process")
    parser.add_argument("--extra-tests", default="", help="test files every mutant also runs (tests added since the map)")
    parser.add_argument("--map-tests", default="", help="test files the map runs (default: see MAP_GREP)")
    parser.add_argument("--rebuild-map", action="store_true")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--max-tests", type=int, default=0,
                        help="run only this many of the covering tests, fastest first (0: all); a survivor is then "
                             "only a candidate: --rerun it with all")
    parser.add_argument("--run-uncovered", action="store_true",
                        help="run mutants on lines no test executes against the default tests (else: not covered)")
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args(argv)

    package = ROOT / args.package
    names = args.files.split(",") if args.files else sorted(p.name for p in package.glob("*.py"))
    wanted = None
    if args.only:
        wanted = [tuple(spec.split(":")) for spec in args.only.split(",")]
    if args.rerun:
        previous = json.loads(Path(args.rerun).read_text())["results"]
        wanted = [(r["file"], str(r["line"]), r["kind"]) for r in previous if r["outcome"] == "survived"]
        names = sorted({w[0] for w in wanted})

    candidates = []  # (name, index, kind, line)
    for name in names:
        tree = ast.parse((package / name).read_text())
        lines = statement_lines(tree)
        for index, kind in mutation_points(tree):
            line = lines.get(index, 0)
            if wanted is None or any(w[0] == name and w[1] == str(line) and (len(w) < 3 or w[2] == kind)
                                     for w in wanted):
                candidates.append((name, index, kind, line))
    if args.skip:
        done = {(r["file"], r["index"]) for path in args.skip.split(",")
                for r in json.loads(Path(path).read_text())["results"] if "index" in r}
        candidates = [c for c in candidates if (c[0], c[1]) not in done]
    if args.sample:
        candidates = random.Random(args.seed).sample(candidates, min(args.sample, len(candidates)))

    cmap = load_map(args.rebuild_map, args.map_tests, max(1, args.jobs))
    defaults = (args.default_tests or DEFAULT_TESTS.get(args.package, "tests/test_*.py")).split()
    default_files = [str(p.relative_to(ROOT)) for pattern in defaults for p in sorted(ROOT.glob(pattern))]
    extra = [str(p.relative_to(ROOT)) for pattern in args.extra_tests.split() for p in sorted(ROOT.glob(pattern))]

    work = Path(tempfile.mkdtemp(prefix="baton-mutation-"))
    copies: queue.Queue = queue.Queue()
    for j in range(max(1, args.jobs)):
        shutil.copytree(ROOT, work / f"p{j}", ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.pyc",
                                                                            ".hypothesis", ".mutation-map.json"))
        copies.put(work / f"p{j}")
    done = [0]

    def one(candidate):
        name, index, kind, line = candidate
        rel = f"{args.package}/{name}"
        original = (package / name).read_text()
        mutated = mutant_source(original, index, kind)
        if ast.dump(ast.parse(mutated)) == ast.dump(ast.parse(original)):
            return None
        tests, seconds = tests_for(cmap, rel, line, frozenset(default_files))
        covered = bool(tests)
        executed = str(line) in cmap["lines"].get(rel, {})  # at least at import
        code = original.splitlines()[line - 1].strip() if line else ""
        if not covered and not executed and not args.run_uncovered:
            print(f"[-] {name}:{line} {kind:8} not covered      {code[:60]}", flush=True)
            return {"file": name, "line": line, "kind": kind, "index": index, "outcome": "not covered",
                    "code": code, "covered": False, "tests": 0, "by": "", "seconds": 0}
        if not covered:
            tests = ["-m", "not slow", *default_files]
            timeout = 900.0
        else:
            if args.max_tests:
                tests, seconds = tests[:args.max_tests], seconds[:args.max_tests]
            timeout = 30 + 10 * sum(seconds)
        tests = extra + tests
        timeout += 60 * len(extra)
        root = copies.get()
        started = time.monotonic()
        try:
            (root / rel).write_text(mutated)
            outcome, by = run_tests(root, tests, timeout)
        finally:
            (root / rel).write_text(original)
            copies.put(root)
        done[0] += 1
        print(f"[{done[0]}/{len(candidates)}] {name}:{line} {kind:8} {outcome:16} "
              f"{len(tests) if covered else 'default'} tests {time.monotonic() - started:4.0f} s  {code[:60]}",
              flush=True)
        return {"file": name, "line": line, "kind": kind, "index": index, "outcome": outcome, "code": code,
                "covered": covered, "tests": len(tests), "by": by, "seconds": round(time.monotonic() - started, 1)}

    started = time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = [r for r in pool.map(one, candidates) if r is not None]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    elapsed = time.monotonic() - started
    per_file: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        per_file[r["file"]]["killed" if r["outcome"].startswith("killed") else r["outcome"]] += 1
    for name, counts in sorted(per_file.items()):
        run = counts["killed"] + counts["survived"]
        apart = f", {counts['not covered']} not covered" if counts["not covered"] else ""
        print(f"  {name:16} {counts['killed']:4} of {run:4} killed ({counts['killed'] / max(run, 1):.0%}){apart}")
    killed = sum(1 for r in results if r["outcome"].startswith("killed"))
    survived = [r for r in results if r["outcome"] == "survived"]
    uncovered = sum(1 for r in results if r["outcome"] == "not covered")
    score = killed / (killed + len(survived)) if killed + len(survived) else 0.0
    print(f"\n{args.package}: {killed} of {killed + len(survived)} mutants killed ({score:.1%}) in "
          f"{elapsed / 60:.0f} min; {uncovered} more on lines no test executes (not run); survivors:")
    for r in survived:
        print(f"  {r['file']}:{r['line']}:{r['kind']}  {r['code']}")
    if args.out:
        Path(args.out).write_text(json.dumps({"package": args.package, "score": score, "killed": killed,
                                              "mutants": len(results), "minutes": round(elapsed / 60, 1),
                                              "results": results}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
