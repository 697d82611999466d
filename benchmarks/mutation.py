"""Mutation testing of ``baton/ledger/``: do the tests notice a broken ledger?

    python benchmarks/mutation.py [--files feed.py,verify.py] [--sample N] [--seed S]
                                  [--tests "tests/test_ledger_*.py"] [--timeout 600] [--out FILE]

Not run in CI: each mutant is a run of the ledger tests. A small ``ast``
mutator (mutmut's copy-tree mode fights the tests that start ``baton`` in a
subprocess), so each mutant is one changed node of one file:

- a comparison flipped (``==``/``!=``, ``<``/``<=``, ``>``/``>=``, ``in``/``not in``,
  ``is``/``is not``);
- ``and``/``or`` swapped; a ``not`` dropped;
- an integer constant moved by one; ``True``/``False`` swapped;
- ``+``/``-`` swapped;
- a ``raise`` replaced by ``pass``;
- a statement that only calls something (``os.fsync(fd)``) removed;
- ``return <expr>`` of a boolean function turned into ``return True``/``False``.

Every mutant runs in a copy of the project (``--copy``, a temporary folder)
with ``PYTHONPATH`` pointing at it, so subprocesses the tests start import the
mutant too. A mutant is *killed* when the tests fail (or time out), *survives*
when they pass. The score is killed / (killed + survived); survivors are
printed with their line so each can be judged: a test to add, or an
equivalent mutant (listed with its reason in ``docs/ledger.md``).
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LEDGER = ROOT / "baton" / "ledger"

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


class _Mutate(ast.NodeTransformer):
    def __init__(self, target: int, kind: str, walk_order: dict[int, int]) -> None:
        self.target, self.kind, self.order = target, kind, walk_order
        self.line = 0

    def visit(self, node):
        if self.order.get(id(node)) == self.target:
            self.line = getattr(node, "lineno", 0)
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


def mutant_source(source: str, target: int, kind: str) -> tuple[str, int]:
    tree = ast.parse(source)
    tree = copy.deepcopy(tree)
    order = {id(node): i for i, node in enumerate(ast.walk(tree))}
    mutator = _Mutate(target, kind, order)
    mutated = ast.fix_missing_locations(mutator.visit(tree))
    return ast.unparse(mutated), mutator.line


def run_tests(copy_root: Path, tests: list[str], timeout: float) -> str:
    env = dict(os.environ, PYTHONPATH=str(copy_root), CI="true", PYTHONDONTWRITEBYTECODE="1")
    try:
        r = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                            "-m", "not slow", *tests], cwd=copy_root, env=env, capture_output=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "killed (timeout)"
    return "survived" if r.returncode == 0 else "killed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", default="feed.py,store.py,envelope.py,verify.py,integrity.py,repair.py")
    parser.add_argument("--sample", type=int, default=0, help="mutants to draw at random (0: all of them)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--tests", default="tests/test_ledger_*.py")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args(argv)

    candidates = []
    for name in args.files.split(","):
        source = (LEDGER / name).read_text()
        for index, kind in mutation_points(ast.parse(source)):
            candidates.append((name, index, kind))
    if args.sample:
        candidates = random.Random(args.seed).sample(candidates, min(args.sample, len(candidates)))
    work = Path(tempfile.mkdtemp(prefix="baton-mutation-"))
    results = []
    try:
        copy_root = work / "project"
        shutil.copytree(ROOT, copy_root, ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.pyc"))
        tests = [str(p.relative_to(ROOT)) for pattern in args.tests.split() for p in sorted(ROOT.glob(pattern))]
        for n, (name, index, kind) in enumerate(candidates, 1):
            path = copy_root / "baton" / "ledger" / name
            original = path.read_text()
            mutated, line = mutant_source(original, index, kind)
            if ast.dump(ast.parse(mutated)) == ast.dump(ast.parse(original)):
                continue
            path.write_text(mutated)
            started = time.monotonic()
            try:
                outcome = run_tests(copy_root, tests, args.timeout)
            finally:
                path.write_text(original)
            code = original.splitlines()[line - 1].strip() if line else ""
            results.append({"file": name, "line": line, "kind": kind, "outcome": outcome, "code": code,
                            "seconds": round(time.monotonic() - started, 1)})
            print(f"[{n}/{len(candidates)}] {name}:{line} {kind:8} {outcome:18} {code[:70]}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    killed = sum(1 for r in results if r["outcome"].startswith("killed"))
    survived = [r for r in results if r["outcome"] == "survived"]
    score = killed / len(results) if results else 0.0
    print(f"\n{killed} of {len(results)} mutants killed ({score:.0%}); survivors:")
    for r in survived:
        print(f"  {r['file']}:{r['line']} {r['kind']}: {r['code']}")
    if args.out:
        Path(args.out).write_text(json.dumps({"score": score, "results": results}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
