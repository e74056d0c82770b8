"""Atomic file output: a failure or an interruption leaves the previous file exactly as it was."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


def atomic_write_bytes(path: Path, data: bytes, durable: bool = True) -> bool:
    """Write `data` to `path` through a temporary file and a rename; return False when unchanged.

    Leaving an identical file alone keeps its mtime, so build tools see no change. `durable=False`
    skips the wait for the disk (an fsync, about 5 ms) for a file that can always be made again, a
    cache entry: after a crash it may be empty or torn, and its reader takes that as a miss.

    A symbolic link is written through (a snapshot linked to a folder several projects share): the
    file it names is replaced, and the link stays.
    """
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with naming(path):
            os.fchmod(fd, file_mode(path))
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                if durable:
                    handle.flush()
                    os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    return True


@contextlib.contextmanager
def naming(path: Path) -> Iterator[None]:
    """A full disk or a read-only file system that fails a write or a flush names no file: name
    `path`, so the one line the user sees says where the space was missing."""
    try:
        yield
    except OSError as error:
        if error.filename is not None or error.errno not in _OF_THE_PLACE:
            raise
        raise OSError(error.errno, error.strerror, str(path)) from error


_NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT})
_OF_THE_PLACE = _NO_SPACE | {errno.EROFS, errno.EIO}
"""Refusals that say something about where a file was written, not about what wrote it."""


def what_to_check(error: OSError) -> str:
    """What to do about a refused write, by the system's reason: advice on permissions is no help
    with a full disk."""
    if error.errno in _NO_SPACE:
        return "free some space there (or raise the quota) and run again"
    if error.errno == errno.EROFS:
        return "the file system is read-only; write somewhere else"
    if error.errno == errno.ELOOP:
        return "a symbolic link on the path leads back to itself; fix or remove it"
    if error.errno in (errno.EACCES, errno.EPERM):
        return "check the folder's permissions"
    return "check the path, its permissions and the free space"


def lookup_refused(path: Path) -> OSError | None:
    """Why the system cannot say what is at `path` (a symbolic link loop, a folder above it that is a
    file or unreadable), or None when it can, whether something is there or not. `Path.exists` and
    `Path.is_dir` are False in these cases too, which a report would call missing."""
    try:
        path.stat()
    except FileNotFoundError:
        return None
    except OSError as error:
        return error
    return None


def file_mode(path: Path) -> int:
    """Keep an existing file's permissions; a new file gets the usual umask-based mode, not mkstemp's 0600."""
    return _kept_mode(path, 0o666)


def folder_mode(path: Path) -> int:
    """Keep an existing folder's permissions; a new one gets the usual umask-based mode, not mkdtemp's
    0700, which no other user (an application's own, in a container) could import a package from."""
    return _kept_mode(path, 0o777)


def _kept_mode(path: Path, default: int) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return default & ~umask
