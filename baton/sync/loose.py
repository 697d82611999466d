"""Loose objects written as git writes them: a temporary file renamed into place, no lock.

dulwich writes a loose object under ``objects/xx/<rest>.lock`` and renames it;
a sync killed (``kill -9``, a crash) while writing one leaves the lock
behind, and every later write of that object — the same bytes: an object
is named by its content — stops on it (exit 4, ``git_lock_held`` in this
clone, ``remote_unreachable`` on a path remote) until someone removes it by
hand. Git itself takes no lock for a loose object: it writes a
``tmp_obj_*`` file and renames it over the name, so two writers of one
object cannot harm each other and a killed one leaves only a temporary file
``git gc`` removes. A sync's repositories (this clone's, and a path remote
it pushes to) write theirs that way (docs/sync.md, "A sync killed midway").
"""

from __future__ import annotations

import os
import tempfile

from dulwich.object_store import PACK_MODE
from dulwich.objects import hex_to_filename


def write_loose_like_git(store) -> None:
    """Make ``store`` (a dulwich ``DiskObjectStore``) write loose objects as git does."""
    if not hasattr(store, "loose_compression_level"):
        return  # not a disk store (an in-memory one in a test): nothing is left behind

    def add_object(obj) -> None:
        path = hex_to_filename(os.fspath(store.path), obj.id)
        try:
            os.utime(path, None)  # already there (as dulwich does: freshened against a concurrent prune)
            return
        except FileNotFoundError:
            pass
        except PermissionError:
            return  # another user's object in a shared repository: there, with its bytes
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix="tmp_obj_", dir=folder)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(obj.as_legacy_object(compression_level=store.loose_compression_level))
                if store.fsync_object_files:
                    out.flush()
                    os.fsync(out.fileno())
            os.chmod(temporary, PACK_MODE)
            os.replace(temporary, path)  # another writer's rename of the same object holds the same bytes
        except BaseException:
            try:
                os.unlink(temporary)
            except FileNotFoundError:
                pass
            raise

    store.add_object = add_object
