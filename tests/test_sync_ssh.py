"""``baton sync`` over a real ssh server (docs/sync.md, "Sync reaches a remote
with the settings git uses for it"; "An ssh remote").

A real ``sshd -D -e -f <its own config>`` listens on 127.0.0.1 at a free port,
as the current user, with a host key and a client key the real ``ssh-keygen``
made in a temporary folder. The remote is a bare repository made by the real
``git init --bare``, reached as ``ssh://USER@127.0.0.1:PORT/abs/path/team.git``
or, scp-like, as ``team-server:/abs/path/team.git`` through a ``Host`` alias
of an ssh config file given with ``-F``. The client runs the real ``ssh``
through ``GIT_SSH_COMMAND`` (or ``core.sshCommand``), with ``BatchMode=yes``,
as a CI job's deploy key does; every Baton and git command is a real process.
The tests skip, saying so, only where no ``sshd`` is installed.
"""

from __future__ import annotations

import getpass
import json
import os
import pty
import random
import select
import shlex
import shutil
import socket
import string
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import attrs
import pytest

from tests.team_support import baton, baton_json, git

pytestmark = pytest.mark.slow

SSHD = shutil.which("sshd") or next((p for p in ("/usr/sbin/sshd", "/usr/local/sbin/sshd") if os.access(p, os.X_OK)),
                                    None)
ALIAS = "team-server"


@attrs.frozen
class Server:
    """A running sshd and what a client needs to reach it."""

    port: int
    user: str
    key: Path  # the client key the server accepts
    stranger: Path  # a client key it does not
    known_hosts: Path
    config: Path  # an ssh config file: the ``Host team-server`` alias, for scp-like URLs
    log: Path  # sshd's own log (``-e``)

    def command(self, key: Path | None = None) -> str:
        """``GIT_SSH_COMMAND`` for this server: its port, a key, known hosts of the test's own,
        never a prompt (``BatchMode``), and none of the user's own ssh config or agent keys."""
        return shlex.join(["ssh", "-F", str(self.config), "-i", str(key or self.key), "-p", str(self.port),
                           "-o", f"UserKnownHostsFile={self.known_hosts}", "-o", "StrictHostKeyChecking=accept-new",
                           "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes"])

    def url(self, remote: Path) -> str:
        return f"ssh://{self.user}@127.0.0.1:{self.port}{remote}"

    def scp_like(self, remote: Path) -> str:
        return f"{ALIAS}:{remote}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _listening(log: Path, port: int) -> bool:
    """sshd said it listens on the port (it bound it: not another process that took it meanwhile)."""
    return f"Server listening on 127.0.0.1 port {port}." in log.read_text(errors="replace")


def _keygen(path: Path) -> Path:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", path.name, "-f", str(path)], check=True)
    return path


def _start(sshd: str, where: Path, port: int) -> tuple[subprocess.Popen, Path]:
    config = where / f"sshd_config.{port}"
    config.write_text("\n".join([
        "ListenAddress 127.0.0.1", f"Port {port}", f"HostKey {where / 'host_key'}",
        f"AuthorizedKeysFile {where / 'authorized_keys'}", "StrictModes no", "UsePAM no",
        f"PidFile {where / 'sshd.pid'}", "PubkeyAuthentication yes", "PasswordAuthentication no",
        "KbdInteractiveAuthentication no", "PermitRootLogin prohibit-password", "LogLevel VERBOSE",
        "LoginGraceTime 0", "MaxStartups 100", ""]))  # a loaded machine's slow logins are never cut off
    log = where / f"sshd.{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sshd, "-D", "-e", "-f", str(config)], stdout=out, stderr=out,
                                   stdin=subprocess.DEVNULL)
    return process, log


@pytest.fixture(scope="module")
def sshd(tmp_path_factory) -> Iterator[Server]:
    """A real sshd on 127.0.0.1 at a free port, accepting one client key of the test's own."""
    if SSHD is None:
        pytest.skip("no sshd installed (apt-get install openssh-server): ssh remotes cannot be tested here")
    if os.geteuid() == 0 and not os.path.isdir("/run/sshd"):
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # sshd run as root needs it (systemd's unit makes it)
    where = tmp_path_factory.mktemp("sshd")
    _keygen(where / "host_key")
    key, stranger = _keygen(where / "client_key"), _keygen(where / "stranger_key")
    (where / "authorized_keys").write_text((where / "client_key.pub").read_text())
    user = getpass.getuser()
    process = None
    for _attempt in range(5):  # another process may take the free port before sshd binds it
        port = _free_port()
        process, log = _start(SSHD, where, port)
        given_up = time.monotonic() + 120  # a bound on a hung start, not a timing assertion
        while process.poll() is None and not _listening(log, port) and time.monotonic() < given_up:
            time.sleep(0.05)
        if process.poll() is None and _listening(log, port):
            break
        if process.poll() is None:
            process.kill()
            pytest.fail(f"sshd did not listen on port {port}: {log.read_text(errors='replace')}")
        if "Address already in use" not in log.read_text(errors="replace"):
            pytest.fail(f"sshd did not start: {log.read_text(errors='replace')}")
    else:
        pytest.fail(f"sshd found no free port: {log.read_text(errors='replace')}")
    config = where / "ssh_config"
    config.write_text(f"Host {ALIAS}\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  IdentityFile {key}\n"
                      f"  IdentitiesOnly yes\n  UserKnownHostsFile {where / 'known_hosts'}\n"
                      "  StrictHostKeyChecking accept-new\n  BatchMode yes\n")
    try:
        yield Server(port, user, key, stranger, where / "known_hosts", config, log)
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture
def over_ssh(sshd, monkeypatch) -> Server:
    """The client side: git and baton reach the server through ``GIT_SSH_COMMAND``."""
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)  # a developer's agent keys are not the test's
    monkeypatch.delenv("GIT_SSH", raising=False)
    monkeypatch.setenv("GIT_SSH_COMMAND", sshd.command())
    return sshd


def _bare(tmp_path: Path) -> Path:
    remote = tmp_path / "srv" / "team.git"
    remote.parent.mkdir()
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    return remote


def _team(tmp_path: Path, url: str) -> tuple[Path, Path]:
    """Two clones of the remote at ``url``, as a team sets one up (docs/sync.md "Setting up a team"):
    the first runs ``baton init``, commits the config and pushes; the second clones and runs ``baton init``."""
    a = tmp_path / "alice"
    a.mkdir()
    git(a, "init", "-q", "-b", "main")
    baton_json(a, "init")
    git(a, "add", ".baton/config.json", ".baton/.gitignore")
    git(a, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", "Baton project")
    git(a, "remote", "add", "origin", url)
    git(a, "push", "-q", "origin", "main")
    b = tmp_path / "bob"
    git(tmp_path, "clone", "-q", url, str(b))
    baton_json(b, "init")
    return a, b


def _checkpoint(clone: Path, title: str) -> str:
    return baton_json(clone, "checkpoint", "create", "--no-input", "--title", title, "--objective", title)["id"]


def _feeds(clone: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((clone / ".baton" / "ledger").glob("*.jsonl"))}


def _writer(clone: Path) -> str:
    return json.loads((clone / ".baton" / "local.json").read_text())["writer"]


def _ledger_ref(repo: Path) -> str:
    """``refs/baton/ledger`` as git sees it, or "" when there is none."""
    done = subprocess.run(["git", "rev-parse", "-q", "--verify", "refs/baton/ledger"], cwd=repo, capture_output=True,
                          text=True)
    return done.stdout.strip()


def _published(remote: Path) -> set[str]:
    """The writers whose feed the remote's ledger ref holds, read by real git."""
    ref = _ledger_ref(remote)
    if not ref:
        return set()
    return set(git(remote, "ls-tree", "--name-only", f"{ref}:feeds").split())


# -- two clones, one remote over ssh ----------------------------------------------------------------

def _ready_handoff(clone: Path, title: str) -> str:
    """A handoff captured, validated and made ready (resumable elsewhere): its id."""
    item = json.dumps({"description": f"finish {title}", "suggested_action": "write the test",
                       "acceptance_check": "the test passes"})
    made = baton_json(clone, "checkpoint", "create", "--no-input", "--title", title, "--objective",
                      f"finish {title}", "--open-item", item)
    baton_json(clone, "handoff", "validate", made["id"])
    baton_json(clone, "handoff", "ready", made["id"])
    return made["id"]


@pytest.mark.parametrize("form", ["ssh://", "scp-like"])
def test_two_clones_share_handoffs_both_ways_over_ssh_and_each_resumes_the_others(tmp_path, over_ssh, form):
    remote = _bare(tmp_path)
    url = over_ssh.url(remote) if form == "ssh://" else over_ssh.scp_like(remote)
    a, b = _team(tmp_path, url)
    alices = _ready_handoff(a, "Alice's work over ssh")
    assert baton_json(a, "sync")["pushed"] is True
    bobs = _ready_handoff(b, "Bob's work over ssh")
    synced = baton_json(b, "sync")
    assert _writer(a) in synced["imported"] and synced["pushed"] is True, synced
    resumed = baton_json(b, "resume", alices)
    assert resumed["id"] == alices and "Alice's work over ssh" in resumed["brief"]["text"]
    assert _writer(b) in baton_json(a, "sync")["imported"]
    resumed = baton_json(a, "resume", bobs)
    assert resumed["id"] == bobs and "Bob's work over ssh" in resumed["brief"]["text"]
    assert _published(remote) == {_writer(a), _writer(b)}
    for clone in (a, b, a):
        baton_json(clone, "sync")
    assert _feeds(a) == _feeds(b)
    for clone in (a, b):
        assert baton(clone, "verify").returncode == 0


def test_a_feed_of_several_segments_travels_over_ssh_whole(tmp_path, over_ssh):
    """More than a segment (1 MiB) of feed: several blobs in one pack each way, read back whole."""
    remote = _bare(tmp_path)
    a, b = _team(tmp_path, over_ssh.url(remote))
    words = random.Random(7)
    for i in range(2):  # each ~600 KB: an --input file may be at most 1 MiB
        state = " ".join("".join(words.choices(string.ascii_lowercase, k=8)) for _ in range(66_000))
        given = tmp_path / f"long-state-{i}.json"
        given.write_text(json.dumps({"work": {"title": f"long state {i}", "objective": "o"},
                                     "summary": {"current_state": state}}))
        baton_json(a, "checkpoint", "create", "--no-input", "--input", str(given))
    assert (a / ".baton" / "ledger" / f"{_writer(a)}.jsonl").stat().st_size > 1 << 20
    assert baton_json(a, "sync")["pushed"] is True
    segments = git(remote, "ls-tree", "--name-only", f"refs/baton/ledger:feeds/{_writer(a)}").split()
    assert len([name for name in segments if name.endswith(".jsonl")]) >= 2, segments
    assert baton_json(b, "sync")["imported"][_writer(a)] >= 3
    assert _feeds(a)[f"{_writer(a)}.jsonl"] == _feeds(b)[f"{_writer(a)}.jsonl"]
    assert baton(b, "verify").returncode == 0


def test_a_remote_given_as_an_ssh_url_syncs_with_no_git_remote_configured(tmp_path, over_ssh):
    remote = _bare(tmp_path)
    a, b = _team(tmp_path, over_ssh.url(remote))
    for clone in (a, b):
        git(clone, "remote", "remove", "origin")
    _checkpoint(a, "given by its URL")
    result = baton_json(a, "sync", "--remote", over_ssh.url(remote))
    assert result["pushed"] is True and result["remote"] == over_ssh.url(remote)
    assert _published(remote) == {_writer(a)}
    assert baton_json(b, "sync", "--remote", over_ssh.url(remote))["imported"].get(_writer(a))
    assert git(a, "remote").strip() == ""  # nothing configured behind the user's back


def test_core_ssh_command_in_the_projects_git_config_reaches_the_server(tmp_path, over_ssh, monkeypatch):
    remote = _bare(tmp_path)
    a, _b = _team(tmp_path, over_ssh.url(remote))
    monkeypatch.delenv("GIT_SSH_COMMAND")
    git(a, "config", "core.sshCommand", over_ssh.command())
    _checkpoint(a, "through core.sshCommand")
    assert baton_json(a, "sync")["pushed"] is True
    assert _published(remote) == {_writer(a)}


# -- refusals ---------------------------------------------------------------------------------------

def _refused(clone: Path, code: str) -> dict:
    done = baton(clone, "sync", "--json")
    assert done.returncode == 4, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["code"] == code, error
    text = baton(clone, "sync")
    assert text.returncode == 4 and "Traceback" not in text.stderr and len(text.stderr.strip().splitlines()) == 1, \
        text.stderr
    return error


def test_a_key_the_server_refuses_is_exit_4_remote_auth_failed_and_nothing_is_published(tmp_path, over_ssh,
                                                                                       monkeypatch):
    remote = _bare(tmp_path)
    a, _b = _team(tmp_path, over_ssh.url(remote))
    _checkpoint(a, "never published")
    before = _feeds(a)
    monkeypatch.setenv("GIT_SSH_COMMAND", over_ssh.command(key=over_ssh.stranger))
    error = _refused(a, "remote_auth_failed")
    assert "Permission denied (publickey" in error["message"] and "GIT_SSH_COMMAND" in error["message"], error
    assert _feeds(a) == before and _ledger_ref(a) == "" and _ledger_ref(remote) == ""


def test_an_ssh_port_nobody_listens_on_is_exit_4_saying_it_cannot_connect(tmp_path, over_ssh, monkeypatch):
    remote = _bare(tmp_path)
    a, _b = _team(tmp_path, over_ssh.url(remote))
    _checkpoint(a, "never published")
    before = _feeds(a)
    closed = _free_port()
    git(a, "remote", "set-url", "origin", f"ssh://{over_ssh.user}@127.0.0.1:{closed}{remote}")
    monkeypatch.setenv("GIT_SSH_COMMAND", over_ssh.command().replace(f"-p {over_ssh.port}", f"-p {closed}"))
    error = _refused(a, "remote_unreachable")
    assert "Connection refused" in error["message"] and "is the server up?" in error["message"], error
    assert _feeds(a) == before and _ledger_ref(a) == ""


def test_an_ssh_url_with_no_repository_behind_it_is_exit_4_saying_so(tmp_path, over_ssh):
    remote = _bare(tmp_path)
    a, _b = _team(tmp_path, over_ssh.url(remote))
    _checkpoint(a, "never published")
    before = _feeds(a)
    git(a, "remote", "set-url", "origin", over_ssh.url(tmp_path / "srv" / "no-such.git"))
    error = _refused(a, "remote_unreachable")
    assert "no git repository at that URL" in error["message"] and "git ls-remote" in error["message"], error
    assert _feeds(a) == before and _ledger_ref(a) == ""


def test_an_ssh_host_name_that_does_not_resolve_is_exit_4_asking_about_the_name(tmp_path, over_ssh):
    remote = _bare(tmp_path)
    a, _b = _team(tmp_path, over_ssh.url(remote))
    _checkpoint(a, "never published")
    git(a, "remote", "set-url", "origin", f"ssh://{over_ssh.user}@no-such-host.invalid{remote}")
    error = _refused(a, "remote_unreachable")
    assert "Could not resolve hostname" in error["message"] and "is the host name right?" in error["message"], error
    assert _ledger_ref(a) == ""


def test_a_push_the_servers_hook_refuses_over_ssh_is_exit_4_with_the_hooks_words(tmp_path, over_ssh):
    remote = _bare(tmp_path)
    a, _b = _team(tmp_path, over_ssh.url(remote))
    _checkpoint(a, "refused by policy")
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'policy: ledger pushes need approval from ops' >&2\nexit 1\n")
    hook.chmod(0o755)
    error = _refused(a, "remote_unreachable")
    assert "pre-receive hook declined" in error["message"], error
    assert "the remote said: policy: ledger pushes need approval from ops" in error["message"], error
    assert _ledger_ref(remote) == ""
    hook.unlink()
    assert baton_json(a, "sync")["pushed"] is True and _published(remote) == {_writer(a)}


# -- a remote that moved during the sync -------------------------------------------------------------

def _bob_syncs(b: Path, command: str, log: Path) -> str:
    """A shell line running bob's ``baton sync`` as bob's own shell would (his environment, his ssh
    command), whatever process runs it: its output goes to ``log``."""
    keep = {name: os.environ[name] for name in ("PATH", "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL",
                                                "GIT_CONFIG_NOSYSTEM") if name in os.environ}
    env = [f"{name}={value}" for name, value in {**keep, "BATON_HOOK_SERVER": "0", "GIT_SSH_COMMAND": command}.items()]
    return shlex.join(["env", "-i", *env, sys.executable, "-m", "baton", "sync", "--json", "--project", str(b)]) + \
        f" >{shlex.quote(str(log))} 2>&1"


def _moved_and_settled(a: Path, b: Path, remote: Path, log: Path, result: dict) -> None:
    """What docs/sync.md says of a remote whose ref moved between a sync's fetch and its push: the
    round starts again, imports what arrived meanwhile and publishes on top of it."""
    bobs = json.loads(log.read_text())
    assert bobs["pushed"] is True, bobs  # bob's sync landed in the middle of alice's
    assert result["attempts"] == 2 and result["pushed"] is True, result
    assert _writer(b) in result["imported"], result
    assert _published(remote) == {_writer(a), _writer(b)}
    baton_json(b, "sync")
    assert _feeds(a) == _feeds(b)
    for clone in (a, b):
        assert baton(clone, "verify").returncode == 0


def test_a_push_from_another_clone_between_fetch_and_push_starts_the_round_again(tmp_path, over_ssh, monkeypatch):
    """Alice's ssh program, when her sync opens its push, first lets bob's sync push: the remote's
    ref is no longer what alice fetched when her push is advertised it."""
    remote = _bare(tmp_path)
    a, b = _team(tmp_path, over_ssh.url(remote))
    _checkpoint(a, "alice's")
    _checkpoint(b, "bob's")
    log, mark = tmp_path / "bob-sync.json", tmp_path / "bob-synced"
    program = tmp_path / "alices-ssh"
    program.write_text("#!/bin/sh\n"
                       f'case "$*" in *git-receive-pack*) [ -e {mark} ] || {{ : >{mark}; '
                       f"{_bob_syncs(b, over_ssh.command(), log)}; }};; esac\n"
                       f'exec {over_ssh.command()} "$@"\n')
    program.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(program))
    result = baton_json(a, "sync")
    _moved_and_settled(a, b, remote, log, result)


def test_a_push_that_lands_after_the_servers_advertisement_starts_the_round_again(tmp_path, over_ssh):
    """The remote's pre-receive hook, on alice's push, first lets bob's sync push: the server's git
    then refuses alice's update of a ref that moved after it advertised it."""
    remote = _bare(tmp_path)
    a, b = _team(tmp_path, over_ssh.url(remote))
    _checkpoint(a, "alice's")
    _checkpoint(b, "bob's")
    log, mark = tmp_path / "bob-sync.json", tmp_path / "bob-synced"
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\n"
                    f"grep -q refs/baton/ledger && [ ! -e {mark} ] && {{ : >{mark}; "
                    f"{_bob_syncs(b, over_ssh.command(), log)}; }}\nexit 0\n")
    hook.chmod(0o755)
    result = baton_json(a, "sync")
    assert mark.exists()
    _moved_and_settled(a, b, remote, log, result)


def test_an_unknown_host_key_with_nobody_to_ask_is_exit_4_saying_to_accept_it_once(tmp_path, over_ssh, monkeypatch):
    """ssh's own default (``StrictHostKeyChecking ask``), no ``BatchMode``, run with no terminal (a CI
    job, a script): ssh cannot ask, so the sync fails at once instead of waiting on a question."""
    remote = _bare(tmp_path)
    a, _b = _team(tmp_path, over_ssh.url(remote))
    _checkpoint(a, "never published")
    before = _feeds(a)
    strange = tmp_path / "empty_known_hosts"
    strange.touch()
    monkeypatch.setenv("GIT_SSH_COMMAND", shlex.join([
        "ssh", "-F", str(over_ssh.config), "-i", str(over_ssh.key), "-o", "IdentitiesOnly=yes",
        "-o", f"UserKnownHostsFile={strange}", "-o", "GlobalKnownHostsFile=/dev/null"]))
    done = subprocess.run([sys.executable, "-m", "baton", "sync", "--json"], cwd=a, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, start_new_session=True, timeout=120)
    error = json.loads(done.stdout)["error"]
    assert (done.returncode, error["code"]) == (4, "remote_unreachable"), (done.stdout, done.stderr)
    assert "Host key verification failed" in error["message"] and "accept it" in error["message"], error
    assert _feeds(a) == before and _ledger_ref(a) == "" and strange.read_text() == ""


def test_at_a_terminal_ssh_asks_to_trust_a_new_host_key_as_for_git_fetch_and_the_sync_goes_on(
        tmp_path, over_ssh, monkeypatch):
    """Sync adds no option to ssh: with no ``BatchMode``, ssh asks at the terminal (not through
    sync's output), and the answer is ssh's to take."""
    remote = _bare(tmp_path)
    a, _b = _team(tmp_path, over_ssh.url(remote))
    _checkpoint(a, "after yes")
    known = tmp_path / "empty_known_hosts"
    known.touch()
    monkeypatch.setenv("GIT_SSH_COMMAND", shlex.join([
        "ssh", "-F", str(over_ssh.config), "-i", str(over_ssh.key), "-o", "IdentitiesOnly=yes",
        "-o", f"UserKnownHostsFile={known}", "-o", "GlobalKnownHostsFile=/dev/null"]))
    pid, terminal = pty.fork()  # the child's controlling terminal: the one ssh asks on
    if pid == 0:
        os.chdir(a)
        os.execv(sys.executable, [sys.executable, "-m", "baton", "sync"])
    shown = b""
    answered = False
    given_up = time.monotonic() + 300  # a bound on a hung child, not a timing assertion
    while time.monotonic() < given_up:
        ready, _, _ = select.select([terminal], [], [], 1)
        if not ready:
            continue
        try:
            chunk = os.read(terminal, 4096)
        except OSError:  # the child closed the terminal: it ended
            break
        if not chunk:
            break
        shown += chunk
        if not answered and b"continue connecting" in shown:
            os.write(terminal, b"yes\n")
            answered = True
    _, status = os.waitpid(pid, 0)
    os.close(terminal)
    assert answered, shown
    assert os.waitstatus_to_exitcode(status) == 0, shown
    assert b"Pushed refs/baton/ledger to origin" in shown and _published(remote) == {_writer(a)}
    assert "127.0.0.1" in known.read_text()  # ssh recorded the key it was told to trust
