"""The git remote a sync talks to, through dulwich: open, fetch, push (docs/sync.md "Transport").

Only the ledger ref's objects travel: no branch, index or working tree is
touched. A path remote's few new objects are copied one by one (its pack is
not read through), and a push of few objects writes them loose. A transport
failure is one clean exit-4 error (``RemoteUnreachable``); a push that finds
the remote's ref moved raises ``RemoteMoved`` (the use case starts again).
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import unicodedata
import warnings
from contextlib import contextmanager
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator
from urllib.parse import unquote, urlsplit, urlunsplit

from dulwich import errors
from dulwich.client import HTTPProxyUnauthorized, HTTPUnauthorized, LocalGitClient, get_transport_and_path
from dulwich.config import ConfigFile, StackedConfig, apply_instead_of
from dulwich.errors import NotGitRepository
from dulwich.file import FileLocked
from dulwich.object_store import MissingObjectFinder
from dulwich.objects import ZERO_SHA, Commit, Tree
from dulwich.repo import Repo
from urllib3.exceptions import InsecureRequestWarning

from baton.domain.close_names import closest
from baton.errors import GitLockHeld, GitUnsupported, NoSyncRemote, RemoteAuthFailed, RemoteUnreachable
from baton.gitinfo import config_stack, locate, object_format_at
from baton.ledger.feed import CHUNK_BYTES
from baton.sync.loose import write_loose_like_git
from baton.sync.ssh_failures import ssh_failure
from baton.sync.stale_locks import held_local_lock_message, local_remote_dir, remove_stale_lock

if TYPE_CHECKING:
    from baton.commands.context import Project


class RemoteMoved(Exception):
    """The remote's ref changed between fetch and push: start the round again."""

    lock: str | None = None
    """A lock file on a path remote that blocked the push (kept: not provably stale)."""



@contextmanager
def local_locks() -> Iterator[None]:
    """A git lock file in this clone's repository (a loose object's, the ledger
    ref's) that stops a write: one clear exit-4 error naming it (a push's locks
    on a path remote are ``push``'s: they start the round again)."""
    try:
        yield
    except FileLocked as exc:
        lock = os.fsdecode(getattr(exc, "lockfilename", b"") or b"")
        raise GitLockHeld(held_local_lock_message(lock), details={"lock": lock}) from None


def open_repo(project: "Project"):
    where = locate(project.root)
    if where is None:
        raise NoSyncRemote(f"{project.root} is not in a git repository; `baton sync` shares the ledger "
                           "through a git remote", details={"root": str(project.root)})
    try:
        repo = Repo(str(where.common_dir))
    except (NotGitRepository, OSError, ValueError) as exc:
        raise NoSyncRemote(f"cannot open the git repository at {where.common_dir}: {exc}") from None
    _read_config_once(repo)
    try:
        found = _text_of(repo.get_config().get((b"extensions",), b"objectformat")).strip().lower() or "sha1"
    except KeyError:
        found = "sha1"
    if found != "sha1":  # dulwich would write SHA-1 objects into it: git could no longer read the ref
        repo.close()
        raise GitUnsupported(unsupported_message(found, f"this repository ({where.common_dir})"),
                             details={"object_format": found, "repository": str(where.common_dir)})
    _fast_loose_objects(repo)
    write_loose_like_git(repo.object_store)  # a killed sync leaves no lock on an object
    return repo


def _text_of(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def unsupported_message(found: str, where: str) -> str:
    return (f"{where} stores its objects as {found} (extensions.objectFormat): `baton sync` supports SHA-1 "
            "repositories only, not yet SHA-256; nothing was fetched or written")


def check_remote_format(transport, path: str, url: str) -> None:
    """Refuse a path or ``file://`` remote whose object format is not SHA-1, before
    anything is fetched or pushed (a remote over the network: ``fetch`` refuses one
    whose ref ids are not SHA-1's).

    Raises:
        GitUnsupported (exit 4): the remote's config names another object format.
    """
    if not isinstance(transport, LocalGitClient):
        return
    for git_dir in (Path(path) / ".git", Path(path)):
        if (git_dir / "config").is_file():
            found = object_format_at(git_dir)
            if found != "sha1":
                raise GitUnsupported(unsupported_message(found, f"the remote {url}"),
                                     details={"object_format": found, "url": url})
            return


def _read_config_once(repo) -> None:
    """dulwich reads the config files again at every ``get_config`` (and the
    user's at every ``get_config_stack``); a sync asks four times (the remote's
    url, its transport, the loose objects' level, the signing key — through
    ``signing.signing_setup_at``, which reads a linked worktree's own) and
    writes none: each is read once for this sync's repository object."""
    read: dict[str, Any] = {}

    def config():
        if "repo" not in read:
            read["repo"] = Repo.get_config(repo)
        return read["repo"]

    def stack():
        if "stack" not in read:
            read["stack"] = config_stack(repo)  # includeIf honoured in the user's files too (gitinfo)
        return read["stack"]

    repo.get_config = config
    repo.get_config_stack = stack


def _fast_loose_objects(repo) -> None:
    """Segments are written once as loose objects and soon packed by a push:
    zlib level 1 for them (half of a large first sync was spent compressing
    at the default level), unless the repository sets a level itself."""
    config = repo.get_config()
    for name in (b"looseCompression", b"compression"):
        try:
            config.get((b"core",), name)
            return
        except KeyError:
            continue
    if hasattr(repo.object_store, "loose_compression_level"):
        repo.object_store.loose_compression_level = 1


def remote_url(repo, remote: str) -> str:
    """The URL a sync with ``remote`` fetches from: the configured remote of
    that name's ``url`` or, as ``git fetch <url>`` takes one, ``remote``
    itself when no remote has that name and it is a path or URL
    (``looks_like_location``): used for this sync only, nothing configured.

    Raises:
        NoSyncRemote (exit 4): neither a configured remote's name nor a path or URL.
    """
    url = _remote_setting(repo, remote, b"url")
    if url:
        return url
    if looks_like_location(remote):
        return remote
    names = remote_names(repo)
    raise NoSyncRemote(no_remote_message(remote, names), details={"remote": remote, "remotes": names})


def is_named_remote(repo, remote: str) -> bool:
    """Whether ``remote`` names a remote this repository configures with a URL (not a path or URL given)."""
    return bool(_remote_setting(repo, remote, b"url"))


def looks_like_location(remote: str) -> bool:
    """Whether ``remote``, named by no configured remote, is a path or URL rather than a name: it
    has a scheme (``https://``, ``file://``), an scp-like ``host:path``, is ``.`` or ``..``, or starts
    as a path does."""
    return ("://" in remote or remote in (".", "..") or remote.startswith(("/", "./", "../", "~", "\\"))
            or os.path.isabs(remote)
            or bool(re.match(r"^[^/\s]+@?[^/\s]*:", remote)) or remote.endswith(".git"))


def remote_names(repo) -> list[str]:
    """The remotes this repository configures with a URL, sorted."""
    config = repo.get_config()
    return sorted({section[1].decode("utf-8", "replace") for section in config.sections()
                   if len(section) == 2 and section[0] == b"remote"
                   and _remote_setting(repo, section[1].decode("utf-8", "replace"), b"url")})


def url_rewrites(repo):
    """git's config as it rewrites a remote's URL (``url.<base>.insteadOf``, ``pushInsteadOf``): the
    repository's, the user's (``~/.gitconfig``, ``$XDG_CONFIG_HOME/git/config`` or ``GIT_CONFIG_GLOBAL``)
    and the system's, read through dulwich (no git process); None when it cannot be read (a malformed
    file: git's own commands say so) or without a repository."""
    if repo is None:
        return None
    try:
        return config_stack(repo)
    except (OSError, ValueError, KeyError):
        return None


def rewritten(config, url: str, *, push: bool = False) -> str:
    """``url`` as git rewrites it before contacting it (``url.<base>.insteadOf``, the longest match; with
    ``push``, ``pushInsteadOf`` too): ``gh:team/ledger`` with ``[url "git@github.com:"] insteadOf = gh:``
    is ``git@github.com:team/ledger``. ``url`` itself without ``config`` or a rule that applies."""
    if config is None:
        return url
    try:
        return apply_instead_of(config, url, push=push)
    except (KeyError, ValueError, UnicodeDecodeError):
        return url


def location_of(url: str, base: Path, config=None) -> str:
    """The repository ``url`` names, as one spelling (docs/sync.md, "Shared with which remote"):
    first rewritten as git rewrites it (``rewritten``: ``url.<base>.insteadOf`` of ``config``, from
    ``url_rewrites``), then
    a path — plain, relative to ``base`` (``relative_base``), ``~``, ``file://``, with or without a
    trailing slash, a work tree or its ``.git`` — as ``file://`` and its real path; a network URL with
    its scheme and host in lower case, no user or password, no trailing slash; an scp-like
    ``[user@]host:path`` as the ``ssh://`` URL git reads it as. Two spellings of one remote give
    one location; nothing is asked of the remote."""
    text = rewritten(config, url.strip()).strip()
    try:
        parts = urlsplit(text) if "://" in text else None
        if parts is not None and parts.scheme.lower() != "file":
            scheme = {"git+ssh": "ssh", "ssh+git": "ssh"}.get(parts.scheme.lower(), parts.scheme.lower())
            port = f":{parts.port}" if parts.port is not None else ""
            return f"{scheme}://{(parts.hostname or '').lower()}{port}{parts.path.rstrip('/') or '/'}"
    except ValueError:
        return text
    if parts is not None:
        text = unquote(parts.path)
    else:
        scp = re.match(r"^(?:[^@/\s]+@)?([^/\s:]+):(.*)$", text)
        if scp and not os.path.isabs(text) and not re.match(r"^[A-Za-z]:[\\/]", text):
            path = scp.group(2).rstrip("/")
            return f"ssh://{scp.group(1).lower()}{path if path.startswith('/') else '/~/' + path}"
    path = os.path.realpath(os.path.join(base, os.path.expanduser(text)))
    if os.path.isdir(os.path.join(path, ".git")):  # a work tree: git reaches its repository
        path = os.path.join(path, ".git")
    return "file://" + path


def remote_locations(repo, base: Path) -> dict[str, str]:
    """Each remote ``repo`` configures with a URL → its location (``location_of``, a relative path
    from ``base``); empty when git's config cannot be read."""
    config = url_rewrites(repo)
    try:
        return {name: location_of(url, base, config) for name in remote_names(repo)
                if (url := _remote_setting(repo, name, b"url"))}
    except (OSError, ValueError, KeyError):
        return {}


def no_remote_message(remote: str, names: list[str]) -> str:
    """No remote named ``remote``: the remotes there are, the closest first
    when the name looks like a typo of one, or how to add one (as ``remote``
    when git takes it as a remote's name, else as ``origin``)."""
    valid = _REMOTE_NAME.fullmatch(remote) and ".." not in remote and not remote.endswith(".lock")
    add = remote if valid else "origin"
    if not names:
        return (f"no git remote named {remote!r} is configured, and this repository has none: give the team's "
                f"repository's path or URL as `remote`, or add it with `git remote add {add} URL`")
    close = closest(remote, names, n=1)
    guess = f"did you mean {close[0]!r}? " if close else ""
    return (f"no git remote named {remote!r} is configured ({guess}this repository's remotes: "
            f"{', '.join(names)}); name one with `remote`, give the repository's path or URL, or add it with "
            f"`git remote add {add} URL`")


_REMOTE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
"""A name ``git remote add`` takes (a conservative subset: no ``.`` or ``-`` first, no ``/``)."""


def push_url(repo, remote: str) -> str | None:
    """The remote's ``pushurl`` (``git remote set-url --push``), where git
    pushes instead of its ``url`` — the same repository by another transport
    (sync's push compares against what ``url`` served, so a second repository
    or a lagging mirror looks raced at every attempt: docs/sync.md), or a
    placeholder such as ``no_push`` that turns pushing off — or None."""
    return _remote_setting(repo, remote, b"pushurl") or None


def _remote_setting(repo, remote: str, name: bytes) -> str | None:
    try:
        value = repo.get_config().get((b"remote", remote.encode()), name)
    except KeyError:
        return None
    return value.decode("utf-8", "replace") if value else None


def client(repo, url: str, base: Path, *, push: bool = False):
    """dulwich's client for ``url`` and the path on it. A relative path remote
    (``git remote add origin ../team.git``) is relative to ``base``, the
    folder git resolves it from (``relative_base``), not to the folder the
    command was started in. ``push``: the remote's ``url`` used for pushing,
    which git rewrites with ``url.<base>.pushInsteadOf`` too (never a
    ``pushurl``, as in git)."""
    try:
        config = with_environment(repo.get_config_stack(), url)
        transport, path = get_transport_and_path(url, config=config, operation="push" if push else None,
                                                 ssh_command=ssh_command(config))
    except (ValueError, OSError) as exc:
        shown = shown_url(url)
        raise RemoteUnreachable(f"cannot reach remote {shown!r}: {transport_text(exc)}",
                                details={"url": shown}) from None
    if urlsplit(url).scheme.lower() == "https" and _unverified(config, url):
        _quiet_unverified()
    if isinstance(transport, LocalGitClient):
        if urlsplit(rewritten(config, url, push=push)).scheme.lower() == "file":
            path = unquote(path)  # git decodes a file:// URL's %XX (Path.as_uri() writes a space as %20)
        elif not os.path.isabs(path):
            path = os.path.join(base, path)
    return transport, path


def _unverified(config, url: str) -> bool:
    """Whether an https request to ``url`` may go unverified: the environment's
    ``GIT_SSL_NO_VERIFY``, or ``http.sslVerify`` false for every URL or in a
    section of a URL that this one starts with (``http.<url>.sslVerify``)."""
    if os.environ.get("GIT_SSL_NO_VERIFY"):
        return True
    for backend in getattr(config, "backends", [config]):
        for section in backend.sections():
            if section[0] != b"http" or (len(section) > 1 and not url.encode().startswith(section[1])):
                continue
            try:
                value = backend.get(section, b"sslVerify")
            except KeyError:
                continue
            if value.strip().lower() in (b"false", b"no", b"off", b"0"):
                return True
    return False


def _quiet_unverified() -> None:
    """An https request made unverified was asked for (``GIT_SSL_NO_VERIFY``,
    ``http.sslVerify false``): git says nothing of it at each request, nor
    does sync (urllib3 warns on stderr at every one). Only then: a verified
    request's warnings stay as they are."""
    warnings.simplefilter("ignore", InsecureRequestWarning)


def with_environment(config, url: str):
    """``config`` with what git's environment says of TLS over it, as git lets
    it win over the config files: ``GIT_SSL_CAINFO`` (a company's CA bundle)
    and ``GIT_SSL_NO_VERIFY`` (dulwich reads only ``http.sslCAInfo`` and
    ``http.sslVerify``). Set for every http section and for this remote's URL,
    the most specific one; ``config`` itself when neither is set."""
    cainfo = os.environ.get("GIT_SSL_CAINFO")
    no_verify = os.environ.get("GIT_SSL_NO_VERIFY")
    if not cainfo and not no_verify:
        return config
    overrides = ConfigFile()  # a ConfigDict, as a stack holds files
    parts = urlsplit(url)
    bare = urlunsplit(parts._replace(netloc=parts.hostname + (f":{parts.port}" if parts.port else ""))) \
        if parts.hostname else url
    for section in ((b"http",), (b"http", bare.encode())):
        if cainfo:
            overrides.set(section, b"sslCAInfo", cainfo.encode())
        if no_verify:
            overrides.set(section, b"sslVerify", b"false")
    return StackedConfig([overrides, *getattr(config, "backends", [config])])


def ssh_command(config) -> str | None:
    """The ssh program git would run, in git's order (``get_ssh_command`` in
    git's connect.c): ``GIT_SSH_COMMAND`` (a deploy key in CI, ``ssh -i
    ~/.ssh/work_key``: split into words as a shell would, no ``$VAR``
    expanded), else ``core.sshCommand`` (None: dulwich reads it from
    ``config``), else ``GIT_SSH`` (a program's path, never split: a space in
    it is part of the path), else None: ``ssh``."""
    command = os.environ.get("GIT_SSH_COMMAND")
    if command:
        return command
    try:
        if config.get((b"core",), b"sshCommand"):
            return None
    except KeyError:
        pass
    program = os.environ.get("GIT_SSH")
    return shlex.quote(program) if program else None


def relative_base(project: "Project") -> Path:
    """Where git resolves a relative path remote from: the work tree's top
    level (git runs from there whatever folder it was started in), or the git
    directory of a bare repository."""
    where = locate(project.paths.worktree)  # a linked worktree's own top level, as git runs there
    if where is None:
        return project.paths.worktree
    return Path(where.worktree or where.git_dir)


def shown_url(url: str) -> str:
    """``url`` as messages show it: a password in it (``https://user:secret@host``)
    never is, nor the user name of an HTTP URL without one, which is where a
    token goes (``https://<token>@github.com/…``, whatever the token's shape);
    ``ssh://git@host`` keeps its user."""
    try:
        parts = urlsplit(url)
        token_only = parts.password is None and parts.username is not None \
            and parts.scheme.lower() in ("http", "https")
        if parts.password is None and not token_only:
            return url
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        shown = "***" if token_only else f"{parts.username}:***"
        return urlunsplit(parts._replace(netloc=f"{shown}@{host}"))
    except ValueError:
        return url


def _failure(exc: BaseException, action: str, url: str) -> RemoteUnreachable:
    """A transport error as the exit-4 error sync reports."""
    if isinstance(exc, (HTTPUnauthorized, HTTPProxyUnauthorized)):
        who = "the proxy" if isinstance(exc, HTTPProxyUnauthorized) else "the remote"
        return RemoteAuthFailed(
            f"cannot {action} {url!r}: {who} refused the credentials (none given, or wrong). Baton reaches "
            "the remote through dulwich, which runs none of git's credential helpers: give the user and "
            "password (or an access token) in the remote's URL, as `user:token@` before its host (git keeps "
            "it in .git/config), or use an ssh remote; check them with `git ls-remote`", details={"url": url})
    said = transport_text(exc)
    if isinstance(exc, (NotADirectoryError, IsADirectoryError)) and "refs" in said:  # a path remote
        return RemoteUnreachable(
            f"cannot {action} {url!r}: the remote's refs leave no room for the ledger ref ({said}): a ref "
            "named as one of its folders, or a folder of refs under its name, is in the way; sync every clone "
            "on another ref with `ref`, or remove that ref on the remote if nothing needs it",
            details={"url": url})
    if "Permission denied (publickey" in said:
        return RemoteAuthFailed(
            f"cannot {action} {url!r}: {said}; the ssh server refused this machine's keys: load the key it "
            "knows into your agent (`ssh-add`), or name it as git would — GIT_SSH_COMMAND=\"ssh -i KEY\" or "
            "`git config core.sshCommand \"ssh -i KEY\"`, which sync honours too; check with `git ls-remote`",
            details={"url": url})
    if "Host key verification failed" in said:
        return RemoteUnreachable(
            f"cannot {action} {url!r}: {said}; ssh does not know this server's host key yet (or it changed): "
            "connect once with ssh (or `git ls-remote`) to check and accept it", details={"url": url})
    over_ssh = ssh_failure(said, CHECK_URL)
    if over_ssh:
        return RemoteUnreachable(f"cannot {action} {url!r}: {over_ssh}", details={"url": url})
    status = http_status(exc)
    if status is not None:
        pushing = action.startswith("push")
        text = f"cannot {action} {url!r}: {http_refusal(status, pushing)}"
        details = {"url": url, "http_status": status}
        return RemoteAuthFailed(text, details=details) if status == 403 else RemoteUnreachable(text, details=details)
    return RemoteUnreachable(f"cannot {action} {url!r}: {_why(exc)}", details={"url": url})


def no_smart_push(url: str) -> str:
    """Why a push to an http(s) remote cannot be made: its server does not offer git's receive-pack
    (a read-only mirror, ``git http-backend`` without ``http.receivepack``, or a server of git's
    "dumb" http protocol only), so dulwich falls back to a client that cannot push."""
    return (f"cannot push to {url!r}: the server does not accept pushes over http (it refused git's receive-pack "
            "service, as a read-only mirror or `git http-backend` without http.receivepack does, or it serves "
            "only git's \"dumb\" http protocol, which Baton cannot push to). What the remote holds was fetched "
            "and imported; this clone's events stay here, unpublished. To publish them, sync with a remote "
            "that accepts pushes: the server's smart http with receive-pack enabled (and credentials in the "
            "URL when it asks for them), or ssh")


def serves_nothing(url: str) -> str:
    """Why a push to an http(s) remote that answered every request with nothing (an empty page, no
    ref, no git service: git says "return code 22") cannot be made, and why nothing was fetched."""
    return (f"cannot push to {url!r}: the server answered with nothing (an empty page where git's refs and "
            "services belong: git says \"return code 22\"), so nothing was fetched and nothing pushed; this "
            "clone's events stay here, unpublished. Its `git http-backend` is failing: its error log says why "
            "(a repository owned by another user than the server's, which git refuses as \"dubious ownership\" "
            "until `safe.directory` names it, or the CGI's setup); check with `git ls-remote`")


def _no_refs(client, path: str) -> bool:
    """The http(s) remote advertises no ref at all (its info/refs is empty): a failing server, not
    a read-only mirror of a repository (which lists its branches)."""
    failures: tuple[type[BaseException], ...] = (NotImplementedError, *_transport_errors())
    try:
        found = client.get_refs(path)
    except failures:
        return False
    return not getattr(found, "refs", found)


def http_status(exc: BaseException) -> int | None:
    """The HTTP status of an answer dulwich did not expect (it raises those
    but 401, 404 and 407 as ``unexpected http resp <status> for <url>``), or None."""
    if not isinstance(exc, errors.GitProtocolError):
        return None
    found = re.match(r"unexpected http resp (\d{3}) ", str(exc))
    return int(found.group(1)) if found else None


def http_refusal(status: int, pushing: bool) -> str:
    """What an http(s) remote's status means for a newcomer: 403 is the
    server refusing these credentials (or this client) that right — most
    often read access without write access, when pushing — and a 5xx the
    server (or a proxy before it) failing, nothing this clone did."""
    try:
        named = f"HTTP {status} {HTTPStatus(status).phrase}"
    except ValueError:
        named = f"HTTP {status}"
    if status == 403 and pushing:
        return (f"the remote refused to let these credentials push ({named}): they may read the repository "
                "but not write to it; ask its owner for write access (the ledger is pushed to a ref of its "
                "own, beside the branches), or give other credentials in the remote's URL")
    if status == 403:
        return (f"the remote refused these credentials access to the repository ({named}); ask its owner for "
                f"access, or give other credentials in the remote's URL; {CHECK_URL}")
    if status >= 500:
        return (f"the server failed to answer ({named}): a problem on the server's side (or a proxy's before "
                "it), not in this clone; try again later")
    return f"the server refused the request ({named}); {CHECK_URL}"


CHECK_URL = "check the remote's URL (`git remote -v`) and reach it with `git ls-remote`"


def _why(exc: BaseException) -> str:
    """What went wrong, for a newcomer: an http(s) connection that failed says
    so in one line (urllib3's "Max retries exceeded … Caused by …" names the
    reason last), and a server that has no repository at that URL (a 404,
    which dulwich raises as an empty ``NotGitRepository``) says that, each
    with the way to check the URL."""
    if isinstance(exc, errors.NotGitRepository) and not str(exc):
        return f"the server has no git repository at that URL; {CHECK_URL}"
    if isinstance(exc, KeyError):  # dulwich's object store: an object it was asked for is not there
        return missing_object(exc)
    reason = getattr(exc.__cause__, "reason", None)
    if isinstance(reason, BaseException):
        text = re.sub(r"^\w+\(host=[^)]*\):\s*", "", transport_text(reason))
        return f"cannot connect: {text}; {_question(reason)}{CHECK_URL}"
    return transport_text(exc)


def missing_object(exc: KeyError) -> str:
    """A ``KeyError`` from dulwich's object store (its message is the bare ``b'<id>'``): which
    object, in words, and the likeliest cause — a shallow clone's boundary, or a damaged store."""
    key = exc.args[0] if exc.args else None
    shown = key.decode("ascii", "replace") if isinstance(key, bytes) else str(key) if key is not None else ""
    named = f"git object {shown}" if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", shown) else "a git object"
    return (f"{named}, which the transfer needed, is not in this clone's object store: a shallow clone (`git clone "
            "--depth`) lacks the commits before its boundary (`git fetch --unshallow` fetches them), and a damaged "
            "store lacks others (`git fsck` names them)")


def _question(reason: BaseException) -> str:
    """What to wonder about a connection that failed: a host name that does
    not resolve is not a server that is down, and a TLS handshake that failed
    (an https URL at an http port) reached one."""
    kinds = {cls.__name__ for cls in type(reason).__mro__}  # urllib3's, by name: 1.x has no NameResolutionError
    if "NameResolutionError" in kinds:
        return "is the host name right? "
    if "ConnectTimeoutError" in kinds:  # refused, or timed out (NewConnectionError is one)
        return "is the server up? "
    return ""


def transport_text(exc: BaseException) -> str:
    """A transport error as one clean line: ssh and the remote's stderr end
    lines with carriage returns and may carry other control characters; each
    line is stripped of them and the lines are joined with ``; ``."""
    text = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]", "", str(exc))  # terminal colour and cursor codes
    lines = ("".join(ch for ch in line if ch == "\t" or unicodedata.category(ch) != "Cc").strip()
             for line in text.splitlines())
    return "; ".join(line for line in lines if line) or type(exc).__name__


def _transport_errors() -> tuple[type[BaseException], ...]:
    return (OSError, errors.GitProtocolError, errors.NotGitRepository, errors.HangupException,
            errors.SendPackError, errors.ObjectMissing, KeyError, ValueError, HTTPUnauthorized,
            HTTPProxyUnauthorized)


def fetch(repo, client, path: str, ref: bytes, url: str, remote: str = "origin") -> bytes | None:
    """Bring the remote's ledger ref's objects into the local store; its commit id (None: no ref).

    Raises:
        RemoteUnreachable: the remote holds a ref whose name leaves no room for
            the ledger ref (``refs/baton/ledger/x``, or ``refs/baton``): no push could create it.
    """
    seen: dict[str, bytes | None] = {}
    taken: list[bytes] = []

    def wants(refs, depth=None):
        if any(len(sha) != 40 for sha in refs.values() if sha):  # a SHA-256 remote: 64 hex digits
            raise GitUnsupported(unsupported_message("sha256", f"the remote {url}"),
                                 details={"object_format": "sha256", "url": url})
        taken[:] = sorted(name for name in refs if name.startswith(ref + b"/") or ref.startswith(name + b"/"))
        sha = refs.get(ref)
        seen["sha"] = sha
        if sha is None or sha in repo.object_store:
            return []
        return [sha]

    # What this clone has: dulwich offers only its branches as "haves", so a
    # fetch would send the whole ledger ref again (every segment, compressed
    # anew). The ledger ref is offered too: only the new objects travel.
    heads = [sha for sha in repo.refs.as_dict(b"refs/heads").values() if sha in repo.object_store]
    mine = repo.refs.as_dict().get(ref)
    if mine is not None and mine in repo.object_store:
        heads.append(mine)
    repo.get_graph_walker = lambda heads_=None: Repo.get_graph_walker(repo, heads if heads_ is None else heads_)
    try:
        if not _fetch_few_locally(repo, client, path, wants):
            client.fetch(path, repo, determine_wants=wants)
    except NotImplementedError:  # dulwich's "dumb" http client: the server offers no upload-pack either
        raise RemoteUnreachable(f"cannot fetch from {url!r}: the server serves only git's \"dumb\" http protocol "
                                "(no upload-pack service), which Baton cannot sync with; use the server's smart "
                                "http (`git http-backend`) or ssh", details={"url": url}) from None
    except _transport_errors() as exc:
        raise _failure(exc, f"fetch {ref.decode()} from", url) from None
    finally:
        del repo.get_graph_walker
    if taken:
        names = [name.decode("utf-8", "replace") for name in taken]
        raise RemoteUnreachable(ref_name_taken(ref.decode(), names, remote), details={"url": url, "refs": names})
    return seen.get("sha")


def ref_name_taken(ref: str, names: list[str], remote: str) -> str:
    """The remote holds ``names``, which leave no room for ``ref``: git keeps a
    ref and a folder of refs apart, so ``refs/baton/ledger`` cannot be made
    beside ``refs/baton/ledger/x`` (nor under a ref ``refs/baton``)."""
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return (f"the remote holds {shown}, so it cannot hold {ref} too (one name cannot be both a ref and a folder "
            f"of refs); nothing was imported or pushed. Sync every clone on another ref with `ref`, or, if "
            f"nothing needs it, remove it on the remote (`git push {remote} --delete {names[0]}`)")


FEW_OBJECTS = 256
UNPACK_LIMIT = 100
"""Fewer objects than this are stored loose (git's ``fetch.unpackLimit`` default)."""


def _fetch_few_locally(repo, client, path: str, wants) -> bool:
    """A path remote's few new objects (an incremental sync), copied one by one.

    dulwich's local fetch builds a pack, and to reuse the remote's deltas it
    reads through the remote's whole pack; its negotiation also walks every
    commit the two sides have in common (one per sync: O(syncs)). Here the
    walk goes back from the remote's commit only until commits this clone
    already has (``new_objects``), and a handful of objects is cheaper copied
    (each read by its pack index). Returns False when this is not a path
    remote, its ref is not a commit, or there are many objects: the ordinary
    fetch does it."""
    if not isinstance(client, LocalGitClient):
        return False
    with Repo(os.fsdecode(path)) as source:
        refs = source.refs.as_dict()
        want = wants({name: sha for name, sha in refs.items() if sha in source.object_store})
        if not want:
            return True
        found = new_objects(source.object_store, repo.object_store, want, FEW_OBJECTS)
        if found is None:
            return False
        if len(found) < UNPACK_LIMIT:
            # as git's fetch.unpackLimit: a few objects are stored loose, not as
            # one more small pack that every later lookup would have to search;
            # each after the objects it names, so a commit or tree this clone
            # has is whole (a walk stops there)
            for obj in found:
                repo.object_store.add_object(obj)
        else:
            repo.object_store.add_objects([(obj, None) for obj in found])
    return True


def new_objects(source, local, wants: list[bytes], limit: int) -> list | None:
    """The objects reachable from ``wants`` in ``source`` that ``local`` lacks,
    each after every object it names (blobs and subtrees before their tree,
    a tree before its commit, parents before children); None when there are
    more than ``limit`` or the history is not plain commits and trees (the
    ordinary fetch copes with those).

    A commit ``local`` holds, with its tree, is not walked past, nor a tree it
    holds: what this clone has is whole, as git assumes of the commits it
    has. So one new event costs the new commit and the few trees and blobs it
    changed, whatever the length of the history or of the ref."""
    commits: list = []
    seen: set[bytes] = set()
    stack = list(wants)
    while stack:
        sha = stack.pop()
        if sha in seen:
            continue
        seen.add(sha)
        if sha in local:
            obj = local[sha]
            if not isinstance(obj, Commit):
                return None
            if obj.tree in local:
                continue
        obj = source[sha]
        if not isinstance(obj, Commit) or len(seen) > limit:
            return None
        commits.append(obj)
        stack.extend(obj.parents)
    found: list = []

    def tree(sha: bytes) -> bool:
        if sha in seen or sha in local:
            return True
        seen.add(sha)
        obj = source[sha]
        if not isinstance(obj, Tree):
            return False
        for entry in obj.iteritems():
            if stat.S_ISDIR(entry.mode):
                if not tree(entry.sha):
                    return False
            elif stat.S_ISREG(entry.mode) or stat.S_ISLNK(entry.mode):
                if entry.sha not in seen and entry.sha not in local:
                    seen.add(entry.sha)
                    found.append(source[entry.sha])
            else:
                return False  # a submodule: not a ledger ref's shape
            if len(found) > limit:
                return False
        found.append(obj)
        return True

    for commit in reversed(commits):  # oldest first
        if not tree(commit.tree):
            return None
    order = {commit.id: n for n, commit in enumerate(reversed(commits))}
    found.extend(sorted(commits, key=lambda c: order[c.id]))
    return found if len(found) <= limit else None


def _pack_data_for(repo, client, path: str, show=None, events: int = 0):
    """What a push sends: a pack, except to a path remote when the objects are
    few (fewer than git's ``receive.unpackLimit``, 100): they are written into
    its object store loose, before its ref moves, and the pack is empty (as
    git's receive-pack unpacks a small push, so the remote does not gain one
    more pack per sync for every later lookup to search)."""
    packed = _shown(repo.object_store.generate_pack_data, show, events)
    if not isinstance(client, LocalGitClient):
        return packed

    def generate(have, want, *args, **kwargs):
        found = []
        for oid, _hint in MissingObjectFinder(repo.object_store, haves=have, wants=want):
            found.append(oid)
            if len(found) >= UNPACK_LIMIT:
                return packed(have, want, *args, **kwargs)
        if found:
            with Repo(os.fsdecode(path)) as target:
                write_loose_like_git(target.object_store)  # a killed push leaves no lock on an object
                sent = 0
                for done, oid in enumerate(found, 1):
                    obj = repo.object_store[oid]
                    target.object_store.add_object(obj)
                    sent += obj.raw_length()
                    if show is not None and events and sent > CHUNK_BYTES:  # a small push says nothing
                        show(events * done // len(found), events)
        return 0, iter(())

    return generate



def _ledger_haves(generate, expected: bytes | None):
    """The pack generator offered only the remote's ledger commit as what it has. dulwich
    offers every ref the remote advertises that this clone knows — its code branches too —
    and walks their history to leave out what the remote holds; the ledger ref shares none
    of it. In a shallow clone (``git clone --depth 1``, ``.git/shallow``) that walk reaches
    the missing parent of a boundary commit and fails (a ``KeyError`` of its id); in a deep
    one it reads the whole code history for nothing. Only the ledger commit the remote holds
    (``expected``, the one this push builds on) can spare objects from the pack."""
    def ledger_only(have, want, *args, **kwargs):
        return generate([sha for sha in have if expected is not None and sha == expected], want, *args, **kwargs)

    return ledger_only


def _quiet(generate):
    """The pack generator without the progress callback: ``progress`` then
    carries only what the server says (dulwich hands the one callback to both)."""
    def quiet(*args, **kwargs):
        kwargs["progress"] = None
        return generate(*args, **kwargs)

    return quiet


def _shown(generate, show, events: int):
    """The pack generator telling ``show(done, events)`` how far sending the pack went, as
    the share of its objects sent so far of the ``events`` the remote receives (the
    publishing progress line: a push to a new remote sends every feed whole), once more
    than one chunk (``CHUNK_BYTES``, as the publishing) was sent: a small push says nothing."""
    if show is None or not events:
        return generate

    def shown(*args, **kwargs):
        count, records = generate(*args, **kwargs)
        if not count:
            return count, records

        def each():
            said, sent = -1, 0
            for done, record in enumerate(records, 1):
                yield record
                sent += getattr(record, "decomp_len", None) or 0
                if sent > CHUNK_BYTES and events * done // count != said:  # a line only when its number changes
                    said = events * done // count
                    show(said, events)

        return count, each()

    return shown


def push(repo, client, path: str, ref: bytes, new: bytes, expected: bytes | None, url: str,
         cleaned: list[str] | None = None, show=None, events: int = 0, sending=None) -> None:
    """Move ``ref`` on the remote from ``expected`` to ``new``; ``show(done, events)``, when
    given, is told how far the pack of the ``events`` the remote receives was sent; ``sending()``,
    when given, is called as the push starts talking to the remote (from then on the remote may
    take it whatever this process learns: a Ctrl-C can no longer say nothing was pushed)."""
    def update(refs):
        current = refs.get(ref)
        if current in (None, ZERO_SHA):
            current = None
        if current != expected:
            raise RemoteMoved()
        return {ref: new}

    said: list[bytes] = []  # what the server's git wrote to the pusher ("remote: …"): a hook's reason
    if sending is not None:
        sending()
    try:
        result = client.send_pack(path, update, _quiet(_ledger_haves(_pack_data_for(repo, client, path, show, events),
                                                                 expected)),
                                  progress=said.append)
    except RemoteMoved:
        raise
    except FileLocked as exc:  # a path remote: another push holds a lock (the ref's, a pack index's) right now
        lock = os.fsdecode(getattr(exc, "lockfilename", b"") or b"") or f"{ref.decode()}.lock"
        controldir = local_remote_dir(client, path)
        if controldir is not None and cleaned is not None and remove_stale_lock(controldir, lock, cleaned):
            raise RemoteMoved(f"removed the stale lock {lock}") from None
        moved = RemoteMoved(f"{lock} exists on the remote: another push holds it, or one died holding it")
        moved.lock = lock
        raise moved from None
    except NotImplementedError:  # dulwich's "dumb" http client: the server refused git's receive-pack
        message = serves_nothing(url) if _no_refs(client, path) else no_smart_push(url)
        raise RemoteUnreachable(message, details={"url": url, "accepts_pushes": False}) from None
    except _transport_errors() as exc:
        raise _failure(exc, f"push {ref.decode()} to", url) from None
    status = (getattr(result, "ref_status", None) or {}).get(ref)
    if status:
        # "stale info" / "non-fast-forward" / "failed to update ref" (git's receive-pack
        # over ssh or http: the ref moved after it was advertised), "unable to set" (a
        # path or file:// remote, written by dulwich, whose ref moved after it was read)
        if any(word in str(status) for word in ("stale", "fast", "failed to update ref", "unable to set")):
            raise RemoteMoved(str(status))
        told = remote_words(b"".join(said).decode("utf-8", "replace"))
        told = f" (the remote said: {told})" if told else ""
        raise RemoteUnreachable(f"remote {url!r} refused {ref.decode()}: {status}{told}{_refusal_hint(status)}",
                                details={"url": url})


_PROGRESS = re.compile(r"(?:[A-Z][A-Za-z ]*: +\d{1,3}% \(\d+/\d+\)|Total \d+ \(delta \d+\))")
"""A line of git's progress meter (``Resolving deltas:  42% (3/7)``, ``Total 9 (delta 2)``)."""


def remote_words(raw: str) -> str:
    """What a server's git wrote to the pusher, as one line: its own words (a
    hook's reason, a refusal), never its progress meter, which a receive-pack
    over http sends on the same channel. Empty when it wrote nothing else."""
    lines = [line for line in raw[-4000:].splitlines() if not _PROGRESS.match(line.strip())]
    told = transport_text(Exception("\n".join(lines)))
    return "" if told == "Exception" else told[-2000:]


def _refusal_hint(status: object) -> str:
    """The way past a refusal a team can act on (none for the others)."""
    if "hidden ref" in str(status):
        return ("; the server hides the ledger's refs (git's `transfer.hideRefs` or `receive.hideRefs`): ask whoever "
                "runs it to let them through, or sync on a ref it does not hide with `ref`")
    return ""
