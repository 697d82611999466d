"""How the head moved since a handoff was captured (docs/resume-brief.md,
"How the head moved"): it advanced, history was rewritten (amend, rebase,
reset), or the session is on another branch; and commit evidence whose commit
is missing or not in HEAD's history is flagged. Real git repositories; the
CLI in a child process, as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from baton import git_loose, gitinfo
from baton.domain.freshness import (
    ADVANCED,
    OTHER_BRANCH,
    REWRITTEN,
    UNTOLD,
    HistoryFacts,
    derive_freshness,
    flagged_evidence,
    head_change,
)
from tests.conftest import run_baton

CAPTURED = "a" * 40
NOW = "b" * 40


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout.strip()


def commit(root: Path, name: str, text: str = "x\n", *, date: str | None = None) -> str:
    (root / name).write_text(text)
    git(root, "add", name)
    dated = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date} if date else {}
    subprocess.run(["git", "commit", "-q", "-m", f"add {name}"], cwd=root, check=True, env={**os.environ, **dated})
    return git(root, "rev-parse", "HEAD")


def baton(root: Path, *args: str) -> subprocess.CompletedProcess:
    r = run_baton(*args, cwd=root)
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "alice@example.com")
    git(root, "config", "user.name", "Alice")
    commit(root, "a")
    baton(root, "init")
    return root


def leave_baton(root: Path) -> str:
    """A session baton left at the current head; its handoff id."""
    out = json.loads(baton(root, "--json", "session", "end", "s1", "--handoff-steps", "carry on").stdout)
    return out["handoff"]["id"]


def freshness(root: Path, handoff_id: str) -> dict:
    return json.loads(baton(root, "--json", "resume", handoff_id).stdout)["freshness"]


# -- the adapter: a bounded walk from HEAD -------------------------------------------


@pytest.fixture(params=["repository", "object store"])
def reach_from_head(request):
    """``gitinfo.reach_from_head`` as a command asks it: through dulwich's ``Repo``, or, given
    HEAD's sha (as freshness gives it), through the object store alone (``_object_history``)."""
    def ask(root: Path, commits: list[str], **options):
        if request.param == "object store":
            options["head"] = gitinfo.head_commit(root)
            assert gitinfo._object_history(root, options["head"]) is not None  # really the store's answer
        return gitinfo.reach_from_head(root, commits, **options)

    return ask


def test_a_commit_in_heads_history_is_reachable_and_commits_ahead_are_counted(repo, reach_from_head):
    first = git(repo, "rev-parse", "HEAD")
    commit(repo, "b")
    commit(repo, "c")
    reach, ahead = reach_from_head(repo, [first], ahead_of=first)
    assert reach == {first: "reachable"}
    assert ahead == 2


def test_a_commit_amended_away_is_unreachable(repo, reach_from_head):
    old = commit(repo, "b")
    git(repo, "commit", "-q", "--amend", "-m", "amended")
    assert reach_from_head(repo, [old]) == ({old: "unreachable"}, None)


def test_a_full_id_no_object_has_is_missing(repo, reach_from_head):
    assert reach_from_head(repo, ["0123456789" * 4])[0] == {"0123456789" * 4: "missing"}


def test_the_walk_stops_at_its_bound_and_cannot_tell(repo, reach_from_head):
    first = git(repo, "rev-parse", "HEAD")
    for name in ("b", "c", "d"):
        commit(repo, name)
    assert reach_from_head(repo, [first], limit=2)[0] == {first: "unknown"}


def test_a_commit_amended_away_in_a_long_history_is_told_from_the_commits_made_since(repo, reach_from_head):
    """The walk reads newest first and stops at commits older (by more than a
    day) than the one it looks for: past its bound of commits, still an answer."""
    for name in ("b", "c", "d", "e"):
        commit(repo, name, date="2020-01-01T00:00:00")
    old = commit(repo, "f", date="2024-01-01T00:00:00")
    git(repo, "commit", "-q", "--amend", "-m", "amended")
    assert reach_from_head(repo, [old], limit=3)[0] == {old: "unreachable"}


def test_an_abbreviated_id_in_heads_history_is_reachable(repo, reach_from_head):
    old = commit(repo, "b")
    commit(repo, "c")
    assert reach_from_head(repo, [old[:9]])[0] == {old[:9]: "reachable"}


def test_a_packed_history_is_walked_as_a_loose_one(repo, reach_from_head):
    first = git(repo, "rev-parse", "HEAD")
    old = commit(repo, "b")
    git(repo, "commit", "-q", "--amend", "-m", "amended")
    git(repo, "gc", "-q")
    commit(repo, "c")
    assert reach_from_head(repo, [first, old], ahead_of=first) == ({first: "reachable", old: "unreachable"}, 2)


def merged(root: Path) -> None:
    """A side branch of two commits merged into main, then one more commit on main."""
    git(root, "checkout", "-q", "-b", "side")
    commit(root, "s1")
    commit(root, "s2")
    git(root, "checkout", "-q", "main")
    commit(root, "m1")
    git(root, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    commit(root, "m2")


def test_commits_ahead_across_a_merge_are_counted_as_dulwichs_walker_counts_them(repo, reach_from_head):
    first = git(repo, "rev-parse", "HEAD")
    merged(repo)
    reach, ahead = reach_from_head(repo, [first], ahead_of=first)
    assert reach == {first: "reachable"}
    assert ahead == int(git(repo, "rev-list", "--count", f"{first}..HEAD")) == 5


def test_commits_ahead_from_a_merged_branchs_commit_are_counted_as_dulwichs_walker_counts_them(repo, reach_from_head):
    git(repo, "checkout", "-q", "-b", "side")
    side = commit(repo, "s1")
    git(repo, "checkout", "-q", "main")
    commit(repo, "m1")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    assert reach_from_head(repo, [side], ahead_of=side)[1] == int(git(repo, "rev-list", "--count", f"{side}..HEAD")) == 2


def test_commits_ahead_on_a_line_past_the_bound_cannot_be_told(repo, reach_from_head):
    first = git(repo, "rev-parse", "HEAD")
    for name in ("b", "c", "d"):
        commit(repo, name)
    assert reach_from_head(repo, [first], ahead_of=first, limit=10) == ({first: "reachable"}, 3)
    assert reach_from_head(repo, [first], ahead_of=first, limit=3)[1] is None


@pytest.mark.parametrize("packed", [False, True], ids=["loose", "packed"])
def test_a_line_of_commits_is_read_from_its_files_without_dulwichs_object_store(repo, packed, monkeypatch):
    """On a line of commits, loose or packed, the walk and the count read each commit with
    dulwich's readers of object files alone: its object store is never opened."""
    first = git(repo, "rev-parse", "HEAD")
    old = commit(repo, "b")
    git(repo, "commit", "-q", "--amend", "-m", "amended")
    commit(repo, "c")
    if packed:
        git(repo, "gc", "-q")
    objects = repo / ".git" / "objects"
    assert bool(list((objects / "pack").glob("*.pack"))) is packed
    assert bool(list(objects.glob("??/*"))) is not packed

    def no_store(self):
        raise AssertionError("dulwich's object store was opened")

    monkeypatch.setattr(gitinfo._ObjectFiles, "store", no_store)
    head = gitinfo.head_commit(repo)
    assert gitinfo.reach_from_head(repo, [first, old], ahead_of=first, head=head) \
        == ({first: "reachable", old: "unreachable"}, 2)


def _loose_object(repo: Path, sha: str) -> bytes:
    return (repo / ".git" / "objects" / sha[:2] / sha[2:]).read_bytes()


def _written(repo: Path, kind: str, body: bytes) -> str:
    """An object ``git hash-object`` writes loose, as git would write one of ``kind``."""
    return subprocess.run(["git", "hash-object", "-w", "-t", kind, "--literally", "--stdin"], cwd=repo, input=body,
                          check=True, capture_output=True).stdout.decode().strip()


def test_a_loose_commit_is_read_as_dulwichs_commit_reads_it(repo):
    """Parents and commit time of every commit of a history with a merge, a root and a commit
    whose headers git extends (an encoding, a signature over several lines), read from the loose
    files without dulwich, equal dulwich's ``Commit``."""
    from dulwich.objects import ShaFile

    merged(repo)
    tree = git(repo, "rev-parse", "HEAD^{tree}")
    head = git(repo, "rev-parse", "HEAD")
    signed = _written(repo, "commit", (
        f"tree {tree}\nparent {head}\nauthor A <a@example.com> 1700000000 +0100\n"
        f"committer C <c@example.com> 1700000100 -0230\nencoding ISO-8859-1\n"
        f"gpgsig -----BEGIN PGP SIGNATURE-----\n \n parent {'f' * 40}\n committer X <x> 9 +0000\n"
        f" -----END PGP SIGNATURE-----\n\nsigned\n\nparent {'e' * 40}\n").encode())
    shas = git(repo, "rev-list", "--all").split() + [signed]
    assert len(shas) == 7  # a root, a merge of two branches, one more, the signed one
    for sha in shas:
        ours = git_loose.loose_commit(_loose_object(repo, sha))
        theirs = ShaFile.from_path(str(repo / ".git" / "objects" / sha[:2] / sha[2:]), sha.encode())
        assert ours == git_loose.LooseCommit(tuple(theirs.parents), theirs.commit_time), sha


def test_a_loose_object_that_is_not_a_plain_commit_is_left_to_dulwich(repo):
    """A tree, a blob, a tag, a commit whose size or committer is not as git writes them: not
    read here (``None``), so dulwich's reader reads or refuses it as before."""
    head = git(repo, "rev-parse", "HEAD")
    tree = git(repo, "rev-parse", "HEAD^{tree}")
    git(repo, "tag", "-a", "-m", "tagged", "v1")
    blob = git(repo, "rev-parse", "HEAD:a")
    no_time = _written(repo, "commit", f"tree {tree}\ncommitter C <c@example.com>\n\nno time\n".encode())
    short_parent = _written(repo, "commit", f"tree {tree}\nparent abc\ncommitter C <c> 1 +0000\n\nx\n".encode())
    for sha in (tree, blob, git(repo, "rev-parse", "v1"), no_time, short_parent):
        assert git_loose.loose_commit(_loose_object(repo, sha)) is None, sha
    import zlib

    whole = zlib.decompress(_loose_object(repo, head))
    kind, _, body = whole.partition(b"\0")
    assert git_loose.loose_commit(zlib.compress(b"commit " + str(len(body) + 1).encode() + b"\0" + body)) is None
    assert git_loose.loose_commit(b"not zlib") is None
    assert git_loose.loose_commit(zlib.compress(whole)) == git_loose.LooseCommit((), int(git(repo, "log", "-1", "--format=%ct")))


def test_a_commit_in_a_shared_clones_alternate_is_read_through_dulwichs_object_store(repo, tmp_path):
    """A ``--shared`` clone keeps its source's objects in an alternate, which only dulwich's
    object store looks in: what the object files do not answer is asked of it."""
    first = git(repo, "rev-parse", "HEAD")
    commit(repo, "b")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--shared", str(repo), str(clone)], check=True)
    assert not list((clone / ".git" / "objects").glob("??/*"))  # every object is in the alternate
    (clone / "c").write_text("c\n")
    git(clone, "add", "c")
    git(clone, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", "c")
    head = gitinfo.head_commit(clone)
    assert gitinfo.reach_from_head(clone, [first], ahead_of=first, head=head) == ({first: "reachable"}, 2)
    assert gitinfo.reach_from_head(clone, ["0123456789" * 4], head=head)[0] == {"0123456789" * 4: "missing"}


def test_a_pack_replaced_by_a_repack_during_the_walk_is_read_again_through_dulwichs_object_store(repo):
    """The packs are listed once; if ``git repack`` replaces one before it is read, the
    commit is found in the new pack by dulwich's object store, which reads the folder again."""
    first = git(repo, "rev-parse", "HEAD")
    git(repo, "gc", "-q")
    files = gitinfo._ObjectFiles(repo / ".git" / "objects")
    listed = files._opened_packs()  # the pack as it was, not yet opened
    commit(repo, "b")
    git(repo, "repack", "-q", "-a", "-d")  # a new pack, with the new commit: the old one is gone
    assert not any(Path(pack._basename + ".pack").exists() for pack in listed)
    try:
        assert first.encode() in files
        assert files[first.encode()].id == first.encode()
    finally:
        files.close()


@pytest.mark.parametrize("change", ["shallow", "grafts", "extension", "format version 2", "include"])
def test_a_repository_whose_parents_or_format_repo_reads_otherwise_is_walked_through_repo(repo, change):
    """A shallow clone's edge, grafts, an extension (the object format among them), an unknown
    format version or an included config: ``Repo`` reads those, so the object store alone is not asked."""
    head = gitinfo.head_commit(repo)
    assert gitinfo._object_history(repo, head) is not None
    if change == "shallow":
        (repo / ".git" / "shallow").write_text(head + "\n")
    elif change == "grafts":
        (repo / ".git" / "info").mkdir(exist_ok=True)
        (repo / ".git" / "info" / "grafts").write_text(head + "\n")
    elif change == "extension":
        git(repo, "config", "extensions.noop", "true")
    elif change == "format version 2":
        git(repo, "config", "core.repositoryformatversion", "2")
    else:
        git(repo, "config", "include.path", "other.cfg")
    assert gitinfo._object_history(repo, head) is None


# -- the decision: pure ----------------------------------------------------------------


def test_a_captured_commit_in_heads_history_means_the_head_advanced():
    report = derive_freshness(CAPTURED, NOW, [], True, HistoryFacts({CAPTURED: "reachable"}, 3, "main", "main"))
    assert (report.state, report.head_relation, report.commits_ahead) == ("stale", ADVANCED, 3)
    assert "3 commits ahead" in head_change(report)


def test_a_captured_commit_not_in_heads_history_on_the_same_branch_means_history_was_rewritten():
    report = derive_freshness(CAPTURED, NOW, [], True, HistoryFacts({CAPTURED: "unreachable"}, None, "main", "main"))
    assert report.head_relation == REWRITTEN
    assert head_change(report).startswith("history was rewritten since capture (amend, rebase or reset)")


def test_a_captured_commit_not_in_another_branchs_history_names_both_branches():
    report = derive_freshness(CAPTURED, NOW, [], True, HistoryFacts({CAPTURED: "unreachable"}, None, "feat", "main"))
    assert report.head_relation == OTHER_BRANCH
    assert head_change(report, "`") == (f"captured on feat at `{CAPTURED[:12]}`; this session is on main at "
                                        f"`{NOW[:12]}`, which does not contain it")


def test_a_walk_that_could_not_tell_says_so():
    report = derive_freshness(CAPTURED, NOW, [], True, HistoryFacts({CAPTURED: "unknown"}, None, "main", "main"))
    assert report.head_relation == UNTOLD
    assert "could not be told" in head_change(report)


def test_a_captured_commit_missing_from_this_repository_cannot_be_told_not_rewritten():
    report = derive_freshness(CAPTURED, NOW, [], True, HistoryFacts({CAPTURED: "missing"}, None, "main", "main"))
    assert report.head_relation == UNTOLD
    assert "not in this repository" in head_change(report) and "rewritten" not in head_change(report)


def test_without_history_facts_the_head_only_moved():
    report = derive_freshness(CAPTURED, NOW, [], True)
    assert report.head_relation is None
    assert report.reasons == (f"repository head moved from {CAPTURED} to {NOW}",)


def test_commit_evidence_not_in_heads_history_is_flagged_and_reachable_evidence_is_not():
    history = HistoryFacts({"c" * 40: "unreachable", "d" * 40: "reachable", "e" * 40: "missing"}, None, "main", "main")
    report = derive_freshness(NOW, NOW, [], True, history, [("E1", "c" * 40), ("E2", "d" * 40), ("E3", "e" * 40)])
    assert report.state == "fresh"
    assert flagged_evidence(report) == {"E1": "commit not in the history of HEAD",
                                        "E3": "commit not in this repository"}


# -- as a user meets it ----------------------------------------------------------------


@pytest.mark.slow
def test_new_commits_on_top_say_the_head_advanced(repo):
    handoff = leave_baton(repo)
    commit(repo, "b")
    commit(repo, "c")
    fresh = freshness(repo, handoff)
    assert (fresh["head_relation"], fresh["commits_ahead"]) == ("advanced", 2)


@pytest.mark.slow
def test_an_amend_says_history_was_rewritten_and_asks_no_check_that_the_head_is_still_there(repo):
    commit(repo, "b")
    handoff = leave_baton(repo)
    git(repo, "commit", "-q", "--amend", "-m", "amended")
    assert freshness(repo, handoff)["head_relation"] == "rewritten"
    brief = baton(repo, "resume", handoff).stdout
    assert "history was rewritten since capture (amend, rebase or reset)" in brief
    assert "head is still" not in brief


@pytest.mark.slow
def test_a_rebase_says_history_was_rewritten(repo):
    git(repo, "checkout", "-q", "-b", "feat")
    commit(repo, "f")
    handoff = leave_baton(repo)
    git(repo, "checkout", "-q", "main")
    commit(repo, "m")
    git(repo, "checkout", "-q", "feat")
    git(repo, "rebase", "-q", "main")
    fresh = freshness(repo, handoff)
    assert (fresh["head_relation"], fresh["captured_branch"], fresh["branch_now"]) == ("rewritten", "feat", "feat")


@pytest.mark.slow
def test_a_reset_says_history_was_rewritten(repo):
    commit(repo, "b")
    handoff = leave_baton(repo)
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    commit(repo, "other")
    assert freshness(repo, handoff)["head_relation"] == "rewritten"


@pytest.mark.slow
def test_a_shared_baton_left_in_a_worktree_on_another_branch_says_this_branch_does_not_contain_it(repo):
    linked = repo.parent / "feat-wt"
    git(repo, "worktree", "add", "-q", "-b", "feat2", str(linked))
    commit(linked, "x")
    baton(linked, "session", "end", "s-shf", "--shared", "--handoff-steps", "shared from feat2")
    line = [ln for ln in baton(repo, "session", "begin").stdout.splitlines() if "Freshness" in ln]
    captured, now = git(linked, "rev-parse", "HEAD")[:12], git(repo, "rev-parse", "HEAD")[:12]
    assert line and (f"captured on feat2 at `{captured}`; this session is on main at `{now}`, "
                     "which does not contain it") in line[0]


@pytest.mark.slow
def test_commit_evidence_reset_away_is_flagged_in_resume(repo):
    fixed = commit(repo, "fix.py")
    evidence = json.dumps({"id": "E1", "type": "commit", "ref": fixed, "claim": f"the fix is commit {fixed}"})
    item = json.dumps({"description": "release", "suggested_action": "tag it", "acceptance_check": "tag exists"})
    created = json.loads(baton(repo, "--json", "checkpoint", "create", "--no-input", "--title", "bug fix",
                               "--objective", "fix bug", "--current-state", "fixed", "--completed", "fixed the bug",
                               "--open-item", item, "--evidence", evidence).stdout)
    baton(repo, "handoff", "validate", created["id"])
    baton(repo, "handoff", "ready", created["id"])
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    fresh = freshness(repo, created["id"])
    assert fresh["commit_evidence"] == [{"id": "E1", "ref": fixed, "reach": "unreachable"}]
    assert "- E1 [commit, no result] the fix is commit" in baton(repo, "resume", created["id"]).stdout
    assert "(WARNING: commit not in the history of HEAD)" in baton(repo, "resume", created["id"]).stdout


def test_a_delivered_batons_freshness_line_flags_commit_evidence_even_when_the_head_did_not_move():
    from baton.domain.batons import freshness_line

    history = HistoryFacts({"c" * 40: "unreachable"}, None, "main", "main")
    report = derive_freshness(NOW, NOW, [], True, history, [("E1", "c" * 40)])
    line = freshness_line(report, "01a24cde-922e-7143-8342-f954506ee620")
    assert line is not None and line.startswith("> ⚠️ **Freshness: fresh**")
    assert f"; commit evidence E1 (`{'c' * 12}`) is not in the history of HEAD;" in line
