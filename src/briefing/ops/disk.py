"""Free space under BRIEF_HOME: a run refuses to start writing on a (nearly) full disk, and a full disk is named."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

from briefing.errors import DiskFullError, StateError

MIN_FREE_BYTES = 256 * 1024 * 1024  # room for an index generation, the raw cache's journal and the vector cache
# Below this, a store that fails to open is taken to be starved of space (a journal or lock file it could not
# create), not damaged: the advice to rebuild it would throw a good cache away.
READ_MARGIN_BYTES = 16 * 1024 * 1024
_FULL = {errno.ENOSPC, errno.EDQUOT}


def _existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path.cwd()


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.0f} MB" if size >= 1024 * 1024 else f"{size // 1024} KB"


def check_free(home: Path, margin: int = MIN_FREE_BYTES) -> None:
    """Raise `DiskFullError` when the file system holding `home` has less than `margin` bytes free."""
    free = shutil.disk_usage(_existing(home)).free
    if free < margin:
        raise DiskFullError(
            f"the disk holding BRIEF_HOME ({home}) is full: {_mb(free)} free, at least {_mb(margin)} needed to "
            "write the index and caches; free some space and run the command again (nothing was changed)"
        )


def is_disk_full(exc: BaseException) -> bool:
    """An OSError that says the disk (or the user's quota) is full."""
    return isinstance(exc, OSError) and exc.errno in _FULL


def full_disk(home: Path, exc: OSError) -> DiskFullError:
    """The one-line error for a write that failed on a full disk; what was written before is intact."""
    return DiskFullError(
        f"the disk holding BRIEF_HOME ({home}) filled up during the run ({exc.strerror or exc}): nothing is damaged, "
        "what was published before stays readable; free some space and run the command again to resume"
    )


def damage_or_full(path: Path, damage: StateError) -> StateError:
    """`damage`, unless the disk holding `path` is (nearly) full: then the full disk is named, not a rebuild."""
    if isinstance(damage, DiskFullError):
        return damage
    try:
        free = shutil.disk_usage(_existing(path)).free
    except OSError:
        return damage
    if free >= READ_MARGIN_BYTES:
        return damage
    return DiskFullError(
        f"the disk holding {path} is full ({_mb(free)} free), so it could not be opened: nothing is known to be "
        "damaged; free some space and run the command again (do not rebuild or re-fetch anything)"
    )
